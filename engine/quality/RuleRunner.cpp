// Running a rule pack: each rule's SQL on a read connection of its own, sandboxed (an authorizer
// that allows reading only, a progress handler that stops a rule taking too long), over the whole
// resource or only what changed since the pack's last run; then the results stored rule by rule.
#include "Rules.h"
#include "RuleText.h"

#include "Clock.h"
#include "Text.h"

#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <set>

namespace steward {

namespace {

// The temp table an incremental run fills with the changed documents of one resource.
const char *const kScopeTable = "steward_rule_scope";
// The change log since the pack's last run, one row per document (its last operation).
const char *const kChangesTable = "steward_rule_changes";
// Per rule run over the changed documents: the documents it judged.
const char *const kCheckedTable = "steward_rule_checked";
// Per rule: the failing documents, their natural keys and messages, until writeResults stores them.
const char *const kFoundTable = "steward_rule_found";

const char *actionName(int action)
{
    switch (action) {
    case SQLITE_CREATE_INDEX: return "CREATE INDEX";
    case SQLITE_CREATE_TABLE: return "CREATE TABLE";
    case SQLITE_CREATE_TEMP_INDEX: return "CREATE TEMP INDEX";
    case SQLITE_CREATE_TEMP_TABLE: return "CREATE TEMP TABLE";
    case SQLITE_CREATE_TEMP_TRIGGER: return "CREATE TEMP TRIGGER";
    case SQLITE_CREATE_TEMP_VIEW: return "CREATE TEMP VIEW";
    case SQLITE_CREATE_TRIGGER: return "CREATE TRIGGER";
    case SQLITE_CREATE_VIEW: return "CREATE VIEW";
    case SQLITE_DELETE: return "DELETE";
    case SQLITE_DROP_INDEX: return "DROP INDEX";
    case SQLITE_DROP_TABLE: return "DROP TABLE";
    case SQLITE_DROP_TEMP_INDEX: return "DROP TEMP INDEX";
    case SQLITE_DROP_TEMP_TABLE: return "DROP TEMP TABLE";
    case SQLITE_DROP_TEMP_TRIGGER: return "DROP TEMP TRIGGER";
    case SQLITE_DROP_TEMP_VIEW: return "DROP TEMP VIEW";
    case SQLITE_DROP_TRIGGER: return "DROP TRIGGER";
    case SQLITE_DROP_VIEW: return "DROP VIEW";
    case SQLITE_INSERT: return "INSERT";
    case SQLITE_PRAGMA: return "PRAGMA";
    case SQLITE_READ: return "READ";
    case SQLITE_SELECT: return "SELECT";
    case SQLITE_TRANSACTION: return "TRANSACTION";
    case SQLITE_UPDATE: return "UPDATE";
    case SQLITE_ATTACH: return "ATTACH";
    case SQLITE_DETACH: return "DETACH";
    case SQLITE_ALTER_TABLE: return "ALTER TABLE";
    case SQLITE_REINDEX: return "REINDEX";
    case SQLITE_ANALYZE: return "ANALYZE";
    case SQLITE_CREATE_VTABLE: return "CREATE VIRTUAL TABLE";
    case SQLITE_DROP_VTABLE: return "DROP VIRTUAL TABLE";
    case SQLITE_FUNCTION: return "FUNCTION";
    case SQLITE_SAVEPOINT: return "SAVEPOINT";
    case SQLITE_RECURSIVE: return "RECURSIVE";
    default: return "an action rules may not take";
    }
}

// What the authorizer and the progress handler of the rule connection know about the rule at hand.
struct Guard
{
    std::set<std::string> views;     // lower-cased names of the rule views
    std::set<std::string> viewsRead; // those the statement being prepared reads
    std::string refusal;             // the first thing refused, for the error
    std::chrono::steady_clock::time_point deadline;
    bool timedOut = false;
    // The caller's progress callback, asked inside long rules too so Cancel does not wait for one.
    const std::function<bool(int, int)> *progress = nullptr;
    int done = 0;
    int total = 0;
    bool cancelled = false;
    // The runner's own statement (not the rule's) is being stepped: setting the authorizer expired
    // it, so SQLite prepares it again here, and it must not be judged as rule SQL.
    bool runnerStatement = false;
};

// Thrown out of a rule that was stopped by the caller; the run ends with nothing written.
struct RunCancelled
{
};

int authorizeRule(void *context, int action, const char *a, const char *b, const char *database, const char *view)
{
    Guard &guard = *static_cast<Guard *>(context);
    if (guard.runnerStatement)
        return SQLITE_OK;
    auto refuse = [&](const std::string &what) {
        if (guard.refusal.empty())
            guard.refusal = what;
        return SQLITE_DENY;
    };
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_RECURSIVE:
        return SQLITE_OK;
    case SQLITE_FUNCTION: {
        const std::string name = toLower(b ? b : "");
        if (name == "load_extension" || name == "readfile" || name == "writefile" || name == "edit"
            || name == "fts3_tokenizer")
            return refuse("the function " + name + "()");
        return SQLITE_OK;
    }
    case SQLITE_READ: {
        // Base tables only through a rule view: SQLite names the view in the last argument.
        if (view && guard.views.count(toLower(view)) > 0) {
            guard.viewsRead.insert(toLower(view));
            return SQLITE_OK;
        }
        const std::string table = a ? a : "";
        // The view's own columns, as the outer query names them.
        if (database && std::string(database) == "temp" && guard.views.count(toLower(table)) > 0) {
            guard.viewsRead.insert(toLower(table));
            return SQLITE_OK;
        }
        // json_each / json_tree over _body are table-valued functions, not stored data.
        if (table == "json_each" || table == "json_tree")
            return SQLITE_OK;
        // steward_text() reads the dictionary a compressed _body was made with (BodyCodec); those
        // bytes come from the documents the views show anyway.
        if (table == "body_dictionaries" && (database == nullptr || std::string(database) == "main"))
            return SQLITE_OK;
        // Through a view of the database's own (documents, aliases, changes): the name the rule used.
        return refuse("reading " + std::string(database ? database : "main") + "." + (view ? view : table)
                      + " directly (rules read only the rule views)");
    }
    default: {
        std::string what = actionName(action);
        if (a)
            what += std::string(" ") + a;
        return refuse(what + " (rules may only read)");
    }
    }
}

int progressCheck(void *context)
{
    Guard &guard = *static_cast<Guard *>(context);
    if (std::chrono::steady_clock::now() > guard.deadline) {
        guard.timedOut = true;
        return 1;
    }
    if (guard.progress && *guard.progress && !(*guard.progress)(guard.done, guard.total)) {
        guard.cancelled = true;
        return 1;
    }
    return 0;
}

// Marks the runner's own statements stepped between rows of a rule; see Guard::runnerStatement.
class RunnerStatementScope
{
public:
    explicit RunnerStatementScope(Guard &guard)
        : m_guard(guard)
    {
        m_guard.runnerStatement = true;
    }
    ~RunnerStatementScope() { m_guard.runnerStatement = false; }
    RunnerStatementScope(const RunnerStatementScope &) = delete;
    RunnerStatementScope &operator=(const RunnerStatementScope &) = delete;

private:
    Guard &m_guard;
};

// The authorizer and progress handler are on only while a rule's own statement is prepared or
// stepped; the runner's own statements (views, scope table, lookups) run without them.
class GuardScope
{
public:
    GuardScope(sqlite3 *db, Guard &guard, std::chrono::milliseconds limit)
        : m_db(db)
    {
        guard.refusal.clear();
        guard.timedOut = false;
        guard.cancelled = false;
        guard.deadline = std::chrono::steady_clock::now() + limit;
        sqlite3_set_authorizer(m_db, authorizeRule, &guard);
        sqlite3_progress_handler(m_db, 20000, progressCheck, &guard);
    }
    ~GuardScope()
    {
        sqlite3_set_authorizer(m_db, nullptr, nullptr);
        sqlite3_progress_handler(m_db, 0, nullptr, nullptr);
    }
    GuardScope(const GuardScope &) = delete;
    GuardScope &operator=(const GuardScope &) = delete;

private:
    sqlite3 *m_db;
};

// What one rule did in this run. The documents it judged and the ones that failed are not held
// here but in the reader's TEMP tables (a file, not memory), so a run costs the same memory at a
// million documents as at a thousand.
struct RuleOutcome
{
    const Rule *rule = nullptr;
    std::string mode;
    std::int64_t checked = 0;
    std::int64_t failing = 0;
};

// A rule's message with each {name} replaced by that column of the failing row.
std::string filledMessage(const std::string &message, const std::vector<std::string> &names,
                          std::map<std::string, std::string> &row)
{
    std::string filled = message;
    for (const std::string &name : names) {
        const std::string token = "{" + name + "}";
        const std::size_t at = filled.find(token);
        if (at != std::string::npos)
            filled.replace(at, token.size(), row[name]);
    }
    return filled;
}

class RuleRunner
{
public:
    RuleRunner(const RulePack &pack, const Model &model, Database &database, const RuleRunOptions &options)
        : m_pack(pack)
        , m_model(model)
        , m_database(database)
        , m_options(options)
    {
    }

