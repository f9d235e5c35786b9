#pragma once

#include "Engine.h"
#include "Importer.h"
#include "JsonDiff.h"
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
};

// Every resource of the model in load order, paged from the target, stored with full validation
// (refused documents become drafts with their reasons); the target's id of each is recorded so a
// later push updates the same record. A target with Change Queries is pulled incrementally after
// the first time: the documents changed since the last pull, its key changes and its deletes.
PullReport runPull(Engine &engine, Database &database, RemoteApi &remote, const std::string &client,
                   const SyncProgressFn &progress = {});

struct PushOutcome
{
    PushItem::Operation operation = PushItem::Operation::Upsert;
    std::string id;
    std::string resource; // "ed-fi/schools"
    Json identity;
    bool accepted = false;
    int status = 0;
    Json problem; // the target's answer when it refused
};

struct PushReport
{
    PushPlan plan;
    std::vector<PushOutcome> outcomes; // one per attempted plan item, in plan order
    int accepted = 0;
    int refused = 0;
    std::int64_t cursorBefore = 0;
    std::int64_t cursorAfter = 0;
    bool dryRun = false;
    bool completed = false;
    bool cancelled = false;
    std::string error; // why the push stopped early (target unreachable after retries, ...)

    Json toJson() const;
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
    };
    PushItem::Operation operation = PushItem::Operation::Upsert;
    State state = State::New;
    std::string id;
    std::string resource; // "ed-fi/schools"
    std::string naturalKey;
    std::vector<FieldChange> changes;
    std::vector<std::string> reasons; // "descriptor uri://...#X: the target does not have it"
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

// Sends the local changes since the last successful push; see engine/sync/Sync.h for the order.
PushReport runPush(Database &database, const Model &model, RemoteApi &remote, const std::string &client,
                   const SyncProgressFn &progress = {});

} // namespace steward
