#include "IdentityChange.h"

#include "Dependents.h"
#include "EngineRequests.h"
#include "Identity.h"
#include "LoadOrder.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <map>
#include <set>
#include <cstdlib>

namespace steward {

namespace {

constexpr int kMaxDepth = 32;

// Dotted paths of every value that differs between two bodies ("studentReference.studentUniqueId").
void differingFields(const Json &before, const Json &after, const std::string &prefix, std::vector<std::string> &out)
{
    if (before.is_object() && after.is_object()) {
        std::set<std::string> keys;
        for (auto it = before.begin(); it != before.end(); ++it)
            keys.insert(it.key());
        for (auto it = after.begin(); it != after.end(); ++it)
            keys.insert(it.key());
        for (const std::string &key : keys) {
            const std::string path = prefix.empty() ? key : prefix + "." + key;
            auto b = before.find(key);
            auto a = after.find(key);
            if (b == before.end() || a == after.end())
                out.push_back(path);
            else
                differingFields(*b, *a, path, out);
        }
        return;
    }
    if (before.is_array() && after.is_array() && before.size() == after.size()) {
        for (std::size_t i = 0; i < before.size(); ++i)
            differingFields(before[i], after[i], prefix + "[" + std::to_string(i) + "]", out);
        return;
    }
    if (before != after)
        out.push_back(prefix.empty() ? "$" : prefix);
}

std::string dotted(const JsonPath &path)
{
    return path.text().rfind("$.", 0) == 0 ? path.text().substr(2) : path.text();
}

std::string lastName(const std::string &dottedPath)
{
    const std::size_t dot = dottedPath.rfind('.');
    return dot == std::string::npos ? dottedPath : dottedPath.substr(dot + 1);
}

// The text read as the type the stored value has, so "604900" stays a string and "255901" a number.
bool valueFromText(const Json &current, const std::string &text, Json &out)
{
    if (current.is_number_integer()) {
        char *end = nullptr;
        errno = 0;
        const long long number = std::strtoll(text.c_str(), &end, 10);
        // Out of range is refused, not clamped to the nearest representable number.
        if (text.empty() || *end != '\0' || errno == ERANGE)
            return false;
        out = static_cast<std::int64_t>(number);
    } else if (current.is_number()) {
        char *end = nullptr;
        const double number = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(number))
            return false;
        out = number;
    } else if (current.is_boolean()) {
        if (text != "true" && text != "false")
            return false;
        out = text == "true";
    } else {
        out = text;
    }
    return true;
}

// Runs the steps through Engine::handle inside one batch (one BEGIN IMMEDIATE); every read in
// between sees the batch's own writes, so each step is planned from the state the previous left.
class Planner
{
public:
    Planner(Engine &engine, const std::string &actor)
        : m_engine(engine)
        , m_model(engine.model())
        , m_loadOrder(engine.model())
        , m_identity(engine.model())
        , m_actor(actor)
    {
    }

    IdentityChangeResult &result() { return m_result; }

    std::string naturalKey(const ResourceSchema &resource, const Json &body) const
    {
        return naturalKeyText(m_identity.identityObject(resource, body));
    }

    std::optional<Uuid> referentialId(const ResourceSchema &resource, const Json &body) const
    {
        std::optional<DocumentIdentity> identity = m_identity.documentIdentity(resource, body);
        return identity ? std::optional<Uuid>(identity->referentialId()) : std::nullopt;
    }

    bool fail(const std::string &message, const Json &problem = nullptr)
    {
        m_result.error = message;
        m_result.problem = problem;
        return false;
    }