    RuleRunReport run();

private:
    void createViews();
    void setViewScope(const RuleView &view, bool filtered);
    const RuleView &viewOf(const ResourceSchema *resource) const;
    sqlite3_stmt *prepareRule(const Rule &rule);
    void runRule(RuleOutcome &outcome, bool filtered);
    void judgeInThisRun(RuleOutcome &outcome, bool filtered);
    void throwWhyItStopped(const Rule &rule, const RuleView &view, int rc, const std::string &strayId,
                           const std::string &error) const;
    void readRunWindow(RuleRunReport &report);
    std::set<std::pair<std::string, std::string>> foldChanges(const RuleRunReport &report);
    std::string modeOf(const Rule &rule, const RuleRunReport &report,
                       const std::set<std::pair<std::string, std::string>> &touchedResources,
                       SQLite::Statement &hasChanged);
    std::int64_t documentCount(const ResourceSchema *resource);
    void writeResults(const std::vector<RuleOutcome> &outcomes, RuleRunReport &report);
    void removeResultsOfRulesGone(RuleRunReport &report);
    void removeResultsOfDeletedDocuments(RuleRunReport &report);
    void replaceResults(const std::vector<RuleOutcome> &outcomes, RuleRunReport &report, const std::string &now);
    void recordRun(RuleRunReport &report, const std::string &now);

