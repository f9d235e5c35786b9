#include "DocumentStore.h"

#include "BodyCodec.h"
#include "IndexKeyMemo.h"
#include "Database.h"
#include "StoredForms.h"

#include "ApiSchema.h"

#include <sqlite3.h>

#include <limits>

#include <QCryptographicHash>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace steward {

namespace {

const char *const kDocumentColumns = "doc_key, id, project, resource, referential_id, steward_text(identity), "
                                     "steward_text(body), etag, created_at, last_modified, change_seq";
// A page of a collection leaves the referential id out: the view looks it up in the aliases, a
// search per row, and no page shows it.
const char *const kListedColumns = "doc_key, id, project, resource, NULL, steward_text(identity), "
                                   "steward_text(body), etag, created_at, last_modified, change_seq";

StoredDocument readDocument(SQLite::Statement &s)
{
    StoredDocument d;
    d.docKey = s.getColumn(0).getInt64();
    d.id = s.getColumn(1).getString();
    d.project = s.getColumn(2).getString();
    d.resource = s.getColumn(3).getString();
    readUuid(s.getColumn(4), d.referentialId);
    d.identity = s.getColumn(5).getString();
    d.body = s.getColumn(6).getString();
    d.etag = s.getColumn(7).getString();
    d.createdAt = s.getColumn(8).getString();
    d.lastModified = s.getColumn(9).getString();
    d.changeSeq = s.getColumn(10).getInt64(); // NULL (written before the column existed) reads as 0
    return d;
}

void bindUuid(SQLite::Statement &s, int index, const Uuid &uuid)
{
    s.bind(index, uuid.bytes.data(), static_cast<int>(uuid.bytes.size()));
}

const char *const kAddResource = "INSERT INTO resources (project, resource) VALUES (?, ?) ON CONFLICT DO NOTHING";
const char *const kFindResource = "SELECT resource_key FROM resources WHERE project = ? AND resource = ?";
const char *const kAddOrigin = "INSERT INTO change_origins (actor, source) VALUES (?, ?) ON CONFLICT DO NOTHING";
const char *const kFindOrigin = "SELECT origin_key FROM change_origins WHERE actor = ? AND source = ?";

const std::int64_t *knownKey(const NamesKeys &keys, const std::string &first, const std::string &second)
{
    auto names = keys.find(first);
    if (names == keys.end())
        return nullptr;
    auto key = names->second.find(second);
    return key == names->second.end() ? nullptr : &key->second;
}

std::optional<StoredDocument> fetchOne(SQLite::Statement &s)
{
    std::optional<StoredDocument> out;
    if (s.executeStep())
        out = readDocument(s);
    s.reset();
    return out;
}

} // namespace

void bindJson(SQLite::Statement &s, int index, const Json &value)
{
    if (value.is_boolean())
        s.bind(index, value.get<bool>() ? 1 : 0);
    else if (value.is_number_integer())
        s.bind(index, value.get<std::int64_t>());
    else if (value.is_number())
        s.bind(index, value.get<double>());
    else if (value.is_string())
        s.bind(index, value.get<std::string>());
    else
        s.bind(index);
}

namespace {

void bindAll(SQLite::Statement &s, const std::vector<Json> &values)
{
    for (std::size_t i = 0; i < values.size(); ++i)
        bindJson(s, static_cast<int>(i + 1), values[i]);
}

} // namespace

// The rows, not the documents view: SQLite cannot flatten a view that is a join into the right side
// of a LEFT JOIN, and would copy every document (and work out every natural key) first.
const char *const kChangesWithBodies = "changes c LEFT JOIN document_rows d ON d.change_seq = c.seq";
const char *const kChangeBody = "steward_version_text(coalesce(c.body, d.body), c.seq, c.id_key)";
const char *const kChangeEtag = "coalesce(c.etag, steward_hex_text(d.etag))";
const char *const kChangeAt = "coalesce(nullif(c.at, ''), steward_time_text(d.last_modified))";
namespace {

// The seqs of a document's change-log entries, given an SQL expression of its stored id: those that
// keep the id, and its current entry, which leaves the id to the document's row (schema version 24).
std::string entriesOfDocument(const std::string &storedId)
{
    return "(SELECT seq FROM change_rows WHERE id = " + storedId
           + " UNION ALL SELECT change_seq FROM document_rows WHERE id = " + storedId + ")";
}

} // namespace

