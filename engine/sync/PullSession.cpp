#include "PullSession.h"

#include "RemoteExchange.h"

#include <stdexcept>

namespace steward {

namespace {
constexpr std::size_t kCommitEvery = 2000; // documents at most in one transaction of a pull
}

PullSession::PullSession(Engine &engine, Database &database, const std::string &url, const std::string &client,
                         const SyncSafeguards &safeguards)
    : m_engine(engine)
    , m_state(database.connection())
    , m_target(m_state.ensureTarget(url, client))
    , m_reconciler(engine, m_state, m_target)
    , m_safeguards(safeguards)
    , m_url(url)
{
    if (!safeguards.itemsByKey)
        m_reconciler.setItemPairing(DocumentMerger::Pairing::ByResemblance);
    // From a target nothing was pulled from or pushed to, every document is new here and its POST
    // needs it prepared. From one known before, most are documents pulled before, stored by a PUT
    // that would not use it: they are prepared where they are taken, and only when new.
    m_prepareAhead = !m_state.knowsRemoteIds(m_target.targetId);
}

// Change Queries' newest change version, read case-insensitively (older ODS/APIs capitalized it).
std::optional<std::int64_t> PullSession::newestChangeVersion(const Json &body)
{
    if (!body.is_object())
        return std::nullopt;
    for (const auto &[name, value] : body.items())
        if (toLower(name) == "newestchangeversion" && value.is_number_integer())
            return value.get<std::int64_t>();
    return std::nullopt;
}

bool PullSession::setNewestChangeVersion(std::optional<std::int64_t> newest)
{
    m_newest = newest;
    // With Change Queries, a pull takes what changed up to the target's newest change version
    // (everything the first time), and remembers that version for the next. A target whose newest
    // version went backwards was rebuilt: take everything again.
    if (newest && m_target.pullChangeVersion >= 0 && *newest >= m_target.pullChangeVersion) {
        m_window = "&minChangeVersion=" + std::to_string(m_target.pullChangeVersion + 1) +
                   "&maxChangeVersion=" + std::to_string(*newest);
        m_report.incremental = true;
    } else if (newest) {
        m_window = "&maxChangeVersion=" + std::to_string(*newest);
    }
    return !m_report.incremental || *newest > m_target.pullChangeVersion;
}

PullSession::PreparedPage PullSession::preparePage(const ResourceSchema &resource, Json items,
                                                  const std::string &origin, std::int64_t offset) const
{
    PreparedPage page;
    page.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        page.push_back(pendingFrom(resource, std::move(items[i]), origin, offset + static_cast<std::int64_t>(i) + 1));
        if (m_prepareAhead)
            page.back().prepared = m_engine.preparePost(resource, page.back().body);
    }
    return page;
}

void PullSession::takePage(const PreparedPage &page, bool moreAtHand)
{
    ++m_report.pages;
    apply(page, false, moreAtHand);
}

// Pages kept in one transaction while the next was at hand, committed.
void PullSession::commitTaken()
{
    if (m_engine.inBatch())
        m_engine.commitBatch();
    m_uncommitted = 0;
}

void PullSession::takePage(const ResourceSchema &resource, Json items, const std::string &origin,
                           std::int64_t offset)
{
    takePage(preparePage(resource, std::move(items), origin, offset));
}

// Where no caller catches (a stop, the end of the pull): a commit that fails is reported as the
// pull's failure, its pages rolled back.
bool PullSession::commitTakenOrFail()
{
    try {
        commitTaken();
        return true;
    } catch (const std::exception &e) {
        failed(e.what());
        return false;
    }
}

void PullSession::stopAt(const std::string &path, const std::string &why)
{
    if (commitTakenOrFail())
        m_report.outcome.error = "the pull stopped at " + path + ": " + why;
}

void PullSession::failed(const std::string &why)
{
    m_engine.rollbackBatch();
    m_uncommitted = 0;
    // The pages of the transaction that failed are taken again by the next pull (the change version
    // is not moved); those committed before it stay.
    m_report.outcome.error = "the pull stopped: " + why + "; pages stored before stay";
}

PullReport PullSession::finish()
{
    if (m_report.outcome.error.empty())
        commitTakenOrFail();
    if (m_report.outcome.error.empty() && !m_report.outcome.cancelled) {
        m_report.changeVersion = m_newest;
        m_report.outcome.completed = true;
        m_state.markPulled(m_target.targetId, m_report.changeVersion);
    }
    return std::move(m_report);
}

