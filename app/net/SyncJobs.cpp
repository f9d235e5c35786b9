#include "SyncJobs.h"

#include "LoadOrder.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>

namespace steward {

namespace {

constexpr int kPageSize = 500; // the largest page Ed-Fi's APIs serve

struct Pending
{
    const ResourceSchema *resource = nullptr;
    std::string remoteId;
    std::string etag; // the target's, of this version
    Json body;
    std::string origin;
    std::int64_t position = 0;
};

// Change Queries' newest change version, read case-insensitively (older ODS/APIs capitalized it).
std::optional<std::int64_t> newestChangeVersion(const Json &body)
{
    if (!body.is_object())
        return std::nullopt;
    for (const auto &[name, value] : body.items())
        if (toLower(name) == "newestchangeversion" && value.is_number_integer())
            return value.get<std::int64_t>();
    return std::nullopt;
}

// A document's etag as the target gave it: the body's _etag, else the ETag header.
std::string etagOf(const Json &body, const RemoteResponse *response = nullptr)
{
    if (body.is_object())
        if (auto etag = body.find("_etag"); etag != body.end() && etag->is_string())
            return etag->get<std::string>();
    return response != nullptr ? etagFromHeader(response->header("etag")) : std::string();
}

class Puller
{
public:
    Puller(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
           const SyncSafeguards &safeguards)
        : m_engine(engine)
        , m_state(database.connection())
        , m_remote(remote)
        , m_target(m_state.ensureTarget(remote.url(), client))
        , m_reconciler(engine, m_state, m_target)
        , m_safeguards(safeguards)
    {
        if (!safeguards.itemsByKey)
            m_reconciler.setItemPairing(DocumentMerger::Pairing::ByResemblance);
    }

    PullReport run(const SyncProgressFn &progress)
    {
        const ChangeSourceScope source(m_engine, "pull " + m_remote.url());
        const LoadOrder order(m_engine.model());
        SyncProgress status;
        status.phase = "pulling";
        try {
            // With Change Queries, a pull takes what changed up to the target's newest change version
            // (everything the first time), and remembers that version for the next.
            std::optional<std::int64_t> newest;
            if (m_remote.hasChangeQueries()) {
                const RemoteResponse available = m_remote.sendChangeQueries("/availableChangeVersions");
                ++m_report.requests;
                newest = available.status == 200 ? newestChangeVersion(available.json()) : std::nullopt;
            }
            // A target whose newest version went backwards was rebuilt: take everything again.
            if (newest && m_target.pullChangeVersion >= 0 && *newest >= m_target.pullChangeVersion) {
                m_window = "&minChangeVersion=" + std::to_string(m_target.pullChangeVersion + 1)
                           + "&maxChangeVersion=" + std::to_string(*newest);
                m_report.incremental = true;
            } else if (newest) {
                m_window = "&maxChangeVersion=" + std::to_string(*newest);
            }
            if (!m_report.incremental || *newest > m_target.pullChangeVersion) {
                for (const ResourceSchema *resource : order.flat()) {
                    status.resource = resource->resourceKey();
                    if (progress && !progress(status)) {
                        m_report.outcome.cancelled = true;
                        return m_report;
                    }
                    if (m_report.incremental && resource->allowIdentityUpdates && !takeKeyChanges(*resource))
                        return m_report;
                    if (!pullResource(*resource, status, progress))
                        return m_report;
                }
                retryUnresolved();
                if (m_report.incremental) {
                    const std::vector<const ResourceSchema *> flat = order.flat();
                    for (auto it = flat.rbegin(); it != flat.rend(); ++it)
                        if (!takeDeletes(**it))
                            return m_report;
                }
            }
            m_report.changeVersion = newest;
        } catch (const std::exception &e) {
            m_engine.rollbackBatch();
            m_report.outcome.error = std::string("the pull stopped: ") + e.what() + "; pages stored before stay";
            return m_report;
        }
        m_report.outcome.completed = true;
        m_state.markPulled(m_target.targetId, m_report.changeVersion);
        return m_report;
    }

private:
    // Every page of the resource (in the change window, when there is one). False when the pull stopped.
    bool pullResource(const ResourceSchema &resource, SyncProgress &status, const SyncProgressFn &progress)
    {
        for (std::int64_t offset = 0;; offset += kPageSize) {
            if (offset > 0 && progress && !progress(status)) {
                m_report.outcome.cancelled = true;
                return false;
            }
            const std::string page = resource.requestPath() + "?offset=" + std::to_string(offset)
                                     + "&limit=" + std::to_string(kPageSize) + m_window;
            const RemoteResponse response = m_remote.send("GET", page);
            ++m_report.requests;
            if (response.status == 404)
                return true; // the target's model does not have this resource
            const Json items = response.json();
            if (response.status != 200 || !items.is_array())
                return stop(page, response);
            ++m_report.pages;
            std::vector<Pending> pending;
            for (std::size_t i = 0; i < items.size(); ++i)
                pending.push_back(pendingFrom(resource, items[i], page, offset + static_cast<std::int64_t>(i) + 1));
            apply(pending, false);
            status.done += static_cast<std::int64_t>(items.size());
            if (items.size() < static_cast<std::size_t>(kPageSize))
                return true;
        }
    }

    // References to documents of the same resource that came on a later page.
    void retryUnresolved()
    {
        for (bool progressed = true; progressed && !m_unresolved.empty();) {
            std::vector<Pending> again;
            again.swap(m_unresolved);
            apply(again, false);
            progressed = m_unresolved.size() < again.size();
        }
        std::vector<Pending> last;
        last.swap(m_unresolved);
        apply(last, true);
    }

    // Every entry of a Change Queries feed ("deletes", "keyChanges") in the window, page by page.
    std::optional<std::vector<Json>> readFeed(const ResourceSchema &resource, const std::string &feed)
    {
        std::vector<Json> entries;
        for (std::int64_t offset = 0;; offset += kPageSize) {
            const std::string page = resource.requestPath(feed) + "?offset=" + std::to_string(offset)
                                     + "&limit=" + std::to_string(kPageSize) + m_window;
            const RemoteResponse response = m_remote.send("GET", page);
            ++m_report.requests;
            if (response.status == 404)
                return entries; // no such resource (or feed) on the target
            const Json items = response.json();
            if (response.status != 200 || !items.is_array()) {
                stop(page, response);
                return std::nullopt;
            }
            for (const Json &item : items)
                if (item.is_object())
                    entries.push_back(item);
            if (items.size() < static_cast<std::size_t>(kPageSize))
                return entries;
        }
    }

