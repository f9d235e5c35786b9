#pragma once

#include "Identity.h"
#include "Json.h"
#include "QueryValues.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace steward {

class BodyCodec;
struct IndexKeyMemo;
class Model;
struct ResourceSchema;

struct StoredDocument
{
    std::int64_t docKey = 0;
    std::string id;
    std::string project;
    std::string resource;
    Uuid referentialId;
    std::string identity; // JSON text of the natural key
    std::string body;     // JSON text as stored (no id, _etag, _lastModifiedDate)
    std::string etag;
    std::string createdAt;
    std::string lastModified;
    // The change-log entry this body was written with (0: none). That entry keeps no copy of the body
    // while it is the current one; the next write of the document gives it its copy.
    std::int64_t changeSeq = 0;
    // Set by writers that worked out the body's words in the query index already (off the writer thread).
    std::optional<std::string> queryIndexText;
    // The stored forms of body and identity when a writer compressed them already (off the writer
    // thread), with the dictionary it used (BodyCodec); the store makes them itself otherwise.
    std::optional<std::string> storedBody;
    std::optional<std::string> storedIdentity;
    std::uint32_t storedWith = 0;
    // The same for its search terms (engine/model/SearchTerms).
    std::optional<std::string> searchTerms;
    // And for its natural key, naturalKeyOfIdentityText(identity), which the natural-key index holds.
    std::optional<std::string> naturalKey;
};

struct AliasRow
{
    std::int64_t aliasKey = 0;
    std::int64_t docKey = 0;
    std::string project;
    std::string resource;
};

// What a writer needs of an alias: the key references point at and the document it belongs to.
struct AliasKeys
{
    std::int64_t aliasKey = 0;
    std::int64_t docKey = 0;
};

struct ReferencingDocument
{
    std::string resource;
    std::string id;
    std::string identity; // JSON text
};

// Binds a JSON scalar as SQLite compares it: booleans as 0 and 1, null and others as NULL.
void bindJson(SQLite::Statement &s, int index, const Json &value);

// A referential id stored as 16 bytes; false (out untouched) for anything else.
bool readUuid(const SQLite::Column &column, Uuid &out);

// The ETag of a stored body; and whether an etag was made from a body (by etagOf or an older way).
std::string etagOf(const std::string &body);
bool etagFitsBody(const std::string &etag, const std::string &body);

// The change log with every entry's body, etag and time. An entry holds no copy of them while it
// is its document's current one (DocumentStore::appendChange); they are then the document's. Read
// FROM kChangesWithBodies (the entry is c) and SELECT kChangeBody, kChangeEtag, kChangeAt.
extern const char *const kChangesWithBodies;
extern const char *const kChangeBody;
extern const char *const kChangeEtag;
extern const char *const kChangeAt;
// The identity a document had at entry c, read FROM kChangesWithBodies. Deletes and key changes
// record it; inserts and updates leave it empty (schema version 15), so it is the one recorded
// after them or the document's own.
extern const std::string kChangeIdentity;
// WHERE c is an entry of the document whose id is bound to ?1: those that keep its id, and its
// current entry, which leaves the id to the document's row (schema version 24).
extern const std::string kEntryOfDocument;

// A multiset of (document, word) entries of one query field, folded so that two are compared
// without keeping either: the count and the sum of a hash of each entry (any order gives the same).
struct QueryIndexFingerprint
{
    std::int64_t entries = 0;
    std::uint64_t hashSum = 0;

    void add(std::int64_t docKey, std::string_view word);
    bool operator==(const QueryIndexFingerprint &other) const
    {
        return entries == other.entries && hashSum == other.hashSum;
    }
};

// Who made a document write and when; the store records it in the change log with the write.
struct ChangeRecord
{
    std::string op; // insert, update, key-change (deletes are always "delete")
    std::optional<Uuid> previousReferentialId;
    std::string actor;
    std::string at;
};