    const RulePack &m_pack;
    const Model &m_model;
    Database &m_database;
    RuleRunOptions m_options;
    std::unique_ptr<Database> m_reader;
    std::vector<RuleView> m_views;
    std::map<std::string, const ResourceSchema *> m_resourceOfView;  // lower-cased view name → resource
    std::map<std::string, std::set<const ResourceSchema *>> m_reads; // rule id → the resources its SQL reads
    Guard m_guard;
    std::map<const ResourceSchema *, std::int64_t> m_documentCount;  // per resource, counted once per run
    // For the report's distinct documents checked: resources a rule checked in full, and the number
    // of changed documents of those only checked in part.
    std::set<const ResourceSchema *> m_checkedInFull;
    std::map<const ResourceSchema *, std::int64_t> m_checkedChanged;
};

const RuleView &RuleRunner::viewOf(const ResourceSchema *resource) const
{
    for (const RuleView &view : m_views)
        if (view.resource == resource)
            return view;
    throw RulePackError(m_pack.file, "", "no rule view for " + resource->resourceName);
}

void RuleRunner::createViews()
{
    SQLite::Database &db = m_reader->connection();
    // Transient tables (materialized CTEs, the indexes of IN (SELECT …), sorts) and the run's own
    // TEMP tables spill to a temporary file past a small cache instead of growing with the data
    // (an IN (SELECT …) over every StudentSectionAssociation is tens of MB at a million documents);
    // the file stays in the OS cache, and bench_rules measured no slowdown. The page cache stays
    // SQLite's default 2 MB: 16 MB measured no faster (bench_rules, 210k documents) and cost 20 MB.
    db.exec("PRAGMA temp_store=FILE");
    db.exec(std::string("CREATE TEMP TABLE ") + kScopeTable + " (doc_id TEXT PRIMARY KEY) WITHOUT ROWID");
    // The change log folded per document (its last operation), the documents a rule run on the
    // changed ones judged, and the failing documents with their messages until they are written.
    db.exec(std::string("CREATE TEMP TABLE ") + kChangesTable
            + " (doc_id TEXT PRIMARY KEY, project TEXT NOT NULL, resource TEXT NOT NULL, deleted INTEGER NOT NULL)"
              " WITHOUT ROWID");
    db.exec(std::string("CREATE TEMP TABLE ") + kCheckedTable
            + " (rule_id TEXT NOT NULL, doc_id TEXT NOT NULL, PRIMARY KEY (rule_id, doc_id)) WITHOUT ROWID");
    db.exec(std::string("CREATE TEMP TABLE ") + kFoundTable
            + " (rule_id TEXT NOT NULL, doc_id TEXT NOT NULL, natural_key TEXT NOT NULL, message TEXT NOT NULL,"
              " PRIMARY KEY (rule_id, doc_id)) WITHOUT ROWID");
    m_views = ruleViews(m_model);
    for (const RuleView &view : m_views) {
        setViewScope(view, false);
        m_guard.views.insert(toLower(view.name));
        m_resourceOfView[toLower(view.name)] = view.resource;
    }
}

// The unfiltered view reads every document of the resource; the filtered one only those in the
// scope table (the changed ones), driven from the scope table so it costs what changed, not the resource.
void RuleRunner::setViewScope(const RuleView &view, bool filtered)
{
    SQLite::Database &db = m_reader->connection();
    // The rows themselves, not the documents view: the authorizer lets a rule read a table only
    // through a rule view, and SQLite names the innermost view.
    const std::string where = "d.resource_key = (SELECT resource_key FROM main.resources WHERE project = "
                              + sqlText(view.resource->projectName())
                              + " AND resource = " + sqlText(view.resource->resourceName) + ")";
    const std::string from = filtered ? std::string("temp.") + kScopeTable
                                            + " AS s CROSS JOIN main.document_rows AS d ON d.id = steward_id_key(s.doc_id)"
                                      : std::string("main.document_rows AS d");
    db.exec("DROP VIEW IF EXISTS temp." + sqlName(view.name));
    db.exec("CREATE TEMP VIEW " + sqlName(view.name) + " AS SELECT " + view.selectList + " FROM " + from + " WHERE "
            + where);
}

sqlite3_stmt *RuleRunner::prepareRule(const Rule &rule)
{
    sqlite3 *db = m_reader->connection().getHandle();
    sqlite3_stmt *statement = nullptr;
    const char *tail = nullptr;
    int rc = SQLITE_OK;
    {
        GuardScope guard(db, m_guard, m_options.ruleTimeLimit);
        m_guard.viewsRead.clear();
        rc = sqlite3_prepare_v2(db, rule.sql.c_str(), static_cast<int>(rule.sql.size()), &statement, &tail);
        // What the authorizer saw the statement read: its resources are implied dependencies.
        std::set<const ResourceSchema *> &reads = m_reads[rule.id];
        for (const std::string &name : m_guard.viewsRead)
            reads.insert(m_resourceOfView.at(name));
    }
    if (rc != SQLITE_OK) {
        const std::string error = sqlite3_errmsg(db);
        sqlite3_finalize(statement);
        if (!m_guard.refusal.empty())
            throw RulePackError(m_pack.file, rule.id, "refused: " + m_guard.refusal);
        throw RulePackError(m_pack.file, rule.id, "invalid SQL: " + error);
    }
    if (!statement)
        throw RulePackError(m_pack.file, rule.id, "the SQL holds no statement");
    // A second statement after the first would otherwise be silently ignored; preparing it runs nothing.
    const std::string rest = tail ? std::string(tail) : std::string();
    if (rest.find_first_not_of(" \t\r\n;") != std::string::npos) {
        sqlite3_stmt *second = nullptr;
        const int secondRc = sqlite3_prepare_v2(db, rest.c_str(), static_cast<int>(rest.size()), &second, nullptr);
        sqlite3_finalize(second);
        if (secondRc != SQLITE_OK || second) {
            sqlite3_finalize(statement);
            throw RulePackError(m_pack.file, rule.id, "the SQL holds more than one statement; a rule is one SELECT");
        }
    }
    if (!sqlite3_stmt_readonly(statement)) {
        sqlite3_finalize(statement);
        throw RulePackError(m_pack.file, rule.id, "refused: the statement would write (rules may only read)");
    }
    bool hasId = false;
    std::set<std::string> columns;
    for (int i = 0; i < sqlite3_column_count(statement); ++i) {
        const std::string name = sqlite3_column_name(statement, i);
        columns.insert(name);
        hasId = hasId || name == "id";
    }
    if (!hasId) {
        sqlite3_finalize(statement);
        throw RulePackError(m_pack.file, rule.id, "the SELECT must return an \"id\" column (the failing document)");
    }
    for (const std::string &name : placeholders(rule.message)) {
        if (columns.count(name) == 0) {
            sqlite3_finalize(statement);
            throw RulePackError(m_pack.file, rule.id,
                                "the message names {" + name + "}, which the SELECT does not return");
        }
    }
    return statement;
}

std::int64_t RuleRunner::documentCount(const ResourceSchema *resource)
{
    auto it = m_documentCount.find(resource);
    if (it != m_documentCount.end())
        return it->second;
    SQLite::Statement count(m_reader->connection(),
                            "SELECT count(*) FROM main.documents WHERE project = ? AND resource = ?");
    count.bind(1, resource->projectName());
    count.bind(2, resource->resourceName);
    count.executeStep();
    return m_documentCount[resource] = count.getColumn(0).getInt64();
}

// What this run of a rule judges: every document of the resource, or the changed ones still there
// (the scope table, which the filtered view is driven from, and the checked table for writeResults).
void RuleRunner::judgeInThisRun(RuleOutcome &outcome, bool filtered)
{
    const Rule &rule = *outcome.rule;
    SQLite::Database &db = m_reader->connection();
    const std::string project = rule.schema->projectName();
    const std::string resource = rule.schema->resourceName;
    if (filtered) {
        db.exec(std::string("DELETE FROM temp.") + kScopeTable);
        SQLite::Statement scope(db, std::string("INSERT INTO temp.") + kScopeTable + " SELECT doc_id FROM temp."
                                        + kChangesTable + " WHERE deleted = 0 AND project = ? AND resource = ?");
        scope.bind(1, project);
        scope.bind(2, resource);
        scope.exec();
        SQLite::Statement checked(db, std::string("INSERT INTO temp.") + kCheckedTable + " SELECT ?, d.id FROM temp."
                                          + kScopeTable
                                          + " AS s CROSS JOIN main.documents AS d ON d.id_key = steward_id_key(s.doc_id)"
                                            " WHERE d.project = ? AND d.resource = ?");
        checked.bind(1, rule.id);
        checked.bind(2, project);
        checked.bind(3, resource);
        outcome.checked = checked.exec();
        m_checkedChanged[rule.schema] = outcome.checked;
        setViewScope(viewOf(rule.schema), true);
    } else {
        outcome.checked = documentCount(rule.schema);
        m_checkedInFull.insert(rule.schema);
    }

}

// Why a rule's statement stopped before its last row, if not for that: thrown.
void RuleRunner::throwWhyItStopped(const Rule &rule, const RuleView &view, int rc, const std::string &strayId,
                                   const std::string &error) const
{
    if (!strayId.empty())
        throw RulePackError(m_pack.file, rule.id,
                            "returned id \"" + strayId + "\", which is not a " + rule.resource
                                + " the rule was checking (the SELECT must return ids from the "
                                + view.name + " view)");
    if (m_guard.cancelled)
        throw RunCancelled();
    if (m_guard.timedOut)
        throw RulePackError(m_pack.file, rule.id,
                            "stopped after " + std::to_string(m_options.ruleTimeLimit.count())
                                + " ms; the rule runs too long");
    if (rc != SQLITE_DONE) {
        if (!m_guard.refusal.empty())
            throw RulePackError(m_pack.file, rule.id, "refused: " + m_guard.refusal);
        throw RulePackError(m_pack.file, rule.id, "failed while running: " + error);
    }
}

void RuleRunner::runRule(RuleOutcome &outcome, bool filtered)
{
    const Rule &rule = *outcome.rule;
    SQLite::Database &db = m_reader->connection();
    const RuleView &view = viewOf(rule.schema);
    const std::string project = rule.schema->projectName();
    const std::string resource = rule.schema->resourceName;

    judgeInThisRun(outcome, filtered);

    sqlite3 *handle = db.getHandle();
    sqlite3_stmt *statement = prepareRule(rule);
    std::vector<std::string> names;
    for (int i = 0; i < sqlite3_column_count(statement); ++i)
        names.emplace_back(sqlite3_column_name(statement, i));
    const std::vector<std::string> messageNames = placeholders(rule.message);
    int rc = SQLITE_OK;
    std::string strayId;
    std::string error;
    std::exception_ptr failure;
    {
        // Prepared after the view's scope is set (a schema change would re-prepare them inside the
        // guard, whose authorizer refuses them): whether a returned id is one the rule judged (and its
        // natural key), and the failing document kept for writeResults.
        SQLite::Statement judged(db, filtered ? std::string("SELECT d.natural_key FROM temp.") + kScopeTable
                                                    + " AS s CROSS JOIN main.documents AS d"
                                                      " ON d.id_key = steward_id_key(s.doc_id)"
                                                      " WHERE s.doc_id = ? AND d.project = ? AND d.resource = ?"
                                              : std::string("SELECT natural_key FROM main.documents"
                                                            " WHERE id_key = steward_id_key(?)"
                                                            " AND project = ? AND resource = ?"));
        judged.bind(2, project);
        judged.bind(3, resource);
        // A join may name a document twice; one result per document and rule, the first row's.
        SQLite::Statement keep(db, std::string("INSERT OR IGNORE INTO temp.") + kFoundTable + " VALUES (?, ?, ?, ?)");
        keep.bind(1, rule.id);

        GuardScope guard(handle, m_guard, m_options.ruleTimeLimit);
        std::map<std::string, std::string> row;
        while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
            row.clear();
            for (int i = 0; i < static_cast<int>(names.size()); ++i) {
                const unsigned char *text = sqlite3_column_text(statement, i);
                row[names[i]] = text ? reinterpret_cast<const char *>(text) : "";
            }
            const std::string &id = row["id"];
            RunnerStatementScope runnerStatement(m_guard);
            try {
                judged.bind(1, id);
                if (!judged.executeStep()) {
                    strayId = id;
                    break;
                }
                const std::string naturalKey = judged.getColumn(0).getString();
                judged.reset();
                const std::string message = filledMessage(rule.message, messageNames, row);
                keep.bind(2, id);
                keep.bind(3, naturalKey);
                keep.bind(4, message);
                outcome.failing += keep.exec();
                keep.reset();
            } catch (const SQLite::Exception &) {
                // The progress handler may stop these statements too; the guard's flags say why.
                if (!m_guard.timedOut && !m_guard.cancelled)
                    failure = std::current_exception();
                break;
            }
        }
        error = sqlite3_errmsg(handle);
    }
    sqlite3_finalize(statement);
    if (filtered)
        setViewScope(view, false);
    if (failure)
        std::rethrow_exception(failure);
    throwWhyItStopped(rule, view, rc, strayId, error);
}

