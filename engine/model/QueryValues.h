#pragma once

#include "Json.h"
#include "JsonPath.h"

#include <cstdint>
#include <string>
#include <vector>

namespace steward {

struct ResourceSchema;

// One value a document gives one of its resource's query fields. `field` is the field's position in
// ResourceSchema::queryFields (its names in order), so that a store can key it without the name.
struct QueryValue
{
    std::uint32_t field = 0;
    Json value; // a string, number or boolean, as the document has it
};

// The values collection queries compare for this body: every scalar at each field's paths (every
// item of an array on the way), once per field and value, where strings that differ only in ASCII
// case count as one value (queries compare them without case).
std::vector<QueryValue> queryValuesOf(const ResourceSchema &resource, const Json &body);

// The values one query field gives at the given paths, as queryValuesOf collects them: for a field
// the store registered with paths the model no longer has.
std::vector<const Json *> fieldValuesOf(const std::vector<JsonPath> &paths, const Json &body);

// How the query index holds one value of one field: a single word of digits and lower-case letters,
// the same for two values exactly when a query compares them equal (numbers by value, booleans as
// the numbers 1 and 0, text without ASCII case). The field's key comes first, so a word names its field.
std::string queryIndexToken(std::int64_t fieldKey, const Json &value);

} // namespace steward