    // Sends one request; on refusal records why, naming the step. createdId gets a POST's new id.
    bool send(const std::string &method, const ResourceSchema &resource, const std::string &id, const Json &body,
              IdentityStep step, std::string *createdId = nullptr)
    {
        const Response response = m_engine.handle(Request::make(method, resource.requestPath(id), m_actor, body));
        if (response.status >= 300 || m_engine.batchBroken()) {
            std::string detail = response.body.is_object() ? response.body.value("detail", std::string()) : "";
            if (response.body.is_object() && response.body.contains("validationErrors"))
                detail += " " + response.body["validationErrors"].dump();
            return fail(step.op + " " + step.resource + " " + step.naturalKey + " was refused (HTTP "
                            + std::to_string(response.status) + "): " + detail,
                        response.body);
        }
        if (method == "POST" && response.status != 201) // 200 would be an upsert of something already there
            return fail("create " + step.resource + " " + step.naturalKey
                        + ": a document with this identity already exists; nothing was written");
        if (createdId != nullptr)
            for (const auto &[name, value] : response.headers)
                if (name == "Location")
                    *createdId = value.substr(value.rfind('/') + 1);
        m_result.steps.push_back(std::move(step));
        return true;
    }

    std::vector<std::string> referrerIds(const std::string &id)
    {
        std::vector<std::string> ids;
        for (int offset = 0;; offset += kReferrerPage) {
            const ReferrerPage page = m_engine.referrers(id, kReferrerPage, offset);
            for (const Referrer &referrer : page.items)
                ids.push_back(referrer.id);
            if (static_cast<int>(page.items.size()) < kReferrerPage)
                return ids;
        }
    }

    // Moves the document (and everything whose identity depends on it) to finalBody's identity, in
    // two phases. Planning: every document that references a document whose identity changes joins
    // the set, and its final body is its stored body with every such reference rewritten; repeated
    // until nothing changes, so a document referencing several moving ones (a Session: its School
    // and that School's GradingPeriods) is rewritten once for all of them. Writing, in load order:
    // each document is updated in place (its identity unchanged, or its resource allows identity
    // updates), recreated (POST now, DELETE at the end), or, when its final identity already
    // exists, merged into that one (DELETE at the end); the deletes run in reverse load order.
    // merge: the final identity is another document's, which stays.
    bool move(const StoredDocument &root, const ResourceSchema &resource, const Json &finalBody, bool merge,
              std::string *resultId)
    {
        if (!plan(root, resource, finalBody))
            return false;
        const Item &first = m_items.front();
        const std::string rootOld = naturalKey(resource, first.oldBody);
        const std::string rootNew = naturalKey(resource, first.finalBody);
        const std::string follows = "follows " + resource.resourceName + " " + rootOld + " -> " + rootNew;

        std::vector<std::size_t> order(m_items.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [this](std::size_t a, std::size_t b) { return m_items[a].layer < m_items[b].layer; });
        std::vector<std::size_t> deletes;
        for (std::size_t index : order) {
            const Item &item = m_items[index];
            const bool isRoot = index == 0;
            std::optional<StoredDocument> current = m_engine.document(item.id);
            if (!current)
                return fail("the " + item.schema->resourceName + " " + item.id
                            + " disappeared during the change; nothing was written");
            const Json currentBody = Json::parse(current->body);
            const std::string finalKey = naturalKey(*item.schema, item.finalBody);
            std::vector<std::string> fields;
            differingFields(item.oldBody, item.finalBody, "", fields);
            const std::string why = isRoot ? (merge ? "merged into " + finalKey : "identity change from " + rootOld)
                                           : follows;
            if (referentialId(*item.schema, currentBody) == referentialId(*item.schema, item.finalBody)) {
                if (isRoot && resultId != nullptr)
                    *resultId = item.id;
                if (currentBody != item.finalBody) {
                    if (!send("PUT", *item.schema, item.id, item.finalBody,
                              {"update", current->project, current->resource, item.id, finalKey, fields, why}))
                        return false;
                } else if (currentBody != item.oldBody) {
                    // The engine's cascade from an identity update earlier in the run already wrote it.
                    m_result.steps.push_back({"update", current->project, current->resource, item.id, finalKey,
                                              fields, why + " (written by the cascade)"});
                }
                continue;
            }
            std::optional<StoredDocument> existing = m_engine.documentByIdentity(*item.schema, item.finalBody);
            if (existing && existing->id != item.id) {
                if (isRoot && m_keepRoot)
                    continue; // a re-point: the document stays, referenced by nothing now
                if (isRoot && !merge)
                    return fail("a " + existing->resource + " with the identity " + finalKey + " already exists (id "
                                + existing->id + "); merge the two instead");
                if (existing->resource != item.schema->resourceName || existing->project != item.schema->projectName())
                    return fail("moving " + item.schema->resourceName + " " + naturalKey(*item.schema, item.oldBody)
                                + " would give it the identity of " + existing->resource + " " + existing->id
                                + "; nothing was written");
                deletes.push_back(index); // one of the two is enough: the same school, the same day
                continue;
            }
            if (item.schema->allowIdentityUpdates) {
                if (isRoot && resultId != nullptr)
                    *resultId = item.id;
                if (!send("PUT", *item.schema, item.id, item.finalBody,
                          {"update", current->project, current->resource, item.id, finalKey, fields,
                           why + (isRoot ? "" : " (identity change)")}))
                    return false;
                continue;
            }
            if (!send("POST", *item.schema, "", item.finalBody,
                      {"create", current->project, current->resource, "", finalKey, fields,
                       (isRoot ? "replaces " + rootOld : "replaces " + naturalKey(*item.schema, item.oldBody) + " ("
                                                             + follows + ")")},
                      isRoot ? resultId : nullptr))
                return false;
            deletes.push_back(index);
        }
        for (auto it = deletes.rbegin(); it != deletes.rend(); ++it) {
            const Item &item = m_items[*it];
            const std::string finalKey = naturalKey(*item.schema, item.finalBody);
            const bool merged = *it == 0 ? merge : m_mergedAway.count(*it) > 0;
            if (!send("DELETE", *item.schema, item.id, nullptr,
                      {"delete", item.schema->projectName(), item.schema->resourceName, item.id,
                       naturalKey(*item.schema, item.oldBody), {},
                       (merged ? "merged into " : "replaced by ") + finalKey}))
                return false;
        }
        return true;
    }