// Where the last run of this pack ended, where this one ends, and whether it runs in full (asked,
// never run, or the pack changed since).
void RuleRunner::readRunWindow(RuleRunReport &report)
{
    SQLite::Database &db = m_reader->connection();
    std::string previousHash;
    bool hasPrevious = false;
    SQLite::Statement previous(db, "SELECT pack_hash, seq_to FROM main.rule_runs WHERE pack_id = ?");
    previous.bind(1, m_pack.id);
    if (previous.executeStep()) {
        hasPrevious = true;
        previousHash = previous.getColumn(0).getString();
        report.seqFrom = previous.getColumn(1).getInt64();
    }
    report.seqTo = db.execAndGet("SELECT coalesce(max(seq), 0) FROM main.changes").getInt64();
    report.fullRun = m_options.full || !hasPrevious || previousHash != m_pack.hash;
    if (report.fullRun)
        report.seqFrom = 0;
}

// The change log of the window folded per document into the changes table: its last operation
// decides whether it is still there (SQLite takes the bare columns from the row of max(seq)).
// Returns the resources that changed.
std::set<std::pair<std::string, std::string>> RuleRunner::foldChanges(const RuleRunReport &report)
{
    std::set<std::pair<std::string, std::string>> touchedResources;
    if (report.fullRun)
        return touchedResources;
    SQLite::Database &db = m_reader->connection();
    SQLite::Statement fold(db, std::string("INSERT INTO temp.") + kChangesTable
                                   + " SELECT id, project, resource, deleted FROM (SELECT id, project, resource,"
                                     " op = 'delete' AS deleted, max(seq) FROM main.changes"
                                     " WHERE seq > ? AND seq <= ? GROUP BY id_key)");
    fold.bind(1, static_cast<std::int64_t>(report.seqFrom));
    fold.bind(2, static_cast<std::int64_t>(report.seqTo));
    fold.exec();
    SQLite::Statement touched(db, "SELECT DISTINCT project, resource FROM main.changes WHERE seq > ? AND seq <= ?");
    touched.bind(1, static_cast<std::int64_t>(report.seqFrom));
    touched.bind(2, static_cast<std::int64_t>(report.seqTo));
    while (touched.executeStep())
        touchedResources.insert({touched.getColumn(0).getString(), touched.getColumn(1).getString()});
    return touchedResources;
}

