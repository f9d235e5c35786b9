#include "Spreadsheet.h"

#include <QDate>
#include <QFile>
#include <QFileInfo>
#include <QXmlStreamReader>

#include <unzip.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace steward {

namespace {

constexpr std::size_t kMaxFieldBytes = 1 << 20; // a cell of a megabyte is not a roster's
constexpr std::size_t kMaxColumns = 16384;      // Excel's own limit

class CsvReader : public SheetReader
{
public:
    CsvReader(const std::string &path, char delimiter)
        : m_path(path)
        , m_file(QString::fromStdString(path))
        , m_delimiter(delimiter)
    {
    }

    bool open(std::string *error)
    {
        if (!m_file.open(QIODevice::ReadOnly)) {
            *error = m_path + ": cannot be read: " + m_file.errorString().toStdString();
            return false;
        }
        const QByteArray start = m_file.peek(3);
        if (start == QByteArray("\xEF\xBB\xBF", 3))
            m_file.read(3);
        if (m_delimiter == 0) {
            // Whichever delimiter the header line holds most of (a comma when none).
            const QByteArray line = m_file.peek(64 * 1024).split('\n').value(0);
            int best = 0;
            m_delimiter = ',';
            for (char candidate : {',', ';', '\t'}) {
                const int count = static_cast<int>(line.count(candidate));
                if (count > best) {
                    best = count;
                    m_delimiter = candidate;
                }
            }
        }
        SheetRow header;
        if (!readRow(header)) {
            *error = m_error.empty() ? m_path + ": the file is empty (no header row)" : m_error;
            return false;
        }
        for (std::string &cell : header.cells)
            m_header.push_back(trimmedCell(cell));
        return true;
    }

    bool next(SheetRow &row) override
    {
        while (readRow(row)) {
            bool blank = true;
            for (const std::string &cell : row.cells)
                blank = blank && trimmedCell(cell).empty();
            if (blank)
                continue;
            row.cells.resize(std::max(row.cells.size(), m_header.size()));
            return true;
        }
        return false;
    }

    std::uint64_t bytesRead() const override { return static_cast<std::uint64_t>(m_file.pos()); }
    std::uint64_t bytesTotal() const override { return static_cast<std::uint64_t>(m_file.size()); }

private:
    bool nextChar(char &c)
    {
        if (m_at >= m_buffer.size()) {
            m_buffer = m_file.read(256 * 1024);
            m_at = 0;
            if (m_buffer.isEmpty())
                return false;
        }
        c = m_buffer[m_at++];
        return true;
    }

    // One record: fields split at the delimiter outside quotes, ended by a line break outside quotes.
    bool readRow(SheetRow &row)
    {
        row.cells.clear();
        row.number = ++m_rowNumber;
        std::string field;
        bool quoted = false;     // inside a quoted field
        bool wasQuoted = false;  // the field began with a quote
        bool any = false;
        char c = 0;
        while (nextChar(c)) {
            any = true;
            if (quoted) {
                if (c == '"') {
                    char after = 0;
                    if (!nextChar(after)) {
                        quoted = false;
                        break;
                    }
                    if (after == '"') {
                        field += '"';
                        continue;
                    }
                    quoted = false;
                    c = after; // the character after a closing quote is read as outside
                } else {
                    if (c == '\n')
                        ++m_lineBreaksInside;
                    field += c;
                    if (field.size() > kMaxFieldBytes)
                        return fail("a cell is larger than 1 MB");
                    continue;
                }
            }
            if (c == '"' && field.empty() && !wasQuoted) {
                quoted = wasQuoted = true;
            } else if (c == m_delimiter) {
                row.cells.push_back(std::move(field));
                field.clear();
                wasQuoted = false;
                if (row.cells.size() > kMaxColumns)
                    return fail("more than 16,384 columns");
            } else if (c == '\n') {
                if (!wasQuoted && !field.empty() && field.back() == '\r')
                    field.pop_back();
                row.cells.push_back(std::move(field));
                m_rowNumber += m_lineBreaksInside;
                m_lineBreaksInside = 0;
                return true;
            } else if (c == '\r' && wasQuoted) {
                // CRLF after a closing quote
            } else {
                field += c;
                if (field.size() > kMaxFieldBytes)
                    return fail("a cell is larger than 1 MB");
            }
        }
        if (quoted)
            return fail("a quoted cell is never closed (a missing \" before the end of the file)");
        if (!any)
            return false;
        if (!field.empty() && field.back() == '\r')
            field.pop_back();
        row.cells.push_back(std::move(field));
        return true;
    }