    void keepRoot() { m_keepRoot = true; }
    // Where the change log stood when the batch began: what the journal records is written after it.
    void begun() { m_since = m_engine.newestChange(); }

    // Ends the batch: a preview or a failure rolls back; apply journals (kind, summary) and commits when
    // the steps are the ones confirmed.
    IdentityChangeResult finish(bool ok, bool apply, const std::vector<IdentityStep> *expected, const std::string &kind,
                                const std::string &summary, const Json &detail)
    {
        if (ok && apply && expected != nullptr && *expected != m_result.steps) {
            ok = false;
            m_result.error = "the data changed since the preview (its steps differ now); nothing was written, "
                             "preview again";
        }
        if (ok && apply) {
            try {
                m_result.opId = journalDocumentChanges(m_engine, m_since, kind, summary, detail,
                                                       m_actor.empty() ? currentOsUser() : m_actor);
            } catch (const std::exception &e) {
                ok = fail(std::string("the edit journal could not record it: ") + e.what() + "; nothing was written");
            }
        }
        if (!ok || !apply) {
            m_result.opId = 0;
            finishOperationBatch(m_engine, false);
            m_result.ok = ok;
            return m_result;
        }
        m_result.error = finishOperationBatch(m_engine, true);
        if (!m_result.error.empty()) {
            m_result.opId = 0;
            return m_result;
        }
        m_result.ok = true;
        m_result.applied = true;
        return m_result;
    }

private:
    struct Item
    {
        std::string id;
        const ResourceSchema *schema = nullptr;
        Json oldBody;
        Json finalBody;
        int layer = 0;
        std::vector<std::size_t> references; // items it references whose identity changes
    };

    bool identityChanges(const Item &item) const
    {
        return referentialId(*item.schema, item.oldBody) != referentialId(*item.schema, item.finalBody);
    }

