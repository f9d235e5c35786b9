#include "JsonDiff.h"

#include <algorithm>

namespace steward {

namespace {

void diffAt(const Json &before, const Json &after, const std::string &path, std::vector<FieldChange> &out)
{
    if (before.is_object() && after.is_object()) {
        for (auto it = before.begin(); it != before.end(); ++it) {
            const std::string child = path + "." + it.key();
            auto other = after.find(it.key());
            if (other == after.end())
                out.push_back({FieldChange::Kind::Removed, child, it.value(), nullptr});
            else
                diffAt(it.value(), *other, child, out);
        }
        for (auto it = after.begin(); it != after.end(); ++it)
            if (!before.contains(it.key()))
                out.push_back({FieldChange::Kind::Added, path + "." + it.key(), nullptr, it.value()});
        return;
    }
    if (before.is_array() && after.is_array()) {
        const std::size_t common = std::min(before.size(), after.size());
        for (std::size_t i = 0; i < common; ++i)
            diffAt(before[i], after[i], path + "[" + std::to_string(i) + "]", out);
        for (std::size_t i = common; i < before.size(); ++i)
            out.push_back({FieldChange::Kind::Removed, path + "[" + std::to_string(i) + "]", before[i], nullptr});
        for (std::size_t i = common; i < after.size(); ++i)
            out.push_back({FieldChange::Kind::Added, path + "[" + std::to_string(i) + "]", nullptr, after[i]});
        return;
    }
    if (before != after)
        out.push_back({FieldChange::Kind::Changed, path, before, after});
}

} // namespace

std::vector<FieldChange> diffJson(const Json &before, const Json &after)
{
    std::vector<FieldChange> out;
    diffAt(before, after, "$", out);
    return out;
}

} // namespace steward
