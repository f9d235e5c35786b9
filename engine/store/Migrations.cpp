// Long on purpose: one table of data, the schema's whole history, a step per version, each step
// the SQL that takes a database from the version before to its own.
#include "Migrations.h"

namespace steward {

namespace {

// Version 1: documents, their aliases (own and superclass referential ids), references between them
// by integer keys, and the change log. Later versions append steps; none is ever edited.
const char *const kMigrations[] = {
    R"SQL(
CREATE TABLE documents (
    doc_key        INTEGER PRIMARY KEY,
    id             TEXT NOT NULL UNIQUE,
    project        TEXT NOT NULL,
    resource       TEXT NOT NULL,
    referential_id BLOB NOT NULL UNIQUE,
    identity       TEXT NOT NULL,
    body           TEXT NOT NULL,
    etag           TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    last_modified  TEXT NOT NULL
);
CREATE INDEX documents_by_resource ON documents(project, resource, doc_key);

CREATE TABLE aliases (
    alias_key      INTEGER PRIMARY KEY,
    referential_id BLOB NOT NULL UNIQUE,
    doc_key        INTEGER NOT NULL REFERENCES documents(doc_key) ON DELETE CASCADE,
    project        TEXT NOT NULL,
    resource       TEXT NOT NULL
);
CREATE INDEX aliases_by_document ON aliases(doc_key);

-- The engine refuses deletes of referenced documents itself; RESTRICT is the backstop.
CREATE TABLE refs (
    from_doc  INTEGER NOT NULL REFERENCES documents(doc_key) ON DELETE CASCADE,
    to_alias  INTEGER NOT NULL REFERENCES aliases(alias_key) ON DELETE RESTRICT,
    PRIMARY KEY (from_doc, to_alias)
) WITHOUT ROWID;
CREATE INDEX refs_by_target ON refs(to_alias, from_doc);

CREATE TABLE changes (
    seq                     INTEGER PRIMARY KEY AUTOINCREMENT,
    op                      TEXT NOT NULL CHECK (op IN ('insert', 'update', 'delete', 'key-change')),
    project                 TEXT NOT NULL,
    resource                TEXT NOT NULL,
    id                      TEXT NOT NULL,
    referential_id          BLOB NOT NULL,
    previous_referential_id BLOB,
    identity                TEXT NOT NULL,
    body                    TEXT,
    etag                    TEXT,
    at                      TEXT NOT NULL,
    actor                   TEXT NOT NULL
);
CREATE INDEX changes_by_document ON changes(id, seq);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
)SQL",
    // Version 2: a natural-key text per document for browsing (sorted, prefix-filtered by index),
    // and drafts: input kept as typed, with the problem that stopped it, so nothing is lost.
    R"SQL(
ALTER TABLE documents ADD COLUMN natural_key TEXT NOT NULL DEFAULT '' COLLATE NOCASE;
UPDATE documents SET natural_key = steward_natural_key(identity);
CREATE INDEX documents_by_natural_key ON documents(project, resource, natural_key);

CREATE TABLE drafts (
    draft_id   INTEGER PRIMARY KEY,
    project    TEXT NOT NULL,
    resource   TEXT NOT NULL,
    target_id  TEXT,
    body_text  TEXT NOT NULL,
    problem    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    actor      TEXT NOT NULL
);
CREATE INDEX drafts_by_resource ON drafts(project, resource, draft_id);
)SQL",
    // Version 3: exported batches, so a later export can take only what changed since one of them.
    R"SQL(
CREATE TABLE batches (
    batch_id   TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    seq_from   INTEGER NOT NULL,
    seq_to     INTEGER NOT NULL,
    out_dir    TEXT NOT NULL,
    manifest   TEXT NOT NULL
);
-- Re-importing the same invalid input updates its draft instead of adding another.
ALTER TABLE drafts ADD COLUMN text_hash TEXT;
CREATE INDEX drafts_by_text ON drafts(project, resource, text_hash);
)SQL",
    // Version 4: sync. Clients allowed to call `steward-cli serve` (secrets only as salted hashes);
    // the Ed-Fi APIs this database pulls from and pushes to, with the change-log position every
    // change up to which the target accepted; the target's id for each local document; and what a
    // push could not deliver, with the target's answer.
    R"SQL(
CREATE TABLE api_clients (
    name        TEXT PRIMARY KEY,
    salt        BLOB NOT NULL,
    secret_hash BLOB NOT NULL,
    iterations  INTEGER NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE sync_targets (
    target_id    INTEGER PRIMARY KEY,
    url          TEXT NOT NULL,
    client       TEXT NOT NULL,
    push_cursor  INTEGER NOT NULL DEFAULT 0,
    last_pull_at TEXT,
    last_push_at TEXT,
    UNIQUE (url, client)
);

CREATE TABLE sync_remote_ids (
    target_id INTEGER NOT NULL REFERENCES sync_targets(target_id) ON DELETE CASCADE,
    id        TEXT NOT NULL,
    remote_id TEXT NOT NULL,
    PRIMARY KEY (target_id, id)
) WITHOUT ROWID;

CREATE TABLE sync_failures (
    target_id INTEGER NOT NULL REFERENCES sync_targets(target_id) ON DELETE CASCADE,
    id        TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    project   TEXT NOT NULL,
    resource  TEXT NOT NULL,
    operation TEXT NOT NULL,
    status    INTEGER NOT NULL,
    problem   TEXT NOT NULL,
    at        TEXT NOT NULL,
    PRIMARY KEY (target_id, id)
) WITHOUT ROWID;
)SQL",
    // Version 5: data quality. Business-rule results, one row per failing document and rule, kept
    // so the app, readiness and the results grid read them without re-running the rules; each
    // pack remembers the change-log position it has checked up to, so a re-run takes only what
    // changed since.
    R"SQL(
CREATE TABLE rule_runs (
    pack_id     TEXT PRIMARY KEY,
    pack_hash   TEXT NOT NULL,
    seq_to      INTEGER NOT NULL,
    finished_at TEXT NOT NULL
);

