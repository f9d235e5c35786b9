#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace steward {

// One row of a spreadsheet: its number in the file (the header is row 1 for CSV; the sheet's own
// row number for .xlsx) and its cells as text, one per header column (missing cells are empty).
// Dates of .xlsx cells formatted as dates come as ISO text ("2010-08-31"), numbers as Excel shows
// them without grouping ("604822", "3.5").
struct SheetRow
{
    std::int64_t number = 0;
    std::vector<std::string> cells;
};

// Reads a CSV or .xlsx file row by row, holding one row (and, for .xlsx, the shared strings).
class SheetReader
{
public:
    virtual ~SheetReader() = default;
    // The first row's cells, trimmed.
    const std::vector<std::string> &header() const { return m_header; }
    // False at the end; error() then says whether the file ended early or cannot be read.
    virtual bool next(SheetRow &row) = 0;
    const std::string &error() const { return m_error; }
    virtual std::uint64_t bytesRead() const = 0;
    virtual std::uint64_t bytesTotal() const = 0;

protected:
    std::vector<std::string> m_header;
    std::string m_error;
};

// A cell without the spaces, tabs and line breaks around it.
std::string trimmedCell(const std::string &text);

// Whether a file is read as a spreadsheet: .csv, .tsv, .txt (delimited text) or .xlsx.
bool isSpreadsheetFile(const std::string &path);

// Opens the file. CSV (RFC 4180: quoted fields with doubled quotes and line breaks inside; UTF-8
// with or without a byte-order mark; CRLF or LF): the delimiter is given (',', ';' or '\t') or, when
// 0, whichever of them the header line holds most of. .xlsx: the sheet named (the first when empty).
// Returns null and sets error (naming the file, and the sheet) when it cannot be read.
std::unique_ptr<SheetReader> openSheet(const std::string &path, char delimiter, const std::string &sheet,
                                       std::string *error);

// Excel's serial day number (1900 date system) as an ISO date; fractions of a day as THH:MM:SS.
std::string excelSerialToIso(double serial);

} // namespace steward
