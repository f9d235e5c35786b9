#include "Rules.h"

#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace steward {

namespace {

const std::set<std::string> kSeverities = {"fatal", "warning", "info"};
const std::set<std::string> kPackFields = {"id", "title", "version"};
const std::set<std::string> kRuleFields = {"id", "severity", "resource", "title", "message", "fix", "dependsOn", "sql"};
const std::set<std::string> kTopFields = {"pack", "rules"};

// The temp table an incremental run fills with the changed documents of one resource.
const char *const kScopeTable = "steward_rule_scope";

std::string nowText()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
}

std::string sqlText(const std::string &text)
{
    std::string quoted = "'";
    for (char c : text) {
        if (c == '\'')
            quoted += '\'';
        quoted += c;
    }
    return quoted + "'";
}

std::string sqlName(const std::string &name)
{
    std::string quoted = "\"";
    for (char c : name) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

std::string requiredText(const std::string &file, const std::string &ruleId, const Json &object,
                         const std::string &field, const std::string &where)
{
    auto it = object.find(field);
    if (it == object.end())
        throw RulePackError(file, ruleId, where + " has no \"" + field + "\"");
    if (!it->is_string() || it->get<std::string>().empty())
        throw RulePackError(file, ruleId, where + ": \"" + field + "\" must be non-empty text");
    return it->get<std::string>();
}

void refuseUnknownFields(const std::string &file, const std::string &ruleId, const Json &object,
                         const std::set<std::string> &known, const std::string &where)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (known.count(it.key()) == 0) {
            std::string list;
            for (const std::string &k : known)
                list += (list.empty() ? "" : ", ") + k;
            throw RulePackError(file, ruleId,
                                where + " has an unknown field \"" + it.key() + "\" (known: " + list + ")");
        }
    }
}

bool isValidRuleId(const std::string &id)
{
    return std::all_of(id.begin(), id.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; });
}

// A resource by its name ("StudentSchoolAssociation"); the core project first, then extensions.
const ResourceSchema *findResource(const Model &model, const std::string &name)
{
    for (const ResourceSchema *resource : model.resources())
        if (resource->resourceName == name)
            return resource;
    return nullptr;
}

// The names a message refers to: "{entryDate}" → entryDate.
std::vector<std::string> placeholders(const std::string &message)
{
    std::vector<std::string> names;
    std::size_t pos = 0;
    while ((pos = message.find('{', pos)) != std::string::npos) {
        const std::size_t end = message.find('}', pos);
        if (end == std::string::npos)
            break;
        names.push_back(message.substr(pos + 1, end - pos - 1));
        pos = end + 1;
    }
    return names;
}

} // namespace

RulePackError::RulePackError(const std::string &file, const std::string &ruleId, const std::string &message)
    : std::runtime_error(file + (ruleId.empty() ? std::string() : ": rule " + ruleId) + ": " + message)
    , m_file(file)
    , m_ruleId(ruleId)
{
}

