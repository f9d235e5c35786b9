#pragma once

#include <SQLiteCpp/Database.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <stdexcept>
#include <string>
#include <vector>

namespace steward {

class StorageError : public std::runtime_error
{
public:
    enum class Kind
    {
        CannotOpen,
        NotSteward,
        NewerVersion,
        ReadOnly,
        Busy,
        Io,
    };
    StorageError(Kind kind, const std::string &message)
        : std::runtime_error(message)
        , m_kind(kind)
    {
    }
    Kind kind() const { return m_kind; }

private:
    Kind m_kind;
};

class BodyCodec;
struct IndexKeyMemo;

// A Steward database file: checks what it is before touching it, then migrates and configures it.
class Database
{
public:
    static constexpr int kApplicationId = 0x53545744; // "STWD"
    // The schema version this program writes (PRAGMA user_version): one migration step per version.
    // A function, so that a new step recompiles one file.
    static int schemaVersion();
    // Per attempt; the engine tries 5 times with backoff, so a held lock is waited out ~11 s in all
    // before a 503 (at 5 s per attempt a steward stared at a frozen window for 25 s).
    static constexpr int kBusyTimeoutMs = 2000;

    enum class Access
    {
        ReadWrite, // the one writer connection; creates the file when missing
        ReadOnly,  // loaders and readers on other threads
    };

    // SQLite stops counting its allocations at the first open (the count takes a global lock on
    // every allocation and free); a program that reads sqlite3_status() calls this before then.
    static void keepMemoryStatistics();

    // Throws StorageError naming the file and what is wrong; a foreign, newer or read-only file is left untouched.
    static std::unique_ptr<Database> open(const std::string &path, Access access = Access::ReadWrite);
    // The SQL functions every connection open() makes has: steward_text() (BodyCodec),
    // steward_natural_key(), which the natural-key index and the documents view call, and the stored
    // forms' (StoredForms.h). A connection made otherwise needs them before it reads the views or
    // writes document_rows. The writer's connection passes its IndexKeyMemo.
    static void registerFunctions(SQLite::Database &db, IndexKeyMemo *memo = nullptr);

    ~Database();

    SQLite::Database &connection() { return *m_db; }
    const std::string &path() const { return m_path; }
    // How this writer connection stores document text (null on a read-only connection, which reads
    // stored text through the SQL function steward_text, as every connection can).
    BodyCodec *codec() { return m_codec.get(); }
    // Where the writer puts the natural key of the document it is about to store (null on a read-only connection).
    IndexKeyMemo *indexKeyMemo() { return m_indexKeyMemo.get(); }

    // SQLite checkpoints inside the committing call by default, which shows as latency spikes on
    // saves. This turns that off and checkpoints (PASSIVE) from a thread with its own connection.
    void startBackgroundCheckpoints(std::chrono::milliseconds interval = std::chrono::milliseconds(500));

    // A large import drops the random-key indexes nothing in it reads and builds them again at the
    // end (each step its own BEGIN IMMEDIATE). Readers stay correct meanwhile, only slower; open()
    // builds any that are missing, so a killed import leaves nothing broken.
    void deferIndexes();
    void buildDeferredIndexes();
    bool indexesDeferred();
    // What PRAGMA foreign_key_check finds, at most limit of them, each as "table row N points at a
    // missing parent row". A pass over every table with a foreign key.
    std::vector<std::string> foreignKeyViolations(int limit);

    // Pages freed by deletes (forgotten undo, deleted documents) stay in the file until given back.
    // The file runs in incremental vacuum mode; this gives back at most maxPages of them in one
    // short write transaction (a front end calls it when idle) and answers how many it gave back
    // (0 when another writer holds the lock).
    int giveBackFreePages(int maxPages = 2048);

private:
    Database(std::unique_ptr<SQLite::Database> db, std::string path);
    void migrate(int fromVersion);
    // A file made before incremental vacuum takes it, through one VACUUM (skipped while busy).
    void giveFreePagesBackOnce();
    void stopBackgroundCheckpoints();

    // Before m_db, so destroyed after it: the connection's functions read it until the connection closes.
    std::unique_ptr<IndexKeyMemo> m_indexKeyMemo;
    std::unique_ptr<SQLite::Database> m_db;
    std::unique_ptr<BodyCodec> m_codec; // after m_db, so destroyed first: it uses the connection
    std::string m_path;
    std::thread m_checkpointer;
    std::mutex m_checkpointMutex;
    std::condition_variable m_checkpointWake;
    bool m_stopCheckpoints = false;
};

// BEGIN IMMEDIATE: takes the write lock up front so no later statement in it can fail with SQLITE_BUSY.
// Rolls back when destroyed uncommitted.
class ImmediateTransaction
{
public:
    explicit ImmediateTransaction(SQLite::Database &db);
    ~ImmediateTransaction();
    ImmediateTransaction(const ImmediateTransaction &) = delete;
    ImmediateTransaction &operator=(const ImmediateTransaction &) = delete;
    void commit();

private:
    SQLite::Database &m_db;
    bool m_open = true;
};

// BEGIN DEFERRED for short consistent reads: a snapshot over several statements (joins the
// connection's transaction when one is already open).
class DeferredTransaction
{
public:
    explicit DeferredTransaction(SQLite::Database &db);
    ~DeferredTransaction();
    DeferredTransaction(const DeferredTransaction &) = delete;
    DeferredTransaction &operator=(const DeferredTransaction &) = delete;

private:
    SQLite::Database &m_db;
    bool m_owns; // false when the connection was already in a transaction
};

// A connection setting changed for a scope and put back however the scope ends. Settings such as
// foreign_keys are no-ops inside a transaction: switch them before one begins.
class ScopedPragma
{
public:
    ScopedPragma(SQLite::Database &db, const std::string &set, std::string restore);
    ~ScopedPragma();
    ScopedPragma(const ScopedPragma &) = delete;
    ScopedPragma &operator=(const ScopedPragma &) = delete;

private:
    SQLite::Database &m_db;
    std::string m_restore;
};

bool isBusyError(const SQLite::Exception &e);
// Busy, or a database this connection cannot write: whoever writes next does what was skipped.
bool isBusyOrReadOnly(const SQLite::Exception &e);

// steward.db in the per-user data directory (~/.local/share/steward on Linux), created if needed;
// the same for the desktop app and steward-cli whatever their Qt application names.
std::string defaultDatabasePath();

} // namespace steward
