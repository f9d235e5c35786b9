#include "QueryValues.h"

#include "ApiSchema.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace steward {

namespace {

// A value's sort and equality key as the store compares it: the type's rank, then the number or the
// ASCII-lower-cased text (booleans are the numbers 0 and 1, as SQLite stores them).
struct ValueKey
{
    int rank = 0; // 0 number, 1 text
    double number = 0;
    std::string text;

    bool operator<(const ValueKey &other) const
    {
        return std::tie(rank, number, text) < std::tie(other.rank, other.number, other.text);
    }
    bool operator==(const ValueKey &other) const
    {
        return rank == other.rank && number == other.number && text == other.text;
    }
};

ValueKey keyOf(const Json &value)
{
    ValueKey key;
    if (value.is_boolean()) {
        key.number = value.get<bool>() ? 1 : 0;
    } else if (value.is_number()) {
        key.number = value.get<double>();
    } else {
        key.rank = 1;
        key.text = value.get<std::string>();
        for (char &c : key.text)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return key;
}

void collectScalars(const Json &node, const std::vector<JsonPath::Step> &steps, std::size_t stepIndex,
                    std::vector<const Json *> &out)
{
    if (stepIndex == steps.size()) {
        if (node.is_string() || node.is_number() || node.is_boolean())
            out.push_back(&node);
        return;
    }
    const JsonPath::Step &step = steps[stepIndex];
    if (step.isArray()) {
        if (node.is_array())
            for (const Json &item : node)
                collectScalars(item, steps, stepIndex + 1, out);
        return;
    }
    if (!node.is_object())
        return;
    auto it = node.find(step.property);
    if (it != node.end())
        collectScalars(*it, steps, stepIndex + 1, out);
}

std::vector<std::pair<std::uint32_t, ValueKey>> keysOf(const std::vector<QueryValue> &values)
{
    std::vector<std::pair<std::uint32_t, ValueKey>> keys;
    keys.reserve(values.size());
    for (const QueryValue &value : values)
        keys.emplace_back(value.field, keyOf(value.value));
    std::sort(keys.begin(), keys.end());
    return keys;
}

} // namespace

std::vector<QueryValue> queryValuesOf(const ResourceSchema &resource, const Json &body)
{
    std::vector<QueryValue> out;
    std::vector<const Json *> found;
    std::vector<ValueKey> seen;
    std::uint32_t position = 0;
    for (const auto &[name, field] : resource.queryFields) {
        found.clear();
        for (const QueryFieldPath &path : field.paths)
            collectScalars(body, path.path.steps(), 0, found);
        seen.clear();
        for (const Json *value : found) {
            ValueKey key = keyOf(*value);
            if (std::find(seen.begin(), seen.end(), key) != seen.end())
                continue;
            seen.push_back(std::move(key));
            out.push_back({position, *value});
        }
        ++position;
    }
    return out;
}

bool sameQueryValues(const std::vector<QueryValue> &a, const std::vector<QueryValue> &b)
{
    return a.size() == b.size() && keysOf(a) == keysOf(b);
}

} // namespace steward
