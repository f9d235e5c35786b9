#include "JsonMerge.h"

#include "ApiSchema.h"
#include "Text.h"

#include <algorithm>

namespace steward {

namespace {

bool sameValue(const Json *a, const Json *b)
{
    if (a == nullptr || b == nullptr)
        return a == b;
    return *a == *b;
}

std::optional<Json> optionalOf(const Json *value)
{
    return value == nullptr ? std::nullopt : std::optional<Json>(*value);
}

// The schema at a generic path ("$.addresses[*]") of a resource's JSON Schema, or null.
const Json *schemaAt(const Json &root, const std::string &genericPath)
{
    const Json *at = &root;
    std::size_t i = 1; // past "$"
    while (i < genericPath.size()) {
        if (genericPath.compare(i, 3, "[*]") == 0) {
            auto items = at->find("items");
            if (items == at->end())
                return nullptr;
            at = &*items;
            i += 3;
            continue;
        }
        if (genericPath[i] != '.')
            return nullptr;
        const std::size_t end = genericPath.find_first_of(".[", i + 1);
        const std::string name =
            genericPath.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
        auto properties = at->find("properties");
        if (properties == at->end() || !properties->is_object() || !properties->contains(name))
            return nullptr;
        at = &(*properties)[name];
        i = end == std::string::npos ? genericPath.size() : end;
    }
    return at;
}

} // namespace

Json MergeConflict::toJson() const
{
    auto side = [](const std::optional<Json> &value) { return value ? *value : Json(nullptr); };
    return Json{{"path", path},
                {"base", side(base)},
                {"mine", side(mine)},
                {"theirs", side(theirs)},
                {"inBase", base.has_value()},
                {"inMine", mine.has_value()},
                {"inTheirs", theirs.has_value()}};
}

DocumentMerger::DocumentMerger(const ResourceSchema *resource) : m_resource(resource) {}

std::vector<std::string> DocumentMerger::itemKeyFields(const std::string &genericPath) const
{
    if (auto known = m_keyFields.find(genericPath); known != m_keyFields.end())
        return known->second;
    std::vector<std::string> fields;
    if (m_resource != nullptr) {
        const std::string prefix = genericPath + ".";
        for (const std::vector<JsonPath> &group : m_resource->arrayUniquenessConstraints)
            for (const JsonPath &path : group)
                if (path.text().compare(0, prefix.size(), prefix) == 0 &&
                    path.text().find('[', prefix.size()) == std::string::npos &&
                    std::find(fields.begin(), fields.end(), path.text().substr(prefix.size())) ==
                        fields.end())
                    fields.push_back(path.text().substr(prefix.size()));
        // The item's own shape: the descriptors and references it requires (Ed-Fi's identity of a
        // collection item), else every scalar it requires.
        const Json *item = fields.empty() ? schemaAt(m_resource->jsonSchema, genericPath) : nullptr;
        if (item != nullptr && item->is_object() && item->contains("required") &&
            item->contains("properties")) {
            const Json &properties = (*item)["properties"];
            std::vector<std::string> scalars;
            for (const Json &name : (*item)["required"]) {
                if (!name.is_string() || !properties.contains(name.get<std::string>()))
                    continue;
                const std::string field = name.get<std::string>();
                const std::string type = properties[field].value("type", std::string());
                if ((type == "string" && field.ends_with("Descriptor")) ||
                    (type == "object" && field.ends_with("Reference")))
                    fields.push_back(field);
                else if (type != "object" && type != "array")
                    scalars.push_back(field);
            }
            if (fields.empty())
                fields = std::move(scalars);
        }
    }
    m_keyFields[genericPath] = fields;
    return fields;
}

// One merge: the conflicts it finds and the choices that decide them.
class DocumentMerger::Run
{
public:
    Run(const DocumentMerger &merger, const std::map<std::string, MergeChoice> &choices,
        const std::optional<MergeChoice> &fallback)
        : m_merger(merger), m_choices(choices), m_fallback(fallback)
    {
    }

    std::vector<MergeConflict> conflicts;

