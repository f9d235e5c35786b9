#pragma once

#include "Engine.h"
#include "Json.h"

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace steward {

// What a rule says about itself, so a result reads by its title and advice, not its code.
struct RuleText
{
    std::string title;
    std::string fix;
};

// Every rule of the packs that have results here (the starter pack, imported packs), by pack id and
// rule id. Built once and kept while the results are the same; any connection.
class RuleCatalog
{
public:
    static RuleCatalog read(SQLite::Database &db, const Model &model);
    // Null when the pack or rule is unknown (an imported source's rules have no titles).
    const RuleText *find(const std::string &packId, const std::string &ruleId) const;

private:
    std::map<std::pair<std::string, std::string>, RuleText> m_rules;
};

// One thing known about a record: a validation problem, a rule's result, a state's result, a draft
// that waits to replace it, or a sync conflict over it.
struct RecordFact
{
    enum class Kind
    {
        Validation,
        Rule,
        Imported,
        Draft,
        Conflict,
    };
    Kind kind = Kind::Validation;
    std::string severity; // fatal | error | warning | info
    std::string code;     // the rule id, the problem type or the conflict kind
    std::string title;    // the rule's title, the problem type as a sentence
    std::string message;
    std::string fix;      // what to do
    std::string field;    // the JSON path the fact names, when it names one
    std::string source;   // "Steward rules, pack steward-starter", "state, file fall.csv, run 2026-11-20, row 12"
    std::string origin;   // the pack id or results source that acknowledgements are kept under
    bool acknowledged = false;
    std::string ackActor;
    std::string ackReason;
    std::string ackAt;
    bool changedSince = false; // a state's result on a record edited since the state ran
    std::int64_t draftId = 0;
    std::int64_t targetId = 0; // a conflict's sync target
    std::string targetUrl;

    Json toJson() const;
};

const char *recordFactKindName(RecordFact::Kind kind); // "validation", "rule", "imported", "draft", "conflict"
int severityRank(const std::string &severity);         // fatal 0, error 1, warning 2, info 3, else 4

// Everything the engine knows about one stored record, most severe first.
struct RecordFacts
{
    std::string id;
    bool stored = false;
    std::string project;
    std::string resource;
    std::string naturalKey;
    std::string etag;
    std::vector<RecordFact> facts;

    // The worst severity of the facts not acknowledged; empty when there are none.
    std::string worstSeverity() const;
    Json toJson() const;
};

struct RecordFactsOptions
{
    // Validate the stored body again (stage by stage, as a PUT of it would be): a model change or a
    // deleted reference target can leave a stored record that no longer passes.
    bool validateStored = true;
    const RuleCatalog *rules = nullptr; // none: read for this call
};

// One call for everything about a record: its validation problems, every pack's rule results, every
// source's results (with file and row), their acknowledgements, drafts that would replace it and
// open sync conflicts. A read of the engine's connection; an unknown id is stored = false.
RecordFacts readRecordFacts(Engine &engine, const std::string &id, const RecordFactsOptions &options = {});

// For a documents table: each record of the resource that has a fact not acknowledged, with the worst
// severity (rule and state results, drafts waiting on it, open conflicts). Any connection.
std::unordered_map<std::string, std::string> worstSeverityByRecord(SQLite::Database &db, const std::string &project,
                                                                   const std::string &resource);

} // namespace steward