// The document's own identity first when c is its current entry (d, by change_seq): that needs
// no search, which matters while a large import has dropped the indexes the searches use.
const std::string kChangeIdentity =
    "coalesce(nullif(c.identity, ''), steward_text(d.identity), "
    "(SELECT CASE n.op WHEN 'key-change' THEN n.previous_identity ELSE n.identity END "
    "FROM change_rows n WHERE n.seq IN "
    + entriesOfDocument("c.id_key")
    + " AND n.seq > c.seq AND n.op IN ('key-change', 'delete') ORDER BY n.seq LIMIT 1), "
      "(SELECT steward_text(i.identity) FROM document_rows i WHERE i.id = c.id_key))";

const std::string kEntryOfDocument = "c.seq IN " + entriesOfDocument("steward_id_key(?1)");

bool readUuid(const SQLite::Column &column, Uuid &out)
{
    if (column.getBytes() != static_cast<int>(out.bytes.size()))
        return false;
    std::memcpy(out.bytes.data(), column.getBlob(), out.bytes.size());
    return true;
}

// An ETag only has to change when the document does: 64-bit FNV-1a over the stored text (and its
// length) is enough for that and far cheaper than a cryptographic hash on every write.
std::string etagOf(const std::string &body)
{
    std::uint64_t hash = 1469598103934665603ull;
    for (unsigned char c : body) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    hash ^= body.size() * 0x9e3779b97f4a7c15ull;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

bool etagFitsBody(const std::string &etag, const std::string &body)
{
    if (etag.size() == 16)
        return etag == etagOf(body);
    // Documents written before etagOf() existed carry ten bytes of the body's SHA-256.
    const QByteArray hash = QCryptographicHash::hash(QByteArray::fromStdString(body), QCryptographicHash::Sha256);
    return etag == hash.left(10).toHex().toStdString();
}

DocumentStore::DocumentStore(SQLite::Database &db, BodyCodec *codec, IndexKeyMemo *indexKeyMemo)
    : m_db(db)
    , m_codec(codec)
    , m_indexKeyMemo(indexKeyMemo)
{
}

DocumentStore::~DocumentStore() = default;

SQLite::Statement &DocumentStore::statement(const char *sql)
{
    auto it = m_statements.find(sql);
    if (it == m_statements.end())
        it = m_statements.emplace(sql, std::make_unique<SQLite::Statement>(m_db, sql)).first;
    // reset() would throw the error of the statement's last failed step again (SQLite reports it
    // from sqlite3_reset); that failure was already handled, and the statement is fine to reuse.
    it->second->tryReset();
    it->second->clearBindings();
    return *it->second;
}

std::optional<StoredDocument> DocumentStore::findById(const std::string &id)
{
    static const std::string sql
        = std::string("SELECT ") + kDocumentColumns + " FROM documents WHERE id_key = steward_id_key(?)";
    SQLite::Statement &s = statement(sql.c_str());
    s.bind(1, id);
    return fetchOne(s);
}

std::optional<StoredDocument> DocumentStore::findByKey(std::int64_t docKey)
{
    static const std::string sql = std::string("SELECT ") + kDocumentColumns + " FROM documents WHERE doc_key = ?";
    SQLite::Statement &s = statement(sql.c_str());
    s.bind(1, docKey);
    return fetchOne(s);
}

std::optional<StoredDocument> DocumentStore::findByReferentialId(const Uuid &referentialId)
{
    // Through the aliases' index: a document's own referential id is always one of its aliases.
    static const std::string sql = std::string("SELECT ") + kDocumentColumns
                                   + " FROM documents WHERE doc_key = (SELECT doc_key FROM alias_rows WHERE "
                                     "referential_id = ?1) AND referential_id = ?1";
    SQLite::Statement &s = statement(sql.c_str());
    bindUuid(s, 1, referentialId);
    return fetchOne(s);
}

std::optional<AliasRow> DocumentStore::findAlias(const Uuid &referentialId)
{
    SQLite::Statement &s =
        statement("SELECT alias_key, doc_key, project, resource FROM aliases WHERE referential_id = ?");
    bindUuid(s, 1, referentialId);
    std::optional<AliasRow> out;
    if (s.executeStep())
        out = AliasRow{s.getColumn(0).getInt64(), s.getColumn(1).getInt64(), s.getColumn(2).getString(),
                       s.getColumn(3).getString()};
    s.reset();
    return out;
}

std::optional<AliasKeys> DocumentStore::findAliasKeys(const Uuid &referentialId)
{
    SQLite::Statement &s = statement("SELECT alias_key, doc_key FROM alias_rows WHERE referential_id = ?");
    bindUuid(s, 1, referentialId);
    std::optional<AliasKeys> out;
    if (s.executeStep())
        out = AliasKeys{s.getColumn(0).getInt64(), s.getColumn(1).getInt64()};
    s.reset();
    return out;
}

std::vector<std::pair<std::int64_t, Uuid>> DocumentStore::aliasesOf(std::int64_t docKey)
{
    SQLite::Statement &s = statement("SELECT alias_key, referential_id FROM alias_rows WHERE doc_key = ?");
    s.bind(1, docKey);
    std::vector<std::pair<std::int64_t, Uuid>> out;
    while (s.executeStep()) {
        Uuid uuid;
        readUuid(s.getColumn(1), uuid);
        out.emplace_back(s.getColumn(0).getInt64(), uuid);
    }
    s.reset();
    return out;
}

void DocumentStore::insertDocument(StoredDocument &d, const ChangeRecord &change)
{
    d.changeSeq = appendChange(change.op, d, change.previousReferentialId, change.actor, change.at);
    SQLite::Statement &s = statement(
        "INSERT INTO document_rows (id, resource_key, identity, body, etag, created_at, last_modified, change_seq) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    // Its referential id is its own alias's (schema 23), which the caller inserts.
    bindStoredId(s, 1, d.id);
    s.bind(2, resourceKey(d.project, d.resource));
    bindStoredText(s, 4, d, d.body, d.storedBody, true);
    bindStoredIdentity(s, 3, d);
    bindStoredHex(s, 5, d.etag);
    // A document not written since it was created leaves created_at to last_modified; its first
    // update copies it in.
    if (d.createdAt == d.lastModified)
        s.bind(6);
    else
        bindStoredTime(s, 6, d.createdAt);
    bindStoredTime(s, 7, d.lastModified);
    s.bind(8, d.changeSeq);
    s.exec();
    d.docKey = m_db.getLastInsertRowid();
    indexInserted(d);
}

void DocumentStore::updateDocument(StoredDocument &d, const ChangeRecord &change)
{
    indexReplaced(d);
    copyBodyIntoCurrentChange(d.docKey, &d.body);
    d.changeSeq = appendChange(change.op, d, change.previousReferentialId, change.actor, change.at);
    // SET reads the row as it was: a NULL created_at takes the last_modified being replaced. The
    // referential id is the own alias's, which the caller updates.
    SQLite::Statement &s = statement("UPDATE document_rows SET identity = ?, body = ?, etag = ?, "
                                     "created_at = coalesce(created_at, last_modified), "
                                     "last_modified = ?, change_seq = ? WHERE doc_key = ?");
    bindStoredText(s, 2, d, d.body, d.storedBody, true);
    bindStoredIdentity(s, 1, d);
    bindStoredHex(s, 3, d.etag);
    bindStoredTime(s, 4, d.lastModified);
    s.bind(5, d.changeSeq);
    s.bind(6, d.docKey);
    s.exec();
}

std::int64_t DocumentStore::deleteDocument(const StoredDocument &d, const std::string &actor, const std::string &at)
{
    copyBodyIntoCurrentChange(d.docKey, nullptr);
    indexRemoved(d);
    SQLite::Statement &s = statement("DELETE FROM document_rows WHERE doc_key = ?");
    s.bind(1, d.docKey);
    s.exec();
    return appendChange("delete", d, std::nullopt, actor, at);
}

void DocumentStore::bindStoredText(SQLite::Statement &s, int index, const StoredDocument &d, const std::string &text,
                                   const std::optional<std::string> &prepared, bool sample, std::string *bound)
{
    std::shared_ptr<const BodyDictionary> dictionary = m_codec ? m_codec->dictionaryOf(d.project, d.resource) : nullptr;
    if (!dictionary && m_codec && sample)
        dictionary = m_codec->sample(d.project, d.resource, text);
    if (!dictionary) {
        s.bindNoCopy(index, text); // the text outlives exec()
        if (bound)
            *bound = text;
        return;
    }
    // Whatever rolled back since, a frame is stored only beside the dictionary that reads it.
    const std::uint32_t id = BodyCodec::idOf(*dictionary);
    if (m_dictionariesStored.insert(id).second)
        m_codec->store(*dictionary);
    const std::string frame = prepared && d.storedWith == id ? *prepared : BodyCodec::compress(*dictionary, text);
    s.bind(index, frame.data(), static_cast<int>(frame.size()));
    if (bound)
        *bound = frame;
}

void DocumentStore::bindStoredIdentity(SQLite::Statement &s, int index, const StoredDocument &d)
{
    if (!m_indexKeyMemo || !d.naturalKey) {
        bindStoredText(s, index, d, d.identity, d.storedIdentity, false);
        return;
    }
    IndexKeyMemo &memo = *m_indexKeyMemo;
    memo.known = false; // until all three belong to this document
    bindStoredText(s, index, d, d.identity, d.storedIdentity, false, &memo.storedIdentity);
    memo.identityText = d.identity;
    memo.naturalKey = *d.naturalKey;
    memo.known = true;
}

void DocumentStore::copyBodyIntoCurrentChange(std::int64_t docKey, const std::string *nextBody)
{
    // A version the document is rewritten from is kept as a delta against the new text: an edit of
    // a field costs tens of bytes of history instead of the whole compressed body.
    SQLite::Statement &s = statement(
        "UPDATE change_rows SET id = coalesce(change_rows.id, d.id), "
        "body = coalesce(change_rows.body, steward_delta_of(d.body, ?2)), "
        "etag = coalesce(change_rows.etag, d.etag), "
        "at = coalesce(nullif(change_rows.at, ''), steward_time_text(d.last_modified)) "
        "FROM document_rows d WHERE d.doc_key = ?1 "
        "AND change_rows.seq = d.change_seq "
        "AND (change_rows.body IS NULL OR change_rows.etag IS NULL OR change_rows.at = '' OR change_rows.id IS NULL)");
    s.bind(1, docKey);
    if (nextBody != nullptr)
        s.bindNoCopy(2, *nextBody);
    else
        s.bind(2);
    s.exec();
}

void DocumentStore::insertAlias(std::int64_t docKey, const Uuid &referentialId, const std::string &project,
                                const std::string &resource)
{
    SQLite::Statement &s =
        statement("INSERT INTO alias_rows (referential_id, doc_key, resource_key) VALUES (?, ?, ?)");
    bindUuid(s, 1, referentialId);
    s.bind(2, docKey);
    s.bind(3, resourceKey(project, resource));
    s.exec();
    if (m_aliasFilter)
        m_aliasFilter->add(referentialId);
}

void DocumentStore::updateAlias(std::int64_t aliasKey, const Uuid &referentialId)
{
    if (m_aliasFilter)
        m_aliasFilter->add(referentialId);
    SQLite::Statement &s = statement("UPDATE alias_rows SET referential_id = ? WHERE alias_key = ?");
    bindUuid(s, 1, referentialId);
    s.bind(2, aliasKey);
    s.exec();
}

namespace {

// Referential ids are SHA-1 or random bytes: four of their 32-bit words, mixed, pick the bits.
std::uint64_t filterHash(const Uuid &id, int which)
{
    static constexpr int kOffsets[4] = {0, 4, 9, 12}; // bytes 6 and 8 carry version and variant bits
    std::uint32_t word = 0;
    std::memcpy(&word, id.bytes.data() + kOffsets[which], sizeof word);
    return (word * 0x9E3779B97F4A7C15ull) >> 13;
}

std::int64_t dataVersion(SQLite::Database &db)
{
    return db.execAndGet("PRAGMA data_version").getInt64();
}

} // namespace

AliasFilter::AliasFilter(std::int64_t expected)
{
    // 16 bits per id with four probes: a "maybe" for an absent id about 0.3% of the time.
    std::uint64_t bits = 1u << 20;
    while (bits < static_cast<std::uint64_t>(std::max<std::int64_t>(expected, 1)) * 16)
        bits <<= 1;
    m_bits.assign(bits / 64, 0);
    m_mask = bits - 1;
}

void AliasFilter::add(const Uuid &referentialId)
{
    for (int i = 0; i < 4; ++i) {
        const std::uint64_t bit = filterHash(referentialId, i) & m_mask;
        m_bits[bit / 64] |= std::uint64_t(1) << (bit % 64);
    }
}

bool AliasFilter::mayContain(const Uuid &referentialId) const
{
    for (int i = 0; i < 4; ++i) {
        const std::uint64_t bit = filterHash(referentialId, i) & m_mask;
        if ((m_bits[bit / 64] & (std::uint64_t(1) << (bit % 64))) == 0)
            return false;
    }
    return true;
}

void DocumentStore::trackAliases(std::int64_t incoming)
{
    // Read first: a commit by another connection during or after the scan then shows as a change.
    const std::int64_t version = dataVersion(m_db);
    const std::int64_t stored = m_db.execAndGet("SELECT count(*) FROM aliases").getInt64();
    // A document has one or two aliases (its own, and its superclass's).
    AliasFilter filter(stored + incoming * 5 / 4);
    SQLite::Statement all(m_db, "SELECT referential_id FROM aliases");
    while (all.executeStep()) {
        Uuid id;
        if (readUuid(all.getColumn(0), id))
            filter.add(id);
    }
    m_aliasFilter = std::move(filter);
    m_dataVersion = version;
}

void DocumentStore::refreshAliasTracking()
{
    // Another connection committed: its aliases are not in the filter. Rebuilding would rescan
    // every alias, and a busy server could make that happen at every chunk, so every lookup is
    // made again instead.
    if (m_aliasFilter && dataVersion(m_db) != m_dataVersion)
        m_aliasFilter.reset();
}

void DocumentStore::stopTrackingAliases()
{
    m_aliasFilter.reset();
}

bool DocumentStore::mayHaveAlias(const Uuid &referentialId) const
{
    return !m_aliasFilter || m_aliasFilter->mayContain(referentialId);
}

void DocumentStore::setReferences(std::int64_t docKey, const std::set<std::int64_t> &aliasKeys, bool replace)
{
    if (replace) {
        SQLite::Statement &clear = statement("DELETE FROM refs WHERE from_doc = ?");
        clear.bind(1, docKey);
        clear.exec();
    }
    // One row a statement: a statement writing several rows that can fail (a foreign key) needs a
    // statement journal, which copied every page it touched (measured: 206,000 instructions a document).
    for (std::int64_t aliasKey : aliasKeys) {
        SQLite::Statement &s = statement("INSERT INTO refs (from_doc, to_alias) VALUES (?, ?)");
        s.bind(1, docKey);
        s.bind(2, aliasKey);
        s.exec();
    }
}

std::int64_t DocumentStore::countReferencing(std::int64_t docKey)
{
    SQLite::Statement &s = statement("SELECT count(DISTINCT r.from_doc) FROM aliases a JOIN refs r ON r.to_alias = "
                                     "a.alias_key WHERE a.doc_key = ? AND r.from_doc <> a.doc_key");
    s.bind(1, docKey);
    s.executeStep();
    const std::int64_t n = s.getColumn(0).getInt64();
    s.reset();
    return n;
}

std::vector<ReferencingDocument> DocumentStore::referencing(std::int64_t docKey, int limit)
{
    SQLite::Statement &s = statement(
        "SELECT d.resource, d.id, steward_text(d.identity) FROM documents d WHERE d.doc_key IN (SELECT r.from_doc FROM aliases a "
        "JOIN refs r ON r.to_alias = a.alias_key WHERE a.doc_key = ? AND r.from_doc <> a.doc_key) "
        "ORDER BY d.resource, d.doc_key LIMIT ?");
    s.bind(1, docKey);
    s.bind(2, limit);
    std::vector<ReferencingDocument> out;
    while (s.executeStep())
        out.push_back({s.getColumn(0).getString(), s.getColumn(1).getString(), s.getColumn(2).getString()});
    s.reset();
    return out;
}

std::vector<std::string> DocumentStore::referencingResourceTypes(std::int64_t docKey)
{
    SQLite::Statement &s = statement("SELECT DISTINCT d.resource FROM aliases a JOIN refs r ON r.to_alias = "
                                     "a.alias_key JOIN documents d ON d.doc_key = r.from_doc WHERE a.doc_key = ? "
                                     "AND r.from_doc <> a.doc_key ORDER BY d.resource");
    s.bind(1, docKey);
    std::vector<std::string> out;
    while (s.executeStep())
        out.push_back(s.getColumn(0).getString());
    s.reset();
    return out;
}

std::vector<std::int64_t> DocumentStore::referencingDocKeys(std::int64_t docKey)
{
    SQLite::Statement &s = statement("SELECT DISTINCT r.from_doc FROM aliases a JOIN refs r ON r.to_alias = "
                                     "a.alias_key WHERE a.doc_key = ? AND r.from_doc <> a.doc_key ORDER BY r.from_doc");
    s.bind(1, docKey);
    std::vector<std::int64_t> out;
    while (s.executeStep())
        out.push_back(s.getColumn(0).getInt64());
    s.reset();
    return out;
}

// The entry of an insert or update holds no id, body or etag and (when it is the document's
// last_modified) no time: they are the document's until its next write or its delete, which copies
// them in (copyBodyIntoCurrentChange). 53 bytes a document at 107,395 documents. A delete's entry
// has its id, and no body or etag.
std::int64_t DocumentStore::appendChange(const std::string &op, const StoredDocument &d,
                                         const std::optional<Uuid> &previousReferentialId, const std::string &actor,
                                         const std::string &at)
{
    // Read before the document's row changes: the identity a key change leaves behind.
    std::string previousIdentity;
    if (op == "key-change") {
        SQLite::Statement &stored = statement("SELECT steward_text(identity) FROM documents WHERE doc_key = ?");
        stored.bind(1, d.docKey);
        if (stored.executeStep())
            previousIdentity = stored.getColumn(0).getString();
        stored.reset();
    }
    SQLite::Statement &s = statement(
        "INSERT INTO change_rows (op, resource_key, id, referential_id, previous_referential_id, identity, body, "
        "etag, at, origin_key, previous_identity) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)");
    // Every text outlives exec(): no copies.
    s.bindNoCopy(1, op);
    s.bind(2, resourceKey(d.project, d.resource));
    if (op == "delete")
        bindStoredId(s, 3, d.id);
    else
        s.bind(3);
    // An insert's or update's identity and referential id are its document's (16 bytes a document
    // at 1M documents is 17 MB for the id alone); deletes and key changes record theirs.
    const bool recordsIdentity = op == "delete" || op == "key-change";
    if (recordsIdentity)
        bindUuid(s, 4, d.referentialId);
    else
        s.bind(4, "", 0);
    if (previousReferentialId)
        bindUuid(s, 5, *previousReferentialId);
    else
        s.bind(5);
    // Inserts and updates leave it empty: kChangeIdentity finds it from the entries after them.
    if (recordsIdentity)
        s.bindNoCopy(6, d.identity);
    else
        s.bind(6, std::string());
    s.bind(7);
    if (op != "delete" && at == d.lastModified)
        s.bind(8, std::string());
    else
        s.bindNoCopy(8, at);
    s.bind(9, originKey(actor, m_changeSource));
    if (op == "key-change")
        s.bindNoCopy(10, previousIdentity);
    s.exec();
    return m_db.getLastInsertRowid();
}

void DocumentStore::registerResources(const Model &model)
{
    auto loadKeys = [this] {
        m_resourceKeys.clear();
        SQLite::Statement all(m_db, "SELECT resource_key, project, resource FROM resources");
        while (all.executeStep())
            m_resourceKeys[all.getColumn(1).getString()][all.getColumn(2).getString()] = all.getColumn(0).getInt64();
    };
    loadKeys();
    std::set<std::pair<std::string, std::string>> missing;
    auto need = [&](const std::string &project, const std::string &resource) {
        if (!project.empty() && knownKey(m_resourceKeys, project, resource) == nullptr)
            missing.emplace(project, resource);
    };
    for (const ResourceSchema *resource : model.resources()) {
        need(resource->projectName(), resource->resourceName);
        need(resource->superclassProjectName, resource->superclassResourceName);
    }
    if (missing.empty() || sqlite3_db_readonly(m_db.getHandle(), "main") == 1)
        return;
    try {
        ImmediateTransaction transaction(m_db);
        for (const auto &[project, resource] : missing)
            storedNamesKey(kAddResource, kFindResource, project, resource);
        transaction.commit();
    } catch (const SQLite::Exception &e) {
        // Another writer holds the database: writers look the missing keys up as they go.
        if (!isBusyOrReadOnly(e))
            throw;
    }
    loadKeys();
}

std::int64_t DocumentStore::resourceKey(const std::string &project, const std::string &resource)
{
    if (const std::int64_t *known = knownKey(m_resourceKeys, project, resource))
        return *known;
    return storedNamesKey(kAddResource, kFindResource, project, resource);
}

std::int64_t DocumentStore::originKey(const std::string &actor, const std::string &source)
{
    if (const std::int64_t *known = knownKey(m_originKeys, actor, source))
        return *known;
    const std::int64_t key = storedNamesKey(kAddOrigin, kFindOrigin, actor, source);
    m_originKeys[actor][source] = key;
    return key;
}

std::int64_t DocumentStore::storedNamesKey(const char *insertSql, const char *findSql, const std::string &first,
                                           const std::string &second)
{
    SQLite::Statement &add = statement(insertSql);
    add.bindNoCopy(1, first);
    add.bindNoCopy(2, second);
    add.exec();
    add.reset();
    SQLite::Statement &find = statement(findSql);
    find.bindNoCopy(1, first);
    find.bindNoCopy(2, second);
    find.executeStep();
    const std::int64_t key = find.getColumn(0).getInt64();
    find.reset();
    return key;
}

DocumentStore::QuerySql DocumentStore::pageSql(const CollectionQuery &query, bool fetchOneMore)
{
    QuerySql sql = querySql(query);
    std::string &text = sql.page;
    text = std::string("SELECT ") + kListedColumns + sql.from + sql.where;
    if (query.afterDocKey > 0) {
        text += " AND " + sql.orderColumn + " > ?";
        sql.bindings.push_back(query.afterDocKey);
    }
    text += " ORDER BY " + sql.orderColumn + " LIMIT ? OFFSET ?";
    sql.bindings.push_back(query.limit + (fetchOneMore ? 1 : 0));
    sql.bindings.push_back(query.offset);
    return sql;
}

std::string DocumentStore::queryPlan(const CollectionQuery &query)
{
    const QuerySql sql = pageSql(query, false);
    SQLite::Statement s(m_db, "EXPLAIN QUERY PLAN " + sql.page);
    bindAll(s, sql.bindings);
    std::string plan;
    while (s.executeStep())
        plan += s.getColumn(3).getString() + "\n";
    return plan;
}

std::vector<StoredDocument> DocumentStore::query(const CollectionQuery &query, bool fetchOneMore)
{
    const QuerySql sql = pageSql(query, fetchOneMore);
    SQLite::Statement s(m_db, sql.page);
    bindAll(s, sql.bindings);
    std::vector<StoredDocument> out;
    while (s.executeStep())
        out.push_back(readDocument(s));
    return out;
}

std::int64_t DocumentStore::count(const CollectionQuery &query)
{
    const QuerySql sql = querySql(query);
    SQLite::Statement s(m_db, "SELECT count(*)" + sql.countFrom + sql.where);
    bindAll(s, sql.bindings);
    s.executeStep();
    return s.getColumn(0).getInt64();
}

std::int64_t DocumentStore::newestChangeVersion()
{
    SQLite::Statement &s = statement("SELECT coalesce(max(seq), 0) FROM changes");
    s.executeStep();
    const std::int64_t newest = s.getColumn(0).getInt64();
    s.reset();
    return newest;
}

std::string DocumentStore::trackedChangesWhere(TrackedChangeKind kind, const CollectionQuery &query,
                                               std::vector<Json> &bindings)
{
    // The literal op lets SQLite use the partial index of that kind of entry.
    std::string where = kind == TrackedChangeKind::Delete ? " WHERE c.op = 'delete'" : " WHERE c.op = 'key-change'";
    where += " AND c.project = ? AND c.resource = ? AND c.seq BETWEEN ? AND ?";
    bindings.push_back(query.project);
    bindings.push_back(query.resource);
    bindings.push_back(query.minChangeVersion);
    bindings.push_back(query.maxChangeVersion >= 0 ? query.maxChangeVersion : std::numeric_limits<std::int64_t>::max());
    return where;
}

std::vector<TrackedChange> DocumentStore::trackedChanges(TrackedChangeKind kind, const CollectionQuery &query)
{
    std::vector<Json> bindings;
    // A key change records the identity it left (a delete has none: its previous one is its own).
    std::string sql = "SELECT c.id, c.seq, c.identity, c.previous_identity FROM changes c"
                      + trackedChangesWhere(kind, query, bindings) + " ORDER BY c.seq LIMIT ? OFFSET ?";
    bindings.push_back(query.limit);
    bindings.push_back(query.offset);
    SQLite::Statement s(m_db, sql);
    bindAll(s, bindings);
    std::vector<TrackedChange> out;
    while (s.executeStep()) {
        TrackedChange change;
        change.id = s.getColumn(0).getString();
        change.changeVersion = s.getColumn(1).getInt64();
        change.identity = s.getColumn(2).getString();
        change.previousIdentity = s.getColumn(3).isNull() ? change.identity : s.getColumn(3).getString();
        out.push_back(std::move(change));
    }
    return out;
}

std::int64_t DocumentStore::countTrackedChanges(TrackedChangeKind kind, const CollectionQuery &query)
{
    std::vector<Json> bindings;
    SQLite::Statement s(m_db, "SELECT count(*) FROM changes c" + trackedChangesWhere(kind, query, bindings));
    bindAll(s, bindings);
    s.executeStep();
    return s.getColumn(0).getInt64();
}

} // namespace steward
