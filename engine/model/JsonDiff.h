#pragma once

#include "Json.h"

#include <string>
#include <vector>

namespace steward {

// One difference between two versions of a document, at the deepest path where they differ: a
// field added or removed (with all it holds) or a value changed; array items are compared by position.
struct FieldChange
{
    enum class Kind { Added, Removed, Changed };
    Kind kind = Kind::Changed;
    std::string path; // "$.addresses[0].city"
    Json before;      // null when added
    Json after;       // null when removed
};

// What changed from `before` to `after`, in the order of their fields (before's, then new ones).
std::vector<FieldChange> diffJson(const Json &before, const Json &after);

} // namespace steward
