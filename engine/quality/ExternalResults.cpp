#include "ExternalResults.h"

#include "Identity.h"
#include "Spreadsheet.h"

#include "Clock.h"

#include <SQLiteCpp/Statement.h>

#include <QCryptographicHash>
#include <QFile>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace steward {

namespace {

const std::set<std::string> kSeverityNames = {"fatal", "error", "warning", "info"};
const std::set<std::string> kRoles = {"rule", "severity", "message", "schoolYear", "school", "id", "resource", "runAt"};
const std::set<std::string> kMappingFields = {"sheet",    "delimiter", "columns", "severities",
                                              "resources", "resource", "keys",   "studentIds"};
// What a severity column usually holds, beyond the four names themselves.
const std::map<std::string, std::string> kCommonSeverityWords = {
    {"f", "fatal"},       {"e", "error"},     {"w", "warning"},       {"i", "info"},
    {"critical", "fatal"}, {"err", "error"},  {"warn", "warning"},    {"information", "info"},
    {"informational", "info"}};
const int kMostUnmatchedKept = 100000;

const ResourceSchema *resourceNamed(const Model &model, const std::string &text)
{
    for (const ResourceSchema *resource : model.resources())
        if (toLower(resource->resourceName) == toLower(text))
            return resource;
    const std::string path = !text.empty() && text.front() == '/' ? text.substr(1) : text;
    return path.find('/') == std::string::npos ? nullptr : model.findByPath(path);
}

std::string textOf(const Json &value)
{
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_null())
        return std::string();
    return identityValueText(value);
}

// One row of a results file, before matching.
struct ResultRow
{
    std::int64_t number = 0;
    std::string ruleId;
    std::string severity;
    std::string message;
    std::string schoolYear;
    std::string school;
    std::string id;
    std::string resourceWord;
    std::string runAt;
    Json key;       // body-shaped natural key (JSON lines), or null
    SheetRow cells; // spreadsheets: the row, whose key columns are mapped once its resource is known
};

// What a file's rows are and, for a spreadsheet, its header.
struct ResultRows
{
    std::vector<ResultRow> rows;
    std::vector<std::string> header;
};

std::string severityOf(const std::string &word, const ResultsMapping *mapping, std::int64_t row)
{
    const std::string lowered = toLower(trimmedCell(word));
    if (mapping) {
        auto it = mapping->severities.find(lowered);
        if (it != mapping->severities.end())
            return it->second;
    }
    if (const std::string severity = commonSeverity(lowered); !severity.empty())
        return severity;
    throw ResultsImportError("row " + std::to_string(row) + ": severity '" + word
                             + "' is not fatal, error, warning or info (map it under \"severities\" in the mapping)");
}

void requireRow(const ResultRow &row)
{
    if (row.ruleId.empty())
        throw ResultsImportError("row " + std::to_string(row.number) + ": no rule id");
    if (row.message.empty())
        throw ResultsImportError("row " + std::to_string(row.number) + ": rule " + row.ruleId + " has no message");
}

std::vector<ResultRow> readJsonLines(const std::string &path, const std::function<bool(std::int64_t)> &progress)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ResultsImportError(path + ": cannot be read");
    std::vector<ResultRow> rows;
    std::string line;
    std::int64_t number = 0;
    const std::set<std::string> known = {"rule", "ruleId", "severity", "message", "schoolYear", "school", "schoolId",
                                         "id", "resource", "key", "runAt"};
    while (std::getline(in, line)) {
        ++number;
        if (trimmedCell(line).empty())
            continue;
        JsonParseResult parsed = parseJson(line);
        if (!parsed.value || !parsed.value->is_object())
            throw ResultsImportError(path + ": line " + std::to_string(number) + ": "
                                     + (parsed.value ? "not a JSON object" : parsed.error));
        const Json &object = *parsed.value;
        for (auto it = object.begin(); it != object.end(); ++it)
            if (known.count(it.key()) == 0)
                throw ResultsImportError(path + ": line " + std::to_string(number) + ": unknown field \"" + it.key()
                                         + "\" (known: rule, severity, message, schoolYear, school, id, resource, key, runAt)");
        ResultRow row;
        row.number = number;
        row.ruleId = textOf(object.value("rule", object.value("ruleId", Json())));
        row.severity = severityOf(textOf(object.value("severity", Json())), nullptr, number);
        row.message = textOf(object.value("message", Json()));
        row.schoolYear = textOf(object.value("schoolYear", Json()));
        row.school = textOf(object.value("school", object.value("schoolId", Json())));
        row.id = textOf(object.value("id", Json()));
        row.resourceWord = textOf(object.value("resource", Json()));
        row.runAt = textOf(object.value("runAt", Json()));
        if (object.contains("key")) {
            if (!object["key"].is_object())
                throw ResultsImportError(path + ": line " + std::to_string(number)
                                         + ": \"key\" must be an object shaped like the document's identity");
            row.key = object["key"];
        }
        requireRow(row);
        rows.push_back(std::move(row));
        if (progress && rows.size() % 4096 == 0 && !progress(static_cast<std::int64_t>(rows.size())))
            return {};
    }
    return rows;
}

