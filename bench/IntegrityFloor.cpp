#include "IntegrityFloor.h"

#include "BenchSupport.h"
#include "DocumentStore.h"
#include "Identity.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <chrono>
#include <cstdint>
#include <unordered_map>
#include <vector>

using steward::Uuid;

namespace {


struct FloorAlias
{
    Uuid referentialId;
    std::int64_t resourceKey = 0;
};

// A document as the import hands it to SQLite: its stored forms, made before the writer runs.
struct FloorDocument
{
    std::int64_t docKey = 0;
    std::string id;
    std::int64_t resourceKey = 0;
    std::string identity;
    std::string body;
    std::string etag;
    std::int64_t lastModified = 0;
    std::vector<FloorAlias> aliases;
    std::vector<Uuid> references;
};

Uuid uuidOf(const SQLite::Column &column)
{
    Uuid id;
    steward::readUuid(column, id);
    return id;
}

std::string bytesOf(const SQLite::Column &column)
{
    return std::string(static_cast<const char *>(column.getBlob()), static_cast<std::size_t>(column.getBytes()));
}

// The documents with doc_key in [from, to), in doc_key order (the order the import wrote them).
std::vector<FloorDocument> loadChunk(SQLite::Database &imported, std::int64_t from, std::int64_t to)
{
    std::vector<FloorDocument> chunk;
    std::unordered_map<std::int64_t, std::size_t> at;
    SQLite::Statement documents(imported, "SELECT doc_key, id, resource_key, identity, body, etag, last_modified "
                                          "FROM document_rows WHERE doc_key >= ? AND doc_key < ? ORDER BY doc_key");
    documents.bind(1, from);
    documents.bind(2, to);
    while (documents.executeStep()) {
        FloorDocument d;
        d.docKey = documents.getColumn(0).getInt64();
        d.id = bytesOf(documents.getColumn(1));
        d.resourceKey = documents.getColumn(2).getInt64();
        d.identity = bytesOf(documents.getColumn(3));
        d.body = bytesOf(documents.getColumn(4));
        d.etag = bytesOf(documents.getColumn(5));
        d.lastModified = documents.getColumn(6).getInt64();
        at.emplace(d.docKey, chunk.size());
        chunk.push_back(std::move(d));
    }
    SQLite::Statement aliases(imported, "SELECT doc_key, referential_id, resource_key FROM alias_rows "
                                        "WHERE doc_key >= ? AND doc_key < ? ORDER BY alias_key");
    aliases.bind(1, from);
    aliases.bind(2, to);
    while (aliases.executeStep())
        if (auto found = at.find(aliases.getColumn(0).getInt64()); found != at.end())
            chunk[found->second].aliases.push_back({uuidOf(aliases.getColumn(1)), aliases.getColumn(2).getInt64()});
    SQLite::Statement references(imported, "SELECT r.from_doc, a.referential_id FROM refs r "
                                           "JOIN alias_rows a ON a.alias_key = r.to_alias "
                                           "WHERE r.from_doc >= ? AND r.from_doc < ?");
    references.bind(1, from);
    references.bind(2, to);
    while (references.executeStep())
        if (auto found = at.find(references.getColumn(0).getInt64()); found != at.end())
            chunk[found->second].references.push_back(uuidOf(references.getColumn(1)));
    return chunk;
}

// A document's row and its change-log entry (both appended), its aliases (a row each and the
// unique index of referential ids, which every reference is resolved through), and a row for each
// reference it makes. No secondary index, search, query index or natural key.
const char *const kFloorSchema = R"SQL(
PRAGMA journal_mode=WAL;
PRAGMA synchronous=FULL;
PRAGMA cache_size=-65536;
CREATE TABLE documents (doc_key INTEGER PRIMARY KEY, id BLOB NOT NULL, resource_key INTEGER NOT NULL,
                        identity NOT NULL, body NOT NULL, etag NOT NULL, last_modified INTEGER NOT NULL,
                        change_seq INTEGER);
CREATE TABLE aliases (alias_key INTEGER PRIMARY KEY, referential_id BLOB NOT NULL UNIQUE,
                      doc_key INTEGER NOT NULL, resource_key INTEGER NOT NULL);
CREATE TABLE refs (from_doc INTEGER NOT NULL, to_alias INTEGER NOT NULL, PRIMARY KEY (from_doc, to_alias))
    WITHOUT ROWID;
CREATE TABLE changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, resource_key INTEGER NOT NULL,
                      origin_key INTEGER NOT NULL);
)SQL";

class FloorWriter
{
public:
    explicit FloorWriter(SQLite::Database &db)
        : m_db(db)
        , m_findAlias(db, "SELECT alias_key FROM aliases WHERE referential_id = ?")
        , m_addChange(db, "INSERT INTO changes (op, resource_key, origin_key) VALUES ('insert', ?, 1)")
        , m_addDocument(db, "INSERT INTO documents (id, resource_key, identity, body, etag, last_modified, change_seq) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?)")
        , m_addAlias(db, "INSERT INTO aliases (referential_id, doc_key, resource_key) VALUES (?, ?, ?)")
        , m_addReference(db, "INSERT OR IGNORE INTO refs (from_doc, to_alias) VALUES (?, ?)")
    {
    }