    // The local document a feed entry names: by the target's id, else by its key values.
    std::optional<std::string> localDocumentFor(const ResourceSchema &resource, const Json &entry, const char *keys)
    {
        if (entry.contains("id") && entry["id"].is_string())
            if (std::optional<std::string> known = m_state.localId(m_target.targetId, entry["id"].get<std::string>()))
                return known;
        if (!entry.contains(keys) || !entry[keys].is_object())
            return std::nullopt;
        // Key values are flat (leaf names); put each where the resource's identity has that name.
        Json body = Json::object();
        for (const JsonPath &path : resource.identityPaths) {
            const std::string leaf = path.steps().empty() ? std::string() : path.steps().back().property;
            if (auto value = entry[keys].find(leaf); value != entry[keys].end())
                path.assign(body, {}, *value);
        }
        std::optional<StoredDocument> found = m_engine.documentByIdentity(resource, body);
        if (!found)
            return std::nullopt;
        // The same identity under another id of the target is another document: one created there
        // again after this entry's was deleted (or moved there by a key change).
        if (entry.contains("id") && entry["id"].is_string())
            if (std::optional<SyncBase> base = m_state.base(m_target.targetId, found->id);
                base && !base->remoteId.empty() && base->remoteId != entry["id"].get<std::string>())
                return std::nullopt;
        return found->id;
    }

    // A key change is pulled as the changed document under the target's id: remember which local
    // document that id is, so the upsert that follows moves it instead of adding another.
    bool takeKeyChanges(const ResourceSchema &resource)
    {
        std::optional<std::vector<Json>> entries = readFeed(resource, "keyChanges");
        if (!entries)
            return false;
        std::vector<std::pair<std::string, std::string>> remoteIds;
        for (const Json &entry : *entries)
            if (entry.contains("id") && entry["id"].is_string())
                if (std::optional<std::string> local = localDocumentFor(resource, entry, "oldKeyValues"))
                    remoteIds.emplace_back(*local, entry["id"].get<std::string>());
        if (!remoteIds.empty())
            m_state.setRemoteIds(m_target.targetId, remoteIds);
        m_report.keyChanges += static_cast<int>(entries->size());
        return true;
    }

    bool takeDeletes(const ResourceSchema &resource)
    {
        std::optional<std::vector<Json>> entries = readFeed(resource, "deletes");
        if (!entries)
            return false;
        if (entries->empty())
            return true;
        const std::string resourceKey = resource.resourceKey();
        m_engine.beginBatch();
        for (const Json &entry : *entries) {
            std::optional<std::string> local = localDocumentFor(resource, entry, "keyValues");
            if (!local)
                continue; // never pulled, or gone already
            if (m_safeguards.mergeOnPull) {
                // Deleted there and changed here is a conflict, not a delete.
                TargetCopy gone;
                gone.remoteId = entry.value("id", std::string());
                if (!takesTheirs(resource, *local, gone))
                    continue;
            }
            const Response response =
                m_engine.handle(Request::make("DELETE", resource.requestPath(*local), pullActor(m_remote.url())));
            if (m_engine.batchBroken())
                throw std::runtime_error(response.body.value("detail", std::string("a write failed")));
            if (response.status == 204) {
                ++m_report.deleted;
                m_state.forgetRemoteId(m_target.targetId, *local);
            } else if (response.status != 404) {
                // Something here still references it: the steward decides, nothing is lost.
                m_report.deletesRefused.push_back(Json{{"resource", resourceKey},
                                                       {"id", *local},
                                                       {"status", response.status},
                                                       {"problem", response.body}});
            }
        }
        m_engine.commitBatch();
        return true;
    }

    // Whether the target's copy (or its delete) is to be stored over the local document as it is;
    // otherwise the reconciler kept, merged or recorded a conflict, and counted it here.
    bool takesTheirs(const ResourceSchema &resource, const std::string &localId, const TargetCopy &theirs,
                     ImportCounts *counts = nullptr)
    {
        const Reconciliation outcome = m_reconciler.reconcile(resource, localId, theirs);
        switch (outcome.outcome) {
        case Reconciliation::Outcome::TakeTheirs:
            return true;
        case Reconciliation::Outcome::Unchanged:
        case Reconciliation::Outcome::InStep:
            if (counts != nullptr) {
                ++counts->unchanged;
                ++m_report.outcome.totals.unchanged;
            }
            break;
        case Reconciliation::Outcome::KeepMine:
        case Reconciliation::Outcome::DeleteThere:
            ++m_report.keptHere;
            break;
        case Reconciliation::Outcome::Merged:
            ++m_report.merged;
            break;
        case Reconciliation::Outcome::Conflict:
            ++m_report.conflicts;
            break;
        }
        return false;
    }

    bool stop(const std::string &page, const RemoteResponse &response)
    {
        m_report.outcome.error = "the pull stopped at " + page + ": " + response.describeWithRequest();
        return false;
    }

    Pending pendingFrom(const ResourceSchema &resource, const Json &item, const std::string &page,
                        std::int64_t position) const
    {
        Pending pending;
        pending.resource = &resource;
        pending.origin = m_remote.url() + page;
        pending.position = position;
        if (item.is_object() && item.contains("id") && item["id"].is_string())
            pending.remoteId = item["id"].get<std::string>();
        pending.etag = etagOf(item);
        // Server fields of the target's copy, not part of the document.
        pending.body = withoutApiFields(resource, item);
        return pending;
    }

