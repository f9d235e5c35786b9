#pragma once

#include "Database.h"
#include "Engine.h"
#include "PushReport.h"
#include "PushScheduler.h"
#include "Reconcile.h"
#include "RemoteExchange.h"
#include "Sync.h"

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace steward {

// One push as a protocol driven by the target's answers: which document may go next (PushScheduler),
// the request to make for it, what an answer means and the request that follows, until each document
// is accepted, merged, held as a conflict, refused or left waiting. It makes no request itself: the
// front end carries the requests (app/net, many in flight at once) and hands back the answers, in
// whatever order they come. Each document's own exchange stays in order:
// - a document the target has goes to its id with If-Match: the etag of the version both sides last
//   agreed on; a 412 or 404 has it read there and merged three ways (Reconciler), then sent again, a
//   few times at most;
// - a new document goes with an If-Match that matches nothing (kNewDocumentTag), so that a target
//   that has one of that identity answers 412 instead of taking this one over it; a target that does
//   not check If-Match on a POST is asked by natural key first, and a create it answers 200 (updated)
//   is kept as a conflict;
// - a document refused before and unchanged since is not sent again, and what references a document
//   not accepted is not sent (it waits);
// - what the target took is recorded in transactions of many documents, and the cursor moves only
//   past what it accepted.
class PushSession
{
public:
    PushSession(Engine &engine, Database &database, const std::string &url, const std::string &client,
                bool targetPromisesIfMatchOnCreate, const SyncSafeguards &safeguards = {},
                const PushSettings &settings = {});
    ~PushSession();
    PushSession(const PushSession &) = delete;
    PushSession &operator=(const PushSession &) = delete;

    struct Step
    {
        std::size_t item = 0; // in plan().items
        RemoteRequest request;
    };
    // The next document that may go now and its first request. Documents that need no request (agreed
    // already, held back, waiting, refused before) are finished on the way. None: nothing may start
    // until an answer comes, or nothing is left.
    std::optional<Step> next();
    // The target's answer to the item's latest request: the item's next request, or none when the
    // document is done.
    std::optional<RemoteRequest> take(std::size_t item, const RemoteResponse &answer);
    // Start nothing more; what is in flight is still taken.
    void cancel();
    bool stopping() const { return m_report.cancelled || !m_report.error.empty(); }
    // Nothing in flight and nothing more to start.
    bool done() const;
    std::size_t finishedCount() const { return m_finished; }
    const SyncTarget &target() const { return m_target; }
    const PushPlan &plan() const { return m_report.plan; }
    const PushReport &report() const { return m_report; }
    PushReport &report() { return m_report; }
    // Records what is left to record and moves the cursor past what the target accepted.
    PushReport finish();

private:
    enum class Stage;
    struct Exchange;

    std::optional<RemoteRequest> begin(Exchange &exchange);
    std::optional<RemoteRequest> beginDelete(Exchange &exchange);
    std::optional<RemoteRequest> beginCreate(Exchange &exchange);
    std::optional<RemoteRequest> onAnswer(Exchange &exchange, const RemoteResponse &answer);
    std::optional<RemoteRequest> afterLookUpBeforeCreate(Exchange &exchange, const RemoteResponse &answer);
    std::optional<RemoteRequest> afterPostNew(Exchange &exchange, const RemoteResponse &answer);
    std::optional<RemoteRequest> created(Exchange &exchange, const RemoteResponse &answer);
    std::optional<RemoteRequest> recordReplaced(Exchange &exchange, const RemoteResponse &answer);
    std::optional<RemoteRequest> reconcile(Exchange &exchange, const TargetCopy &theirs);
    std::optional<RemoteRequest> afterReconciledSend(Exchange &exchange, const RemoteResponse &answer);
    std::optional<RemoteRequest> nextBlindLookUp(Exchange &exchange);
    std::optional<RemoteRequest> fetch(Exchange &exchange, const std::string &remoteId);

    RemoteRequest request(const std::string &method, const std::string &path, QByteArray body = {},
                          const std::string &ifMatch = {});
    // A look-up by natural key; none when the identity has no query fields.
    std::optional<RemoteRequest> lookUpRequest(const ResourceSchema &resource, const Json &identity);
    enum class Found
    {
        Yes,
        No,
        CannotTell
    };
    // What a look-up answered. strict: anything but an answer is an error that stops the push; otherwise
    // a server error is a target whose queries do not work (then cannotTell says so).
    Found readLookUp(const Exchange &exchange, const RemoteResponse &answer, const Json &identity, bool strict,
                     TargetCopy &copy, std::string &cannotTell);
    TargetCopy readFetch(const ResourceSchema &resource, const std::string &remoteId, const RemoteResponse &answer);
    void agreed(Exchange &exchange, const std::string &remoteId, const RemoteResponse &answer);
    bool stillRefused(const PushItem &item, PushOutcome &outcome);
    // Counts the finished document, records a refusal, frees what waits on it.
    void complete(Exchange &exchange, const RemoteResponse &answer);
    void stop(const std::string &error);
    // A document the push could not go on with (the target's answer made no sense of it): not
    // accepted, no outcome, and the push stops.
    void abandon(const Exchange &exchange, const std::string &why);
    void flushAgreed();

    Engine &m_engine;
    Database &m_database;
    SyncState m_state;
    SyncTarget m_target;
    Reconciler m_reconciler;
    SyncSafeguards m_safeguards;
    PushSettings m_settings;
    PushReport m_report;
    std::unique_ptr<PushScheduler> m_scheduler;
    std::unordered_map<std::size_t, std::unique_ptr<Exchange>> m_running;
    std::vector<std::optional<PushOutcome>> m_outcomes; // by plan item
    std::vector<bool> m_accepted;
    std::size_t m_finished = 0;
    std::string m_createCheck;
    std::map<std::string, SyncFailure> m_failures; // by local id, as the push began
    std::set<std::string> m_conflicted;             // local ids with a conflict recorded, open or resolved
    std::string m_queriesFail; // the target answered a look-up with a server error: not asked again
    std::vector<std::pair<std::string, SyncBase>> m_agreed; // taken by the target, not recorded yet
    std::chrono::steady_clock::time_point m_lastFlush = std::chrono::steady_clock::now();
};

// What a PUT carries: the document with the target's id of it, equal to the route's. Meadowlark and
// the Data Management Service refuse a PUT body without it; ODS/API accepts it and ignores it.
QByteArray putBody(const Json &body, const std::string &remoteId);

} // namespace steward
