#pragma once

#include "SubmissionReport.h"

#include <QColor>
#include <QRect>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

class QPainter;
class QPdfWriter;

namespace steward {

inline constexpr const char *kSeverities[] = {"fatal", "error", "warning", "info"};

QColor severityColor(const std::string &severity);

// Draws the report top-down through as many pages as it takes: whatever would run past the bottom
// margin goes to a new page (with a table's header drawn again there), a page a section runs onto is
// headed "TITLE (continued)", and every page gets the footer with "page N of M". The report is laid out
// twice: a first pass (totalPages 0) draws nothing and counts the pages, the second draws them.
class ReportWriter
{
public:
    ReportWriter(QPdfWriter &writer, QPainter &painter, const QRect &area, const QString &footer, int totalPages);

    int pages() const { return m_pages; }

    // A section (the summary, a school) from a new page unless nothing is on this one yet; the pages it
    // runs onto name it.
    void section(const QString &title);
    void finish();

    void heading(const QString &text, int pointSize);
    void line(const QString &text, const QColor &color = Qt::black);
    // A table: column widths by weight, cells wrapped; numbers (right-aligned columns) never wrap. A row
    // that does not fit goes to the next page, under the header again. mostLines, where given and not 0,
    // caps a column's lines: longer text is cut with an ellipsis (the fix list's spreadsheet has it whole).
    void table(const QStringList &header, const std::vector<QStringList> &rows, const std::vector<int> &weights,
               const std::vector<bool> &rightAligned, const std::vector<int> &mostLines = {});
    // Horizontal bars, one per rule, colored by severity, scaled to the largest; rule ids wrap.
    void bars(const std::vector<ReportPage::RuleLine> &rules, int most);
    void legend();

private:
    bool drawing() const { return m_totalPages > 0; }
    int footerHeight() const { return 30; }
    int limit() const { return m_area.bottom() - footerHeight() - 6; }

    void newPage();
    void continuePage();
    void room(int height);
    std::vector<int> columnWidths(const QStringList &header, const std::vector<QStringList> &rows,
                                  const std::vector<int> &weights, const std::vector<bool> &rightAligned) const;
    QString withinLines(const QString &text, int width, int lines) const;
    int wrapping(const QString &text, int width) const;
    int textHeight(const QString &text, int width) const;
    void draw(const QRect &rect, int flags, const QString &text, const QColor &color);
    void fill(const QRect &rect, const QColor &color);
    void drawFooter();
    void body();

    QPdfWriter &m_writer;
    QPainter &m_painter;
    QRect m_area;
    QString m_footer;
    int m_totalPages;
    QString m_section;
    int m_y;
    int m_pages = 1;
};

} // namespace steward
