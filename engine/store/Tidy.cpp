#include "Tidy.h"

#include "Clock.h"
#include "Database.h"

#include <SQLiteCpp/Statement.h>

#include <QFileInfo>

#include <string>

namespace steward {

namespace {

constexpr const char *kMergedAt = "text_indexes_merged_at";
constexpr const char *kVacuumConsideredAt = "vacuum_considered_at";

std::int64_t fileBytes(const Database &database)
{
    return QFileInfo(QString::fromStdString(database.path())).size();
}

// Whether `key` was last done at least `days` ago on the engine's clock (or never).
bool isDue(SQLite::Database &db, const char *key, int days)
{
    if (days <= 0)
        return false;
    SQLite::Statement last(db, "SELECT value FROM meta WHERE key = ?");
    last.bind(1, key);
    if (!last.executeStep())
        return true;
    const QDateTime at = QDateTime::fromString(QString::fromStdString(last.getColumn(0).getString()), Qt::ISODate);
    return !at.isValid() || at.addDays(days) <= engineNow();
}

void markDone(SQLite::Database &db, const char *key)
{
    SQLite::Statement s(db, "INSERT INTO meta (key, value) VALUES (?, ?) "
                            "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    s.bind(1, key);
    s.bind(2, engineNowText());
    s.exec();
}

// Every FTS5 index of the database merged into one segment: a document's old words go with it.
void mergeTextIndexes(SQLite::Database &db)
{
    for (const char *index : {"query_index", "search_index"}) {
        SQLite::Statement exists(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?");
        exists.bind(1, index);
        if (exists.executeStep())
            db.exec(std::string("INSERT INTO ") + index + "(" + index + ") VALUES ('optimize')");
    }
}

// The share of the pages' bytes that hold nothing; -1 when SQLite has no dbstat.
double unusedShare(SQLite::Database &db)
{
    try {
        SQLite::Statement pages(db, "SELECT sum(pgsize), sum(unused) FROM dbstat WHERE aggregate = TRUE");
        if (!pages.executeStep() || pages.getColumn(0).getDouble() <= 0)
            return -1;
        return pages.getColumn(1).getDouble() / pages.getColumn(0).getDouble();
    } catch (const SQLite::Exception &) {
        return -1;
    }
}

} // namespace

TidyReport tidyUp(Database &database, const TidyPolicy &policy)
{
    TidyReport report;
    report.fileBytesBefore = fileBytes(database);
    SQLite::Database &db = database.connection();
    try {
        report.freePagesGivenBack = database.giveBackFreePages();
        if (policy.now || isDue(db, kMergedAt, policy.mergeEveryDays)) {
            ImmediateTransaction transaction(db);
            mergeTextIndexes(db);
            markDone(db, kMergedAt);
            transaction.commit();
            report.mergedTextIndexes = true;
        }
        if (policy.now || isDue(db, kVacuumConsideredAt, policy.vacuumEveryDays)) {
            const double unused = unusedShare(db);
            report.measured = unused >= 0;
            report.unusedShare = std::max(0.0, unused);
            if (unused > policy.vacuumAboveUnused) {
                // The file rewritten with full pages; incremental vacuum stays on. Its pages pass
                // through the WAL, which the checkpoint after it empties again.
                db.exec("VACUUM");
                db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
                report.vacuumed = true;
            }
            ImmediateTransaction transaction(db);
            markDone(db, kVacuumConsideredAt);
            transaction.commit();
        }
    } catch (const SQLite::Exception &e) {
        if (!isBusyError(e))
            throw;
        report.busy = true; // another writer is at work: not idle after all; the next call tries again
    }
    report.fileBytesAfter = fileBytes(database);
    return report;
}

} // namespace steward
