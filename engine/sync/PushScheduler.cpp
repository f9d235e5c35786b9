#include "PushScheduler.h"

#include <SQLiteCpp/Statement.h>

#include <unordered_map>

namespace steward {

namespace {

std::size_t phaseOf(PushItem::Operation operation)
{
    return static_cast<std::size_t>(operation);
}

} // namespace

PushScheduler::PushScheduler(const PushPlan &plan, const LoadOrder &order,
                             std::vector<std::vector<std::size_t>> references)
    : m_items(plan.items.size())
    , m_references(std::move(references))
    , m_dependents(m_items)
    , m_unmet(m_items, 1) // every item waits for its phase to open
    , m_state(m_items, 0)
    , m_phaseBegin(4, m_items)
    , m_unfinishedInPhase(3, 0)
    , m_groupOf(m_items, 0)
{
    m_references.resize(m_items);
    for (std::size_t i = m_items; i-- > 0;)
        m_phaseBegin[phaseOf(plan.items[i].operation)] = i;
    for (std::size_t phase = 3; phase-- > 0;)
        m_phaseBegin[phase] = std::min(m_phaseBegin[phase], m_phaseBegin[phase + 1]);
    for (const PushItem &item : plan.items)
        ++m_unfinishedInPhase[phaseOf(item.operation)];

    // Identity changes one after another: a change of a referenced document cascades on the target.
    for (std::size_t i = m_phaseBegin[0] + 1; i < m_phaseBegin[1]; ++i) {
        ++m_unmet[i];
        m_dependents[i - 1].push_back(i);
    }
    for (std::size_t i = 0; i < m_items; ++i)
        for (std::size_t referenced : m_references[i]) {
            ++m_unmet[i];
            m_dependents[referenced].push_back(i);
        }
    for (std::size_t i = m_phaseBegin[2]; i < m_items; ++i) {
        if (m_groups.empty() || plan.items[m_groups.back().begin].resource != plan.items[i].resource)
            m_groups.push_back({i, i, 0, 0, {}});
        m_groups.back().end = i + 1;
        ++m_groups.back().unfinished;
        m_groupOf[i] = m_groups.size() - 1;
    }
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        const ResourceSchema *resource = plan.items[m_groups[g].begin].resource;
        for (std::size_t h = 0; h < g; ++h) {
            const ResourceSchema *earlier = plan.items[m_groups[h].begin].resource;
            if (earlier != resource && order.dependent(earlier, resource)) {
                ++m_groups[g].unmetGroups;
                m_groups[h].followers.push_back(g);
            }
        }
        if (m_groups[g].unmetGroups > 0)
            for (std::size_t i = m_groups[g].begin; i < m_groups[g].end; ++i)
                ++m_unmet[i];
    }
    openPhase(0);
}

void PushScheduler::openPhase(std::size_t phase)
{
    m_openPhase = phase;
    if (phase >= 3)
        return;
    if (m_unfinishedInPhase[phase] == 0) {
        openPhase(phase + 1);
        return;
    }
    for (std::size_t i = m_phaseBegin[phase]; i < m_phaseBegin[phase + 1]; ++i)
        release(i);
}

void PushScheduler::release(std::size_t item)
{
    if (--m_unmet[item] == 0)
        m_ready.push(item);
}

std::optional<std::size_t> PushScheduler::next()
{
    if (m_ready.empty())
        return std::nullopt;
    const std::size_t item = m_ready.top();
    m_ready.pop();
    m_state[item] = 1;
    return item;
}

void PushScheduler::finished(std::size_t item, bool accepted)
{
    if (item >= m_items || m_state[item] != 1)
        return;
    m_state[item] = accepted ? 2 : 3;
    ++m_finishedCount;
    for (std::size_t dependent : m_dependents[item])
        release(dependent);
    if (item >= m_phaseBegin[2]) {
        DeleteGroup &group = m_groups[m_groupOf[item]];
        if (--group.unfinished == 0)
            for (std::size_t follower : group.followers)
                if (--m_groups[follower].unmetGroups == 0)
                    for (std::size_t i = m_groups[follower].begin; i < m_groups[follower].end; ++i)
                        release(i);
    }
    std::size_t phase = 0;
    while (phase < 2 && item >= m_phaseBegin[phase + 1])
        ++phase;
    if (--m_unfinishedInPhase[phase] == 0 && phase == m_openPhase)
        openPhase(phase + 1);
}

std::optional<std::size_t> PushScheduler::blockedBy(std::size_t item) const
{
    for (std::size_t referenced : m_references[item])
        if (m_state[referenced] == 3)
            return referenced;
    return std::nullopt;
}

std::vector<std::vector<std::size_t>> referencedPlanItems(SQLite::Database &db, const PushPlan &plan)
{
    std::vector<std::vector<std::size_t>> out(plan.items.size());
    std::unordered_map<std::string, std::size_t> indexOf;
    for (std::size_t i = 0; i < plan.items.size(); ++i)
        indexOf.emplace(plan.items[i].id, i);
    SQLite::Statement referenced(db, "SELECT steward_id_text(t.id) FROM document_rows f "
                                     "JOIN refs r ON r.from_doc = f.doc_key "
                                     "JOIN alias_rows a ON a.alias_key = r.to_alias "
                                     "JOIN document_rows t ON t.doc_key = a.doc_key "
                                     "WHERE f.id = steward_id_key(?)");
    for (std::size_t i = 0; i < plan.items.size(); ++i) {
        if (plan.items[i].operation == PushItem::Operation::Delete)
            continue;
        referenced.reset();
        referenced.bind(1, plan.items[i].id);
        while (referenced.executeStep()) {
            auto found = indexOf.find(referenced.getColumn(0).getString());
            if (found != indexOf.end() && found->second < i)
                out[i].push_back(found->second);
        }
    }
    return out;
}

} // namespace steward
