#include "ReportReading.h"

#include <QProcess>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace steward::test {

namespace {

QString xmlText(QString text)
{
    text.replace(QStringLiteral("&lt;"), QStringLiteral("<"));
    text.replace(QStringLiteral("&gt;"), QStringLiteral(">"));
    text.replace(QStringLiteral("&quot;"), QStringLiteral("\""));
    text.replace(QStringLiteral("&apos;"), QStringLiteral("'"));
    text.replace(QStringLiteral("&#39;"), QStringLiteral("'"));
    text.replace(QStringLiteral("&amp;"), QStringLiteral("&"));
    return text;
}

QByteArray runTool(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForFinished(120000) || process.exitCode() != 0)
        return {};
    return process.readAllStandardOutput();
}

std::string where(int page, const QString &what)
{
    return "page " + std::to_string(page + 1) + ": " + what.toStdString();
}

} // namespace

QString PdfPage::text() const
{
    QStringList all;
    for (const PdfWord &word : words)
        all << word.text;
    return all.join(QLatin1Char(' '));
}

std::vector<PdfPage> parsePdfWords(const QString &bbox)
{
    const QRegularExpression pageRe(QStringLiteral("<page width=\"([-0-9.]+)\" height=\"([-0-9.]+)\">"));
    const QRegularExpression wordRe(QStringLiteral(
        "<word xMin=\"([-0-9.]+)\" yMin=\"([-0-9.]+)\" xMax=\"([-0-9.]+)\" yMax=\"([-0-9.]+)\">([^<]*)</word>"));
    std::vector<PdfPage> pages;
    for (const QString &pageText : bbox.split(QStringLiteral("</page>"))) {
        const QRegularExpressionMatch size = pageRe.match(pageText);
        if (!size.hasMatch())
            continue;
        PdfPage page;
        page.width = size.captured(1).toDouble();
        page.height = size.captured(2).toDouble();
        for (auto it = wordRe.globalMatch(pageText); it.hasNext();) {
            const QRegularExpressionMatch w = it.next();
            page.words.push_back({w.captured(1).toDouble(), w.captured(2).toDouble(), w.captured(3).toDouble(),
                                  w.captured(4).toDouble(),
                                  xmlText(w.captured(5)).normalized(QString::NormalizationForm_KC)});
        }
        pages.push_back(std::move(page));
    }
    return pages;
}

std::vector<PdfPage> readPdfWords(const QString &pdf)
{
    return parsePdfWords(QString::fromUtf8(runTool(QStringLiteral("pdftotext"),
                                                    {QStringLiteral("-bbox"), QStringLiteral("-raw"), pdf,
                                                     QStringLiteral("-")})));
}

std::string wordsOutsideOrOverlapping(const std::vector<PdfPage> &pages, double margin)
{
    std::size_t words = 0;
    for (std::size_t p = 0; p < pages.size(); ++p) {
        const PdfPage &page = pages[p];
        std::vector<const PdfWord *> seen;
        for (const PdfWord &box : page.words) {
            ++words;
            if (box.x0 < margin - 1 || box.y0 < margin - 1 || box.x1 > page.width - margin + 1
                || box.y1 > page.height - margin + 1)
                return where(static_cast<int>(p), "'" + box.text + "' lies outside the margins");
            for (const PdfWord *other : seen) {
                const double dx = std::min(box.x1, other->x1) - std::max(box.x0, other->x0);
                const double dy = std::min(box.y1, other->y1) - std::max(box.y0, other->y0);
                // Glyph boxes of neighbouring lines touch; a word drawn over another shares most of one.
                if (dx > 1.0 && dy > 0.5 * std::min(box.y1 - box.y0, other->y1 - other->y0))
                    return where(static_cast<int>(p), "'" + box.text + "' overlaps '" + other->text + "'");
            }
            seen.push_back(&box);
        }
    }
    if (words == 0)
        return "no words at all on " + std::to_string(pages.size()) + " page(s): nothing to check";
    qInfo("bbox check: %zu words on %zu pages, all inside the margins and on no other word", words, pages.size());
    return {};
}

std::string footerPagesWrong(const std::vector<PdfPage> &pages)
{
    if (pages.empty())
        return "no pages";
    const QRegularExpression footerRe(QStringLiteral("page (\\d+) of (\\d+)"));
    for (std::size_t p = 0; p < pages.size(); ++p) {
        QRegularExpressionMatch last;
        for (auto it = footerRe.globalMatch(pages[p].text()); it.hasNext();)
            last = it.next();
        const QString expected = QStringLiteral("page %1 of %2").arg(p + 1).arg(pages.size());
        if (!last.hasMatch() || last.captured(0) != expected)
            return where(static_cast<int>(p), "the footer says '" + (last.hasMatch() ? last.captured(0) : QString())
                                                  + "', not '" + expected + "'");
    }
    return {};
}

