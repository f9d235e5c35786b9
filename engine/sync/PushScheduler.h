#pragma once

#include "LoadOrder.h"
#include "Sync.h"

#include <SQLiteCpp/Database.h>

#include <cstddef>
#include <optional>
#include <queue>
#include <vector>

namespace steward {

// Which documents of a push plan may be sent now, so that many can be in flight and none goes out of
// order: identity changes first, one at a time; then upserts, each once the plan's documents it
// references are finished; then deletes, a resource's once the deletes of every resource that may
// reference it are finished. A document whose referenced document was not accepted is not sent at all
// (blockedBy): the target would only refuse it for the missing reference.
class PushScheduler
{
public:
    // references[i]: the items before i in the plan that item i references (referencedPlanItems).
    PushScheduler(const PushPlan &plan, const LoadOrder &order, std::vector<std::vector<std::size_t>> references);

    // The earliest item in plan order that may start now; none while what is left waits for items
    // still running (or nothing is left).
    std::optional<std::size_t> next();
    void finished(std::size_t item, bool accepted);
    // For an item next() gave: an item it references that finished without being accepted.
    std::optional<std::size_t> blockedBy(std::size_t item) const;
    bool hasReady() const { return !m_ready.empty(); }
    bool allFinished() const { return m_finishedCount == m_items; }

private:
    void release(std::size_t item);
    void openPhase(std::size_t phase);

    std::size_t m_items = 0;
    std::vector<std::vector<std::size_t>> m_references;
    std::vector<std::vector<std::size_t>> m_dependents; // items that wait for this one to finish
    std::vector<int> m_unmet;                           // what an item still waits for
    std::vector<signed char> m_state;                   // 0 waiting, 1 running, 2 accepted, 3 not accepted
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> m_ready;
    // Phases: key changes, upserts, deletes (the plan is sorted so); a phase opens once the one before
    // has finished.
    std::vector<std::size_t> m_phaseBegin; // 4 entries: where each phase starts, and the plan's end
    std::vector<std::size_t> m_unfinishedInPhase;
    std::size_t m_openPhase = 0;
    // Deletes by resource: a group waits for the groups before it whose resource it may reference.
    std::vector<std::size_t> m_groupOf; // item -> delete group (deletes only)
    struct DeleteGroup
    {
        std::size_t begin = 0;
        std::size_t end = 0;
        std::size_t unfinished = 0;
        int unmetGroups = 0;
        std::vector<std::size_t> followers; // later groups that wait for this one
    };
    std::vector<DeleteGroup> m_groups;
    std::size_t m_finishedCount = 0;
};

// For each upsert and identity change of the plan, the earlier items of the plan it references (read
// from the database's references, one query a document).
std::vector<std::vector<std::size_t>> referencedPlanItems(SQLite::Database &db, const PushPlan &plan);

} // namespace steward
