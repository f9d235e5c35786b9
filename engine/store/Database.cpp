#include "Database.h"

#include "BodyCodec.h"
#include "CompactHistory.h"
#include "IndexKeyMemo.h"
#include "Migrations.h"
#include "PrivateFiles.h"

#include "SearchTerms.h"
#include "StoredForms.h"

#include "Json.h"

#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <QDir>
#include <QStandardPaths>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <optional>

namespace steward {

namespace {

// Random-key indexes nothing in an import reads: the document id, the change log by document and
// references by target. An import of many documents drops them and builds them again at the end
// (a sorted build instead of a random page write per document); open() builds any that a crash
// left missing. (Natural keys were tried too: at 1M documents their 2.4 s sorted build cost what
// the inserts saved, and browsing during an import needs them.)
struct DeferrableIndex
{
    const char *name;
    const char *create;
};
const DeferrableIndex kDeferrableIndexes[] = {
    {"documents_by_id", "CREATE UNIQUE INDEX IF NOT EXISTS documents_by_id ON document_rows(id)"},
    {"changes_by_document",
     "CREATE INDEX IF NOT EXISTS changes_by_document ON change_rows(id, seq) WHERE id IS NOT NULL"},
    {"refs_by_target", "CREATE INDEX IF NOT EXISTS refs_by_target ON refs(to_alias, from_doc)"},
};

const int kSchemaVersion = migrationCount();
// 100 MB of 4 KB pages.
constexpr int kPagesGivenBackOnClose = 25600;

int pragmaInt(SQLite::Database &db, const char *pragma)
{
    SQLite::Statement query(db, std::string("PRAGMA ") + pragma);
    return query.executeStep() ? query.getColumn(0).getInt() : 0;
}

} // namespace

int Database::schemaVersion()
{
    return kSchemaVersion;
}

std::string defaultDatabasePath()
{
    const QString dir =
        QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)).filePath(QStringLiteral("steward"));
    createPrivateDirectory(dir.toStdString()); // a failure shows when the database cannot be created in it
    return QDir(dir).filePath(QStringLiteral("steward.db")).toStdString();
}

bool isBusyError(const SQLite::Exception &e)
{
    const int code = e.getErrorCode() & 0xff;
    return code == SQLITE_BUSY || code == SQLITE_LOCKED;
}

bool isBusyOrReadOnly(const SQLite::Exception &e)
{
    return isBusyError(e) || (e.getErrorCode() & 0xff) == SQLITE_READONLY;
}

Database::Database(std::unique_ptr<SQLite::Database> db, std::string path)
    : m_db(std::move(db))
    , m_path(std::move(path))
{
}

Database::~Database()
{
    stopBackgroundCheckpoints();
    // A writer done with the file (a steward-cli command, the app closing) gives back what its work
    // freed: the idle time a one-shot program has. Bounded, so closing stays quick.
    if (m_codec && sqlite3_get_autocommit(m_db->getHandle()) != 0) {
        try {
            giveBackFreePages(kPagesGivenBackOnClose);
        } catch (...) {
            // The pages stay free in the file and are reused; the next writer gives them back.
        }
    }
}

void Database::startBackgroundCheckpoints(std::chrono::milliseconds interval)
{
    if (m_checkpointer.joinable())
        return;
    m_db->exec("PRAGMA wal_autocheckpoint=0");
    m_stopCheckpoints = false;
    const std::string path = m_path;
    m_checkpointer = std::thread([this, path, interval] {
        std::unique_lock<std::mutex> lock(m_checkpointMutex);
        while (!m_stopCheckpoints) {
            m_checkpointWake.wait_for(lock, interval, [this] { return m_stopCheckpoints; });
            if (m_stopCheckpoints)
                break;
            lock.unlock();
            try {
                SQLite::Database db(path, SQLite::OPEN_READWRITE, 0);
                db.exec("PRAGMA wal_checkpoint(PASSIVE)");
            } catch (const std::exception &) {
                // Busy or gone: the next round tries again; a missed checkpoint only grows the WAL.
            }
            lock.lock();
        }
    });
}