    // The merged value at path (nullopt: absent). genericPath names the path with "[*]" for items.
    std::optional<Json> value(const std::string &path, const std::string &genericPath, const Json *base,
                              const Json *mine, const Json *theirs)
    {
        if (sameValue(mine, theirs))
            return optionalOf(mine);
        // With a base, a side that kept the base's value takes the other side's change.
        if (base != nullptr || (mine == nullptr) != (theirs == nullptr)) {
            if (sameValue(base, mine))
                return optionalOf(theirs);
            if (sameValue(base, theirs))
                return optionalOf(mine);
        }
        if (mine != nullptr && theirs != nullptr) {
            const bool baseFits = [&] { return base == nullptr || base->type() == mine->type(); }();
            if (mine->is_object() && theirs->is_object() && baseFits)
                return object(path, genericPath, base, *mine, *theirs);
            if (mine->is_array() && theirs->is_array() && baseFits)
                return array(path, genericPath, base, *mine, *theirs);
        }
        return conflict(path, base, mine, theirs);
    }

private:
    std::optional<Json> conflict(const std::string &path, const Json *base, const Json *mine,
                                 const Json *theirs)
    {
        auto chosen = m_choices.find(path);
        const MergeChoice *choice = chosen != m_choices.end() ? &chosen->second
                                    : m_fallback              ? &*m_fallback
                                                              : nullptr;
        if (choice == nullptr) {
            conflicts.push_back({path, optionalOf(base), optionalOf(mine), optionalOf(theirs)});
            return optionalOf(mine);
        }
        switch (choice->kind) {
        case MergeChoice::Kind::Mine:
            return optionalOf(mine);
        case MergeChoice::Kind::Theirs:
            return optionalOf(theirs);
        case MergeChoice::Kind::Value:
            break;
        }
        return choice->value.is_null() ? std::nullopt : std::optional<Json>(choice->value);
    }

    Json object(const std::string &path, const std::string &genericPath, const Json *base, const Json &mine,
                const Json &theirs)
    {
        Json out = Json::object();
        auto member = [](const Json *object, const std::string &key) -> const Json * {
            if (object == nullptr || !object->is_object())
                return nullptr;
            auto found = object->find(key);
            return found == object->end() ? nullptr : &*found;
        };
        std::vector<std::string> keys;
        for (auto it = mine.begin(); it != mine.end(); ++it)
            keys.push_back(it.key());
        for (const Json *side : {&theirs, base})
            if (side != nullptr && side->is_object())
                for (auto it = side->begin(); it != side->end(); ++it)
                    if (!mine.contains(it.key()) &&
                        std::find(keys.begin(), keys.end(), it.key()) == keys.end())
                        keys.push_back(it.key());
        for (const std::string &key : keys) {
            std::optional<Json> merged = value(path + "." + key, genericPath + "." + key, member(base, key),
                                               member(&mine, key), member(&theirs, key));
            if (merged)
                out[key] = std::move(*merged);
        }
        return out;
    }

    // An item's key: the values of its key fields (descriptor URIs without case); null when it has none.
    static Json keyOf(const Json &item, const std::vector<std::string> &fields)
    {
        if (!item.is_object())
            return item;
        if (fields.empty())
            return item; // keyed by all it holds
        Json key = Json::array();
        bool any = false;
        for (const std::string &field : fields) {
            auto found = item.find(field);
            if (found == item.end()) {
                key.push_back(nullptr);
                continue;
            }
            any = true;
            key.push_back(found->is_string() && field.ends_with("Descriptor")
                              ? Json(lowerAscii(found->get<std::string>()))
                              : *found);
        }
        return any ? key : Json(nullptr);
    }

    // How alike two items are: the share of their fields (of both) that hold equal values.
    static double likeness(const Json &a, const Json &b)
    {
        if (!a.is_object() || !b.is_object())
            return a == b ? 1.0 : 0.0;
        int equal = 0;
        int all = static_cast<int>(a.size());
        for (auto it = b.begin(); it != b.end(); ++it) {
            auto other = a.find(it.key());
            if (other == a.end())
                ++all;
            else if (*other == it.value())
                ++equal;
        }
        return all == 0 ? 1.0 : static_cast<double>(equal) / all;
    }

    // For each item of a side, the base item it is (-1: added on that side). By key first; then an
    // item left over is paired with the left-over base item most like it, when they share at least
    // half of what they hold (a changed key).
    static std::vector<int> pair(const Json &base, const Json &side, const std::vector<Json> &baseKeys,
                                 const std::vector<Json> &sideKeys)
    {
        std::vector<int> out(side.size(), -1);
        std::vector<bool> taken(base.size(), false);
        for (std::size_t i = 0; i < side.size(); ++i) {
            if (sideKeys[i].is_null())
                continue;
            for (std::size_t b = 0; b < base.size(); ++b)
                if (!taken[b] && baseKeys[b] == sideKeys[i]) {
                    out[i] = static_cast<int>(b);
                    taken[b] = true;
                    break;
                }
        }
        struct Candidate
        {
            double score;
            std::size_t sideIndex;
            std::size_t baseIndex;
        };
        std::vector<Candidate> candidates;
        for (std::size_t i = 0; i < side.size(); ++i)
            if (out[i] < 0)
                for (std::size_t b = 0; b < base.size(); ++b)
                    if (!taken[b])
                        if (const double score = likeness(base[b], side[i]); score >= 0.5)
                            candidates.push_back({score, i, b});
        std::stable_sort(candidates.begin(), candidates.end(),
                         [](const Candidate &a, const Candidate &b) { return a.score > b.score; });
        for (const Candidate &c : candidates)
            if (out[c.sideIndex] < 0 && !taken[c.baseIndex]) {
                out[c.sideIndex] = static_cast<int>(c.baseIndex);
                taken[c.baseIndex] = true;
            }
        return out;
    }

