#pragma once

#include "ApiSchema.h"
#include "Json.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace steward {

// What this database knows about one Ed-Fi API it syncs with. The network side lives in the
// front ends (app/net); this is the part that is only about the local database.
struct SyncTarget
{
    std::int64_t targetId = 0;
    std::string url;
    std::string client;
    std::int64_t pushCursor = 0; // every change up to this change-log seq was accepted by the target
    std::string lastPullAt;
    std::string lastPushAt;
    // The target's newest change version that a completed pull took everything up to; -1 before
    // the first such pull (or for a target without Change Queries).
    std::int64_t pullChangeVersion = -1;
    // How the target takes a create (learned once): "if-match", "look-up", or empty while unknown.
    std::string createCheck;
    // Requests in flight at once, as the steward last asked; 0: never asked (kDefaultParallel).
    int parallel = 0;
};

// Requests a sync keeps in flight when the steward did not say (Ed-Fi API Publisher posts up to 20 a
// resource at once), and at most.
constexpr int kDefaultParallel = 8;
constexpr int kMostParallel = 64;

struct SyncFailure
{
    std::string id; // the local document
    std::int64_t seq = 0;
    std::string project;
    std::string resource;
    std::string operation; // "upsert", "key-change", "delete"
    int status = 0;        // the target's HTTP status (0: no answer)
    Json problem;          // the target's body, or what went wrong on the way
    std::string at;
};

// The version of a document that this database and a target last agreed on (a pull stored it, or
// the target accepted it from a push): the merge base when both sides have changed it since.
struct SyncBase
{
    std::string remoteId; // the target's id of the document
    std::string etag;     // the target's etag of that version; empty when the target gives none
    std::int64_t seq = 0; // the change-log entry whose body it is; 0 when `text` holds it
    std::optional<std::string> text; // its body, where no entry of the log holds it (after a merge)

    bool known() const { return seq > 0 || text.has_value(); }
};

// A document both sides changed in ways that do not merge. The local document stays as it is and
// is not pushed; the target's copy and the base are kept here until a person resolves it.
struct SyncConflict
{
    enum class Kind
    {
        EditedBoth,   // the same value changed differently on each side
        DeletedThere, // deleted on the target, edited here
        DeletedHere,  // deleted here, edited on the target
        Refused,      // the merge of both sides is a document the engine refuses (reason)
    };
    std::int64_t targetId = 0;
    std::string id; // the local document (gone for DeletedHere)
    std::string project;
    std::string resource;
    Kind kind = Kind::EditedBoth;
    SyncBase base;                         // base.remoteId: the target's id
    std::optional<std::string> theirsText; // the target's copy; none when the target deleted it
    std::string theirsEtag;
    std::string reason; // what made it a conflict, in words
    std::string foundAt;
    std::int64_t resolvedOp = 0; // the journal operation that resolved it; 0 while open
};

const char *conflictKindName(SyncConflict::Kind kind); // "edited-both", "deleted-there", ...
const char *conflictKindTitle(SyncConflict::Kind kind); // as a sentence: "Changed here and on the target"

// The actor that pulled changes are recorded under; push leaves them out (the target has them).
std::string pullActor(const std::string &url);

// Sync bookkeeping on a writer connection; each write is its own short transaction, or part of the
// caller's write transaction when one is open (a pull's page, a merge with the document it writes).
class SyncState
{
public:
    explicit SyncState(SQLite::Database &db);

    SyncTarget ensureTarget(const std::string &url, const std::string &client);
    std::vector<SyncTarget> targets();
    void setPushCursor(std::int64_t targetId, std::int64_t seq);
    // A completed pull; with the target's change version it reached, when the target has Change Queries.
    void markPulled(std::int64_t targetId, std::optional<std::int64_t> changeVersion = std::nullopt);
    // The local document the target knows by remoteId.
    std::optional<std::string> localId(std::int64_t targetId, const std::string &remoteId);
    // Whether any local document is known to the target by its id (anything pulled or pushed).
    bool knowsRemoteIds(std::int64_t targetId);

    std::optional<std::string> remoteId(std::int64_t targetId, const std::string &localId);
    void setRemoteId(std::int64_t targetId, const std::string &localId, const std::string &remoteId);
    void setRemoteIds(std::int64_t targetId, const std::vector<std::pair<std::string, std::string>> &localToRemote);
    void forgetRemoteId(std::int64_t targetId, const std::string &localId);

    void setCreateCheck(std::int64_t targetId, const std::string &check);
    // Requests in flight for a sync with the target: `asked` (remembered for the next time) when given,
    // else the remembered one, else kDefaultParallel.
    int parallelFor(const SyncTarget &target, int asked);
    void setParallel(std::int64_t targetId, int parallel);
    void recordFailure(std::int64_t targetId, const SyncFailure &failure);
    void clearFailure(std::int64_t targetId, const std::string &localId);
    std::vector<SyncFailure> failures(std::int64_t targetId);