void Database::stopBackgroundCheckpoints()
{
    if (!m_checkpointer.joinable())
        return;
    {
        std::lock_guard<std::mutex> lock(m_checkpointMutex);
        m_stopCheckpoints = true;
    }
    m_checkpointWake.notify_all();
    m_checkpointer.join();
}

namespace {

std::atomic<bool> g_keepMemoryStatistics{false};

// SQLite's allocation counts take a global mutex on every malloc and free (about 3% of an import's
// CPU, measured); nothing in Steward reads them. Settable only before SQLite initializes, so once.
void configureLibraryOnce()
{
    static std::once_flag once;
    std::call_once(once, [] {
        if (!g_keepMemoryStatistics.load())
            sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); // SQLITE_MISUSE if someone initialized it first: harmless
    });
}

} // namespace

void Database::keepMemoryStatistics()
{
    g_keepMemoryStatistics.store(true);
}

namespace {

// Whether the file exists; throws when it cannot be opened as asked (missing for a reader, a
// directory, read-only for a writer).
bool checkPathOpens(const std::string &path, Database::Access access)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool exists = fs::exists(path, ec);
    if (!exists && access == Database::Access::ReadOnly)
        throw StorageError(StorageError::Kind::CannotOpen, path + ": no such database");
    if (exists && fs::is_directory(path, ec))
        throw StorageError(StorageError::Kind::CannotOpen, path + ": is a directory, not a database file");

    // A file nobody may write is read-only to Steward too, even for a user (root) the OS would let write.
    if (exists && access == Database::Access::ReadWrite) {
        const fs::perms perms = fs::status(path, ec).permissions();
        const fs::perms anyWrite = fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
        if (!ec && (perms & anyWrite) == fs::perms::none)
            throw StorageError(StorageError::Kind::ReadOnly,
                               path + ": the file is read-only; Steward needs to write to it");
    }
    return exists;
}

// The schema version of an open file; throws when it is not a Steward database, or one this
// program cannot use as asked (newer, or needing an upgrade a reader cannot make).
int stewardVersionOf(SQLite::Database &db, const std::string &path, Database::Access access)
{
    int applicationId = 0;
    int version = 0;
    int objects = 0;
    try {
        applicationId = pragmaInt(db, "application_id");
        version = pragmaInt(db, "user_version");
        SQLite::Statement count(db, "SELECT count(*) FROM sqlite_master");
        count.executeStep();
        objects = count.getColumn(0).getInt();
    } catch (const SQLite::Exception &e) {
        if (isBusyError(e))
            throw StorageError(StorageError::Kind::Busy, path + ": the database is locked by another program");
        throw StorageError(StorageError::Kind::NotSteward,
                           path + ": not a Steward database (" + std::string(e.getErrorStr()) + ")");
    }
    const bool empty = applicationId == 0 && version == 0 && objects == 0;
    if (!empty && applicationId != Database::kApplicationId)
        throw StorageError(StorageError::Kind::NotSteward,
                           path + ": not a Steward database (it is an SQLite file of another program)");
    if (version > kSchemaVersion)
        throw StorageError(StorageError::Kind::NewerVersion,
                           path + ": made by a newer Steward (database version " + std::to_string(version)
                               + ", this program knows up to " + std::to_string(kSchemaVersion) + ")");
    if (access == Database::Access::ReadOnly && version < kSchemaVersion)
        throw StorageError(StorageError::Kind::CannotOpen,
                           path + ": needs an upgrade that a read-only connection cannot make");
    return version;
}

} // namespace

