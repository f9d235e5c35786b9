#pragma once

#include "ApiSchema.h"
#include "Database.h"
#include "DocumentStore.h"
#include "Identity.h"
#include "PrivateFiles.h"
#include "Protocol.h"
#include "Validation.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace steward {

// Typed views for front ends (the desktop app); the protocol carriers use handle() alone.
struct ResourceCount
{
    std::string project;
    std::string resource;
    std::int64_t documents = 0;
    std::int64_t drafts = 0;
};

struct OutgoingReference
{
    std::string path;           // "$.schoolReference", "$.gradeLevels[0].gradeLevelDescriptor"
    std::string targetProject;  // as the model names it (may be abstract: EducationOrganization)
    std::string targetResource;
    bool isDescriptor = false;
    std::string naturalKey;     // "255901", or the descriptor URI
    std::string targetId;       // empty when nothing stored answers to it
    std::string storedResource; // the resource of the document found (School for an EducationOrganization)
};

struct Referrer
{
    std::string project;
    std::string resource;
    std::string id;
    Json identity;
    std::string naturalKey;
    std::vector<std::string> paths; // the referrer's fields that point at the document
};

struct ReferrerPage
{
    std::int64_t total = 0;
    std::vector<Referrer> items;
};

struct HistoryEntry
{
    std::int64_t seq = 0;
    std::string op;
    std::string at;
    std::string actor;
    std::string source;       // what made it ("import district.ndjson", "bulk fix"); empty when unknown
    std::optional<Json> body; // absent for a delete
};

// A document's state before and after a run of writes, read from the change log: absent before
// (created), absent after (deleted), or both (updated). Bodies are the stored text, byte for byte.
struct DocumentChange
{
    std::string id;
    std::string project;
    std::string resource;
    std::optional<std::string> before;
    std::optional<std::string> after;
    std::string afterEtag; // empty when deleted
};

struct Draft
{
    std::int64_t draftId = 0;
    std::string project;
    std::string resource;
    std::string targetId; // the stored document it would replace; empty for a new one
    std::string text;     // exactly what was typed, valid JSON or not
    Json problem;         // the problem details that stopped it (null when it would pass)
    std::string createdAt;
    std::string updatedAt;
    std::string actor;
};

// A reference or descriptor value of a body with its target's referential id worked out, so the
// writer only has to look it up.
struct PreparedReference
{
    std::string path;
    bool isDescriptor = false;
    std::string targetResource;
    std::string descriptorValue;      // the URI, for a descriptor
    std::optional<Uuid> referentialId; // nullopt for a partial reference
};

// Everything about a POST or PUT body that needs no database: schema and constraint validation,
// its identity, the ids its references resolve to, its stored text. Engine::preparePost touches no
// connection and no engine state, so the importer runs it on a second core while the writer applies
// the documents before.
struct PreparedBody
{
    const ResourceSchema *resource = nullptr;
    std::optional<Response> refusal; // set when the body can't be stored, whatever the database holds
    std::optional<DocumentIdentity> identity;
    std::optional<DocumentIdentity> superclass;
    Uuid referentialId;
    std::vector<PreparedReference> references;
    std::string bodyText;
    std::string identityText;
    std::string etag;
    std::optional<std::string> queryIndexText; // its words in the query index, when the store can tell off the writer
    std::string searchTerms;
    // Body and identity compressed with their resource's dictionary, when it has one (BodyCodec).
    std::optional<std::string> storedBody;
    std::optional<std::string> storedIdentity;
    std::uint32_t storedWith = 0;
    std::optional<std::string> naturalKey; // naturalKeyOfIdentityText(identityText), for the natural-key index
    std::string newId; // a POST's id if it creates the document (random; made here, it is not free either)
    // Only a new document will do (an undo putting a deleted document back): the identity or the id
    // being stored already is a 409 instead of an upsert.
    bool mustCreate = false;
};

struct RevalidateReport
{
    int promoted = 0;
    int remaining = 0;
    bool cancelled = false;
};

// One thing `check` found wrong: which document (when it is about one) and what.
struct IntegrityViolation
{
    std::string id; // the document's id; empty for a database-wide finding
    std::string resource;
    std::string problem;
};

struct IntegrityReport
{
    std::int64_t documents = 0; // checked
    std::vector<IntegrityViolation> violations;
    bool cancelled = false;
    // The database's files other accounts can read: reported, though not a fault of what is stored.
    std::vector<ExposedFile> readableByOthers;

