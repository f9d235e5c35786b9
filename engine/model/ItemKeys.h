#pragma once

#include <string>
#include <vector>

namespace steward {

struct ResourceSchema;

// What makes an item of a collection the same item in two versions of a document.
struct ItemKey
{
    enum class Source
    {
        Schema,        // the resource's arrayUniquenessConstraints (nested ones included)
        EdFiTable,     // the table of Ed-Fi collections in ItemKeys.cpp (what ODS/API's child tables key on)
        SingleMember,  // the item is one descriptor or one reference, and that is its key
        RequiredFields // none of the above: every field the item requires
    };

    // Relative to the item: "addressTypeDescriptor", "schoolYearTypeReference". Empty: the item has no
    // fields (a scalar array), so it is its own key.
    std::vector<std::string> fields;
    // The part of the key that still names the item when the rest of the key is corrected (an address's
    // type, a code's identification system). Empty: a changed key is another item.
    std::vector<std::string> stable;
    Source source = Source::RequiredFields;
};

const char *itemKeySourceName(ItemKey::Source source);

// The key of the items of the collection at `genericItemPath` ("$.addresses[*]",
// "$.addresses[*].periods[*]") of a resource; resource may be null (the items are then keyed by
// everything they hold).
ItemKey itemKeyOf(const ResourceSchema *resource, const std::string &genericItemPath);

} // namespace steward
