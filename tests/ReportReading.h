#pragma once

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace steward::test {

// A word of a PDF page as `pdftotext -bbox -raw` gives it: its box in points, in drawing order.
struct PdfWord
{
    double x0 = 0;
    double y0 = 0;
    double x1 = 0;
    double y1 = 0;
    QString text; // NFKC: ligatures ("ﬁ") as their letters
};

struct PdfPage
{
    double width = 0;
    double height = 0;
    std::vector<PdfWord> words;
    QString text() const; // the words joined by spaces, in drawing order
};

// The pages of `pdftotext -bbox -raw` output. A word whose box has a negative coordinate is kept as
// it is (a word cut off the left or top edge must count).
std::vector<PdfPage> parsePdfWords(const QString &bbox);
// Runs pdftotext -bbox -raw on the file.
std::vector<PdfPage> readPdfWords(const QString &pdf);

// What the report checks find; empty when all is well. Each names the page and the words.
// Every word inside the margins and on no other word; a PDF without words fails.
std::string wordsOutsideOrOverlapping(const std::vector<PdfPage> &pages, double margin);
// Every page's footer says "page N of M", N its number, M the number of pages.
std::string footerPagesWrong(const std::vector<PdfPage> &pages);
// Every page starts with a heading (a section's first page, its title in large type) or with
// "TITLE (continued)" naming the section it continues; sections[i] gets the title of page i + 1.
// continued counts the continuation pages.
std::string continuationsUnnamed(const std::vector<PdfPage> &pages, std::vector<QString> &sections, int &continued);
// In every fix-list table (a header row with "ID" and then "Rule"), no cell of the ID column takes more
// than two lines. cells counts the ID cells seen.
std::string idsOverTwoLines(const std::vector<PdfPage> &pages, int &cells);
// The page (0-based) whose text holds the words in this order, or -1; the count of such pages in *found.
int pageWith(const std::vector<PdfPage> &pages, const QString &words, int *found = nullptr);

// The first sheet of an .xlsx (shared strings resolved), read with unzip; a row per sheet row.
std::vector<QStringList> readXlsxRows(const QString &path);

} // namespace steward::test