CREATE TABLE rule_results (
    result_id   INTEGER PRIMARY KEY,
    pack_id     TEXT NOT NULL,
    rule_id     TEXT NOT NULL,
    severity    TEXT NOT NULL CHECK (severity IN ('fatal', 'warning', 'info')),
    project     TEXT NOT NULL,
    resource    TEXT NOT NULL,
    doc_id      TEXT NOT NULL,
    natural_key TEXT NOT NULL,
    message     TEXT NOT NULL,
    found_at    TEXT NOT NULL,
    UNIQUE (pack_id, rule_id, doc_id)
);
CREATE INDEX rule_results_by_document ON rule_results(doc_id);
CREATE INDEX rule_results_by_resource ON rule_results(project, resource, severity);
)SQL",
    // Version 6: duplicate candidates a steward looked at and decided are different people, so
    // they are not offered again (ids ordered: id_a < id_b).
    R"SQL(
CREATE TABLE duplicate_decisions (
    project    TEXT NOT NULL,
    resource   TEXT NOT NULL,
    id_a       TEXT NOT NULL,
    id_b       TEXT NOT NULL,
    decision   TEXT NOT NULL CHECK (decision IN ('distinct')),
    decided_at TEXT NOT NULL,
    actor      TEXT NOT NULL,
    PRIMARY KEY (project, resource, id_a, id_b)
) WITHOUT ROWID;
)SQL",
    // Version 7: the edit journal. Every bulk edit and descriptor mapping is one operation with one
    // item per document or draft it changed, holding what was there before and after, so the whole
    // operation can be undone in one transaction (and refused when a document changed since).
    R"SQL(
CREATE TABLE edit_operations (
    op_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL CHECK (kind IN ('bulk-edit', 'map-descriptor')),
    summary    TEXT NOT NULL,
    detail     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    actor      TEXT NOT NULL,
    undone_at  TEXT,
    undone_by  TEXT
);

CREATE TABLE edit_items (
    op_id           INTEGER NOT NULL REFERENCES edit_operations(op_id) ON DELETE CASCADE,
    item            INTEGER NOT NULL,
    target          TEXT NOT NULL CHECK (target IN ('draft', 'document')),
    target_key      TEXT NOT NULL,
    project         TEXT NOT NULL,
    resource        TEXT NOT NULL,
    before_text     TEXT NOT NULL,
    after_text      TEXT NOT NULL,
    after_etag      TEXT,
    draft_row       TEXT,
    document_id     TEXT,
    document_before TEXT,
    PRIMARY KEY (op_id, item)
) WITHOUT ROWID;
CREATE INDEX edit_items_by_target ON edit_items(target, target_key);
)SQL",
    // Version 8: documents without UNIQUE column constraints. A document's own referential id is one
    // of its aliases, whose index already keeps it unique (findByReferentialId goes through it), so
    // a second random-key index cost every insert for nothing. The id's uniqueness moves to an index
    // of its own, which a large import can drop and build again sorted (see kDeferrableIndexes).
    // Rebuilt the way SQLite documents for such changes, with foreign keys off (see migrate()).
    R"SQL(
CREATE TABLE documents_v8 (
    doc_key        INTEGER PRIMARY KEY,
    id             TEXT NOT NULL,
    project        TEXT NOT NULL,
    resource       TEXT NOT NULL,
    referential_id BLOB NOT NULL,
    identity       TEXT NOT NULL,
    body           TEXT NOT NULL,
    etag           TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    last_modified  TEXT NOT NULL,
    natural_key    TEXT NOT NULL DEFAULT '' COLLATE NOCASE
);
INSERT INTO documents_v8 (doc_key, id, project, resource, referential_id, identity, body, etag, created_at,
                          last_modified, natural_key)
    SELECT doc_key, id, project, resource, referential_id, identity, body, etag, created_at, last_modified,
           natural_key FROM documents;
DROP TABLE documents;
ALTER TABLE documents_v8 RENAME TO documents;
CREATE UNIQUE INDEX documents_by_id ON documents(id);
CREATE INDEX documents_by_resource ON documents(project, resource, doc_key);
CREATE INDEX documents_by_natural_key ON documents(project, resource, natural_key);
)SQL",
    // Version 9: the change log stops writing every body twice. A document points at the entry its
    // body was written with; that entry holds no copy until the document is written again (readers
    // take the document's body). Older entries keep their copies, so nothing needs rewriting.
    R"SQL(
ALTER TABLE documents ADD COLUMN change_seq INTEGER;
)SQL",
    // Version 10: Change Queries. A document's change version is its entry's sequence number, so
    // documents from before version 9 get theirs; an incremental pull reads documents by change
    // version, and the deletes and key changes of a resource come from small partial indexes.
    R"SQL(
UPDATE documents SET change_seq = (SELECT max(c.seq) FROM changes c WHERE c.id = documents.id)
    WHERE change_seq IS NULL;
CREATE INDEX documents_by_change ON documents(change_seq);
CREATE INDEX changes_deletes ON changes(project, resource, seq) WHERE op = 'delete';
CREATE INDEX changes_key_changes ON changes(project, resource, seq) WHERE op = 'key-change';
-- Incremental pulls: the target's newest change version taken so far (NULL: none yet), and the
-- local document for a target's id (its deletes and key changes name only that).
ALTER TABLE sync_targets ADD COLUMN pull_change_version INTEGER;
CREATE INDEX sync_remote_ids_by_remote ON sync_remote_ids(target_id, remote_id);
)SQL",
    // Version 11: the query index. Each query field of the model gets a key (the engine registers
    // the fields of the model it opens with, and fills in their values); query_values lists each
    // document's values per field, ordered so that one field and value give their documents in
    // document order (a first page reads 25 rows, not every match).
    R"SQL(