struct CollectionQuery
{
    std::string project;
    std::string resource;
    std::int64_t afterDocKey = 0; // keyset paging
    std::int64_t limit = 25;
    std::int64_t offset = 0;
    // Equality filters: each entry is satisfied when any of its alternatives holds.
    struct Alternative
    {
        std::string jsonPath;      // SQLite json path, e.g. "$.schoolReference.schoolId"
        std::string arrayJsonPath; // non-empty when jsonPath is relative to each item of this array
        Json value;                // typed: number, string (compared case-insensitively) or boolean
    };
    struct Filter
    {
        std::string field; // the query field's name, lower-cased (ResourceSchema::queryFields)
        std::vector<Alternative> alternatives;
    };
    std::vector<Filter> filters;
    // Change Queries: documents whose last change has a sequence number in [min, max] (inclusive).
    std::int64_t minChangeVersion = 0;
    std::int64_t maxChangeVersion = -1; // none
    bool hasChangeWindow() const { return minChangeVersion > 0 || maxChangeVersion >= 0; }
    // The one row the query can match, when a lookup found it (0: none can).
    std::optional<std::int64_t> onlyDocKey;
    // Only documents that reference this alias (refs_by_target) can match.
    std::optional<std::int64_t> referencingAlias;
};

// The entries Change Queries list beside the documents: deletes and identity (key) changes.
enum class TrackedChangeKind { Delete, KeyChange };

struct TrackedChange
{
    std::string id;
    std::int64_t changeVersion = 0;
    std::string identity;         // JSON text: the deleted document's, or the new one of a key change
    std::string previousIdentity; // a key change's identity before it
};

// One word a document has in the query index: a value one of its resource's registered query fields
// gives, as queryIndexToken writes it.
struct QueryIndexWord
{
    std::int64_t fieldKey = 0;
    std::string fieldName; // as registered: lower case
    Json value;
    std::string word;
};

// Referential ids that may have an alias: a Bloom filter (no false "absent"), so that a large
// import can skip looking up documents it is about to create. About 0.3% false "maybe".
class AliasFilter
{
public:
    explicit AliasFilter(std::int64_t expected);
    void add(const Uuid &referentialId);
    bool mayContain(const Uuid &referentialId) const;

private:
    std::vector<std::uint64_t> m_bits;
    std::uint64_t m_mask = 0;
};

// Keys of name pairs kept in memory (a resource's project and name; a change's actor and source).
using NamesKeys = std::map<std::string, std::map<std::string, std::int64_t>>;

// The SQL of the document store. Callers hold the transaction; statements are prepared once.
class DocumentStore
{
public:
    // Without a codec, text is stored as it is (a reader needs none: see BodyCodec).
    explicit DocumentStore(SQLite::Database &db, BodyCodec *codec = nullptr, IndexKeyMemo *indexKeyMemo = nullptr);
    ~DocumentStore();

    std::optional<StoredDocument> findById(const std::string &id);
    std::optional<StoredDocument> findByKey(std::int64_t docKey);
    std::optional<StoredDocument> findByReferentialId(const Uuid &referentialId);
    std::optional<AliasRow> findAlias(const Uuid &referentialId);
    std::optional<AliasKeys> findAliasKeys(const Uuid &referentialId);
    std::vector<std::pair<std::int64_t, Uuid>> aliasesOf(std::int64_t docKey);

    // Each document write appends its change-log entry in the same call, so the two cannot disagree.
    void insertDocument(StoredDocument &document, const ChangeRecord &change); // sets docKey, changeSeq
    void updateDocument(StoredDocument &document, const ChangeRecord &change); // sets changeSeq
    // Returns the change log entry of the delete.
    std::int64_t deleteDocument(const StoredDocument &document, const std::string &actor, const std::string &at);
    void insertAlias(std::int64_t docKey, const Uuid &referentialId, const std::string &project,
                     const std::string &resource);
    void updateAlias(std::int64_t aliasKey, const Uuid &referentialId);
    void setReferences(std::int64_t docKey, const std::set<std::int64_t> &aliasKeys, bool replace);

    std::int64_t countReferencing(std::int64_t docKey);
    std::vector<ReferencingDocument> referencing(std::int64_t docKey, int limit);
    std::vector<std::string> referencingResourceTypes(std::int64_t docKey);
    std::vector<std::int64_t> referencingDocKeys(std::int64_t docKey);

    // While tracked, every alias stored is in a filter built from the aliases table, and
    // mayHaveAlias() answers false only for a referential id no alias has. Tracking assumes this
    // store is the connection's only writer of aliases (an import's engine); another connection's
    // commit is noticed by refreshAliasTracking() (PRAGMA data_version), which must run inside
    // each write transaction, and ends the tracking.
    void trackAliases(std::int64_t incoming);
    void refreshAliasTracking();
    void stopTrackingAliases();
    bool mayHaveAlias(const Uuid &referentialId) const;

