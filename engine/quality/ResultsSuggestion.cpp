// A first results mapping for a file nobody mapped yet: columns placed by their names, then by
// their values against what the database stores (suggestResultsMapping, ExternalResults.h).
#include "ExternalResults.h"

#include "Spreadsheet.h"

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <map>
#include <set>

namespace steward {

namespace {

// The resource whose natural key an identity field's values are: a student's, staff member's or school's.
const char *resourceKeyedBy(const std::string &leaf)
{
    if (leaf == "studentUniqueId")
        return "Student";
    if (leaf == "staffUniqueId")
        return "Staff";
    if (leaf == "schoolId")
        return "School";
    return nullptr;
}

// Of a column's distinct sample values, how many are stored natural keys of that resource.
std::pair<int, int> storedValues(SQLite::Database &db, const std::vector<SheetRow> &rows, std::size_t column,
                                 const std::string &resource)
{
    std::set<std::string> values;
    for (const SheetRow &row : rows)
        if (column < row.cells.size())
            if (const std::string value = trimmedCell(row.cells[column]); !value.empty())
                values.insert(value);
    // The resource's key and the natural key's expression, as documents_by_natural_key indexes them: a
    // search per value, not a scan of the resource.
    SQLite::Statement stored(db, "SELECT EXISTS (SELECT 1 FROM document_rows d WHERE d.resource_key ="
                                 " (SELECT resource_key FROM resources WHERE project = 'Ed-Fi' AND resource = ?)"
                                 " AND steward_natural_key(steward_text(d.identity)) = ? COLLATE NOCASE)");
    int matching = 0;
    for (const std::string &value : values) {
        stored.reset();
        stored.bind(1, resource);
        stored.bind(2, value);
        if (stored.executeStep() && stored.getColumn(0).getInt() != 0)
            ++matching;
    }
    return {matching, static_cast<int>(values.size())};
}

// The student identification codes stored on StudentEducationOrganizationAssociations: code -> systems.
std::map<std::string, std::set<std::string>> storedStudentCodes(SQLite::Database &db)
{
    SQLite::Statement codes(db, "SELECT json_extract(c.value, '$.identificationCode'),"
                                " json_extract(c.value, '$.studentIdentificationSystemDescriptor')"
                                " FROM (SELECT steward_text(body) AS b FROM documents"
                                "       WHERE resource = 'StudentEducationOrganizationAssociation') d,"
                                " json_each(json_extract(d.b, '$.studentIdentificationCodes')) c");
    std::map<std::string, std::set<std::string>> out;
    while (codes.executeStep())
        if (!codes.getColumn(0).isNull() && !codes.getColumn(1).isNull())
            out[codes.getColumn(0).getString()].insert(codes.getColumn(1).getString());
    return out;
}

// The column most of whose values are stored student identification codes of one system: the mapping's
// studentIds crosswalk (and the key field on that column, which the crosswalk fills); false when none.
bool suggestStudentIdCodes(SQLite::Database &db, const std::vector<std::string> &header,
                           const std::vector<SheetRow> &rows, std::set<std::size_t> &used, const std::string &field,
                           Json &fields, ResultsMappingSuggestion &suggestion)
{
    const std::map<std::string, std::set<std::string>> codes = storedStudentCodes(db);
    if (codes.empty())
        return false;
    std::size_t best = header.size();
    std::string bestSystem;
    int bestFound = 0;
    int bestValues = 0;
    for (std::size_t i = 0; i < header.size(); ++i) {
        if (used.count(i) > 0)
            continue;
        std::set<std::string> values;
        for (const SheetRow &row : rows)
            if (i < row.cells.size())
                if (const std::string value = trimmedCell(row.cells[i]); !value.empty())
                    values.insert(value);
        std::map<std::string, int> bySystem;
        for (const std::string &value : values)
            if (auto found = codes.find(value); found != codes.end())
                for (const std::string &system : found->second)
                    ++bySystem[system];
        for (const auto &[system, count] : bySystem)
            if (count > bestFound) {
                best = i;
                bestSystem = system;
                bestFound = count;
                bestValues = static_cast<int>(values.size());
            }
    }
    if (best == header.size() || bestFound * 2 < bestValues)
        return false;
    suggestion.mapping["studentIds"] = Json{{"column", header[best]}, {"system", bestSystem}};
    fields[field] = Json{{"column", header[best]}};
    used.insert(best);
    suggestion.notes.push_back("column '" + header[best] + "' as studentIds of " + bestSystem + ": " +
                               std::to_string(bestFound) + " of " + std::to_string(bestValues) +
                               " values are stored identification codes of that system; each row's student is " +
                               "found through them");
    return true;
}

// A severity for a word nobody mapped, from a letter of it that names one ("SW" -> warning): a
// suggestion for a person to confirm, never a mapping.
std::string severityFromLetters(const std::string &word)
{
    for (auto it = word.rbegin(); it != word.rend(); ++it) {
        const std::string letter(1, static_cast<char>(std::tolower(static_cast<unsigned char>(*it))));
        if (auto known = kCommonSeverityWords.find(letter); known != kCommonSeverityWords.end())
            return known->second;
    }
    return {};
}

// Each role to the column whose folded name it answers to, most specific word first.
Json columnsByName(const std::vector<std::string> &header, std::set<std::size_t> &used)
{
    // Folded header words each role answers to, most specific first.
    const std::vector<std::pair<std::string, std::vector<std::string>>> roles = {
        {"rule", {"ruleid", "rulenumber", "rule", "errorcode", "validationid", "messagecode", "code", "ruleno"}},
        {"severity", {"severity", "errorlevel", "level", "type", "errortype", "messagetype"}},
        {"message", {"message", "errormessage", "description", "messagetext", "text", "detail"}},
        {"schoolYear", {"schoolyear", "year", "reportingyear", "collectionyear"}},
        {"school", {"schoolid", "campusid", "campus", "school", "schoolcode", "locationid"}},
        {"id", {"edfiid", "id", "resourceid", "recordid", "documentid"}},
        {"resource", {"resource", "recordtype", "entity", "resourcetype", "category"}},
        {"runAt", {"rundate", "runat", "validationdate", "date", "processeddate"}},
    };
    Json columns = Json::object();
    for (const auto &[role, words] : roles) {
        for (const std::string &word : words) {
            bool placed = false;
            for (std::size_t i = 0; i < header.size() && !placed; ++i) {
                if (used.count(i) == 0 && foldedName(header[i]) == word) {
                    columns[role] = header[i];
                    used.insert(i);
                    placed = true;
                }
            }
            if (placed)
                break;
        }
    }
    return columns;
}

// The severity column's words the sample uses: those known mapped, the others listed with their rows.
void suggestSeverities(const std::vector<std::string> &header, const std::vector<SheetRow> &rows,
                       const Json &columns, ResultsMappingSuggestion &suggestion)
{
    if (!columns.contains("severity"))
        return;
    const std::size_t at = static_cast<std::size_t>(
        std::find(header.begin(), header.end(), columns["severity"].get<std::string>()) - header.begin());
    Json severities = Json::object();
    std::map<std::string, std::vector<std::int64_t>> unknown; // word -> the rows that use it
    for (const SheetRow &row : rows) {
        const std::string word = at < row.cells.size() ? trimmedCell(row.cells[at]) : std::string();
        if (word.empty())
            continue;
        if (const std::string severity = commonSeverity(toLower(word)); !severity.empty())
            severities[word] = severity;
        else
            unknown[word].push_back(row.number);
    }
    for (const auto &[word, used] : unknown) {
        std::string where;
        for (std::size_t i = 0; i < used.size() && i < 5; ++i)
            where += (i == 0 ? "" : ", ") + std::to_string(used[i]);
        const std::string guess = severityFromLetters(word);
        suggestion.unmatched.push_back(
            "severity '" + word + "' in " + std::to_string(used.size()) + " row(s) (" + where +
            (used.size() > 5 ? ", ..." : "") + "): not mapped" +
            (guess.empty() ? "; map it to fatal, error, warning or info"
                           : "; its letters suggest " + guess + ": confirm with \"" + word + "\": \"" + guess +
                                 "\" in severities"));
    }
    if (!severities.empty())
        suggestion.mapping["severities"] = severities;
}

Json keyFieldsByName(const ResourceSchema &resource, const std::vector<std::string> &header,
                     std::set<std::size_t> &used)
{
    // Each identity field to the column named like its last step ("studentUniqueId" <- "Student Unique ID",
    // "Student ID"; "schoolId" <- "School ID", "Campus ID").
    Json fields = Json::object();
    for (const JsonPath &path : resource.identityPaths) {
        const std::string field = path.text().substr(2);
        const std::string leaf = field.substr(field.find_last_of('.') + 1);
        std::vector<std::string> candidates = {foldedName(leaf)};
        if (leaf == "studentUniqueId")
            candidates.insert(candidates.end(), {"studentid", "studentnumber", "localstudentid"});
        if (leaf == "schoolId")
            candidates.insert(candidates.end(), {"campusid", "campus", "schoolcode"});
        for (const std::string &candidate : candidates) {
            auto it = std::find_if(header.begin(), header.end(), [&](const std::string &h) {
                return foldedName(h) == candidate;
            });
            if (it != header.end()) {
                fields[field] = Json{{"column", *it}};
                used.insert(static_cast<std::size_t>(it - header.begin()));
                break;
            }
        }
    }
    return fields;
}

void keyFieldsByValues(SQLite::Database *db, const ResourceSchema &resource, const std::vector<std::string> &header,
                       const std::vector<SheetRow> &rows, std::set<std::size_t> &used, Json &fields,
                       ResultsMappingSuggestion &suggestion)
{
    // A key field no column is named like: the column most of whose values are stored ones of its kind.
    for (const JsonPath &path : resource.identityPaths) {
        const std::string field = path.text().substr(2);
        const char *keyedBy = resourceKeyedBy(field.substr(field.find_last_of('.') + 1));
        if (db == nullptr || keyedBy == nullptr || fields.contains(field))
            continue;
        std::size_t best = header.size();
        std::pair<int, int> bestCount{0, 0};
        for (std::size_t i = 0; i < header.size(); ++i) {
            if (used.count(i) > 0)
                continue;
            const std::pair<int, int> count = storedValues(*db, rows, i, keyedBy);
            if (count.first > bestCount.first) {
                best = i;
                bestCount = count;
            }
        }
        if (best == header.size() || bestCount.first * 2 < bestCount.second) {
            // Not the Ed-Fi ids: perhaps a state's own student ids, stored as identification codes.
            if (std::string(keyedBy) == "Student")
                suggestStudentIdCodes(*db, header, rows, used, field, fields, suggestion);
            continue;
        }
        fields[field] = Json{{"column", header[best]}};
        used.insert(best);
        const std::string leaf = field.substr(field.find_last_of('.') + 1);
        suggestion.notes.push_back("column '" + header[best] + "' as " + field + ": " +
                                   std::to_string(bestCount.first) + " of " + std::to_string(bestCount.second) +
                                   " values are stored " + leaf + "s");
    }
}

} // namespace

ResultsMappingSuggestion suggestResultsMapping(const std::vector<std::string> &header, const std::vector<SheetRow> &rows,
                                               const ResourceSchema *resource, SQLite::Database *db)
{
    ResultsMappingSuggestion suggestion;
    std::set<std::size_t> used;
    const Json columns = columnsByName(header, used);
    suggestion.mapping = Json{{"columns", columns}};
    suggestSeverities(header, rows, columns, suggestion);
    if (resource != nullptr) {
        suggestion.mapping["resource"] = resource->resourceName;
        Json fields = keyFieldsByName(*resource, header, used);
        keyFieldsByValues(db, *resource, header, rows, used, fields, suggestion);
        if (!fields.empty())
            suggestion.mapping["keys"] = Json{{resource->resourceName, fields}};
    }
    for (std::size_t i = 0; i < header.size(); ++i)
        if (used.count(i) == 0)
            suggestion.unmatched.push_back("column '" + header[i] + "'");
    return suggestion;
}

} // namespace steward