    void apply(const std::vector<Pending> &pending, bool lastChance)
    {
        if (pending.empty())
            return;
        m_engine.beginBatch();
        for (const Pending &item : pending) {
            const std::string resourceKey = item.resource->resourceKey();
            ImportCounts &counts = m_report.outcome.byResource[resourceKey];
            ImportCounts &totals = m_report.outcome.totals;
            Request request =
                Request::make("POST", item.resource->requestPath(), pullActor(m_remote.url()), item.body);
            // A document pulled before is updated where it is, so a change of its identity on the
            // target moves it here too instead of leaving the old one behind.
            std::optional<std::string> known =
                item.remoteId.empty() ? std::nullopt : m_state.localId(m_target.targetId, item.remoteId);
            if (m_safeguards.mergeOnPull) {
                // One made here with the same identity is the same document: merged, not overwritten.
                if (!known && item.body.is_object())
                    if (std::optional<StoredDocument> same = m_engine.documentByIdentity(*item.resource, item.body))
                        known = same->id;
                if (known && !takesTheirs(*item.resource, *known, {item.remoteId, item.etag, item.body}, &counts))
                    continue;
            }
            Response response;
            if (known) {
                request.method = "PUT";
                request.path = item.resource->requestPath(*known);
                response = m_engine.handle(request);
                if (response.status == 404) {
                    // Gone here: stored again as a new document, which the target's id then names.
                    m_state.forgetRemoteId(m_target.targetId, *known);
                    request.method = "POST";
                    request.path = item.resource->requestPath();
                    known.reset();
                }
            }
            if (!known)
                response = m_engine.handle(request);
            if (m_engine.batchBroken())
                throw std::runtime_error(response.body.value("detail", std::string("a write failed")));
            if (response.status == 201 || response.status == 200 || response.status == 204) {
                std::int64_t ImportCounts::*field = response.status == 201 ? &ImportCounts::created
                                                    : m_engine.lastWriteChanged() ? &ImportCounts::updated
                                                                                   : &ImportCounts::unchanged;
                ++(counts.*field);
                ++(totals.*field);
                const std::string localId = known ? *known : idFromLocation(response.header("Location"));
                // What was stored is the version both sides agree on now.
                if (!item.remoteId.empty())
                    if (std::optional<StoredDocument> stored = m_engine.document(localId))
                        m_state.setBase(m_target.targetId, localId,
                                        SyncBase{item.remoteId, item.etag, stored->changeSeq, std::nullopt});
            } else if (response.status == 409 && !lastChance
                       && response.body.value("type", std::string()) == problem::kUnresolvedReference) {
                m_unresolved.push_back(item);
            } else {
                ++counts.drafts;
                ++totals.drafts;
                m_report.outcome.drafts.push_back({item.origin, item.position, resourceKey, response.body});
                m_engine.keepDraft(item.resource->projectName(), item.resource->resourceName, dumpJson(item.body),
                                   response.body, request.actor);
            }
        }
        m_engine.commitBatch();
    }

    Engine &m_engine;
    SyncState m_state;
    RemoteApi &m_remote;
    SyncTarget m_target;
    Reconciler m_reconciler;
    SyncSafeguards m_safeguards;
    PullReport m_report;
    std::string m_window; // "&minChangeVersion=..&maxChangeVersion=.." when the target has Change Queries
    std::vector<Pending> m_unresolved;
};

// The target's id for a document: remembered from an earlier push or pull, or found by natural key.
std::optional<std::string> findRemoteId(RemoteApi &remote, SyncState &state, std::int64_t targetId,
                                        const PushItem &item, RemoteResponse *failure)
{
    if (std::optional<std::string> known = state.remoteId(targetId, item.id))
        return known;
    for (const Json *identity : {&item.targetIdentity, &item.identity}) {
        const std::string query = identityQuery(*item.resource, *identity);
        if (query.empty())
            continue;
        const RemoteResponse found = remote.send("GET", item.resource->requestPath() + "?" + query + "&limit=2");
        if (found.status != 200) {
            *failure = found;
            return std::nullopt;
        }
        const Json items = found.json();
        if (items.is_array() && !items.empty() && items[0].contains("id") && items[0]["id"].is_string())
            return items[0]["id"].get<std::string>();
    }
    return std::nullopt;
}

// Looks documents up on the target for a push preview, each once.
class TargetLookup
{
public:
    TargetLookup(Engine &engine, RemoteApi &remote, SyncState &state, std::int64_t targetId, PushPreview &preview)
        : m_engine(engine)
        , m_remote(remote)
        , m_state(state)
        , m_targetId(targetId)
        , m_preview(preview)
    {
    }

    // The target's copy of a local document (none: the target does not have it). Throws when the
    // target does not answer.
    std::optional<Json> copyOf(const std::string &localId, const ResourceSchema &resource, const Json &identity)
    {
        if (auto known = m_copies.find(localId); known != m_copies.end())
            return known->second;
        std::optional<Json> copy;
        if (std::optional<std::string> remoteId = m_state.remoteId(m_targetId, localId)) {
            const RemoteResponse found = get(resource.requestPath(*remoteId));
            if (found.status == 200)
                copy = found.json();
        }
        if (!copy) {
            const std::string query = identityQuery(resource, identity);
            if (!query.empty()) {
                const RemoteResponse found = get(resource.requestPath() + "?" + query + "&limit=1");
                const Json items = found.json();
                if (items.is_array() && !items.empty())
                    copy = items[0];
            }
        }
        m_copies[localId] = copy;
        return copy;
    }

    // Whether the target has the local document (a referenced one, a descriptor).
    bool has(const std::string &localId)
    {
        std::optional<StoredDocument> document = m_engine.document(localId);
        if (!document)
            return false;
        const ResourceSchema *resource = m_engine.model().findByName(document->project, document->resource);
        return resource != nullptr && copyOf(localId, *resource, Json::parse(document->identity)).has_value();
    }

private:
    RemoteResponse get(const std::string &path)
    {
        ++m_preview.requests;
        RemoteResponse answer = m_remote.send("GET", path);
        if (answer.status != 200 && answer.status != 404)
            throw std::runtime_error("the target answered " + answer.describeWithRequest());
        return answer;
    }

