#pragma once

#include "Json.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace steward {

struct ResourceSchema;

// One place where both sides changed a document differently since the version they agreed on.
// A side that does not have the value (removed it, or never had it) is nullopt.
struct MergeConflict
{
    // "$.firstName", "$.addresses[1].city", or a whole collection item "$.addresses[2]". An item's
    // index is its position in the merge's sequence of items: mine's items in mine's order, then
    // those mine does not have (so for an item mine has, its position in mine).
    std::string path;
    std::optional<Json> base;
    std::optional<Json> mine;
    std::optional<Json> theirs;

    Json toJson() const;
};

// How a conflict is decided: one side's value, or a value given by the steward (null: leave it out).
struct MergeChoice
{
    enum class Kind
    {
        Mine,
        Theirs,
        Value
    };
    Kind kind = Kind::Mine;
    Json value;

    static MergeChoice mine() { return {Kind::Mine, nullptr}; }
    static MergeChoice theirs() { return {Kind::Theirs, nullptr}; }
};

struct MergeResult
{
    // Both sides' changes together; where they conflict and no choice decided, mine stands.
    Json merged;
    std::vector<MergeConflict> conflicts; // undecided ones only

    bool clean() const { return conflicts.empty(); }
};

// A three-way merge of Ed-Fi documents, field by field: what one side changed since the base takes
// that side's value, the same change on both sides is no conflict, and different changes to one
// value are a conflict. Collections are merged per item, each item found on every side by its
// identity within the collection (the resource's arrayUniquenessConstraints, else the descriptor
// and reference fields the item requires), so an insertion on one side does not look like a change
// of every later item, and an item whose key changed on one side is paired with its old self by
// what else it holds, so that an edit of its other fields on the other side merges.
class DocumentMerger
{
public:
    // resource may be null: items are then keyed by their shape alone.
    explicit DocumentMerger(const ResourceSchema *resource);

    // base: the version both sides last agreed on; null when there is none (each value both sides
    // hold differently is then a conflict). choices: by conflict path; `fallback` decides the rest
    // when given (sync resolve --take).
    MergeResult merge(const Json *base, const Json &mine, const Json &theirs,
                      const std::map<std::string, MergeChoice> &choices = {},
                      const std::optional<MergeChoice> &fallback = std::nullopt) const;

    // The fields that identify an item of the collection at `genericPath` ("$.addresses[*]"),
    // relative to the item ("addressTypeDescriptor"); empty when the items have no such fields.
    std::vector<std::string> itemKeyFields(const std::string &genericPath) const;

private:
    class Run;
    const ResourceSchema *m_resource = nullptr;
    mutable std::map<std::string, std::vector<std::string>> m_keyFields; // by generic path
};

} // namespace steward
