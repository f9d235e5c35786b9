#include "IdentityChange.h"

#include "Identity.h"

#include <cmath>
#include <cstdlib>

namespace steward {

namespace {

constexpr int kMaxDepth = 32;
constexpr int kReferrerPage = 500;

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
        const long long number = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0')
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

std::string collectionPath(const ResourceSchema &resource)
{
    return "/" + resource.project->projectEndpointName + "/" + resource.endpointName;
}

// Runs the steps through Engine::handle inside one batch (one BEGIN IMMEDIATE); every read in
// between sees the batch's own writes, so each step is planned from the state the previous left.
class Planner
{
public:
    Planner(Engine &engine, const std::string &actor)
        : m_engine(engine)
        , m_model(engine.model())
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
        Request request;
        request.method = method;
        request.path = collectionPath(resource) + (id.empty() ? "" : "/" + id);
        if (!body.is_null())
            request.body = body;
        request.actor = m_actor;
        const Response response = m_engine.handle(request);
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

    // Moves everything that references old to newBody's identity, then deletes old. When the target
    // does not exist yet it is created first from newBody.
    bool moveInto(const StoredDocument &old, const ResourceSchema &resource, const Json &newBody, bool targetExists,
                  const std::string &why, int depth, std::string *createdId = nullptr)
    {
        if (depth > kMaxDepth)
            return fail("references of references go deeper than " + std::to_string(kMaxDepth)
                        + " levels below " + old.resource + " " + old.id + "; nothing was written");
        const Json oldBody = Json::parse(old.body);
        const std::string oldKey = naturalKey(resource, oldBody);
        const std::string newKey = naturalKey(resource, newBody);
        // Referrers of this document may also reference the documents moving further up (a Session
        // references its School directly and through its GradingPeriods, which must agree), so each
        // referrer is rewritten for every move in progress at once.
        m_moves.push_back({&resource, oldBody, newBody});
        struct PopMove
        {
            std::vector<Move> &moves;
            ~PopMove() { moves.pop_back(); }
        } popMove{m_moves};
        if (!targetExists) {
            IdentityStep create{"create", resource.projectName(), resource.resourceName, "", newKey, {}, why};
            differingFields(oldBody, newBody, "", create.fields);
            if (!send("POST", resource, "", newBody, create, createdId))
                return false;
        }
        for (const std::string &referrerId : referrerIds(old.id)) {
            // An earlier step (a cascade, or a merge of another referrer) may have changed or removed it.
            std::optional<StoredDocument> referrer = m_engine.document(referrerId);
            if (!referrer)
                continue;
            const ResourceSchema *referrerSchema = m_model.findByName(referrer->project, referrer->resource);
            if (referrerSchema == nullptr)
                return fail("the " + referrer->resource + " " + referrer->id + " that references " + old.resource
                            + " " + oldKey + " is not in the loaded model; nothing was written");
            const Json referrerBody = Json::parse(referrer->body);
            Json moved = referrerBody;
            for (const Move &move : m_moves)
                moved = m_engine.redirectReferences(*referrerSchema, std::move(moved), *move.resource, move.oldBody,
                                                    move.newBody);
            if (moved == referrerBody)
                continue; // it points at old through something this cannot rewrite; the delete names it
            const std::string referrerKey = naturalKey(*referrerSchema, referrerBody);
            const std::string movedKey = naturalKey(*referrerSchema, moved);
            const std::string follows = "follows " + resource.resourceName + " " + oldKey + " -> " + newKey;
            std::vector<std::string> fields;
            differingFields(referrerBody, moved, "", fields);
            if (referentialId(*referrerSchema, referrerBody) == referentialId(*referrerSchema, moved)) {
                if (!send("PUT", *referrerSchema, referrer->id, moved,
                          {"update", referrer->project, referrer->resource, referrer->id, movedKey, fields, follows}))
                    return false;
            } else if (std::optional<StoredDocument> existing = m_engine.documentByIdentity(*referrerSchema, moved)) {
                if (existing->resource != referrerSchema->resourceName || existing->project != referrerSchema->projectName())
                    return fail("moving " + referrer->resource + " " + referrerKey + " would give it the identity of "
                                + existing->resource + " " + existing->id + "; nothing was written");
                // Both were enrolled in the same school on the same day: one enrollment is enough.
                if (!moveInto(*referrer, *referrerSchema, Json::parse(existing->body), true,
                              "merged into the existing " + referrerSchema->resourceName + " " + movedKey + " (" + follows
                                  + ")",
                              depth + 1))
                    return false;
            } else if (referrerSchema->allowIdentityUpdates) {
                if (!send("PUT", *referrerSchema, referrer->id, moved,
                          {"update", referrer->project, referrer->resource, referrer->id, movedKey, fields,
                           follows + " (identity change)"}))
                    return false;
            } else {
                if (!moveInto(*referrer, *referrerSchema, moved, false,
                              "replaces " + referrerKey + " (" + follows + ")", depth + 1))
                    return false;
            }
        }
        const std::string deleteWhy = targetExists ? "merged into " + newKey : "replaced by " + newKey;
        return send("DELETE", resource, old.id, nullptr,
                    {"delete", old.project, old.resource, old.id, oldKey, {}, deleteWhy});
    }

