#include "EditJournal.h"

#include "BodyCodec.h"
#include "Database.h"

#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

namespace steward {

namespace {

const char *const kOperationColumns =
    "o.op_id, o.kind, o.summary, o.detail, o.created_at, o.actor, o.undone_at, o.undone_by, "
    "(SELECT count(*) FROM edit_items i WHERE i.op_id = o.op_id)";

EditOperation readOperation(SQLite::Statement &s)
{
    EditOperation op;
    op.opId = s.getColumn(0).getInt64();
    op.kind = s.getColumn(1).getString();
    op.summary = s.getColumn(2).getString();
    op.detail = Json::parse(s.getColumn(3).getString());
    op.createdAt = s.getColumn(4).getString();
    op.actor = s.getColumn(5).getString();
    op.undoneAt = s.getColumn(6).isNull() ? std::string() : s.getColumn(6).getString();
    op.undoneBy = s.getColumn(7).isNull() ? std::string() : s.getColumn(7).getString();
    op.itemCount = s.getColumn(8).getInt64();
    return op;
}

std::string optionalText(SQLite::Statement &s, int column)
{
    return s.getColumn(column).isNull() ? std::string() : s.getColumn(column).getString();
}

// A read inside the bulk edit's own transaction must not try to BEGIN again.
class ReadScope
{
public:
    explicit ReadScope(SQLite::Database &db)
    {
        if (sqlite3_get_autocommit(db.getHandle()) != 0)
            m_read.emplace(db);
    }

private:
    std::optional<DeferredTransaction> m_read;
};

// Binds a text in its stored form: a frame when that is smaller, the text as it is otherwise.
void bindCompact(SQLite::Statement &s, int index, const std::string &text, const BodyCodec *codec,
                 const std::string &project, const std::string &resource)
{
    const std::optional<std::string> frame =
        text.empty() ? std::nullopt : BodyCodec::frameIfSmaller(codec, project, resource, text);
    if (frame)
        s.bind(index, frame->data(), static_cast<int>(frame->size()));
    else
        s.bind(index, text);
}

// The text before an edit: a delta against the text after it when there is one and that is smaller.
void bindBefore(SQLite::Statement &s, int index, const EditItem &item, const BodyCodec *codec)
{
    if (item.beforeText.empty() || item.afterText.empty()) {
        bindCompact(s, index, item.beforeText, codec, item.project, item.resource);
        return;
    }
    const std::optional<std::string> delta = BodyCodec::deltaIfSmaller(item.beforeText, item.afterText);
    if (delta)
        s.bind(index, delta->data(), static_cast<int>(delta->size()));
    else
        s.bind(index, item.beforeText);
}

// The text before an edit as addItem kept it; `after` is the text after it.
std::string readBefore(SQLite::Database &db, const SQLite::Column &column, const std::string &after)
{
    if (!column.isBlob())
        return column.getString();
    const std::string_view stored(static_cast<const char *>(column.getBlob()),
                                  static_cast<std::size_t>(column.getBytes()));
    if (BodyCodec::isDelta(stored))
        return BodyCodec::textFromDelta(stored, after);
    SQLite::Statement text(db, "SELECT steward_text(?)");
    text.bind(1, stored.data(), static_cast<int>(stored.size()));
    text.executeStep();
    return text.getColumn(0).getString();
}

constexpr const char *kKeepOperations = "undo_keep_operations";
constexpr const char *kKeepDays = "undo_keep_days";

} // namespace

UndoRetention UndoRetention::read(SQLite::Database &db)
{
    UndoRetention retention;
    SQLite::Statement s(db, "SELECT key, value FROM meta WHERE key IN (?, ?)");
    s.bind(1, kKeepOperations);
    s.bind(2, kKeepDays);
    while (s.executeStep()) {
        const int value = std::max(0, std::atoi(s.getColumn(1).getString().c_str()));
        (s.getColumn(0).getString() == kKeepOperations ? retention.operations : retention.days) = value;
    }
    return retention;
}

void UndoRetention::write(SQLite::Database &db) const
{
    SQLite::Statement s(db, "INSERT INTO meta (key, value) VALUES (?, ?) "
                            "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    for (const auto &[key, value] : {std::pair{kKeepOperations, operations}, std::pair{kKeepDays, days}}) {
        s.bind(1, key);
        s.bind(2, std::to_string(std::max(0, value)));
        s.exec();
        s.reset();
    }
}

Json EditOperation::toJson() const
{
    Json out{{"opId", opId},         {"kind", kind},   {"summary", summary}, {"detail", detail},
             {"createdAt", createdAt}, {"actor", actor}, {"items", itemCount}};
    out["undoneAt"] = undoneAt.empty() ? Json() : Json(undoneAt);
    out["undoneBy"] = undoneBy.empty() ? Json() : Json(undoneBy);
    return out;
}

EditJournal::EditJournal(SQLite::Database &db, const BodyCodec *codec)
    : m_db(db)
    , m_codec(codec)
{
}

std::int64_t EditJournal::beginOperation(const std::string &kind, const std::string &summary, const Json &detail,
                                         const std::string &actor, const std::string &createdAt)
{
    SQLite::Statement insert(m_db, "INSERT INTO edit_operations (kind, summary, detail, created_at, actor) "
                                   "VALUES (?, ?, ?, ?, ?)");
    insert.bind(1, kind);
    insert.bind(2, summary);
    insert.bind(3, dumpJson(detail));
    insert.bind(4, createdAt);
    insert.bind(5, actor);
    insert.exec();
    const std::int64_t opId = m_db.getLastInsertRowid();
    // Each new operation lets go of those the retention no longer keeps: the journal stays as long
    // as the setting says, however long the database lives.
    forgetBeyond(UndoRetention::read(m_db), createdAt);
    return opId;
}

void EditJournal::addItem(std::int64_t opId, const EditItem &item)
{
    SQLite::Statement insert(m_db, "INSERT INTO edit_items (op_id, item, target, target_key, project, resource, "
                                   "before_text, after_text, after_etag, draft_row, document_id, document_before) "
                                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, opId);
    insert.bind(2, item.item);
    insert.bind(3, item.target == EditTarget::Draft ? "draft" : "document");
    insert.bind(4, item.targetKey);
    insert.bind(5, item.project);
    insert.bind(6, item.resource);
    bindBefore(insert, 7, item, m_codec);
    bindCompact(insert, 8, item.afterText, m_codec, item.project, item.resource);
    if (item.afterEtag.empty())
        insert.bind(9);
    else
        insert.bind(9, item.afterEtag);
    if (item.draftRow)
        bindCompact(insert, 10, dumpJson(*item.draftRow), nullptr, {}, {});
    else
        insert.bind(10);
    if (item.documentId.empty())
        insert.bind(11);
    else
        insert.bind(11, item.documentId);
    if (item.documentBefore)
        bindCompact(insert, 12, *item.documentBefore, m_codec, item.project, item.resource);
    else
        insert.bind(12);
    insert.exec();
}

void EditJournal::markUndone(std::int64_t opId, const std::string &actor, const std::string &at)
{
    SQLite::Statement update(m_db, "UPDATE edit_operations SET undone_at = ?, undone_by = ? WHERE op_id = ?");
    update.bind(1, at);
    update.bind(2, actor);
    update.bind(3, opId);
    update.exec();
}

std::optional<EditOperation> EditJournal::operation(std::int64_t opId)
{
    ReadScope read(m_db);
    SQLite::Statement s(m_db, std::string("SELECT ") + kOperationColumns + " FROM edit_operations o WHERE o.op_id = ?");
    s.bind(1, opId);
    if (!s.executeStep())
        return std::nullopt;
    return readOperation(s);
}

std::vector<EditOperation> EditJournal::operations(int limit)
{
    ReadScope read(m_db);
    SQLite::Statement s(m_db, std::string("SELECT ") + kOperationColumns
                                  + " FROM edit_operations o ORDER BY o.op_id DESC LIMIT ?");
    s.bind(1, limit);
    std::vector<EditOperation> out;
    while (s.executeStep())
        out.push_back(readOperation(s));
    return out;
}

std::optional<EditOperation> EditJournal::lastUndoable()
{
    ReadScope read(m_db);
    SQLite::Statement s(m_db, std::string("SELECT ") + kOperationColumns
                                  + " FROM edit_operations o WHERE o.undone_at IS NULL ORDER BY o.op_id DESC LIMIT 1");
    if (!s.executeStep())
        return std::nullopt;
    return readOperation(s);
}

std::vector<EditItem> EditJournal::items(std::int64_t opId)
{
    ReadScope read(m_db);
    SQLite::Statement s(m_db, "SELECT item, target, target_key, project, resource, before_text, "
                              "steward_text(after_text), after_etag, steward_text(draft_row), document_id, "
                              "steward_text(document_before) FROM edit_items WHERE op_id = ? ORDER BY item");
    s.bind(1, opId);
    std::vector<EditItem> out;
    while (s.executeStep()) {
        EditItem item;
        item.item = s.getColumn(0).getInt64();
        item.target = s.getColumn(1).getString() == "draft" ? EditTarget::Draft : EditTarget::Document;
        item.targetKey = s.getColumn(2).getString();
        item.project = s.getColumn(3).getString();
        item.resource = s.getColumn(4).getString();
        item.afterText = s.getColumn(6).getString();
        item.beforeText = readBefore(m_db, s.getColumn(5), item.afterText);
        item.afterEtag = optionalText(s, 7);
        if (!s.getColumn(8).isNull())
            item.draftRow = Json::parse(s.getColumn(8).getString());
        item.documentId = optionalText(s, 9);
        if (!s.getColumn(10).isNull())
            item.documentBefore = s.getColumn(10).getString();
        out.push_back(std::move(item));
    }
    return out;
}

int EditJournal::forgetBeyond(const UndoRetention &retention, const std::string &now)
{
    int forgotten = 0;
    // A resolved sync conflict keeps the operation that resolved it (undoing it opens the conflict again).
    const std::string unlessResolving =
        " AND op_id NOT IN (SELECT resolved_op FROM sync_conflicts WHERE resolved_op IS NOT NULL)";
    if (retention.operations > 0) {
        SQLite::Statement beyondCount(m_db, "DELETE FROM edit_operations WHERE op_id <= (SELECT op_id FROM "
                                            "edit_operations ORDER BY op_id DESC LIMIT 1 OFFSET ?)"
                                                + unlessResolving);
        beyondCount.bind(1, retention.operations);
        forgotten += beyondCount.exec();
    }
    if (retention.days > 0) {
        // created_at is ISO 8601 in UTC, so text order is time order.
        SQLite::Statement tooOld(m_db, "DELETE FROM edit_operations WHERE created_at < "
                                       "strftime('%Y-%m-%dT%H:%M:%SZ', ?, '-' || ? || ' days')"
                                           + unlessResolving);
        tooOld.bind(1, now);
        tooOld.bind(2, retention.days);
        forgotten += tooOld.exec();
    }
    return forgotten;
}

} // namespace steward
