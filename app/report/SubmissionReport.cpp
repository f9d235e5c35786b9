#include "SubmissionReport.h"

#include "Database.h"
#include "Readiness.h"
#include "Submissions.h"

#include <SQLiteCpp/Statement.h>

#include <QColor>
#include <QDateTime>
#include <QFont>
#include <QFontMetrics>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>

#include <algorithm>

namespace steward {

namespace {

// Where a document belongs: the school its body names first; none means district-wide (students,
// staff, descriptors, the district itself).
const char *const kSchoolOfBody =
    "coalesce(json_extract(b, '$.schoolId'), json_extract(b, '$.schoolReference.schoolId'),"
    " json_extract(b, '$.courseOfferingReference.schoolId'), json_extract(b, '$.sectionReference.schoolId'),"
    " json_extract(b, '$.sessionReference.schoolId'))";

const char *const kSeverities[] = {"fatal", "error", "warning", "info"};

QColor severityColor(const std::string &severity)
{
    if (severity == "fatal")
        return QColor(0xb0, 0x1c, 0x2e);
    if (severity == "error")
        return QColor(0xd9, 0x6c, 0x06);
    if (severity == "warning")
        return QColor(0xc9, 0xa2, 0x27);
    return QColor(0x4a, 0x78, 0xa8);
}

std::int64_t totalOf(const std::map<std::string, std::int64_t> &counts)
{
    std::int64_t total = 0;
    for (const auto &[name, count] : counts)
        total += count;
    return total;
}

// Draws top-down on one page; y is where the next line starts.
class PageWriter
{
public:
    PageWriter(QPainter &painter, const QRect &area)
        : m_painter(painter)
        , m_area(area)
        , m_y(area.top())
    {
    }

    void heading(const QString &text, int pointSize)
    {
        QFont font = m_painter.font();
        font.setPointSize(pointSize);
        font.setBold(true);
        m_painter.setFont(font);
        m_painter.setPen(Qt::black);
        const int height = QFontMetrics(font).height();
        m_painter.drawText(QRect(m_area.left(), m_y, m_area.width(), height), Qt::AlignLeft | Qt::AlignVCenter, text);
        m_y += height + height / 3;
        body();
    }

    void line(const QString &text, const QColor &color = Qt::black)
    {
        m_painter.setPen(color);
        const QRect bounds = m_painter.boundingRect(QRect(m_area.left(), m_y, m_area.width(), 1000),
                                                    Qt::TextWordWrap | Qt::AlignLeft, text);
        m_painter.drawText(bounds, Qt::TextWordWrap | Qt::AlignLeft, text);
        m_y += bounds.height() + 2;
    }

