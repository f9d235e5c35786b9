#pragma once

#include "ApiSchema.h"
#include "Database.h"
#include "Json.h"
#include "RowMapping.h"

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace steward {

// A results file or its mapping that cannot be used; the message names the file, row or setting.
class ResultsImportError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// How the columns of a state portal's results export become results (a JSON file the steward keeps):
// {"sheet": "Errors", "delimiter": ",",
//  "columns": {"rule": "Rule ID", "severity": "Level", "message": "Error Message",
//              "schoolYear": "School Year", "school": "Campus", "id": "Ed-Fi Id",
//              "resource": "Record Type", "runAt": "Run Date"},
//  "severities": {"F": "fatal", "S": "error", "W": "warning"},
//  "resources": {"Enrollment": "StudentSchoolAssociation"},
//  "resource": "StudentSchoolAssociation",
//  "keys": {"StudentSchoolAssociation": {"studentReference.studentUniqueId": {"column": "Student ID"},
//                                        "schoolReference.schoolId": {"column": "Campus"},
//                                        "entryDate": {"column": "Entry Date", "format": "MM/DD/YYYY"}}}}
// "rule", "severity" and "message" are required. A record is found by its Ed-Fi id ("id") or by its
// natural key: "keys" maps a resource's identity fields to columns the way a spreadsheet mapping
// does; the resource is the "resource" column's value (through "resources", or a resource name or
// endpoint as it is) or the one "resource" given.
struct ResultsMapping
{
    std::string sheet;
    char delimiter = 0;
    std::map<std::string, std::string> columns;    // role -> header
    std::map<std::string, std::string> severities; // the file's word (without case) -> fatal, error, warning, info
    std::map<std::string, std::string> resources;  // the file's word (without case) -> a resource name
    const ResourceSchema *resource = nullptr;      // when the file holds one kind of record
    std::map<const ResourceSchema *, RowMapping> keys;
};

ResultsMapping parseResultsMapping(const Json &mapping, const Model &model);
ResultsMapping loadResultsMapping(const std::string &path, const Model &model);

// Checks that every column the mapping names (its roles' and its keys') is in the header; throws
// ResultsImportError naming the column, its role and the columns there are. Returns each role's
// column index.
std::map<std::string, std::size_t> checkResultsColumns(const ResultsMapping &mapping,
                                                       const std::vector<std::string> &header);

// A severity word a results file may use without a mapping ("W", "Warning", "critical"), given
// lower-cased: the severity it names, empty when it is none of them.
std::string commonSeverity(const std::string &lowered);

// A first results mapping from a file's header: each column placed in a role by its name ("Rule
// ID", "Error Code" -> rule; "Level", "Error Level" -> severity; "Student ID" -> a key field of the
// resource). unmatched lists the columns it could not place.
struct ResultsMappingSuggestion
{
    Json mapping;
    std::vector<std::string> unmatched;
    // Why a column was placed by its values, not its name ("'TSDS Unique ID' as studentUniqueId: 28 of 30
    // values are stored studentUniqueIds"), and what a person has to confirm.
    std::vector<std::string> notes;
};
// The rows (a sample) give the severity column's words: those it knows are mapped, others listed with
// the rows that use them and, where a letter of theirs names a severity, that severity to confirm
// (never mapped). With a database, a key field no column is named like is placed on the column most of
// whose values are stored identity values of that kind (studentUniqueId, staffUniqueId, schoolId).
ResultsMappingSuggestion suggestResultsMapping(const std::vector<std::string> &header, const std::vector<SheetRow> &rows,
                                               const ResourceSchema *resource, SQLite::Database *db = nullptr);

struct ResultsImportOptions
{
    std::string source = "state"; // results of one source replace that source's earlier ones
    std::string runAt;             // when the state ran its rules (ISO date or time); empty: a column or unknown
    std::string actor;
    std::function<bool(std::int64_t rows)> progress; // false stops before anything is written
};

// One row that matched no stored document, and why.
struct UnmatchedResult
{
    std::int64_t row = 0;
    std::string ruleId;
    std::string reason;
};

struct ResultsImportReport
{
    std::string source;
    std::string file;
    std::int64_t rows = 0;
    std::int64_t matched = 0;
    std::vector<UnmatchedResult> unmatched;
    std::map<std::string, std::int64_t> bySeverity;
    // Against the source's results before this file (matched ones, by rule and document):
    bool replaced = false;
    std::int64_t fixed = 0; // there before, not in this file
    std::int64_t still = 0; // in both
    std::int64_t added = 0; // new in this file
    bool cancelled = false;

    Json toJson() const;
};

// Reads the whole file (CSV or .xlsx through mapping; JSON lines without one: each line an object
// with rule, severity, message, schoolYear, school, id, resource and key, a body-shaped natural key),
// matches each row to a stored document, and replaces the source's results in one BEGIN IMMEDIATE.
// A row that cannot be read (no rule id, an unknown severity) refuses the whole file, naming the row.
ResultsImportReport importExternalResults(Database &database, const Model &model, const std::string &path,
                                          const ResultsMapping *mapping, const ResultsImportOptions &options);

// Steward's own results and every source's, side by side.
struct QualityResult
{
    std::string origin;      // the pack's id, or the results source's name
    std::string originKind;  // "rules" (Steward's own) or "imported"
    std::string originLabel; // "Steward rules, pack steward-starter" / "state, file fall.csv, run 2026-11-20"
    std::string ruleId;
    std::string severity;
    std::string project;
    std::string resource;
    std::string docId; // empty: matched no document
    std::string naturalKey;
    std::string message;
    std::string schoolYear;
    std::string school;
    std::int64_t row = 0;     // imported: the row in the file
    std::string unmatched;    // imported and matched nothing: why
    bool changedSince = false; // imported: the document changed after the source's run
    bool acknowledged = false;
    std::string ackReason;
    std::string ackActor;
    std::string ackAt;

    Json toJson() const;
};

struct QualityResultFilter
{
    std::string origin;   // a pack id or source name; empty: all
    std::string kind;     // "rules", "imported"; empty: both
    std::string severity;
    std::string ruleId;
    std::string docId;
    // Imported results that matched a stored record, those that matched none, or both.
    enum class Records
    {
        All,
        Matched,
        Unmatched,
    };
    Records records = Records::All;
    int limit = 0;
};

// Most severe first; any connection (a read-only one too), in one read transaction.
std::vector<QualityResult> readQualityResults(SQLite::Database &db, const QualityResultFilter &filter = {});

struct ResultSource
{
    std::string name;
    std::string file;
    std::string runAt;
    std::string importedAt;
    std::string importedBy;
    std::int64_t rows = 0;
    std::int64_t matched = 0;
};
std::vector<ResultSource> resultSources(SQLite::Database &db);

// Acknowledging a result: only a warning (a fatal or error must be fixed; info never blocks).
// Refused with ResultsImportError naming why (no such result, its severity). origin empty: the one
// origin that has that rule for that document.
struct Acknowledgement
{
    std::string origin;
    std::string ruleId;
    std::string docId;
    std::string reason;
    std::string actor;
    std::string at;
};
Acknowledgement acknowledgeResult(Database &database, const std::string &origin, const std::string &ruleId,
                                  const std::string &docId, const std::string &reason, const std::string &actor);
// Returns whether there was one to take back.
bool unacknowledgeResult(Database &database, const std::string &origin, const std::string &ruleId,
                         const std::string &docId);
// The acknowledgements of results that are still there.
std::vector<Acknowledgement> acknowledgements(SQLite::Database &db);

} // namespace steward
