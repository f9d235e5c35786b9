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

} // namespace

Json MergeConflict::toJson() const
{
    auto side = [](const std::optional<Json> &value) { return value ? *value : Json(nullptr); };
    Json out{{"path", path},
             {"base", side(base)},
             {"mine", side(mine)},
             {"theirs", side(theirs)},
             {"inBase", base.has_value()},
             {"inMine", mine.has_value()},
             {"inTheirs", theirs.has_value()},
             {"item", item}};
    if (item)
        out["differingFields"] = differingFields();
    return out;
}

std::vector<std::string> MergeConflict::differingFields() const
{
    std::vector<std::string> names;
    for (const std::optional<Json> *side : {&base, &mine, &theirs})
        if (*side && (*side)->is_object())
            for (auto it = (*side)->begin(); it != (*side)->end(); ++it)
                if (std::find(names.begin(), names.end(), it.key()) == names.end())
                    names.push_back(it.key());
    std::vector<std::string> out;
    for (const std::string &name : names) {
        std::optional<Json> first;
        bool seen = false;
        bool differs = false;
        for (const std::optional<Json> *side : {&base, &mine, &theirs}) {
            if (!*side)
                continue; // a version without the item says nothing of its fields
            auto found = (*side)->is_object() ? (*side)->find(name) : (*side)->end();
            const std::optional<Json> value =
                (*side)->is_object() && found != (*side)->end() ? std::optional<Json>(*found) : std::nullopt;
            if (!seen) {
                first = value;
                seen = true;
            } else if (value != first) {
                differs = true;
            }
        }
        if (differs)
            out.push_back(name);
    }
    return out;
}

DocumentMerger::DocumentMerger(const ResourceSchema *resource, Pairing pairing)
    : m_resource(resource), m_pairing(pairing)
{
}

const ItemKey &DocumentMerger::itemKey(const std::string &genericPath) const
{
    auto known = m_keys.find(genericPath);
    if (known == m_keys.end())
        known = m_keys.emplace(genericPath, itemKeyOf(m_resource, genericPath)).first;
    return known->second;
}

std::vector<std::string> DocumentMerger::itemKeyFields(const std::string &genericPath) const
{
    return itemKey(genericPath).fields;
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
            const bool baseFits = base == nullptr || base->type() == mine->type();
            if (mine->is_object() && theirs->is_object() && baseFits)
                return object(path, genericPath, base, *mine, *theirs);
            if (mine->is_array() && theirs->is_array() && baseFits)
                return array(path, genericPath, base, *mine, *theirs);
        }
        return conflict(path, base, mine, theirs);
    }

