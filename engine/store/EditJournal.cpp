#include "EditJournal.h"

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

} // namespace

Json EditOperation::toJson() const
{
    Json out{{"opId", opId},         {"kind", kind},   {"summary", summary}, {"detail", detail},
             {"createdAt", createdAt}, {"actor", actor}, {"items", itemCount}};
    out["undoneAt"] = undoneAt.empty() ? Json() : Json(undoneAt);
    out["undoneBy"] = undoneBy.empty() ? Json() : Json(undoneBy);
    return out;
}

EditJournal::EditJournal(SQLite::Database &db)
    : m_db(db)
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
    return m_db.getLastInsertRowid();
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
    insert.bind(7, item.beforeText);
    insert.bind(8, item.afterText);
    if (item.afterEtag.empty())
        insert.bind(9);
    else
        insert.bind(9, item.afterEtag);
    if (item.draftRow)
        insert.bind(10, dumpJson(*item.draftRow));
    else
        insert.bind(10);
    if (item.documentId.empty())
        insert.bind(11);
    else
        insert.bind(11, item.documentId);
    if (item.documentBefore)
        insert.bind(12, *item.documentBefore);
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
    SQLite::Statement s(m_db, "SELECT item, target, target_key, project, resource, before_text, after_text, "
                              "after_etag, draft_row, document_id, document_before FROM edit_items WHERE op_id = ? "
                              "ORDER BY item");
    s.bind(1, opId);
    std::vector<EditItem> out;
    while (s.executeStep()) {
        EditItem item;
        item.item = s.getColumn(0).getInt64();
        item.target = s.getColumn(1).getString() == "draft" ? EditTarget::Draft : EditTarget::Document;
        item.targetKey = s.getColumn(2).getString();
        item.project = s.getColumn(3).getString();
        item.resource = s.getColumn(4).getString();
        item.beforeText = s.getColumn(5).getString();
        item.afterText = s.getColumn(6).getString();
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

} // namespace steward
