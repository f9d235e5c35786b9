#pragma once

#include <cstdint>

namespace steward {

class Database;

// Idle-time upkeep of a database that lives a school year. Updates leave two kinds of dead weight
// that giving back free pages does not reach: the text indexes (query_index, search_index) keep a
// document's old words in segments of their own until merged (at 10,000 students they grew from
// 1.6 MB to 5.8 MB in 90 school days), and pages split by updates stay partly empty (a 2,000-student
// database's pages held 10% unused bytes on day 1 and 17-18% from day 45 on; a VACUUM packs them).
// Each step runs only when due, on the engine's clock (engine/model/Clock.h), so most calls do
// nothing but read two meta rows.
struct TidyPolicy
{
    int mergeEveryDays = 1;         // the text indexes merged into one segment each
    int vacuumEveryDays = 30;       // a VACUUM considered at most this often...
    // ...and done only when this share of the pages' bytes is unused. Browsers VACUUM their SQLite
    // files once a month in idle time whatever their state; a file under 10% unused gains too little
    // to rewrite (a freshly pulled district's pages are 10% empty; a year's updates hold them at 14-15%).
    double vacuumAboveUnused = 0.10;
    bool now = false;               // every step, due or not (the VACUUM still only above the share)
};

struct TidyReport
{
    bool mergedTextIndexes = false;
    bool measured = false;          // the unused share was read (dbstat) because a VACUUM was due
    double unusedShare = 0;         // of the pages' bytes, when measured
    bool vacuumed = false;
    std::int64_t fileBytesBefore = 0; // the database file (without its WAL)
    std::int64_t fileBytesAfter = 0;
    int freePagesGivenBack = 0;
    bool busy = false;              // another writer was at work: nothing more was tried
};

// Gives back free pages (Database::giveBackFreePages), then merges the text indexes and VACUUMs
// when due; each step is one transaction of its own, skipped while another writer holds the lock.
// A front end calls it when idle (the app after an idle minute); the school-year bench between days.
TidyReport tidyUp(Database &database, const TidyPolicy &policy = {});

} // namespace steward
