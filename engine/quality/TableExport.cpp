#include "TableExport.h"

#include "Database.h"
#include "PrivateFiles.h"

#include <QFile>
#include <QSaveFile>

#include <xlsxwriter.h>

#include <algorithm>

namespace steward {

namespace {

std::string csvField(const std::string &text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

void appendRecord(std::string &out, const std::vector<std::string> &fields)
{
    for (std::size_t i = 0; i < fields.size(); ++i)
        out += (i == 0 ? "" : ",") + csvField(fields[i]);
    out += "\r\n";
}

// Excel counts a cell's length in UTF-16 code units; the cap is 32,767.
constexpr std::size_t kMaxCellLength = 32767;

std::size_t utf16Length(const std::string &text)
{
    std::size_t units = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if ((c & 0xC0) == 0x80)
            continue;
        units += c >= 0xF0 ? 2 : 1;
    }
    return units;
}

// A worksheet name may not hold []:*?/\ and is at most 31 characters.
std::string sheetNameFrom(const std::string &name)
{
    std::string out;
    for (char c : name)
        if (std::string("[]:*?/\\").find(c) == std::string::npos)
            out += c;
    if (out.empty())
        out = "Results";
    return out.substr(0, 31);
}

} // namespace

std::string csvText(const TextTable &table)
{
    std::string out;
    appendRecord(out, table.headers);
    for (const std::vector<std::string> &row : table.rows)
        appendRecord(out, row);
    return out;
}

void writeCsv(const std::string &path, const TextTable &table)
{
    QSaveFile file(QString::fromStdString(path));
    const std::string text = csvText(table);
    if (!openPrivateForWriting(file) || file.write(text.data(), static_cast<qint64>(text.size())) < 0
        || !file.commit())
        throw StorageError(StorageError::Kind::Io, path + ": cannot write the CSV file: " + file.errorString().toStdString());
}

void writeXlsx(const std::string &path, const TextTable &table, const std::string &sheetName)
{
    for (std::size_t r = 0; r < table.rows.size(); ++r)
        for (std::size_t c = 0; c < table.rows[r].size(); ++c)
            if (utf16Length(table.rows[r][c]) > kMaxCellLength)
                throw StorageError(StorageError::Kind::Io,
                                   path + ": row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1)
                                       + " holds more than Excel's 32,767 characters per cell; export CSV instead");
    if (table.rows.size() + 1 > LXW_ROW_MAX)
        throw StorageError(StorageError::Kind::Io, path + ": " + std::to_string(table.rows.size())
                                                       + " rows are more than one worksheet holds; export CSV instead");

    // The writer opens the file when the workbook closes; made owner-only first, it keeps that mode.
    const std::string partial = path + ".part";
    QFile::remove(QString::fromStdString(partial));
    std::string createError;
    if (!createPrivateFile(partial, &createError))
        throw StorageError(StorageError::Kind::Io, partial + ": cannot create: " + createError);
    lxw_workbook *workbook = workbook_new(partial.c_str());
    if (workbook == nullptr) {
        QFile::remove(QString::fromStdString(partial));
        throw StorageError(StorageError::Kind::Io, path + ": cannot create the .xlsx file");
    }
    lxw_worksheet *sheet = workbook_add_worksheet(workbook, sheetNameFrom(sheetName).c_str());
    lxw_format *header = workbook_add_format(workbook);
    format_set_bold(header);
    lxw_format *wrapped = workbook_add_format(workbook);
    format_set_text_wrap(wrapped);
    format_set_align(wrapped, LXW_ALIGN_VERTICAL_TOP);

    lxw_error error = LXW_NO_ERROR;
    std::vector<std::size_t> widths(table.headers.size(), 8);
    auto widen = [&widths](std::size_t column, const std::string &text) {
        if (column >= widths.size())
            widths.resize(column + 1, 8);
        // The longest line, capped: a message of 300 characters should wrap, not push the sheet wide.
        std::size_t longest = 0, current = 0;
        for (char c : text) {
            if (c == '\n') {
                longest = std::max(longest, current);
                current = 0;
            } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
                ++current;
            }
        }
        widths[column] = std::min<std::size_t>(60, std::max({widths[column], longest, current}));
    };
    for (std::size_t c = 0; c < table.headers.size() && error == LXW_NO_ERROR; ++c) {
        error = worksheet_write_string(sheet, 0, static_cast<lxw_col_t>(c), table.headers[c].c_str(), header);
        widen(c, table.headers[c]);
    }
    for (std::size_t r = 0; r < table.rows.size() && error == LXW_NO_ERROR; ++r)
        for (std::size_t c = 0; c < table.rows[r].size() && error == LXW_NO_ERROR; ++c) {
            const std::string &text = table.rows[r][c];
            // An empty string would still make a (blank) cell; leaving it out keeps the sheet honest.
            if (text.empty())
                continue;
            const bool multiline = text.find('\n') != std::string::npos;
            error = worksheet_write_string(sheet, static_cast<lxw_row_t>(r + 1), static_cast<lxw_col_t>(c),
                                           text.c_str(), multiline ? wrapped : nullptr);
            widen(c, text);
        }
    if (error == LXW_NO_ERROR && !widths.empty()) {
        for (std::size_t c = 0; c < widths.size(); ++c)
            worksheet_set_column(sheet, static_cast<lxw_col_t>(c), static_cast<lxw_col_t>(c),
                                 static_cast<double>(widths[c] + 2), nullptr);
        worksheet_freeze_panes(sheet, 1, 0);
        worksheet_autofilter(sheet, 0, 0, static_cast<lxw_row_t>(table.rows.size()),
                             static_cast<lxw_col_t>(widths.size() - 1));
    }
    const lxw_error closed = workbook_close(workbook); // frees the workbook whatever happens
    if (error == LXW_NO_ERROR)
        error = closed;
    if (error != LXW_NO_ERROR) {
        QFile::remove(QString::fromStdString(partial));
        throw StorageError(StorageError::Kind::Io,
                           path + ": cannot write the .xlsx file: " + lxw_strerror(error));
    }
    QFile::remove(QString::fromStdString(path));
    if (!QFile::rename(QString::fromStdString(partial), QString::fromStdString(path))) {
        QFile::remove(QString::fromStdString(partial));
        throw StorageError(StorageError::Kind::Io, path + ": cannot move the finished .xlsx file into place");
    }
}

TextTable unmatchedStudentRows(const StudentIdMatch &match)
{
    TextTable table;
    table.headers = {"row", "reason"};
    table.headers.insert(table.headers.end(), match.header.begin(), match.header.end());
    for (const StudentIdMatch::Unmatched &u : match.unmatched) {
        std::vector<std::string> record{std::to_string(u.row.number), u.why};
        record.insert(record.end(), u.row.cells.begin(), u.row.cells.end());
        table.rows.push_back(std::move(record));
    }
    return table;
}

} // namespace steward