    bool fail(const std::string &what)
    {
        m_error = m_path + ": row " + std::to_string(m_rowNumber) + ": " + what;
        return false;
    }

    std::string m_path;
    QFile m_file;
    QByteArray m_buffer;
    qsizetype m_at = 0;
    char m_delimiter = 0;
    std::int64_t m_rowNumber = 0;
    std::int64_t m_lineBreaksInside = 0;
};

// "B12" -> 1 (columns from 0); -1 when it is not a cell reference.
int columnOf(QStringView reference)
{
    int column = 0;
    qsizetype i = 0;
    for (; i < reference.size() && reference[i].isLetter(); ++i)
        column = column * 26 + (reference[i].toUpper().unicode() - 'A' + 1);
    return i == 0 ? -1 : column - 1;
}

bool isDateFormat(int id, const QString &code)
{
    if ((id >= 14 && id <= 22) || (id >= 45 && id <= 47))
        return true;
    if (code.isEmpty())
        return false;
    // Letters inside quotes or brackets ([Red], [$-409]) are not date codes.
    QString plain;
    bool inQuote = false;
    bool inBracket = false;
    for (QChar ch : code) {
        if (ch == QLatin1Char('"'))
            inQuote = !inQuote;
        else if (ch == QLatin1Char('['))
            inBracket = true;
        else if (ch == QLatin1Char(']'))
            inBracket = false;
        else if (!inQuote && !inBracket)
            plain += ch.toLower();
    }
    return plain.contains(QLatin1Char('d')) || plain.contains(QLatin1Char('y'));
}

// The entry of a zip file that is open in minizip, read as a sequential QIODevice (for QXmlStreamReader).
class ZipEntryDevice : public QIODevice
{
public:
    explicit ZipEntryDevice(unzFile zip)
        : m_zip(zip)
    {
        open(QIODevice::ReadOnly);
    }
    ~ZipEntryDevice() override { unzCloseCurrentFile(m_zip); }
    bool isSequential() const override { return true; }
    qint64 consumed() const { return m_consumed; }

protected:
    qint64 readData(char *data, qint64 maxSize) override
    {
        const int read = unzReadCurrentFile(m_zip, data, static_cast<unsigned>(std::min<qint64>(maxSize, 1 << 20)));
        if (read < 0)
            return -1; // a damaged entry: the XML reader reports it
        m_consumed += read;
        return read;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    unzFile m_zip;
    qint64 m_consumed = 0;
};

class XlsxReader : public SheetReader
{
public:
    explicit XlsxReader(const std::string &path)
        : m_path(path)
    {
    }

    ~XlsxReader() override
    {
        m_sheet.reset();
        if (m_zip != nullptr)
            unzClose(m_zip);
    }

    bool open(const std::string &sheetName, std::string *error)
    {
        m_zip = unzOpen64(m_path.c_str());
        if (m_zip == nullptr) {
            *error = m_path + ": not an .xlsx file (its zip container cannot be read)";
            return false;
        }
        m_total = static_cast<std::uint64_t>(QFileInfo(QString::fromStdString(m_path)).size());
        const std::string sheetFile = findSheet(sheetName, error);
        if (sheetFile.empty())
            return false;
        readSharedStrings();
        readStyles();
        unz_file_info64 info{};
        if (unzLocateFile(m_zip, sheetFile.c_str(), 1) != UNZ_OK
            || unzGetCurrentFileInfo64(m_zip, &info, nullptr, 0, nullptr, 0, nullptr, 0) != UNZ_OK
            || unzOpenCurrentFile(m_zip) != UNZ_OK) {
            *error = m_path + ": the workbook names " + sheetFile + ", which it does not contain";
            return false;
        }
        m_sheetSize = static_cast<std::uint64_t>(info.uncompressed_size);
        m_sheet = std::make_unique<ZipEntryDevice>(m_zip);
        m_xml.setDevice(m_sheet.get());
        SheetRow header;
        if (!next(header)) {
            *error = m_error.empty() ? m_path + ": the sheet is empty (no header row)" : m_error;
            return false;
        }
        for (std::string &cell : header.cells)
            m_header.push_back(trimmedCell(cell));
        return true;
    }