    bool clean() const { return violations.empty() && !cancelled; }
    Json toJson() const;
};

// How much of SQLite's own checking Engine::check does: Routine runs quick_check (pages and records),
// Full integrity_check, which also proves every index holds exactly its table's rows (it looks up
// the row of every index entry).
enum class CheckDepth
{
    Routine,
    Full
};

// What Engine::check reads the stored documents with (EngineCheck.cpp).
struct StoredDocumentCheck;

struct BusyRetryPolicy
{
    int retries = 4;
    int firstDelayMs = 50;
    int maxDelayMs = 500;
};

// Answers protocol requests against one database with one model. Owns the writer connection's
// statements; every write is one BEGIN IMMEDIATE transaction with its validation reads inside it.
class Engine
{
public:
    Engine(const Model &model, Database &database);
    ~Engine();
    Engine(const Engine &) = delete;
    Engine &operator=(const Engine &) = delete;

    Response handle(const Request &request);
    // Runs every validation stage of a POST/PUT/DELETE inside a read transaction and answers what
    // handle() would, without writing anything (a 2xx status means it would be accepted).
    Response validate(const Request &request);
    // A POST in two halves: preparePost may run on any thread (it is const and reads only the model);
    // handlePrepared writes it and answers exactly what handle() answers for the same POST.
    PreparedBody preparePost(const ResourceSchema &resource, Json body) const;
    Response handlePrepared(const PreparedBody &prepared, const std::string &actor);

    std::vector<ResourceCount> resourceCounts();
    std::optional<StoredDocument> document(const std::string &id);
    std::vector<OutgoingReference> outgoingReferences(const std::string &id);
    ReferrerPage referrers(const std::string &id, int limit, int offset);
    std::vector<HistoryEntry> history(const std::string &id);
    // The change log's newest entry (0: none), and every document written after a given entry with
    // its state before and now, in the order they were first written; joins an open batch.
    std::int64_t newestChange();
    std::vector<DocumentChange> documentsChangedSince(std::int64_t seq);
    // Puts a deleted document back under its own id with the stored text it had (undo), through
    // every validation stage of a POST: its references must exist, its identity and id must be free.
    Response restoreDocument(const ResourceSchema &resource, const std::string &id, const std::string &bodyText,
                             const std::string &actor);

    // Drafts keep whatever was typed, with the problem that stopped it.
    std::int64_t saveDraft(const ResourceSchema &resource, const std::string &text, const std::string &targetId,
                           std::int64_t draftId = 0, const std::string &actor = {});
    std::vector<Draft> drafts(const std::string &project, const std::string &resource);
    // draft(), document() and deleteDraft() join an open batch instead of opening their own transaction.
    std::optional<Draft> draft(std::int64_t draftId);
    bool deleteDraft(std::int64_t draftId);
    // Replaces a draft's text and problem as they are (no validation here: the caller just tried the
    // text through handle()); joins an open batch. False when no such draft exists. updatedAt is
    // now unless given (an undo puts the draft's own time back).
    bool updateDraft(std::int64_t draftId, const std::string &text, const Json &problem,
                     const std::string &updatedAt = {});
    // Puts a removed draft back under its own id (a new id when that one was taken since), with its
    // text, problem, times and author; joins an open batch. Returns the id it got.
    std::int64_t restoreDraft(const Draft &draft);
    // The POST (new document) or PUT (targetId) that would store the body, as revalidateDrafts sends it.
    Request draftRequest(const ResourceSchema &resource, const std::string &targetId, const Json &body) const;
    // Tries every draft again; those that now pass are stored and leave the drafts. progress() may
    // return false to stop after the current draft.
    RevalidateReport revalidateDrafts(const std::function<bool(int done, int total)> &progress = {});

    // Stored documents of a resource (or of every subclass of an abstract one) whose natural key
    // starts with the prefix, for pickers and combo boxes.
    std::vector<StoredDocument> lookup(const std::string &project, const std::string &resource,
                                       const std::string &prefix, int limit);

    const Model &model() const { return m_model; }
    Database &database() { return m_database; }

