#pragma once

#include "Engine.h"
#include "JsonMerge.h"
#include "Sync.h"

#include <optional>
#include <string>

namespace steward {

// The target's copy of a document as a sync reads it.
struct TargetCopy
{
    std::string remoteId;
    std::string etag;         // empty when the target gives none
    std::optional<Json> body; // without the API's fields (withoutApiFields); none: the target deleted it
};

struct Reconciliation
{
    enum class Outcome
    {
        Unchanged,   // the target's copy is still the base: nothing of theirs to take
        InStep,      // both sides hold the same document (or both deleted it): that is the base now
        TakeTheirs,  // nothing changed here since the base: the target's copy is to be stored here
        KeepMine,    // only this side changed since the base: it goes to the target as it is
        Merged,      // both changed, without overlap: the merge is stored here and goes to the target
        DeleteThere, // deleted here, untouched there since the base: the delete goes to the target
        Conflict,    // recorded for a person; nothing written here, nothing to send
    };
    Outcome outcome = Outcome::Unchanged;
    std::string etag;   // the target's etag to send what goes there with (If-Match); may be empty
    std::string reason; // a conflict's, in words
};

const char *outcomeName(Reconciliation::Outcome outcome);

// Decides, for one document, what a sync does when the target's copy is not the version both sides
// last agreed on, and does the local part of it in one transaction (the caller's batch when one is
// open): records the new base, stores a merge, records a conflict, or keeps one that is still open
// up to date with the target's copy. Storing the target's copy itself (TakeTheirs) is the caller's:
// a pull stores what it reads in its own way, a push with storeTheirs().
class Reconciler
{
public:
    Reconciler(Engine &engine, SyncState &state, const SyncTarget &target);

    // How collection items are paired when both sides changed a document (by key, unless a test
    // shows that its checks catch the old pairing by resemblance).
    void setItemPairing(DocumentMerger::Pairing pairing) { m_pairing = pairing; }

    // localId: the local document it is about, which may be gone (deleted here).
    Reconciliation reconcile(const ResourceSchema &resource, const std::string &localId,
                             const TargetCopy &theirs);

    // Stores the target's copy over (or, deleted there, deletes) the local document, as a pull does,
    // and makes it the base; false (and nothing written) when the engine refuses it here.
    bool storeTheirs(const ResourceSchema &resource, const std::string &localId, const TargetCopy &theirs);

    // What a document's body is as the engine would store it: the schema's normalization (properties
    // it does not know and nulls dropped), so that a copy compares with what is stored here.
    Json normalized(const ResourceSchema &resource, Json body) const;

    // The base of a document: the one recorded, else (a database from before bases) its latest
    // version that the target took or gave: at or before the push position, or pulled from it.
    std::optional<SyncBase> baseOf(const std::string &localId);
    // Whether the document changed here since its base (with no base at all: since the last push).
    bool changedHere(const std::string &localId, const std::optional<StoredDocument> &mine,
                     const std::optional<SyncBase> &base, const std::optional<Json> &baseBody);

private:
    Reconciliation decide(const ResourceSchema &resource, const std::string &localId,
                          const TargetCopy &theirs);
    Reconciliation conflict(SyncConflict::Kind kind, const ResourceSchema &resource,
                            const std::string &localId, const std::optional<SyncBase> &base,
                            const TargetCopy &theirs, const std::string &reason);
    void agree(const std::string &localId, const TargetCopy &theirs, std::int64_t seq,
               const std::optional<Json> &text);

    Engine &m_engine;
    SyncState &m_state;
    SyncTarget m_target;
    DocumentMerger::Pairing m_pairing = DocumentMerger::Pairing::ByKey;
};

} // namespace steward
