#pragma once

#include "DocumentJournal.h"
#include "EditJournal.h"
#include "Engine.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace steward {

// One document of a cascading delete: the document asked for, or one that depends on it.
struct DependentNode
{
    std::string id;
    std::string project;
    std::string resource;
    std::string naturalKey;
    int parent = -1;                // the node it was reached from (it references that one); -1 for the first
    std::vector<std::string> paths; // its fields that point at the parent ("$.schoolReference")
    int depth = 0;

    bool operator==(const DependentNode &other) const = default;
};

struct CascadeDeleteResult
{
    bool ok = false;
    bool applied = false; // committed; a preview or a failure wrote nothing
    std::string error;    // what stopped it, naming the document
    Json problem;         // the engine's answer to the delete that failed, when one did
    // [0] is the document asked for; then everything that references it, directly or through others,
    // breadth first, each once (under the first document it was reached from).
    std::vector<DependentNode> nodes;
    std::vector<std::size_t> deleteOrder; // indexes into nodes: every referrer before what it references
    std::int64_t opId = 0;                // the journal's operation, once applied

    // Documents per resource, in the order they are deleted.
    std::vector<std::pair<std::string, int>> countsByResource() const;
    Json toJson() const;
};

// More than this many dependents is refused (preview included): nothing that size should go by one click.
constexpr std::size_t kCascadeLimit = 100000;
// Referrers are read this many at a time when walking what depends on a document.
constexpr int kReferrerPage = 500;

// Deletes the document and every document that references it, transitively, referrers first, in one
// transaction through Engine::handle. The preview (apply = false) runs the same deletes and rolls
// back. expected: the nodes of the preview the user confirmed; apply refuses if they differ now.
// Applied, it is journaled (kind "cascade-delete") and undone like any journaled edit.
CascadeDeleteResult cascadeDelete(Engine &engine, const std::string &id, bool apply,
                                  const std::vector<DependentNode> *expected = nullptr, const std::string &actor = {});

// Puts every document of a document operation back as it was before, inside the caller's batch:
// deleted ones come back under their own id with their stored text, updated ones are PUT back, created
// ones deleted. Throws EditRefused (BulkEdit.h) naming each document in the way: one changed since
// the operation, or a write the engine refuses. Returns how many documents are back as they were
// (some come back by the engine's own cascade when an identity update is put back).
int putDocumentsBack(Engine &engine, std::int64_t opId, const std::vector<EditItem> &items, const std::string &actor);

} // namespace steward
