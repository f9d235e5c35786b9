#include "Rules.h"
#include "RuleText.h"

#include "Clock.h"
#include "Text.h"

#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <QFile>

#include <algorithm>
#include <cmath>
#include <exception>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace steward {

namespace {

const std::set<std::string> kSeverities = {"fatal", "error", "warning", "info"};
const std::set<std::string> kPackFields = {"id", "title", "version", "publisher"};
const std::set<std::string> kRuleFields = {"id",   "severity",  "resource",    "title",      "message",
                                           "fix",  "dependsOn", "schoolYears", "collections", "sql"};
const char *const kStarterPackId = "steward-starter";
const std::set<std::string> kTopFields = {"pack", "rules"};



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


} // namespace

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

RulePackError::RulePackError(const std::string &file, const std::string &ruleId, const std::string &message)
    : std::runtime_error(file + (ruleId.empty() ? std::string() : ": rule " + ruleId) + ": " + message)
    , m_file(file)
    , m_ruleId(ruleId)
{
}

namespace {

// The pack's own fields: id, title, version, publisher.
RulePack packHeader(const std::string &file, const Json &header)
{
    RulePack pack;
    pack.file = file;
    refuseUnknownFields(file, "", header, kPackFields, "\"pack\"");
    pack.id = requiredText(file, "", header, "id", "\"pack\"");
    pack.title = requiredText(file, "", header, "title", "\"pack\"");
    pack.version = requiredText(file, "", header, "version", "\"pack\"");
    if (auto publisher = header.find("publisher"); publisher != header.end()) {
        if (!publisher->is_string())
            throw RulePackError(file, "", "\"pack\": \"publisher\" must be text");
        pack.publisher = publisher->get<std::string>();
    }
    if (!isValidRuleId(pack.id))
        throw RulePackError(file, "", "pack id \"" + pack.id + "\" may hold only letters, digits, '-', '_' and '.'");
    return pack;
}

// SQL may be one text or an array of lines, which reads better in a JSON file.
std::string ruleSql(const std::string &file, const std::string &ruleId, const Json &entry)
{
    std::string text;
    auto sql = entry.find("sql");
    if (sql == entry.end())
        throw RulePackError(file, ruleId, "the rule has no \"sql\"");
    if (sql->is_string()) {
        text = sql->get<std::string>();
    } else if (sql->is_array() && !sql->empty()) {
        for (const Json &line : *sql) {
            if (!line.is_string())
                throw RulePackError(file, ruleId, "\"sql\" as an array must hold only text lines");
            text += (text.empty() ? "" : "\n") + line.get<std::string>();
        }
    } else {
        throw RulePackError(file, ruleId, "\"sql\" must be text or an array of text lines");
    }
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw RulePackError(file, ruleId, "\"sql\" is empty");
    return text;
}

// What else a rule depends on, and the school years and collections it applies to.
void readRuleScope(const std::string &file, const std::string &ruleId, const Json &entry, const Model &model, Rule &rule)
{
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
    if (auto years = entry.find("schoolYears"); years != entry.end()) {
        if (!years->is_array())
            throw RulePackError(file, ruleId, "\"schoolYears\" must be an array of years such as 2026");
        for (const Json &year : *years) {
            if (!year.is_number_integer() || year.get<int>() < 1900 || year.get<int>() > 2200)
                throw RulePackError(file, ruleId,
                                    "\"schoolYears\" holds " + year.dump() + ", which is not a school year such as 2026");
            rule.schoolYears.push_back(year.get<int>());
        }
    }
    if (auto collections = entry.find("collections"); collections != entry.end()) {
        if (!collections->is_array())
            throw RulePackError(file, ruleId, "\"collections\" must be an array of collection names");
        for (const Json &collection : *collections) {
            if (!collection.is_string() || collection.get<std::string>().empty())
                throw RulePackError(file, ruleId,
                                    "\"collections\" holds " + collection.dump() + ", which is not a collection name");
            rule.collections.push_back(collection.get<std::string>());
        }
    }
}

Rule ruleFrom(const std::string &file, const std::string &ruleId, const Json &entry, const Model &model)
{
    refuseUnknownFields(file, ruleId, entry, kRuleFields, "the rule");
    Rule rule;
    rule.id = ruleId;
    rule.severity = requiredText(file, ruleId, entry, "severity", "the rule");
    if (kSeverities.count(rule.severity) == 0)
        throw RulePackError(file, ruleId,
                            "severity \"" + rule.severity + "\" is not one of fatal, error, warning, info");
    rule.resource = requiredText(file, ruleId, entry, "resource", "the rule");
    rule.schema = findResource(model, rule.resource);
    if (!rule.schema)
        throw RulePackError(file, ruleId,
                            "resource \"" + rule.resource + "\" is not a resource of the model (" + model.describe()
                                + ")");
    rule.title = requiredText(file, ruleId, entry, "title", "the rule");
    rule.message = requiredText(file, ruleId, entry, "message", "the rule");
    rule.fix = requiredText(file, ruleId, entry, "fix", "the rule");
    rule.sql = ruleSql(file, ruleId, entry);
    readRuleScope(file, ruleId, entry, model, rule);
    return rule;
}

} // namespace

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

    RulePack pack = packHeader(file, document["pack"]);
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
        Rule rule = ruleFrom(file, ruleId, entry, model);
        pack.rules.push_back(std::move(rule));
    }
    if (pack.rules.empty())
        throw RulePackError(file, "", "the pack has no rules");

    pack.content = dumpJson(document);
    pack.hash = sha256Hex(pack.content + "\n" + model.describe());
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