    bool plan(const StoredDocument &root, const ResourceSchema &resource, const Json &finalBody)
    {
        m_items.clear();
        m_mergedAway.clear();
        std::map<std::string, std::size_t> indexOf;
        auto add = [&](const StoredDocument &document, const ResourceSchema &schema) {
            Item item;
            item.id = document.id;
            item.schema = &schema;
            item.oldBody = Json::parse(document.body);
            item.finalBody = item.oldBody;
            item.layer = m_loadOrder.layerOf(&schema);
            indexOf[item.id] = m_items.size();
            m_items.push_back(std::move(item));
        };
        add(root, resource);
        m_items[0].finalBody = finalBody;
        std::set<std::size_t> expanded;
        for (int round = 0;; ++round) {
            if (round > kMaxDepth)
                return fail("identity changes cascade deeper than " + std::to_string(kMaxDepth)
                            + " levels; nothing was written");
            bool changed = false;
            for (std::size_t i = 0; i < m_items.size(); ++i) {
                if (expanded.count(i) || !identityChanges(m_items[i]))
                    continue;
                expanded.insert(i);
                for (const std::string &referrerId : referrerIds(m_items[i].id)) {
                    auto known = indexOf.find(referrerId);
                    if (known == indexOf.end()) {
                        std::optional<StoredDocument> referrer = m_engine.document(referrerId);
                        if (!referrer)
                            continue;
                        const ResourceSchema *schema = m_model.findByName(referrer->project, referrer->resource);
                        if (schema == nullptr)
                            return fail("the " + referrer->resource + " " + referrer->id + " that references "
                                        + m_items[i].schema->resourceName + " " + m_items[i].id
                                        + " is not in the loaded model; nothing was written");
                        add(*referrer, *schema);
                        known = indexOf.find(referrerId);
                    }
                    if (known->second != 0)
                        m_items[known->second].references.push_back(i);
                    changed = true;
                }
            }
            for (std::size_t i = 1; i < m_items.size(); ++i) {
                Item &item = m_items[i];
                Json rewritten = item.oldBody;
                for (std::size_t target : item.references)
                    rewritten = m_engine.redirectReferences(*item.schema, std::move(rewritten),
                                                            *m_items[target].schema, m_items[target].oldBody,
                                                            m_items[target].finalBody);
                if (rewritten != item.finalBody) {
                    item.finalBody = std::move(rewritten);
                    changed = true;
                }
            }
            if (!changed)
                break;
        }
        // Which referrers land on an identity that exists already (merged rather than recreated).
        for (std::size_t i = 1; i < m_items.size(); ++i)
            if (identityChanges(m_items[i]))
                if (std::optional<StoredDocument> existing =
                        m_engine.documentByIdentity(*m_items[i].schema, m_items[i].finalBody);
                    existing && existing->id != m_items[i].id)
                    m_mergedAway.insert(i);
        return true;
    }

    Engine &m_engine;
    const Model &m_model;
    LoadOrder m_loadOrder;
    std::vector<Item> m_items; // [0] is the document changed or merged away
    std::set<std::size_t> m_mergedAway;
    IdentityCalculator m_identity;
    std::string m_actor;
    IdentityChangeResult m_result;
    bool m_keepRoot = false;
    std::int64_t m_since = 0;
};

bool beginBatch(Engine &engine, IdentityChangeResult &result)
{
    result.error = beginOperationBatch(engine);
    return result.error.empty();
}

const ResourceSchema *changeableSchema(const Engine &engine, const StoredDocument &document, std::string &error)
{
    const ResourceSchema *schema = engine.model().findByName(document.project, document.resource);
    if (schema == nullptr)
        error = "the " + document.resource + " " + document.id + " is not in the loaded model";
    else if (schema->isDescriptor)
        error = "descriptors are referenced by their URI text, not by an identity this can move: " + document.id
                + " is a " + document.resource;
    return schema != nullptr && !schema->isDescriptor ? schema : nullptr;
}

} // namespace

