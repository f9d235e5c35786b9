#include "Dependents.h"

#include "BulkEdit.h"
#include "EngineRequests.h"
#include "LoadOrder.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace steward {

namespace {


const char *const kCascadeDeleteKind = "cascade-delete"; // DocumentJournal.cpp names it too

// Finds everything that depends on a document, orders the deletes, and sends them.
class CascadeRun
{
public:
    CascadeRun(Engine &engine, CascadeDeleteResult &result, const std::string &actor)
        : m_engine(engine)
        , m_result(result)
        , m_actor(actor)
    {
    }

    bool fail(const std::string &message, const Json &problem = nullptr)
    {
        m_result.error = message;
        m_result.problem = problem;
        return false;
    }

    bool collect(const std::string &id)
    {
        std::optional<StoredDocument> root = m_engine.document(id);
        if (!root)
            return fail("no document with the id '" + id + "' exists");
        std::vector<DependentNode> &nodes = m_result.nodes;
        nodes.push_back({root->id, root->project, root->resource, naturalKeyText(Json::parse(root->identity)), -1,
                         {}, 0});
        std::unordered_map<std::string, std::size_t> indexOf{{root->id, 0}};
        m_referrerCount.assign(1, 0);
        m_referencesInSet.assign(1, {});
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            for (int offset = 0;; offset += kReferrerPage) {
                const ReferrerPage page = m_engine.referrers(nodes[i].id, kReferrerPage, offset);
                for (const Referrer &referrer : page.items) {
                    auto known = indexOf.find(referrer.id);
                    if (known == indexOf.end()) {
                        if (nodes.size() >= kCascadeLimit)
                            return fail("more than " + std::to_string(kCascadeLimit) + " documents depend on "
                                        + nodes[0].resource + " " + nodes[0].naturalKey
                                        + "; delete some of them first");
                        known = indexOf.emplace(referrer.id, nodes.size()).first;
                        nodes.push_back({referrer.id, referrer.project, referrer.resource, referrer.naturalKey,
                                         static_cast<int>(i), referrer.paths, nodes[i].depth + 1});
                        m_referrerCount.push_back(0);
                        m_referencesInSet.emplace_back();
                    }
                    ++m_referrerCount[i];
                    m_referencesInSet[known->second].push_back(i);
                }
                if (static_cast<int>(page.items.size()) < kReferrerPage)
                    break;
            }
        }
        return true;
    }

    // A document goes once nothing left in the set references it; the last found go first.
    bool order()
    {
        const std::vector<DependentNode> &nodes = m_result.nodes;
        std::vector<std::size_t> remaining = m_referrerCount;
        std::deque<std::size_t> ready;
        for (std::size_t i = nodes.size(); i-- > 0;)
            if (remaining[i] == 0)
                ready.push_back(i);
        while (!ready.empty()) {
            const std::size_t next = ready.front();
            ready.pop_front();
            m_result.deleteOrder.push_back(next);
            for (std::size_t target : m_referencesInSet[next])
                if (--remaining[target] == 0)
                    ready.push_back(target);
        }
        if (m_result.deleteOrder.size() == nodes.size())
            return true;
        std::string cycle;
        int listed = 0;
        for (std::size_t i = 0; i < nodes.size() && listed < 5; ++i)
            if (remaining[i] > 0) {
                cycle += (listed++ == 0 ? "" : ", ") + nodes[i].resource + " " + nodes[i].naturalKey;
            }
        m_result.deleteOrder.clear();
        return fail("these documents reference each other in a circle, so none can go first: " + cycle
                    + "; change one of their references first");
    }

    bool deleteAll()
    {
        const Model &model = m_engine.model();
        for (std::size_t index : m_result.deleteOrder) {
            const DependentNode &node = m_result.nodes[index];
            const ResourceSchema *schema = model.findByName(node.project, node.resource);
            if (schema == nullptr)
                return fail("the " + node.resource + " " + node.id + " is not in the loaded model; nothing was deleted");
            const Response response = m_engine.handle(Request::make("DELETE", schema->requestPath(node.id), m_actor));
            if (!succeeded(response) || m_engine.batchBroken())
                return fail("delete " + node.resource + " " + node.naturalKey + " was refused (HTTP "
                                + std::to_string(response.status) + "): " + problemSummary(response.body)
                                + "; nothing was deleted",
                            response.body);
        }
        return true;
    }

private:
    Engine &m_engine;
    CascadeDeleteResult &m_result;
    std::string m_actor;
    std::vector<std::size_t> m_referrerCount;                // per node: documents in the set referencing it
    std::vector<std::vector<std::size_t>> m_referencesInSet; // per node: the nodes it references
};

