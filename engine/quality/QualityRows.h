#pragma once

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <string>
#include <vector>

namespace steward {

// One row of the data-quality view: a draft's problem at one field, a result of Steward's rules or
// of an imported source (the state's), or a sync conflict waiting for a decision.
struct QualityRow
{
    enum class Kind
    {
        Draft,
        Rule,
        Conflict,
        Imported,
    };
    Kind kind = Kind::Draft;
    std::string severity; // fatal | error | warning | info; a draft is fatal (it cannot be stored as it is)
    std::string project;
    std::string resource;
    std::string key;     // the document's natural key, or "draft 12"
    std::string docId;   // the document a rule flagged (or a draft's target); empty for a new draft
    std::int64_t draftId = 0;
    std::string cause;   // the rule id, or the problem's type ("urn:ed-fi:api:bad-request")
    std::string title;   // the cause as a steward reads it: the rule's title, the problem type as a sentence
    std::string field;   // the JSON path with array positions as [*]; empty when the problem names none
    std::string message;
    std::string source; // where the row comes from: "Steward", "Steward rules, pack …", "state, file …, run …"
    std::string origin; // results: the pack id or source name their acknowledgements are kept under
    std::string status; // "acknowledged by …: why", "changed since: resubmit to clear", "matches no record: why"
    bool acknowledged = false;
};

// Every draft (one row per field its problem names, or one row without a field), every result
// (Steward's rules' and imported ones, acknowledged or not) and every open sync conflict (fatal: it holds its document back from the push). Takes any connection: the app reads on a worker thread with a read-only one.
// rules: titles for Steward's rule results (without one, a rule reads by its id).
class RuleCatalog;
std::vector<QualityRow> readQualityRows(SQLite::Database &db, const RuleCatalog *rules = nullptr);

// "$.gradeLevels[0].gradeLevelDescriptor" -> "$.gradeLevels[*].gradeLevelDescriptor", so the same
// field of different array items counts as one value of the field facet.
std::string genericPath(const std::string &concretePath);

} // namespace steward
