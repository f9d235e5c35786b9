#pragma once

#include "Json.h"

#include <cstdint>
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

// Whether two lists of query values hold the same values, whatever their order.
bool sameQueryValues(const std::vector<QueryValue> &a, const std::vector<QueryValue> &b);

} // namespace steward
