// Engine::check: proves that what is stored still keeps every promise the write path makes.
#include "Engine.h"
#include "SearchTerms.h"

#include <SQLiteCpp/Statement.h>

#include <iterator>
#include <map>

namespace steward {

namespace {

std::string hex(const Uuid &uuid)
{
    return uuid.toString();
}

void databaseWide(IntegrityReport &report, const std::string &problem)
{
    report.violations.push_back({{}, {}, problem});
}

void runSqliteCheck(SQLite::Database &db, IntegrityReport &report, const char *pragma)
{
    SQLite::Statement rows(db, std::string("PRAGMA ") + pragma);
    while (rows.executeStep())
        if (rows.getColumn(0).getString() != "ok")
            databaseWide(report, std::string("SQLite ") + pragma + ": " + rows.getColumn(0).getString());
}

// SQLite's own checks: pages and records (quick_check), with CheckDepth::Full also that every index
// holds exactly its table's rows (integrity_check, which reads every index entry's row); foreign keys.
void checkSqliteIntegrity(SQLite::Database &db, IntegrityReport &report, CheckDepth depth)
{
    if (depth == CheckDepth::Full) {
        try {
            runSqliteCheck(db, report, "integrity_check");
        } catch (const SQLite::Exception &e) {
            // The natural-key index is worked out from stored text; text that cannot be read stops
            // integrity_check there. quick_check reads no index expression (the documents that
            // cannot be read are named below).
            databaseWide(report, std::string("SQLite integrity_check could not finish: ") + e.what() +
                                     "; quick_check ran instead");
            runSqliteCheck(db, report, "quick_check");
        }
    } else {
        runSqliteCheck(db, report, "quick_check");
    }
    SQLite::Statement foreignKeys(db, "PRAGMA foreign_key_check");
    while (foreignKeys.executeStep())
        databaseWide(report, "row " + foreignKeys.getColumn(1).getString() + " of " +
                                 foreignKeys.getColumn(0).getString() + " points at a missing row of " +
                                 foreignKeys.getColumn(2).getString());
}

// Aliases and references that belong to nothing.
void checkAliasesAndReferences(SQLite::Database &db, IntegrityReport &report)
{
    SQLite::Statement orphanAliases(db, "SELECT count(*) FROM aliases a WHERE NOT EXISTS "
                                        "(SELECT 1 FROM documents d WHERE d.doc_key = a.doc_key)");
    if (orphanAliases.executeStep() && orphanAliases.getColumn(0).getInt64() > 0)
        databaseWide(report, std::to_string(orphanAliases.getColumn(0).getInt64()) +
                                 " aliases belong to no document");
    SQLite::Statement danglingRefs(db, "SELECT count(*) FROM refs r WHERE NOT EXISTS "
                                       "(SELECT 1 FROM aliases a WHERE a.alias_key = r.to_alias)");
    if (danglingRefs.executeStep() && danglingRefs.getColumn(0).getInt64() > 0)
        databaseWide(report, std::to_string(danglingRefs.getColumn(0).getInt64()) +
                                 " references point at no document (dangling)");
}

// The change log against the documents: what it says exists is here, and each entry keeps what it was written
// with.
void checkChangeLog(SQLite::Database &db, IntegrityReport &report)
{
    // The change log says these exist (their last entry is not a delete), yet they are gone.
    SQLite::Statement vanished(db, "SELECT c.id, c.resource FROM changes c "
                                   "WHERE c.seq = (SELECT max(seq) FROM change_rows WHERE id = c.id_key) "
                                   "AND c.op <> 'delete' "
                                   "AND NOT EXISTS (SELECT 1 FROM document_rows d WHERE d.id = c.id_key)");
    while (vanished.executeStep())
        report.violations.push_back({vanished.getColumn(0).getString(), vanished.getColumn(1).getString(),
                                     "the change log says it exists, but the document is missing"});
    // A current entry leaves its id to the document that points at it (schema version 24).
    SQLite::Statement unpointed(db,
                                "SELECT c.seq, r.resource FROM change_rows c JOIN resources r "
                                "ON r.resource_key = c.resource_key WHERE c.id IS NULL "
                                "AND NOT EXISTS (SELECT 1 FROM document_rows d WHERE d.change_seq = c.seq)");
    while (unpointed.executeStep())
        report.violations.push_back({"", unpointed.getColumn(1).getString(),
                                     "change-log entry " + unpointed.getColumn(0).getString() +
                                         " is a document's current state, but no document points at it: "
                                         "the document is missing"});
    // An entry without a body, etag or time stands for its document's current state; any other
    // has lost what it was written with.
    SQLite::Statement bodiless(
        db, std::string("SELECT c.id, c.resource, c.seq, c.body IS NULL FROM ") + kChangesWithBodies +
                " WHERE (c.body IS NULL OR c.etag IS NULL OR c.at = '') AND c.op <> 'delete' "
                "AND d.body IS NULL");
    while (bodiless.executeStep())
        report.violations.push_back(
            {bodiless.getColumn(0).getString(), bodiless.getColumn(1).getString(),
             "its change-log entry " + bodiless.getColumn(2).getString() + " has lost the " +
                 (bodiless.getColumn(3).getInt() ? "body" : "etag or time") + " it was written with"});
}

// A merge base read from `row` at `column` (the columns checkSyncBookkeeping selects): an entry of the change
// log for that document, or a text of its own that is JSON.
void checkMergeBase(IntegrityReport &report, const std::string &id, const std::string &what,
                    const SQLite::Statement &row, int column)
{
    const bool hasSeq = !row.getColumn(column).isNull();
    const bool hasText = !row.getColumn(column + 1).isNull();
    if (hasSeq && hasText)
        report.violations.push_back({id, {}, what + " has both a change-log entry and a text of its own"});
    else if (hasSeq && row.getColumn(column + 2).isNull())
        report.violations.push_back({id,
                                     {},
                                     what + " points at change-log entry " +
                                         row.getColumn(column).getString() + ", which is missing"});
    else if (hasSeq && row.getColumn(column + 2).getString() == "delete" &&
             row.getColumn(column + 5).getInt() != 0)
        report.violations.push_back({id,
                                     {},
                                     what + " points at change-log entry " +
                                         row.getColumn(column).getString() +
                                         ", a delete, yet the document is here"});
    else if (hasSeq && row.getColumn(column + 3).getInt() == 0)
        report.violations.push_back({id,
                                     {},
                                     what + " points at change-log entry " +
                                         row.getColumn(column).getString() + " of another document"});
    else if (hasText && row.getColumn(column + 4).getInt() == 0)
        report.violations.push_back({id, {}, what + " is not JSON"});
}

// Sync bookkeeping: every merge base (and every conflict's) is sound, and a conflict keeps the
// target's copy it is about.
void checkSyncBookkeeping(SQLite::Database &db, IntegrityReport &report)
{
    const std::string baseColumns =
        "base_seq, base_text, (SELECT c.op FROM changes c WHERE c.seq = s.base_seq), "
        "coalesce((SELECT c.id_key = steward_id_key(s.id) FROM changes c WHERE c.seq = s.base_seq), 0), "
        "coalesce(json_valid(base_text), 0), "
        "EXISTS (SELECT 1 FROM document_rows d WHERE d.id = steward_id_key(s.id))";
    SQLite::Statement bases(db,
                            "SELECT s.id, t.url, " + baseColumns +
                                " FROM sync_remote_ids s JOIN sync_targets t ON t.target_id = s.target_id "
                                "WHERE s.base_seq IS NOT NULL OR s.base_text IS NOT NULL");
    while (bases.executeStep())
        checkMergeBase(report, bases.getColumn(0).getString(),
                       "its merge base with " + bases.getColumn(1).getString(), bases, 2);
    SQLite::Statement conflicts(
        db, "SELECT s.id, t.url, " + baseColumns +
                ", s.kind, s.theirs_text IS NULL, coalesce(json_valid(s.theirs_text), 0), "
                "s.resolved_op IS NULL OR EXISTS (SELECT 1 FROM edit_operations o "
                "WHERE o.op_id = s.resolved_op AND o.kind = 'resolve-conflict') "
                "FROM sync_conflicts s JOIN sync_targets t ON t.target_id = s.target_id");
    while (conflicts.executeStep()) {
        const std::string id = conflicts.getColumn(0).getString();
        const std::string what = "its sync conflict with " + conflicts.getColumn(1).getString();
        checkMergeBase(report, id, what + ": the base", conflicts, 2);
        const std::string kind = conflicts.getColumn(8).getString();
        const bool theirsMissing = conflicts.getColumn(9).getInt() != 0;
        if (theirsMissing && kind != "deleted-there")
            report.violations.push_back({id, {}, what + " (" + kind + ") has lost the target's copy"});
        else if (!theirsMissing && conflicts.getColumn(10).getInt() == 0)
            report.violations.push_back({id, {}, what + ": the target's copy is not JSON"});
        if (conflicts.getColumn(11).getInt() == 0)
            report.violations.push_back(
                {id, {}, what + " was resolved by an operation the journal does not have"});
    }
}

} // namespace

Json IntegrityReport::toJson() const
{
    Json list = Json::array();
    for (const IntegrityViolation &v : violations)
        list.push_back(Json{{"id", v.id}, {"resource", v.resource}, {"problem", v.problem}});
    Json exposed = Json::array();
    for (const ExposedFile &file : readableByOthers)
        exposed.push_back(Json{{"path", file.path}, {"mode", modeText(file.mode)}});
    return Json{{"documents", documents}, {"clean", clean()},        {"cancelled", cancelled},
                {"violations", list},     {"readableByOthers", exposed}};
}

// Rows keyed by column 0 in ascending order, read alongside the documents (ordered by doc_key): the
// rows of one document are taken when the scan of documents reaches it, so nothing is asked per document.
class OrderedScan
{
public:
    OrderedScan(SQLite::Database &db, const std::string &sql)
        : m_rows(db, sql)
    {
        m_more = m_rows.executeStep();
    }
    // Calls take(row) for each row keyed `key`, passing over those before it (another check reports them).
    template<typename Take>
    void rowsOf(std::int64_t key, Take take)
    {
        while (m_more && m_rows.getColumn(0).getInt64() < key)
            m_more = m_rows.executeStep();
        while (m_more && m_rows.getColumn(0).getInt64() == key) {
            take(m_rows);
            m_more = m_rows.executeStep();
        }
    }

private:
    SQLite::Statement m_rows;
    bool m_more = false;
};

namespace {

// A query field of a resource of the loaded model, by its key in the index.
struct CheckedQueryField
{
    const ResourceSchema *resource = nullptr;
    std::string name; // "Resource.field"
};

// The query fields of resources this model has: their documents are checked (another model's are not).
std::map<std::int64_t, CheckedQueryField> queryFieldsOf(const Model &model, const DocumentStore &store)
{
    std::map<std::int64_t, CheckedQueryField> fields;
    for (const ResourceSchema *resource : model.resources()) {
        std::size_t position = 0;
        for (const auto &[name, field] : resource->queryFields)
            fields[store.queryFieldKey(*resource, position++)] = {resource, resource->resourceName + "." + field.name};
    }
    return fields;
}

std::string bytesOf(const SQLite::Column &column)
{
    return std::string(static_cast<const char *>(column.getBlob()), static_cast<std::size_t>(column.getBytes()));
}

} // namespace

// The statements check() reads the documents with, what it has counted so far, and the document at hand.
// The documents come in one scan with their texts and current change-log entry, their aliases, reference
// rows and find-anything row in scans of the same order; a document whose rows do not plainly agree
// with its body is looked at again with the statements of one document, which name what is wrong.
struct StoredDocumentCheck
{
    explicit StoredDocumentCheck(SQLite::Database &db);
    void violation(IntegrityReport &report, const std::string &problem) const
    {
        report.violations.push_back({id, resourceName, problem});
    }
    // Takes the scanned rows of the document the scan of documents is at.
    void takeScannedRows();

