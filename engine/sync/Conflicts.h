#pragma once

#include "Engine.h"
#include "JsonMerge.h"
#include "Sync.h"

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace steward {

// One open conflict as a person looks at it: the three versions, and the fields where they differ.
struct ConflictView
{
    SyncConflict conflict;
    std::string url;        // the target's
    std::string naturalKey; // of the local document, else of the target's copy
    std::optional<Json> base;
    std::optional<Json> mine;   // none: deleted here
    std::optional<Json> theirs; // none: deleted on the target
    // Edited on both sides: every field both changed differently. A delete against an edit is
    // decided for the whole document, so it lists none.
    std::vector<MergeConflict> fields;

    Json toJson() const;
};

// The open conflicts of one target (0: of every target), oldest first.
std::vector<ConflictView> listConflicts(Engine &engine, std::int64_t targetId = 0);

// How a person decided a conflict.
struct ConflictDecision
{
    std::string id;  // the local document
    std::string url; // the target; may stay empty when the document conflicts with one target only
    std::optional<MergeChoice> take;           // for every field not named below
    std::map<std::string, MergeChoice> fields; // by the conflict's field path
    // take names one version as it is, fields merged or not (a delete against an edit, and a merge
    // the engine refuses, are always decided so).
    bool wholeDocument = false;
    std::string actor; // empty: the OS user
};

struct ConflictResolution
{
    std::int64_t opId = 0; // the journal operation (steward-cli fix undo, Edit > Undo)
    std::string summary;
    std::optional<Json> document; // what is stored here now; none: deleted here
};

// A decision that cannot be applied: nothing was written. The message names what is missing or wrong.
class ConflictRefused : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// Applies the decision in one transaction: the decided document stored here (or the delete kept or
// taken), the target's copy becomes the base, so the next push sends it with the target's current
// etag, and all of it is one journaled operation; undoing that operation puts the document back and
// opens the conflict again. Throws ConflictRefused (a field left undecided, a resolved document the
// engine refuses, no such conflict) with nothing written.
ConflictResolution resolveConflict(Engine &engine, const ConflictDecision &decision);

} // namespace steward
