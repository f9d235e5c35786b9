#pragma once

#include <SQLiteCpp/Database.h>

namespace steward {

// The SQL functions migration 30 (history as compact as the documents) calls, on the migrating
// connection only: steward_compact(text, project, resource), a text in its stored form (zstd with
// the resource's dictionary, zstd alone without one, the text itself when that is not smaller), and
// steward_journal_before(before, after), the journal's text before an edit as a delta against the
// text after it (as EditJournal::addItem keeps new items). Both take texts already compact as they are.
class CompactionFunctions
{
public:
    explicit CompactionFunctions(SQLite::Database &db);
    ~CompactionFunctions();
    CompactionFunctions(const CompactionFunctions &) = delete;
    CompactionFunctions &operator=(const CompactionFunctions &) = delete;

private:
    SQLite::Database &m_db;
};

} // namespace steward