RulePack parseRulePack(const std::string &file, const std::string &text, const Model &model)
{
    JsonParseResult parsed = parseJson(text);
    if (!parsed.value)
        throw RulePackError(file, "", "not valid JSON: " + parsed.error);
    const Json &document = *parsed.value;
    if (!document.is_object())
        throw RulePackError(file, "", "a rule pack is a JSON object with \"pack\" and \"rules\"");
    refuseUnknownFields(file, "", document, kTopFields, "the pack file");
    if (!document.contains("pack") || !document["pack"].is_object())
        throw RulePackError(file, "", "\"pack\" must be an object with id, title and version");
    if (!document.contains("rules") || !document["rules"].is_array())
        throw RulePackError(file, "", "\"rules\" must be an array of rules");

    RulePack pack;
    pack.file = file;
    const Json &header = document["pack"];
    refuseUnknownFields(file, "", header, kPackFields, "\"pack\"");
    pack.id = requiredText(file, "", header, "id", "\"pack\"");
    pack.title = requiredText(file, "", header, "title", "\"pack\"");
    pack.version = requiredText(file, "", header, "version", "\"pack\"");
    if (!isValidRuleId(pack.id))
        throw RulePackError(file, "", "pack id \"" + pack.id + "\" may hold only letters, digits, '-', '_' and '.'");

    std::set<std::string> seen;
    int index = 0;
    for (const Json &entry : document["rules"]) {
        const std::string where = "rules[" + std::to_string(index++) + "]";
        if (!entry.is_object())
            throw RulePackError(file, "", where + " is not an object");
        // The id first, so every later error can name the rule.
        const std::string ruleId = requiredText(file, "", entry, "id", where);
        if (!isValidRuleId(ruleId))
            throw RulePackError(file, ruleId, "the id may hold only letters, digits, '-', '_' and '.'");
        if (!seen.insert(ruleId).second)
            throw RulePackError(file, ruleId, "the id is used by an earlier rule too");
        refuseUnknownFields(file, ruleId, entry, kRuleFields, "the rule");
        Rule rule;
        rule.id = ruleId;
        rule.severity = requiredText(file, ruleId, entry, "severity", "the rule");
        if (kSeverities.count(rule.severity) == 0)
            throw RulePackError(file, ruleId,
                                "severity \"" + rule.severity + "\" is not one of fatal, warning, info");
        rule.resource = requiredText(file, ruleId, entry, "resource", "the rule");
        rule.schema = findResource(model, rule.resource);
        if (!rule.schema)
            throw RulePackError(file, ruleId,
                                "resource \"" + rule.resource + "\" is not a resource of the model (" + model.describe()
                                    + ")");
        rule.title = requiredText(file, ruleId, entry, "title", "the rule");
        rule.message = requiredText(file, ruleId, entry, "message", "the rule");
        rule.fix = requiredText(file, ruleId, entry, "fix", "the rule");
        // SQL may be one text or an array of lines, which reads better in a JSON file.
        auto sql = entry.find("sql");
        if (sql == entry.end())
            throw RulePackError(file, ruleId, "the rule has no \"sql\"");
        if (sql->is_string()) {
            rule.sql = sql->get<std::string>();
        } else if (sql->is_array() && !sql->empty()) {
            for (const Json &line : *sql) {
                if (!line.is_string())
                    throw RulePackError(file, ruleId, "\"sql\" as an array must hold only text lines");
                rule.sql += (rule.sql.empty() ? "" : "\n") + line.get<std::string>();
            }
        } else {
            throw RulePackError(file, ruleId, "\"sql\" must be text or an array of text lines");
        }
        if (rule.sql.find_first_not_of(" \t\r\n") == std::string::npos)
            throw RulePackError(file, ruleId, "\"sql\" is empty");
        if (auto depends = entry.find("dependsOn"); depends != entry.end()) {
            if (!depends->is_array())
                throw RulePackError(file, ruleId, "\"dependsOn\" must be an array of resource names");
            for (const Json &name : *depends) {
                const ResourceSchema *target = name.is_string() ? findResource(model, name.get<std::string>()) : nullptr;
                if (!target)
                    throw RulePackError(file, ruleId,
                                        "\"dependsOn\" names " + name.dump() + ", which is not a resource of the model");
                rule.dependsOn.push_back(name.get<std::string>());
                rule.dependsOnSchemas.push_back(target);
            }
        }
        pack.rules.push_back(std::move(rule));
    }
    if (pack.rules.empty())
        throw RulePackError(file, "", "the pack has no rules");

    QCryptographicHash hash(QCryptographicHash::Sha256);
    const std::string canonical = dumpJson(document) + "\n" + model.describe();
    hash.addData(QByteArrayView(canonical.data(), static_cast<qsizetype>(canonical.size())));
    pack.hash = hash.result().toHex().toStdString();
    return pack;
}

RulePack loadRulePack(const std::string &path, const Model &model)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw RulePackError(path, "", "cannot be read");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return parseRulePack(path, buffer.str(), model);
}

RulePack loadStarterRulePack(const Model &model)
{
    const QString resourcePath = QStringLiteral(":/steward/rules/starter-pack.json");
    QFile file(resourcePath);
    if (!file.open(QIODevice::ReadOnly))
        throw RulePackError(resourcePath.toStdString(), "", "the embedded starter pack is missing from this build");
    return parseRulePack("starter pack", file.readAll().toStdString(), model);
}

