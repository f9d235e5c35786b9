#pragma once

#include "Json.h"

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace steward {

class BodyCodec;

enum class EditTarget
{
    Draft,
    Document,
};

// One document or draft an operation changed, with what undoing it needs.
struct EditItem
{
    std::int64_t item = 0;
    EditTarget target = EditTarget::Document;
    std::string targetKey; // the document id, or the draft id as text
    std::string project;
    std::string resource;
    std::string beforeText; // the stored body, or the draft's text, before the edit
    std::string afterText;  // the same after it
    // The etag the document had right after the edit (for a draft that was stored: the etag of the
    // document it became). Undo refuses when the document's etag is no longer this one.
    std::string afterEtag;
    std::optional<Json> draftRow;              // drafts: the whole row before, to restore it exactly
    std::string documentId;                    // a draft the edit stored: the document it became
    std::optional<std::string> documentBefore; // ...and that document's body before (none when new)

    bool draftWasStored() const { return target == EditTarget::Draft && !documentId.empty(); }
};

struct EditOperation
{
    std::int64_t opId = 0;
    std::string kind; // "bulk-edit", "map-descriptor", or a document operation (quality/Dependents.h)
    std::string summary;
    Json detail; // what was asked: field and value, or descriptor and values
    std::string createdAt;
    std::string actor;
    std::string undoneAt; // empty while it stands
    std::string undoneBy;
    std::int64_t itemCount = 0;

    bool undone() const { return !undoneAt.empty(); }
    Json toJson() const;
};

// How long undo lasts: an operation stays undoable while it is among the newest `operations` and
// no older than `days` (0: no limit of that kind). What it changed stays in each document's
// history either way; only the way back in one step goes.
struct UndoRetention
{
    static constexpr int kDefaultOperations = 100;
    static constexpr int kDefaultDays = 30;
    int operations = kDefaultOperations;
    int days = kDefaultDays;

    // As the database keeps it (the meta table), defaults where it keeps none.
    static UndoRetention read(SQLite::Database &db);
    // Inside the caller's write transaction.
    void write(SQLite::Database &db) const;
};

// The edit_operations / edit_items tables. Writes join the caller's write transaction (the bulk
// edit's batch), so an operation and its items are committed with the changes they describe or
// not at all; reads open a short read transaction only when none is open.
//
// Items are kept compact: the text after an edit in the documents' stored form (zstd with the
// resource's dictionary when `codec` knows one, zstd alone otherwise, as it is when that is not
// smaller), the text before it as a delta against the text after (BodyCodec::deltaAgainst).
class EditJournal
{
public:
    explicit EditJournal(SQLite::Database &db, const BodyCodec *codec = nullptr);

    std::int64_t beginOperation(const std::string &kind, const std::string &summary, const Json &detail,
                                const std::string &actor, const std::string &createdAt);
    void addItem(std::int64_t opId, const EditItem &item);
    void markUndone(std::int64_t opId, const std::string &actor, const std::string &at);

    std::optional<EditOperation> operation(std::int64_t opId);
    // Newest first.
    std::vector<EditOperation> operations(int limit = 100);
    std::vector<EditItem> items(std::int64_t opId);
    // The newest operation that has not been undone.
    std::optional<EditOperation> lastUndoable();
    // Forgets the operations `retention` no longer keeps (with their items), as of `now` (ISO 8601,
    // UTC); inside the caller's write transaction. Answers how many went.
    int forgetBeyond(const UndoRetention &retention, const std::string &now);

private:
    SQLite::Database &m_db;
    const BodyCodec *m_codec = nullptr;
};

} // namespace steward
