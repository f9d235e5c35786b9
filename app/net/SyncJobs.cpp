#include "SyncJobs.h"

#include "FlowControl.h"
#include "LoadOrder.h"
#include "PageFetcher.h"
#include "PullSession.h"
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

// Carries a pull: asks the target for what PullSession needs, in load order, and hands it over.
class Puller
{
public:
    Puller(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
           const SyncSafeguards &safeguards, const SyncPace &pace)
        : m_engine(engine)
        , m_remote(remote)
        , m_session(engine, database, remote.url(), client, safeguards)
        , m_pace(pace)
    {
        m_parallel = SyncState(database.connection()).parallelFor(m_session.target(), pace.parallel);
    }

    PullReport run(const SyncProgressFn &progress)
    {
        const ChangeSourceScope source(m_engine, "pull " + m_remote.url());
        const std::vector<const ResourceSchema *> flat = LoadOrder(m_engine.model()).flat();
        PullReport &report = m_session.report();
        SyncProgress status;
        status.phase = "pulling";
        try {
            std::optional<std::int64_t> newest;
            if (m_remote.hasChangeQueries()) {
                const RemoteResponse available = m_remote.sendChangeQueries("/availableChangeVersions");
                ++report.requests;
                if (available.status == 200)
                    newest = PullSession::newestChangeVersion(available.json());
            }
            if (m_session.setNewestChangeVersion(newest)) {
                // Key changes first, each a small feed: they say which local document a changed
                // record is before its new version arrives.
                if (m_session.incremental())
                    for (const ResourceSchema *resource : flat)
                        if (resource->allowIdentityUpdates) {
                            std::optional<std::vector<Json>> entries = readFeed(*resource, "keyChanges");
                            if (!entries)
                                return m_session.finish();
                            m_session.takeKeyChanges(*resource, *entries);
                        }
                if (!pullPages(flat, status, progress))
                    return m_session.finish();
                m_session.retryUnresolved();
                if (m_session.incremental())
                    for (auto it = flat.rbegin(); it != flat.rend(); ++it) {
                        std::optional<std::vector<Json>> entries = readFeed(**it, "deletes");
                        if (!entries)
                            return m_session.finish();
                        m_session.takeDeletes(**it, *entries);
                    }
            }
        } catch (const std::exception &e) {
            m_session.failed(e.what());
        }
        return m_session.finish();
    }

private:
    // Every page of every resource (in the change window, when there is one), many requests at once,
    // stored in load order. False when the pull stopped.
    bool pullPages(const std::vector<const ResourceSchema *> &resources, SyncProgress &status,
                   const SyncProgressFn &progress)
    {
        PullReport &report = m_session.report();
        auto pathOf = [&](std::size_t source, std::int64_t offset, bool withTotalCount) {
            return resources[source]->requestPath() + "?offset=" + std::to_string(offset) + "&limit=" +
                   std::to_string(kPageSize) + (withTotalCount ? "&totalCount=true" : "") + m_session.window();
        };
        // A page is parsed and its documents validated on a worker thread while the one before is
        // written here: a first pull spent a third of its time on that. None: not a page of items.
        const std::string url = m_remote.url();
        auto prepare = [&, url](const PageFetcher::Page &page) -> std::shared_ptr<void> {
            if (page.answer.status != 200)
                return nullptr;
            Json items = page.answer.json();
            if (!items.is_array())
                return nullptr;
            return std::make_shared<PullSession::PreparedPage>(
                m_session.preparePage(*resources[page.source], std::move(items), url + page.path, page.offset));
        };
        bool stopped = false;
        auto take = [&](const PageFetcher::Page &page) -> int {
            status.resource = resources[page.source]->resourceKey();
            if (progress && !progress(status)) {
                report.outcome.cancelled = true;
                return -1;
            }
            if (page.answer.status == 404)
                return 0; // the target's model does not have this resource
            try {
                // Not prepared on the worker (no page of items, or preparing failed there): again here,
                // where what is wrong is said.
                const std::shared_ptr<void> made = page.prepared ? page.prepared : prepare(page);
                if (!made) {
                    m_session.stopAt(page.path, page.answer.describeWithRequest());
                    stopped = true;
                    return -1;
                }
                const PullSession::PreparedPage &prepared = *std::static_pointer_cast<PullSession::PreparedPage>(made);
                m_session.takePage(prepared, page.nextAtHand);
                status.done += static_cast<std::int64_t>(prepared.size());
                return static_cast<int>(prepared.size());
            } catch (const std::exception &e) {
                m_session.failed(e.what());
                stopped = true;
                return -1;
            }
        };
        FlowControl flow(m_parallel, m_pace.rate);
        PageFetcher fetcher(m_remote, flow, resources.size(), kPageSize, pathOf, take, prepare);
        fetcher.run();
        report.requests += fetcher.requests();
        return !stopped && !report.outcome.cancelled;
    }

    // Every entry of a Change Queries feed ("deletes", "keyChanges") in the window, page by page; none
    // when the target did not serve it (the pull stops there).
    std::optional<std::vector<Json>> readFeed(const ResourceSchema &resource, const std::string &feed)
    {
        std::vector<Json> entries;
        for (std::int64_t offset = 0;; offset += kPageSize) {
            const std::string page = resource.requestPath(feed) + "?offset=" + std::to_string(offset) +
                                     "&limit=" + std::to_string(kPageSize) + m_session.window();
            const RemoteResponse response = m_remote.send("GET", page);
            ++m_session.report().requests;
            if (response.status == 404)
                return entries; // no such resource (or feed) on the target
            const Json items = response.json();
            if (response.status != 200 || !items.is_array()) {
                m_session.stopAt(page, response.describeWithRequest());
                return std::nullopt;
            }
            for (const Json &item : items)
                if (item.is_object())
                    entries.push_back(item);
            if (items.size() < static_cast<std::size_t>(kPageSize))
                return entries;
        }
    }

    Engine &m_engine;
    RemoteApi &m_remote;
    PullSession m_session;
    SyncPace m_pace;
    int m_parallel = 1;
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
    const int parallel = SyncState(database.connection()).parallelFor(session.target(), pace.parallel);
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
