#include "PushSession.h"

#include "LoadOrder.h"

#include <stdexcept>

namespace steward {

namespace {

bool isSuccess(int status)
{
    return status >= 200 && status < 300;
}

} // namespace

QByteArray putBody(const Json &body, const std::string &remoteId)
{
    if (!body.is_object() || body.contains("id")) {
        Json withId = body;
        withId["id"] = remoteId;
        return QByteArray::fromStdString(dumpJson(withId));
    }
    // The id put in front of the serialized body: no copy of the document for it.
    const std::string text = dumpJson(body);
    QByteArray out = "{\"id\":" + QByteArray::fromStdString(Json(remoteId).dump());
    if (text.size() > 2)
        out += ',';
    out += QByteArray::fromRawData(text.data() + 1, static_cast<qsizetype>(text.size() - 1));
    return out;
}

// Where a document's exchange with the target stands: the request it waits for the answer to.
enum class PushSession::Stage
{
    PutWithBase,        // PUT to the agreed id with the agreed etag
    PutBlind,           // PUT without If-Match (the If-Match safeguard off)
    PostBlind,          // POST without If-Match (the same)
    LookUpKeyChange,    // GET by the identity the target last saw, before an identity change
    LookUpBeforeCreate, // GET by natural key, for a target that does not check If-Match on a POST
    PostNew,            // POST with If-Match: kNewDocumentTag
    LookUpAfter412,     // GET by natural key: which record made the POST fail
    PostPlain,          // POST without If-Match, to a target that answers 412 to any
    FetchReplaced,      // GET of the record a create replaced (answered 200)
    Fetch,              // GET of the target's copy, to merge with
    ReconciledDelete,   // DELETE of what was deleted here, with the etag read
    ReconciledPut,      // PUT of the merge, with the etag read
    DeleteBlindLookUp,  // GET by natural key for a delete without If-Match
    DeleteBlind,        // DELETE without If-Match
    DeleteWithBase,     // DELETE of the agreed id with the agreed etag
    LookUpForDelete,    // GET by natural key of a document deleted here that was never synced
};

struct PushSession::Exchange
{
    std::size_t index = 0;
    const PushItem *item = nullptr;
    Stage stage = Stage::Fetch;
    std::optional<SyncBase> base;
    PushOutcome outcome;
    std::string remoteId;   // the target's id the latest request names
    std::int64_t sentSeq = 0; // the change-log entry of the body sent
    int attempts = 0;         // merges sent
    int identityIndex = 0;    // DeleteBlindLookUp: 0 the identity the target last saw, 1 the current one
    RemoteResponse last;      // the latest answer that decides a refusal
};

PushSession::PushSession(Engine &engine, Database &database, const std::string &url, const std::string &client,
                         bool targetPromisesIfMatchOnCreate, const SyncSafeguards &safeguards,
                         const PushSettings &settings)
    : m_engine(engine)
    , m_database(database)
    , m_state(database.connection())
    , m_target(m_state.ensureTarget(url, client))
    , m_reconciler(engine, m_state, m_target)
    , m_safeguards(safeguards)
    , m_settings(settings)
{
    if (!safeguards.itemsByKey)
        m_reconciler.setItemPairing(DocumentMerger::Pairing::ByResemblance);
    m_report.cursorBefore = m_target.pushCursor;
    m_report.plan = planPush(database.connection(), engine.model(), m_target.pushCursor, url, m_target.targetId);
    // Learned once: an ODS/API 7.x refuses a POST whose If-Match does not match a record it would
    // update; anything else is asked by natural key before a create.
    m_createCheck = m_target.createCheck;
    if (m_createCheck.empty()) {
        m_createCheck = targetPromisesIfMatchOnCreate ? "if-match" : "look-up";
        m_state.setCreateCheck(m_target.targetId, m_createCheck);
    }
    m_report.createCheck = m_createCheck;
    for (SyncFailure &failure : m_state.failures(m_target.targetId))
        m_failures.emplace(failure.id, std::move(failure));
    m_conflicted = m_state.conflictIds(m_target.targetId);
    {
        DeferredTransaction read(database.connection());
        m_scheduler = std::make_unique<PushScheduler>(m_report.plan, LoadOrder(engine.model()),
                                                      referencedPlanItems(database.connection(), m_report.plan));
    }
    m_outcomes.resize(m_report.plan.items.size());
    m_accepted.assign(m_report.plan.items.size(), false);
}

PushSession::~PushSession() = default;

bool PushSession::done() const
{
    // Nothing ready with nothing running before the end would be an item waiting for one never started:
    // the push ends there (not completed) rather than waiting forever.
    return m_running.empty() && (stopping() || !m_scheduler->hasReady());
}

void PushSession::cancel()
{
    m_report.cancelled = true;
}

void PushSession::stop(const std::string &error)
{
    if (m_report.error.empty())
        m_report.error = error;
}

void PushSession::abandon(const Exchange &exchange, const std::string &why)
{
    m_scheduler->finished(exchange.index, false);
    ++m_finished;
    stop("the push stopped at " + exchange.item->resource->resourceName + " " + exchange.item->id + ": " + why);
}

std::optional<PushSession::Step> PushSession::next()
{
    while (!stopping()) {
        const std::optional<std::size_t> index = m_scheduler->next();
        if (!index)
            return std::nullopt;
        auto exchange = std::make_unique<Exchange>();
        exchange->index = *index;
        exchange->item = &m_report.plan.items[*index];
        exchange->outcome.operation = exchange->item->operation;
        exchange->outcome.id = exchange->item->id;
        exchange->outcome.resource = exchange->item->resource->resourceKey();
        exchange->outcome.identity = exchange->item->identity;
        std::optional<RemoteRequest> first;
        try {
            first = begin(*exchange);
        } catch (const std::exception &e) {
            abandon(*exchange, e.what());
            return std::nullopt;
        }
        if (first) {
            m_running.emplace(*index, std::move(exchange));
            return Step{*index, std::move(*first)};
        }
        complete(*exchange, {});
    }
    return std::nullopt;
}

std::optional<RemoteRequest> PushSession::take(std::size_t item, const RemoteResponse &answer)
{
    auto found = m_running.find(item);
    if (found == m_running.end())
        return std::nullopt;
    Exchange &exchange = *found->second;
    std::optional<RemoteRequest> following;
    try {
        following = onAnswer(exchange, answer);
    } catch (const std::exception &e) {
        abandon(exchange, e.what());
        m_running.erase(found);
        return std::nullopt;
    }
    if (following)
        return following;
    complete(exchange, exchange.last);
    m_running.erase(found);
    return std::nullopt;
}

RemoteRequest PushSession::request(const std::string &method, const std::string &path, QByteArray body,
                                   const std::string &ifMatch)
{
    ++m_report.requests;
    return RemoteRequest{method, path, std::move(body), m_safeguards.ifMatch ? ifMatch : std::string()};
}

std::optional<RemoteRequest> PushSession::lookUpRequest(const ResourceSchema &resource, const Json &identity)
{
    const std::string query = identityQuery(resource, identity);
    if (query.empty())
        return std::nullopt;
    return request("GET", resource.requestPath() + "?" + query + "&limit=2");
}

std::optional<RemoteRequest> PushSession::fetch(Exchange &exchange, const std::string &remoteId)
{
    exchange.stage = Stage::Fetch;
    exchange.remoteId = remoteId;
    return request("GET", exchange.item->resource->requestPath(remoteId));
}

// Refused by an earlier push, and this is the version it refused: not sent again unless asked.
bool PushSession::stillRefused(const PushItem &item, PushOutcome &outcome)
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

std::optional<RemoteRequest> PushSession::begin(Exchange &exchange)
{
    const PushItem &item = *exchange.item;
    PushOutcome &outcome = exchange.outcome;
    if (stillRefused(item, outcome))
        return std::nullopt;
    if (std::optional<SyncConflict> open =
            m_conflicted.count(item.id) > 0 ? m_state.conflict(m_target.targetId, item.id) : std::nullopt;
        open && m_state.isOpen(*open)) {
        outcome.conflict = true;
        outcome.problem = Json{{"detail", "held back by a sync conflict: " + open->reason}};
        return std::nullopt;
    }
    if (std::optional<std::size_t> blocking = m_scheduler->blockedBy(exchange.index)) {
        const std::optional<PushOutcome> &held = m_outcomes[*blocking];
        const bool forRefusal = !held || !(held->conflict || !held->waitingFor.empty());
        outcome.waitingFor = m_report.plan.items[*blocking].id;
        outcome.problem = Json{{"detail", "waits for " + outcome.waitingFor +
                                              (forRefusal ? ", which the target refused"
                                                          : ", which a sync conflict holds back")}};
        return std::nullopt;
    }
    exchange.base = m_state.base(m_target.targetId, item.id);
    const std::optional<SyncBase> &base = exchange.base;
    if (item.operation == PushItem::Operation::Delete)
        return beginDelete(exchange);
    // Agreed already: the target took this version, or gave it (a push run again after a cut).
    if (base && base->known() &&
        (base->seq == item.bodySeq || (base->text && Json::parse(*base->text, nullptr, false) == item.body))) {
        outcome.accepted = true;
        return std::nullopt;
    }
    const std::string path = item.resource->requestPath();
    exchange.sentSeq = item.bodySeq;
    if (base && !base->remoteId.empty()) {
        exchange.remoteId = base->remoteId;
        if (base->known() && !base->etag.empty() && m_safeguards.ifMatch) {
            exchange.stage = Stage::PutWithBase;
            return request("PUT", path + "/" + base->remoteId, putBody(item.body, base->remoteId), base->etag);
        }
        if (!m_safeguards.ifMatch) {
            exchange.stage = Stage::PutBlind;
            return request("PUT", path + "/" + base->remoteId, putBody(item.body, base->remoteId));
        }
        // No etag to tell whether it changed there: read it and merge.
        return fetch(exchange, base->remoteId);
    }
    if (!m_safeguards.ifMatch) {
        exchange.stage = Stage::PostBlind;
        return request("POST", path, QByteArray::fromStdString(dumpJson(item.body)));
    }
    if (item.operation == PushItem::Operation::KeyChange)
        if (std::optional<RemoteRequest> lookUp = lookUpRequest(*item.resource, item.targetIdentity)) {
            exchange.stage = Stage::LookUpKeyChange;
            return lookUp;
        }
    return beginCreate(exchange);
}

// A target that does not check If-Match on a POST is asked first: a create must not replace a record of
// that identity someone else made there.
std::optional<RemoteRequest> PushSession::beginCreate(Exchange &exchange)
{
    const PushItem &item = *exchange.item;
    if (m_createCheck == "look-up") {
        if (m_queriesFail.empty())
            if (std::optional<RemoteRequest> lookUp = lookUpRequest(*item.resource, item.identity)) {
                exchange.stage = Stage::LookUpBeforeCreate;
                return lookUp;
            }
        return afterLookUpBeforeCreate(exchange, {});
    }
    exchange.stage = Stage::PostNew;
    return request("POST", item.resource->requestPath(), QByteArray::fromStdString(dumpJson(item.body)),
                   kNewDocumentTag);
}

// answer: the look-up's; none (status 0, no error) when the target could not be asked.
std::optional<RemoteRequest> PushSession::afterLookUpBeforeCreate(Exchange &exchange, const RemoteResponse &answer)
{
    const PushItem &item = *exchange.item;
    std::string cannotTell;
    if (exchange.stage == Stage::LookUpBeforeCreate) {
        TargetCopy there;
        const Found found = readLookUp(exchange, answer, item.identity, false, there, cannotTell);
        if (found == Found::Yes)
            return reconcile(exchange, there);
    } else if (!m_queriesFail.empty()) {
        cannotTell = m_queriesFail + " (its queries were not asked again)";
    } else {
        cannotTell = "the target cannot be asked whether it has " + item.resource->resourceName + " " +
                     naturalKeyText(item.identity) + ": its identity has no query fields";
    }
    if (!cannotTell.empty() && !m_settings.allowBlindCreates) {
        exchange.outcome.cannotTell = true;
        exchange.outcome.problem = Json{{"detail", cannotTell + "; not created (--allow-blind-creates creates it all "
                                                                "the same, and may replace a record made there)"}};
        return std::nullopt;
    }
    exchange.stage = Stage::PostNew;
    return request("POST", item.resource->requestPath(), QByteArray::fromStdString(dumpJson(item.body)),
                   kNewDocumentTag);
}

PushSession::Found PushSession::readLookUp(const Exchange &exchange, const RemoteResponse &answer,
                                           const Json &identity, bool strict, TargetCopy &copy,
                                           std::string &cannotTell)
{
    const ResourceSchema &resource = *exchange.item->resource;
    if (answer.status != 200) {
        const std::string what = "the target answered " + answer.describeWithRequest() + " (a look-up of " +
                                 resource.resourceName + " " + naturalKeyText(identity) + ")";
        // No answer at all stops the push; a server error to a query that persists through the retries is
        // a target whose queries do not work (Meadowlark without its search engine).
        if (answer.status == 0 || strict)
            throw std::runtime_error(what);
        if (answer.transient())
            m_queriesFail = what;
        cannotTell = what;
        return Found::CannotTell;
    }
    const Json items = answer.json();
    if (!items.is_array() || items.empty() || !items[0].is_object() || !items[0].contains("id") ||
        !items[0]["id"].is_string())
        return Found::No;
    copy.remoteId = items[0]["id"].get<std::string>();
    copy.etag = etagOf(items[0]);
    copy.body = withoutApiFields(resource, items[0]);
    return Found::Yes;
}

TargetCopy PushSession::readFetch(const ResourceSchema &resource, const std::string &remoteId,
                                  const RemoteResponse &answer)
{
    TargetCopy copy;
    copy.remoteId = remoteId;
    if (answer.status == 404)
        return copy;
    if (answer.status != 200)
        throw std::runtime_error("the target answered " + answer.describeWithRequest());
    const Json body = answer.json();
    copy.etag = etagOf(body, &answer);
    copy.body = withoutApiFields(resource, body);
    return copy;
}

std::optional<RemoteRequest> PushSession::onAnswer(Exchange &exchange, const RemoteResponse &answer)
{
    const PushItem &item = *exchange.item;
    exchange.last = answer;
    const bool success = isSuccess(answer.status);
    TargetCopy there;
    std::string cannotTell;
    switch (exchange.stage) {
    case Stage::PutWithBase:
        if (success) {
            agreed(exchange, exchange.remoteId, answer);
            return std::nullopt;
        }
        if (answer.status != 412 && answer.status != 404)
            return std::nullopt;
        // Changed or deleted there since: read it and merge.
        return fetch(exchange, exchange.remoteId);
    case Stage::PutBlind:
        if (success)
            agreed(exchange, exchange.remoteId, answer);
        if (answer.status != 404)
            return std::nullopt;
        return fetch(exchange, exchange.remoteId);
    case Stage::PostBlind:
        if (success)
            agreed(exchange, idFromLocation(answer.header("location")), answer);
        return std::nullopt;
    case Stage::LookUpKeyChange:
        if (readLookUp(exchange, answer, item.targetIdentity, true, there, cannotTell) == Found::Yes)
            return reconcile(exchange, there);
        return beginCreate(exchange);
    case Stage::LookUpBeforeCreate:
        return afterLookUpBeforeCreate(exchange, answer);
    case Stage::PostNew:
        return afterPostNew(exchange, answer);
    case Stage::LookUpAfter412:
        if (readLookUp(exchange, answer, item.identity, true, there, cannotTell) == Found::Yes)
            return reconcile(exchange, there);
        // A target that answers 412 to any POST with If-Match (the Data Management Service on an insert):
        // it has no such document, so the plain POST creates it.
        exchange.stage = Stage::PostPlain;
        return request("POST", item.resource->requestPath(), QByteArray::fromStdString(dumpJson(item.body)));
    case Stage::PostPlain:
        if (success)
            return created(exchange, answer);
        return std::nullopt;
    case Stage::FetchReplaced:
        return recordReplaced(exchange, answer);
    case Stage::Fetch:
        return reconcile(exchange, readFetch(*item.resource, exchange.remoteId, answer));
    case Stage::ReconciledDelete:
        if (success || answer.status == 404) {
            agreed(exchange, exchange.remoteId, answer);
            return std::nullopt;
        }
        return afterReconciledSend(exchange, answer);
    case Stage::ReconciledPut:
        if (success) {
            agreed(exchange, exchange.remoteId, answer);
            return std::nullopt;
        }
        return afterReconciledSend(exchange, answer);
    case Stage::DeleteBlindLookUp: {
        if (answer.status != 200)
            return std::nullopt;
        const Json items = answer.json();
        if (items.is_array() && !items.empty() && items[0].contains("id") && items[0]["id"].is_string()) {
            exchange.remoteId = items[0]["id"].get<std::string>();
            exchange.stage = Stage::DeleteBlind;
            return request("DELETE", item.resource->requestPath(exchange.remoteId));
        }
        ++exchange.identityIndex;
        return nextBlindLookUp(exchange);
    }
    case Stage::DeleteBlind:
        if (success || answer.status == 404)
            agreed(exchange, exchange.remoteId, answer);
        return std::nullopt;
    case Stage::DeleteWithBase:
        if (success || answer.status == 404) {
            agreed(exchange, exchange.remoteId, answer);
            return std::nullopt;
        }
        if (answer.status != 412)
            return std::nullopt;
        // Changed there since both agreed: a delete of it would lose that.
        return fetch(exchange, exchange.remoteId);
    case Stage::LookUpForDelete:
        if (readLookUp(exchange, answer, item.targetIdentity, true, there, cannotTell) == Found::Yes)
            return reconcile(exchange, there);
        exchange.outcome.accepted = true;
        m_state.setBase(m_target.targetId, item.id, SyncBase{{}, {}, item.lastSeq, std::nullopt});
        exchange.last = {};
        return std::nullopt;
    }
    return std::nullopt;
}

std::optional<RemoteRequest> PushSession::afterPostNew(Exchange &exchange, const RemoteResponse &answer)
{
    if (isSuccess(answer.status))
        return created(exchange, answer);
    if (answer.status != 412)
        return std::nullopt;
    if (std::optional<RemoteRequest> lookUp = lookUpRequest(*exchange.item->resource, exchange.item->identity)) {
        exchange.stage = Stage::LookUpAfter412;
        return lookUp;
    }
    exchange.stage = Stage::PostPlain;
    return request("POST", exchange.item->resource->requestPath(),
                   QByteArray::fromStdString(dumpJson(exchange.item->body)));
}

// A create the target took: 201, a new record; 200, it updated one it had of that identity, which nothing
// here knew of. That record is gone there: said so, kept as a conflict for a person (with what the target
// holds now), and from now on this target is asked by natural key before a create.
std::optional<RemoteRequest> PushSession::created(Exchange &exchange, const RemoteResponse &answer)
{
    const std::string remoteId = idFromLocation(answer.header("location"));
    if (answer.status != 200) {
        agreed(exchange, remoteId, answer);
        return std::nullopt;
    }
    if (m_createCheck != "look-up") {
        m_createCheck = "look-up";
        m_report.createCheck = m_createCheck;
        m_state.setCreateCheck(m_target.targetId, m_createCheck);
    }
    exchange.stage = Stage::FetchReplaced;
    exchange.remoteId = remoteId;
    exchange.outcome.status = answer.status;
    exchange.outcome.problem = Json{{"request", answer.request}};
    return request("GET", exchange.item->resource->requestPath(remoteId));
}

std::optional<RemoteRequest> PushSession::recordReplaced(Exchange &exchange, const RemoteResponse &answer)
{
    const PushItem &item = *exchange.item;
    const TargetCopy now = readFetch(*item.resource, exchange.remoteId, answer);
    SyncConflict recorded;
    recorded.targetId = m_target.targetId;
    recorded.id = item.id;
    recorded.project = item.resource->projectName();
    recorded.resource = item.resource->resourceName;
    recorded.kind = SyncConflict::Kind::EditedBoth;
    recorded.base.remoteId = exchange.remoteId;
    if (now.body)
        recorded.theirsText = dumpJson(m_reconciler.normalized(*item.resource, *now.body));
    recorded.theirsEtag = now.etag;
    recorded.reason = "this create replaced the target's own record of " + item.resource->resourceName + " " +
                      naturalKeyText(item.identity) + " (it answered 200, updated, not 201, created: it does not " +
                      "check If-Match on a POST); what that record held is no longer there";
    m_state.recordConflict(recorded);
    exchange.outcome.replaced = true;
    exchange.outcome.conflict = true;
    exchange.outcome.problem["detail"] = recorded.reason;
    return std::nullopt;
}

// Merges with the target's copy, then sends what the merge leaves to send; a target that changes it
// again meanwhile is read again, a few times.
std::optional<RemoteRequest> PushSession::reconcile(Exchange &exchange, const TargetCopy &theirs)
{
    const PushItem &item = *exchange.item;
    const ResourceSchema &resource = *item.resource;
    PushOutcome &outcome = exchange.outcome;
    const Reconciliation decided = m_reconciler.reconcile(resource, item.id, theirs);
    exchange.remoteId = theirs.remoteId;
    switch (decided.outcome) {
    case Reconciliation::Outcome::InStep:
        outcome.accepted = true;
        m_state.dropConflict(m_target.targetId, item.id);
        return std::nullopt;
    case Reconciliation::Outcome::TakeTheirs:
        // Nothing of this side's is left to send: the target's copy is stored here (when the engine
        // refuses it here, the next pull keeps it as a draft).
        m_reconciler.storeTheirs(resource, item.id, theirs);
        outcome.accepted = true;
        return std::nullopt;
    case Reconciliation::Outcome::Conflict:
        outcome.conflict = true;
        outcome.problem = Json{{"detail", decided.reason}};
        return std::nullopt;
    case Reconciliation::Outcome::DeleteThere:
        exchange.stage = Stage::ReconciledDelete;
        return request("DELETE", resource.requestPath(theirs.remoteId), {}, decided.etag);
    case Reconciliation::Outcome::Unchanged:
    case Reconciliation::Outcome::KeepMine:
    case Reconciliation::Outcome::Merged:
        break;
    }
    const std::optional<StoredDocument> now = m_engine.document(item.id);
    if (!now) {
        outcome.accepted = true; // deleted here since the plan: the next push sends that
        return std::nullopt;
    }
    outcome.merged = decided.outcome == Reconciliation::Outcome::Merged;
    exchange.stage = Stage::ReconciledPut;
    exchange.sentSeq = now->changeSeq;
    return request("PUT", resource.requestPath(theirs.remoteId), putBody(Json::parse(now->body), theirs.remoteId),
                   decided.etag);
}

std::optional<RemoteRequest> PushSession::afterReconciledSend(Exchange &exchange, const RemoteResponse &answer)
{
    if (answer.status != 412 && answer.status != 404)
        return std::nullopt; // refused for another reason: reported as the target's answer
    if (++exchange.attempts >= 3)
        return std::nullopt;
    return fetch(exchange, exchange.remoteId);
}

std::optional<RemoteRequest> PushSession::beginDelete(Exchange &exchange)
{
    const PushItem &item = *exchange.item;
    const std::optional<SyncBase> &base = exchange.base;
    const std::string path = item.resource->requestPath();
    if (!m_safeguards.ifMatch) {
        if (std::optional<std::string> known = m_state.remoteId(m_target.targetId, item.id)) {
            exchange.remoteId = *known;
            exchange.stage = Stage::DeleteBlind;
            return request("DELETE", path + "/" + *known);
        }
        return nextBlindLookUp(exchange);
    }
    if (base && base->seq == item.lastSeq) {
        exchange.outcome.accepted = true; // this very delete was agreed already
        return std::nullopt;
    }
    if (base && !base->remoteId.empty()) {
        exchange.remoteId = base->remoteId;
        if (base->known() && !base->etag.empty()) {
            exchange.stage = Stage::DeleteWithBase;
            return request("DELETE", path + "/" + base->remoteId, {}, base->etag);
        }
        // No etag to tell whether it changed there since both agreed: read it and merge.
        return fetch(exchange, base->remoteId);
    }
    // Never synced with this target as far as this database knows: the target's document of that
    // identity, if any, is deleted only when it is the version this database last had.
    if (std::optional<RemoteRequest> lookUp = lookUpRequest(*item.resource, item.targetIdentity)) {
        exchange.stage = Stage::LookUpForDelete;
        return lookUp;
    }
    exchange.outcome.accepted = true;
    m_state.setBase(m_target.targetId, item.id, SyncBase{{}, {}, item.lastSeq, std::nullopt});
    return std::nullopt;
}

std::optional<RemoteRequest> PushSession::nextBlindLookUp(Exchange &exchange)
{
    const PushItem &item = *exchange.item;
    for (; exchange.identityIndex < 2; ++exchange.identityIndex) {
        const Json &identity = exchange.identityIndex == 0 ? item.targetIdentity : item.identity;
        if (std::optional<RemoteRequest> lookUp = lookUpRequest(*item.resource, identity)) {
            exchange.stage = Stage::DeleteBlindLookUp;
            return lookUp;
        }
    }
    // The target has no such document: nothing to delete there.
    agreed(exchange, {}, {});
    exchange.last = {};
    return std::nullopt;
}

// The target took what this database holds now: that is the version both agree on. For a delete, the
// row stays as a record that the delete is agreed (its base is the delete's entry), so that a push that
// plans it again (the cursor held back by a conflict before it) does not send it again, to a document of
// that identity made there since. Recorded in a transaction per many documents (flushAgreed): one lost
// to a crash is found agreed again at the next push by one read.
void PushSession::agreed(Exchange &exchange, const std::string &remoteId, const RemoteResponse &answer)
{
    exchange.outcome.accepted = true;
    exchange.outcome.sent = answer.status != 0;
    if (exchange.item->operation == PushItem::Operation::Delete)
        m_agreed.emplace_back(exchange.item->id, SyncBase{remoteId, {}, exchange.item->lastSeq, std::nullopt});
    else
        m_agreed.emplace_back(exchange.item->id,
                              SyncBase{remoteId, etagFromHeader(answer.header("etag")), exchange.sentSeq, std::nullopt});
}

void PushSession::complete(Exchange &exchange, const RemoteResponse &answer)
{
    PushOutcome &outcome = exchange.outcome;
    const PushItem &item = *exchange.item;
    ++m_finished;
    const bool notSent = outcome.stillRefused || outcome.cannotTell;
    if (!outcome.accepted && !outcome.conflict && outcome.waitingFor.empty() && !notSent && answer.transient()) {
        m_scheduler->finished(exchange.index, false);
        stop("the push stopped: " + m_target.url + " did not answer (" + answer.describeWithRequest() +
             ") after retries; run it again to continue");
        return;
    }
    if (outcome.accepted) {
        ++m_report.accepted;
        m_report.sent += outcome.sent ? 1 : 0;
        m_report.merged += outcome.merged ? 1 : 0;
        m_accepted[exchange.index] = true;
        // A commit (an fsync) per document would cost more than the request did.
        if (m_agreed.size() >= 500 || std::chrono::steady_clock::now() - m_lastFlush > std::chrono::seconds(1))
            flushAgreed();
    } else if (outcome.conflict || !outcome.waitingFor.empty()) {
        ++(outcome.conflict ? m_report.conflicts : m_report.waiting);
        m_report.replaced += outcome.replaced ? 1 : 0;
    } else if (outcome.stillRefused) {
        ++m_report.stillRefused;
    } else if (outcome.cannotTell) {
        ++m_report.cannotTell;
    } else {
        ++m_report.refused;
        outcome.status = answer.status;
        outcome.problem = answer.json();
        if (outcome.problem.is_null())
            outcome.problem = Json{{"detail", "no body"}};
        outcome.problem["request"] = answer.request;
        // The version refused: what "unchanged since" is measured against at the next push.
        m_state.recordFailure(m_target.targetId, {item.id, item.lastSeq, item.resource->projectName(),
                                                  item.resource->resourceName, operationName(item.operation),
                                                  answer.status, outcome.problem, {}});
    }
    m_scheduler->finished(exchange.index, outcome.accepted);
    m_outcomes[exchange.index] = std::move(outcome);
}

// Records what the target took since the last time, with the refusals and resolutions it clears.
void PushSession::flushAgreed()
{
    if (m_agreed.empty())
        return;
    ImmediateTransaction transaction(m_database.connection());
    for (const auto &[id, base] : m_agreed) {
        m_state.setBase(m_target.targetId, id, base);
        if (m_conflicted.count(id) > 0)
            m_state.dropConflict(m_target.targetId, id); // a resolution the target has taken now
        if (m_failures.count(id) > 0)
            m_state.clearFailure(m_target.targetId, id);
    }
    transaction.commit();
    m_agreed.clear();
    m_lastFlush = std::chrono::steady_clock::now();
}

PushReport PushSession::finish()
{
    for (std::optional<PushOutcome> &outcome : m_outcomes)
        if (outcome)
            m_report.outcomes.push_back(std::move(*outcome));
    m_outcomes.clear();
    try {
        flushAgreed();
    } catch (const std::exception &e) {
        // Not recorded: the next push finds these agreed again by reading them back.
        m_report.error = std::string("what the target took could not be recorded: ") + e.what();
        return m_report;
    }
    m_report.completed = m_report.error.empty() && !m_report.cancelled && m_scheduler->allFinished();
    m_report.cursorAfter = cursorAfter(m_report.plan, m_accepted);
    m_state.setPushCursor(m_target.targetId, m_report.cursorAfter);
    // The exchanges point into the plan: none may outlive the report moved out.
    m_running.clear();
    return std::move(m_report);
}

} // namespace steward