CREATE TABLE query_fields (
    field_key INTEGER PRIMARY KEY,
    project   TEXT NOT NULL,
    resource  TEXT NOT NULL,
    name      TEXT NOT NULL,
    paths     TEXT NOT NULL,
    UNIQUE (project, resource, name)
);
CREATE TABLE query_values (
    field_key INTEGER NOT NULL,
    value     NOT NULL COLLATE NOCASE,
    doc       INTEGER NOT NULL,
    PRIMARY KEY (field_key, value, doc)
) WITHOUT ROWID;
)SQL",
    // Version 12: the edit journal takes the operations that write whole documents (a cascading
    // delete, a re-point, a merge, an identity change), so each is undone like a bulk edit.
    // SQLite cannot change a CHECK in place: the table is rebuilt (foreign keys off, see migrate()).
    R"SQL(
CREATE TABLE edit_operations_v12 (
    op_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL CHECK (kind IN ('bulk-edit', 'map-descriptor', 'cascade-delete', 'repoint', 'merge',
                                             'change-identity')),
    summary    TEXT NOT NULL,
    detail     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    actor      TEXT NOT NULL,
    undone_at  TEXT,
    undone_by  TEXT
);
INSERT INTO edit_operations_v12 SELECT op_id, kind, summary, detail, created_at, actor, undone_at, undone_by
    FROM edit_operations;
DROP TABLE edit_operations;
ALTER TABLE edit_operations_v12 RENAME TO edit_operations;
)SQL",
    // Version 13: find anything. One full-text row per document (rowid = doc_key) holding its
    // identifying and name-like values (engine/model/SearchTerms), kept by every document write in
    // its transaction. Prefixes of 2 and 3 characters are indexed so the first letters typed answer
    // at once; no positions or sizes are kept (detail=none, columnsize=0): every word is a prefix to
    // match, never a phrase, and hits are not ranked by FTS5.
    R"SQL(
CREATE VIRTUAL TABLE search_index USING fts5(terms, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3',
                                             detail = none, columnsize = 0);
INSERT INTO search_index (rowid, terms)
    SELECT doc_key, terms FROM (SELECT doc_key, steward_search_terms(body) AS terms FROM documents) WHERE terms <> '';
)SQL",
    // Version 14: what made each change ("import district.ndjson", "pull https://...", "bulk fix",
    // "edit in the app"), beside who: History says both. NULL for changes from before.
    R"SQL(
ALTER TABLE changes ADD COLUMN source TEXT;
)SQL",
    // Version 15: the change log stops repeating each document's identity. An insert or update
    // leaves it empty: it is the identity its document had then, which the next key change
    // (previous_identity) or delete (identity) records, or else the document's own (kChangeIdentity).
    // Key changes get their earlier identity; older entries keep their copies.
    R"SQL(
ALTER TABLE changes ADD COLUMN previous_identity TEXT;
UPDATE changes SET previous_identity = (SELECT p.identity FROM changes p WHERE p.id = changes.id AND p.seq < changes.seq
                                        ORDER BY p.seq DESC LIMIT 1)
    WHERE op = 'key-change';
)SQL",
    // Version 16: the change log's CHECK on op without IN. SQLite checks "op IN (list)" by building
    // a temporary table of the list on every insert: 45,000 instructions of an import's ~540,000
    // per document went there. Comparisons joined by OR check the same in a few. SQLite cannot
    // change a CHECK in place, so the table is copied; its AUTOINCREMENT counter goes with it, so no
    // change version is ever given twice.
    R"SQL(
CREATE TABLE changes_v16 (
    seq                     INTEGER PRIMARY KEY AUTOINCREMENT,
    op                      TEXT NOT NULL CHECK (op = 'insert' OR op = 'update' OR op = 'delete' OR op = 'key-change'),
    project                 TEXT NOT NULL,
    resource                TEXT NOT NULL,
    id                      TEXT NOT NULL,
    referential_id          BLOB NOT NULL,
    previous_referential_id BLOB,
    identity                TEXT NOT NULL,
    body                    TEXT,
    etag                    TEXT,
    at                      TEXT NOT NULL,
    actor                   TEXT NOT NULL,
    source                  TEXT,
    previous_identity       TEXT
);
INSERT INTO changes_v16 (seq, op, project, resource, id, referential_id, previous_referential_id, identity, body, etag,
                         at, actor, source, previous_identity)
    SELECT seq, op, project, resource, id, referential_id, previous_referential_id, identity, body, etag, at, actor,
           source, previous_identity FROM changes;
DELETE FROM sqlite_sequence WHERE name = 'changes_v16';
INSERT INTO sqlite_sequence (name, seq) SELECT 'changes_v16', seq FROM sqlite_sequence WHERE name = 'changes';
DROP TABLE changes;
ALTER TABLE changes_v16 RENAME TO changes;
CREATE INDEX changes_by_document ON changes(id, seq);
CREATE INDEX changes_deletes ON changes(project, resource, seq) WHERE op = 'delete';
CREATE INDEX changes_key_changes ON changes(project, resource, seq) WHERE op = 'key-change';
)SQL",
    // Version 17: the query index as an inverted index. query_values held a row per document, field
    // and value: about ten random B-tree inserts a document, 15% of an import's time, and 25 MB of
    // 183 for 107,395 documents. query_index is FTS5 without content or positions: one row per
    // document whose words are its values (queryIndexToken: the field's key and the value), each
    // word's documents a compressed list in document order. A measured prototype: a tenth of the
    // insert cost and a seventh of the bytes. The registry is emptied so that the first engine that
    // opens the database for writing registers its fields again and fills the index from the documents.
    R"SQL(
DROP TABLE query_values;
DELETE FROM query_fields;
CREATE VIRTUAL TABLE query_index USING fts5(words, content = '', detail = none, columnsize = 0, tokenize = 'ascii');
)SQL",
    // Version 18: document text compressed with a dictionary per resource (engine/store/BodyCodec):
    // a body or identity is TEXT as before, or a zstd frame (BLOB) made with one of these, which
    // steward_text() reads. A dictionary's id is the one zstd writes into each frame made with it.
    R"SQL(
