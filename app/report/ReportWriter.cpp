#include "ReportWriter.h"

#include <QFont>
#include <QFontMetrics>
#include <QPainter>
#include <QPdfWriter>

#include <algorithm>

namespace steward {

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

ReportWriter::ReportWriter(QPdfWriter &writer, QPainter &painter, const QRect &area, const QString &footer,
                           int totalPages)
    : m_writer(writer)
    , m_painter(painter)
    , m_area(area)
    , m_footer(footer)
    , m_totalPages(totalPages)
    , m_y(area.top())
{
    body();
}

void ReportWriter::section(const QString &title)
{
    if (m_y > m_area.top())
        newPage();
    m_section = title;
}

void ReportWriter::finish()
{
    drawFooter();
}

// Ends the page (its footer) and starts the next; the first pass only counts it.
void ReportWriter::newPage()
{
    drawFooter();
    if (drawing())
        m_writer.newPage();
    ++m_pages;
    m_y = m_area.top();
}

// A page the section runs onto: named, so a page read on its own says whose it is.
void ReportWriter::continuePage()
{
    newPage();
    if (m_section.isEmpty())
        return;
    const QFont before = m_painter.font();
    QFont font = before;
    font.setPointSize(12);
    font.setBold(true);
    m_painter.setFont(font);
    const QString text = QStringLiteral("%1 (continued)").arg(m_section);
    const int height = textHeight(text, m_area.width());
    draw(QRect(m_area.left(), m_y, m_area.width(), height), Qt::AlignLeft | Qt::TextWordWrap, text, Qt::black);
    m_y += height + QFontMetrics(font).height() / 3;
    m_painter.setFont(before);
}

void ReportWriter::heading(const QString &text, int pointSize)
{
    QFont font = m_painter.font();
    font.setPointSize(pointSize);
    font.setBold(true);
    m_painter.setFont(font);
    const int height = textHeight(text, m_area.width());
    // A heading never stands alone at the bottom of a page: room for it and two lines under it.
    room(height + 3 * QFontMetrics(font).height());
    draw(QRect(m_area.left(), m_y, m_area.width(), height), Qt::AlignLeft | Qt::TextWordWrap, text, Qt::black);
    m_y += height + QFontMetrics(font).height() / 3;
    body();
}

void ReportWriter::line(const QString &text, const QColor &color)
{
    const int height = text.isEmpty() ? QFontMetrics(m_painter.font()).height() / 2 : textHeight(text, m_area.width());
    room(height);
    draw(QRect(m_area.left(), m_y, m_area.width(), height), Qt::AlignLeft | Qt::TextWordWrap, text, color);
    m_y += height + 2;
}

// Column widths by weight; a column is as wide as the longest word of its header, a column of numbers
// as its widest number too; the widest column gives up the room.
std::vector<int> ReportWriter::columnWidths(const QStringList &header, const std::vector<QStringList> &rows,
                                            const std::vector<int> &weights, const std::vector<bool> &rightAligned) const
{
    int total = 0;
    for (int weight : weights)
        total += weight;
    std::vector<int> width;
    for (int weight : weights)
        width.push_back(m_area.width() * weight / total);
    QFont bold = m_painter.font();
    bold.setBold(true);
    const QFontMetrics metrics(m_painter.font());
    for (std::size_t c = 0; c < width.size(); ++c) {
        int least = 0;
        for (const QString &word : header[static_cast<int>(c)].split(QLatin1Char(' ')))
            least = std::max(least, QFontMetrics(bold).horizontalAdvance(word) + 10);
        for (const QStringList &row : rows) {
            if (static_cast<int>(c) >= row.size())
                continue;
            if (rightAligned[c]) {
                least = std::max(least, metrics.horizontalAdvance(row[static_cast<int>(c)]) + 10);
                continue;
            }
            // An id or a rule number reads whole; longer words may break (up to a quarter of the page).
            for (const QString &word : row[static_cast<int>(c)].split(QLatin1Char(' ')))
                least = std::max(least, std::min(metrics.horizontalAdvance(word) + 10, m_area.width() / 4));
        }
        if (width[c] < least) {
            auto widest = std::max_element(width.begin(), width.end());
            *widest -= least - width[c];
            width[c] = least;
        }
    }
    return width;
}

void ReportWriter::table(const QStringList &header, const std::vector<QStringList> &givenRows,
                         const std::vector<int> &weights, const std::vector<bool> &rightAligned,
                         const std::vector<int> &mostLines)
{
    std::vector<int> width = columnWidths(header, givenRows, weights, rightAligned);
    std::vector<int> left;
    int x = m_area.left();
    for (std::size_t c = 0; c < width.size(); ++c) {
        if (c + 1 == width.size())
            width[c] = m_area.right() - x;
        left.push_back(x);
        x += width[c];
    }
    std::vector<QStringList> rows = givenRows;
    for (std::size_t c = 0; c < mostLines.size() && c < width.size(); ++c)
        if (mostLines[c] > 0)
            for (QStringList &row : rows)
                if (static_cast<int>(c) < row.size())
                    row[static_cast<int>(c)] = withinLines(row[static_cast<int>(c)], width[c] - 6, mostLines[c]);
    auto cell = [&](std::size_t column, int top, int height) {
        return QRect(left[column] + 3, top + 3, width[column] - 6, height - 6);
    };
    auto rowHeight = [&](const QStringList &row) {
        int height = QFontMetrics(m_painter.font()).height();
        for (int c = 0; c < row.size() && c < static_cast<int>(width.size()); ++c)
            height = std::max(height, textHeight(row[c], width[static_cast<std::size_t>(c)] - 6));
        return height + 6;
    };
    auto alignment = [&](std::size_t c) { return rightAligned[c] ? Qt::AlignRight : Qt::AlignLeft; };
    auto drawHeader = [&] {
        QFont bold = m_painter.font();
        bold.setBold(true);
        const QFont plain = m_painter.font();
        m_painter.setFont(bold);
        const int height = rowHeight(header);
        for (int c = 0; c < header.size(); ++c)
            draw(cell(static_cast<std::size_t>(c), m_y, height),
                 alignment(static_cast<std::size_t>(c)) | Qt::AlignBottom | Qt::TextWordWrap, header[c], Qt::black);
        m_painter.setFont(plain);
        m_y += height;
        if (drawing()) {
            m_painter.setPen(Qt::black);
            m_painter.drawLine(m_area.left(), m_y, m_area.right(), m_y);
        }
        m_y += 2;
    };
    room(rowHeight(header) + (rows.empty() ? 0 : rowHeight(rows.front())) + 2);
    drawHeader();
    bool shade = false;
    for (const QStringList &row : rows) {
        const int height = rowHeight(row);
        if (m_y + height > limit()) {
            continuePage();
            drawHeader();
        }
        if (shade)
            fill(QRect(m_area.left(), m_y, m_area.width(), height), QColor(0xf2, 0xf4, 0xf7));
        shade = !shade;
        for (int c = 0; c < row.size() && c < header.size(); ++c)
            draw(cell(static_cast<std::size_t>(c), m_y, height),
                 alignment(static_cast<std::size_t>(c)) | Qt::AlignTop | Qt::TextWordWrap, row[c], Qt::black);
        m_y += height;
    }
    m_y += QFontMetrics(m_painter.font()).height() / 2;
}

void ReportWriter::bars(const std::vector<ReportPage::RuleLine> &rules, int most)
{
    const int label = m_area.width() / 3;
    const int number = QFontMetrics(m_painter.font()).horizontalAdvance(QStringLiteral("0000000")) + 6;
    std::int64_t largest = 1;
    for (const ReportPage::RuleLine &rule : rules)
        largest = std::max(largest, rule.count);
    int shown = 0;
    for (const ReportPage::RuleLine &rule : rules) {
        if (shown++ == most)
            break;
        const QString id = QString::fromStdString(rule.ruleId);
        const int height = std::max(textHeight(id, label - 8), QFontMetrics(m_painter.font()).height()) + 6;
        room(height);
        draw(QRect(m_area.left(), m_y + 3, label - 8, height - 6), Qt::AlignLeft | Qt::TextWordWrap, id, Qt::black);
        const int barRoom = m_area.width() - label - number;
        const int w = std::max(2, static_cast<int>(barRoom * rule.count / largest));
        fill(QRect(m_area.left() + label, m_y + 3, w, height - 6), severityColor(rule.severity));
        draw(QRect(m_area.left() + label + w + 4, m_y + 3, number - 4, height - 6), Qt::AlignLeft | Qt::AlignVCenter,
             QString::number(rule.count), Qt::black);
        m_y += height;
    }
    if (static_cast<int>(rules.size()) > most)
        line(QStringLiteral("... and %1 more rule(s): see the fix list.").arg(rules.size() - static_cast<std::size_t>(most)));
    m_y += QFontMetrics(m_painter.font()).height() / 2;
}

void ReportWriter::legend()
{
    const int height = QFontMetrics(m_painter.font()).height();
    room(height + 6);
    int x = m_area.left();
    for (const char *severity : kSeverities) {
        fill(QRect(x, m_y + 3, height - 6, height - 6), severityColor(severity));
        draw(QRect(x + height, m_y, 90, height), Qt::AlignLeft | Qt::AlignVCenter, QString::fromLatin1(severity),
             Qt::black);
        x += 100;
    }
    m_y += height + 6;
}

// Starts a new page when what comes next would not fit above the footer.
void ReportWriter::room(int height)
{
    if (m_y + height > limit() && m_y > m_area.top())
        continuePage();
}

// The text as it fits in at most that many lines of that width: cut at the end with an ellipsis where
// it would run longer (the longest prefix that fits, found by halving).
QString ReportWriter::withinLines(const QString &text, int width, int lines) const
{
    const int most = textHeight(QStringList(lines, QStringLiteral("x")).join(QLatin1Char('\n')), width);
    if (textHeight(text, width) <= most)
        return text;
    const QString ellipsis(QChar(0x2026));
    int fits = 0;
    int tooLong = static_cast<int>(text.size());
    while (tooLong - fits > 1) {
        const int middle = (fits + tooLong) / 2;
        if (textHeight(text.left(middle).trimmed() + ellipsis, width) <= most)
            fits = middle;
        else
            tooLong = middle;
    }
    return text.left(fits).trimmed() + ellipsis;
}

// Words wrap at spaces; a word wider than the room (an id, a resource name) breaks where it must
// rather than run into the next column.
int ReportWriter::wrapping(const QString &text, int width) const
{
    const QFontMetrics metrics(m_painter.font());
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts))
        if (metrics.horizontalAdvance(word) > width)
            return Qt::TextWrapAnywhere;
    return Qt::TextWordWrap;
}

