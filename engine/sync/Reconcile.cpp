#include "Reconcile.h"

#include "DocumentStore.h"
#include "ResponseText.h"

#include <SQLiteCpp/Statement.h>

#include <stdexcept>

namespace steward {

const char *outcomeName(Reconciliation::Outcome outcome)
{
    switch (outcome) {
    case Reconciliation::Outcome::Unchanged:
        return "unchanged";
    case Reconciliation::Outcome::InStep:
        return "in step";
    case Reconciliation::Outcome::TakeTheirs:
        return "take theirs";
    case Reconciliation::Outcome::KeepMine:
        return "keep mine";
    case Reconciliation::Outcome::Merged:
        return "merged";
    case Reconciliation::Outcome::DeleteThere:
        return "delete there";
    case Reconciliation::Outcome::Conflict:
        return "conflict";
    }
    return "";
}

namespace {

// The batch a reconciliation writes in: the caller's when one is open, else one of its own.
class OwnBatch
{
public:
    explicit OwnBatch(Engine &engine) : m_engine(engine), m_owns(!engine.inBatch())
    {
        if (m_owns)
            m_engine.beginBatch();
    }
    ~OwnBatch()
    {
        if (m_owns && m_open)
            m_engine.rollbackBatch();
    }
    OwnBatch(const OwnBatch &) = delete;
    OwnBatch &operator=(const OwnBatch &) = delete;
    void commit()
    {
        m_open = false;
        if (m_owns)
            m_engine.commitBatch();
    }

private:
    Engine &m_engine;
    bool m_owns = false;
    bool m_open = true;
};

} // namespace

Reconciler::Reconciler(Engine &engine, SyncState &state, const SyncTarget &target)
    : m_engine(engine), m_state(state), m_target(target)
{
}

Json Reconciler::normalized(const ResourceSchema &resource, Json body) const
{
    Json copy = body;
    // A copy the schema refuses is compared as it came; the merge still sees every field of it.
    if (m_engine.model().validator().validateSchema(resource, copy).empty())
        return copy;
    return body;
}

std::optional<SyncBase> Reconciler::baseOf(const std::string &localId)
{
    std::optional<SyncBase> row = m_state.base(m_target.targetId, localId);
    if (row && row->known())
        return row;
    SQLite::Statement inferred(
        m_engine.database().connection(),
        std::string("SELECT c.seq FROM ") + kChangesWithBodies + " WHERE " + kEntryOfDocument +
            " AND c.op <> 'delete' AND (c.seq <= ?2 OR c.actor = ?3) ORDER BY c.seq DESC LIMIT 1");
    inferred.bind(1, localId);
    inferred.bind(2, m_target.pushCursor);
    inferred.bind(3, pullActor(m_target.url));
    if (!inferred.executeStep())
        return row;
    SyncBase base = row.value_or(SyncBase{});
    base.seq = inferred.getColumn(0).getInt64();
    base.text.reset();
    return base;
}

bool Reconciler::changedHere(const std::string &localId, const std::optional<StoredDocument> &mine,
                             const std::optional<SyncBase> &base, const std::optional<Json> &baseBody)
{
    if (baseBody)
        return !mine || Json::parse(mine->body, nullptr, false) != *baseBody;
    if (base && base->known())
        return true; // a base whose body cannot be read: assume the worst, merge
    // Nothing agreed on: whatever was written here and not pushed, but for what the target gave.
    SQLite::Statement since(m_engine.database().connection(),
                            std::string("SELECT EXISTS (SELECT 1 FROM ") + kChangesWithBodies + " WHERE " +
                                kEntryOfDocument + " AND c.seq > ?2 AND c.actor <> ?3)");
    since.bind(1, localId);
    since.bind(2, m_target.pushCursor);
    since.bind(3, pullActor(m_target.url));
    return since.executeStep() && since.getColumn(0).getInt() != 0;
}

void Reconciler::agree(const std::string &localId, const TargetCopy &theirs, std::int64_t seq,
                       const std::optional<Json> &text)
{
    SyncBase base;
    base.remoteId = theirs.remoteId;
    base.etag = theirs.etag;
    base.seq = seq;
    if (seq <= 0 && text)
        base.text = dumpJson(*text);
    m_state.setBase(m_target.targetId, localId, base);
}

Reconciliation Reconciler::conflict(SyncConflict::Kind kind, const ResourceSchema &resource,
                                    const std::string &localId, const std::optional<SyncBase> &base,
                                    const TargetCopy &theirs, const std::string &reason)
{
    SyncConflict recorded;
    recorded.targetId = m_target.targetId;
    recorded.id = localId;
    recorded.project = resource.projectName();
    recorded.resource = resource.resourceName;
    recorded.kind = kind;
    if (base && base->known())
        recorded.base = *base;
    recorded.base.remoteId = theirs.remoteId;
    if (theirs.body)
        recorded.theirsText = dumpJson(normalized(resource, *theirs.body));
    recorded.theirsEtag = theirs.etag;
    recorded.reason = reason;
    m_state.recordConflict(recorded);
    if (!theirs.remoteId.empty() && theirs.body)
        m_state.setRemoteId(m_target.targetId, localId, theirs.remoteId);
    return {Reconciliation::Outcome::Conflict, theirs.etag, reason};
}

Reconciliation Reconciler::reconcile(const ResourceSchema &resource, const std::string &localId,
                                     const TargetCopy &theirs)
{
    OwnBatch batch(m_engine);
    Reconciliation outcome = decide(resource, localId, theirs);
    batch.commit();
    return outcome;
}

Reconciliation Reconciler::decide(const ResourceSchema &resource, const std::string &localId,
                                  const TargetCopy &theirs)
{
    using Outcome = Reconciliation::Outcome;
    const std::optional<StoredDocument> mineDocument = m_engine.document(localId);
    const std::optional<Json> mine =
        mineDocument ? std::optional<Json>(Json::parse(mineDocument->body, nullptr, false)) : std::nullopt;
    const std::optional<Json> theirsBody =
        theirs.body ? std::optional<Json>(normalized(resource, *theirs.body)) : std::nullopt;
    const bool sameOnBoth = mine ? theirsBody && *mine == *theirsBody : !theirsBody;

    // A conflict still open stays open, following the target's copy, until both sides agree again.
    if (std::optional<SyncConflict> recorded = m_state.conflict(m_target.targetId, localId);
        recorded && m_state.isOpen(*recorded)) {
        // The target's copy may be another record of this identity now (deleted there, then made again):
        // its id is the one this document follows, so that what the target does to it next is found.
        if (!theirs.remoteId.empty() && theirs.body)
            m_state.setRemoteId(m_target.targetId, localId, theirs.remoteId);
        if (!sameOnBoth) {
            m_state.updateTheirs(
                m_target.targetId, localId, theirs.remoteId,
                theirsBody ? std::optional<std::string>(dumpJson(*theirsBody)) : std::nullopt, theirs.etag);
            return {Outcome::Conflict, theirs.etag, recorded->reason};
        }
        m_state.dropConflict(m_target.targetId, localId);
    }
    if (sameOnBoth) {
        // Deleted on both sides: what is recorded stays (a delete this database still plans to send
        // then finds the target's copy gone, and agrees).
        if (mineDocument)
            agree(localId, theirs, mineDocument->changeSeq, std::nullopt);
        return {Outcome::InStep, theirs.etag, {}};
    }

    const std::optional<SyncBase> base = baseOf(localId);
    if (base && base->known() && !theirs.etag.empty() && base->etag == theirs.etag)
        return {Outcome::Unchanged, theirs.etag, {}};
    const std::optional<Json> baseBody = base && base->known() ? m_state.baseBody(*base) : std::nullopt;
    const bool here = changedHere(localId, mineDocument, base, baseBody);

    if (!theirsBody) {
        if (!here)
            return {Outcome::TakeTheirs, theirs.etag, {}};
        return conflict(SyncConflict::Kind::DeletedThere, resource, localId, base, theirs,
                        "deleted on the target, changed here since the last sync");
    }
    if (!mine) {
        if (!base || !base->known())
            return {Outcome::TakeTheirs, theirs.etag, {}}; // nothing here and nothing agreed: new here
        if (baseBody && *theirsBody == *baseBody)
            return {Outcome::DeleteThere, theirs.etag, {}};
        return conflict(SyncConflict::Kind::DeletedHere, resource, localId, base, theirs,
                        "deleted here, changed on the target since the last sync");
    }
    if (!here)
        return {Outcome::TakeTheirs, theirs.etag, {}};
    if (baseBody && *theirsBody == *baseBody) {
        // Only this side changed; the target's etag moved without a change of content.
        SyncBase moved = *base;
        moved.remoteId = theirs.remoteId;
        moved.etag = theirs.etag;
        m_state.setBase(m_target.targetId, localId, moved);
        return {Outcome::KeepMine, theirs.etag, {}};
    }

    const MergeResult merge =
        DocumentMerger(&resource, m_pairing).merge(baseBody ? &*baseBody : nullptr, *mine, *theirsBody);
    if (!merge.clean()) {
        std::string paths;
        for (const MergeConflict &field : merge.conflicts)
            paths += (paths.empty() ? "" : ", ") + field.path + (field.item ? " (the whole item)" : "");
        return conflict(SyncConflict::Kind::EditedBoth, resource, localId, base, theirs,
                        (baseBody ? "changed on both sides: "
                                  : "different on both sides, with no version they agreed on: ") +
                            paths);
    }
    if (merge.merged == *theirsBody)
        return {Outcome::TakeTheirs, theirs.etag, {}};
    if (merge.merged == *mine) {
        agree(localId, theirs, 0, theirsBody);
        return {Outcome::KeepMine, theirs.etag, {}};
    }
    const ChangeSourceScope source(m_engine, "merge at sync with " + m_target.url);
    const Response written =
        m_engine.handle(Request::make("PUT", resource.requestPath(localId), currentOsUser(), merge.merged));
    if (m_engine.batchBroken())
        throw std::runtime_error("storing the merge of " + localId +
                                 " failed: " + problemSummary(written.body));
    if (!succeeded(written))
        return conflict(SyncConflict::Kind::Refused, resource, localId, base, theirs,
                        "the merge of both sides is refused here: " + problemSummary(written.body));
    agree(localId, theirs, 0, theirsBody);
    return {Outcome::Merged, theirs.etag, {}};
}

bool Reconciler::storeTheirs(const ResourceSchema &resource, const std::string &localId,
                             const TargetCopy &theirs)
{
    OwnBatch batch(m_engine);
    const ChangeSourceScope source(m_engine, "pull " + m_target.url);
    const std::string actor = pullActor(m_target.url);
    Response written;
    if (!theirs.body) {
        written = m_engine.handle(Request::make("DELETE", resource.requestPath(localId), actor));
        if (succeeded(written) || written.status == 404)
            m_state.forgetRemoteId(m_target.targetId, localId);
    } else {
        written = m_engine.handle(Request::make("PUT", resource.requestPath(localId), actor, *theirs.body));
        if (succeeded(written))
            if (std::optional<StoredDocument> stored = m_engine.document(localId))
                agree(localId, theirs, stored->changeSeq, std::nullopt);
    }
    if (m_engine.batchBroken())
        throw std::runtime_error("storing the target's copy of " + localId +
                                 " failed: " + problemSummary(written.body));
    const bool ok = succeeded(written) || (!theirs.body && written.status == 404);
    if (!ok)
        return false; // the batch rolls back whatever the refused write began
    batch.commit();
    return true;
}

} // namespace steward
