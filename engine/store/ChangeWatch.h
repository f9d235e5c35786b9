#pragma once

#include "Json.h"

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <string>
#include <vector>

namespace steward {

// What another program (steward-cli, serve, a sync, a second window) committed, as cheaply as the
// database can tell it: PRAGMA data_version moves only when another connection commits, so a
// watcher reads it on a timer and reads anything else only when it moved.
std::int64_t dataVersion(SQLite::Database &db);

struct ChangedResource
{
    std::string project;
    std::string resource;
    std::int64_t changes = 0;
};

// The change log after one of its positions, per resource: what a view needs to know to refresh.
struct ChangeSummary
{
    std::int64_t since = 0;
    std::int64_t newest = 0; // the newest entry read (since when there is none after it)
    std::int64_t changes = 0;
    std::vector<ChangedResource> resources; // by project, then resource

    Json toJson() const;
};

// Reads the change log's entries after `since` by its primary key (a range, never a scan of the
// log); any connection.
ChangeSummary summarizeChangesSince(SQLite::Database &db, std::int64_t since);

// The change log's newest position (0: empty).
std::int64_t newestChangeSeq(SQLite::Database &db);

} // namespace steward