ResultRows readSheet(const std::string &path, const ResultsMapping &mapping,
                     const std::function<bool(std::int64_t)> &progress, bool &cancelled)
{
    std::string error;
    std::unique_ptr<SheetReader> reader = openSheet(path, mapping.delimiter, mapping.sheet, &error);
    if (!reader)
        throw ResultsImportError(error);
    std::map<std::string, std::size_t> at;
    try {
        at = checkResultsColumns(mapping, reader->header());
    } catch (const ResultsImportError &e) {
        throw ResultsImportError(path + ": " + e.what());
    }
    auto cell = [&](const SheetRow &row, const std::string &role) {
        auto it = at.find(role);
        return it == at.end() || it->second >= row.cells.size() ? std::string() : trimmedCell(row.cells[it->second]);
    };
    ResultRows out;
    out.header = reader->header();
    std::vector<ResultRow> &rows = out.rows;
    SheetRow sheetRow;
    while (reader->next(sheetRow)) {
        if (std::all_of(sheetRow.cells.begin(), sheetRow.cells.end(),
                        [](const std::string &c) { return trimmedCell(c).empty(); }))
            continue;
        ResultRow row;
        row.number = sheetRow.number;
        row.ruleId = cell(sheetRow, "rule");
        row.severity = severityOf(cell(sheetRow, "severity"), &mapping, sheetRow.number);
        row.message = cell(sheetRow, "message");
        row.schoolYear = cell(sheetRow, "schoolYear");
        row.school = cell(sheetRow, "school");
        row.id = cell(sheetRow, "id");
        row.resourceWord = cell(sheetRow, "resource");
        row.runAt = cell(sheetRow, "runAt");
        requireRow(row);
        row.cells = sheetRow;
        rows.push_back(std::move(row));
        if (progress && rows.size() % 4096 == 0 && !progress(static_cast<std::int64_t>(rows.size()))) {
            cancelled = true;
            return {};
        }
    }
    if (!reader->error().empty())
        throw ResultsImportError(reader->error());
    return out;
}

// What matching found for one row.
struct Match
{
    const ResourceSchema *resource = nullptr;
    std::string docId;
    std::string naturalKey;
    std::int64_t changeSeq = 0;
    std::string unmatched;
};

class Matcher
{
public:
    Matcher(SQLite::Database &db, const Model &model, const ResultsMapping *mapping, const std::vector<std::string> &header)
        : m_model(model)
        , m_mapping(mapping)
        , m_header(header)
        , m_identities(model)
        , m_byId(db, "SELECT r.project, r.resource, d.change_seq, steward_text(d.identity) FROM document_rows d"
                     " JOIN resources r ON r.resource_key = d.resource_key WHERE d.id = steward_id_key(?)")
        , m_byAlias(db, "SELECT steward_id_text(d.id), r.project, r.resource, d.change_seq FROM alias_rows a"
                        " JOIN document_rows d ON d.doc_key = a.doc_key"
                        " JOIN resources r ON r.resource_key = d.resource_key WHERE a.referential_id = ?")
    {
    }

