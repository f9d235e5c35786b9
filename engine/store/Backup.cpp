#include "Backup.h"

#include "Database.h"
#include "PrivateFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <SQLiteCpp/Database.h>

#include <sqlite3.h>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <unistd.h>
#endif

namespace steward {

namespace {

constexpr int kPagesPerStep = 256;

// Copies all of source's main database into destination's; true when finished.
bool copyPages(sqlite3 *destination, sqlite3 *source, const BackupProgress &progress, BackupResult &result)
{
    sqlite3_backup *backup = sqlite3_backup_init(destination, "main", source, "main");
    if (backup == nullptr) {
        result.error = sqlite3_errmsg(destination);
        return false;
    }
    int rc = SQLITE_OK;
    for (;;) {
        rc = sqlite3_backup_step(backup, kPagesPerStep);
        const int total = sqlite3_backup_pagecount(backup);
        result.pages = total;
        if (rc == SQLITE_DONE)
            break;
        if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
            sqlite3_sleep(50); // another connection is writing; try this step again
            continue;
        }
        if (rc != SQLITE_OK) {
            result.error = sqlite3_errstr(rc);
            break;
        }
        if (progress && !progress(total - sqlite3_backup_remaining(backup), total)) {
            result.error = "stopped";
            break;
        }
    }
    sqlite3_backup_finish(backup);
    if (rc == SQLITE_DONE && progress)
        progress(result.pages, result.pages);
    return rc == SQLITE_DONE && result.error.empty();
}

// Makes the names in a directory durable: a rename, and the removal before it, are only in the
// directory until it is flushed, and a power cut before that can leave neither the old backup nor
// the new one.
bool syncDirectory(const QString &directory)
{
#ifdef Q_OS_UNIX
    const int descriptor = ::open(QFile::encodeName(directory).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (descriptor < 0)
        return false;
    const bool synced = ::fsync(descriptor) == 0;
    ::close(descriptor);
    return synced;
#else
    Q_UNUSED(directory);
    return true; // no directory to flush; the file system orders the rename
#endif
}

std::string latestChange(SQLite::Database &db)
{
    // A document's current entry leaves its time to the document (DocumentStore::appendChange).
    SQLite::Statement query(db, "SELECT coalesce(max(latest), '') FROM (SELECT max(at) AS latest FROM changes "
                                "UNION ALL SELECT max(last_modified) FROM documents)");
    query.executeStep();
    return query.getColumn(0).getString();
}

} // namespace

BackupResult backupDatabase(const std::string &sourcePath, const std::string &destinationPath,
                            const BackupProgress &progress)
{
    BackupResult result;
    std::unique_ptr<Database> source;
    try {
        source = Database::open(sourcePath, Database::Access::ReadOnly);
    } catch (const StorageError &e) {
        result.error = e.what();
        return result;
    }
    const QString destination = QFileInfo(QString::fromStdString(destinationPath)).absoluteFilePath();
    const QString partial = destination + QStringLiteral(".partial");
    QFile::remove(partial);
    {
        // A backup holds every record: owner-only from the start, as its journal files then are too.
        std::string error;
        if (!createPrivateFile(partial.toStdString(), &error)) {
            result.error = destinationPath + ": cannot create: " + error;
            return result;
        }
        sqlite3 *copy = nullptr;
        if (sqlite3_open_v2(partial.toUtf8().constData(), &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr)
            != SQLITE_OK) {
            result.error = destinationPath + ": " + (copy ? sqlite3_errmsg(copy) : "cannot create");
            sqlite3_close(copy);
            return result;
        }
        const bool copied = copyPages(copy, source->connection().getHandle(), progress, result);
        // The copy keeps the source's journal mode (WAL); fold it into one self-contained file.
        if (copied)
            sqlite3_exec(copy, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
        sqlite3_close(copy);
        if (!copied) {
            QFile::remove(partial);
            if (result.error != "stopped")
                result.error = destinationPath + ": " + result.error;
            return result;
        }
    }
    try {
        std::unique_ptr<Database> check = Database::open(partial.toStdString(), Database::Access::ReadOnly);
        const std::string verdict = check->connection().execAndGet("PRAGMA quick_check").getString();
        if (verdict != "ok")
            throw StorageError(StorageError::Kind::Io, "the copy does not pass quick_check: " + verdict);
    } catch (const std::exception &e) {
        QFile::remove(partial);
        result.error = destinationPath + ": " + e.what();
        return result;
    }
    QFile::remove(destination);
    if (!QFile::rename(partial, destination)) {
        result.error = destinationPath + ": cannot move the finished copy into place";
        return result;
    }
    if (!syncDirectory(QFileInfo(destination).absolutePath())) {
        result.error = destinationPath + ": the copy is in place, but its folder could not be flushed to the disk";
        return result;
    }
    result.ok = true;
    return result;
}

BackupResult restoreDatabase(const std::string &backupPath, const std::string &databasePath, bool force,
                             const BackupProgress &progress)
{
    BackupResult result;
    std::unique_ptr<Database> backup;
    std::unique_ptr<Database> target;
    try {
        backup = Database::open(backupPath, Database::Access::ReadOnly);
        target = Database::open(databasePath);
    } catch (const StorageError &e) {
        result.error = e.what();
        return result;
    }
    const std::string verdict = backup->connection().execAndGet("PRAGMA quick_check").getString();
    if (verdict != "ok") {
        result.error = backupPath + " is damaged (quick_check: " + verdict + "); the database was left as it was";
        return result;
    }
    const std::string backupLatest = latestChange(backup->connection());
    const std::string targetLatest = latestChange(target->connection());
    if (!force && targetLatest > backupLatest) {
        result.error = databasePath + " has changes newer than the backup (its last at " + targetLatest
                       + ", the backup's at " + (backupLatest.empty() ? std::string("none") : backupLatest)
                       + "); restoring would lose them. Add --force to restore anyway.";
        return result;
    }
    if (!copyPages(target->connection().getHandle(), backup->connection().getHandle(), progress, result)) {
        result.error = databasePath + ": " + result.error + "; the database was left as it was";
        return result;
    }
    result.ok = true;
    return result;
}

} // namespace steward
