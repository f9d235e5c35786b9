#pragma once

#include "ApiSchema.h"
#include "Database.h"
#include "Json.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace steward {

// A rule pack that cannot be used, or a rule that cannot be run: names the pack file and, when it
// is about one rule, that rule's id.
class RulePackError : public std::runtime_error
{
public:
    RulePackError(const std::string &file, const std::string &ruleId, const std::string &message);
    const std::string &file() const { return m_file; }
    const std::string &ruleId() const { return m_ruleId; }

private:
    std::string m_file;
    std::string m_ruleId;
};

struct Rule
{
    std::string id;       // stable: results are kept per rule id
    std::string severity; // "fatal", "error", "warning" or "info"
    std::string resource; // the resource whose documents the rule checks, e.g. "StudentSchoolAssociation"
    std::string title;
    std::string message;  // may name result columns in braces: "Exit date {exitWithdrawDate} ..."
    std::string fix;      // what to do about it
    std::vector<std::string> dependsOn; // other resources whose changes make the rule re-check everything
    // Where the rule applies; empty: every school year, every collection ("Fall enrollment").
    std::vector<int> schoolYears;
    std::vector<std::string> collections;
    std::string sql;      // one SELECT over the rule views returning at least an `id` column
    const ResourceSchema *schema = nullptr;
    std::vector<const ResourceSchema *> dependsOnSchemas;

    // Whether the rule applies to that school year (0: any) and collection (empty: any).
    bool appliesTo(int schoolYear, const std::string &collection) const;
};

struct RulePack
{
    std::string file; // where it came from, for errors
    std::string id;
    std::string title;
    std::string version;
    std::string publisher; // who issues it ("Grand Bend ISD", a state agency); may be empty
    std::string hash; // SHA-256 over the pack's content and the model: a different one re-checks everything
    std::string content; // the pack file as one canonical JSON text: what is stored and exported
    std::vector<Rule> rules;
};

// The rules of a pack that apply to a school year (0: any) and a collection (empty: any). Its hash
// names the scope, so a run in another scope checks everything again.
RulePack scopedRulePack(const RulePack &pack, int schoolYear, const std::string &collection);

// -1, 0 or 1: versions compared part by part ("1.10.0" after "1.9.2"; parts that are not numbers
// compare as text).
int compareVersions(const std::string &a, const std::string &b);

// What a newer version of a pack changed.
struct RulePackChange
{
    std::string ruleId;
    std::string kind; // "added", "removed", "severity" (from -> to) or "changed" (anything else)
    std::string from;
    std::string to;
};
std::vector<RulePackChange> diffRulePacks(const RulePack &older, const RulePack &newer);

struct StoredRulePack
{
    std::string id;
    std::string version;
    std::string title;
    std::string importedAt;
    std::string importedBy;
};

struct RulePackImport
{
    bool alreadyStored = false;       // the same id, version and content were there: nothing written
    std::string previousVersion;      // the newest version stored before, if any
    std::vector<RulePackChange> changes; // against previousVersion
};

// Stores a pack (every version is kept) in one BEGIN IMMEDIATE. Refuses (RulePackError) a version
// stored already with other content, and a rule id an earlier version used for another resource or
// retired: a rule id is never reused, so results and acknowledgements keep their meaning.
RulePackImport importRulePack(Database &database, const RulePack &pack, const std::string &actor, const Model &model);
// Every stored version, by pack id, oldest version first; any connection.
std::vector<StoredRulePack> storedRulePacks(SQLite::Database &db);
// A stored pack by id and version (empty: the newest stored); RulePackError when there is none.
RulePack loadStoredRulePack(SQLite::Database &db, const std::string &packId, const std::string &version,
                            const Model &model);
// The pack a name gives: an existing file, "starter" or the starter pack's id, or a stored pack
// ("id" for its newest version, "id@version" for one).
RulePack resolveRulePack(SQLite::Database *db, const std::string &name, const Model &model);

// Strict: an unknown or missing field, a bad severity, a duplicate rule id or a resource the
// model does not have is a RulePackError naming the file and the rule.
RulePack loadRulePack(const std::string &path, const Model &model);
RulePack parseRulePack(const std::string &file, const std::string &text, const Model &model);
// The starter pack compiled into the engine (resources/rules/starter-pack.json).
RulePack loadStarterRulePack(const Model &model);

struct RuleView
{
    const ResourceSchema *resource = nullptr;
    std::string name;                 // the endpoint name: "studentSchoolAssociations"
    std::vector<std::string> columns; // in order, after id and natural_key, before _body
    std::string selectList;           // the SQL select list the view is made of
};

// One read-only view per concrete resource of the model, generated from its JSON Schema.
std::vector<RuleView> ruleViews(const Model &model);

struct RuleRunOptions
{
    bool full = false; // check every document, not only those changed since the pack's last run
    // A rule running longer than this is stopped with a RulePackError naming it.
    std::chrono::milliseconds ruleTimeLimit = std::chrono::minutes(5);
    // Called between rules; returning false stops before anything is written.
    std::function<bool(int done, int total)> progress;
};

struct RuleResult
{
    std::string packId;
    std::string ruleId;
    std::string severity;
    std::string project;
    std::string resource;
    std::string docId;
    std::string naturalKey;
    std::string message;
    std::string foundAt;

    Json toJson() const;
};

struct RuleRunStats
{
    std::string ruleId;
    std::string mode; // "full", "changed" (only changed documents of its resource) or "skipped"
    std::int64_t checked = 0;
    std::int64_t failing = 0;
    double milliseconds = 0;
};

struct RuleRunReport
{
    std::string packId;
    bool fullRun = false;         // every rule checked every document (first run, changed pack, --full)
    std::int64_t seqFrom = 0;     // the change log after this position was considered
    std::int64_t seqTo = 0;       // up to this one
    std::int64_t documentsChecked = 0; // distinct documents at least one rule checked
    int rulesRun = 0;
    std::int64_t added = 0;
    std::int64_t removed = 0;
    std::int64_t kept = 0; // results of checked documents that were there before and still are
    bool cancelled = false;
    std::vector<RuleRunStats> rules;
    std::map<std::string, std::int64_t> totalsBySeverity; // the pack's results after the run

    Json toJson() const;
};

// Runs the pack: rule SQL on a read-only connection of its own (with an authorizer that allows
// only reads through the rule views), then the results in one BEGIN IMMEDIATE on `database`.
RuleRunReport runRules(const RulePack &pack, const Model &model, Database &database,
                       const RuleRunOptions &options = {});

struct RuleResultFilter
{
    std::string packId;
    std::string severity;
    std::string ruleId;
    int limit = 0; // 0: all
};

// Stored results, most severe first; any connection (a read-only one too).
std::vector<RuleResult> readRuleResults(SQLite::Database &db, const RuleResultFilter &filter = {});

} // namespace steward
