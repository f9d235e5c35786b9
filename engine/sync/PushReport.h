#pragma once

// What a push did, document by document, and what a sync may do beyond its defaults: the types the
// push's decisions (PushSession) fill in and the front ends show.

#include "Json.h"
#include "Sync.h"

#include <string>
#include <vector>

namespace steward {

// What keeps a sync from overwriting what the other side changed. All are always on; a test turns
// one off to show that it then loses edits (a mutation check of the tests themselves).
struct SyncSafeguards
{
    bool ifMatch = true;     // push: updates and deletes carry If-Match with the base's etag
    bool mergeOnPull = true; // pull: a document changed here too is merged, not overwritten
    bool itemsByKey = true;  // merge: collection items paired by their key only, never by resemblance
};

// How fast a sync may go: requests in flight at once, and a cap on requests a second for a target that
// publishes one. A target that answers 429 or 503 slows the whole sync down below these.
struct SyncPace
{
    int parallel = 0;  // 0: the target's remembered setting, else kDefaultParallel
    double rate = 0;   // requests a second at most; 0: no cap
};

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
    int parallel = 1;  // requests in flight at most (SyncPace)
    int pushedBack = 0;     // answers 429 or 503: the target asked for fewer requests
    int fewestInFlight = 0; // the smallest window the push slowed down to after being pushed back
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

// The If-Match a push sends with a new document: no stored etag is this.
extern const char *const kNewDocumentTag;

} // namespace steward