const ResourceSchema *schemaOf(const Model &model, const EditItem &item, std::string &failures)
{
    const ResourceSchema *schema = model.findByName(item.project, item.resource);
    if (schema == nullptr)
        failures += "\n" + item.resource + " " + item.targetKey + ": " + item.resource + " is not in the loaded model";
    return schema;
}

bool isUnresolvedReference(const Response &response)
{
    return response.status == 409 && response.body.is_object()
           && response.body.value("type", std::string()) == problem::kUnresolvedReference;
}

bool isDependentItem(const Response &response)
{
    return response.status == 409 && response.body.is_object()
           && response.body.value("type", std::string()) == problem::kDependentItemExists;
}

} // namespace

std::vector<std::pair<std::string, int>> CascadeDeleteResult::countsByResource() const
{
    std::vector<std::pair<std::string, int>> counts;
    for (std::size_t index : deleteOrder) {
        const std::string &resource = nodes[index].resource;
        auto it = std::find_if(counts.begin(), counts.end(), [&](const auto &entry) { return entry.first == resource; });
        if (it == counts.end())
            counts.emplace_back(resource, 1);
        else
            ++it->second;
    }
    return counts;
}

Json CascadeDeleteResult::toJson() const
{
    Json list = Json::array();
    for (std::size_t index : deleteOrder) {
        const DependentNode &node = nodes[index];
        Json entry{{"id", node.id},     {"project", node.project}, {"resource", node.resource},
                   {"naturalKey", node.naturalKey}, {"depth", node.depth}};
        if (node.parent >= 0) {
            entry["references"] = nodes[static_cast<std::size_t>(node.parent)].id;
            entry["paths"] = node.paths;
        }
        list.push_back(std::move(entry));
    }
    Json counts = Json::object();
    for (const auto &[resource, count] : countsByResource())
        counts[resource] = count;
    Json out{{"ok", ok}, {"applied", applied}, {"deletes", list}, {"countsByResource", counts}};
    if (!error.empty())
        out["error"] = error;
    if (!problem.is_null())
        out["problem"] = problem;
    if (opId != 0)
        out["opId"] = opId;
    return out;
}

CascadeDeleteResult cascadeDelete(Engine &engine, const std::string &id, bool apply,
                                  const std::vector<DependentNode> *expected, const std::string &actor)
{
    CascadeDeleteResult result;
    const std::string who = actor.empty() ? currentOsUser() : actor;
    result.error = beginOperationBatch(engine);
    if (!result.error.empty())
        return result;
    const ChangeSourceScope source(engine, "cascade delete");
    CascadeRun run(engine, result, who);
    bool ok = false;
    try {
        const std::int64_t since = engine.newestChange();
        ok = run.collect(id) && run.order();
        if (ok && expected != nullptr && *expected != result.nodes)
            ok = run.fail("the documents that depend on it changed since the preview; nothing was deleted, preview again");
        ok = ok && run.deleteAll();
        if (ok && apply) {
            const DependentNode &root = result.nodes.front();
            const std::string summary = "Delete " + root.resource + " " + root.naturalKey + " and "
                                        + std::to_string(result.nodes.size() - 1) + " documents that depend on it";
            const Json detail{{"id", root.id}, {"resource", root.resource}, {"naturalKey", root.naturalKey},
                              {"documents", result.nodes.size()}};
            result.opId = journalDocumentChanges(engine, since, kCascadeDeleteKind, summary, detail, who);
        }
    } catch (const std::exception &e) {
        ok = run.fail(std::string("cascading delete stopped: ") + e.what() + "; nothing was deleted");
    }
    if (!ok || !apply) {
        finishOperationBatch(engine, false);
        result.opId = 0;
        result.ok = ok;
        return result;
    }
    result.error = finishOperationBatch(engine, true);
    if (!result.error.empty()) {
        result.opId = 0;
        return result;
    }
    result.ok = true;
    result.applied = true;
    return result;
}