CREATE TABLE body_dictionaries (
    dict_id    INTEGER PRIMARY KEY,
    project    TEXT NOT NULL,
    resource   TEXT NOT NULL,
    created_at TEXT NOT NULL,
    dictionary BLOB NOT NULL
);
)SQL",
    // Version 19: a resource is named once. Every document, alias and change-log row carried its
    // project and resource as text (27 bytes at a time, again in two indexes of documents): 16% of
    // an import's database. The rows now hold a small key into resources; documents, aliases and
    // changes are views that give the names back, so every reader reads as before, while writers
    // write the *_rows tables. Each table is rebuilt the way SQLite documents (foreign keys off, see
    // migrate()) and then renamed, which carries the references of the tables that point at it.
    R"SQL(
CREATE TABLE resources (
    resource_key INTEGER PRIMARY KEY,
    project      TEXT NOT NULL,
    resource     TEXT NOT NULL,
    UNIQUE (project, resource)
);
INSERT INTO resources (project, resource)
    SELECT project, resource FROM documents UNION SELECT project, resource FROM aliases
    UNION SELECT project, resource FROM changes ORDER BY 1, 2;

CREATE TABLE documents_v19 (
    doc_key        INTEGER PRIMARY KEY,
    id             TEXT NOT NULL,
    resource_key   INTEGER NOT NULL REFERENCES resources(resource_key),
    referential_id BLOB NOT NULL,
    identity       TEXT NOT NULL,
    body           TEXT NOT NULL,
    etag           TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    last_modified  TEXT NOT NULL,
    natural_key    TEXT NOT NULL DEFAULT '' COLLATE NOCASE,
    change_seq     INTEGER
);
INSERT INTO documents_v19 (doc_key, id, resource_key, referential_id, identity, body, etag, created_at, last_modified,
                           natural_key, change_seq)
    SELECT d.doc_key, d.id, r.resource_key, d.referential_id, d.identity, d.body, d.etag, d.created_at, d.last_modified,
           d.natural_key, d.change_seq FROM documents d JOIN resources r ON r.project = d.project AND r.resource = d.resource;
DROP TABLE documents;
ALTER TABLE documents_v19 RENAME TO documents;
ALTER TABLE documents RENAME TO document_rows;

CREATE TABLE aliases_v19 (
    alias_key      INTEGER PRIMARY KEY,
    referential_id BLOB NOT NULL UNIQUE,
    doc_key        INTEGER NOT NULL REFERENCES document_rows(doc_key) ON DELETE CASCADE,
    resource_key   INTEGER NOT NULL REFERENCES resources(resource_key)
);
INSERT INTO aliases_v19 (alias_key, referential_id, doc_key, resource_key)
    SELECT a.alias_key, a.referential_id, a.doc_key, r.resource_key
    FROM aliases a JOIN resources r ON r.project = a.project AND r.resource = a.resource;
DROP TABLE aliases;
ALTER TABLE aliases_v19 RENAME TO aliases;
ALTER TABLE aliases RENAME TO alias_rows;

CREATE TABLE changes_v19 (
    seq                     INTEGER PRIMARY KEY AUTOINCREMENT,
    op                      TEXT NOT NULL CHECK (op = 'insert' OR op = 'update' OR op = 'delete' OR op = 'key-change'),
    resource_key            INTEGER NOT NULL REFERENCES resources(resource_key),
    id                      TEXT NOT NULL,
    referential_id          BLOB NOT NULL,
    previous_referential_id BLOB,
    identity                TEXT NOT NULL,
    body                    TEXT,
    etag                    TEXT,
    at                      TEXT NOT NULL,
    actor                   TEXT NOT NULL,
    source                  TEXT,
    previous_identity       TEXT
);
INSERT INTO changes_v19 (seq, op, resource_key, id, referential_id, previous_referential_id, identity, body, etag, at,
                         actor, source, previous_identity)
    SELECT c.seq, c.op, r.resource_key, c.id, c.referential_id, c.previous_referential_id, c.identity, c.body, c.etag,
           c.at, c.actor, c.source, c.previous_identity
    FROM changes c JOIN resources r ON r.project = c.project AND r.resource = c.resource;
DELETE FROM sqlite_sequence WHERE name = 'changes_v19';
INSERT INTO sqlite_sequence (name, seq) SELECT 'changes_v19', seq FROM sqlite_sequence WHERE name = 'changes';
DROP TABLE changes;
ALTER TABLE changes_v19 RENAME TO change_rows;

CREATE UNIQUE INDEX documents_by_id ON document_rows(id);
CREATE INDEX documents_by_resource ON document_rows(resource_key, doc_key);
CREATE INDEX documents_by_natural_key ON document_rows(resource_key, natural_key);
CREATE INDEX documents_by_change ON document_rows(change_seq);
CREATE INDEX aliases_by_document ON alias_rows(doc_key);
CREATE INDEX changes_by_document ON change_rows(id, seq);
CREATE INDEX changes_deletes ON change_rows(resource_key, seq) WHERE op = 'delete';
CREATE INDEX changes_key_changes ON change_rows(resource_key, seq) WHERE op = 'key-change';

CREATE VIEW documents AS
    SELECT d.doc_key, d.id, r.project, r.resource, d.referential_id, d.identity, d.body, d.etag, d.created_at,
           d.last_modified, d.natural_key, d.change_seq, d.resource_key
    FROM document_rows d JOIN resources r ON r.resource_key = d.resource_key;
CREATE VIEW aliases AS
    SELECT a.alias_key, a.referential_id, a.doc_key, r.project, r.resource, a.resource_key
    FROM alias_rows a JOIN resources r ON r.resource_key = a.resource_key;