    Match match(const ResultRow &row)
    {
        Match found;
        const ResourceSchema *resource = resourceOf(row, found.unmatched);
        if (!row.id.empty())
            return byId(row, resource);
        if (resource == nullptr) {
            if (found.unmatched.empty())
                found.unmatched = "no Ed-Fi id, and no resource to read a natural key for";
            return found;
        }
        found.resource = resource;
        Json body;
        if (!row.key.is_null()) {
            body = row.key;
        } else {
            const RowMapping *keys = keysOf(resource);
            if (keys == nullptr) {
                found.unmatched = "no Ed-Fi id, and the mapping gives no key columns for " + resource->resourceName;
                return found;
            }
            for (const MappedDocument &document : mapRow(*keys, m_header, row.cells)) {
                if (!document.error.empty()) {
                    found.unmatched = "the key cannot be read: " + document.error;
                    return found;
                }
                body = document.body;
            }
        }
        std::string missing;
        const std::optional<DocumentIdentity> identity = m_identities.documentIdentity(*resource, body, &missing);
        if (!identity) {
            found.unmatched = "the natural key of " + resource->resourceName + " lacks " + missing;
            return found;
        }
        found.naturalKey = naturalKeyText(m_identities.identityObject(*resource, body));
        const Uuid referentialId = identity->referentialId();
        m_byAlias.bind(1, referentialId.bytes.data(), static_cast<int>(referentialId.bytes.size()));
        if (m_byAlias.executeStep()) {
            found.docId = m_byAlias.getColumn(0).getString();
            found.changeSeq = m_byAlias.getColumn(3).getInt64();
            if (const ResourceSchema *stored = m_model.findByName(m_byAlias.getColumn(1).getString(),
                                                                  m_byAlias.getColumn(2).getString()))
                found.resource = stored;
        } else {
            found.unmatched = "no stored " + resource->resourceName + " has the key " + found.naturalKey;
        }
        m_byAlias.reset();
        return found;
    }

private:
    const RowMapping *keysOf(const ResourceSchema *resource) const
    {
        if (m_mapping == nullptr)
            return nullptr;
        auto it = m_mapping->keys.find(resource);
        return it == m_mapping->keys.end() ? nullptr : &it->second;
    }

    const ResourceSchema *resourceOf(const ResultRow &row, std::string &why) const
    {
        if (!row.resourceWord.empty()) {
            std::string name = row.resourceWord;
            if (m_mapping) {
                auto it = m_mapping->resources.find(toLower(row.resourceWord));
                if (it != m_mapping->resources.end())
                    name = it->second;
            }
            const ResourceSchema *resource = resourceNamed(m_model, name);
            if (resource == nullptr)
                why = "record type '" + row.resourceWord + "' is not a resource of the model (map it under \"resources\")";
            return resource;
        }
        return m_mapping ? m_mapping->resource : nullptr;
    }

    Match byId(const ResultRow &row, const ResourceSchema *resource)
    {
        Match found;
        found.resource = resource;
        m_byId.bind(1, row.id);
        if (m_byId.executeStep()) {
            found.docId = row.id;
            found.changeSeq = m_byId.getColumn(2).getInt64();
            found.resource = m_model.findByName(m_byId.getColumn(0).getString(), m_byId.getColumn(1).getString());
            const JsonParseResult identity = parseJson(m_byId.getColumn(3).getString());
            if (identity.value)
                found.naturalKey = naturalKeyText(*identity.value);
            if (resource != nullptr && found.resource != nullptr && found.resource != resource
                && found.resource->superclassResourceName != resource->resourceName) {
                found.unmatched = "id " + row.id + " is a " + found.resource->resourceName + ", not a "
                                  + resource->resourceName;
                found.docId.clear();
            }
        } else {
            found.unmatched = "no stored document has the id " + row.id;
        }
        m_byId.reset();
        return found;
    }

    const Model &m_model;
    const ResultsMapping *m_mapping;
    HeaderIndex m_header;
    IdentityCalculator m_identities;
    SQLite::Statement m_byId;
    SQLite::Statement m_byAlias;
};

std::string sha256OfFile(const std::string &path)
{
    QFile file(QString::fromStdString(path));
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (file.open(QIODevice::ReadOnly))
        hash.addData(&file);
    return hash.result().toHex().toStdString();
}

