#include "ChangeWatch.h"

#include "Json.h"

#include <SQLiteCpp/Statement.h>

#include <algorithm>

namespace steward {

std::int64_t dataVersion(SQLite::Database &db)
{
    return db.execAndGet("PRAGMA data_version").getInt64();
}

std::int64_t newestChangeSeq(SQLite::Database &db)
{
    return db.execAndGet("SELECT coalesce(max(seq), 0) FROM change_rows").getInt64();
}

ChangeSummary summarizeChangesSince(SQLite::Database &db, std::int64_t since)
{
    ChangeSummary summary;
    summary.since = since;
    summary.newest = since;
    SQLite::Statement query(db, "SELECT r.project, r.resource, count(*), max(c.seq)"
                                " FROM change_rows c JOIN resources r ON r.resource_key = c.resource_key"
                                " WHERE c.seq > ? GROUP BY c.resource_key ORDER BY r.project, r.resource");
    query.bind(1, since);
    while (query.executeStep()) {
        ChangedResource changed;
        changed.project = query.getColumn(0).getString();
        changed.resource = query.getColumn(1).getString();
        changed.changes = query.getColumn(2).getInt64();
        summary.changes += changed.changes;
        summary.newest = std::max(summary.newest, query.getColumn(3).getInt64());
        summary.resources.push_back(std::move(changed));
    }
    return summary;
}

Json ChangeSummary::toJson() const
{
    Json out = {{"since", since}, {"newest", newest}, {"changes", changes}, {"resources", Json::array()}};
    for (const ChangedResource &changed : resources)
        out["resources"].push_back(
            {{"project", changed.project}, {"resource", changed.resource}, {"changes", changed.changes}});
    return out;
}

} // namespace steward