    Engine &m_engine;
    RemoteApi &m_remote;
    SyncState &m_state;
    std::int64_t m_targetId = 0;
    PushPreview &m_preview;
    std::map<std::string, std::optional<Json>> m_copies;
};

} // namespace

PullReport runPull(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
                   const SyncProgressFn &progress, const SyncSafeguards &safeguards)
{
    Puller puller(engine, database, remote, client, safeguards);
    return puller.run(progress);
}

namespace {

// A refusal's reason as a group's name: the status and what the target said, without what differs per
// document (its validation errors, the request).
std::string refusalReason(const PushOutcome &outcome)
{
    std::string said;
    // Meadowlark's problems: {"error": {"message": "Reference validation failed", "failures": [...]}}.
    if (outcome.problem.is_object() && outcome.problem.contains("error") && outcome.problem["error"].is_object() &&
        outcome.problem["error"].contains("message") && outcome.problem["error"]["message"].is_string())
        said = outcome.problem["error"]["message"].get<std::string>();
    for (const char *field : {"title", "detail", "error", "type"})
        if (outcome.problem.is_object() && outcome.problem.contains(field) && outcome.problem[field].is_string()) {
            const std::string text = outcome.problem[field].get<std::string>();
            if (said.find(text) == std::string::npos)
                said += (said.empty() ? "" : " ") + text;
            if (said.size() > 160)
                break;
        }
    if (said.size() > 200)
        said = said.substr(0, 197) + "...";
    return (outcome.status == 0 ? std::string("no answer") : "HTTP " + std::to_string(outcome.status)) +
           (said.empty() ? std::string() : ": " + said);
}

std::string documentName(const PushOutcome &outcome)
{
    return outcome.resource + " " + naturalKeyText(outcome.identity);
}

} // namespace

std::vector<PushReport::Group> PushReport::groups() const
{
    std::map<std::string, std::string> names; // local id -> resource and natural key
    for (const PushOutcome &outcome : outcomes)
        names[outcome.id] = documentName(outcome);
    std::vector<Group> out;
    std::map<std::string, std::map<std::string, int>> waitedFor; // reason -> id -> count
    auto groupOf = [&out](const std::string &reason) -> Group & {
        for (Group &group : out)
            if (group.reason == reason)
                return group;
        out.push_back({reason, 0, {}, {}});
        return out.back();
    };
    for (const PushOutcome &outcome : outcomes) {
        if (outcome.accepted || (outcome.conflict && !outcome.replaced))
            continue; // conflicts are listed by steward-cli sync conflicts
        std::string reason;
        if (!outcome.waitingFor.empty())
            reason = "not sent: they reference a document the target refused or a conflict holds back";
        else if (outcome.replaced)
            reason = "created over a record the target had of the same identity (it answered 200): kept as "
                     "conflicts";
        else if (outcome.cannotTell)
            reason = "not created: the target cannot tell whether it has them (--allow-blind-creates)";
        else
            reason = refusalReason(outcome) +
                     (outcome.stillRefused ? " (refused before and unchanged since: not sent again; "
                                             "--retry-refused sends them)"
                                           : "");
        Group &group = groupOf(reason);
        ++group.count;
        if (group.examples.size() < 3)
            group.examples.push_back(documentName(outcome));
        if (!outcome.waitingFor.empty())
            ++waitedFor[reason][outcome.waitingFor];
    }
    for (Group &group : out) {
        std::vector<std::pair<int, std::string>> behind;
        for (const auto &[id, count] : waitedFor[group.reason])
            behind.emplace_back(count, id);
        std::sort(behind.begin(), behind.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
        for (const auto &[count, id] : behind)
            group.behind.push_back(names.count(id) ? names[id] : id);
    }
    std::stable_sort(out.begin(), out.end(), [](const Group &a, const Group &b) { return a.count > b.count; });
    return out;
}

Json PushReport::toJson() const
{
    Json failures = Json::array();
    for (const PushOutcome &outcome : outcomes)
        if (!outcome.accepted)
            failures.push_back(Json{{"operation", operationName(outcome.operation)},
                                    {"resource", outcome.resource},
                                    {"id", outcome.id},
                                    {"identity", outcome.identity},
                                    {"status", outcome.status},
                                    {"problem", outcome.problem}});
    Json grouped = Json::array();
    for (const Group &group : groups())
        grouped.push_back(
            Json{{"reason", group.reason}, {"count", group.count}, {"behind", group.behind}, {"examples", group.examples}});
    Json out{{"plan", plan.toJson()},
             {"dryRun", dryRun},
             {"accepted", accepted},
             {"sent", sent},
             {"refused", refused},
             {"stillRefused", stillRefused},
             {"cannotTell", cannotTell},
             {"replaced", replaced},
             {"conflicts", conflicts},
             {"waiting", waiting},
             {"createCheck", createCheck},
             {"groups", grouped},
             {"cursorBefore", cursorBefore},
             {"cursorAfter", cursorAfter},
             {"completed", completed},
             {"cancelled", cancelled},
             {"failures", failures}};
    if (!error.empty())
        out["error"] = error;
    return out;
}

const char *previewStateName(PushPreviewItem::State state)
{
    switch (state) {
    case PushPreviewItem::State::New:
        return "new";
    case PushPreviewItem::State::Changed:
        return "changed";
    case PushPreviewItem::State::Unchanged:
        return "unchanged";
    case PushPreviewItem::State::Refused:
        return "refused";
    case PushPreviewItem::State::Delete:
        return "delete";
    case PushPreviewItem::State::Absent:
        return "absent";
    case PushPreviewItem::State::Conflict:
        return "conflict";
    }
    return "";
}

int PushPreview::count(PushPreviewItem::State state) const
{
    return static_cast<int>(std::count_if(items.begin(), items.end(),
                                          [state](const PushPreviewItem &item) { return item.state == state; }));
}

Json PushPreview::toJson() const
{
    Json list = Json::array();
    for (const PushPreviewItem &item : items) {
        Json changes = Json::array();
        for (const FieldChange &change : item.changes)
            changes.push_back({{"path", change.path}, {"target", change.before}, {"here", change.after}});
        list.push_back({{"operation", operationName(item.operation)},
                        {"state", previewStateName(item.state)},
                        {"resource", item.resource},
                        {"id", item.id},
                        {"naturalKey", item.naturalKey},
                        {"changes", changes},
                        {"reasons", item.reasons},
                        {"changedOnTarget", item.changedOnTarget}});
    }
    Json counts = Json::object();
    for (PushPreviewItem::State state : {PushPreviewItem::State::New, PushPreviewItem::State::Changed,
                                         PushPreviewItem::State::Unchanged, PushPreviewItem::State::Refused,
                                         PushPreviewItem::State::Delete, PushPreviewItem::State::Absent,
                                         PushPreviewItem::State::Conflict})
        counts[previewStateName(state)] = count(state);
    Json out{{"plan", plan.toJson()}, {"documents", list}, {"counts", counts}, {"requests", requests},
             {"cancelled", cancelled}};
    if (!error.empty())
        out["error"] = error;
    return out;
}

PushPreview previewPush(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
                        const SyncProgressFn &progress)
{
    SyncState state(database.connection());
    const SyncTarget target = state.ensureTarget(remote.url(), client);
    PushPreview preview;
    preview.plan = planPush(database.connection(), engine.model(), target.pushCursor, remote.url(), target.targetId);
    // What the push sends itself reaches the target before what needs it (load order).
    std::set<std::string> sent;
    for (const PushItem &item : preview.plan.items)
        if (item.operation != PushItem::Operation::Delete)
            sent.insert(item.id);
    TargetLookup lookup(engine, remote, state, target.targetId, preview);
    SyncProgress status;
    status.phase = "previewing";
    status.total = static_cast<std::int64_t>(preview.plan.items.size());
    try {
        for (const PushItem &item : preview.plan.items) {
            status.resource = item.resource->resourceKey();
            if (progress && !progress(status)) {
                preview.cancelled = true;
                break;
            }
            ++status.done;
            PushPreviewItem out;
            out.operation = item.operation;
            out.id = item.id;
            out.resource = status.resource;
            out.naturalKey = naturalKeyText(item.identity);
            if (std::optional<SyncConflict> open = state.conflict(target.targetId, item.id); open && state.isOpen(*open)) {
                out.state = PushPreviewItem::State::Conflict;
                out.reasons.push_back("a sync conflict holds it back: " + open->reason
                                      + " (steward-cli sync conflicts; the app's Sync dialog)");
                preview.items.push_back(std::move(out));
                continue;
            }
            const Json &targetIdentity = item.targetIdentity.is_null() ? item.identity : item.targetIdentity;
            std::optional<Json> copy = lookup.copyOf(item.id, *item.resource, targetIdentity);
            if (copy) {
                const std::optional<SyncBase> base = state.base(target.targetId, item.id);
                const std::string etag = copy->is_object() ? copy->value("_etag", std::string()) : std::string();
                out.changedOnTarget = base && base->known() && !etag.empty() && etag != base->etag;
            }
            if (item.operation == PushItem::Operation::Delete) {
                out.state = copy ? PushPreviewItem::State::Delete : PushPreviewItem::State::Absent;
                preview.items.push_back(std::move(out));
                continue;
            }
            for (const OutgoingReference &reference : engine.outgoingReferences(item.id)) {
                if (reference.targetId.empty() || sent.count(reference.targetId) > 0 || lookup.has(reference.targetId))
                    continue;
                out.reasons.push_back(reference.isDescriptor
                                          ? "descriptor value " + reference.naturalKey + " (" + reference.path.substr(2)
                                                + "): the target does not have it"
                                          : "reference to " + reference.storedResource + " " + reference.naturalKey
                                                + " (" + reference.path.substr(2) + "): the target does not have it");
            }
            if (!out.reasons.empty())
                out.state = PushPreviewItem::State::Refused;
            else if (!copy)
                out.state = PushPreviewItem::State::New;
            else {
                out.changes = diffJson(withoutApiFields(*item.resource, *copy), item.body);
                out.state = out.changes.empty() ? PushPreviewItem::State::Unchanged : PushPreviewItem::State::Changed;
            }
            preview.items.push_back(std::move(out));
        }
    } catch (const std::exception &e) {
        preview.error = std::string("the preview stopped: ") + e.what();
    }
    return preview;
}

PushReport planOnly(Database &database, const Model &model, const std::string &url, const std::string &client)
{
    SyncState state(database.connection());
    const SyncTarget target = state.ensureTarget(url, client);
    PushReport report;
    report.dryRun = true;
    report.cursorBefore = report.cursorAfter = target.pushCursor;
    report.plan = planPush(database.connection(), model, target.pushCursor, url, target.targetId);
    report.completed = true;
    return report;
}

namespace {

bool isSuccess(int status)
{
    return status >= 200 && status < 300;
}

// What a PUT carries: the document with the target's id of it, equal to the route's. Meadowlark and
// the Data Management Service refuse a PUT body without it; ODS/API accepts it and ignores it.
QByteArray putBody(Json body, const std::string &remoteId)
{
    body["id"] = remoteId;
    return QByteArray::fromStdString(dumpJson(body));
}

// One push: each planned document sent the way that cannot overwrite what the target changed since
// both sides last agreed (If-Match), and merged when the target did change it.
class Pusher
{
public:
    Pusher(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
           const SyncSafeguards &safeguards, const PushSettings &settings)
        : m_engine(engine)
        , m_database(database)
        , m_state(database.connection())
        , m_remote(remote)
        , m_target(m_state.ensureTarget(remote.url(), client))
        , m_reconciler(engine, m_state, m_target)
        , m_safeguards(safeguards)
        , m_settings(settings)
    {
        if (!safeguards.itemsByKey)
            m_reconciler.setItemPairing(DocumentMerger::Pairing::ByResemblance);
        m_report.cursorBefore = m_target.pushCursor;
        m_report.plan = planPush(database.connection(), engine.model(), m_target.pushCursor, remote.url(),
                                 m_target.targetId);
        // Learned once: an ODS/API 7.x refuses a POST whose If-Match does not match a record it would
        // update; anything else is asked by natural key before a create.
        m_createCheck = m_target.createCheck;
        if (m_createCheck.empty()) {
            m_createCheck = remote.promisesIfMatchOnCreate() ? "if-match" : "look-up";
            m_state.setCreateCheck(m_target.targetId, m_createCheck);
        }
        m_report.createCheck = m_createCheck;
        for (SyncFailure &failure : m_state.failures(m_target.targetId))
            m_failures.emplace(failure.id, std::move(failure));
    }

    PushReport run(const SyncProgressFn &progress)
    {
        std::vector<bool> accepted(m_report.plan.items.size(), false);
        SyncProgress status;
        status.phase = "pushing";
        status.total = static_cast<std::int64_t>(m_report.plan.items.size());
        for (std::size_t i = 0; i < m_report.plan.items.size(); ++i) {
            const PushItem &item = m_report.plan.items[i];
            status.resource = item.resource->resourceKey();
            status.done = static_cast<std::int64_t>(i);
            if (progress && !progress(status)) {
                m_report.cancelled = true;
                break;
            }
            PushOutcome outcome;
            outcome.operation = item.operation;
            outcome.id = item.id;
            outcome.resource = status.resource;
            outcome.identity = item.identity;
            RemoteResponse answer;
            try {
                if (!stillRefused(item, outcome))
                    answer = send(item, outcome);
            } catch (const std::exception &e) {
                m_report.error = std::string("the push stopped at ") + item.resource->resourceName + " " + item.id
                                 + ": " + e.what();
                break;
            }
            const bool notSent = outcome.stillRefused || outcome.cannotTell;
            if (!outcome.accepted && !outcome.conflict && outcome.waitingFor.empty() && !notSent &&
                answer.transient()) {
                m_report.error = "the push stopped: " + m_remote.url() + " did not answer (" +
                                 answer.describeWithRequest() + ") after retries; run it again to continue";
                break;
            }
            accepted[i] = outcome.accepted;
            if (outcome.accepted) {
                ++m_report.accepted;
                m_report.sent += outcome.sent ? 1 : 0;
                m_report.merged += outcome.merged ? 1 : 0;
                // A commit (an fsync) per document would cost more than the request did.
                if (m_agreed.size() >= 500 || std::chrono::steady_clock::now() - m_lastFlush > std::chrono::seconds(1))
                    flushAgreed();
            } else if (outcome.conflict || !outcome.waitingFor.empty()) {
                ++(outcome.conflict ? m_report.conflicts : m_report.waiting);
                m_report.replaced += outcome.replaced ? 1 : 0;
                m_held.insert(item.id);
            } else if (outcome.stillRefused) {
                ++m_report.stillRefused;
                m_refused.insert(item.id);
            } else if (outcome.cannotTell) {
                ++m_report.cannotTell;
                m_refused.insert(item.id);
            } else {
                ++m_report.refused;
                outcome.status = answer.status;
                outcome.problem = answer.json();
                if (outcome.problem.is_null())
                    outcome.problem = Json{{"detail", "no body"}};
                outcome.problem["request"] = answer.request;
                m_refused.insert(item.id);
                // The version refused: what "unchanged since" is measured against at the next push.
                m_state.recordFailure(m_target.targetId, {item.id, item.lastSeq, item.resource->projectName(),
                                                          item.resource->resourceName, operationName(item.operation),
                                                          answer.status, outcome.problem, {}});
            }
            m_report.outcomes.push_back(std::move(outcome));
        }
        try {
            flushAgreed();
        } catch (const std::exception &e) {
            // Not recorded: the next push finds these agreed again by reading them back.
            m_report.error = std::string("what the target took could not be recorded: ") + e.what();
            return m_report;
        }
        m_report.completed = m_report.error.empty() && !m_report.cancelled;
        m_report.cursorAfter = cursorAfter(m_report.plan, accepted);
        m_state.setPushCursor(m_target.targetId, m_report.cursorAfter);
        return m_report;
    }

private:
    RemoteResponse request(const std::string &method, const std::string &path, const QByteArray &body = {},
                           const std::string &ifMatch = {})
    {
        ++m_report.requests;
        return m_remote.send(method, path, body, m_safeguards.ifMatch ? ifMatch : std::string());
    }

    // The target's copy of a document by its id there; a copy without a body when it is gone there.
    // Throws when the target does not answer.
    TargetCopy fetch(const ResourceSchema &resource, const std::string &remoteId)
    {
        const RemoteResponse found = request("GET", resource.requestPath(remoteId));
        TargetCopy copy;
        copy.remoteId = remoteId;
        if (found.status == 404)
            return copy;
        if (found.status != 200)
            throw std::runtime_error("the target answered " + found.describeWithRequest());
        const Json body = found.json();
        copy.etag = etagOf(body, &found);
        copy.body = withoutApiFields(resource, body);
        return copy;
    }

    // The target's copy of a document by its natural key (none when it has no such document).
    std::optional<TargetCopy> findByIdentity(const ResourceSchema &resource, const Json &identity)
    {
        std::string cannotTell;
        bool refused = false;
        std::optional<TargetCopy> found = lookUp(resource, identity, cannotTell, &refused);
        if (refused)
            throw std::runtime_error(cannotTell);
        return found;
    }

    // The same, saying in `cannotTell` why the target could not be asked (no query for the identity) or
    // did not answer the question (then *refused is set); throws only when it did not answer at all.
    std::optional<TargetCopy> lookUp(const ResourceSchema &resource, const Json &identity, std::string &cannotTell,
                                     bool *refused = nullptr)
    {
        const std::string query = identityQuery(resource, identity);
        if (query.empty()) {
            cannotTell = "the target cannot be asked whether it has " + resource.resourceName + " " +
                         naturalKeyText(identity) + ": its identity has no query fields";
            return std::nullopt;
        }
        if (!m_queriesFail.empty() && refused == nullptr) {
            cannotTell = m_queriesFail + " (its queries were not asked again)";
            return std::nullopt;
        }
        const RemoteResponse found = request("GET", resource.requestPath() + "?" + query + "&limit=2");
        if (found.status != 200) {
            const std::string what = "the target answered " + found.describeWithRequest() + " (a look-up of " +
                                     resource.resourceName + " " + naturalKeyText(identity) + ")";
            // No answer at all stops the push; a server error to a query that persists through the retries
            // is a target whose queries do not work (Meadowlark without its search engine).
            if (found.status == 0 || (found.transient() && refused != nullptr))
                throw std::runtime_error(what);
            cannotTell = what;
            if (found.transient())
                m_queriesFail = what;
            if (refused != nullptr)
                *refused = true;
            return std::nullopt;
        }
        const Json items = found.json();
        if (!items.is_array() || items.empty() || !items[0].is_object() || !items[0].contains("id"))
            return std::nullopt;
        TargetCopy copy;
        copy.remoteId = items[0]["id"].get<std::string>();
        copy.etag = etagOf(items[0]);
        copy.body = withoutApiFields(resource, items[0]);
        return copy;
    }

    // The target took what this database holds now: that is the version both agree on. For a delete,
    // the row stays as a record that the delete is agreed (its base is the delete's entry), so that a
    // push that plans it again (the cursor held back by a conflict before it) does not send it again,
    // to a document of that identity made there since. Recorded in a transaction per many documents
    // (flushAgreed): one lost to a crash is found agreed again at the next push by one read.
    void agreed(const PushItem &item, const std::string &remoteId, const RemoteResponse &answer, PushOutcome &outcome)
    {
        outcome.accepted = true;
        outcome.sent = answer.status != 0;
        if (item.operation == PushItem::Operation::Delete)
            m_agreed.emplace_back(item.id, SyncBase{remoteId, {}, item.lastSeq, std::nullopt});
        else if (std::optional<StoredDocument> stored = m_engine.document(item.id))
            m_agreed.emplace_back(item.id, SyncBase{remoteId, etagFromHeader(answer.header("etag")), stored->changeSeq,
                                                    std::nullopt});
    }

    // Records what the target took since the last time, with the refusals and resolutions it clears.
    void flushAgreed()
    {
        if (m_agreed.empty())
            return;
        ImmediateTransaction transaction(m_database.connection());
        for (const auto &[id, base] : m_agreed) {
            m_state.setBase(m_target.targetId, id, base);
            m_state.dropConflict(m_target.targetId, id); // a resolution the target has taken now
            m_state.clearFailure(m_target.targetId, id);
        }
        transaction.commit();
        m_agreed.clear();
        m_lastFlush = std::chrono::steady_clock::now();
    }

    // The reference that holds this document back: one to a document a conflict holds back, or one the
    // target refused (the document would only be refused for the missing reference).
    std::optional<std::string> waitsFor(const PushItem &item, bool &forRefusal)
    {
        if ((m_held.empty() && m_refused.empty()) || item.operation == PushItem::Operation::Delete)
            return std::nullopt;
        for (const OutgoingReference &reference : m_engine.outgoingReferences(item.id)) {
            if (reference.targetId.empty())
                continue;
            if (m_held.count(reference.targetId) > 0 || m_refused.count(reference.targetId) > 0) {
                forRefusal = m_held.count(reference.targetId) == 0;
                return reference.targetId;
            }
        }
        return std::nullopt;
    }

    // Refused by an earlier push, and this is the version it refused: not sent again unless asked.
    bool stillRefused(const PushItem &item, PushOutcome &outcome)
    {
        auto refused = m_failures.find(item.id);
        if (m_settings.retryRefused || refused == m_failures.end() || refused->second.seq != item.lastSeq ||
            refused->second.operation != operationName(item.operation))
            return false;
        outcome.stillRefused = true;
        outcome.status = refused->second.status;
        outcome.problem = refused->second.problem;
        return true;
    }

    RemoteResponse send(const PushItem &item, PushOutcome &outcome)
    {
        if (std::optional<SyncConflict> open = m_state.conflict(m_target.targetId, item.id);
            open && m_state.isOpen(*open)) {
            outcome.conflict = true;
            outcome.problem = Json{{"detail", "held back by a sync conflict: " + open->reason}};
            return {};
        }
        bool forRefusal = false;
        if (std::optional<std::string> held = waitsFor(item, forRefusal)) {
            outcome.waitingFor = *held;
            outcome.problem = Json{{"detail", "waits for " + *held +
                                                  (forRefusal ? ", which the target refused"
                                                              : ", which a sync conflict holds back")}};
            return {};
        }
        const std::optional<SyncBase> base = m_state.base(m_target.targetId, item.id);
        if (item.operation == PushItem::Operation::Delete)
            return sendDelete(item, base, outcome);
        // Agreed already: the target took this version, or gave it (a push run again after a cut).
        if (base && base->known() && (base->seq == item.bodySeq || (base->text && Json::parse(*base->text, nullptr, false) == item.body))) {
            outcome.accepted = true;
            return {};
        }
        const std::string path = item.resource->requestPath();
        const QByteArray body = QByteArray::fromStdString(dumpJson(item.body));
        if (base && !base->remoteId.empty()) {
            if (base->known() && !base->etag.empty() && m_safeguards.ifMatch) {
                RemoteResponse answer =
                    request("PUT", path + "/" + base->remoteId, putBody(item.body, base->remoteId), base->etag);
                if (isSuccess(answer.status)) {
                    agreed(item, base->remoteId, answer, outcome);
                    return answer;
                }
                if (answer.status != 412 && answer.status != 404)
                    return answer;
            } else if (!m_safeguards.ifMatch) {
                RemoteResponse answer = request("PUT", path + "/" + base->remoteId, putBody(item.body, base->remoteId));
                if (isSuccess(answer.status))
                    agreed(item, base->remoteId, answer, outcome);
                if (answer.status != 404)
                    return answer;
            }
            // Changed or deleted there since (or no etag to tell): read it and merge.
            return sendReconciled(item, fetch(*item.resource, base->remoteId), outcome);
        }
        if (!m_safeguards.ifMatch) {
            RemoteResponse answer = request("POST", path, body);
            if (isSuccess(answer.status))
                agreed(item, idFromLocation(answer.header("location")), answer, outcome);
            return answer;
        }
        if (item.operation == PushItem::Operation::KeyChange)
            if (std::optional<TargetCopy> there = findByIdentity(*item.resource, item.targetIdentity))
                return sendReconciled(item, *there, outcome);
        // A target that does not check If-Match on a POST is asked first: a create must not replace a
        // record of that identity someone else made there.
        if (m_createCheck == "look-up") {
            std::string cannotTell;
            if (std::optional<TargetCopy> there = lookUp(*item.resource, item.identity, cannotTell))
                return sendReconciled(item, *there, outcome);
            if (!cannotTell.empty() && !m_settings.allowBlindCreates) {
                outcome.cannotTell = true;
                outcome.problem = Json{{"detail", cannotTell + "; not created (--allow-blind-creates creates it all "
                                                               "the same, and may replace a record made there)"}};
                return {};
            }
        }
        // New to the target as far as this database knows: an If-Match that matches nothing keeps
        // the POST from replacing a document of the same identity someone else put there.
        RemoteResponse answer = request("POST", path, body, kNewDocumentTag);
        if (isSuccess(answer.status))
            return created(item, answer, outcome);
        if (answer.status != 412)
            return answer;
        std::optional<TargetCopy> there = findByIdentity(*item.resource, item.identity);
        if (!there) {
            // A target that answers 412 to any POST with If-Match (the Data Management Service on an
            // insert): it has no such document, so the plain POST creates it.
            answer = request("POST", path, body);
            if (isSuccess(answer.status))
                return created(item, answer, outcome);
            return answer;
        }
        return sendReconciled(item, *there, outcome);
    }

    // A create the target took: 201, a new record; 200, it updated one it had of that identity, which
    // nothing here knew of. That record is gone there: said so, kept as a conflict for a person (with what
    // the target holds now), and from now on this target is asked by natural key before a create.
    RemoteResponse created(const PushItem &item, const RemoteResponse &answer, PushOutcome &outcome)
    {
        const std::string remoteId = idFromLocation(answer.header("location"));
        if (answer.status != 200) {
            agreed(item, remoteId, answer, outcome);
            return answer;
        }
        if (m_createCheck != "look-up") {
            m_createCheck = "look-up";
            m_report.createCheck = m_createCheck;
            m_state.setCreateCheck(m_target.targetId, m_createCheck);
        }
        const TargetCopy now = fetch(*item.resource, remoteId);
        SyncConflict recorded;
        recorded.targetId = m_target.targetId;
        recorded.id = item.id;
        recorded.project = item.resource->projectName();
        recorded.resource = item.resource->resourceName;
        recorded.kind = SyncConflict::Kind::EditedBoth;
        recorded.base.remoteId = remoteId;
        if (now.body)
            recorded.theirsText = dumpJson(m_reconciler.normalized(*item.resource, *now.body));
        recorded.theirsEtag = now.etag;
        recorded.reason = "this create replaced the target's own record of " + item.resource->resourceName + " " +
                          naturalKeyText(item.identity) + " (it answered 200, updated, not 201, created: it does not " +
                          "check If-Match on a POST); what that record held is no longer there";
        m_state.recordConflict(recorded);
        outcome.replaced = true;
        outcome.conflict = true;
        outcome.status = answer.status;
        outcome.problem = Json{{"detail", recorded.reason}, {"request", answer.request}};
        return answer;
    }

    // Merges with the target's copy, then sends what the merge leaves to send; a target that changes
    // it again meanwhile is read again, a few times.
    RemoteResponse sendReconciled(const PushItem &item, TargetCopy theirs, PushOutcome &outcome)
    {
        const ResourceSchema &resource = *item.resource;
        RemoteResponse answer;
        for (int attempt = 0; attempt < 3; ++attempt) {
            const Reconciliation decided = m_reconciler.reconcile(resource, item.id, theirs);
            switch (decided.outcome) {
            case Reconciliation::Outcome::InStep:
                outcome.accepted = true;
                m_state.dropConflict(m_target.targetId, item.id);
                return answer;
            case Reconciliation::Outcome::TakeTheirs:
                // Nothing of this side's is left to send: the target's copy is stored here (when the
                // engine refuses it here, the next pull keeps it as a draft).
                m_reconciler.storeTheirs(resource, item.id, theirs);
                outcome.accepted = true;
                return answer;
            case Reconciliation::Outcome::Conflict:
                outcome.conflict = true;
                outcome.problem = Json{{"detail", decided.reason}};
                return answer;
            case Reconciliation::Outcome::DeleteThere:
                answer = request("DELETE", resource.requestPath(theirs.remoteId), {}, decided.etag);
                if (isSuccess(answer.status) || answer.status == 404) {
                    agreed(item, theirs.remoteId, answer, outcome);
                    return answer;
                }
                break;
            case Reconciliation::Outcome::Unchanged:
            case Reconciliation::Outcome::KeepMine:
            case Reconciliation::Outcome::Merged: {
                const std::optional<StoredDocument> now = m_engine.document(item.id);
                if (!now) {
                    outcome.accepted = true; // deleted here since the plan: the next push sends that
                    return answer;
                }
                outcome.merged = decided.outcome == Reconciliation::Outcome::Merged;
                answer = request("PUT", resource.requestPath(theirs.remoteId),
                                 putBody(Json::parse(now->body), theirs.remoteId), decided.etag);
                if (isSuccess(answer.status)) {
                    agreed(item, theirs.remoteId, answer, outcome);
                    return answer;
                }
                break;
            }
            }
            if (answer.status != 412 && answer.status != 404)
                return answer; // refused for another reason: reported as the target's answer
            theirs = fetch(resource, theirs.remoteId);
        }
        return answer;
    }

    RemoteResponse sendDelete(const PushItem &item, const std::optional<SyncBase> &base, PushOutcome &outcome)
    {
        const std::string path = item.resource->requestPath();
        if (!m_safeguards.ifMatch) {
            RemoteResponse lookupFailure;
            std::optional<std::string> remoteId =
                findRemoteId(m_remote, m_state, m_target.targetId, item, &lookupFailure);
            if (!remoteId) {
                if (lookupFailure.status == 0 && lookupFailure.networkError.empty())
                    agreed(item, {}, lookupFailure, outcome);
                return lookupFailure;
            }
            RemoteResponse answer = request("DELETE", path + "/" + *remoteId);
            if (isSuccess(answer.status) || answer.status == 404)
                agreed(item, *remoteId, answer, outcome);
            return answer;
        }
        if (base && base->seq == item.lastSeq) {
            outcome.accepted = true; // this very delete was agreed already
            return {};
        }
        if (base && !base->remoteId.empty()) {
            if (base->known() && !base->etag.empty()) {
                RemoteResponse answer = request("DELETE", path + "/" + base->remoteId, {}, base->etag);
                if (isSuccess(answer.status) || answer.status == 404) {
                    agreed(item, base->remoteId, answer, outcome);
                    return answer;
                }
                if (answer.status != 412)
                    return answer;
            }
            // Changed there since both agreed (or no etag to tell): a delete of it would lose that.
            return sendReconciled(item, fetch(*item.resource, base->remoteId), outcome);
        }
        // Never synced with this target as far as this database knows: the target's document of that
        // identity, if any, is deleted only when it is the version this database last had.
        std::optional<TargetCopy> there = findByIdentity(*item.resource, item.targetIdentity);
        if (!there) {
            outcome.accepted = true;
            m_state.setBase(m_target.targetId, item.id, SyncBase{{}, {}, item.lastSeq, std::nullopt});
            return {};
        }
        return sendReconciled(item, *there, outcome);
    }

    Engine &m_engine;
    Database &m_database;
    SyncState m_state;
    RemoteApi &m_remote;
    SyncTarget m_target;
    Reconciler m_reconciler;
    SyncSafeguards m_safeguards;
    PushSettings m_settings;
    std::string m_createCheck;
    std::map<std::string, SyncFailure> m_failures; // by local id, as the push began
    std::set<std::string> m_refused;               // refused now or before: what references them waits
    std::string m_queriesFail; // the target answered a look-up with a server error: not asked again
    PushReport m_report;
    std::set<std::string> m_held; // documents not sent for a conflict, and those waiting for them
    std::vector<std::pair<std::string, SyncBase>> m_agreed; // taken by the target, not recorded yet
    std::chrono::steady_clock::time_point m_lastFlush = std::chrono::steady_clock::now();
};

} // namespace

const char *const kNewDocumentTag = "steward-new-document";

PushReport runPush(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
                   const SyncProgressFn &progress, const SyncSafeguards &safeguards, const PushSettings &settings)
{
    Pusher pusher(engine, database, remote, client, safeguards, settings);
    return pusher.run(progress);
}

} // namespace steward