bool Rule::appliesTo(int schoolYear, const std::string &collection) const
{
    if (schoolYear != 0 && !schoolYears.empty()
        && std::find(schoolYears.begin(), schoolYears.end(), schoolYear) == schoolYears.end())
        return false;
    if (collection.empty() || collections.empty())
        return true;
    return std::any_of(collections.begin(), collections.end(),
                       [&](const std::string &name) { return toLower(name) == toLower(collection); });
}

RulePack scopedRulePack(const RulePack &pack, int schoolYear, const std::string &collection)
{
    if (schoolYear == 0 && collection.empty())
        return pack;
    RulePack scoped = pack;
    scoped.rules.clear();
    for (const Rule &rule : pack.rules)
        if (rule.appliesTo(schoolYear, collection))
            scoped.rules.push_back(rule);
    scoped.hash = sha256Hex(pack.hash + "\nscope " + std::to_string(schoolYear) + " " + toLower(collection));
    return scoped;
}

int compareVersions(const std::string &a, const std::string &b)
{
    // Not std::isdigit: a byte of a UTF-8 letter is a negative char, which it may not be given.
    auto isAsciiDigit = [](char c) { return c >= '0' && c <= '9'; };
    auto parts = [](const std::string &text) {
        std::vector<std::string> out(1);
        for (char c : text)
            if (c == '.' || c == '-')
                out.emplace_back();
            else
                out.back().push_back(c);
        return out;
    };
    const std::vector<std::string> left = parts(a);
    const std::vector<std::string> right = parts(b);
    for (std::size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
        const std::string x = i < left.size() ? left[i] : "0";
        const std::string y = i < right.size() ? right[i] : "0";
        const bool numbers = !x.empty() && !y.empty() && x.size() <= 18 && y.size() <= 18
                             && std::all_of(x.begin(), x.end(), isAsciiDigit) && std::all_of(y.begin(), y.end(), isAsciiDigit);
        if (numbers) {
            const long long p = std::stoll(x);
            const long long q = std::stoll(y);
            if (p != q)
                return p < q ? -1 : 1;
        } else if (x != y) {
            return x < y ? -1 : 1;
        }
    }
    return 0;
}

std::vector<RulePackChange> diffRulePacks(const RulePack &older, const RulePack &newer)
{
    std::map<std::string, const Rule *> before;
    for (const Rule &rule : older.rules)
        before[rule.id] = &rule;
    std::vector<RulePackChange> changes;
    std::set<std::string> seen;
    for (const Rule &rule : newer.rules) {
        seen.insert(rule.id);
        auto it = before.find(rule.id);
        if (it == before.end()) {
            changes.push_back({rule.id, "added", "", rule.severity});
            continue;
        }
        const Rule &old = *it->second;
        if (old.severity != rule.severity)
            changes.push_back({rule.id, "severity", old.severity, rule.severity});
        else if (old.sql != rule.sql || old.message != rule.message || old.fix != rule.fix || old.title != rule.title
                 || old.schoolYears != rule.schoolYears || old.collections != rule.collections
                 || old.dependsOn != rule.dependsOn)
            changes.push_back({rule.id, "changed", "", ""});
    }
    for (const Rule &rule : older.rules)
        if (seen.count(rule.id) == 0)
            changes.push_back({rule.id, "removed", rule.severity, ""});
    return changes;
}

namespace {

// Stored versions of one pack, oldest first.
std::vector<std::pair<std::string, std::string>> storedVersions(SQLite::Database &db, const std::string &packId)
{
    SQLite::Statement query(db, "SELECT version, content FROM rule_packs WHERE pack_id = ?");
    query.bind(1, packId);
    std::vector<std::pair<std::string, std::string>> versions;
    while (query.executeStep())
        versions.emplace_back(query.getColumn(0).getString(), query.getColumn(1).getString());
    std::sort(versions.begin(), versions.end(),
              [](const auto &a, const auto &b) { return compareVersions(a.first, b.first) < 0; });
    return versions;
}

} // namespace