    // The query index (query_index): the words of every registered query field's values per
    // document (queryIndexToken), kept by the writes above, so that collection queries look their
    // documents up instead of scanning the resource. Registers the model's query fields and, when that
    // changes the registry, makes the index again from the documents, in a write transaction of its
    // own (call it outside one). When the connection cannot write or the database stays locked, only
    // the fields registered already are used; queries scan for the rest.
    void useQueryIndex(const Model &model);
    // Rows name their resource by a key into resources. Registers every resource of the model (and
    // the superclasses their aliases name) in a write transaction of its own (call it outside one),
    // so that writers find the keys in memory; without the lock it leaves them to resourceKey().
    void registerResources(const Model &model);
    // The key of a resource's name, added to resources (in the caller's transaction) when new.
    std::int64_t resourceKey(const std::string &project, const std::string &resource);
    // Off: every query scans (the reference the index is tested against).
    void setQueryIndexUse(bool use) { m_useQueryIndex = use; }
    // What the writes that follow come from ("import district.ndjson", "pull https://...", "bulk fix"),
    // recorded with each change-log entry beside its actor; empty: none recorded.
    void setChangeSource(std::string source) { m_changeSource = std::move(source); }
    // A transaction or savepoint began or was rolled back: a dictionary or change-origin row written
    // before may be gone.
    void forgetTransactionRows()
    {
        m_dictionariesStored.clear();
        m_originKeys.clear();
    }
    const std::string &changeSource() const { return m_changeSource; }
    // A query field's key in the index (0: not indexed), by its position in the resource's fields.
    std::int64_t queryFieldKey(const ResourceSchema &resource, std::size_t position) const;
    // The words a body of the resource has in the query index, from the registry's fields and paths
    // (whichever model registered them).
    std::vector<QueryIndexWord> queryIndexWords(const std::string &project, const std::string &resource,
                                                const Json &body) const;
    // A document's words in the query index from the values its model gives (queryValuesOf), when
    // the registry holds exactly the model's fields for the resource; otherwise nullopt (the writer
    // then works them out from the body). Reads only what the constructor set: any thread.
    std::optional<std::string> queryIndexTextOf(const ResourceSchema &resource, const std::vector<QueryValue> &values) const;
    // Whether the index gives the document every one of these words.
    bool queryIndexHolds(std::int64_t docKey, const std::vector<std::string> &words);
    // Per field key, the fingerprint of every (document, word) entry the index holds: one ordered
    // scan of the index, which check compares with the same fingerprint of the documents' words.
    std::map<std::int64_t, QueryIndexFingerprint> queryIndexFingerprints();
    // Empties the query index and fills it in again from the documents (check's repair).
    void rebuildQueryIndex();
    // Empties the find-anything index and fills it in again from the documents (check's repair).
    void rebuildSearchIndex();

