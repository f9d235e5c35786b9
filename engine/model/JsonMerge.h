#pragma once

#include "ItemKeys.h"
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
    // A whole collection item: removed (or replaced) on one side while the other edited it, or replaced
    // by different items on both sides. Decided as a whole: mine, theirs, or both items kept.
    bool item = false;

    // For an item: the fields whose values are not the same in all the versions that hold it.
    std::vector<std::string> differingFields() const;
    Json toJson() const;
};

// How a conflict is decided: one side's value, both sides' items (a collection item's conflict only),
// or a value given by the steward (null: leave it out).
struct MergeChoice
{
    enum class Kind
    {
        Mine,
        Theirs,
        Both,
        Value
    };
    Kind kind = Kind::Mine;
    Json value;

    static MergeChoice mine() { return {Kind::Mine, nullptr}; }
    static MergeChoice theirs() { return {Kind::Theirs, nullptr}; }
    static MergeChoice both() { return {Kind::Both, nullptr}; }
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
// value are a conflict. Collections are merged per item, and an item is the same item on two sides
// only by its key (ItemKeys: the schema's arrayUniquenessConstraints, else Ed-Fi's collection keys):
// by its whole key, or, when one side corrected part of the key, by the key's stable part (an
// address's type) when that names exactly one item in the base and in that side. An item paired so
// merges field by field; anything else is an item removed and another added. An item removed (or
// replaced) on one side and edited on the other, or replaced by different items on both sides, is a
// conflict over the whole item. Resemblance never pairs items for a merge: it only puts a side's
// replacement beside the item it replaced in such a conflict, for a person to decide.
class DocumentMerger
{
public:
    enum class Pairing
    {
        ByKey,
        // Items without a key match paired with the base item they most resemble, their fields merged
        // across: what the merge did before item keys. Kept only so tests can show their checks catch it.
        ByResemblance
    };

    // resource may be null: items are then keyed by their whole value.
    explicit DocumentMerger(const ResourceSchema *resource, Pairing pairing = Pairing::ByKey);

    // base: the version both sides last agreed on; null when there is none (each value both sides
    // hold differently is then a conflict). choices: by conflict path; `fallback` decides the rest
    // when given (sync resolve --take).
    MergeResult merge(const Json *base, const Json &mine, const Json &theirs,
                      const std::map<std::string, MergeChoice> &choices = {},
                      const std::optional<MergeChoice> &fallback = std::nullopt) const;

    // The key of the items of the collection at `genericPath` ("$.addresses[*]").
    const ItemKey &itemKey(const std::string &genericPath) const;
    // Its fields, relative to the item ("addressTypeDescriptor"); empty when the items have none.
    std::vector<std::string> itemKeyFields(const std::string &genericPath) const;

private:
    class Run;
    const ResourceSchema *m_resource = nullptr;
    Pairing m_pairing = Pairing::ByKey;
    mutable std::map<std::string, ItemKey> m_keys; // by generic path
};

} // namespace steward