    Json array(const std::string &path, const std::string &genericPath, const Json *baseValue,
               const Json &mine, const Json &theirs)
    {
        static const Json kEmpty = Json::array();
        const Json &base = baseValue != nullptr ? *baseValue : kEmpty;
        const std::string itemPath = genericPath + "[*]";
        const std::vector<std::string> fields = m_merger.itemKeyFields(itemPath);
        auto keysOf = [&fields](const Json &items) {
            std::vector<Json> keys;
            for (const Json &item : items)
                keys.push_back(keyOf(item, fields));
            return keys;
        };
        const std::vector<Json> baseKeys = keysOf(base);
        const std::vector<Json> mineKeys = keysOf(mine);
        const std::vector<Json> theirKeys = keysOf(theirs);
        const std::vector<int> mineBase = pair(base, mine, baseKeys, mineKeys);
        const std::vector<int> theirBase = pair(base, theirs, baseKeys, theirKeys);

        // The sequence of items: mine's, then theirs' that mine lacks, then the base's neither has.
        struct Entry
        {
            int base = -1;
            int mine = -1;
            int theirs = -1;
        };
        std::vector<Entry> entries;
        std::vector<bool> theirsUsed(theirs.size(), false);
        std::vector<bool> baseUsed(base.size(), false);
        for (std::size_t i = 0; i < mine.size(); ++i) {
            Entry entry{mineBase[i], static_cast<int>(i), -1};
            for (std::size_t t = 0; t < theirs.size(); ++t) {
                if (theirsUsed[t])
                    continue;
                // The same base item; or, added on both sides, the same key.
                const bool same = entry.base >= 0 ? theirBase[t] == entry.base
                                                  : theirBase[t] < 0 && !mineKeys[i].is_null() &&
                                                        theirKeys[t] == mineKeys[i];
                if (same) {
                    entry.theirs = static_cast<int>(t);
                    theirsUsed[t] = true;
                    break;
                }
            }
            if (entry.base >= 0)
                baseUsed[static_cast<std::size_t>(entry.base)] = true;
            entries.push_back(entry);
        }
        for (std::size_t t = 0; t < theirs.size(); ++t) {
            if (theirsUsed[t])
                continue;
            entries.push_back({theirBase[t], -1, static_cast<int>(t)});
            if (theirBase[t] >= 0)
                baseUsed[static_cast<std::size_t>(theirBase[t])] = true;
        }
        for (std::size_t b = 0; b < base.size(); ++b)
            if (!baseUsed[b])
                entries.push_back({static_cast<int>(b), -1, -1});

        Json out = Json::array();
        auto at = [](const Json &items, int index) {
            return index < 0 ? nullptr : &items[static_cast<std::size_t>(index)];
        };
        for (std::size_t k = 0; k < entries.size(); ++k) {
            const Entry &entry = entries[k];
            std::optional<Json> merged =
                value(path + "[" + std::to_string(k) + "]", itemPath, at(base, entry.base),
                      at(mine, entry.mine), at(theirs, entry.theirs));
            if (merged)
                out.push_back(std::move(*merged));
        }
        return out;
    }

    const DocumentMerger &m_merger;
    const std::map<std::string, MergeChoice> &m_choices;
    const std::optional<MergeChoice> &m_fallback;
};

MergeResult DocumentMerger::merge(const Json *base, const Json &mine, const Json &theirs,
                                  const std::map<std::string, MergeChoice> &choices,
                                  const std::optional<MergeChoice> &fallback) const
{
    Run run(*this, choices, fallback);
    MergeResult result;
    std::optional<Json> merged = run.value("$", "$", base, &mine, &theirs);
    result.merged = merged ? std::move(*merged) : Json::object();
    result.conflicts = std::move(run.conflicts);
    return result;
}

} // namespace steward