Json IdentityStep::toJson() const
{
    Json out{{"op", op}, {"project", project}, {"resource", resource}, {"naturalKey", naturalKey},
             {"fields", fields}, {"why", why}};
    if (!id.empty())
        out["id"] = id;
    return out;
}

std::string IdentityStep::describe() const
{
    std::string text = op + " " + resource + " " + naturalKey;
    if (!fields.empty()) {
        text += " (";
        for (std::size_t i = 0; i < fields.size(); ++i)
            text += (i == 0 ? "" : ", ") + fields[i];
        text += ")";
    }
    return text + ": " + why;
}

Json IdentityChangeResult::toJson() const
{
    Json list = Json::array();
    for (const IdentityStep &step : steps)
        list.push_back(step.toJson());
    Json out{{"ok", ok}, {"applied", applied}, {"steps", list}};
    if (!error.empty())
        out["error"] = error;
    if (!problem.is_null())
        out["problem"] = problem;
    if (!resultId.empty())
        out["id"] = resultId;
    if (opId != 0)
        out["opId"] = opId;
    return out;
}

std::vector<std::string> identityFieldNames(const ResourceSchema &resource)
{
    std::vector<std::string> names;
    for (const JsonPath &path : resource.identityPaths)
        names.push_back(dotted(path));
    return names;
}

IdentityChangeResult changeIdentity(Engine &engine, const std::string &id,
                                    const std::vector<std::pair<std::string, std::string>> &assignments, bool apply,
                                    const std::vector<IdentityStep> *expected, const std::string &actor)
{
    Planner planner(engine, actor);
    IdentityChangeResult &result = planner.result();
    if (assignments.empty()) {
        result.error = "no identity value to change was given";
        return result;
    }
    const ChangeSourceScope source(engine, "identity change");
    if (!beginBatch(engine, result))
        return result;
    std::string summary;
    Json detail;
    auto run = [&]() -> bool {
        planner.begun();
        std::optional<StoredDocument> document = engine.document(id);
        if (!document)
            return planner.fail("no document with the id '" + id + "' exists");
        std::string error;
        const ResourceSchema *schema = changeableSchema(engine, *document, error);
        if (schema == nullptr)
            return planner.fail(error);
        const Json body = Json::parse(document->body);
        Json newBody = body;
        std::string fieldList;
        for (const std::string &name : identityFieldNames(*schema))
            fieldList += (fieldList.empty() ? "" : ", ") + name;
        for (const auto &[field, text] : assignments) {
            bool matched = false;
            for (const JsonPath &path : schema->identityPaths) {
                if (dotted(path) != field && lastName(dotted(path)) != field)
                    continue;
                matched = true;
                const Json *current = path.resolve(body, {});
                Json value;
                if (current == nullptr || !valueFromText(*current, text, value))
                    return planner.fail("'" + text + "' is not a value for " + schema->resourceName + "'s "
                                        + dotted(path));
                path.assign(newBody, {}, value);
            }
            if (!matched)
                return planner.fail("'" + field + "' is not an identity field of " + schema->resourceName
                                    + " (its identity fields: " + fieldList + ")");
        }
        const std::string oldKey = planner.naturalKey(*schema, body);
        const std::string newKey = planner.naturalKey(*schema, newBody);
        if (planner.referentialId(*schema, body) == planner.referentialId(*schema, newBody))
            return planner.fail("the " + schema->resourceName + " " + oldKey + " already has these identity values");
        if (std::optional<StoredDocument> taken = engine.documentByIdentity(*schema, newBody))
            return planner.fail("a " + taken->resource + " with the identity " + newKey + " already exists (id "
                                + taken->id + "); merge the two instead");
        summary = "Change " + schema->resourceName + " " + oldKey + " to " + newKey;
        detail = Json{{"id", id}, {"resource", schema->resourceName}, {"from", oldKey}, {"to", newKey}};
        return planner.move(*document, *schema, newBody, false, &result.resultId);
    };
    bool ok = false;
    try {
        ok = run();
    } catch (const std::exception &e) {
        ok = planner.fail(std::string("identity change stopped: ") + e.what() + "; nothing was written");
    }
    return planner.finish(ok, apply, expected, "change-identity", summary, detail);
}