    bool next(SheetRow &row) override
    {
        while (!m_xml.atEnd()) {
            if (m_xml.readNext() != QXmlStreamReader::StartElement || m_xml.name() != QLatin1String("row"))
                continue;
            row.cells.assign(m_header.size(), std::string());
            row.number = m_xml.attributes().value(QLatin1String("r")).toLongLong();
            bool any = false;
            while (m_xml.readNextStartElement()) {
                if (m_xml.name() != QLatin1String("c")) {
                    m_xml.skipCurrentElement();
                    continue;
                }
                const int column = columnOf(m_xml.attributes().value(QLatin1String("r")));
                const QString type = m_xml.attributes().value(QLatin1String("t")).toString();
                const int style = m_xml.attributes().value(QLatin1String("s")).toInt();
                const std::string value = cellValue(type, style);
                if (column < 0 || static_cast<std::size_t>(column) >= kMaxColumns)
                    continue;
                if (static_cast<std::size_t>(column) >= row.cells.size())
                    row.cells.resize(static_cast<std::size_t>(column) + 1);
                row.cells[static_cast<std::size_t>(column)] = value;
                any = any || !trimmedCell(value).empty();
            }
            if (any)
                return true;
        }
        if (m_xml.hasError())
            m_error = m_path + ": the sheet's XML is damaged: " + m_xml.errorString().toStdString();
        return false;
    }

    std::uint64_t bytesRead() const override
    {
        // The sheet's uncompressed bytes read against its size, as a share of the file.
        if (!m_sheet || m_sheetSize == 0)
            return 0;
        return static_cast<std::uint64_t>(static_cast<double>(m_sheet->consumed()) / static_cast<double>(m_sheetSize)
                                          * static_cast<double>(m_total));
    }
    std::uint64_t bytesTotal() const override { return m_total; }

private:
    // Reads a whole part of the package with the callback, or returns false when it is missing.
    template<typename Visit>
    bool readPart(const QString &name, Visit visit)
    {
        if (unzLocateFile(m_zip, name.toUtf8().constData(), 1) != UNZ_OK || unzOpenCurrentFile(m_zip) != UNZ_OK)
            return false;
        ZipEntryDevice part(m_zip);
        QXmlStreamReader xml(&part);
        visit(xml);
        return true;
    }

    std::string findSheet(const std::string &wanted, std::string *error)
    {
        std::vector<std::pair<QString, QString>> sheets; // name, relationship id
        readPart(QStringLiteral("xl/workbook.xml"), [&](QXmlStreamReader &xml) {
            while (!xml.atEnd())
                if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("sheet"))
                    for (const QXmlStreamAttribute &attribute : xml.attributes())
                        if (attribute.name() == QLatin1String("id"))
                            sheets.emplace_back(xml.attributes().value(QLatin1String("name")).toString(),
                                                attribute.value().toString());
        });
        std::map<QString, QString> targets;
        readPart(QStringLiteral("xl/_rels/workbook.xml.rels"), [&](QXmlStreamReader &xml) {
            while (!xml.atEnd())
                if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("Relationship"))
                    targets[xml.attributes().value(QLatin1String("Id")).toString()] =
                        xml.attributes().value(QLatin1String("Target")).toString();
        });
        QStringList names;
        for (const auto &[name, id] : sheets) {
            names << name;
            if (!wanted.empty() && name.toStdString() != wanted)
                continue;
            QString target = targets[id];
            if (target.startsWith(QLatin1Char('/')))
                return target.mid(1).toStdString();
            return ("xl/" + target).toStdString();
        }
        *error = sheets.empty() ? m_path + ": the workbook lists no sheet"
                                : m_path + ": no sheet named '" + wanted + "' (its sheets: "
                                      + names.join(QStringLiteral(", ")).toStdString() + ")";
        return {};
    }

    void readSharedStrings()
    {
        readPart(QStringLiteral("xl/sharedStrings.xml"), [&](QXmlStreamReader &xml) {
            QString current;
            bool inString = false;
            while (!xml.atEnd()) {
                const QXmlStreamReader::TokenType token = xml.readNext();
                if (token == QXmlStreamReader::StartElement && xml.name() == QLatin1String("si")) {
                    current.clear();
                    inString = true;
                } else if (token == QXmlStreamReader::StartElement && xml.name() == QLatin1String("t") && inString) {
                    current += xml.readElementText();
                } else if (token == QXmlStreamReader::StartElement && xml.name() == QLatin1String("rPh")) {
                    xml.skipCurrentElement(); // phonetic hints are not the text
                } else if (token == QXmlStreamReader::EndElement && xml.name() == QLatin1String("si")) {
                    m_shared.push_back(current.toStdString());
                    inString = false;
                }
            }
        });
    }

