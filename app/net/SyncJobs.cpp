#include "SyncJobs.h"

#include "FlowControl.h"
#include "LoadOrder.h"
#include "PageFetcher.h"
#include "PushSession.h"
#include "RequestPool.h"

#include <QEventLoop>

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

class Puller
{
public:
    Puller(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
           const SyncSafeguards &safeguards, const SyncPace &pace)
        : m_engine(engine)
        , m_state(database.connection())
        , m_remote(remote)
        , m_target(m_state.ensureTarget(remote.url(), client))
        , m_reconciler(engine, m_state, m_target)
        , m_safeguards(safeguards)
        , m_pace(pace)
        , m_parallel(m_state.parallelFor(m_target, pace.parallel))
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
                // Key changes first, each a small feed: they say which local document a changed
                // record is before its new version arrives.
                if (m_report.incremental)
                    for (const ResourceSchema *resource : order.flat())
                        if (resource->allowIdentityUpdates && !takeKeyChanges(*resource))
                            return m_report;
                if (!pullPages(order.flat(), status, progress))
                    return m_report;
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
    // Every page of every resource (in the change window, when there is one), many requests at once,
    // stored in load order. False when the pull stopped.
    bool pullPages(const std::vector<const ResourceSchema *> &resources, SyncProgress &status,
                   const SyncProgressFn &progress)
    {
        auto pathOf = [&](std::size_t source, std::int64_t offset, bool withTotalCount) {
            return resources[source]->requestPath() + "?offset=" + std::to_string(offset) +
                   "&limit=" + std::to_string(kPageSize) + (withTotalCount ? "&totalCount=true" : "") + m_window;
        };
        bool failed = false;
        auto take = [&](const PageFetcher::Page &page) -> int {
            const ResourceSchema &resource = *resources[page.source];
            status.resource = resource.resourceKey();
            if (progress && !progress(status)) {
                m_report.outcome.cancelled = true;
                return -1;
            }
            if (page.answer.status == 404)
                return 0; // the target's model does not have this resource
            const Json items = page.answer.json();
            if (page.answer.status != 200 || !items.is_array()) {
                failed = !stop(page.path, page.answer);
                return -1;
            }
            ++m_report.pages;
            std::vector<Pending> pending;
            pending.reserve(items.size());
            for (std::size_t i = 0; i < items.size(); ++i)
                pending.push_back(
                    pendingFrom(resource, items[i], page.path, page.offset + static_cast<std::int64_t>(i) + 1));
            try {
                apply(pending, false);
            } catch (const std::exception &e) {
                m_engine.rollbackBatch();
                m_report.outcome.error = std::string("the pull stopped: ") + e.what() + "; pages stored before stay";
                failed = true;
                return -1;
            }
            status.done += static_cast<std::int64_t>(items.size());
            return static_cast<int>(items.size());
        };
        FlowControl flow(m_parallel, m_pace.rate);
        PageFetcher fetcher(m_remote, flow, resources.size(), kPageSize, pathOf, take);
        fetcher.run();
        m_report.requests += fetcher.requests();
        return !failed && !m_report.outcome.cancelled;
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
    SyncPace m_pace;
    int m_parallel = 1;
    PullReport m_report;
    std::string m_window; // "&minChangeVersion=..&maxChangeVersion=.." when the target has Change Queries
    std::vector<Pending> m_unresolved;
};

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
                   const SyncProgressFn &progress, const SyncSafeguards &safeguards, const SyncPace &pace)
{
    Puller puller(engine, database, remote, client, safeguards, pace);
    return puller.run(progress);
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

PushReport runPush(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
                   const SyncProgressFn &progress, const SyncSafeguards &safeguards, const PushSettings &settings,
                   const SyncPace &pace)
{
    PushSession session(engine, database, remote.url(), client, remote.promisesIfMatchOnCreate(), safeguards,
                        settings);
    SyncState state(database.connection());
    const int parallel = state.parallelFor(state.ensureTarget(remote.url(), client), pace.parallel);
    FlowControl flow(parallel, pace.rate);
    RequestPool pool(remote, flow);
    QEventLoop loop;
    SyncProgress status;
    status.phase = "pushing";
    status.total = static_cast<std::int64_t>(session.plan().items.size());

    // Each document's requests one after another; many documents at once, as the session lets them go.
    std::function<void()> pump;
    std::function<void(std::size_t, RemoteRequest, bool)> send = [&](std::size_t item, RemoteRequest request,
                                                                     bool first) {
        pool.submit(std::move(request), [&, item](const RemoteResponse &answer) {
            if (std::optional<RemoteRequest> following = session.take(item, answer))
                send(item, std::move(*following), true);
            pump();
        }, first);
    };
    pump = [&] {
        while (pool.hasRoom() && !session.stopping()) {
            status.done = static_cast<std::int64_t>(session.finishedCount());
            if (progress && !progress(status)) {
                session.cancel();
                break;
            }
            std::optional<PushSession::Step> step = session.next();
            if (!step)
                break;
            status.resource = session.plan().items[step->item].resource->resourceKey();
            send(step->item, std::move(step->request), false);
        }
        if (session.done() && pool.idle())
            loop.quit();
    };
    pump();
    if (!(session.done() && pool.idle()))
        loop.exec();
    PushReport &report = session.report();
    report.parallel = parallel;
    report.pushedBack = flow.pushedBack();
    report.fewestInFlight = flow.fewestInFlight();
    return session.finish();
}

} // namespace steward
