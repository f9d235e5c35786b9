#include "DocumentReader.h"

#include <sqlite3.h>

#include <algorithm>
#include <unordered_map>

namespace steward {

namespace {

const char *const kRowColumns = "doc_key, id, natural_key, steward_text(identity), steward_text(body), last_modified";

// How often (in SQLite virtual machine instructions) the cancellation check is asked.
constexpr int kProgressInstructions = 4000;

DocumentRow readRow(SQLite::Statement &statement)
{
    DocumentRow row;
    row.docKey = statement.getColumn(0).getInt64();
    row.id = statement.getColumn(1).getString();
    row.naturalKey = statement.getColumn(2).getString();
    row.identity = statement.getColumn(3).getString();
    row.body = statement.getColumn(4).getString();
    row.lastModified = statement.getColumn(5).getString();
    return row;
}

// Resets a reused statement however the read ends: a statement left stepped keeps a read transaction open.
class ResetOnExit
{
public:
    explicit ResetOnExit(SQLite::Statement &statement)
        : m_statement(statement)
    {
    }
    ~ResetOnExit() { m_statement.tryReset(); }
    ResetOnExit(const ResetOnExit &) = delete;
    ResetOnExit &operator=(const ResetOnExit &) = delete;

private:
    SQLite::Statement &m_statement;
};

} // namespace

DocumentReader::DocumentReader(const std::string &databasePath)
    : m_database(Database::open(databasePath, Database::Access::ReadOnly))
{
}

DocumentReader::~DocumentReader()
{
    m_rowsStatements.clear();
    if (m_database)
        sqlite3_progress_handler(m_database->connection().getHandle(), 0, nullptr, nullptr);
}

std::string DocumentReader::likePrefixPattern(const std::string &prefix)
{
    std::string pattern;
    pattern.reserve(prefix.size() + 2);
    for (const char c : prefix) {
        if (c == '%' || c == '_' || c == '\\')
            pattern += '\\';
        pattern += c;
    }
    pattern += '%';
    return pattern;
}

std::string DocumentReader::selectSql(const char *columns, const DocumentQuery &query) const
{
    // Numbered parameters: ?1 project, ?2 resource, ?3 prefix pattern, ?4 JSON path, ?5 limit.
    std::string sql
        = std::string("SELECT ") + columns + " FROM documents WHERE project = ?1 AND resource = ?2";
    // LIKE on the NOCASE column with a fixed prefix becomes a range on documents_by_natural_key.
    if (!query.naturalKeyPrefix.empty())
        sql += " AND natural_key LIKE ?3 ESCAPE '\\'";
    const char *direction = query.descending ? " DESC" : " ASC";
    sql += " ORDER BY ";
    switch (query.order) {
    case DocumentQuery::Order::Creation:
        break;
    case DocumentQuery::Order::NaturalKey:
        sql += std::string("natural_key") + direction + ", ";
        break;
    case DocumentQuery::Order::JsonPath:
        sql += std::string("json_extract(steward_text(body), ?4)") + direction + ", ";
        break;
    case DocumentQuery::Order::LastModified:
        sql += std::string("last_modified") + direction + ", ";
        break;
    }
    sql += std::string("doc_key") + direction;
    return sql;
}

void DocumentReader::bindQuery(SQLite::Statement &statement, const DocumentQuery &query) const
{
    statement.bind(1, query.project);
    statement.bind(2, query.resource);
    if (!query.naturalKeyPrefix.empty())
        statement.bind(3, likePrefixPattern(query.naturalKeyPrefix));
    if (query.order == DocumentQuery::Order::JsonPath)
        statement.bind(4, query.jsonPath);
}

std::vector<std::int64_t> DocumentReader::keys(const DocumentQuery &query)
{
    std::vector<std::int64_t> out;
    try {
        SQLite::Statement statement(m_database->connection(), selectSql("doc_key", query));
        bindQuery(statement, query);
        while (statement.executeStep())
            out.push_back(statement.getColumn(0).getInt64());
    } catch (const SQLite::Exception &e) {
        rethrow(e);
    }
    return out;
}

std::vector<DocumentRow> DocumentReader::firstRows(const DocumentQuery &query, int limit)
{
    std::vector<DocumentRow> out;
    try {
        SQLite::Statement statement(m_database->connection(), selectSql(kRowColumns, query) + " LIMIT ?5");
        bindQuery(statement, query);
        statement.bind(5, limit);
        while (statement.executeStep())
            out.push_back(readRow(statement));
    } catch (const SQLite::Exception &e) {
        rethrow(e);
    }
    return out;
}

SQLite::Statement &DocumentReader::rowsStatement(int keyCount)
{
    std::unique_ptr<SQLite::Statement> &statement = m_rowsStatements[keyCount];
    if (!statement) {
        std::string sql = std::string("SELECT ") + kRowColumns + " FROM documents WHERE doc_key IN (";
        for (int i = 0; i < keyCount; ++i)
            sql += i == 0 ? "?" : ",?";
        sql += ")";
        statement = std::make_unique<SQLite::Statement>(m_database->connection(), sql);
    }
    return *statement;
}

std::vector<DocumentRow> DocumentReader::rows(const std::vector<std::int64_t> &docKeys)
{
    std::unordered_map<std::int64_t, DocumentRow> found;
    found.reserve(docKeys.size());
    try {
        for (std::size_t start = 0; start < docKeys.size(); start += kMaxKeysPerStatement) {
            const std::size_t count = std::min<std::size_t>(kMaxKeysPerStatement, docKeys.size() - start);
            SQLite::Statement &statement = rowsStatement(static_cast<int>(count));
            ResetOnExit reset(statement);
            for (std::size_t i = 0; i < count; ++i)
                statement.bind(static_cast<int>(i + 1), docKeys[start + i]);
            while (statement.executeStep()) {
                DocumentRow row = readRow(statement);
                found.emplace(row.docKey, std::move(row));
            }
        }
    } catch (const SQLite::Exception &e) {
        rethrow(e);
    }
    // Few distinct sizes occur (full chunks and the last one); keep the cache from growing without bound.
    if (m_rowsStatements.size() > 8)
        m_rowsStatements.clear();

    std::vector<DocumentRow> out;
    out.reserve(found.size());
    for (const std::int64_t key : docKeys) {
        auto it = found.find(key);
        if (it != found.end())
            out.push_back(std::move(it->second));
    }
    return out;
}

void DocumentReader::interrupt()
{
    sqlite3_interrupt(m_database->connection().getHandle());
}

void DocumentReader::setCancellationCheck(std::function<bool()> isCancelled)
{
    m_isCancelled = std::move(isCancelled);
    sqlite3_progress_handler(m_database->connection().getHandle(), m_isCancelled ? kProgressInstructions : 0,
                             m_isCancelled ? &DocumentReader::progress : nullptr, this);
}

int DocumentReader::progress(void *self)
{
    const DocumentReader *reader = static_cast<const DocumentReader *>(self);
    return reader->m_isCancelled && reader->m_isCancelled() ? 1 : 0;
}

void DocumentReader::rethrow(const SQLite::Exception &e) const
{
    const int code = e.getErrorCode() & 0xff;
    if (code == SQLITE_INTERRUPT)
        throw ReadInterrupted();
    if (isBusyError(e))
        throw StorageError(StorageError::Kind::Busy,
                           m_database->path() + ": the database is locked by another program");
    throw StorageError(StorageError::Kind::Io, m_database->path() + ": " + e.what());
}

} // namespace steward