std::string continuationsUnnamed(const std::vector<PdfPage> &pages, std::vector<QString> &sections, int &continued)
{
    // A heading is set in large type: taller than most words by half.
    std::vector<double> heights;
    for (const PdfPage &page : pages)
        for (const PdfWord &word : page.words)
            heights.push_back(word.y1 - word.y0);
    if (heights.empty())
        return "no words at all";
    std::nth_element(heights.begin(), heights.begin() + static_cast<long>(heights.size() / 2), heights.end());
    const double body = heights[heights.size() / 2];
    sections.clear();
    continued = 0;
    QString section;
    for (std::size_t p = 0; p < pages.size(); ++p) {
        double top = 1e9;
        for (const PdfWord &word : pages[p].words)
            top = std::min(top, word.y0);
        QStringList first;
        bool large = true;
        for (const PdfWord &word : pages[p].words)
            if (word.y0 <= top + 2) {
                first << word.text;
                large = large && word.y1 - word.y0 > 1.5 * body;
            }
        const QString title = first.join(QLatin1Char(' '));
        if (title.endsWith(QStringLiteral(" (continued)"))) {
            if (section.isEmpty() || title != section + QStringLiteral(" (continued)"))
                return where(static_cast<int>(p), "'" + title + "' does not continue '" + section + "'");
            ++continued;
        } else if (large && !first.isEmpty()) {
            section = title;
        } else {
            return where(static_cast<int>(p), "starts with '" + title + "', not a heading or what it continues");
        }
        sections.push_back(section);
    }
    return {};
}

std::string idsOverTwoLines(const std::vector<PdfPage> &pages, int &cells)
{
    cells = 0;
    for (std::size_t p = 0; p < pages.size(); ++p) {
        const std::vector<PdfWord> &words = pages[p].words;
        double from = -1;
        double to = -1;
        std::vector<double> lines; // the line tops of the ID cell being read
        auto endCell = [&]() -> std::string {
            if (lines.size() > 2)
                return where(static_cast<int>(p), "an id takes " + QString::number(lines.size()) + " lines");
            cells += lines.empty() ? 0 : 1;
            lines.clear();
            return {};
        };
        for (std::size_t i = 0; i < words.size(); ++i) {
            const PdfWord &word = words[i];
            // The header: "ID" and next to it "Rule"; the column runs from ID's left to Rule's.
            if (word.text == QStringLiteral("ID") && i + 1 < words.size() && words[i + 1].text == QStringLiteral("Rule")
                && std::abs(words[i + 1].y0 - word.y0) < 1) {
                if (std::string wrong = endCell(); !wrong.empty())
                    return wrong;
                from = word.x0 - 1;
                to = words[i + 1].x0 - 1;
                ++i;
                continue;
            }
            if (from < 0)
                continue;
            if (word.x0 < from || word.x0 >= to) {
                if (std::string wrong = endCell(); !wrong.empty())
                    return wrong;
                continue;
            }
            if (std::none_of(lines.begin(), lines.end(), [&](double y) { return std::abs(y - word.y0) < 3; }))
                lines.push_back(word.y0);
        }
        if (std::string wrong = endCell(); !wrong.empty())
            return wrong;
    }
    return {};
}

int pageWith(const std::vector<PdfPage> &pages, const QString &words, int *found)
{
    int page = -1;
    int count = 0;
    for (std::size_t p = 0; p < pages.size(); ++p)
        if ((QLatin1Char(' ') + pages[p].text() + QLatin1Char(' ')).contains(QLatin1Char(' ') + words + QLatin1Char(' '))) {
            if (page < 0)
                page = static_cast<int>(p);
            ++count;
        }
    if (found != nullptr)
        *found = count;
    return page;
}

std::vector<QStringList> readXlsxRows(const QString &path)
{
    const QString unzip = QStringLiteral("unzip");
    const QString shared = QString::fromUtf8(runTool(unzip, {QStringLiteral("-p"), path, QStringLiteral("xl/sharedStrings.xml")}));
    const QString sheet =
        QString::fromUtf8(runTool(unzip, {QStringLiteral("-p"), path, QStringLiteral("xl/worksheets/sheet1.xml")}));
    QStringList strings;
    const QRegularExpression siRe(QStringLiteral("<si>(.*?)</si>"), QRegularExpression::DotMatchesEverythingOption);
    const QRegularExpression tRe(QStringLiteral("<t[^>]*>(.*?)</t>"), QRegularExpression::DotMatchesEverythingOption);
    for (auto si = siRe.globalMatch(shared); si.hasNext();) {
        QString text;
        for (auto t = tRe.globalMatch(si.next().captured(1)); t.hasNext();)
            text += xmlText(t.next().captured(1));
        strings << text;
    }
    std::vector<QStringList> rows;
    const QRegularExpression rowRe(QStringLiteral("<row[^>]*>(.*?)</row>"), QRegularExpression::DotMatchesEverythingOption);
    const QRegularExpression cellRe(QStringLiteral("<c r=\"([A-Z]+)[0-9]+\"([^>]*?)(?:/>|>(.*?)</c>)"),
                                    QRegularExpression::DotMatchesEverythingOption);
    const QRegularExpression valueRe(QStringLiteral("<v>(.*?)</v>"));
    for (auto row = rowRe.globalMatch(sheet); row.hasNext();) {
        QStringList cells;
        for (auto cell = cellRe.globalMatch(row.next().captured(1)); cell.hasNext();) {
            const QRegularExpressionMatch c = cell.next();
            int column = 0;
            for (const QChar letter : c.captured(1))
                column = column * 26 + (letter.unicode() - 'A' + 1);
            while (cells.size() < column)
                cells << QString();
            const QString body = c.captured(3);
            QString value = xmlText(valueRe.match(body).captured(1));
            if (c.captured(2).contains(QStringLiteral("t=\"s\"")))
                value = strings.value(value.toInt());
            else if (c.captured(2).contains(QStringLiteral("t=\"inlineStr\"")))
                value = xmlText(tRe.match(body).captured(1));
            cells[column - 1] = value;
        }
        rows.push_back(cells);
    }
    return rows;
}

} // namespace steward::test