// How a rule runs: "full" (a full run, or something it depends on changed), "changed" (only its
// resource's changed documents) or "skipped" (nothing it reads changed).
std::string RuleRunner::modeOf(const Rule &rule, const RuleRunReport &report,
                               const std::set<std::pair<std::string, std::string>> &touchedResources,
                               SQLite::Statement &hasChanged)
{
    // Declared dependencies, and every other resource the SQL reads (seen by the authorizer): a
    // change there can change the outcome for documents of the rule's resource that did not change.
    std::set<const ResourceSchema *> dependencies(rule.dependsOnSchemas.begin(), rule.dependsOnSchemas.end());
    for (const ResourceSchema *read : m_reads[rule.id])
        if (read != rule.schema)
            dependencies.insert(read);
    bool dependencyChanged = false;
    for (const ResourceSchema *dependency : dependencies)
        dependencyChanged = dependencyChanged
                            || touchedResources.count({dependency->projectName(), dependency->resourceName});
    if (report.fullRun || dependencyChanged)
        return "full";
    hasChanged.bind(1, rule.schema->projectName());
    hasChanged.bind(2, rule.schema->resourceName);
    hasChanged.executeStep();
    const bool ownChanged = hasChanged.getColumn(0).getInt() != 0;
    hasChanged.reset();
    return ownChanged ? "changed" : "skipped";
}