std::vector<RuleView> ruleViews(const Model &model)
{
    std::vector<RuleView> views;
    std::set<std::string> usedNames;
    for (const ResourceSchema *resource : model.resources()) {
        RuleView view;
        view.resource = resource;
        view.name = resource->endpointName;
        // An extension's resource with a core endpoint's name gets its project's prefix.
        if (!usedNames.insert(toLower(view.name)).second) {
            view.name = resource->project->projectEndpointName + "_" + resource->endpointName;
            usedNames.insert(toLower(view.name));
        }
        std::set<std::string> columns = {"id", "natural_key", "_body"};
        std::string select = "d.id AS id, d.natural_key AS natural_key";
        auto addColumn = [&](const std::string &name, const std::string &jsonPath) {
            if (!columns.insert(name).second)
                return; // a property named like a fixed column stays reachable through _body
            view.columns.push_back(name);
            select += ", json_extract(d.body, " + sqlText(jsonPath) + ") AS " + sqlName(name);
        };
        const Json &properties = resource->jsonSchema.contains("properties") ? resource->jsonSchema["properties"]
                                                                             : Json::object();
        for (auto it = properties.begin(); it != properties.end(); ++it) {
            const std::string &name = it.key();
            const Json &property = it.value();
            const std::string type = property.value("type", std::string());
            if (type == "array" || name == "_ext")
                continue; // collections and extensions: json_each over _body
            if (type == "object") {
                // A reference (or an inline common): one column per scalar member, "schoolReference_schoolId".
                if (!property.contains("properties"))
                    continue;
                for (auto member = property["properties"].begin(); member != property["properties"].end(); ++member) {
                    const std::string memberType = member.value().value("type", std::string());
                    if (memberType == "object" || memberType == "array")
                        continue;
                    addColumn(name + "_" + member.key(), "$.\"" + name + "\".\"" + member.key() + "\"");
                }
                continue;
            }
            addColumn(name, "$.\"" + name + "\"");
        }
        select += ", d.body AS _body";
        view.selectList = select;
        views.push_back(std::move(view));
    }
    return views;
}

Json RuleResult::toJson() const
{
    return Json{{"pack", packId},         {"rule", ruleId},     {"severity", severity},
                {"project", project},     {"resource", resource}, {"id", docId},
                {"naturalKey", naturalKey}, {"message", message}, {"foundAt", foundAt}};
}

Json RuleRunReport::toJson() const
{
    Json perRule = Json::array();
    for (const RuleRunStats &stats : rules)
        perRule.push_back({{"rule", stats.ruleId},
                           {"mode", stats.mode},
                           {"checked", stats.checked},
                           {"failing", stats.failing},
                           {"ms", std::round(stats.milliseconds * 10) / 10}});
    Json totals = Json::object();
    for (const char *severity : {"fatal", "warning", "info"}) {
        auto it = totalsBySeverity.find(severity);
        totals[severity] = it == totalsBySeverity.end() ? 0 : it->second;
    }
    return Json{{"pack", packId},
                {"fullRun", fullRun},
                {"seqFrom", seqFrom},
                {"seqTo", seqTo},
                {"documentsChecked", documentsChecked},
                {"rulesRun", rulesRun},
                {"added", added},
                {"removed", removed},
                {"kept", kept},
                {"cancelled", cancelled},
                {"totals", totals},
                {"rules", perRule}};
}

namespace {

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
};

// Thrown out of a rule that was stopped by the caller; the run ends with nothing written.
struct RunCancelled
{
};