    SQLite::Statement rows;
    OrderedScan aliasScan;
    OrderedScan referenceScan;
    OrderedScan searchScan;
    // Stored text is read one document at a time when the scan could not, so that one that cannot be
    // read is reported, not fatal.
    SQLite::Statement texts;
    SQLite::Statement refs;
    SQLite::Statement searchRow;
    SQLite::Statement lastChange;
    // Every value a document gives a query field has its word in the query index; the words found are
    // counted per field, so that any other entry (one no document gives) shows too.
    std::map<std::int64_t, std::int64_t> indexRowsFound;
    // The documents' words per field, compared with the index's own entries after the scan.
    std::map<std::int64_t, QueryIndexFingerprint> wordsExpected;
    std::int64_t unreadable = 0; // documents whose words could not be counted: no index entry is then "extra"

    std::int64_t docKey = 0;
    std::string id;
    std::string resourceName;
    const ResourceSchema *resource = nullptr;
    std::string identityText;
    std::string bodyText;
    Json body;
    std::optional<DocumentIdentity> identity;
    // The document's rows as the scans found them: referential ids of its aliases and of what its
    // reference rows point at (a row pointing at no alias leaves danglingReference), its search terms.
    std::set<std::string> scannedAliases;
    std::set<std::string> scannedReferences;
    bool danglingReference = false;
    std::string scannedSearchTerms;
};

// Columns 0-8 are the document's; then its texts as steward_text_or_null reads them, then the change-log entry
// it points at and the newest entry that keeps its id.
StoredDocumentCheck::StoredDocumentCheck(SQLite::Database &db)
    : rows(db, "SELECT d.doc_key, d.id, d.project, d.resource, d.referential_id, d.identity, d.body, d.etag, "
               "d.change_seq, steward_text_or_null(d.identity), steward_text_or_null(d.body), c.seq, c.op, "
               "steward_hex_text(c.etag), c.body IS NULL, steward_text_or_null(c.body), "
               "(SELECT max(o.seq) FROM change_rows o WHERE o.id = d.id_key) "
               "FROM documents d LEFT JOIN change_rows c ON c.seq = d.change_seq ORDER BY d.doc_key"),
      aliasScan(db, "SELECT doc_key, referential_id FROM alias_rows ORDER BY doc_key"),
      referenceScan(db, "SELECT r.from_doc, a.referential_id FROM refs r "
                        "LEFT JOIN alias_rows a ON a.alias_key = r.to_alias ORDER BY r.from_doc"),
      searchScan(db, "SELECT rowid, terms FROM search_index ORDER BY rowid"),
      texts(db, "SELECT steward_text(?), steward_text(?)"),
      refs(db, "SELECT to_alias FROM refs WHERE from_doc = ?"),
      searchRow(db, "SELECT terms FROM search_index WHERE rowid = ?"),
      lastChange(db, std::string("SELECT c.op, steward_text(c.body), c.etag, c.seq FROM changes c WHERE ") +
                         kEntryOfDocument + " ORDER BY c.seq DESC LIMIT 1")
{
}

void StoredDocumentCheck::takeScannedRows()
{
    scannedAliases.clear();
    scannedReferences.clear();
    danglingReference = false;
    scannedSearchTerms.clear();
    aliasScan.rowsOf(docKey, [this](const SQLite::Statement &row) {
        Uuid referentialId;
        readUuid(row.getColumn(1), referentialId);
        scannedAliases.insert(hex(referentialId));
    });
    referenceScan.rowsOf(docKey, [this](const SQLite::Statement &row) {
        if (row.getColumn(1).isNull())
            danglingReference = true;
        else
            scannedReferences.insert(bytesOf(row.getColumn(1)));
    });
    searchScan.rowsOf(docKey,
                      [this](const SQLite::Statement &row) { scannedSearchTerms = row.getColumn(1).getString(); });
}

namespace {

// Reads the stored identity and body text of the document at hand; false (reported) when they cannot be read.
bool readStoredTexts(StoredDocumentCheck &check, IntegrityReport &report)
{
    if (!check.rows.getColumn(9).isNull() && !check.rows.getColumn(10).isNull()) {
        check.identityText = check.rows.getColumn(9).getString();
        check.bodyText = check.rows.getColumn(10).getString();
        return true;
    }
    try {
        check.texts.reset();
        for (int column : {5, 6}) {
            const SQLite::Column stored = check.rows.getColumn(column);
            if (stored.isBlob())
                check.texts.bind(column - 4, stored.getBlob(), stored.getBytes());
            else
                check.texts.bind(column - 4, stored.getString());
        }
        check.texts.executeStep();
        check.identityText = check.texts.getColumn(0).getString();
        check.bodyText = check.texts.getColumn(1).getString();
        return true;
    } catch (const SQLite::Exception &e) {
        check.violation(report, std::string("its stored text cannot be read: ") + e.what());
        ++check.unreadable;
        return false;
    }
}

// Whether the entry the document points at (read by the scan) is plainly its current state: it is its
// last entry (none that keeps its id is newer), not a delete, and has the document's etag and body.
bool pointsAtItsCurrentEntry(const StoredDocumentCheck &check)
{
    const SQLite::Statement &row = check.rows;
    const std::int64_t changeSeq = row.getColumn(8).getInt64();
    if (changeSeq == 0 || row.getColumn(11).isNull() || row.getColumn(12).getString() == "delete")
        return false;
    if (!row.getColumn(16).isNull() && row.getColumn(16).getInt64() > changeSeq)
        return false;
    if (!row.getColumn(13).isNull() && row.getColumn(13).getString() != row.getColumn(7).getString())
        return false;
    return row.getColumn(14).getInt() != 0 ||
           (!row.getColumn(15).isNull() && row.getColumn(15).getString() == check.bodyText);
}

// The change log's last entry for the document at hand is its current state.
void checkLastChange(StoredDocumentCheck &check, IntegrityReport &report)
{
    if (pointsAtItsCurrentEntry(check))
        return;
    SQLite::Statement &lastChange = check.lastChange;
    lastChange.reset();
    lastChange.bind(1, check.id);
    bool hasLastChange = false;
    try {
        hasLastChange = lastChange.executeStep();
    } catch (const SQLite::Exception &e) {
        check.violation(report, std::string("its last change-log entry cannot be read: ") + e.what());
        return;
    }
    const SQLite::Statement &document = check.rows;
    if (!hasLastChange)
        check.violation(report, "the change log has no entry for it");
    else if (lastChange.getColumn(0).getString() == "delete")
        check.violation(report, "the change log's last entry deletes it, but it is stored");
    // An etag left out is the document's (its current entry's); one written must be the document's.
    else if (lastChange.getColumn(2).isNull()
                 ? document.getColumn(8).getInt64() == 0
                 : lastChange.getColumn(2).getString() != document.getColumn(7).getString())
        check.violation(report, "the change log's last entry is not its current state");
    else if (const std::int64_t changeSeq = document.getColumn(8).getInt64();
             changeSeq != 0 && changeSeq != lastChange.getColumn(3).getInt64())
        check.violation(report, "it points at change-log entry " + std::to_string(changeSeq) +
                                    ", not at its last one");
    else if (lastChange.getColumn(1).isNull() ? changeSeq == 0
                                              : lastChange.getColumn(1).getString() != check.bodyText)
        check.violation(report, "the change log's last entry is not its current state");
}

} // namespace

void Engine::checkStoredDocument(StoredDocumentCheck &check, IntegrityReport &report)
{
    check.docKey = check.rows.getColumn(0).getInt64();
    check.id = check.rows.getColumn(1).getString();
    check.resourceName = check.rows.getColumn(3).getString();
    check.resource = m_model.findByName(check.rows.getColumn(2).getString(), check.resourceName);
    check.takeScannedRows();
    if (check.resource == nullptr) {
        check.violation(report, "its resource is not in the loaded model (" + m_model.describe() +
                                    "); open it with the schema it was made with");
        return;
    }
    if (!readStoredTexts(check, report))
        return;
    check.body = Json::parse(check.bodyText, nullptr, false);
    if (check.body.is_discarded() || !check.body.is_object()) {
        check.violation(report, "its stored body is not a JSON object");
        return;
    }
    check.identity = m_identity.documentIdentity(*check.resource, check.body);
    if (!check.identity) {
        check.violation(report, "its body lacks an identity value");
        return;
    }
    checkIdentityAndAliases(check, report);
    checkReferenceRows(check, report);
    checkIndexes(check, report);
    if (!etagFitsBody(check.rows.getColumn(7).getString(), check.bodyText))
        check.violation(report, "its body does not match its etag: it was changed outside Steward");
    checkLastChange(check, report);
}

void Engine::checkIdentityAndAliases(const StoredDocumentCheck &check, IntegrityReport &report)
{
    const DocumentIdentity &identity = *check.identity;
    Uuid storedId;
    readUuid(check.rows.getColumn(4), storedId);
    if (!(identity.referentialId() == storedId))
        check.violation(report, "its referential id " + hex(storedId) + " does not match its body (" +
                                    identity.referentialName() + " gives " + hex(identity.referentialId()) +
                                    ")");
    const Json identityObject = m_identity.identityObject(*check.resource, check.body);
    if (dumpJson(identityObject) != check.identityText)
        check.violation(report, "its stored identity " + check.identityText + " does not match its body");

    std::set<std::string> expectedAliases{hex(identity.referentialId())};
    if (std::optional<DocumentIdentity> super = m_identity.superclassIdentity(*check.resource, identity))
        expectedAliases.insert(hex(super->referentialId()));
    const std::set<std::string> &actualAliases = check.scannedAliases;
    if (actualAliases != expectedAliases)
        check.violation(report, "its aliases (" + std::to_string(actualAliases.size()) + ") are not the " +
                                    std::to_string(expectedAliases.size()) + " its identity needs");
}

void Engine::checkReferenceRows(StoredDocumentCheck &check, IntegrityReport &report)
{
    // The reference rows the scan found point at exactly the referential ids the body references: each
    // of them is then stored, and its alias is the one a lookup would find.
    if (!check.danglingReference) {
        std::set<std::string> referenced;
        bool complete = true;
        for (const PreparedReference &reference : prepareReferences(*check.resource, check.body)) {
            if (!reference.referentialId) {
                complete = false;
                break;
            }
            referenced.emplace(reference.referentialId->bytes.begin(), reference.referentialId->bytes.end());
        }
        if (complete && referenced == check.scannedReferences)
            return;
    }
    Resolved resolved;
    if (std::optional<Response> unresolved = resolveReferences(*check.resource, check.body, resolved)) {
        check.violation(report, "it references what is not stored: " +
                                    unresolved->body.value("detail", std::string()));
        return;
    }
    std::set<std::int64_t> stored;
    SQLite::Statement &refs = check.refs;
    refs.reset();
    refs.bind(1, check.docKey);
    while (refs.executeStep())
        stored.insert(refs.getColumn(0).getInt64());
    if (stored != resolved.aliasKeys)
        check.violation(report, "its reference rows (" + std::to_string(stored.size()) +
                                    ") differ from the " + std::to_string(resolved.aliasKeys.size()) +
                                    " its body makes");
}

void Engine::checkIndexes(StoredDocumentCheck &check, IntegrityReport &report)
{
    // The words are counted as found and folded into their field's fingerprint; a field whose
    // fingerprint the index does not match has its documents looked up word by word afterwards
    // (recheckQueryIndex).
    const ResourceSchema &resource = *check.resource;
    std::set<std::pair<std::int64_t, std::string>> distinct;
    for (QueryIndexWord &word : m_store.queryIndexWords(resource.projectName(), resource.resourceName, check.body)) {
        ++check.indexRowsFound[word.fieldKey];
        distinct.emplace(word.fieldKey, std::move(word.word));
    }
    for (const auto &[fieldKey, word] : distinct)
        check.wordsExpected[fieldKey].add(check.docKey, word);

    if (const std::string expected = searchTermsOf(check.body); check.scannedSearchTerms != expected)
        check.violation(report, "the find-anything index holds '" + check.scannedSearchTerms +
                                    "' for it, not its values '" + expected + "'");
}

void Engine::checkQueryIndexWords(StoredDocumentCheck &check, IntegrityReport &report)
{
    const ResourceSchema &resource = *check.resource;
    const std::vector<QueryIndexWord> words =
        m_store.queryIndexWords(resource.projectName(), resource.resourceName, check.body);
    std::vector<std::string> wordTexts;
    for (const QueryIndexWord &word : words)
        wordTexts.push_back(word.word);
    const bool allIndexed = m_store.queryIndexHolds(check.docKey, wordTexts);
    std::string unindexed;
    for (const QueryIndexWord &word : words) {
        if (allIndexed || m_store.queryIndexHolds(check.docKey, {word.word})) {
            ++check.indexRowsFound[word.fieldKey];
            continue;
        }
        auto field = resource.queryFields.find(word.fieldName);
        unindexed += (unindexed.empty() ? "" : ", ") +
                     (field != resource.queryFields.end() ? field->second.name : word.fieldName) + " " +
                     word.value.dump();
    }
    if (!unindexed.empty())
        check.violation(report, "the query index lacks its values of " + unindexed +
                                    ": queries by them would miss it");
}

std::map<std::int64_t, std::int64_t> Engine::recheckQueryIndex(StoredDocumentCheck &check, IntegrityReport &report)
{
    std::map<std::int64_t, std::int64_t> entries;
    std::set<const ResourceSchema *> mismatched;
    const std::map<std::int64_t, CheckedQueryField> fields = queryFieldsOf(m_model, m_store);
    std::map<std::int64_t, QueryIndexFingerprint> held = m_store.queryIndexFingerprints();
    for (const auto &[key, fingerprint] : held)
        entries[key] = fingerprint.entries;
    for (const auto &[key, field] : fields)
        if (key != 0 && !(held[key] == check.wordsExpected[key]))
            mismatched.insert(field.resource);
    for (const ResourceSchema *resource : mismatched) {
        // Counted again, word by word, as the index has them.
        for (std::size_t position = 0; position < resource->queryFields.size(); ++position)
            check.indexRowsFound.erase(m_store.queryFieldKey(*resource, position));
        SQLite::Statement documents(m_database.connection(),
                                    "SELECT doc_key, id, steward_text_or_null(body) FROM documents "
                                    "WHERE project = ? AND resource = ? ORDER BY doc_key");
        documents.bind(1, resource->projectName());
        documents.bind(2, resource->resourceName);
        while (documents.executeStep()) {
            if (documents.getColumn(2).isNull())
                continue; // named as unreadable already
            check.docKey = documents.getColumn(0).getInt64();
            check.id = documents.getColumn(1).getString();
            check.resourceName = resource->resourceName;
            check.resource = resource;
            check.body = Json::parse(documents.getColumn(2).getString(), nullptr, false);
            // Only a document the scan got as far as its indexes counts (checkStoredDocument).
            if (check.body.is_discarded() || !check.body.is_object() ||
                !m_identity.documentIdentity(*resource, check.body))
                continue;
            checkQueryIndexWords(check, report);
        }
    }
    return entries;
}

void Engine::checkIndexLeftovers(const StoredDocumentCheck &check,
                                 const std::map<std::int64_t, std::int64_t> &entriesPerField, IntegrityReport &report)
{
    if (check.unreadable == 0) {
        const std::map<std::int64_t, CheckedQueryField> fields = queryFieldsOf(m_model, m_store);
        for (const auto &[key, entries] : entriesPerField) {
            auto found = check.indexRowsFound.find(key);
            const std::int64_t extra = entries - (found != check.indexRowsFound.end() ? found->second : 0);
            auto field = fields.find(key);
            if (extra > 0 && key != 0 && field != fields.end())
                databaseWide(report, "the query index holds " + std::to_string(extra) + " values of " +
                                         field->second.name +
                                         " that no document has: queries by them would answer wrongly");
        }
    }
    SQLite::Statement orphanTerms(m_database.connection(),
                                  "SELECT count(*) FROM search_index s WHERE NOT EXISTS "
                                  "(SELECT 1 FROM documents d WHERE d.doc_key = s.rowid)");
    if (orphanTerms.executeStep() && orphanTerms.getColumn(0).getInt64() > 0)
        databaseWide(report, "the find-anything index holds " +
                                 std::to_string(orphanTerms.getColumn(0).getInt64()) +
                                 " entries of no document: finding would list them");
}

IntegrityReport Engine::check(bool repairIndexes,
                              const std::function<bool(std::int64_t, std::int64_t)> &progress, CheckDepth depth)
{
    IntegrityReport report;
    report.readableByOthers = exposedDatabaseFiles(m_database.path());
    SQLite::Database &db = m_database.connection();
    if (repairIndexes) {
        db.exec("REINDEX");
        ImmediateTransaction rebuild(db);
        m_store.rebuildQueryIndex();
        m_store.rebuildSearchIndex();
        rebuild.commit();
    }

    DeferredTransaction snapshot(db);
    checkSqliteIntegrity(db, report, depth);
    checkAliasesAndReferences(db, report);
    checkChangeLog(db, report);
    checkSyncBookkeeping(db, report);

    const std::int64_t total = db.execAndGet("SELECT count(*) FROM documents").getInt64();
    StoredDocumentCheck documents(db);
    while (documents.rows.executeStep()) {
        ++report.documents;
        if (progress && report.documents % 1000 == 0 && !progress(report.documents, total)) {
            report.cancelled = true;
            return report;
        }
        checkStoredDocument(documents, report);
    }
    const std::map<std::int64_t, std::int64_t> entriesPerField = recheckQueryIndex(documents, report);
    checkIndexLeftovers(documents, entriesPerField, report);
    if (progress)
        progress(report.documents, total);
    return report;
}

} // namespace steward