CREATE VIEW changes AS
    SELECT c.seq, c.op, r.project, r.resource, c.id, c.referential_id, c.previous_referential_id, c.identity, c.body,
           c.etag, c.at, c.actor, c.source, c.previous_identity, c.resource_key
    FROM change_rows c JOIN resources r ON r.resource_key = c.resource_key;
)SQL",
    // Version 20: a document's natural key stored once. It was a column (68 bytes a document at
    // 107,395 documents) and again in its index; the index now holds it as an expression of the
    // identity, and the documents view works it out for the rows a reader reads. Every connection
    // has both functions (Database::open). Changing naturalKeyText() means a migration that runs
    // REINDEX documents_by_natural_key: integrity_check compares the index with the expression.
    R"SQL(
DROP VIEW documents;
DROP INDEX documents_by_natural_key;
ALTER TABLE document_rows DROP COLUMN natural_key;
CREATE INDEX documents_by_natural_key
    ON document_rows(resource_key, steward_natural_key(steward_text(identity)) COLLATE NOCASE);
CREATE VIEW documents AS
    SELECT d.doc_key, d.id, r.project, r.resource, d.referential_id, d.identity, d.body, d.etag, d.created_at,
           d.last_modified, steward_natural_key(steward_text(d.identity)) COLLATE NOCASE AS natural_key, d.change_seq,
           d.resource_key
    FROM document_rows d JOIN resources r ON r.resource_key = d.resource_key;
)SQL",
    // Version 21: who and what made a change named once. Every change-log row repeated its actor
    // and source ("unknown", "import district.ndjson": 22 bytes a row); it now holds a key into
    // change_origins (a source of '' is none), and the changes view gives both back. The table is
    // copied so that the key is NOT NULL, with its AUTOINCREMENT counter (see version 16).
    R"SQL(
CREATE TABLE change_origins (
    origin_key INTEGER PRIMARY KEY,
    actor      TEXT NOT NULL,
    source     TEXT NOT NULL,
    UNIQUE (actor, source)
);
INSERT INTO change_origins (actor, source) SELECT DISTINCT actor, coalesce(source, '') FROM change_rows ORDER BY 1, 2;
DROP VIEW changes;
CREATE TABLE change_rows_v21 (
    seq                     INTEGER PRIMARY KEY AUTOINCREMENT,
    op                      TEXT NOT NULL CHECK (op = 'insert' OR op = 'update' OR op = 'delete' OR op = 'key-change'),
    resource_key            INTEGER NOT NULL REFERENCES resources(resource_key),
    id                      TEXT NOT NULL,
    referential_id          BLOB NOT NULL,
    previous_referential_id BLOB,
    identity                TEXT NOT NULL,
    body                    TEXT,
    etag                    TEXT,
    at                      TEXT NOT NULL,
    origin_key              INTEGER NOT NULL REFERENCES change_origins(origin_key),
    previous_identity       TEXT
);
INSERT INTO change_rows_v21 (seq, op, resource_key, id, referential_id, previous_referential_id, identity, body, etag,
                             at, origin_key, previous_identity)
    SELECT c.seq, c.op, c.resource_key, c.id, c.referential_id, c.previous_referential_id, c.identity, c.body, c.etag,
           c.at, o.origin_key, c.previous_identity
    FROM change_rows c JOIN change_origins o ON o.actor = c.actor AND o.source = coalesce(c.source, '');
DELETE FROM sqlite_sequence WHERE name = 'change_rows_v21';
INSERT INTO sqlite_sequence (name, seq) SELECT 'change_rows_v21', seq FROM sqlite_sequence WHERE name = 'change_rows';
DROP TABLE change_rows;
ALTER TABLE change_rows_v21 RENAME TO change_rows;
CREATE INDEX changes_by_document ON change_rows(id, seq);
CREATE INDEX changes_deletes ON change_rows(resource_key, seq) WHERE op = 'delete';
CREATE INDEX changes_key_changes ON change_rows(resource_key, seq) WHERE op = 'key-change';
CREATE VIEW changes AS
    SELECT c.seq, c.op, r.project, r.resource, c.id, c.referential_id, c.previous_referential_id, c.identity, c.body,
           c.etag, c.at, o.actor, nullif(o.source, '') AS source, c.previous_identity, c.resource_key
    FROM change_rows c JOIN resources r ON r.resource_key = c.resource_key
    JOIN change_origins o ON o.origin_key = c.origin_key;
)SQL",
    // Version 22: ids as their 16 bytes. A document's id was 36 characters of text in its row, in
    // documents_by_id, in each change-log entry and in changes_by_document: 144 bytes a document,
    // 13% of the database at 107,395 documents. steward_id_key() keeps an id in lower-case
    // canonical form (every id Steward makes) as its bytes and any other text as it is, so nothing
    // changes that a client sees; the views give the text back as id and the stored form as
    // id_key, which every lookup by id compares (WHERE id_key = steward_id_key(?): the text form
    // is worked out per row, and no index holds it). The two indexes are built again sorted.
    R"SQL(
DROP VIEW documents;
DROP VIEW changes;
DROP INDEX IF EXISTS documents_by_id;
DROP INDEX IF EXISTS changes_by_document;
UPDATE document_rows SET id = steward_id_key(id);
UPDATE change_rows SET id = steward_id_key(id);
CREATE UNIQUE INDEX documents_by_id ON document_rows(id);
CREATE INDEX changes_by_document ON change_rows(id, seq);
CREATE VIEW documents AS
    SELECT d.doc_key, steward_id_text(d.id) AS id, r.project, r.resource, d.referential_id, d.identity, d.body, d.etag,
           d.created_at, d.last_modified, steward_natural_key(steward_text(d.identity)) COLLATE NOCASE AS natural_key,
           d.change_seq, d.resource_key, d.id AS id_key
    FROM document_rows d JOIN resources r ON r.resource_key = d.resource_key;