RuleRunReport RuleRunner::run()
{
    RuleRunReport report;
    report.packId = m_pack.id;
    m_reader = Database::open(m_database.path(), Database::Access::ReadOnly);
    createViews();
    SQLite::Database &db = m_reader->connection();

    std::vector<RuleOutcome> outcomes;
    {
        // One snapshot for the change log position and every rule.
        DeferredTransaction snapshot(db);

        readRunWindow(report);
        // Resources with a change in the window (none for a full run).
        const std::set<std::pair<std::string, std::string>> touchedResources = foldChanges(report);
        SQLite::Statement hasChanged(db, std::string("SELECT EXISTS (SELECT 1 FROM temp.") + kChangesTable
                                             + " WHERE deleted = 0 AND project = ? AND resource = ?)");

        // Every rule is prepared once before any runs, so a broken rule fails the run before it starts.
        for (const Rule &rule : m_pack.rules)
            sqlite3_finalize(prepareRule(rule));

        const int total = static_cast<int>(m_pack.rules.size());
        int done = 0;
        for (const Rule &rule : m_pack.rules) {
            if (m_options.progress && !m_options.progress(done, total)) {
                report.cancelled = true;
                return report;
            }
            m_guard.progress = &m_options.progress;
            m_guard.done = done;
            m_guard.total = total;
            ++done;
            RuleOutcome outcome;
            outcome.rule = &rule;
            outcome.mode = modeOf(rule, report, touchedResources, hasChanged);

            RuleRunStats stats;
            stats.ruleId = rule.id;
            stats.mode = outcome.mode;
            if (outcome.mode != "skipped") {
                const auto started = std::chrono::steady_clock::now();
                try {
                    runRule(outcome, outcome.mode == "changed");
                } catch (const RunCancelled &) {
                    report.cancelled = true;
                    return report;
                }
                stats.milliseconds =
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
                stats.checked = outcome.checked;
                stats.failing = outcome.failing;
                ++report.rulesRun;
            }
            report.rules.push_back(stats);
            outcomes.push_back(std::move(outcome));
        }
        if (m_options.progress && !m_options.progress(total, total)) {
            report.cancelled = true;
            return report;
        }
    }
    // Distinct documents: all of a resource some rule checked in full, else its changed ones.
    for (const ResourceSchema *resource : m_checkedInFull)
        report.documentsChecked += documentCount(resource);
    for (const auto &[resource, changed] : m_checkedChanged)
        if (m_checkedInFull.count(resource) == 0)
            report.documentsChecked += changed;
    writeResults(outcomes, report);
    return report;
}