    // The referrer's body with every reference to the document whose body was oldBody (directly, or
    // through its superclass identity) pointing at newBody's identity values instead; what an identity
    // update cascades, and what merge and identity changes (engine/quality/IdentityChange) write with PUTs.
    Json redirectReferences(const ResourceSchema &referrer, Json referrerBody, const ResourceSchema &resource,
                            const Json &oldBody, const Json &newBody) const;
    // The stored document with the identity the body carries (of this resource or another that shares
    // its referential id), if any; joins a batch's transaction.
    std::optional<StoredDocument> documentByIdentity(const ResourceSchema &resource, const Json &body);
    // The same for a body already prepared (its identity worked out once): none when it was refused.
    std::optional<StoredDocument> documentByIdentity(const PreparedBody &prepared);

    // PRAGMA quick_check (integrity_check when depth is Full) and foreign_key_check, then Steward's own
    // invariants for every document, in one scan of the documents beside scans of its other rows in
    // the same order: its referential id and aliases recompute from its body, its refs rows are exactly
    // what its body references (and all exist), its index entries are its values, and the change log's
    // last entry is its current state; a change log that says a document exists when it does not is
    // reported too. repairIndexes first rebuilds every index (REINDEX). progress() may return false to stop.
    IntegrityReport check(bool repairIndexes = false,
                          const std::function<bool(std::int64_t done, std::int64_t total)> &progress = {},
                          CheckDepth depth = CheckDepth::Routine);

    // Batch mode for imports: one BEGIN IMMEDIATE around many requests, each request in its own
    // savepoint so a refused one leaves nothing behind. Waits (with the busy retries) for the lock.
    void beginBatch();
    void commitBatch();
    // For a large import: remember which referential ids are stored (a filter built from the
    // aliases, kept current by this engine's writes, dropped once another connection commits), so
    // a POST of a new document skips looking itself up. Off again with stopTrackingReferentialIds.
    void trackReferentialIds(std::int64_t incoming);
    void stopTrackingReferentialIds();
    void rollbackBatch();
    bool inBatch() const { return m_inBatch; }
    // A request failed after it began writing; commitBatch() will roll the chunk back and throw.
    bool batchBroken() const { return m_batchBroken; }
    // Whether the last successful write changed anything (a POST of an identical document does not).
    bool lastWriteChanged() const { return m_lastWriteChangeSeq != 0; }
    // The change log entry the last request wrote (0: it changed nothing), so a caller that keeps
    // the version it stored (a sync base) need not read the document back.
    std::int64_t lastWriteChangeSeq() const { return m_lastWriteChangeSeq; }

    // Keeps text as a draft with a known problem, without validating again; inside a batch it joins
    // the batch's transaction. The same text for the same resource updates the existing draft.
    std::int64_t keepDraft(const std::string &project, const std::string &resource, const std::string &text,
                           const Json &problem, const std::string &actor);
    void setBusyRetryPolicy(const BusyRetryPolicy &policy) { m_retry = policy; }
    // What the writes that follow come from, recorded in the change log with each (History shows it);
    // returns the one it replaces. ChangeSourceScope sets it for a scope.
    std::string setChangeSource(const std::string &source);
    // Every collection query then reads its whole resource instead of its indexes: what the indexes
    // are tested against.
    void setAnswerQueriesByScan(bool scan);

    static constexpr int kReferencedByLimit = 100;

private:
    // What a request's path and query name: the resource, the id (empty for the collection), the
    // query's names lower-cased with their values decoded, and each name as given.
    struct Target
    {
        const ResourceSchema *resource = nullptr;
        std::string id;
        std::map<std::string, std::string> query;
        std::map<std::string, std::string> queryNames;
    };
    Response dispatch(const Request &request);
    Response getById(const Target &target, const Request &request);
    Response getCollection(const Target &target, const Request &request);
    // Narrows the query by index lookups when it pins the resource's whole identity (onlyDocKey) or
    // every value of one reference (referencingAlias); the filters still decide.
    void narrowByLookups(const ResourceSchema &resource, const Target &target, CollectionQuery &query);
    Response availableChangeVersions();
    Response changeFeed(const Target &target, TrackedChangeKind kind);
    Response post(const Target &target, const Request &request);
    // ifMatch: a POST's If-Match header, checked when the POST would update a stored document.
    Response postPrepared(const PreparedBody &prepared, const std::string &actor, const std::string &ifMatch = {});
    PreparedBody prepareBody(const ResourceSchema &resource, Json body) const;
    std::vector<PreparedReference> prepareReferences(const ResourceSchema &resource, const Json &body) const;
    Response guarded(const std::function<Response()> &work);
    // Inside a batch nobody else can write, so alias lookups are remembered until the batch ends or
    // this engine changes or removes an alias (PUT, DELETE, a rollback).
    std::optional<AliasKeys> lookupAlias(const Uuid &referentialId);
    Response put(const Target &target, const Request &request);
    Response remove(const Target &target, const Request &request);