namespace {

// A merge (drop deleted at the end) or a re-point (drop stays unless deleteAfter): drop's referrers move to keep.
IdentityChangeResult moveReferrers(Engine &engine, const std::string &keepId, const std::string &dropId, bool merge,
                                   bool deleteAfter, bool apply, const std::vector<IdentityStep> *expected,
                                   const std::string &actor)
{
    Planner planner(engine, actor);
    IdentityChangeResult &result = planner.result();
    const std::string verb = merge ? "merge" : "re-point";
    if (keepId == dropId) {
        result.error = merge ? "a document cannot be merged into itself (" + keepId + ")"
                             : "references cannot be moved to the document they point at already (" + keepId + ")";
        return result;
    }
    if (!merge && !deleteAfter)
        planner.keepRoot();
    const ChangeSourceScope source(engine, merge ? "merge" : "re-point");
    if (!beginBatch(engine, result))
        return result;
    std::string summary;
    Json detail;
    auto run = [&]() -> bool {
        planner.begun();
        std::optional<StoredDocument> keep = engine.document(keepId);
        std::optional<StoredDocument> drop = engine.document(dropId);
        if (!keep)
            return planner.fail("no document with the id '" + keepId + "' (" + (merge ? "to keep" : "to move to")
                                + ") exists");
        if (!drop)
            return planner.fail("no document with the id '" + dropId + "' (" + (merge ? "to merge away" : "to move from")
                                + ") exists");
        if (keep->project != drop->project || keep->resource != drop->resource)
            return planner.fail(std::string(merge ? "only documents of one resource merge: "
                                                  : "references move only to a document of the same resource: ")
                                + keepId + " is a " + keep->resource + ", " + dropId + " a " + drop->resource);
        std::string error;
        const ResourceSchema *schema = changeableSchema(engine, *drop, error);
        if (schema == nullptr)
            return planner.fail(error);
        result.resultId = keepId;
        const Json keepBody = Json::parse(keep->body);
        const std::string keepKey = planner.naturalKey(*schema, keepBody);
        const std::string dropKey = planner.naturalKey(*schema, Json::parse(drop->body));
        summary = merge ? "Merge " + schema->resourceName + " " + dropKey + " into " + keepKey
                        : "Move the references to " + schema->resourceName + " " + dropKey + " to " + keepKey
                              + (deleteAfter ? ", then delete it" : "");
        detail = Json{{"from", dropId}, {"to", keepId}, {"resource", schema->resourceName},
                      {"fromKey", dropKey}, {"toKey", keepKey}};
        return planner.move(*drop, *schema, keepBody, true, nullptr);
    };
    bool ok = false;
    try {
        ok = run();
    } catch (const std::exception &e) {
        ok = planner.fail(verb + " stopped: " + e.what() + "; nothing was written");
    }
    return planner.finish(ok, apply, expected, merge ? "merge" : "repoint", summary, detail);
}

} // namespace

IdentityChangeResult mergeDocuments(Engine &engine, const std::string &keepId, const std::string &dropId, bool apply,
                                    const std::vector<IdentityStep> *expected, const std::string &actor)
{
    return moveReferrers(engine, keepId, dropId, true, true, apply, expected, actor);
}

IdentityChangeResult repointReferences(Engine &engine, const std::string &fromId, const std::string &toId,
                                       bool deleteAfter, bool apply, const std::vector<IdentityStep> *expected,
                                       const std::string &actor)
{
    return moveReferrers(engine, toId, fromId, false, deleteAfter, apply, expected, actor);
}

} // namespace steward
