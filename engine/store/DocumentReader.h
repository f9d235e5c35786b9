#pragma once

#include "Database.h"

#include <SQLiteCpp/Statement.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace steward {

// Which documents to browse and in what order. Every order ends with doc_key, so it is total.
struct DocumentQuery
{
    enum class Order
    {
        Creation,     // doc_key
        NaturalKey,   // natural_key, then doc_key (by index)
        JsonPath,     // json_extract(body, jsonPath), then doc_key (a full scan)
        LastModified, // last_modified, then doc_key (a full scan)
    };

    std::string project;
    std::string resource;
    std::string naturalKeyPrefix; // case-insensitive (ASCII) prefix of natural_key; empty matches all
    Order order = Order::Creation;
    std::string jsonPath; // for Order::JsonPath: "$.firstName"
    bool descending = false;
};

// One document as the browser shows it.
struct DocumentRow
{
    std::int64_t docKey = 0;
    std::string id;
    std::string naturalKey;
    std::string identity; // JSON text
    std::string body;     // JSON text
    std::string lastModified;
};

// A read was stopped by interrupt() or by the cancellation check.
class ReadInterrupted : public std::runtime_error
{
public:
    ReadInterrupted()
        : std::runtime_error("the read was interrupted")
    {
    }
};

// Reads documents for browsing on its own read-only connection, for one thread at a time (interrupt()
// excepted). Each call is one autocommit statement: no read transaction stays open between calls, so the
// writer's checkpoints are never held back by a reader that is paging through a million rows.
class DocumentReader
{
public:
    // Rows per IN (...) statement; rows() splits longer key lists.
    static constexpr int kMaxKeysPerStatement = 500;

    // Throws StorageError when the file cannot be opened for reading.
    explicit DocumentReader(const std::string &databasePath);
    ~DocumentReader();
    DocumentReader(const DocumentReader &) = delete;
    DocumentReader &operator=(const DocumentReader &) = delete;

    // Every matching doc_key in display order: the keyset the browser pages through (and its count).
    std::vector<std::int64_t> keys(const DocumentQuery &query);
    // The documents of these keys in the given order; keys of documents deleted meanwhile are left out.
    std::vector<DocumentRow> rows(const std::vector<std::int64_t> &docKeys);
    // The first rows in display order, without reading the whole keyset.
    std::vector<DocumentRow> firstRows(const DocumentQuery &query, int limit);

    // Stops the statement running on the reader's thread; safe to call from any thread.
    // Throws ReadInterrupted there.
    void interrupt();
    // Asked every few thousand SQLite instructions on the reader's thread; true stops the statement
    // (ReadInterrupted). Covers the moment between statements that interrupt() cannot reach.
    void setCancellationCheck(std::function<bool()> isCancelled);

    // "ab%c" -> "ab\%c%": a LIKE pattern (ESCAPE '\') matching texts that start with the prefix.
    static std::string likePrefixPattern(const std::string &prefix);

private:
    std::string selectSql(const char *columns, const DocumentQuery &query) const;
    void bindQuery(SQLite::Statement &statement, const DocumentQuery &query) const;
    SQLite::Statement &rowsStatement(int keyCount);
    [[noreturn]] void rethrow(const SQLite::Exception &e) const;
    static int progress(void *self);

    std::unique_ptr<Database> m_database;
    std::map<int, std::unique_ptr<SQLite::Statement>> m_rowsStatements; // by number of keys
    std::function<bool()> m_isCancelled;
};

} // namespace steward