private:
    // Which versions hold one item of a collection (-1: that version has none of it).
    struct Entry
    {
        int base = -1;
        int mine = -1;
        int theirs = -1;
        bool replacement = false; // a side's item stands in for the base item: decided whole, never merged
        bool dropped = false;     // taken into another entry as a replacement
    };

    const MergeChoice *choiceAt(const std::string &path) const
    {
        auto chosen = m_choices.find(path);
        return chosen != m_choices.end() ? &chosen->second : m_fallback ? &*m_fallback : nullptr;
    }

    std::optional<Json> conflict(const std::string &path, const Json *base, const Json *mine,
                                 const Json *theirs)
    {
        const MergeChoice *choice = choiceAt(path);
        if (choice == nullptr) {
            conflicts.push_back({path, optionalOf(base), optionalOf(mine), optionalOf(theirs)});
            return optionalOf(mine);
        }
        switch (choice->kind) {
        case MergeChoice::Kind::Mine:
        case MergeChoice::Kind::Both: // a field has one value: "both" keeps mine
            return optionalOf(mine);
        case MergeChoice::Kind::Theirs:
            return optionalOf(theirs);
        case MergeChoice::Kind::Value:
            break;
        }
        return choice->value.is_null() ? std::nullopt : std::optional<Json>(choice->value);
    }

    // A whole item in conflict: the items it leaves in the collection.
    std::vector<Json> itemConflict(const std::string &path, const Json *base, const Json *mine,
                                   const Json *theirs)
    {
        auto items = [](std::initializer_list<const Json *> sides) {
            std::vector<Json> out;
            for (const Json *side : sides)
                if (side != nullptr)
                    out.push_back(*side);
            return out;
        };
        const MergeChoice *choice = choiceAt(path);
        if (choice == nullptr) {
            MergeConflict found{path, optionalOf(base), optionalOf(mine), optionalOf(theirs)};
            found.item = true;
            conflicts.push_back(std::move(found));
            return items({mine});
        }
        switch (choice->kind) {
        case MergeChoice::Kind::Mine:
            return items({mine});
        case MergeChoice::Kind::Theirs:
            return items({theirs});
        case MergeChoice::Kind::Both:
            return items({mine, theirs});
        case MergeChoice::Kind::Value:
            break;
        }
        return items({choice->value.is_null() ? nullptr : &choice->value});
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

    // The values of the named fields of an item (descriptor URIs without case); null when the item holds
    // none of them. No fields: the item is its own key.
    static Json valuesOf(const Json &item, const std::vector<std::string> &fields, bool wholeWhenNoFields)
    {
        if (!item.is_object() || fields.empty())
            return wholeWhenNoFields ? item : Json(nullptr);
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

    struct Keyed
    {
        const Json &items;
        std::vector<Json> keys;
        std::vector<Json> stable;
    };

    Keyed keyed(const Json &items, const ItemKey &key) const
    {
        Keyed out{items, {}, {}};
        for (const Json &item : items) {
            out.keys.push_back(valuesOf(item, key.fields, true));
            out.stable.push_back(valuesOf(item, key.stable, false));
        }
        return out;
    }

    // For each item of a side, the base item it is (-1: added on that side): the one with the same key;
    // else, its key corrected, the one with the same stable part, when that part names exactly one item
    // in the base and one in the side.
    std::vector<int> pair(const Keyed &base, const Keyed &side) const
    {
        const std::size_t count = side.items.size();
        std::vector<int> out(count, -1);
        std::vector<bool> taken(base.items.size(), false);
        for (std::size_t i = 0; i < count; ++i) {
            if (side.keys[i].is_null())
                continue;
            for (std::size_t b = 0; b < base.items.size(); ++b)
                if (!taken[b] && base.keys[b] == side.keys[i]) {
                    out[i] = static_cast<int>(b);
                    taken[b] = true;
                    break;
                }
        }
        if (m_merger.m_pairing == Pairing::ByResemblance) {
            pairByResemblance(base, side, out, taken);
            return out;
        }
        auto named = [](const std::vector<Json> &stable, const Json &part, int &at) {
            int n = 0;
            for (std::size_t k = 0; k < stable.size(); ++k)
                if (stable[k] == part) {
                    ++n;
                    at = static_cast<int>(k);
                }
            return n;
        };
        for (std::size_t i = 0; i < count; ++i) {
            if (out[i] >= 0 || side.stable[i].is_null())
                continue;
            int inBase = -1;
            int inSide = -1;
            if (named(base.stable, side.stable[i], inBase) == 1 &&
                named(side.stable, side.stable[i], inSide) == 1 && !taken[static_cast<std::size_t>(inBase)]) {
                out[i] = inBase;
                taken[static_cast<std::size_t>(inBase)] = true;
            }
        }
        return out;
    }

    static void pairByResemblance(const Keyed &base, const Keyed &side, std::vector<int> &out,
                                  std::vector<bool> &taken)
    {
        struct Candidate
        {
            double score;
            std::size_t sideIndex;
            std::size_t baseIndex;
        };
        std::vector<Candidate> candidates;
        for (std::size_t i = 0; i < side.items.size(); ++i)
            if (out[i] < 0)
                for (std::size_t b = 0; b < base.items.size(); ++b)
                    if (!taken[b])
                        if (const double score = likeness(base.items[b], side.items[i]); score >= 0.5)
                            candidates.push_back({score, i, b});
        std::stable_sort(candidates.begin(), candidates.end(),
                         [](const Candidate &a, const Candidate &b) { return a.score > b.score; });
        for (const Candidate &c : candidates)
            if (out[c.sideIndex] < 0 && !taken[c.baseIndex]) {
                out[c.sideIndex] = static_cast<int>(c.baseIndex);
                taken[c.baseIndex] = true;
            }
    }

    // An item added on both sides with another key but the same stable part (a Temporary address each),
    // when that part names one item in each side and none in the base: one item added twice, so what
    // the two hold differently is a conflict rather than two items of one kind. -1 when there is none.
    static int addedAlikeOnBothSides(const Keyed &base, const Keyed &mine, const Keyed &theirs,
                                     const std::vector<int> &theirBase, std::vector<bool> &theirsUsed,
                                     std::size_t i)
    {
        const Json &part = mine.stable[i];
        if (part.is_null())
            return -1;
        auto count = [&part](const std::vector<Json> &stable) {
            return std::count(stable.begin(), stable.end(), part);
        };
        if (count(base.stable) != 0 || count(mine.stable) != 1 || count(theirs.stable) != 1)
            return -1;
        const auto at = std::find(theirs.stable.begin(), theirs.stable.end(), part);
        const std::size_t t = static_cast<std::size_t>(at - theirs.stable.begin());
        if (theirsUsed[t] || theirBase[t] >= 0)
            return -1;
        theirsUsed[t] = true;
        return static_cast<int>(t);
    }

    // The sequence of items: mine's, then theirs' that mine lacks, then the base's neither has.
    static std::vector<Entry> entriesOf(const Keyed &base, const Keyed &mine, const Keyed &theirs,
                                        const std::vector<int> &mineBase, const std::vector<int> &theirBase)
    {
        std::vector<Entry> entries;
        std::vector<bool> theirsUsed(theirs.items.size(), false);
        std::vector<bool> baseUsed(base.items.size(), false);
        for (std::size_t i = 0; i < mine.items.size(); ++i) {
            Entry entry{mineBase[i], static_cast<int>(i), -1};
            for (std::size_t t = 0; t < theirs.items.size(); ++t) {
                if (theirsUsed[t])
                    continue;
                // The same base item; or, added on both sides, the same key.
                const bool same = entry.base >= 0 ? theirBase[t] == entry.base
                                                  : theirBase[t] < 0 && !mine.keys[i].is_null() &&
                                                        theirs.keys[t] == mine.keys[i];
                if (same) {
                    entry.theirs = static_cast<int>(t);
                    theirsUsed[t] = true;
                    break;
                }
            }
            if (entry.base < 0 && entry.theirs < 0)
                entry.theirs = addedAlikeOnBothSides(base, mine, theirs, theirBase, theirsUsed, i);
            if (entry.base >= 0)
                baseUsed[static_cast<std::size_t>(entry.base)] = true;
            entries.push_back(entry);
        }
        for (std::size_t t = 0; t < theirs.items.size(); ++t) {
            if (theirsUsed[t])
                continue;
            entries.push_back({theirBase[t], -1, static_cast<int>(t)});
            if (theirBase[t] >= 0)
                baseUsed[static_cast<std::size_t>(theirBase[t])] = true;
        }
        for (std::size_t b = 0; b < base.items.size(); ++b)
            if (!baseUsed[b])
                entries.push_back({static_cast<int>(b), -1, -1});
        return entries;
    }

    // The item one side added that stands in for `removed` there: its only addition, else the addition
    // most like it. Only ever shown beside the removed item in a conflict; it carries no edit.
    static int replacementOf(std::vector<Entry> &entries, const Json &removed, const Json &sideItems,
                             bool mineSide)
    {
        std::vector<std::size_t> added;
        for (std::size_t k = 0; k < entries.size(); ++k) {
            const Entry &e = entries[k];
            if (!e.dropped && e.base < 0 &&
                (mineSide ? e.mine >= 0 && e.theirs < 0 : e.theirs >= 0 && e.mine < 0))
                added.push_back(k);
        }
        if (added.size() == 1)
            return static_cast<int>(added.front());
        int best = -1;
        double bestScore = 0.5;
        for (std::size_t k : added) {
            const int index = mineSide ? entries[k].mine : entries[k].theirs;
            if (const double score = likeness(removed, sideItems[static_cast<std::size_t>(index)]);
                score >= bestScore) {
                if (score > bestScore || best < 0)
                    best = static_cast<int>(k);
                bestScore = score;
            }
        }
        return best;
    }

    // A base item removed on one side and edited on the other, or removed on both and replaced by
    // different items: its entry takes each removing side's replacement, so the conflict shows what
    // that side put in its place, and the decision keeps one, the other, or both.
    static void takeReplacements(std::vector<Entry> &entries, const Json &base, const Json &mine,
                                 const Json &theirs)
    {
        const std::size_t count = entries.size();
        for (std::size_t k = 0; k < count; ++k) {
            Entry &entry = entries[k];
            if (entry.base < 0 || entry.dropped)
                continue;
            const Json &removed = base[static_cast<std::size_t>(entry.base)];
            const bool mineGone = entry.mine < 0;
            const bool theirsGone = entry.theirs < 0;
            if (mineGone && theirsGone) {
                const int fromMine = replacementOf(entries, removed, mine, true);
                const int fromTheirs = replacementOf(entries, removed, theirs, false);
                if (fromMine < 0 || fromTheirs < 0)
                    continue;
                entry.mine = entries[static_cast<std::size_t>(fromMine)].mine;
                entry.theirs = entries[static_cast<std::size_t>(fromTheirs)].theirs;
                entries[static_cast<std::size_t>(fromMine)].dropped = true;
                entries[static_cast<std::size_t>(fromTheirs)].dropped = true;
                entry.replacement = true;
            } else if (mineGone != theirsGone) {
                const Json &kept = mineGone ? theirs[static_cast<std::size_t>(entry.theirs)]
                                            : mine[static_cast<std::size_t>(entry.mine)];
                if (kept == removed)
                    continue; // removed on one side, untouched on the other: the removal stands
                const int from = replacementOf(entries, removed, mineGone ? mine : theirs, mineGone);
                if (from < 0)
                    continue;
                Entry &taken = entries[static_cast<std::size_t>(from)];
                (mineGone ? entry.mine : entry.theirs) = mineGone ? taken.mine : taken.theirs;
                taken.dropped = true;
                entry.replacement = true;
            }
        }
    }

    // What one entry leaves in the collection.
    std::vector<Json> itemsOf(const std::string &path, const std::string &itemPath, const Entry &entry,
                              const Json &base, const Json &mine, const Json &theirs)
    {
        auto at = [](const Json &items, int index) {
            return index < 0 ? nullptr : &items[static_cast<std::size_t>(index)];
        };
        const Json *b = at(base, entry.base);
        const Json *m = at(mine, entry.mine);
        const Json *t = at(theirs, entry.theirs);
        auto one = [](const Json *item) {
            return item == nullptr ? std::vector<Json>{} : std::vector<Json>{*item};
        };
        if (sameValue(m, t))
            return one(m);
        if (!entry.replacement) {
            if (b != nullptr && sameValue(b, m))
                return one(t);
            if (b != nullptr && sameValue(b, t))
                return one(m);
            if (b == nullptr && (m == nullptr) != (t == nullptr))
                return one(m != nullptr ? m : t);
            if (m != nullptr && t != nullptr && m->is_object() && t->is_object() &&
                (b == nullptr || b->is_object()))
                return {object(path, itemPath, b, *m, *t)};
        }
        return itemConflict(path, b, m, t);
    }

    Json array(const std::string &path, const std::string &genericPath, const Json *baseValue,
               const Json &mine, const Json &theirs)
    {
        static const Json kEmpty = Json::array();
        const Json &base = baseValue != nullptr && baseValue->is_array() ? *baseValue : kEmpty;
        const std::string itemPath = genericPath + "[*]";
        const ItemKey &key = m_merger.itemKey(itemPath);
        const Keyed baseKeyed = keyed(base, key);
        const Keyed mineKeyed = keyed(mine, key);
        const Keyed theirsKeyed = keyed(theirs, key);
        std::vector<Entry> entries = entriesOf(baseKeyed, mineKeyed, theirsKeyed, pair(baseKeyed, mineKeyed),
                                               pair(baseKeyed, theirsKeyed));
        takeReplacements(entries, base, mine, theirs);

        Json out = Json::array();
        std::size_t position = 0;
        for (const Entry &entry : entries) {
            if (entry.dropped)
                continue;
            for (Json &item :
                 itemsOf(path + "[" + std::to_string(position) + "]", itemPath, entry, base, mine, theirs))
                out.push_back(std::move(item));
            ++position;
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