// Rules that left the pack leave their results behind otherwise.
void RuleRunner::removeResultsOfRulesGone(RuleRunReport &report)
{
    SQLite::Database &db = m_database.connection();
    std::set<std::string> ruleIds;
    for (const Rule &rule : m_pack.rules)
        ruleIds.insert(rule.id);
    SQLite::Statement stale(db, "SELECT DISTINCT rule_id FROM rule_results WHERE pack_id = ?");
    stale.bind(1, m_pack.id);
    std::vector<std::string> gone;
    while (stale.executeStep())
        if (ruleIds.count(stale.getColumn(0).getString()) == 0)
            gone.push_back(stale.getColumn(0).getString());
    SQLite::Statement remove(db, "DELETE FROM rule_results WHERE pack_id = ? AND rule_id = ?");
    for (const std::string &ruleId : gone) {
        remove.bind(1, m_pack.id);
        remove.bind(2, ruleId);
        report.removed += remove.exec();
        remove.reset();
    }
}

void RuleRunner::removeResultsOfDeletedDocuments(RuleRunReport &report)
{
    SQLite::Database &db = m_database.connection();
    SQLite::Database &reader = m_reader->connection();
    SQLite::Statement deleted(reader, std::string("SELECT doc_id FROM temp.") + kChangesTable + " WHERE deleted = 1");
    SQLite::Statement remove(db, "DELETE FROM rule_results WHERE pack_id = ? AND doc_id = ?");
    while (deleted.executeStep()) {
        remove.bind(1, m_pack.id);
        remove.bind(2, deleted.getColumn(0).getString());
        report.removed += remove.exec();
        remove.reset();
    }
}

// Each rule's results replaced by what it found now, streamed from the reader's TEMP tables.
void RuleRunner::replaceResults(const std::vector<RuleOutcome> &outcomes, RuleRunReport &report, const std::string &now)
{
    SQLite::Database &db = m_database.connection();
    SQLite::Database &reader = m_reader->connection();
    // Stored results of the rule no longer found: in a full run all of them, in a run over the
    // changed documents only those of the documents it checked. (A document deleted since the
    // rules' snapshot may already be gone; its DELETE then counts nothing.)
    SQLite::Statement goneFull(reader, std::string("SELECT r.doc_id FROM main.rule_results AS r"
                                                   " WHERE r.pack_id = ?1 AND r.rule_id = ?2 AND NOT EXISTS"
                                                   " (SELECT 1 FROM temp.")
                                           + kFoundTable + " AS f WHERE f.rule_id = ?2 AND f.doc_id = r.doc_id)");
    SQLite::Statement goneChanged(reader, std::string("SELECT c.doc_id FROM temp.") + kCheckedTable
                                              + " AS c WHERE c.rule_id = ?2"
                                                " AND EXISTS (SELECT 1 FROM main.rule_results AS r WHERE r.pack_id = ?1"
                                                " AND r.rule_id = ?2 AND r.doc_id = c.doc_id)"
                                                " AND NOT EXISTS (SELECT 1 FROM temp."
                                              + kFoundTable + " AS f WHERE f.rule_id = ?2 AND f.doc_id = c.doc_id)");
    // With the stored result beside it: one found again unchanged is not written at all (rewriting
    // every standing result each day made the run grow with the district's open findings).
    SQLite::Statement found(reader, std::string("SELECT f.doc_id, f.natural_key, f.message, r.message, r.severity FROM temp.")
                                        + kFoundTable
                                        + " AS f LEFT JOIN main.rule_results AS r ON r.pack_id = ?1"
                                          " AND r.rule_id = f.rule_id AND r.doc_id = f.doc_id WHERE f.rule_id = ?2");
    SQLite::Statement remove(db, "DELETE FROM rule_results WHERE pack_id = ? AND rule_id = ? AND doc_id = ?");
    SQLite::Statement update(db, "UPDATE rule_results SET message = ?, severity = ?"
                                 " WHERE pack_id = ? AND rule_id = ? AND doc_id = ?");
    // A document deleted after the rules' snapshot gets no result (the next run would remove it anyway).
    SQLite::Statement insert(db, "INSERT INTO rule_results (pack_id, rule_id, severity, project, resource, doc_id,"
                                 " natural_key, message, found_at)"
                                 " SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?"
                                 " WHERE EXISTS (SELECT 1 FROM document_rows WHERE id = steward_id_key(?))");
    for (const RuleOutcome &outcome : outcomes) {
        if (outcome.mode == "skipped")
            continue;
        const Rule &rule = *outcome.rule;
        SQLite::Statement &gone = outcome.mode == "full" ? goneFull : goneChanged;
        gone.bind(1, m_pack.id);
        gone.bind(2, rule.id);
        while (gone.executeStep()) {
            remove.bind(1, m_pack.id);
            remove.bind(2, rule.id);
            remove.bind(3, gone.getColumn(0).getString());
            report.removed += remove.exec();
            remove.reset();
        }
        gone.reset();

        found.bind(1, m_pack.id);
        found.bind(2, rule.id);
        while (found.executeStep()) {
            const std::string id = found.getColumn(0).getString();
            const std::string message = found.getColumn(2).getString();
            if (!found.getColumn(3).isNull()) {
                ++report.kept;
                // The message may quote values that changed; found_at stays when it was first found.
                if (found.getColumn(3).getString() != message || found.getColumn(4).getString() != rule.severity) {
                    update.bind(1, message);
                    update.bind(2, rule.severity);
                    update.bind(3, m_pack.id);
                    update.bind(4, rule.id);
                    update.bind(5, id);
                    update.exec();
                    update.reset();
                }
                continue;
            }
            insert.bind(1, m_pack.id);
            insert.bind(2, rule.id);
            insert.bind(3, rule.severity);
            insert.bind(4, rule.schema->projectName());
            insert.bind(5, rule.schema->resourceName);
            insert.bind(6, id);
            insert.bind(7, found.getColumn(1).getString());
            insert.bind(8, message);
            insert.bind(9, now);
            insert.bind(10, id);
            report.added += insert.exec();
            insert.reset();
        }
        found.reset();
    }
}