int putDocumentsBack(Engine &engine, std::int64_t opId, const std::vector<EditItem> &items, const std::string &actor)
{
    const Model &model = engine.model();
    const std::string refused = "Edit operation " + std::to_string(opId) + " cannot be undone; nothing was changed.";
    std::string conflicts;
    for (const EditItem &item : items) {
        const std::optional<StoredDocument> now = engine.document(item.targetKey);
        const std::string what = item.resource + " " + item.targetKey;
        if (item.afterText.empty()) {
            if (now)
                conflicts += "\n" + what + " (" + naturalKeyText(Json::parse(now->identity)) + ") was stored again since";
        } else if (!now) {
            conflicts += "\n" + what + " was deleted since";
        } else if (now->etag != item.afterEtag) {
            conflicts += "\n" + what + " (" + naturalKeyText(Json::parse(now->identity)) + ") changed since";
        }
    }
    if (!conflicts.empty())
        throw EditRefused(refused + " Changed since the operation:" + conflicts);

    // What existed before comes back parents first; what the operation created goes, referrers first.
    // A document whose reference or referrer is of its own layer may need a second pass.
    LoadOrder loadOrder(model);
    auto layer = [&](const EditItem *item) { return loadOrder.layerOf(model.findByName(item->project, item->resource)); };
    std::vector<const EditItem *> putBack;
    std::vector<const EditItem *> takeAway;
    for (const EditItem &item : items)
        (item.beforeText.empty() ? takeAway : putBack).push_back(&item);
    std::stable_sort(putBack.begin(), putBack.end(), [&](auto a, auto b) { return layer(a) < layer(b); });
    std::stable_sort(takeAway.begin(), takeAway.end(), [&](auto a, auto b) { return layer(a) > layer(b); });

    std::string failures;
    // Sends each item's request; those refused for an order reason wait for the next pass.
    auto passes = [&](std::vector<const EditItem *> pending, auto send, auto waits) {
        while (!pending.empty()) {
            std::vector<const EditItem *> later;
            std::string lastRefusals;
            for (const EditItem *item : pending) {
                const ResourceSchema *schema = schemaOf(model, *item, failures);
                if (schema == nullptr)
                    continue;
                std::optional<Response> response = send(*schema, *item);
                if (!response)
                    continue;
                if (engine.batchBroken())
                    throw EditRefused(refused + " The database refused a write: " + problemSummary(response->body));
                if (!succeeded(*response)) {
                    const std::string why = "\n" + item->resource + " " + item->targetKey + ": "
                                            + problemSummary(response->body);
                    if (waits(*response)) {
                        later.push_back(item);
                        lastRefusals += why;
                    } else {
                        failures += why;
                    }
                }
            }
            if (later.size() == pending.size()) {
                failures += lastRefusals;
                return;
            }
            pending = std::move(later);
        }
    };
    passes(
        putBack,
        [&](const ResourceSchema &schema, const EditItem &item) -> std::optional<Response> {
            const std::optional<StoredDocument> now = engine.document(item.targetKey);
            if (!now)
                return engine.restoreDocument(schema, item.targetKey, item.beforeText, actor);
            if (now->body == item.beforeText)
                return std::nullopt; // an identity update put back earlier cascaded here already
            return engine.handle(
                Request::make("PUT", schema.requestPath(item.targetKey), actor, Json::parse(item.beforeText))
                    .ifMatch(now->etag));
        },
        isUnresolvedReference);
    passes(
        takeAway,
        [&](const ResourceSchema &schema, const EditItem &item) -> std::optional<Response> {
            if (!engine.document(item.targetKey))
                return std::nullopt;
            return engine.handle(Request::make("DELETE", schema.requestPath(item.targetKey), actor));
        },
        isDependentItem);
    if (!failures.empty())
        throw EditRefused(refused + " Refused:" + failures);
    return static_cast<int>(items.size());
}

} // namespace steward
