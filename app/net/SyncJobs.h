#pragma once

#include "Engine.h"
#include "Importer.h"
#include "JsonDiff.h"
#include "Reconcile.h"
#include "RemoteApi.h"
#include "Sync.h"

#include <functional>
#include <optional>
#include <string>

namespace steward {

struct SyncProgress
{
    std::string phase;    // "pulling", "pushing"
    std::string resource; // "ed-fi/schools"
    std::int64_t done = 0;
    std::int64_t total = 0; // 0 when unknown (a pull does not know in advance)
};
// Return false to stop after the current document (pull: after the current page).
using SyncProgressFn = std::function<bool(const SyncProgress &)>;

// What keeps a sync from overwriting what the other side changed. All are always on; a test turns
// one off to show that it then loses edits (a mutation check of the tests themselves).
struct SyncSafeguards
{
    bool ifMatch = true;     // push: updates and deletes carry If-Match with the base's etag
    bool mergeOnPull = true; // pull: a document changed here too is merged, not overwritten
    bool itemsByKey = true;  // merge: collection items paired by their key only, never by resemblance
};

struct PullReport
{
    ImportReport outcome; // created / updated / unchanged / drafts, per resource, as an import reports them
    int pages = 0;
    int requests = 0;         // data and Change Queries requests made
    bool incremental = false; // only what changed since the last pull (the target has Change Queries)
    std::optional<std::int64_t> changeVersion; // the target's newest change version this pull reached
    int keyChanges = 0;
    int deleted = 0;              // local documents deleted because the target deleted them
    std::vector<Json> deletesRefused; // deletes the local database refused (still referenced here)
    int merged = 0;     // changed on both sides without overlap: merged here, to be pushed
    int keptHere = 0;   // changed here only (or deleted here): left for the push
    int conflicts = 0;  // changed on both sides in ways that do not merge: kept for a person
};

// Every resource of the model in load order, paged from the target, stored with full validation
// (refused documents become drafts with their reasons); the target's id of each is recorded so a
// later push updates the same record. A target with Change Queries is pulled incrementally after
// the first time: the documents changed since the last pull, its key changes and its deletes.
// A document this database changed since the version both sides last agreed on is not overwritten:
// the two are merged field by field, or kept as a conflict (steward-cli sync conflicts).
PullReport runPull(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
                   const SyncProgressFn &progress = {}, const SyncSafeguards &safeguards = {});

struct PushOutcome
{
    PushItem::Operation operation = PushItem::Operation::Upsert;
    std::string id;
    std::string resource; // "ed-fi/schools"
    Json identity;
    bool accepted = false;
    bool conflict = false;  // kept for a person, not sent (steward-cli sync conflicts)
    std::string waitingFor; // not sent: it references a document held back by a conflict (that one's id)
    bool merged = false;    // the target had changed it too: the merge of both was sent
    bool sent = false;      // accepted by a request of this push (not agreed already)
    // Refused by an earlier push and not changed since: not sent again (PushSettings::retryRefused).
    bool stillRefused = false;
    // Not sent: the target cannot tell whether it has a record of this identity (its look-up failed)
    // and blind creates were not allowed.
    bool cannotTell = false;
    // A create the target answered 200 (updated): it replaced a record of that identity it had. Kept
    // as a conflict for a person, never counted as a create.
    bool replaced = false;
    int status = 0;
    Json problem; // the target's answer when it refused; why it was held back otherwise
};

struct PushReport
{
    PushPlan plan;
    std::vector<PushOutcome> outcomes; // one per attempted plan item, in plan order
    int accepted = 0;
    int refused = 0;
    int conflicts = 0; // held back: changed on both sides in ways that do not merge
    int waiting = 0;   // held back: they reference a document held back
    int merged = 0;    // changed on both sides, merged and sent
    int sent = 0;      // accepted by a request of this push; the rest of `accepted` the target had already
    int stillRefused = 0; // refused before and unchanged since: not sent again
    int cannotTell = 0;   // creates not sent: the target could not say whether it has the record
    int replaced = 0;     // creates the target took over a record it had (answered 200, not 201)
    int requests = 0;  // made to the target
    std::string createCheck; // how this target's creates are made safe: "if-match" or "look-up"
    std::int64_t cursorBefore = 0;
    std::int64_t cursorAfter = 0;
    bool dryRun = false;
    bool completed = false;
    bool cancelled = false;
    std::string error; // why the push stopped early (target unreachable after retries, ...)

