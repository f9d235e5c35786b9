#pragma once

#include "RowMapping.h"

#include <string>
#include <vector>

namespace steward {

// A table as a view shows it: header texts and rows of cell texts (UTF-8).
struct TextTable
{
    std::vector<std::string> headers;
    std::vector<std::vector<std::string>> rows;
};

// RFC 4180: CRLF between records, a field quoted when it holds a comma, a double quote, CR or LF
// (quotes doubled inside). Plain UTF-8 without a byte-order mark: Excel's "Data > From Text/CSV"
// reads it as UTF-8; the .xlsx export is the one for opening by double-click.
std::string csvText(const TextTable &table);

// Both write to a temporary file beside the target and rename it into place, so a failure leaves
// any earlier file as it was; they throw StorageError naming the file and what went wrong.
void writeCsv(const std::string &path, const TextTable &table);
// One worksheet: a bold, frozen header row with filters, then every cell as text (a value that
// looks like a number stays the text it was). Cells over Excel's 32,767 characters are refused.
void writeXlsx(const std::string &path, const TextTable &table, const std::string &sheetName = "Results");

// The rows a mapping's studentIds could not place: row number, why, then the row's own cells under
// the file's header, for the steward to take back to the other system.
TextTable unmatchedStudentRows(const StudentIdMatch &match);

} // namespace steward