    // A table whose first column is text and the others right-aligned numbers.
    void table(const QStringList &header, const std::vector<QStringList> &rows)
    {
        const int rowHeight = QFontMetrics(m_painter.font()).height() + 6;
        const int first = m_area.width() * (header.size() > 4 ? 31 : 45) / 100;
        const int rest = header.size() > 1 ? (m_area.width() - first) / (header.size() - 1) : 0;
        auto cell = [&](int column, int height) {
            return column == 0 ? QRect(m_area.left(), m_y, first, height)
                               : QRect(m_area.left() + first + (column - 1) * rest + 6, m_y, rest - 6, height);
        };
        QFont bold = m_painter.font();
        bold.setBold(true);
        bold.setPointSize(9);
        const QFont plain = m_painter.font();
        m_painter.setFont(bold);
        m_painter.setPen(Qt::black);
        // Headers wrap onto a second line rather than run into their neighbours.
        const int headerHeight = QFontMetrics(bold).height() * 2 + 6;
        for (int c = 0; c < header.size(); ++c)
            m_painter.drawText(cell(c, headerHeight),
                               (c == 0 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignBottom | Qt::TextWordWrap, header[c]);
        m_painter.setFont(plain);
        m_y += headerHeight + 4;
        m_painter.drawLine(m_area.left(), m_y - 2, m_area.right(), m_y - 2);
        bool shade = false;
        for (const QStringList &row : rows) {
            if (m_y + rowHeight > m_area.bottom() - 40)
                break;
            if (shade)
                m_painter.fillRect(QRect(m_area.left(), m_y, m_area.width(), rowHeight), QColor(0xf2, 0xf4, 0xf7));
            shade = !shade;
            for (int c = 0; c < row.size() && c < header.size(); ++c)
                m_painter.drawText(cell(c, rowHeight), (c == 0 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter,
                                   row[c]);
            m_y += rowHeight;
        }
        m_y += rowHeight / 2;
    }

    // Horizontal bars, one per rule, colored by severity, scaled to the largest.
    void bars(const std::vector<ReportPage::RuleLine> &rules, int most)
    {
        const int rowHeight = QFontMetrics(m_painter.font()).height() + 6;
        const int label = m_area.width() / 4;
        std::int64_t largest = 1;
        for (const ReportPage::RuleLine &rule : rules)
            largest = std::max(largest, rule.count);
        int shown = 0;
        for (const ReportPage::RuleLine &rule : rules) {
            if (shown++ == most || m_y + rowHeight > m_area.bottom() - 60)
                break;
            m_painter.setPen(Qt::black);
            m_painter.drawText(QRect(m_area.left(), m_y, label - 8, rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                               QString::fromStdString(rule.ruleId));
            const int room = m_area.width() - label - 70;
            const int width = std::max(2, static_cast<int>(room * rule.count / largest));
            m_painter.fillRect(QRect(m_area.left() + label, m_y + 3, width, rowHeight - 6), severityColor(rule.severity));
            m_painter.drawText(QRect(m_area.left() + label + width + 6, m_y, 64, rowHeight),
                               Qt::AlignLeft | Qt::AlignVCenter, QString::number(rule.count));
            m_y += rowHeight;
        }
        m_y += rowHeight / 2;
    }

    void legend()
    {
        int x = m_area.left();
        const int height = QFontMetrics(m_painter.font()).height();
        for (const char *severity : kSeverities) {
            m_painter.fillRect(QRect(x, m_y + 3, height - 6, height - 6), severityColor(severity));
            m_painter.setPen(Qt::black);
            m_painter.drawText(QRect(x + height, m_y, 90, height), Qt::AlignLeft | Qt::AlignVCenter, QString::fromLatin1(severity));
            x += 100;
        }
        m_y += height + 6;
    }

    void footer(const QString &text)
    {
        QFont font = m_painter.font();
        font.setPointSize(8);
        const QFont before = m_painter.font();
        m_painter.setFont(font);
        m_painter.setPen(Qt::darkGray);
        m_painter.drawText(QRect(m_area.left(), m_area.bottom() - 30, m_area.width(), 30),
                           Qt::AlignLeft | Qt::AlignBottom | Qt::TextWordWrap, text);
        m_painter.setFont(before);
    }

private:
    void body()
    {
        QFont font = m_painter.font();
        font.setPointSize(10);
        font.setBold(false);
        m_painter.setFont(font);
    }

    QPainter &m_painter;
    QRect m_area;
    int m_y;
};

} // namespace

SubmissionReportData gatherSubmissionReport(SQLite::Database &db)
{
    DeferredTransaction read(db);
    SubmissionReportData data;
    data.generatedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    data.verdict = computeReadiness(db).verdictText();
    const SubmissionStatus status = submissionStatus(db);
    std::int64_t since = -1;
    if (status.last) {
        data.lastSubmission = status.last->summary();
        data.lastVerdict = status.last->verdict.value("verdict", std::string());
        data.lastAcknowledged = status.last->acknowledged.is_array()
                                    ? static_cast<std::int64_t>(status.last->acknowledged.size())
                                    : 0;
        since = status.last->seqTo;
    }

    std::map<std::string, ReportPage> pages;
    auto page = [&](const std::string &school) -> ReportPage & {
        ReportPage &p = pages[school];
        p.schoolId = school;
        return p;
    };
    {
        SQLite::Statement names(db, "SELECT json_extract(b, '$.schoolId'), json_extract(b, '$.nameOfInstitution')"
                                    " FROM (SELECT steward_text(body) AS b FROM documents WHERE resource = 'School')");
        while (names.executeStep())
            page(names.getColumn(0).getString()).title =
                names.getColumn(1).getString() + " (" + names.getColumn(0).getString() + ")";
    }
    {
        SQLite::Statement counts(db, std::string("SELECT coalesce(") + kSchoolOfBody + ", ''), r.resource, count(*),"
                                         " sum(d.change_seq > ?)"
                                         " FROM (SELECT resource_key, change_seq, steward_text(body) AS b"
                                         "       FROM document_rows) d"
                                         " JOIN resources r ON r.resource_key = d.resource_key GROUP BY 1, 2");
        counts.bind(1, since < 0 ? std::numeric_limits<std::int64_t>::max() : since);
        while (counts.executeStep())
            page(counts.getColumn(0).getString())
                .resources.push_back({counts.getColumn(1).getString(), counts.getColumn(2).getInt64(),
                                      counts.getColumn(3).getInt64()});
    }
    {
        // Steward's results and the imported ones still standing (not changed since the state's run).
        SQLite::Statement results(
            db, std::string("WITH x AS (SELECT doc_id, rule_id, severity, pack_id AS origin FROM rule_results"
                            "           UNION ALL SELECT doc_id, rule_id, severity, source FROM imported_results"
                            "           WHERE doc_id IS NOT NULL AND changed_since = 0)"
                            " SELECT coalesce((SELECT ")
                    + kSchoolOfBody
                    + " FROM (SELECT steward_text(d.body) AS b FROM document_rows d"
                      "       WHERE d.id = steward_id_key(x.doc_id))), '') AS school,"
                      " x.rule_id, x.severity, count(*),"
                      " sum(EXISTS (SELECT 1 FROM acknowledgements a WHERE a.origin = x.origin"
                      "             AND a.rule_id = x.rule_id AND a.doc_id = x.doc_id))"
                      " FROM x GROUP BY 1, 2, 3");
        while (results.executeStep()) {
            ReportPage &p = page(results.getColumn(0).getString());
            const std::string severity = results.getColumn(2).getString();
            p.byRule.push_back({results.getColumn(1).getString(), severity, results.getColumn(3).getInt64()});
            p.bySeverity[severity] += results.getColumn(3).getInt64();
            p.acknowledged += results.getColumn(4).getInt64();
        }
    }
    for (auto &[school, p] : pages) {
        if (p.title.empty())
            p.title = school.empty() ? "District-wide records" : "School " + school;
        std::sort(p.byRule.begin(), p.byRule.end(), [](const ReportPage::RuleLine &a, const ReportPage::RuleLine &b) {
            return a.count != b.count ? a.count > b.count : a.ruleId < b.ruleId;
        });
        std::sort(p.resources.begin(), p.resources.end(),
                  [](const ReportPage::ResourceLine &a, const ReportPage::ResourceLine &b) { return a.resource < b.resource; });
    }
    // Schools in id order, district-wide records last.
    for (auto &[school, p] : pages)
        if (!school.empty())
            data.pages.push_back(std::move(p));
    if (pages.count(std::string()) > 0)
        data.pages.push_back(std::move(pages[std::string()]));
    return data;
}

bool writeSubmissionReportPdf(const SubmissionReportData &data, const QString &path, QString *error)
{
    QPdfWriter writer(path);
    writer.setPageSize(QPageSize(QPageSize::Letter));
    writer.setResolution(96);
    writer.setTitle(QStringLiteral("Steward submission report"));
    writer.setCreator(QStringLiteral("Steward"));
    QPainter painter;
    if (!painter.begin(&writer)) {
        if (error)
            *error = QStringLiteral("%1 cannot be written").arg(path);
        return false;
    }
    const QRect area = QRect(QPoint(0, 0), writer.pageLayout().paintRectPixels(writer.resolution()).size())
                           .adjusted(24, 24, -24, -24);
    const QString footer = QStringLiteral("Steward · generated %1").arg(QString::fromStdString(data.generatedAt));

    {
        PageWriter summary(painter, area);
        summary.heading(QStringLiteral("Submission report"), 20);
        summary.line(QString::fromStdString(data.verdict),
                     data.verdict.rfind("Ready", 0) == 0 ? QColor(0x1b, 0x7f, 0x3b) : severityColor("fatal"));
        summary.line(data.lastSubmission.empty()
                         ? QStringLiteral("No submission signed off yet.")
                         : QStringLiteral("Last submission: %1. Verdict then: %2. Acknowledged warnings then: %3.")
                               .arg(QString::fromStdString(data.lastSubmission),
                                    QString::fromStdString(data.lastVerdict))
                               .arg(data.lastAcknowledged));
        summary.line(QString());
        summary.heading(QStringLiteral("Schools"), 13);
        std::vector<QStringList> rows;
        for (const ReportPage &p : data.pages) {
            std::int64_t documents = 0;
            std::int64_t changed = 0;
            for (const ReportPage::ResourceLine &r : p.resources) {
                documents += r.documents;
                changed += r.changedSince;
            }
            QStringList row{QString::fromStdString(p.title), QString::number(documents)};
            for (const char *severity : kSeverities) {
                auto it = p.bySeverity.find(severity);
                row << QString::number(it == p.bySeverity.end() ? 0 : it->second);
            }
            row << (data.lastSubmission.empty() ? QStringLiteral("–") : QString::number(changed));
            rows.push_back(row);
        }
        summary.table({QStringLiteral("School"), QStringLiteral("Documents"), QStringLiteral("Fatal"),
                       QStringLiteral("Error"), QStringLiteral("Warning"), QStringLiteral("Info"),
                       QStringLiteral("Changed since")},
                      rows);
        summary.footer(footer);
    }

    for (const ReportPage &p : data.pages) {
        writer.newPage();
        PageWriter out(painter, area);
        out.heading(QString::fromStdString(p.title), 16);
        const std::int64_t results = totalOf(p.bySeverity);
        QStringList counts;
        for (const char *severity : kSeverities) {
            auto it = p.bySeverity.find(severity);
            counts << QStringLiteral("%1 %2").arg(it == p.bySeverity.end() ? 0 : it->second).arg(QLatin1String(severity));
        }
        out.line(QStringLiteral("Results: %1 (%2); %3 warning(s) acknowledged.")
                     .arg(results)
                     .arg(counts.join(QStringLiteral(", ")))
                     .arg(p.acknowledged));
        out.line(QString());
        out.heading(QStringLiteral("Documents per resource"), 12);
        std::vector<QStringList> rows;
        for (const ReportPage::ResourceLine &r : p.resources)
            rows.push_back({QString::fromStdString(r.resource), QString::number(r.documents),
                            data.lastSubmission.empty() ? QStringLiteral("–") : QString::number(r.changedSince)});
        out.table({QStringLiteral("Resource"), QStringLiteral("Documents"), QStringLiteral("Changed since last submission")},
                  rows);
        out.heading(QStringLiteral("Results by rule"), 12);
        if (p.byRule.empty()) {
            out.line(QStringLiteral("No results: every rule passes here."));
        } else {
            out.legend();
            out.bars(p.byRule, 18);
        }
        out.footer(footer
                   + (data.lastSubmission.empty() ? QString()
                                                  : QStringLiteral(" · last submission: %1")
                                                        .arg(QString::fromStdString(data.lastSubmission))));
    }
    if (!painter.end()) {
        if (error)
            *error = QStringLiteral("%1 could not be finished").arg(path);
        return false;
    }
    return true;
}

} // namespace steward