    // The documents not accepted, grouped by why: the target's answer (status and problem), "still
    // refused" ones by their earlier answer, and those that wait by what they wait for.
    struct Group
    {
        std::string reason;
        int count = 0;
        std::vector<std::string> behind; // what the waiting ones wait for (local ids), most waited-for first
        std::vector<std::string> examples; // a few of the documents ("ed-fi/students {studentUniqueId...}")
    };
    std::vector<Group> groups() const;
    Json toJson() const;
};

// What a push may do beyond its defaults.
struct PushSettings
{
    // Send creates to a target that cannot say whether it has the record (its look-up by natural key
    // fails) and does not check If-Match on a POST: it may replace a record someone else made.
    bool allowBlindCreates = false;
    // Send again what the target refused before, unchanged since.
    bool retryRefused = false;
};

// The plan alone (for --dry-run and the app's confirmation), without contacting the target.
PushReport planOnly(Database &database, const Model &model, const std::string &url, const std::string &client);

// One document of a push as the target would take it.
struct PushPreviewItem
{
    enum class State
    {
        New,       // the target has no such document: it will be created
        Changed,   // the target's copy differs (changes: from the target's copy to this one)
        Unchanged, // the target has it as it is here
        Refused,   // the target would refuse it (reasons)
        Delete,    // a delete of a document the target has
        Absent,    // a delete of a document the target does not have (nothing to send)
        Conflict,  // held back by a conflict a person has to resolve first
    };
    PushItem::Operation operation = PushItem::Operation::Upsert;
    State state = State::New;
    std::string id;
    std::string resource; // "ed-fi/schools"
    std::string naturalKey;
    std::vector<FieldChange> changes;
    std::vector<std::string> reasons; // "descriptor uri://...#X: the target does not have it"
    // The target's copy is not the version both sides last agreed on: someone changed it there since
    // this database last pulled or pushed it, and the push will merge the two.
    bool changedOnTarget = false;
};

const char *previewStateName(PushPreviewItem::State state); // "new", "changed", ...

struct PushPreview
{
    PushPlan plan;
    std::vector<PushPreviewItem> items; // one per plan item, in plan order
    int requests = 0;                   // GETs made to the target
    bool cancelled = false;
    std::string error; // why the preview stopped (the target did not answer)

    int count(PushPreviewItem::State state) const;
    Json toJson() const;
};

// What a push would do, asked of the target without changing anything there or here: each planned
// document looked up on the target (by the id remembered for it, else by its natural key) and compared
// with its copy; and each reference or descriptor value it holds that the push does not send itself
// looked up too, so a document the target would refuse (a descriptor value or a referenced document
// it lacks) is named with the reason before anything is sent.
PushPreview previewPush(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
                        const SyncProgressFn &progress = {});

// Sends the local changes since the last successful push; see engine/sync/Sync.h for the order. A
// document the target has is sent to its id with If-Match: the etag of the version both sides last
// agreed on; when the target changed it since (412), its copy is read and the two are merged three
// ways (engine/sync/Reconcile), and the merge sent, or kept as a conflict together with what
// references it. A new document is sent with an If-Match that matches nothing, so that a target that
// has one with its identity already answers 412 instead of taking this one over it; a target that does
// not check If-Match on a POST (learned from its discovery document or its answers, kept per target)
// is asked by natural key first. A document refused before and unchanged since is not sent again, and
// what references a refused document waits for it.
PushReport runPush(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
                   const SyncProgressFn &progress = {}, const SyncSafeguards &safeguards = {},
                   const PushSettings &settings = {});

// The If-Match a push sends with a new document: no stored etag is this.
extern const char *const kNewDocumentTag;

} // namespace steward