int authorizeRule(void *context, int action, const char *a, const char *b, const char *database, const char *view)
{
    Guard &guard = *static_cast<Guard *>(context);
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
        return refuse("reading " + std::string(database ? database : "main") + "." + table
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

struct RuleOutcome
{
    const Rule *rule = nullptr;
    std::string mode;
    std::vector<std::string> checked;         // the documents this run judged
    std::map<std::string, std::string> found; // failing document → message
};

struct DocumentSet
{
    bool listed = false;
    std::vector<std::string> ids;
    std::unordered_set<std::string> lookup;
};

struct DocumentInfo
{
    std::string project;
    std::string resource;
    std::string naturalKey;
};

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
    void runRule(RuleOutcome &outcome, bool filtered, const std::vector<std::string> &changedIds);
    void writeResults(const std::vector<RuleOutcome> &outcomes, const std::vector<std::string> &deletedIds,
                      RuleRunReport &report);

    const RulePack &m_pack;
    const Model &m_model;
    Database &m_database;
    RuleRunOptions m_options;
    std::unique_ptr<Database> m_reader;
    std::vector<RuleView> m_views;
    std::map<std::string, const ResourceSchema *> m_resourceOfView;  // lower-cased view name → resource
    std::map<std::string, std::set<const ResourceSchema *>> m_reads; // rule id → the resources its SQL reads
    Guard m_guard;
    std::unordered_map<std::string, DocumentInfo> m_documents; // every document a rule checked
    std::map<const ResourceSchema *, DocumentSet> m_everyDocument;   // per resource, for full-mode rules
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
    // The scope table, materialized CTEs and sorts in memory, as on the writer.
    db.exec("PRAGMA temp_store=MEMORY");
    db.exec(std::string("CREATE TEMP TABLE ") + kScopeTable + " (doc_id TEXT PRIMARY KEY) WITHOUT ROWID");
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
    const std::string where = "d.project = " + sqlText(view.resource->projectName())
                              + " AND d.resource = " + sqlText(view.resource->resourceName);
    const std::string from = filtered ? std::string("temp.") + kScopeTable
                                            + " AS s CROSS JOIN main.documents AS d ON d.id = s.doc_id"
                                      : std::string("main.documents AS d");
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

void RuleRunner::runRule(RuleOutcome &outcome, bool filtered, const std::vector<std::string> &changedIds)
{
    const Rule &rule = *outcome.rule;
    SQLite::Database &db = m_reader->connection();
    const RuleView &view = viewOf(rule.schema);

    // What this run judges: every document of the resource (listed once per run and resource), or
    // the changed ones still there.
    DocumentSet changedSet;
    DocumentSet &judged = filtered ? changedSet : m_everyDocument[rule.schema];
    if (filtered || !judged.listed) {
        db.exec(std::string("DELETE FROM temp.") + kScopeTable);
        if (filtered) {
            SQLite::Statement insert(db, std::string("INSERT OR IGNORE INTO temp.") + kScopeTable + " VALUES (?)");
            for (const std::string &id : changedIds) {
                insert.bind(1, id);
                insert.exec();
                insert.reset();
            }
        }
        SQLite::Statement documents(
            db, filtered ? std::string("SELECT d.id, d.natural_key FROM temp.") + kScopeTable
                               + " AS s CROSS JOIN main.documents AS d ON d.id = s.doc_id"
                                 " WHERE d.project = ? AND d.resource = ?"
                         : std::string("SELECT id, natural_key FROM main.documents WHERE project = ? AND resource = ?"));
        documents.bind(1, rule.schema->projectName());
        documents.bind(2, rule.schema->resourceName);
        while (documents.executeStep()) {
            std::string id = documents.getColumn(0).getString();
            auto [it, inserted] = m_documents.try_emplace(id);
            if (inserted)
                it->second = {rule.schema->projectName(), rule.schema->resourceName, documents.getColumn(1).getString()};
            judged.ids.push_back(id);
            judged.lookup.insert(std::move(id));
        }
        judged.listed = true;
    }
    outcome.checked = judged.ids;
    const std::unordered_set<std::string> &checkable = judged.lookup;
    if (filtered)
        setViewScope(view, true);

    sqlite3 *handle = db.getHandle();
    sqlite3_stmt *statement = prepareRule(rule);
    std::vector<std::string> names;
    for (int i = 0; i < sqlite3_column_count(statement); ++i)
        names.emplace_back(sqlite3_column_name(statement, i));
    int rc = SQLITE_OK;
    std::string strayId;
    {
        GuardScope guard(handle, m_guard, m_options.ruleTimeLimit);
        while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
            std::map<std::string, std::string> row;
            for (int i = 0; i < static_cast<int>(names.size()); ++i) {
                const unsigned char *text = sqlite3_column_text(statement, i);
                row[names[i]] = text ? reinterpret_cast<const char *>(text) : "";
            }
            const std::string &id = row["id"];
            if (checkable.count(id) == 0) {
                strayId = id;
                break;
            }
            if (outcome.found.count(id))
                continue; // a join may name a document twice; one result per document and rule
            std::string message = rule.message;
            for (const std::string &name : placeholders(rule.message)) {
                const std::string token = "{" + name + "}";
                const std::size_t at = message.find(token);
                if (at != std::string::npos)
                    message.replace(at, token.size(), row[name]);
            }
            outcome.found.emplace(id, std::move(message));
        }
    }
    const std::string error = sqlite3_errmsg(handle);
    sqlite3_finalize(statement);
    if (filtered)
        setViewScope(view, false);
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

RuleRunReport RuleRunner::run()
{
    RuleRunReport report;
    report.packId = m_pack.id;
    m_reader = Database::open(m_database.path(), Database::Access::ReadOnly);
    createViews();
    SQLite::Database &db = m_reader->connection();

    std::vector<RuleOutcome> outcomes;
    std::vector<std::string> deletedIds;
    {
        // One snapshot for the change log position and every rule.
        db.exec("BEGIN");
        struct EndRead
        {
            SQLite::Database &db;
            ~EndRead()
            {
                try {
                    db.exec("COMMIT");
                } catch (...) {
                }
            }
        } endRead{db};

        std::string previousHash;
        bool hasPrevious = false;
        {
            SQLite::Statement previous(db, "SELECT pack_hash, seq_to FROM main.rule_runs WHERE pack_id = ?");
            previous.bind(1, m_pack.id);
            if (previous.executeStep()) {
                hasPrevious = true;
                previousHash = previous.getColumn(0).getString();
                report.seqFrom = previous.getColumn(1).getInt64();
            }
        }
        report.seqTo = db.execAndGet("SELECT coalesce(max(seq), 0) FROM main.changes").getInt64();
        report.fullRun = m_options.full || !hasPrevious || previousHash != m_pack.hash;
        if (report.fullRun)
            report.seqFrom = 0;

        // The change log folded per document: its last operation decides whether it is still there.
        std::map<std::pair<std::string, std::string>, std::vector<std::string>> changedByResource;
        std::set<std::pair<std::string, std::string>> touchedResources;
        if (!report.fullRun) {
            SQLite::Statement changes(db, "SELECT id, project, resource, op FROM main.changes"
                                          " WHERE seq > ? AND seq <= ? ORDER BY seq");
            changes.bind(1, static_cast<std::int64_t>(report.seqFrom));
            changes.bind(2, static_cast<std::int64_t>(report.seqTo));
            std::map<std::string, std::pair<std::pair<std::string, std::string>, bool>> lastOp;
            while (changes.executeStep()) {
                const std::pair<std::string, std::string> resource{changes.getColumn(1).getString(),
                                                                   changes.getColumn(2).getString()};
                touchedResources.insert(resource);
                lastOp[changes.getColumn(0).getString()] = {resource, changes.getColumn(3).getString() == "delete"};
            }
            for (const auto &[id, state] : lastOp) {
                if (state.second)
                    deletedIds.push_back(id);
                else
                    changedByResource[state.first].push_back(id);
            }
        }

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
            const std::pair<std::string, std::string> own{rule.schema->projectName(), rule.schema->resourceName};
            // Declared dependencies, and every other resource the SQL reads (seen by the authorizer):
            // a change there can change the outcome for documents of the rule's resource that did not change.
            std::set<const ResourceSchema *> dependencies(rule.dependsOnSchemas.begin(), rule.dependsOnSchemas.end());
            for (const ResourceSchema *read : m_reads[rule.id])
                if (read != rule.schema)
                    dependencies.insert(read);
            bool dependencyChanged = false;
            for (const ResourceSchema *dependency : dependencies)
                dependencyChanged = dependencyChanged
                                    || touchedResources.count({dependency->projectName(), dependency->resourceName});
            auto changed = changedByResource.find(own);
            if (report.fullRun || dependencyChanged)
                outcome.mode = "full";
            else if (changed != changedByResource.end())
                outcome.mode = "changed";
            else
                outcome.mode = "skipped";

            RuleRunStats stats;
            stats.ruleId = rule.id;
            stats.mode = outcome.mode;
            if (outcome.mode != "skipped") {
                const auto started = std::chrono::steady_clock::now();
                try {
                    runRule(outcome, outcome.mode == "changed",
                            outcome.mode == "changed" ? changed->second : std::vector<std::string>());
                } catch (const RunCancelled &) {
                    report.cancelled = true;
                    return report;
                }
                stats.milliseconds =
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
                stats.checked = static_cast<std::int64_t>(outcome.checked.size());
                stats.failing = static_cast<std::int64_t>(outcome.found.size());
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
    report.documentsChecked = static_cast<std::int64_t>(m_documents.size());
    writeResults(outcomes, deletedIds, report);
    return report;
}

void RuleRunner::writeResults(const std::vector<RuleOutcome> &outcomes, const std::vector<std::string> &deletedIds,
                              RuleRunReport &report)
{
    SQLite::Database &db = m_database.connection();
    const std::string now = nowText();
    ImmediateTransaction transaction(db);

    if (report.fullRun) {
        // Rules that left the pack leave their results behind otherwise.
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
    {
        SQLite::Statement remove(db, "DELETE FROM rule_results WHERE pack_id = ? AND doc_id = ?");
        for (const std::string &id : deletedIds) {
            remove.bind(1, m_pack.id);
            remove.bind(2, id);
            report.removed += remove.exec();
            remove.reset();
        }
    }

    SQLite::Statement existing(db, "SELECT doc_id, message FROM rule_results WHERE pack_id = ? AND rule_id = ?");
    SQLite::Statement remove(db, "DELETE FROM rule_results WHERE pack_id = ? AND rule_id = ? AND doc_id = ?");
    SQLite::Statement update(db, "UPDATE rule_results SET message = ?, severity = ?"
                                 " WHERE pack_id = ? AND rule_id = ? AND doc_id = ?");
    // A document deleted after the rules' snapshot gets no result (the next run would remove it anyway).
    SQLite::Statement insert(db, "INSERT INTO rule_results (pack_id, rule_id, severity, project, resource, doc_id,"
                                 " natural_key, message, found_at)"
                                 " SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM documents WHERE id = ?)");
    for (const RuleOutcome &outcome : outcomes) {
        if (outcome.mode == "skipped")
            continue;
        const Rule &rule = *outcome.rule;
        std::map<std::string, std::string> before;
        existing.bind(1, m_pack.id);
        existing.bind(2, rule.id);
        while (existing.executeStep())
            before.emplace(existing.getColumn(0).getString(), existing.getColumn(1).getString());
        existing.reset();

        auto removeResult = [&](const std::string &id) {
            remove.bind(1, m_pack.id);
            remove.bind(2, rule.id);
            remove.bind(3, id);
            report.removed += remove.exec();
            remove.reset();
        };
        std::set<std::string> checked(outcome.checked.begin(), outcome.checked.end());
        if (outcome.mode == "full") {
            // Results of documents that are no longer there at all.
            for (const auto &[id, message] : before)
                if (checked.count(id) == 0)
                    removeResult(id);
        }
        for (const std::string &id : outcome.checked) {
            auto found = outcome.found.find(id);
            auto old = before.find(id);
            if (found == outcome.found.end()) {
                if (old != before.end())
                    removeResult(id);
                continue;
            }
            if (old != before.end()) {
                ++report.kept;
                // The message may quote values that changed; found_at stays when it was first found.
                update.bind(1, found->second);
                update.bind(2, rule.severity);
                update.bind(3, m_pack.id);
                update.bind(4, rule.id);
                update.bind(5, id);
                update.exec();
                update.reset();
                continue;
            }
            const DocumentInfo &info = m_documents.at(id);
            insert.bind(1, m_pack.id);
            insert.bind(2, rule.id);
            insert.bind(3, rule.severity);
            insert.bind(4, info.project);
            insert.bind(5, info.resource);
            insert.bind(6, id);
            insert.bind(7, info.naturalKey);
            insert.bind(8, found->second);
            insert.bind(9, now);
            insert.bind(10, id);
            report.added += insert.exec();
            insert.reset();
        }
    }

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
    sql += " ORDER BY CASE severity WHEN 'fatal' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, rule_id, resource,"
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