    void writeChunk(const std::vector<FloorDocument> &chunk)
    {
        m_db.exec("BEGIN IMMEDIATE");
        m_resolved.clear(); // the import remembers resolved aliases for one transaction too
        for (const FloorDocument &d : chunk)
            write(d);
        m_db.exec("COMMIT");
    }

    long long references() const { return m_references; }
    long long unresolved() const { return m_unresolved; }

private:
    std::int64_t aliasKeyOf(const Uuid &referentialId)
    {
        if (auto found = m_resolved.find(referentialId); found != m_resolved.end())
            return found->second;
        m_findAlias.bind(1, referentialId.bytes.data(), static_cast<int>(referentialId.bytes.size()));
        const std::int64_t key = m_findAlias.executeStep() ? m_findAlias.getColumn(0).getInt64() : 0;
        m_findAlias.reset(); // no read left open on the table (an index build would find it locked)
        if (key != 0)
            m_resolved.emplace(referentialId, key);
        return key;
    }

    void write(const FloorDocument &d)
    {
        std::vector<std::int64_t> targets;
        for (const Uuid &reference : d.references) {
            ++m_references;
            if (const std::int64_t key = aliasKeyOf(reference))
                targets.push_back(key);
            else
                ++m_unresolved;
        }
        m_addChange.reset();
        m_addChange.bind(1, d.resourceKey);
        m_addChange.exec();
        const std::int64_t seq = m_db.getLastInsertRowid();
        m_addDocument.reset();
        m_addDocument.bindNoCopy(1, d.id.data(), static_cast<int>(d.id.size()));
        m_addDocument.bind(2, d.resourceKey);
        m_addDocument.bindNoCopy(3, d.identity.data(), static_cast<int>(d.identity.size()));
        m_addDocument.bindNoCopy(4, d.body.data(), static_cast<int>(d.body.size()));
        m_addDocument.bindNoCopy(5, d.etag.data(), static_cast<int>(d.etag.size()));
        m_addDocument.bind(6, d.lastModified);
        m_addDocument.bind(7, seq);
        m_addDocument.exec();
        const std::int64_t docKey = m_db.getLastInsertRowid();
        for (const FloorAlias &alias : d.aliases) {
            m_addAlias.reset();
            m_addAlias.bindNoCopy(1, alias.referentialId.bytes.data(), static_cast<int>(alias.referentialId.bytes.size()));
            m_addAlias.bind(2, docKey);
            m_addAlias.bind(3, alias.resourceKey);
            m_addAlias.exec();
        }
        for (std::int64_t target : targets) {
            m_addReference.reset();
            m_addReference.bind(1, docKey);
            m_addReference.bind(2, target);
            m_addReference.exec();
        }
    }

    SQLite::Database &m_db;
    SQLite::Statement m_findAlias;
    SQLite::Statement m_addChange;
    SQLite::Statement m_addDocument;
    SQLite::Statement m_addAlias;
    SQLite::Statement m_addReference;
    std::unordered_map<Uuid, std::int64_t, steward::UuidHash> m_resolved;
    long long m_references = 0;
    long long m_unresolved = 0;
};

} // namespace

IntegrityFloorResult measureIntegrityFloor(const std::string &importedPath, const std::string &floorPath,
                                           int chunkSize)
{
    SQLite::Database imported(importedPath, SQLite::OPEN_READONLY);
    SQLite::Database floor(floorPath, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    floor.exec(kFloorSchema);
    FloorWriter writer(floor);
    const std::int64_t last = imported.execAndGet("SELECT coalesce(max(doc_key), 0) FROM document_rows").getInt64();
    IntegrityFloorResult result;
    double cpu = 0;
    double wall = 0;
    for (std::int64_t from = 1; from <= last; from += chunkSize) {
        const std::vector<FloorDocument> chunk = loadChunk(imported, from, from + chunkSize);
        const double cpu0 = threadCpuSeconds();
        const Clock::time_point t0 = Clock::now();
        writer.writeChunk(chunk);
        wall += std::chrono::duration<double>(Clock::now() - t0).count();
        cpu += threadCpuSeconds() - cpu0;
        result.documents += static_cast<long long>(chunk.size());
    }
    const double cpuBeforeIndexes = cpu;
    const double cpu0 = threadCpuSeconds();
    floor.exec("CREATE UNIQUE INDEX documents_by_id ON documents(id); "
               "CREATE INDEX documents_by_resource ON documents(resource_key, doc_key); "
               "CREATE INDEX refs_by_target ON refs(to_alias, from_doc); PRAGMA wal_checkpoint(PASSIVE)");
    cpu += threadCpuSeconds() - cpu0;
    result.references = writer.references();
    result.unresolved = writer.unresolved();
    if (result.documents > 0) {
        result.cpuMicros = cpuBeforeIndexes * 1e6 / static_cast<double>(result.documents);
        result.cpuMicrosWithLookups = cpu * 1e6 / static_cast<double>(result.documents);
        result.docsPerSecond = wall > 0 ? static_cast<double>(result.documents) / wall : 0;
    }
    return result;
}