int ReportWriter::textHeight(const QString &text, int width) const
{
    width = std::max(width, 1);
    return m_painter.boundingRect(QRect(0, 0, width, 100000), wrapping(text, width) | Qt::AlignLeft, text).height();
}

void ReportWriter::draw(const QRect &rect, int flags, const QString &text, const QColor &color)
{
    if (!drawing())
        return;
    m_painter.setPen(color);
    if ((flags & Qt::TextWordWrap) != 0)
        flags = (flags & ~Qt::TextWordWrap) | wrapping(text, rect.width());
    m_painter.drawText(rect, flags, text);
}

void ReportWriter::fill(const QRect &rect, const QColor &color)
{
    if (drawing())
        m_painter.fillRect(rect, color);
}

void ReportWriter::drawFooter()
{
    const QFont before = m_painter.font();
    QFont font = before;
    font.setPointSize(8);
    font.setBold(false);
    m_painter.setFont(font);
    const QString text = m_footer + QStringLiteral(" · page %1 of %2").arg(m_pages).arg(m_totalPages);
    draw(QRect(m_area.left(), m_area.bottom() - footerHeight(), m_area.width(), footerHeight()),
         Qt::AlignLeft | Qt::AlignBottom | Qt::TextWordWrap, text, Qt::darkGray);
    m_painter.setFont(before);
}

void ReportWriter::body()
{
    QFont font = m_painter.font();
    font.setPointSize(10);
    font.setBold(false);
    m_painter.setFont(font);
}

} // namespace steward
