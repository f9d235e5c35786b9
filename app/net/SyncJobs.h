#pragma once

#include "Engine.h"
#include "Importer.h"
#include "JsonDiff.h"
#include "Reconcile.h"
#include "RemoteApi.h"
#include "PullSession.h"
#include "PushReport.h"
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

// Every resource of the model in load order, paged from the target, stored with full validation
// (refused documents become drafts with their reasons); the target's id of each is recorded so a
// later push updates the same record. A target with Change Queries is pulled incrementally after
// the first time: the documents changed since the last pull, its key changes and its deletes.
// A document this database changed since the version both sides last agreed on is not overwritten:
// the two are merged field by field, or kept as a conflict (steward-cli sync conflicts).
PullReport runPull(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
                   const SyncProgressFn &progress = {}, const SyncSafeguards &safeguards = {},
                   const SyncPace &pace = {});

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

// Sends the local changes since the last successful push: the decisions are PushSession's
// (engine/sync), this carries its requests, up to pace.parallel in flight at once (remembered per
// target), slowing down when the target pushes back.
PushReport runPush(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
                   const SyncProgressFn &progress = {}, const SyncSafeguards &safeguards = {},
                   const PushSettings &settings = {}, const SyncPace &pace = {});

} // namespace steward