    // A page of documents; their referentialId is left empty (findById and the like read it).
    std::vector<StoredDocument> query(const CollectionQuery &query, bool fetchOneMore);
    std::int64_t count(const CollectionQuery &query);
    // How SQLite reads a page of the query (EXPLAIN QUERY PLAN, a step a line): lets a check see that
    // a page does not read more than its window.
    std::string queryPlan(const CollectionQuery &query);
    // The change log's newest sequence number (0 when empty): Change Queries' newest change version.
    std::int64_t newestChangeVersion();
    // Deletes or key changes of the query's resource in its change window, oldest first, paged by
    // its limit and offset (its filters do not apply).
    std::vector<TrackedChange> trackedChanges(TrackedChangeKind kind, const CollectionQuery &query);
    std::int64_t countTrackedChanges(TrackedChangeKind kind, const CollectionQuery &query);

private:
    SQLite::Statement &statement(const char *sql);
    // The key of who and what made a change, added to change_origins (in the caller's transaction) when new.
    std::int64_t originKey(const std::string &actor, const std::string &source);
    // A pair of names' key in a table of names (resources, change_origins): inserted in the caller's
    // transaction when new, then read back.
    std::int64_t storedNamesKey(const char *insertSql, const char *findSql, const std::string &first,
                                const std::string &second);
    std::int64_t appendChange(const std::string &op, const StoredDocument &document,
                              const std::optional<Uuid> &previousReferentialId, const std::string &actor,
                              const std::string &at);
    // nextBody: the text the document is about to be written with, which the entry's copy is kept
    // against (a delta, BodyCodec); null for a delete, whose last version is kept whole.
    void copyBodyIntoCurrentChange(std::int64_t docKey, const std::string *nextBody);
    // A collection query as SQL: what it reads, its conditions and their values.
    struct QuerySql
    {
        std::string from;
        std::string where;
        std::string orderColumn; // the document key its rows come ordered by
        std::string countFrom;   // what a count reads (without the documents when it need not)
        std::vector<Json> bindings;
        std::string page; // pageSql: the whole SELECT of a page
    };
    QuerySql querySql(const CollectionQuery &query);
    QuerySql pageSql(const CollectionQuery &query, bool fetchOneMore);
    std::int64_t fieldKeyOf(const std::string &project, const std::string &resource, const std::string &field) const;
    // Adds or re-paths the resource's query fields in the registry; true when anything changed.
    bool registerQueryFields(const ResourceSchema &resource);
    // Reads the registry into m_indexedFields, and the model's keys and fast path from it.
    void loadQueryFields();
    struct IndexedField
    {
        std::int64_t key = 0;
        std::string name;
        std::vector<JsonPath> paths;
    };
    const std::vector<IndexedField> *indexedFieldsOf(const std::string &project, const std::string &resource) const;
    // A document's words as the index's text (sorted, each once, space-separated).
    std::string queryIndexText(const std::string &project, const std::string &resource, const Json &body) const;
    // The same from the values its writer worked out when they serve, otherwise from its body.
    std::string queryIndexTextOfDocument(const StoredDocument &d) const;
    // Replaces a document's words (empty text: none).
    void writeQueryIndex(std::int64_t docKey, const std::string &before, const std::string &after);
    void fillQueryIndex();
    void indexInserted(const StoredDocument &d);
    void indexReplaced(const StoredDocument &d); // before the row is updated
    void indexRemoved(const StoredDocument &d);
    // The find-anything index (search_index): before/after null for an insert/delete.
    void writeSearchTerms(std::int64_t docKey, const std::string *before, const std::string *after);
    // Binds a document's text in its stored form: compressed once its resource has a dictionary
    // (sampled and trained here when it has none); `sample` for the body, whose text trains it.
    // `bound` (when given) receives the bytes bound.
    void bindStoredText(SQLite::Statement &s, int index, const StoredDocument &d, const std::string &text,
                        const std::optional<std::string> &prepared, bool sample, std::string *bound = nullptr);
    // The identity, and its natural key for the index expression when a writer worked it out (IndexKeyMemo).
    void bindStoredIdentity(SQLite::Statement &s, int index, const StoredDocument &d);
    std::string trackedChangesWhere(TrackedChangeKind kind, const CollectionQuery &query, std::vector<Json> &bindings);

    SQLite::Database &m_db;
    BodyCodec *m_codec = nullptr;
    IndexKeyMemo *m_indexKeyMemo = nullptr;
    std::set<std::uint32_t> m_dictionariesStored; // rows known to be there in this transaction
    // Committed rows of resources only (rows are never deleted): a key added by a transaction
    // that may still roll back is looked up again each time.
    NamesKeys m_resourceKeys;
    // change_origins rows known to be there in this transaction, by actor and source ('' for none).
    NamesKeys m_originKeys;
    std::unordered_map<const char *, std::unique_ptr<SQLite::Statement>> m_statements;
    std::optional<AliasFilter> m_aliasFilter;
    std::int64_t m_dataVersion = 0; // of the filter's build: another connection committing changes it
    const Model *m_model = nullptr;
    // Per resource of the model: each query field's key, by position (0: not indexed).
    std::unordered_map<const ResourceSchema *, std::vector<std::int64_t>> m_fieldKeys;
    // Every registered field by (project, resource), whichever model registered it.
    std::map<std::pair<std::string, std::string>, std::vector<IndexedField>> m_indexedFields;
    // Resources whose registered fields are exactly the model's: their writers' values give the words.
    std::unordered_set<const ResourceSchema *> m_wordsFromModel;
    bool m_useQueryIndex = true;
    std::string m_changeSource;
};

} // namespace steward