RulePackImport importRulePack(Database &database, const RulePack &pack, const std::string &actor, const Model &model)
{
    SQLite::Database &db = database.connection();
    ImmediateTransaction transaction(db);
    RulePackImport outcome;
    const std::vector<std::pair<std::string, std::string>> versions = storedVersions(db, pack.id);
    // Every rule id each earlier version gave, with its resource, and whether the newest of them still has it.
    std::map<std::string, std::pair<std::string, std::string>> everUsed; // id -> (resource, version)
    std::optional<RulePack> newestOlder;
    for (const auto &[version, content] : versions) {
        if (version == pack.version) {
            if (content != pack.content)
                throw RulePackError(pack.file, "",
                                    "version " + pack.version + " of pack " + pack.id
                                        + " is stored already with other rules; give the changed pack a new version");
            outcome.alreadyStored = true;
            continue;
        }
        if (compareVersions(version, pack.version) > 0)
            continue;
        RulePack older = parseRulePack(pack.id + "@" + version, content, model);
        for (const Rule &rule : older.rules)
            everUsed[rule.id] = {rule.resource, version};
        newestOlder = std::move(older);
    }
    if (newestOlder) {
        outcome.previousVersion = newestOlder->version;
        outcome.changes = diffRulePacks(*newestOlder, pack);
        std::set<std::string> current;
        for (const Rule &rule : newestOlder->rules)
            current.insert(rule.id);
        for (const Rule &rule : pack.rules) {
            auto it = everUsed.find(rule.id);
            if (it == everUsed.end())
                continue;
            if (it->second.first != rule.resource)
                throw RulePackError(pack.file, rule.id,
                                    "version " + it->second.second + " used this id for a rule on " + it->second.first
                                        + "; a rule id is never reused, give this rule a new one");
            if (current.count(rule.id) == 0)
                throw RulePackError(pack.file, rule.id,
                                    "this id was retired after version " + it->second.second
                                        + "; a rule id is never reused, give this rule a new one");
        }
    }
    if (outcome.alreadyStored)
        return outcome;
    SQLite::Statement insert(db, "INSERT INTO rule_packs (pack_id, version, title, content, content_sha, imported_at,"
                                 " imported_by) VALUES (?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, pack.id);
    insert.bind(2, pack.version);
    insert.bind(3, pack.title);
    insert.bind(4, pack.content);
    insert.bind(5, sha256Hex(pack.content));
    insert.bind(6, engineNowText());
    insert.bind(7, actor);
    insert.exec();
    transaction.commit();
    return outcome;
}

std::vector<StoredRulePack> storedRulePacks(SQLite::Database &db)
{
    SQLite::Statement query(db, "SELECT pack_id, version, title, imported_at, imported_by FROM rule_packs");
    std::vector<StoredRulePack> packs;
    while (query.executeStep())
        packs.push_back({query.getColumn(0).getString(), query.getColumn(1).getString(),
                         query.getColumn(2).getString(), query.getColumn(3).getString(),
                         query.getColumn(4).getString()});
    std::sort(packs.begin(), packs.end(), [](const StoredRulePack &a, const StoredRulePack &b) {
        return a.id != b.id ? a.id < b.id : compareVersions(a.version, b.version) < 0;
    });
    return packs;
}

RulePack loadStoredRulePack(SQLite::Database &db, const std::string &packId, const std::string &version,
                            const Model &model)
{
    const std::vector<std::pair<std::string, std::string>> versions = storedVersions(db, packId);
    for (auto it = versions.rbegin(); it != versions.rend(); ++it)
        if (version.empty() || it->first == version)
            return parseRulePack(packId + "@" + it->first, it->second, model);
    std::string known;
    for (const auto &[stored, content] : versions)
        known += (known.empty() ? "" : ", ") + stored;
    throw RulePackError(packId + (version.empty() ? "" : "@" + version), "",
                        versions.empty() ? "no such pack is stored (steward-cli rules import FILE stores one)"
                                         : "no such version is stored (stored: " + known + ")");
}

RulePack resolveRulePack(SQLite::Database *db, const std::string &name, const Model &model)
{
    if (name.empty() || name == "starter")
        return loadStarterRulePack(model);
    // The starter pack's id: a version of it imported here, else the one built in.
    if (name == kStarterPackId && (db == nullptr || storedVersions(*db, kStarterPackId).empty()))
        return loadStarterRulePack(model);
    if (QFile::exists(QString::fromStdString(name)))
        return loadRulePack(name, model);
    const std::size_t at = name.find('@');
    const std::string id = name.substr(0, at);
    const std::string version = at == std::string::npos ? std::string() : name.substr(at + 1);
    if (db == nullptr || !isValidRuleId(id))
        throw RulePackError(name, "", "no such file or stored pack");
    return loadStoredRulePack(*db, id, version, model);
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
        // The view reads document_rows (see setViewScope), which keeps the natural key only in its index.
        std::string select = "steward_id_text(d.id) AS id, "
                             "steward_natural_key(steward_text(d.identity)) COLLATE NOCASE AS natural_key";
        auto addColumn = [&](const std::string &name, const std::string &jsonPath) {
            if (!columns.insert(name).second)
                return; // a property named like a fixed column stays reachable through _body
            view.columns.push_back(name);
            select += ", json_extract(steward_text(d.body), " + sqlText(jsonPath) + ") AS " + sqlName(name);
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
        select += ", steward_text(d.body) AS _body";
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
    for (const char *severity : {"fatal", "error", "warning", "info"}) {
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

} // namespace steward