// The run, and the pack's totals by severity after it.
void RuleRunner::recordRun(RuleRunReport &report, const std::string &now)
{
    SQLite::Database &db = m_database.connection();
    SQLite::Statement runs(db, "INSERT INTO rule_runs (pack_id, pack_hash, seq_to, finished_at) VALUES (?, ?, ?, ?)"
                               " ON CONFLICT(pack_id) DO UPDATE SET pack_hash = excluded.pack_hash,"
                               " seq_to = excluded.seq_to, finished_at = excluded.finished_at");
    runs.bind(1, m_pack.id);
    runs.bind(2, m_pack.hash);
    runs.bind(3, static_cast<std::int64_t>(report.seqTo));
    runs.bind(4, now);
    runs.exec();

    SQLite::Statement totals(db, "SELECT severity, count(*) FROM rule_results WHERE pack_id = ? GROUP BY severity");
    totals.bind(1, m_pack.id);
    while (totals.executeStep())
        report.totalsBySeverity[totals.getColumn(0).getString()] = totals.getColumn(1).getInt64();
}

// Results are replaced rule by rule from the reader's TEMP tables, streamed: the reader lists
// what to remove, update and insert (joining the stored results against the failing documents),
// and the writer applies it row by row, so no side is held in memory.
void RuleRunner::writeResults(const std::vector<RuleOutcome> &outcomes, RuleRunReport &report)
{
    SQLite::Database &db = m_database.connection();
    SQLite::Database &reader = m_reader->connection();
    const std::string now = engineNowText();
    ImmediateTransaction transaction(db);
    // Begun after the writer holds the write lock, the reader sees rule_results as the writer found
    // them (nobody else can commit now) and never the writer's own changes, so its lists stay
    // valid while the writer works through them.
    std::optional<DeferredTransaction> readerSnapshot(std::in_place, reader);

    if (report.fullRun)
        removeResultsOfRulesGone(report);
    removeResultsOfDeletedDocuments(report);

    replaceResults(outcomes, report, now);
    // Ended before the writer commits: with a rollback journal the COMMIT would wait for this reader.
    readerSnapshot.reset();

    recordRun(report, now);
    transaction.commit();
}

} // namespace

RuleRunReport runRules(const RulePack &pack, const Model &model, Database &database, const RuleRunOptions &options)
{
    RuleRunner runner(pack, model, database, options);
    try {
        return runner.run();
    } catch (const SQLite::Exception &e) {
        if (isBusyError(e))
            throw StorageError(StorageError::Kind::Busy,
                               database.path() + ": the database is locked by another program; rules not stored");
        throw StorageError(StorageError::Kind::Io, database.path() + ": running rules of " + pack.file + ": "
                                                       + e.getErrorStr());
    }
}

std::vector<RuleResult> readRuleResults(SQLite::Database &db, const RuleResultFilter &filter)
{
    std::string sql = "SELECT pack_id, rule_id, severity, project, resource, doc_id, natural_key, message, found_at"
                      " FROM rule_results WHERE 1";
    if (!filter.packId.empty())
        sql += " AND pack_id = :pack";
    if (!filter.severity.empty())
        sql += " AND severity = :severity";
    if (!filter.ruleId.empty())
        sql += " AND rule_id = :rule";
    sql += " ORDER BY CASE severity WHEN 'fatal' THEN 0 WHEN 'error' THEN 1 WHEN 'warning' THEN 2 ELSE 3 END, rule_id, resource,"
           " natural_key, doc_id";
    if (filter.limit > 0)
        sql += " LIMIT " + std::to_string(filter.limit);
    SQLite::Statement query(db, sql);
    if (!filter.packId.empty())
        query.bind(":pack", filter.packId);
    if (!filter.severity.empty())
        query.bind(":severity", filter.severity);
    if (!filter.ruleId.empty())
        query.bind(":rule", filter.ruleId);
    std::vector<RuleResult> results;
    while (query.executeStep()) {
        RuleResult result;
        result.packId = query.getColumn(0).getString();
        result.ruleId = query.getColumn(1).getString();
        result.severity = query.getColumn(2).getString();
        result.project = query.getColumn(3).getString();
        result.resource = query.getColumn(4).getString();
        result.docId = query.getColumn(5).getString();
        result.naturalKey = query.getColumn(6).getString();
        result.message = query.getColumn(7).getString();
        result.foundAt = query.getColumn(8).getString();
        results.push_back(std::move(result));
    }
    return results;
}

} // namespace steward