CREATE VIEW changes AS
    SELECT c.seq, c.op, r.project, r.resource, steward_id_text(c.id) AS id, c.referential_id, c.previous_referential_id,
           c.identity, c.body, c.etag, c.at, o.actor, nullif(o.source, '') AS source, c.previous_identity,
           c.resource_key, c.id AS id_key
    FROM change_rows c JOIN resources r ON r.resource_key = c.resource_key
    JOIN change_origins o ON o.origin_key = c.origin_key;
)SQL",
    // Version 23: a document's row without what is kept elsewhere or as text for no reader. Its
    // referential id is its own alias's (the alias of its own resource), which the view reads;
    // last_modified and created_at are seconds (created_at NULL while it equals last_modified) and
    // the etag its 8 bytes, each given back as text by the views (StoredForms.h). 38 bytes a
    // document. A table's column types cannot change in place, so the table is rebuilt (foreign
    // keys off, see migrate()) in its doc_key order, and its indexes built sorted.
    R"SQL(
DROP VIEW documents;
DROP VIEW changes;
CREATE TABLE document_rows_v23 (
    doc_key       INTEGER PRIMARY KEY,
    id            NOT NULL,
    resource_key  INTEGER NOT NULL REFERENCES resources(resource_key),
    identity      TEXT NOT NULL,
    body          TEXT NOT NULL,
    etag          NOT NULL,
    created_at    INTEGER,
    last_modified INTEGER NOT NULL,
    change_seq    INTEGER
);
INSERT INTO document_rows_v23 (doc_key, id, resource_key, identity, body, etag, created_at, last_modified, change_seq)
    SELECT doc_key, id, resource_key, identity, body, steward_hex_key(etag), steward_time_key(nullif(created_at, '')),
           steward_time_key(last_modified), change_seq
    FROM document_rows ORDER BY doc_key;
DROP TABLE document_rows;
ALTER TABLE document_rows_v23 RENAME TO document_rows;
CREATE UNIQUE INDEX documents_by_id ON document_rows(id);
CREATE INDEX documents_by_resource ON document_rows(resource_key, doc_key);
CREATE INDEX documents_by_natural_key
    ON document_rows(resource_key, steward_natural_key(steward_text(identity)) COLLATE NOCASE);
CREATE INDEX documents_by_change ON document_rows(change_seq);
CREATE VIEW documents AS
    SELECT d.doc_key, steward_id_text(d.id) AS id, r.project, r.resource,
           (SELECT a.referential_id FROM alias_rows a WHERE a.doc_key = d.doc_key AND a.resource_key = d.resource_key)
               AS referential_id,
           d.identity, d.body, steward_hex_text(d.etag) AS etag,
           steward_time_text(coalesce(d.created_at, d.last_modified)) AS created_at,
           steward_time_text(d.last_modified) AS last_modified,
           steward_natural_key(steward_text(d.identity)) COLLATE NOCASE AS natural_key, d.change_seq, d.resource_key,
           d.id AS id_key
    FROM document_rows d JOIN resources r ON r.resource_key = d.resource_key;
CREATE VIEW changes AS
    SELECT c.seq, c.op, r.project, r.resource, steward_id_text(c.id) AS id, c.referential_id, c.previous_referential_id,
           c.identity, c.body, steward_hex_text(c.etag) AS etag, c.at, o.actor, nullif(o.source, '') AS source,
           c.previous_identity, c.resource_key, c.id AS id_key
    FROM change_rows c JOIN resources r ON r.resource_key = c.resource_key
    JOIN change_origins o ON o.origin_key = c.origin_key;
)SQL",
    // Version 24: a document's current entry leaves its id to the document, as it already left its
    // body, etag and time (version 9): the row points at it (change_seq), and its next write or its
    // delete copies the id in. At 107,395 documents that is 17 bytes of change_rows and an entry of
    // changes_by_document, now partial, for nearly every document. The view gives every entry's id;
    // a document's entries are found through kEntryOfDocument. The column becomes nullable, so the
    // table is copied with its AUTOINCREMENT counter (see version 16).
    R"SQL(
DROP VIEW changes;
CREATE TABLE change_rows_v24 (
    seq                     INTEGER PRIMARY KEY AUTOINCREMENT,
    op                      TEXT NOT NULL CHECK (op = 'insert' OR op = 'update' OR op = 'delete' OR op = 'key-change'),
    resource_key            INTEGER NOT NULL REFERENCES resources(resource_key),
    id,
    referential_id          BLOB NOT NULL,
    previous_referential_id BLOB,
    identity                TEXT NOT NULL,
    body                    TEXT,
    etag                    TEXT,
    at                      TEXT NOT NULL,
    origin_key              INTEGER NOT NULL REFERENCES change_origins(origin_key),
    previous_identity       TEXT
);
INSERT INTO change_rows_v24 (seq, op, resource_key, id, referential_id, previous_referential_id, identity, body, etag,
                             at, origin_key, previous_identity)
    SELECT c.seq, c.op, c.resource_key,
           CASE WHEN EXISTS (SELECT 1 FROM document_rows d WHERE d.change_seq = c.seq) THEN NULL ELSE c.id END,
           c.referential_id, c.previous_referential_id, c.identity, c.body, c.etag, c.at, c.origin_key,
           c.previous_identity
    FROM change_rows c ORDER BY c.seq;