std::string fileName(const std::string &path)
{
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

std::string commonSeverity(const std::string &lowered)
{
    if (kSeverityNames.count(lowered) > 0)
        return lowered;
    auto it = kCommonSeverityWords.find(lowered);
    return it == kCommonSeverityWords.end() ? std::string() : it->second;
}

ResultsMapping parseResultsMapping(const Json &mapping, const Model &model)
{
    if (!mapping.is_object())
        throw ResultsImportError("a results mapping is a JSON object with \"columns\"");
    for (auto it = mapping.begin(); it != mapping.end(); ++it)
        if (kMappingFields.count(it.key()) == 0)
            throw ResultsImportError("'" + it.key()
                                     + "' is not a results mapping setting (sheet, delimiter, columns, severities, "
                                       "resources, resource, keys)");
    ResultsMapping out;
    if (mapping.contains("sheet")) {
        if (!mapping["sheet"].is_string())
            throw ResultsImportError("sheet: must be a sheet's name");
        out.sheet = mapping["sheet"].get<std::string>();
    }
    if (mapping.contains("delimiter")) {
        const Json &d = mapping["delimiter"];
        if (!d.is_string() || (d != "," && d != ";" && d != "\t"))
            throw ResultsImportError("delimiter: must be \",\", \";\" or \"\\t\"");
        out.delimiter = d.get<std::string>()[0];
    }
    if (!mapping.contains("columns") || !mapping["columns"].is_object())
        throw ResultsImportError("columns: an object of roles to headers is required ({\"rule\": \"Rule ID\", ...})");
    for (auto it = mapping["columns"].begin(); it != mapping["columns"].end(); ++it) {
        if (kRoles.count(it.key()) == 0)
            throw ResultsImportError("columns." + it.key()
                                     + ": not a role (rule, severity, message, schoolYear, school, id, resource, runAt)");
        if (!it.value().is_string() || it.value().get<std::string>().empty())
            throw ResultsImportError("columns." + it.key() + ": must be a column's header");
        out.columns[it.key()] = it.value().get<std::string>();
    }
    for (const char *required : {"rule", "severity", "message"})
        if (out.columns.count(required) == 0)
            throw ResultsImportError(std::string("columns.") + required + ": is required");
    if (mapping.contains("severities")) {
        if (!mapping["severities"].is_object())
            throw ResultsImportError("severities: an object of the file's words to fatal, error, warning or info");
        for (auto it = mapping["severities"].begin(); it != mapping["severities"].end(); ++it) {
            const std::string value = it.value().is_string() ? toLower(it.value().get<std::string>()) : "";
            if (kSeverityNames.count(value) == 0)
                throw ResultsImportError("severities." + it.key() + ": must be fatal, error, warning or info");
            out.severities[toLower(it.key())] = value;
        }
    }
    if (mapping.contains("resources")) {
        if (!mapping["resources"].is_object())
            throw ResultsImportError("resources: an object of the file's record types to resource names");
        for (auto it = mapping["resources"].begin(); it != mapping["resources"].end(); ++it) {
            const std::string name = it.value().is_string() ? it.value().get<std::string>() : "";
            if (resourceNamed(model, name) == nullptr)
                throw ResultsImportError("resources." + it.key() + ": '" + name + "' is not a resource of the model");
            out.resources[toLower(it.key())] = name;
        }
    }
    if (mapping.contains("resource")) {
        const std::string name = mapping["resource"].is_string() ? mapping["resource"].get<std::string>() : "";
        out.resource = resourceNamed(model, name);
        if (out.resource == nullptr)
            throw ResultsImportError("resource: '" + name + "' is not a resource of the model");
    }
    if (mapping.contains("keys")) {
        if (!mapping["keys"].is_object())
            throw ResultsImportError("keys: an object of resource names to identity fields and their columns");
        for (auto it = mapping["keys"].begin(); it != mapping["keys"].end(); ++it) {
            const ResourceSchema *resource = resourceNamed(model, it.key());
            if (resource == nullptr)
                throw ResultsImportError("keys." + it.key() + ": not a resource of the model");
            // A state's own student ids (WSN, SSID) are found through the stored identification codes, as a
            // spreadsheet mapping's crosswalk finds them.
            Json keyMapping{
                {"documents", Json::array({Json{{"resource", resource->resourceKey()}, {"fields", it.value()}}})}};
            if (mapping.contains("studentIds"))
                keyMapping["studentIds"] = mapping["studentIds"];
            try {
                out.keys[resource] = parseRowMapping(keyMapping, model);
            } catch (const MappingError &e) {
                throw ResultsImportError("keys." + it.key() + ": " + e.what());
            }
        }
    }
    if (out.columns.count("id") == 0 && out.keys.empty())
        throw ResultsImportError("the mapping finds records neither by id (columns.id) nor by natural key (keys)");
    return out;
}

std::map<std::string, std::size_t> checkResultsColumns(const ResultsMapping &mapping,
                                                       const std::vector<std::string> &header)
{
    const HeaderIndex index(header);
    std::map<std::string, std::size_t> at;
    for (const auto &[role, column] : mapping.columns) {
        at[role] = index.find(column);
        if (at[role] == std::string::npos) {
            std::string there;
            for (const std::string &name : header)
                there += (there.empty() ? "" : ", ") + name;
            throw ResultsImportError("the mapping's column '" + column + "' (" + role + ") is not in the header (there: "
                                     + there + ")");
        }
    }
    for (const auto &[resource, keys] : mapping.keys) {
        try {
            checkColumns(keys, header);
        } catch (const MappingError &e) {
            throw ResultsImportError("keys of " + resource->resourceName + ": " + e.what());
        }
    }
    return at;
}

ResultsMapping loadResultsMapping(const std::string &path, const Model &model)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ResultsImportError(path + ": cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    JsonParseResult parsed = parseJson(text.str());
    if (!parsed.value)
        throw ResultsImportError(path + ": not valid JSON: " + parsed.error);
    try {
        return parseResultsMapping(*parsed.value, model);
    } catch (const ResultsImportError &e) {
        throw ResultsImportError(path + ": " + e.what());
    }
}

Json ResultsImportReport::toJson() const
{
    Json rowsUnmatched = Json::array();
    for (const UnmatchedResult &u : unmatched)
        rowsUnmatched.push_back({{"row", u.row}, {"rule", u.ruleId}, {"reason", u.reason}});
    return Json{{"source", source}, {"file", file},     {"rows", rows},       {"matched", matched},
                {"unmatched", rowsUnmatched}, {"bySeverity", bySeverity}, {"replaced", replaced},
                {"fixed", fixed},   {"still", still},   {"added", added},     {"cancelled", cancelled}};
}

namespace {

// Takes out what an earlier import of the same source stored; what it had matched (rule, document).
std::set<std::pair<std::string, std::string>> dropSource(SQLite::Database &db, const std::string &name,
                                                         ResultsImportReport &report)
{
    std::set<std::pair<std::string, std::string>> before;
    std::int64_t oldSource = 0;
    {
        SQLite::Statement old(db, "SELECT source_id FROM result_sources WHERE name = ?");
        old.bind(1, name);
        if (old.executeStep())
            oldSource = old.getColumn(0).getInt64();
    }
    if (oldSource != 0) {
        report.replaced = true;
        SQLite::Statement previous(db, "SELECT rule_id, doc_id FROM external_results WHERE source_id = ?"
                                       " AND doc_id IS NOT NULL");
        previous.bind(1, oldSource);
        while (previous.executeStep())
            before.emplace(previous.getColumn(0).getString(), previous.getColumn(1).getString());
        SQLite::Statement dropRows(db, "DELETE FROM external_results WHERE source_id = ?");
        dropRows.bind(1, oldSource);
        dropRows.exec();
        SQLite::Statement dropSourceRow(db, "DELETE FROM result_sources WHERE source_id = ?");
        dropSourceRow.bind(1, oldSource);
        dropSourceRow.exec();
    }
    return before;
}

std::int64_t addSource(SQLite::Database &db, const ResultsImportOptions &options, const std::string &path,
                       const std::string &runAt)
{
    SQLite::Statement source(db, "INSERT INTO result_sources (name, file, file_sha, run_at, imported_at, imported_by,"
                                 " row_count, matched) VALUES (?, ?, ?, ?, ?, ?, 0, 0)");
    source.bind(1, options.source);
    source.bind(2, fileName(path));
    source.bind(3, sha256OfFile(path));
    if (runAt.empty())
        source.bind(4);
    else
        source.bind(4, runAt);
    source.bind(5, engineNowText());
    source.bind(6, options.actor);
    source.exec();
    return db.getLastInsertRowid();
}

// The mapping with its studentIds crosswalks' codes loaded; none when it has no crosswalk.
std::optional<ResultsMapping> withStudentIdCodes(SQLite::Database &db, const Model &model, const ResultsMapping *mapping)
{
    std::optional<ResultsMapping> withCodes;
    if (mapping != nullptr && std::any_of(mapping->keys.begin(), mapping->keys.end(),
                                          [](const auto &keys) { return keys.second.studentIds.has_value(); })) {
        withCodes = *mapping;
        try {
            for (auto &[resource, keys] : withCodes->keys)
                loadStudentIdCodes(db, model, keys);
        } catch (const MappingError &e) {
            throw ResultsImportError(std::string("studentIds: ") + e.what());
        }
    }
    return withCodes;
}

} // namespace

ResultsImportReport importExternalResults(Database &database, const Model &model, const std::string &path,
                                          const ResultsMapping *mapping, const ResultsImportOptions &options)
{
    if (options.source.empty() || options.source.size() > 200)
        throw ResultsImportError("a results source needs a name of 1 to 200 characters");
    ResultsImportReport report;
    report.source = options.source;
    report.file = path;
    const bool sheet = isSpreadsheetFile(path);
    if (sheet && mapping == nullptr)
        throw ResultsImportError(path + ": a spreadsheet of results needs a mapping (steward-cli mapping suggest "
                                        "--results FILE writes a first one)");
    ResultRows read;
    if (sheet)
        read = readSheet(path, *mapping, options.progress, report.cancelled);
    else
        read.rows = readJsonLines(path, options.progress);
    const std::vector<ResultRow> &rows = read.rows;
    if (report.cancelled || (rows.empty() && options.progress && !options.progress(0))) {
        report.cancelled = true;
        return report;
    }
    std::string runAt = options.runAt;
    if (runAt.empty())
        for (const ResultRow &row : rows)
            runAt = std::max(runAt, row.runAt);

    SQLite::Database &db = database.connection();
    ImmediateTransaction transaction(db);
    // The source's matched results before this file, to count what was fixed.
    const std::set<std::pair<std::string, std::string>> before = dropSource(db, options.source, report);
    const std::int64_t sourceId = addSource(db, options, path, runAt);

    // A crosswalk's codes, read inside this transaction.
    const std::optional<ResultsMapping> withCodes = withStudentIdCodes(db, model, mapping);
    Matcher matcher(db, model, withCodes ? &*withCodes : mapping, read.header);
    SQLite::Statement insert(db, "INSERT INTO external_results (source_id, row_number, rule_id, severity, message,"
                                 " school_year, school_id, project, resource, doc_id, natural_key, seq_at_run, unmatched)"
                                 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    std::set<std::pair<std::string, std::string>> now;
    for (const ResultRow &row : rows) {
        const Match found = matcher.match(row);
        insert.bind(1, sourceId);
        insert.bind(2, row.number);
        insert.bind(3, row.ruleId);
        insert.bind(4, row.severity);
        insert.bind(5, row.message);
        insert.bind(6, row.schoolYear);
        insert.bind(7, row.school);
        insert.bind(8, found.resource ? found.resource->projectName() : std::string());
        insert.bind(9, found.resource ? found.resource->resourceName : std::string());
        if (found.docId.empty()) {
            insert.bind(10);
            insert.bind(12);
            insert.bind(13, found.unmatched);
            if (static_cast<int>(report.unmatched.size()) < kMostUnmatchedKept)
                report.unmatched.push_back({row.number, row.ruleId, found.unmatched});
        } else {
            insert.bind(10, found.docId);
            insert.bind(12, found.changeSeq);
            insert.bind(13);
            ++report.matched;
            now.emplace(row.ruleId, found.docId);
        }
        insert.bind(11, found.naturalKey);
        insert.exec();
        insert.reset();
        ++report.bySeverity[row.severity];
        ++report.rows;
    }
    SQLite::Statement counts(db, "UPDATE result_sources SET row_count = ?, matched = ? WHERE source_id = ?");
    counts.bind(1, report.rows);
    counts.bind(2, report.matched);
    counts.bind(3, sourceId);
    counts.exec();
    transaction.commit();

    for (const auto &key : now)
        before.count(key) ? ++report.still : ++report.added;
    for (const auto &key : before)
        report.fixed += now.count(key) == 0 ? 1 : 0;
    return report;
}

Json QualityResult::toJson() const
{
    Json out{{"origin", origin},   {"kind", originKind},       {"source", originLabel}, {"rule", ruleId},
             {"severity", severity}, {"project", project},      {"resource", resource},  {"id", docId},
             {"naturalKey", naturalKey}, {"message", message}, {"acknowledged", acknowledged}};
    if (originKind == "imported") {
        out["row"] = row;
        out["schoolYear"] = schoolYear;
        out["school"] = school;
        out["changedSince"] = changedSince;
        if (!unmatched.empty())
            out["unmatched"] = unmatched;
    }
    if (acknowledged)
        out["acknowledgement"] = Json{{"reason", ackReason}, {"by", ackActor}, {"at", ackAt}};
    return out;
}

std::vector<QualityResult> readQualityResults(SQLite::Database &db, const QualityResultFilter &filter)
{
    // One statement over both kinds, so ordering and limits hold across them.
    // One document's results: each arm reads its table's index on doc_id (the outer filter cannot
    // reach through the imported arm's coalesce, which would scan every imported result).
    const std::string ownOfDocument = filter.docId.empty() ? std::string() : " WHERE r.doc_id = :doc";
    const std::string importedOfDocument = filter.docId.empty() ? std::string() : " WHERE doc_id = :doc";
    std::string sql =
        "WITH own AS ("
        "  SELECT r.pack_id AS origin, 'rules' AS kind, 'Steward rules, pack ' || r.pack_id AS label,"
        "         r.rule_id, r.severity, r.project, r.resource, r.doc_id, r.natural_key, r.message,"
        "         '' AS school_year, '' AS school_id, 0 AS row_number, NULL AS unmatched, 0 AS changed"
        "  FROM rule_results r" + ownOfDocument + "),"
        " imported AS ("
        "  SELECT source AS origin, 'imported' AS kind,"
        "         source || ', file ' || file || coalesce(', run ' || run_at, ', imported ' || imported_at) AS label,"
        "         rule_id, severity, project, resource, coalesce(doc_id, '') AS doc_id, natural_key, message,"
        "         school_year, school_id, row_number, unmatched, changed_since AS changed"
        "  FROM imported_results" + importedOfDocument + "),"
        " everything AS (SELECT * FROM own UNION ALL SELECT * FROM imported)"
        " SELECT x.origin, x.kind, x.label, x.rule_id, x.severity, x.project, x.resource, x.doc_id, x.natural_key,"
        "        x.message, x.school_year, x.school_id, x.row_number, x.unmatched, x.changed,"
        "        a.reason, a.actor, a.at"
        " FROM everything x LEFT JOIN acknowledgements a"
        "   ON a.origin = x.origin AND a.rule_id = x.rule_id AND a.doc_id = x.doc_id AND x.doc_id <> ''"
        " WHERE 1";
    if (!filter.origin.empty())
        sql += " AND x.origin = :origin";
    if (!filter.kind.empty())
        sql += " AND x.kind = :kind";
    if (!filter.severity.empty())
        sql += " AND x.severity = :severity";
    if (!filter.ruleId.empty())
        sql += " AND x.rule_id = :rule";
    if (!filter.docId.empty())
        sql += " AND x.doc_id = :doc";
    if (filter.records == QualityResultFilter::Records::Matched)
        sql += " AND x.doc_id <> ''";
    else if (filter.records == QualityResultFilter::Records::Unmatched)
        sql += " AND x.doc_id = ''";
    sql += " ORDER BY CASE x.severity WHEN 'fatal' THEN 0 WHEN 'error' THEN 1 WHEN 'warning' THEN 2 ELSE 3 END,"
           " x.kind, x.origin, x.rule_id, x.resource, x.natural_key, x.doc_id, x.row_number";
    if (filter.limit > 0)
        sql += " LIMIT " + std::to_string(filter.limit);
    DeferredTransaction read(db);
    SQLite::Statement query(db, sql);
    if (!filter.origin.empty())
        query.bind(":origin", filter.origin);
    if (!filter.kind.empty())
        query.bind(":kind", filter.kind);
    if (!filter.severity.empty())
        query.bind(":severity", filter.severity);
    if (!filter.ruleId.empty())
        query.bind(":rule", filter.ruleId);
    if (!filter.docId.empty())
        query.bind(":doc", filter.docId);
    std::vector<QualityResult> results;
    while (query.executeStep()) {
        QualityResult r;
        r.origin = query.getColumn(0).getString();
        r.originKind = query.getColumn(1).getString();
        r.originLabel = query.getColumn(2).getString();
        r.ruleId = query.getColumn(3).getString();
        r.severity = query.getColumn(4).getString();
        r.project = query.getColumn(5).getString();
        r.resource = query.getColumn(6).getString();
        r.docId = query.getColumn(7).getString();
        r.naturalKey = query.getColumn(8).getString();
        r.message = query.getColumn(9).getString();
        r.schoolYear = query.getColumn(10).getString();
        r.school = query.getColumn(11).getString();
        r.row = query.getColumn(12).getInt64();
        r.unmatched = query.getColumn(13).getString();
        r.changedSince = query.getColumn(14).getInt() != 0;
        r.acknowledged = !query.getColumn(15).isNull();
        r.ackReason = query.getColumn(15).getString();
        r.ackActor = query.getColumn(16).getString();
        r.ackAt = query.getColumn(17).getString();
        results.push_back(std::move(r));
    }
    return results;
}

std::vector<ResultSource> resultSources(SQLite::Database &db)
{
    SQLite::Statement query(db, "SELECT name, file, coalesce(run_at, ''), imported_at, imported_by, row_count, matched"
                                " FROM result_sources ORDER BY name");
    std::vector<ResultSource> sources;
    while (query.executeStep())
        sources.push_back({query.getColumn(0).getString(), query.getColumn(1).getString(),
                           query.getColumn(2).getString(), query.getColumn(3).getString(),
                           query.getColumn(4).getString(), query.getColumn(5).getInt64(),
                           query.getColumn(6).getInt64()});
    return sources;
}

Acknowledgement acknowledgeResult(Database &database, const std::string &origin, const std::string &ruleId,
                                  const std::string &docId, const std::string &reason, const std::string &actor)
{
    if (trimmedCell(reason).empty())
        throw ResultsImportError("an acknowledgement needs a reason: why the warning may stand");
    SQLite::Database &db = database.connection();
    ImmediateTransaction transaction(db);
    SQLite::Statement find(db, "SELECT pack_id, severity FROM rule_results WHERE rule_id = ?1 AND doc_id = ?2"
                               " UNION ALL SELECT s.name, e.severity FROM external_results e"
                               " JOIN result_sources s ON s.source_id = e.source_id"
                               " WHERE e.rule_id = ?1 AND e.doc_id = ?2");
    find.bind(1, ruleId);
    find.bind(2, docId);
    std::vector<std::pair<std::string, std::string>> found;
    while (find.executeStep())
        if (origin.empty() || find.getColumn(0).getString() == origin)
            found.emplace_back(find.getColumn(0).getString(), find.getColumn(1).getString());
    if (found.empty())
        throw ResultsImportError("no result of rule " + ruleId + " for document " + docId
                                 + (origin.empty() ? std::string() : " from " + origin));
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    if (found.size() > 1)
        throw ResultsImportError("rule " + ruleId + " has results for document " + docId + " from " + found[0].first
                                 + " and " + found[1].first + "; say which (--origin)");
    const auto &[where, severity] = found.front();
    if (severity != "warning")
        throw ResultsImportError("rule " + ruleId + " is " + (severity == "info" ? "an info" : "a " + severity)
                                 + " result: only a warning can be acknowledged"
                                 + (severity == "info" ? " (info never blocks readiness)" : "; fix the record"));
    Acknowledgement ack{where, ruleId, docId, reason, actor, engineNowText()};
    SQLite::Statement insert(db, "INSERT INTO acknowledgements (origin, rule_id, doc_id, reason, actor, at)"
                                 " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (origin, rule_id, doc_id) DO UPDATE SET"
                                 " reason = excluded.reason, actor = excluded.actor, at = excluded.at");
    insert.bind(1, ack.origin);
    insert.bind(2, ack.ruleId);
    insert.bind(3, ack.docId);
    insert.bind(4, ack.reason);
    insert.bind(5, ack.actor);
    insert.bind(6, ack.at);
    insert.exec();
    transaction.commit();
    return ack;
}

bool unacknowledgeResult(Database &database, const std::string &origin, const std::string &ruleId,
                         const std::string &docId)
{
    SQLite::Database &db = database.connection();
    ImmediateTransaction transaction(db);
    SQLite::Statement remove(db, "DELETE FROM acknowledgements WHERE rule_id = ? AND doc_id = ?"
                                 + std::string(origin.empty() ? "" : " AND origin = ?"));
    remove.bind(1, ruleId);
    remove.bind(2, docId);
    if (!origin.empty())
        remove.bind(3, origin);
    const bool removed = remove.exec() > 0;
    transaction.commit();
    return removed;
}

std::vector<Acknowledgement> acknowledgements(SQLite::Database &db)
{
    SQLite::Statement query(db, "SELECT a.origin, a.rule_id, a.doc_id, a.reason, a.actor, a.at FROM acknowledgements a"
                                " WHERE EXISTS (SELECT 1 FROM rule_results r WHERE r.pack_id = a.origin"
                                "   AND r.rule_id = a.rule_id AND r.doc_id = a.doc_id)"
                                " OR EXISTS (SELECT 1 FROM external_results e JOIN result_sources s"
                                "   ON s.source_id = e.source_id WHERE s.name = a.origin AND e.rule_id = a.rule_id"
                                "   AND e.doc_id = a.doc_id)"
                                " ORDER BY a.at, a.origin, a.rule_id, a.doc_id");
    std::vector<Acknowledgement> out;
    while (query.executeStep())
        out.push_back({query.getColumn(0).getString(), query.getColumn(1).getString(), query.getColumn(2).getString(),
                       query.getColumn(3).getString(), query.getColumn(4).getString(), query.getColumn(5).getString()});
    return out;
}

} // namespace steward