    // The target's id of a local document and the base they agreed on (base.known() is false when
    // only the id is remembered: a database from before bases, or a key change read from the feed).
    std::optional<SyncBase> base(std::int64_t targetId, const std::string &localId);
    void setBase(std::int64_t targetId, const std::string &localId, const SyncBase &base);
    // The body of a base: its text, or the change-log entry's body; none when neither can be read.
    std::optional<Json> baseBody(const SyncBase &base);

    // Records a conflict (open), replacing what was recorded for the document and target before.
    void recordConflict(const SyncConflict &conflict);
    // The conflict recorded for the document, open or resolved; open() tells which.
    std::optional<SyncConflict> conflict(std::int64_t targetId, const std::string &localId);
    // Open: not resolved, or resolved by an operation that was undone since.
    bool isOpen(const SyncConflict &conflict);
    std::vector<SyncConflict> openConflicts(std::int64_t targetId = 0); // 0: of every target
    // Open conflicts counted by target and resource (readiness).
    struct ConflictCount
    {
        std::int64_t targetId = 0;
        std::string project;
        std::string resource;
        std::int64_t count = 0;
    };
    std::vector<ConflictCount> openConflictCounts();
    // The local ids that have a conflict recorded with the target, open or resolved.
    std::set<std::string> conflictIds(std::int64_t targetId);
    std::int64_t openConflictCount(std::int64_t targetId = 0);
    // The target's copy as a sync found it again, for a conflict that stays open: under the id the
    // target has it now (it may have been made there again), or gone. A copy that is back turns a
    // delete against an edit into an edit against an edit.
    void updateTheirs(std::int64_t targetId, const std::string &localId, const std::string &remoteId,
                      const std::optional<std::string> &theirsText, const std::string &theirsEtag);
    void markResolved(std::int64_t targetId, const std::string &localId, std::int64_t opId);
    // The target took the resolution: the conflict is over.
    void dropConflict(std::int64_t targetId, const std::string &localId);

private:
    // A statement prepared once for this object (a push asks the same few per document), reset.
    SQLite::Statement &statement(const std::string &sql);

    SQLite::Database &m_db;
    std::map<std::string, std::unique_ptr<SQLite::Statement>> m_statements;
};

// One document's worth of work for a push, in the order Ed-Fi's API Publisher uses: identity
// (key) changes first, then upserts in load order, then deletes in reverse load order.
struct PushItem
{
    enum class Operation { KeyChange, Upsert, Delete };
    Operation operation = Operation::Upsert;
    std::string id; // the local document id
    const ResourceSchema *resource = nullptr;
    Json body;           // the document as it is now (key change, upsert)
    std::int64_t bodySeq = 0; // the change-log entry of that body (the document's current one)
    Json identity;       // its natural key now, or at deletion
    Json targetIdentity; // the natural key the target last saw (to find the target's id)
    std::int64_t firstSeq = 0;
    std::int64_t lastSeq = 0;
};

struct PushPlan
{
    std::int64_t fromSeq = 0; // the cursor the plan starts after
    std::int64_t toSeq = 0;   // the last change the plan covers
    std::vector<PushItem> items;

    // {"ed-fi/schools": {"upsert": 3, "delete": 1}}, for --dry-run and the app.
    std::map<std::string, std::map<std::string, int>> counts() const;
    Json toJson() const;
};

const char *operationName(PushItem::Operation operation);

// The changes after `cursor` (except those a pull from `url` made), folded per document. targetId,
// when given, tells which documents the target has taken already (sync_remote_ids): one created and
// deleted since the cursor is then left out only when the target never took it.
PushPlan planPush(SQLite::Database &db, const Model &model, std::int64_t cursor, const std::string &url,
                  std::int64_t targetId = 0);

// Where the cursor may move after a push: past every change, or to just before the first change
// of the earliest document the target did not accept (accepted[i] is items[i]'s outcome; items
// never attempted count as not accepted).
std::int64_t cursorAfter(const PushPlan &plan, const std::vector<bool> &accepted);

// The query string that finds a document by its natural key on an Ed-Fi API ("schoolId=255901"),
// from the resource's query fields; empty when its identity cannot be expressed that way.
std::string identityQuery(const ResourceSchema &resource, const Json &identity);

// A document as an Ed-Fi API serves it, without what the API adds: its id, etag and time stamp,
// the links inside references, and a descriptor's own integer id (ODS/API's "gradeLevelDescriptorId").
Json withoutApiFields(const ResourceSchema &resource, Json body);

// The change log as a feed, for `steward-cli changes` and downstream tools.
struct ChangeEntry
{
    std::int64_t seq = 0;
    std::string op;
    std::string project;
    std::string resource;
    std::string id;
    Json identity;
    std::optional<Json> body;
    std::string etag;
    std::string at;
    std::string actor;
    std::string source; // what made it ("import district.ndjson"); empty when not recorded

    Json toJson() const;
};

std::vector<ChangeEntry> readChanges(SQLite::Database &db, std::int64_t afterSeq, int limit);

} // namespace steward