DELETE FROM sqlite_sequence WHERE name = 'change_rows_v24';
INSERT INTO sqlite_sequence (name, seq) SELECT 'change_rows_v24', seq FROM sqlite_sequence WHERE name = 'change_rows';
DROP TABLE change_rows;
ALTER TABLE change_rows_v24 RENAME TO change_rows;
CREATE INDEX changes_by_document ON change_rows(id, seq) WHERE id IS NOT NULL;
CREATE INDEX changes_deletes ON change_rows(resource_key, seq) WHERE op = 'delete';
CREATE INDEX changes_key_changes ON change_rows(resource_key, seq) WHERE op = 'key-change';
CREATE VIEW changes AS
    SELECT c.seq, c.op, r.project, r.resource,
           steward_id_text(coalesce(c.id, (SELECT d.id FROM document_rows d WHERE d.change_seq = c.seq))) AS id,
           c.referential_id, c.previous_referential_id, c.identity, c.body, steward_hex_text(c.etag) AS etag, c.at,
           o.actor, nullif(o.source, '') AS source, c.previous_identity, c.resource_key,
           coalesce(c.id, (SELECT d.id FROM document_rows d WHERE d.change_seq = c.seq)) AS id_key
    FROM change_rows c JOIN resources r ON r.resource_key = c.resource_key
    JOIN change_origins o ON o.origin_key = c.origin_key;
)SQL",
    // Version 25: sync that loses nothing. Per document and target, the version both sides last
    // agreed on (its merge base): the target's etag of it ('' when the target gives none) and the
    // change-log entry whose body it is, or its text where the log holds no such body (a merge at
    // sync stores the merged document, not the target's copy). Conflicts a person resolves: the
    // local document stays as it is, the target's copy and the base are kept beside it until a
    // resolution (a journaled operation, so undoing it opens the conflict again). The journal
    // takes that kind; SQLite cannot change a CHECK in place, so edit_operations is rebuilt with
    // its AUTOINCREMENT counter (foreign keys off, see migrate()).
    R"SQL(
ALTER TABLE sync_remote_ids ADD COLUMN base_etag TEXT;
ALTER TABLE sync_remote_ids ADD COLUMN base_seq INTEGER;
ALTER TABLE sync_remote_ids ADD COLUMN base_text TEXT;

CREATE TABLE sync_conflicts (
    target_id   INTEGER NOT NULL REFERENCES sync_targets(target_id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    project     TEXT NOT NULL,
    resource    TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('edited-both', 'deleted-there', 'deleted-here', 'refused')),
    remote_id   TEXT,
    base_etag   TEXT,
    base_seq    INTEGER,
    base_text   TEXT,
    theirs_text TEXT,
    theirs_etag TEXT,
    reason      TEXT NOT NULL,
    found_at    TEXT NOT NULL,
    resolved_op INTEGER,
    PRIMARY KEY (target_id, id)
) WITHOUT ROWID;

CREATE TABLE edit_operations_v25 (
    op_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL CHECK (kind IN ('bulk-edit', 'map-descriptor', 'cascade-delete', 'repoint', 'merge',
                                             'change-identity', 'resolve-conflict')),
    summary    TEXT NOT NULL,
    detail     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    actor      TEXT NOT NULL,
    undone_at  TEXT,
    undone_by  TEXT
);
INSERT INTO edit_operations_v25 SELECT op_id, kind, summary, detail, created_at, actor, undone_at, undone_by
    FROM edit_operations;
DELETE FROM sqlite_sequence WHERE name = 'edit_operations_v25';
INSERT INTO sqlite_sequence (name, seq) SELECT 'edit_operations_v25', seq FROM sqlite_sequence
    WHERE name = 'edit_operations';
DROP TABLE edit_operations;
ALTER TABLE edit_operations_v25 RENAME TO edit_operations;
-- Open: unresolved, or resolved by an operation undone since (undoing a resolution reopens it).
CREATE VIEW open_sync_conflicts AS
    SELECT * FROM sync_conflicts s WHERE s.resolved_op IS NULL
        OR EXISTS (SELECT 1 FROM edit_operations o WHERE o.op_id = s.resolved_op AND o.undone_at IS NOT NULL);
)SQL",
    // Version 26: the state's verdict. Rule packs a steward imported are kept whole, every version,
    // so they can be exported, listed and compared; rules may now say "error" (a state's level
    // between fatal and warning), so rule_results is rebuilt for its CHECK (nothing points at it).
    // Results a state portal exported come in per source and replace that source's earlier ones;
    // each keeps the row it came from and, when it matched a document, that document's change_seq
    // then, so a later edit shows as "changed since". Warnings acknowledged with a reason stop
    // blocking readiness (per origin: a pack's id or a results source's name); a submission ties what went out to the verdict and who signed it off.
    R"SQL(
CREATE TABLE rule_results_v26 (
    result_id   INTEGER PRIMARY KEY,
    pack_id     TEXT NOT NULL,
    rule_id     TEXT NOT NULL,
    severity    TEXT NOT NULL CHECK (severity IN ('fatal', 'error', 'warning', 'info')),
    project     TEXT NOT NULL,
    resource    TEXT NOT NULL,
    doc_id      TEXT NOT NULL,
    natural_key TEXT NOT NULL,
    message     TEXT NOT NULL,
    found_at    TEXT NOT NULL,
    UNIQUE (pack_id, rule_id, doc_id)
);
INSERT INTO rule_results_v26 SELECT result_id, pack_id, rule_id, severity, project, resource, doc_id, natural_key,
    message, found_at FROM rule_results;
DROP TABLE rule_results;
ALTER TABLE rule_results_v26 RENAME TO rule_results;
CREATE INDEX rule_results_by_document ON rule_results(doc_id);
CREATE INDEX rule_results_by_resource ON rule_results(project, resource, severity);

CREATE TABLE rule_packs (
    pack_id     TEXT NOT NULL,
    version     TEXT NOT NULL,
    title       TEXT NOT NULL,
    content     TEXT NOT NULL,
    content_sha TEXT NOT NULL,
    imported_at TEXT NOT NULL,
    imported_by TEXT NOT NULL,
    PRIMARY KEY (pack_id, version)
) WITHOUT ROWID;

CREATE TABLE result_sources (
    source_id   INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL UNIQUE,
    file        TEXT NOT NULL,
    file_sha    TEXT NOT NULL,
    run_at      TEXT,
    imported_at TEXT NOT NULL,
    imported_by TEXT NOT NULL,
    row_count   INTEGER NOT NULL,
    matched     INTEGER NOT NULL
);

