#pragma once

namespace steward {

// The schema's history (Migrations.cpp): step i takes a database from version i to version i + 1.
// Steps are only ever appended; the schema's version is their count.
int migrationCount();
const char *migrationStep(int version);

// The last migration that rebuilds a table other tables point at: foreign keys must be off while
// it runs, or dropping the old table would cascade into the tables that point at it.
constexpr int kLastRebuildingMigration = 25;

} // namespace steward