    Response withWriteTransaction(const std::function<Response()> &work);
    Json draftProblem(const ResourceSchema &resource, const std::string &text, const std::string &targetId);

    struct Resolved
    {
        std::set<std::int64_t> aliasKeys;
    };
    // Stages 3 and 4: descriptors, then references; fills the alias keys the document points at.
    std::optional<Response> resolveReferences(const ResourceSchema &resource, const Json &body, Resolved &resolved);
    std::optional<Response> resolveReferences(const std::vector<PreparedReference> &references, Resolved &resolved);
    void writeAliases(const ResourceSchema &resource, const StoredDocument &document, const DocumentIdentity &own,
                      bool isNew);
    void writeAliases(const ResourceSchema &resource, const StoredDocument &document,
                      const std::optional<DocumentIdentity> &superclass, bool isNew);
    // Rewrites the documents that reference a document whose identity changed, through references of references.
    std::optional<Response> cascadeIdentityChange(const ResourceSchema &resource, const StoredDocument &before,
                                                  const StoredDocument &after, const std::string &actor,
                                                  const std::string &now, int depth);

    Json documentForClient(const StoredDocument &document) const;

    // check()'s per-document steps (EngineCheck.cpp); each reports what it finds into the report.
    void checkStoredDocument(StoredDocumentCheck &check, IntegrityReport &report);
    void checkIdentityAndAliases(const StoredDocumentCheck &check, IntegrityReport &report);
    void checkReferenceRows(StoredDocumentCheck &check, IntegrityReport &report);
    void checkIndexes(StoredDocumentCheck &check, IntegrityReport &report);
    // The query index word by word for the document at hand (a lookup per word).
    void checkQueryIndexWords(StoredDocumentCheck &check, IntegrityReport &report);
    // Compares the index's entries with the documents' words per field; the documents of a field that
    // differs are looked up word by word. Answers the index's entries per field.
    std::map<std::int64_t, std::int64_t> recheckQueryIndex(StoredDocumentCheck &check, IntegrityReport &report);
    // Query-index entries and find-anything rows that no document checked accounts for.
    void checkIndexLeftovers(const StoredDocumentCheck &check,
                             const std::map<std::int64_t, std::int64_t> &entriesPerField, IntegrityReport &report);

    const Model &m_model;
    Database &m_database;
    IdentityCalculator m_identity;
    const DocumentValidator &m_validator;
    DocumentStore m_store;
    BusyRetryPolicy m_retry;
    bool m_dryRun = false;
    bool m_answerQueriesByScan = false;
    bool m_inBatch = false;
    bool m_batchBroken = false; // a write threw inside a batch request that had no savepoint
    std::int64_t m_lastWriteChangeSeq = 0;
    std::unordered_map<Uuid, AliasKeys, UuidHash> m_aliasCache;
};

// Sets what an engine's writes come from for the scope's lifetime, then puts the previous one back.
class ChangeSourceScope
{
public:
    ChangeSourceScope(Engine &engine, const std::string &source);
    ~ChangeSourceScope();
    ChangeSourceScope(const ChangeSourceScope &) = delete;
    ChangeSourceScope &operator=(const ChangeSourceScope &) = delete;

private:
    Engine &m_engine;
    std::string m_previous;
};

// Documents and drafts per resource; takes any connection (a read-only one on a worker thread).
std::vector<ResourceCount> readResourceCounts(SQLite::Database &db);

// Who is acting, for the change log when no serve client is named: USER or LOGNAME, else the
// effective account's name from the password database (never a placeholder).
std::string currentOsUser();

// A document id as the engine stores it (a hyphenated UUID, lower case), from either spelling Ed-Fi
// APIs use: ODS/API's 32 hex digits or the hyphenated one; anything else comes back as it is.
std::string canonicalDocumentId(const std::string &id);

} // namespace steward