CREATE TABLE external_results (
    source_id   INTEGER NOT NULL REFERENCES result_sources(source_id) ON DELETE CASCADE,
    row_number  INTEGER NOT NULL,
    rule_id     TEXT NOT NULL,
    severity    TEXT NOT NULL CHECK (severity IN ('fatal', 'error', 'warning', 'info')),
    message     TEXT NOT NULL,
    school_year TEXT NOT NULL,
    school_id   TEXT NOT NULL,
    project     TEXT NOT NULL,
    resource    TEXT NOT NULL,
    doc_id      TEXT,
    natural_key TEXT NOT NULL,
    seq_at_run  INTEGER,
    unmatched   TEXT,
    PRIMARY KEY (source_id, row_number)
) WITHOUT ROWID;
CREATE INDEX external_results_by_document ON external_results(doc_id) WHERE doc_id IS NOT NULL;
-- Imported results with their source, and whether the document changed after the source's run
-- (edited since it was matched, edited after the run date, or deleted): a fix that waits for the
-- next submission to clear it.
CREATE VIEW imported_results AS
    SELECT e.source_id, e.row_number, e.rule_id, e.severity, e.message, e.school_year, e.school_id, e.project,
           e.resource, e.doc_id, e.natural_key, e.seq_at_run, e.unmatched, s.name AS source, s.file, s.run_at,
           s.imported_at,
           CASE WHEN e.doc_id IS NULL THEN 0
                WHEN d.doc_key IS NULL THEN 1
                WHEN d.change_seq > e.seq_at_run THEN 1
                WHEN s.run_at IS NOT NULL AND d.last_modified > s.run_at THEN 1
                ELSE 0 END AS changed_since
    FROM external_results e JOIN result_sources s ON s.source_id = e.source_id
    LEFT JOIN document_rows d ON e.doc_id IS NOT NULL AND d.id = steward_id_key(e.doc_id);

CREATE TABLE acknowledgements (
    origin  TEXT NOT NULL,
    rule_id TEXT NOT NULL,
    doc_id  TEXT NOT NULL,
    reason  TEXT NOT NULL,
    actor   TEXT NOT NULL,
    at      TEXT NOT NULL,
    PRIMARY KEY (origin, rule_id, doc_id)
) WITHOUT ROWID;

CREATE TABLE submissions (
    submission_id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind          TEXT NOT NULL CHECK (kind IN ('export', 'push')),
    what          TEXT NOT NULL,
    seq_from      INTEGER NOT NULL,
    seq_to        INTEGER NOT NULL,
    verdict       TEXT NOT NULL,
    acknowledged  TEXT NOT NULL,
    signed_by     TEXT NOT NULL,
    signed_at     TEXT NOT NULL,
    note          TEXT NOT NULL
);
)SQL",
    // Version 27: how a sync target takes a create, learned once (discovery, answers): 'if-match' (a
    // POST with If-Match that would replace a record of the same identity is refused, as ODS/API 7.x
    // does), 'look-up' (it upserts whatever If-Match says, so a create is preceded by a look-up by
    // natural key); NULL until known.
    R"SQL(
ALTER TABLE sync_targets ADD COLUMN create_check TEXT;
)SQL",
    // Version 28: how many requests a sync keeps in flight with a target, as the steward last asked
    // (steward-cli sync --parallel N); NULL: the default.
    R"SQL(
ALTER TABLE sync_targets ADD COLUMN parallel INTEGER;
)SQL",
    // Version 29: the model the database is opened with, so that it opens with it anywhere without
    // the files: the ApiSchema files in load order, each with its projects, versions, SHA-256 and text
    // (a zstd frame, ModelRecord.cpp). The embedded starter model is a row without content: every
    // build carries it. A database from before this version was opened with the starter model unless
    // --schema was given, which records itself at the next such open.
    R"SQL(
CREATE TABLE model_files (
    position INTEGER PRIMARY KEY,
    name     TEXT NOT NULL,
    project  TEXT NOT NULL,
    version  TEXT NOT NULL,
    sha256   TEXT NOT NULL,
    content  BLOB
);
INSERT INTO model_files (position, name, project, version, sha256, content)
    VALUES (0, 'starter model', 'Ed-Fi', '5.1.0', '', NULL);
)SQL",
    // Version 30: history as compact as the documents. Ten bulk fixes of 2,000 students' one field
    // grew a 20 MB database by 85 MB: each edit kept its before and after as plain text in
    // edit_items, and each rewritten version its whole compressed body in the change log. The
    // journal's texts become stored forms (zstd with the resource's dictionary), the text before an
    // edit a delta against the text after it; a change-log version with a version written after it
    // becomes a delta against that one (BodyCodec::deltaAgainst, read by steward_version_text).
    // The functions are migrate()'s (CompactHistory.h). Database::open then turns on incremental
    // vacuum, which an existing file takes only through one VACUUM.
    R"SQL(
UPDATE edit_items SET before_text = steward_journal_before(before_text, after_text),
                      after_text = steward_compact(after_text, project, resource),
                      document_before = steward_compact(document_before, project, resource),
                      draft_row = steward_compact(draft_row, '', '');
CREATE TEMP TABLE steward_next_versions AS
    WITH entries AS (
        SELECT c.seq, c.op, coalesce(c.id, d.id) AS doc, coalesce(c.body, d.body) AS body
        FROM change_rows c LEFT JOIN document_rows d ON d.change_seq = c.seq)
    SELECT seq, lead(op) OVER versions AS next_op, lead(body) OVER versions AS next_body
    FROM entries WINDOW versions AS (PARTITION BY doc ORDER BY seq);
UPDATE change_rows SET body = steward_delta_of(change_rows.body, steward_text(n.next_body))
    FROM temp.steward_next_versions n
    WHERE n.seq = change_rows.seq AND change_rows.body IS NOT NULL AND n.next_body IS NOT NULL
      AND n.next_op IN ('update', 'key-change');
DROP TABLE temp.steward_next_versions;
)SQL",
};

} // namespace

int migrationCount()
{
    return static_cast<int>(sizeof(kMigrations) / sizeof(kMigrations[0]));
}

const char *migrationStep(int version)
{
    return kMigrations[version];
}

} // namespace steward