std::unique_ptr<Database> Database::open(const std::string &path, Access access)
{
    configureLibraryOnce();
    const bool exists = checkPathOpens(path, access);

    int flags = access == Access::ReadOnly ? SQLite::OPEN_READONLY : SQLite::OPEN_READWRITE;
    // A connection is only ever used by one thread at a time; SQLite's own mutexes cost ~3% of an import.
    flags |= SQLite::OPEN_NOMUTEX;
    if (!exists) {
        // Owner-only before SQLite opens it: SQLite gives the -wal and -shm the database file's mode.
        std::string error;
        if (access == Access::ReadWrite && !createPrivateFile(path, &error))
            throw StorageError(StorageError::Kind::CannotOpen, path + ": cannot open: " + error);
        flags |= SQLite::OPEN_CREATE;
    }
    std::unique_ptr<SQLite::Database> db;
    try {
        db = std::make_unique<SQLite::Database>(path, flags, kBusyTimeoutMs);
    } catch (const SQLite::Exception &e) {
        throw StorageError(StorageError::Kind::CannotOpen, path + ": cannot open: " + e.getErrorStr());
    }

    if (access == Access::ReadWrite && sqlite3_db_readonly(db->getHandle(), "main") == 1)
        throw StorageError(StorageError::Kind::ReadOnly,
                           path + ": the file is read-only; Steward needs to write to it");

    const int version = stewardVersionOf(*db, path, access);

    std::unique_ptr<Database> database(new Database(std::move(db), path));
    try {
        if (access == Access::ReadWrite) {
            database->m_db->exec("PRAGMA journal_mode=WAL");
            database->m_db->exec("PRAGMA synchronous=FULL");
            // Random-key indexes touch pages all over the file; a 64 MB page cache keeps them in memory.
            database->m_db->exec("PRAGMA cache_size=-65536");
            // Each request runs in a savepoint inside an import's chunk; a statement journal on disk
            // wrote the original of every page a document touched (about 80 KB per document).
            database->m_db->exec("PRAGMA temp_store=MEMORY");
        }
        database->m_db->exec("PRAGMA foreign_keys=ON");
        if (access == Access::ReadWrite)
            database->m_indexKeyMemo = std::make_unique<IndexKeyMemo>();
        registerFunctions(*database->m_db, database->m_indexKeyMemo.get());
        if (access == Access::ReadWrite && version < kSchemaVersion)
            database->migrate(version);
        if (access == Access::ReadWrite)
            database->giveFreePagesBackOnce();
        if (access == Access::ReadWrite)
            database->m_codec = std::make_unique<BodyCodec>(*database->m_db);
        // An import that stopped without building its deferred indexes again (killed, power cut).
        if (access == Access::ReadWrite && database->indexesDeferred()) {
            database->m_db->setBusyTimeout(0);
            try {
                database->buildDeferredIndexes();
                database->m_db->setBusyTimeout(kBusyTimeoutMs);
            } catch (const SQLite::Exception &e) {
                database->m_db->setBusyTimeout(kBusyTimeoutMs);
                // Another program holds the write lock: most likely the import itself, still
                // running, which builds them when it ends. Opening must not wait for that.
                if (!isBusyError(e))
                    throw;
            }
        }
    } catch (const SQLite::Exception &e) {
        if (isBusyError(e))
            throw StorageError(StorageError::Kind::Busy, path + ": the database is locked by another program");
        throw StorageError(StorageError::Kind::Io, path + ": " + e.getErrorStr());
    }
    return database;
}