// References to documents of the same resource that came on a later page.
void PullSession::retryUnresolved()
{
    commitTaken();
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

// The local document a feed entry names: by the target's id, else by its key values.
std::optional<std::string> PullSession::localDocumentFor(const ResourceSchema &resource, const Json &entry, const char *keys)
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
void PullSession::takeKeyChanges(const ResourceSchema &resource, const std::vector<Json> &entries)
{
    std::vector<std::pair<std::string, std::string>> remoteIds;
    for (const Json &entry : entries)
        if (entry.contains("id") && entry["id"].is_string())
            if (std::optional<std::string> local = localDocumentFor(resource, entry, "oldKeyValues"))
                remoteIds.emplace_back(*local, entry["id"].get<std::string>());
    if (!remoteIds.empty())
        m_state.setRemoteIds(m_target.targetId, remoteIds);
    m_report.keyChanges += static_cast<int>(entries.size());
}

void PullSession::takeDeletes(const ResourceSchema &resource, const std::vector<Json> &entries)
{
    if (entries.empty())
        return;
    const std::string resourceKey = resource.resourceKey();
    commitTaken();
    m_engine.beginBatch();
    for (const Json &entry : entries) {
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
            m_engine.handle(Request::make("DELETE", resource.requestPath(*local), pullActor(m_url)));
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
}

// Whether the target's copy (or its delete) is to be stored over the local document as it is;
// otherwise the reconciler kept, merged or recorded a conflict, and counted it here.
bool PullSession::takesTheirs(const ResourceSchema &resource, const std::string &localId, const TargetCopy &theirs,
                 ImportCounts *counts)
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

PullSession::Pending PullSession::pendingFrom(const ResourceSchema &resource, Json item, const std::string &origin,
                    std::int64_t position) const
{
    Pending pending;
    pending.resource = &resource;
    pending.origin = origin;
    pending.position = position;
    if (item.is_object() && item.contains("id") && item["id"].is_string())
        pending.remoteId = item["id"].get<std::string>();
    pending.etag = etagOf(item);
    // Server fields of the target's copy, not part of the document.
    pending.body = withoutApiFields(resource, std::move(item));
    return pending;
}

// The change version of the local document as the write just answered left it.
std::optional<std::int64_t> PullSession::storedVersion(const std::string &localId)
{
    if (m_engine.lastWriteChangeSeq() != 0)
        return m_engine.lastWriteChangeSeq();
    // Unchanged: the version it already had.
    if (std::optional<StoredDocument> stored = m_engine.document(localId))
        return stored->changeSeq;
    return std::nullopt;
}

void PullSession::apply(const std::vector<Pending> &pending, bool lastChance, bool moreAtHand)
{
    if (pending.empty()) {
        if (!moreAtHand)
            commitTaken();
        return;
    }
    const std::string actor = pullActor(m_url);
    if (!m_engine.inBatch())
        m_engine.beginBatch();
    m_uncommitted += pending.size();
    for (const Pending &item : pending) {
        const std::string resourceKey = item.resource->resourceKey();
        ImportCounts &counts = m_report.outcome.byResource[resourceKey];
        ImportCounts &totals = m_report.outcome.totals;
        // A document pulled before is updated where it is, so a change of its identity on the
        // target moves it here too instead of leaving the old one behind.
        std::optional<std::string> known =
            item.remoteId.empty() ? std::nullopt : m_state.localId(m_target.targetId, item.remoteId);
        // A new one is prepared once: its identity finds one made here, and the same preparation
        // is what gets stored.
        std::optional<PreparedBody> preparedHere;
        const PreparedBody *prepared = item.prepared ? &*item.prepared : nullptr;
        if (!known && !prepared)
            prepared = &preparedHere.emplace(m_engine.preparePost(*item.resource, item.body));
        if (m_safeguards.mergeOnPull) {
            // One made here with the same identity is the same document: merged, not overwritten.
            if (!known && item.body.is_object()) {
                std::optional<StoredDocument> same = prepared->refusal
                                                         ? m_engine.documentByIdentity(*item.resource, item.body)
                                                         : m_engine.documentByIdentity(*prepared);
                if (same)
                    known = same->id;
            }
            if (known && !takesTheirs(*item.resource, *known, {item.remoteId, item.etag, item.body}, &counts))
                continue;
        }
        Response response;
        if (known) {
            response = m_engine.handle(
                Request::make("PUT", item.resource->requestPath(*known), actor, item.body));
            if (response.status == 404) {
                // Gone here: stored again as a new document, which the target's id then names.
                m_state.forgetRemoteId(m_target.targetId, *known);
                known.reset();
                if (!prepared)
                    prepared = &preparedHere.emplace(m_engine.preparePost(*item.resource, item.body));
            }
        }
        if (!known)
            response = m_engine.handlePrepared(*prepared, actor);
        if (m_engine.batchBroken())
            throw std::runtime_error(response.body.value("detail", std::string("a write failed")));
        if (response.status == 201 || response.status == 200 || response.status == 204) {
            std::int64_t ImportCounts::*field = response.status == 201 ? &ImportCounts::created
                                                : m_engine.lastWriteChanged() ? &ImportCounts::updated
                                                                               : &ImportCounts::unchanged;
            ++(counts.*field);
            ++(totals.*field);
            const std::string localId = known ? *known : idFromLocation(response.header("Location"));
            // What was stored (or found unchanged) is the version both sides agree on now.
            if (!item.remoteId.empty())
                if (std::optional<std::int64_t> seq = storedVersion(localId))
                    m_state.setBase(m_target.targetId, localId, SyncBase{item.remoteId, item.etag, *seq, std::nullopt});
        } else if (response.status == 409 && !lastChance
                   && response.body.value("type", std::string()) == problem::kUnresolvedReference) {
            m_unresolved.push_back(item);
        } else {
            ++counts.drafts;
            ++totals.drafts;
            m_report.outcome.drafts.push_back({item.origin, item.position, resourceKey, response.body});
            m_engine.keepDraft(item.resource->projectName(), item.resource->resourceName, dumpJson(item.body),
                               response.body, actor);
        }
    }
    // A commit a page cost an eighth of a first pull; a few pages in one keep the transaction short.
    if (!moreAtHand || m_uncommitted >= kCommitEvery)
        commitTaken();
}

} // namespace steward
