#include "ImportSource.h"

#include "RowMapping.h"

#include "DescriptorXml.h"
#include "InterchangeXml.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <deque>
#include <QXmlStreamReader>

#include <algorithm>

namespace steward {

namespace {

constexpr std::size_t kMaxLineBytes = 8 * 1024 * 1024;

// Reads lines of any length without holding more than the cap; longer lines are reported.
class LineReader
{
public:
    explicit LineReader(const std::string &path)
        : m_file(QString::fromStdString(path))
    {
    }
    bool open() { return m_file.open(QIODevice::ReadOnly); }
    QString errorString() const { return m_file.errorString(); }
    std::uint64_t position() const { return static_cast<std::uint64_t>(m_file.pos()); }
    std::uint64_t size() const { return static_cast<std::uint64_t>(m_file.size()); }

    // False at the end; tooLong tells that the line was cut and skipped.
    bool next(std::string &line, bool &tooLong)
    {
        line.clear();
        tooLong = false;
        if (m_file.atEnd())
            return false;
        ++m_line;
        char buffer[65536];
        for (;;) {
            const qint64 n = m_file.readLine(buffer, sizeof buffer);
            if (n <= 0)
                return true;
            const bool endOfLine = buffer[n - 1] == '\n';
            if (!tooLong) {
                if (line.size() + static_cast<std::size_t>(n) > kMaxLineBytes) {
                    tooLong = true;
                    line.clear();
                } else {
                    line.append(buffer, static_cast<std::size_t>(n));
                }
            }
            if (endOfLine)
                break;
        }
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
            line.pop_back();
        return true;
    }
    std::int64_t lineNumber() const { return m_line; }

private:
    QFile m_file;
    std::int64_t m_line = 0;
};

bool isBlank(const std::string &line)
{
    return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

// The resource a per-resource file is named for: "schools.ndjson", "tpdm.candidates.json".
std::string resourceFromFileName(const std::string &path, const Model &model)
{
    const QString base = QFileInfo(QString::fromStdString(path)).completeBaseName();
    const int dot = base.indexOf(QLatin1Char('.'));
    if (dot > 0) {
        const std::string project = base.left(dot).toStdString();
        const std::string endpoint = base.mid(dot + 1).toStdString();
        if (const ResourceSchema *r = model.findByEndpoint(project, endpoint))
            return r->resourceKey();
        return {};
    }
    for (const auto &project : model.projects())
        if (const ResourceSchema *r = model.findByEndpoint(project->projectEndpointName, base.toStdString()))
            return r->resourceKey();
    return {};
}

// An item from an envelope {"resource":"ed-fi/schools","body":{...}}.
void fromEnvelope(Json &&value, ImportItem &item)
{
    if (!value.is_object() || !value.contains("resource") || !value["resource"].is_string()
        || !value.contains("body")) {
        item.error = "expected an object {\"resource\":\"ed-fi/schools\",\"body\":{...}}";
        return;
    }
    item.resource = value["resource"].get<std::string>();
    if (!item.resource.empty() && item.resource.front() == '/')
        item.resource.erase(0, 1);
    item.body = std::move(value["body"]);
}

class LinesSource : public ImportSource
{
public:
    LinesSource(std::string path, std::string perResource)
        : m_path(std::move(path))
        , m_reader(m_path)
        , m_perResource(std::move(perResource))
    {
    }
    bool open(std::string *error)
    {
        if (m_reader.open())
            return true;
        *error = m_path + ": cannot be read: " + m_reader.errorString().toStdString();
        return false;
    }
    bool next(ImportItem &item) override
    {
        if (!nextUnparsed(item))
            return false;
        completeItem(item);
        return true;
    }
    bool nextUnparsed(ImportItem &item) override
    {
        std::string line;
        bool tooLong = false;
        while (m_reader.next(line, tooLong)) {
            if (!tooLong && isBlank(line))
                continue;
            item = ImportItem{};
            item.file = m_path;
            item.line = m_reader.lineNumber();
            item.resource = m_perResource;
            if (tooLong) {
                item.error = "the line is longer than " + std::to_string(kMaxLineBytes) + " bytes";
                return true;
            }
            item.unparsed = std::move(line);
            item.unparsedIsEnvelope = m_perResource.empty();
            return true;
        }
        return false;
    }
    std::uint64_t bytesRead() const override { return m_reader.position(); }
    std::uint64_t bytesTotal() const override { return m_reader.size(); }

private:
    std::string m_path;
    LineReader m_reader;
    std::string m_perResource;
};

// A JSON array file: parsed whole (it is one value), then handed out item by item. Large inputs
// belong in NDJSON; the size limit keeps memory bounded.
class ArraySource : public ImportSource
{
public:
    ArraySource(std::string path, std::string perResource)
        : m_path(std::move(path))
        , m_perResource(std::move(perResource))
    {
    }
    bool open(std::string *error)
    {
        QFile file(QString::fromStdString(m_path));
        if (!file.open(QIODevice::ReadOnly)) {
            *error = m_path + ": cannot be read: " + file.errorString().toStdString();
            return false;
        }
        m_total = static_cast<std::uint64_t>(file.size());
        JsonParseLimits limits;
        limits.maxBytes = 256u * 1024 * 1024;
        // One byte past what the file holds (up to the cap) shows whether it is over the limit;
        // read(cap) itself made every .json file, however small, allocate 256 MB.
        const qint64 cap = static_cast<qint64>(limits.maxBytes) + 1;
        const QByteArray bytes = file.read(file.size() > 0 ? std::min(file.size() + 1, cap) : cap);
        JsonParseResult parsed = parseJson(std::string_view(bytes.constData(), bytes.size()), limits);
        if (!parsed.value) {
            m_error = parsed.error + (bytes.size() > static_cast<qsizetype>(limits.maxBytes)
                                          ? " (use NDJSON for inputs this large)"
                                          : "");
        } else if (!parsed.value->is_array()) {
            m_error = "expected a JSON array";
        } else {
            m_items = std::move(*parsed.value);
        }
        return true;
    }
    bool next(ImportItem &item) override
    {
        item = ImportItem{};
        item.file = m_path;
        item.resource = m_perResource;
        if (!m_error.empty()) {
            item.error = m_error;
            m_error.clear();
            m_done = true;
            return true;
        }
        if (m_done || m_index >= m_items.size())
            return false;
        item.line = 0;
        Json &value = m_items[m_index++];
        if (m_perResource.empty())
            fromEnvelope(std::move(value), item);
        else
            item.body = std::move(value);
        if (!item.error.empty())
            item.error = "array item " + std::to_string(m_index) + ": " + item.error;
        return true;
    }
    std::uint64_t bytesRead() const override
    {
        return m_items.empty() ? m_total : m_total * m_index / m_items.size();
    }
    std::uint64_t bytesTotal() const override { return m_total; }

private:
    std::string m_path;
    std::string m_perResource;
    std::string m_error;
    Json m_items = Json::array();
    std::size_t m_index = 0;
    std::uint64_t m_total = 0;
    bool m_done = false;
};

// Several sources one after another (the files of a directory).
class ChainSource : public ImportSource
{
public:
    explicit ChainSource(std::vector<std::unique_ptr<ImportSource>> sources)
        : m_sources(std::move(sources))
    {
        for (const auto &source : m_sources)
            m_total += source->bytesTotal();
    }
    bool next(ImportItem &item) override
    {
        while (m_current < m_sources.size()) {
            if (m_sources[m_current]->next(item))
                return true;
            m_done += m_sources[m_current]->bytesTotal();
            ++m_current;
        }
        return false;
    }
    std::uint64_t bytesRead() const override
    {
        return m_done + (m_current < m_sources.size() ? m_sources[m_current]->bytesRead() : 0);
    }
    std::uint64_t bytesTotal() const override { return m_total; }

private:
    std::vector<std::unique_ptr<ImportSource>> m_sources;
    std::size_t m_current = 0;
    std::uint64_t m_done = 0;
    std::uint64_t m_total = 0;
};

// A single-item source that reports why a file could not be used (so it lands in the report).
class ErrorSource : public ImportSource
{
public:
    ErrorSource(std::string file, std::string error)
        : m_file(std::move(file))
        , m_error(std::move(error))
    {
    }
    bool next(ImportItem &item) override
    {
        if (m_done)
            return false;
        m_done = true;
        item = ImportItem{};
        item.file = m_file;
        item.error = m_error;
        return true;
    }
    std::uint64_t bytesRead() const override { return 0; }
    std::uint64_t bytesTotal() const override { return 0; }

private:
    std::string m_file;
    std::string m_error;
    bool m_done = false;
};

// The local name of an XML file's root element; empty when none can be read (the reader then
// reports why).
QString xmlRootName(const std::string &path)
{
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QXmlStreamReader xml(&file);
    while (!xml.atEnd())
        if (xml.readNext() == QXmlStreamReader::StartElement)
            return xml.name().toString();
    return {};
}

// A spreadsheet through a mapping: each row's documents in the mapping's order (the importer puts
// them in load order), each with the row's number as its line.
class SpreadsheetSource : public ImportSource
{
public:
    SpreadsheetSource(std::string path, const RowMapping &mapping)
        : m_path(std::move(path))
        , m_mapping(mapping)
    {
    }
    bool open(std::string *error)
    {
        m_reader = openSheet(m_path, m_mapping.delimiter, m_mapping.sheet, error);
        if (!m_reader)
            return false;
        try {
            checkColumns(m_mapping, m_reader->header());
        } catch (const MappingError &e) {
            *error = m_path + ": the mapping does not fit: " + e.what();
            return false;
        }
        m_columns = std::make_unique<HeaderIndex>(m_reader->header());
        return true;
    }
    bool next(ImportItem &item) override
    {
        while (m_pending.empty()) {
            SheetRow row;
            if (!m_reader->next(row)) {
                if (m_reader->error().empty() || m_failed)
                    return false;
                // A file that ends badly is reported once, where it stopped.
                m_failed = true;
                item = ImportItem{};
                item.file = m_path;
                item.line = row.number;
                item.error = m_reader->error();
                return true;
            }
            m_row = row.number;
            for (MappedDocument &document : mapRow(m_mapping, *m_columns, row))
                m_pending.push_back(std::move(document));
        }
        MappedDocument document = std::move(m_pending.front());
        m_pending.pop_front();
        item = ImportItem{};
        item.file = m_path;
        item.line = m_row;
        item.resource = document.resource->resourceKey();
        if (document.error.empty()) {
            item.body = std::move(document.body);
        } else {
            // The draft keeps the document as far as it was made, the unreadable cells as text.
            item.error = "row " + std::to_string(m_row) + ", " + document.error;
            item.unparsed = dumpJson(document.body);
        }
        return true;
    }
    std::uint64_t bytesRead() const override { return m_reader->bytesRead(); }
    std::uint64_t bytesTotal() const override { return m_reader->bytesTotal(); }

private:
    std::string m_path;
    const RowMapping &m_mapping;
    std::unique_ptr<SheetReader> m_reader;
    std::unique_ptr<HeaderIndex> m_columns;
    std::deque<MappedDocument> m_pending;
    std::int64_t m_row = 0;
    bool m_failed = false;
};

std::unique_ptr<ImportSource> openFile(const std::string &path, const Model &model, std::string *error,
                                       const RowMapping *mapping)
{
    if (isSpreadsheetFile(path)) {
        if (mapping == nullptr) {
            *error = path + ": a spreadsheet is imported through a mapping (--mapping FILE; steward-cli mapping "
                            "suggest FILE --resource R writes a first one)";
            return nullptr;
        }
        auto source = std::make_unique<SpreadsheetSource>(path, *mapping);
        return source->open(error) ? std::move(source) : nullptr;
    }
    const QString suffix = QFileInfo(QString::fromStdString(path)).suffix().toLower();
    if (suffix == QLatin1String("xml")) {
        // Descriptors have their own reader; every other interchange maps elements to resources.
        const QString root = xmlRootName(path);
        if (root.startsWith(QLatin1String("Interchange"))
            && !root.startsWith(QLatin1String("InterchangeDescriptors")))
            return openInterchangeXml(path, model, error);
        return openDescriptorXml(path, model, error);
    }
    const std::string perResource = resourceFromFileName(path, model);
    if (suffix == QLatin1String("json")) {
        auto source = std::make_unique<ArraySource>(path, perResource);
        return source->open(error) ? std::move(source) : nullptr;
    }
    if (suffix == QLatin1String("ndjson") || suffix == QLatin1String("jsonl")) {
        auto source = std::make_unique<LinesSource>(path, perResource);
        return source->open(error) ? std::move(source) : nullptr;
    }
    *error = path + ": not an import file (expected .ndjson, .jsonl, .json, .xml, or .csv/.xlsx with a mapping)";
    return nullptr;
}

} // namespace

std::string envelopeLine(const std::string &resource, const Json &body)
{
    return "{\"resource\":" + dumpJson(Json(resource)) + ",\"body\":" + dumpJson(body) + "}";
}

bool scanResources(const std::string &path, const Model &model,
                   const std::function<bool(const std::string &resource)> &visit,
                   const std::function<bool(std::uint64_t bytesRead)> &keepGoing)
{
    const QFileInfo info(QString::fromStdString(path));
    const QString suffix = info.suffix().toLower();
    if (info.isDir() || (suffix != QLatin1String("ndjson") && suffix != QLatin1String("jsonl")))
        return false;
    const std::string perResource = resourceFromFileName(path, model);
    LineReader reader(path);
    if (!reader.open())
        return false;
    static const std::string prefix = "{\"resource\":\"";
    std::string line;
    bool tooLong = false;
    constexpr std::uint64_t kLinesBetweenAsks = 16384; // about 7 MB of generated lines
    for (std::uint64_t lines = 0; reader.next(line, tooLong); ++lines) {
        if (keepGoing && lines % kLinesBetweenAsks == 0 && !keepGoing(lines == 0 ? 0 : reader.position()))
            return false;
        if (tooLong)
            return false;
        if (isBlank(line))
            continue;
        if (!perResource.empty()) {
            if (!visit(perResource))
                return false;
            continue;
        }
        const std::size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line.compare(start, prefix.size(), prefix) != 0)
            return false;
        std::size_t from = start + prefix.size();
        const std::size_t end = line.find('"', from);
        // A second "resource" member would win when parsed: such a line is not read cheaply.
        if (end == std::string::npos || line.find('\\', from) < end
            || line.find("\"resource\"", end) != std::string::npos)
            return false;
        if (end > from && line[from] == '/')
            ++from; // as fromEnvelope reads it
        if (!visit(line.substr(from, end - from)))
            return false;
    }
    return true;
}

void completeItem(ImportItem &item)
{
    if (item.unparsed.empty())
        return;
    JsonParseResult parsed = parseJson(item.unparsed);
    if (!parsed.value)
        item.error = parsed.error;
    else if (item.unparsedIsEnvelope)
        fromEnvelope(std::move(*parsed.value), item);
    else
        item.body = std::move(*parsed.value);
    // Kept only when it could not be read: a draft of it keeps the line as it was.
    if (item.error.empty())
        std::string().swap(item.unparsed);
}

std::unique_ptr<ImportSource> openImportSource(const std::string &path, const Model &model, std::string *error,
                                               const RowMapping *mapping)
{
    const QFileInfo info(QString::fromStdString(path));
    if (!info.exists()) {
        *error = path + ": no such file or directory";
        return nullptr;
    }
    if (!info.isDir())
        return openFile(path, model, error, mapping);
    QDir dir(info.absoluteFilePath());
    const QStringList names = dir.entryList({"*.ndjson", "*.jsonl", "*.json", "*.xml"}, QDir::Files, QDir::Name);
    std::vector<std::unique_ptr<ImportSource>> sources;
    for (const QString &name : names) {
        if (name == QLatin1String("manifest.json"))
            continue;
        const std::string file = dir.filePath(name).toStdString();
        std::string fileError;
        std::unique_ptr<ImportSource> source = openFile(file, model, &fileError, nullptr);
        // One unreadable file in a folder is reported, not fatal: the rest still imports.
        sources.push_back(source ? std::move(source) : std::make_unique<ErrorSource>(file, fileError));
    }
    return std::make_unique<ChainSource>(std::move(sources));
}

} // namespace steward