    void readStyles()
    {
        std::map<int, QString> codes;
        readPart(QStringLiteral("xl/styles.xml"), [&](QXmlStreamReader &xml) {
            bool inCellXfs = false;
            while (!xml.atEnd()) {
                const QXmlStreamReader::TokenType token = xml.readNext();
                if (token == QXmlStreamReader::StartElement && xml.name() == QLatin1String("numFmt"))
                    codes[xml.attributes().value(QLatin1String("numFmtId")).toInt()] =
                        xml.attributes().value(QLatin1String("formatCode")).toString();
                else if (token == QXmlStreamReader::StartElement && xml.name() == QLatin1String("cellXfs"))
                    inCellXfs = true;
                else if (token == QXmlStreamReader::EndElement && xml.name() == QLatin1String("cellXfs"))
                    inCellXfs = false;
                else if (token == QXmlStreamReader::StartElement && inCellXfs && xml.name() == QLatin1String("xf")) {
                    const int id = xml.attributes().value(QLatin1String("numFmtId")).toInt();
                    m_dateStyles.push_back(isDateFormat(id, codes.count(id) ? codes[id] : QString()));
                }
            }
        });
    }

    // The text of the current <c> element, which it reads to its end.
    std::string cellValue(const QString &type, int style)
    {
        QString raw;
        while (m_xml.readNextStartElement()) {
            if (m_xml.name() == QLatin1String("v")) {
                raw = m_xml.readElementText();
            } else if (m_xml.name() == QLatin1String("is")) {
                while (m_xml.readNextStartElement()) {
                    if (m_xml.name() == QLatin1String("t"))
                        raw += m_xml.readElementText();
                    else if (m_xml.name() == QLatin1String("r")) {
                        while (m_xml.readNextStartElement())
                            if (m_xml.name() == QLatin1String("t"))
                                raw += m_xml.readElementText();
                            else
                                m_xml.skipCurrentElement();
                    } else
                        m_xml.skipCurrentElement();
                }
            } else {
                m_xml.skipCurrentElement();
            }
        }
        if (type == QLatin1String("s")) {
            const qsizetype index = raw.toLongLong();
            return index >= 0 && static_cast<std::size_t>(index) < m_shared.size() ? m_shared[static_cast<std::size_t>(index)]
                                                                                    : std::string();
        }
        if (type == QLatin1String("b"))
            return raw == QLatin1String("1") ? "true" : "false";
        if (type.isEmpty() || type == QLatin1String("n")) {
            bool number = false;
            const double value = raw.toDouble(&number);
            if (number && style >= 0 && static_cast<std::size_t>(style) < m_dateStyles.size()
                && m_dateStyles[static_cast<std::size_t>(style)])
                return excelSerialToIso(value);
        }
        return raw.toStdString();
    }

    std::string m_path;
    unzFile m_zip = nullptr;
    std::unique_ptr<ZipEntryDevice> m_sheet;
    std::uint64_t m_sheetSize = 0;
    QXmlStreamReader m_xml;
    std::vector<std::string> m_shared;
    std::vector<bool> m_dateStyles; // per cell style: formatted as a date
    std::uint64_t m_total = 0;
};

} // namespace

std::string trimmedCell(const std::string &text)
{
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

bool isSpreadsheetFile(const std::string &path)
{
    const QString suffix = QFileInfo(QString::fromStdString(path)).suffix().toLower();
    return suffix == QLatin1String("csv") || suffix == QLatin1String("tsv") || suffix == QLatin1String("txt")
           || suffix == QLatin1String("xlsx");
}

std::unique_ptr<SheetReader> openSheet(const std::string &path, char delimiter, const std::string &sheet,
                                       std::string *error)
{
    const QString suffix = QFileInfo(QString::fromStdString(path)).suffix().toLower();
    if (suffix == QLatin1String("xlsx")) {
        auto reader = std::make_unique<XlsxReader>(path);
        return reader->open(sheet, error) ? std::move(reader) : nullptr;
    }
    auto reader = std::make_unique<CsvReader>(path, delimiter == 0 && suffix == QLatin1String("tsv") ? '\t' : delimiter);
    return reader->open(error) ? std::move(reader) : nullptr;
}

std::string excelSerialToIso(double serial)
{
    // Day 0 of the 1900 system is 1899-12-30 once Excel's phantom 1900-02-29 is accounted for.
    const double days = std::floor(serial);
    const QDate date = QDate(1899, 12, 30).addDays(static_cast<qint64>(days));
    std::string text = date.toString(Qt::ISODate).toStdString();
    const double fraction = serial - days;
    if (fraction > 1e-9) {
        const int seconds = static_cast<int>(std::lround(fraction * 86400.0));
        char time[16];
        std::snprintf(time, sizeof time, "T%02d:%02d:%02d", seconds / 3600 % 24, seconds / 60 % 60, seconds % 60);
        text += time;
    }
    return text;
}

} // namespace steward