    // Ends the batch: a preview or a failure rolls back; apply commits when the steps are the ones confirmed.
    IdentityChangeResult finish(bool ok, bool apply, const std::vector<IdentityStep> *expected)
    {
        if (ok && apply && expected != nullptr && *expected != m_result.steps) {
            ok = false;
            m_result.error = "the data changed since the preview (its steps differ now); nothing was written, "
                             "preview again";
        }
        if (!ok || !apply) {
            m_engine.rollbackBatch();
            m_result.ok = ok;
            return m_result;
        }
        try {
            m_engine.commitBatch();
        } catch (const StorageError &e) {
            m_result.error = e.what();
            return m_result;
        }
        m_result.ok = true;
        m_result.applied = true;
        return m_result;
    }

private:
    struct Move
    {
        const ResourceSchema *resource;
        Json oldBody;
        Json newBody;
    };

    Engine &m_engine;
    const Model &m_model;
    std::vector<Move> m_moves; // the documents being moved, outermost first
    IdentityCalculator m_identity;
    std::string m_actor;
    IdentityChangeResult m_result;
};

bool beginBatch(Engine &engine, IdentityChangeResult &result)
{
    if (engine.inBatch()) {
        result.error = "the engine is already inside a batch; finish it first";
        return false;
    }
    try {
        engine.beginBatch();
    } catch (const StorageError &e) {
        result.error = e.what();
        return false;
    } catch (const SQLite::Exception &e) {
        result.error = std::string("cannot begin the transaction: ") + e.what();
        return false;
    }
    return true;
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
    if (!beginBatch(engine, result))
        return result;
    auto run = [&]() -> bool {
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
        if (schema->allowIdentityUpdates) {
            std::vector<std::string> fields;
            differingFields(body, newBody, "", fields);
            const std::int64_t referrers = engine.referrers(id, 1, 0).total;
            result.resultId = id;
            return planner.send("PUT", *schema, id, newBody,
                                {"update", document->project, document->resource, id, newKey, fields,
                                 "identity change from " + oldKey + " (the resource allows it; "
                                     + std::to_string(referrers) + " referencing documents follow)"});
        }
        return planner.moveInto(*document, *schema, newBody, false, "replaces " + oldKey, 0, &result.resultId);
    };
    bool ok = false;
    try {
        ok = run();
    } catch (const std::exception &e) {
        ok = planner.fail(std::string("identity change stopped: ") + e.what() + "; nothing was written");
    }
    return planner.finish(ok, apply, expected);
}

IdentityChangeResult mergeDocuments(Engine &engine, const std::string &keepId, const std::string &dropId, bool apply,
                                    const std::vector<IdentityStep> *expected, const std::string &actor)
{
    Planner planner(engine, actor);
    IdentityChangeResult &result = planner.result();
    if (keepId == dropId) {
        result.error = "a document cannot be merged into itself (" + keepId + ")";
        return result;
    }
    if (!beginBatch(engine, result))
        return result;
    auto run = [&]() -> bool {
        std::optional<StoredDocument> keep = engine.document(keepId);
        std::optional<StoredDocument> drop = engine.document(dropId);
        if (!keep)
            return planner.fail("no document with the id '" + keepId + "' (to keep) exists");
        if (!drop)
            return planner.fail("no document with the id '" + dropId + "' (to merge away) exists");
        if (keep->project != drop->project || keep->resource != drop->resource)
            return planner.fail("only documents of one resource merge: " + keepId + " is a " + keep->resource + ", "
                                + dropId + " a " + drop->resource);
        std::string error;
        const ResourceSchema *schema = changeableSchema(engine, *drop, error);
        if (schema == nullptr)
            return planner.fail(error);
        result.resultId = keepId;
        const Json keepBody = Json::parse(keep->body);
        return planner.moveInto(*drop, *schema, keepBody, true,
                                "merged into " + planner.naturalKey(*schema, keepBody), 0);
    };
    bool ok = false;
    try {
        ok = run();
    } catch (const std::exception &e) {
        ok = planner.fail(std::string("merge stopped: ") + e.what() + "; nothing was written");
    }
    return planner.finish(ok, apply, expected);
}

} // namespace steward