namespace {

void naturalKeyFunction(sqlite3_context *context, int, sqlite3_value **argv)
{
    const unsigned char *text = sqlite3_value_text(argv[0]);
    const std::string_view identity =
        text ? std::string_view(reinterpret_cast<const char *>(text), sqlite3_value_bytes(argv[0])) : std::string_view();
    if (const auto *memo = static_cast<const IndexKeyMemo *>(sqlite3_user_data(context));
        memo && memo->known && identity == memo->identityText) {
        sqlite3_result_text(context, memo->naturalKey.c_str(), static_cast<int>(memo->naturalKey.size()),
                            SQLITE_TRANSIENT);
        return;
    }
    const std::string key = naturalKeyOfIdentityText(identity);
    sqlite3_result_text(context, key.c_str(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
}

void searchTermsFunction(sqlite3_context *context, int, sqlite3_value **argv)
{
    const unsigned char *text = sqlite3_value_text(argv[0]);
    JsonParseResult parsed = parseJson(text ? reinterpret_cast<const char *>(text) : "");
    const std::string terms = parsed.value ? searchTermsOf(*parsed.value) : std::string();
    sqlite3_result_text(context, terms.c_str(), static_cast<int>(terms.size()), SQLITE_TRANSIENT);
}

} // namespace

void Database::registerFunctions(SQLite::Database &db, IndexKeyMemo *memo)
{
    BodyCodec::registerTextFunction(db, memo);
    // The natural-key index's expression and the documents view's natural_key (schema 20).
    sqlite3_create_function(db.getHandle(), "steward_natural_key", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, memo,
                            naturalKeyFunction, nullptr, nullptr);
    registerStoredFormFunctions(db);
}

void Database::migrate(int fromVersion)
{
    sqlite3_create_function(m_db->getHandle(), "steward_search_terms", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr,
                            searchTermsFunction, nullptr, nullptr);
    // PRAGMA foreign_keys is a no-op inside a transaction, so it is switched before one begins.
    const bool rebuilds = fromVersion < kLastRebuildingMigration;
    std::optional<ScopedPragma> foreignKeysOff;
    if (rebuilds)
        foreignKeysOff.emplace(*m_db, "foreign_keys=OFF", "foreign_keys=ON");
    // Index builds sort every key of a table: at 1M documents that held 550 MB in memory (as in
    // buildDeferredIndexes, a file spills what does not fit).
    const ScopedPragma spillToFile(*m_db, "temp_store=FILE", "temp_store=MEMORY");
    // A new file gives free pages back from the start (before its first table, the only time the
    // mode can be set without a VACUUM).
    if (fromVersion == 0)
        m_db->exec("PRAGMA auto_vacuum=INCREMENTAL");
    const CompactionFunctions compaction(*m_db);
    ImmediateTransaction transaction(*m_db);
    // Re-read inside the write lock: another process may have migrated meanwhile.
    const int current = pragmaInt(*m_db, "user_version");
    if (current >= kSchemaVersion)
        return;
    if (current == 0)
        m_db->exec("PRAGMA application_id=" + std::to_string(kApplicationId));
    for (int step = std::max(current, fromVersion); step < kSchemaVersion; ++step)
        m_db->exec(migrationStep(step));
    if (rebuilds) {
        SQLite::Statement violations(*m_db, "PRAGMA foreign_key_check");
        if (violations.executeStep())
            throw StorageError(StorageError::Kind::Io,
                               m_path + ": upgrading the database would break the link from table "
                                   + violations.getColumn(0).getString() + " to "
                                   + violations.getColumn(2).getString() + "; nothing was changed");
    }
    m_db->exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
    transaction.commit();
}

void Database::giveFreePagesBackOnce()
{
    if (pragmaInt(*m_db, "auto_vacuum") != 0)
        return;
    try {
        // VACUUM rewrites the file: the one way an existing file takes incremental vacuum.
        m_db->exec("PRAGMA auto_vacuum=INCREMENTAL");
        m_db->exec("VACUUM");
    } catch (const SQLite::Exception &e) {
        // Another program has the file open in a transaction: the next open tries again.
        if (!isBusyError(e))
            throw;
    }
}

int Database::giveBackFreePages(int maxPages)
{
    if (pragmaInt(*m_db, "auto_vacuum") != 2 || pragmaInt(*m_db, "freelist_count") == 0)
        return 0;
    const int before = pragmaInt(*m_db, "freelist_count");
    try {
        ImmediateTransaction transaction(*m_db);
        SQLite::Statement vacuum(*m_db, "PRAGMA incremental_vacuum(" + std::to_string(std::max(1, maxPages)) + ")");
        while (vacuum.executeStep()) {
        }
        transaction.commit();
    } catch (const SQLite::Exception &e) {
        if (isBusyError(e))
            return 0; // another writer is at work: not idle after all
        throw;
    }
    return before - pragmaInt(*m_db, "freelist_count");
}

bool Database::indexesDeferred()
{
    SQLite::Statement present(*m_db, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?");
    for (const DeferrableIndex &index : kDeferrableIndexes) {
        present.bind(1, index.name);
        present.executeStep();
        const bool exists = present.getColumn(0).getInt() > 0;
        present.reset();
        if (!exists)
            return true;
    }
    return false;
}

void Database::deferIndexes()
{
    ImmediateTransaction transaction(*m_db);
    for (const DeferrableIndex &index : kDeferrableIndexes)
        m_db->exec(std::string("DROP INDEX IF EXISTS ") + index.name);
    transaction.commit();
}

std::vector<std::string> Database::foreignKeyViolations(int limit)
{
    std::vector<std::string> found;
    SQLite::Statement violations(*m_db, "PRAGMA foreign_key_check");
    while (static_cast<int>(found.size()) < limit && violations.executeStep()) {
        // table, rowid (NULL in a WITHOUT ROWID table), parent table, foreign key index
        const std::string row =
            violations.getColumn(1).isNull() ? std::string() : " row " + violations.getColumn(1).getString();
        found.push_back(violations.getColumn(0).getString() + row + " points at a missing "
                        + violations.getColumn(2).getString() + " row");
    }
    return found;
}

void Database::buildDeferredIndexes()
{
    // The writer keeps temporary tables in memory; an index build sorts through them, which held
    // every key of a 1M-document index in memory at once. A file spills what does not fit.
    // (Switching drops the connection's TEMP objects; the writer keeps none between calls.)
    const ScopedPragma spillToFile(*m_db, "temp_store=FILE", "temp_store=MEMORY");
    ImmediateTransaction transaction(*m_db);
    for (const DeferrableIndex &index : kDeferrableIndexes)
        m_db->exec(index.create);
    transaction.commit();
}

ImmediateTransaction::ImmediateTransaction(SQLite::Database &db)
    : m_db(db)
{
    m_db.exec("BEGIN IMMEDIATE");
}

ImmediateTransaction::~ImmediateTransaction()
{
    if (m_open) {
        try {
            m_db.exec("ROLLBACK");
        } catch (...) {
            // Nothing more can be done from a destructor; SQLite rolls back on close anyway.
        }
    }
}

void ImmediateTransaction::commit()
{
    m_db.exec("COMMIT");
    m_open = false;
}

ScopedPragma::ScopedPragma(SQLite::Database &db, const std::string &set, std::string restore)
    : m_db(db)
    , m_restore(std::move(restore))
{
    m_db.exec("PRAGMA " + set);
}

ScopedPragma::~ScopedPragma()
{
    try {
        m_db.exec("PRAGMA " + m_restore);
    } catch (const SQLite::Exception &) {
        // Setting a pragma back does not fail in practice; a destructor must not throw.
    }
}

DeferredTransaction::DeferredTransaction(SQLite::Database &db)
    : m_db(db)
    // Inside an open transaction (a batch of requests that reads its own writes, as merge and
    // identity changes do) the reads already see one consistent state; a nested BEGIN would throw.
    , m_owns(sqlite3_get_autocommit(db.getHandle()) != 0)
{
    if (m_owns)
        m_db.exec("BEGIN DEFERRED");
}

DeferredTransaction::~DeferredTransaction()
{
    if (!m_owns)
        return;
    try {
        m_db.exec("COMMIT");
    } catch (...) {
    }
}

} // namespace steward
