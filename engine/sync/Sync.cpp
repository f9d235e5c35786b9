#include "Sync.h"

#include "Database.h"
#include "DocumentStore.h"
#include "LoadOrder.h"

#include <QByteArray>

#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <algorithm>
#include <unordered_map>

namespace steward {

namespace {

const char *const kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

std::string optionalText(const SQLite::Column &column)
{
    return column.isNull() ? std::string() : column.getString();
}

// A write of sync bookkeeping: a BEGIN IMMEDIATE of its own, or part of the caller's write
// transaction when one is open, so that a document and what sync knows of it commit together.
class BookkeepingWrite
{
public:
    explicit BookkeepingWrite(SQLite::Database &db)
    {
        if (sqlite3_get_autocommit(db.getHandle()) != 0)
            m_own.emplace(db);
    }
    void commit()
    {
        if (m_own)
            m_own->commit();
    }

private:
    std::optional<ImmediateTransaction> m_own;
};

const char *const kConflictColumns = "target_id, id, project, resource, kind, coalesce(remote_id, ''), "
                                     "coalesce(base_etag, ''), coalesce(base_seq, 0), base_text, theirs_text, "
                                     "coalesce(theirs_etag, ''), reason, found_at, coalesce(resolved_op, 0)";

SyncConflict::Kind conflictKindFrom(const std::string &name)
{
    for (SyncConflict::Kind kind : {SyncConflict::Kind::EditedBoth, SyncConflict::Kind::DeletedThere,
                                    SyncConflict::Kind::DeletedHere, SyncConflict::Kind::Refused})
        if (name == conflictKindName(kind))
            return kind;
    return SyncConflict::Kind::EditedBoth;
}

SyncConflict readConflict(SQLite::Statement &query)
{
    SyncConflict c;
    c.targetId = query.getColumn(0).getInt64();
    c.id = query.getColumn(1).getString();
    c.project = query.getColumn(2).getString();
    c.resource = query.getColumn(3).getString();
    c.kind = conflictKindFrom(query.getColumn(4).getString());
    c.base.remoteId = query.getColumn(5).getString();
    c.base.etag = query.getColumn(6).getString();
    c.base.seq = query.getColumn(7).getInt64();
    if (!query.getColumn(8).isNull())
        c.base.text = query.getColumn(8).getString();
    if (!query.getColumn(9).isNull())
        c.theirsText = query.getColumn(9).getString();
    c.theirsEtag = query.getColumn(10).getString();
    c.reason = query.getColumn(11).getString();
    c.foundAt = query.getColumn(12).getString();
    c.resolvedOp = query.getColumn(13).getInt64();
    return c;
}

void bindOptionalText(SQLite::Statement &s, int index, const std::optional<std::string> &text)
{
    if (text)
        s.bind(index, *text);
    else
        s.bind(index);
}

// One statement of bookkeeping about a document and a target, its values bound in order.
template<typename... Values>
void writeRow(SQLite::Database &db, SQLite::Statement &statement, const Values &...values)
{
    BookkeepingWrite transaction(db);
    int index = 0;
    (statement.bind(++index, values), ...);
    statement.exec();
    transaction.commit();
}

} // namespace

const char *conflictKindName(SyncConflict::Kind kind)
{
    switch (kind) {
    case SyncConflict::Kind::EditedBoth:
        return "edited-both";
    case SyncConflict::Kind::DeletedThere:
        return "deleted-there";
    case SyncConflict::Kind::DeletedHere:
        return "deleted-here";
    case SyncConflict::Kind::Refused:
        return "refused";
    }
    return "edited-both";
}

const char *conflictKindTitle(SyncConflict::Kind kind)
{
    switch (kind) {
    case SyncConflict::Kind::EditedBoth:
        return "Changed here and on the target";
    case SyncConflict::Kind::DeletedThere:
        return "Deleted on the target, edited here";
    case SyncConflict::Kind::DeletedHere:
        return "Deleted here, edited on the target";
    case SyncConflict::Kind::Refused:
        return "Both sides' changes together would be refused";
    }
    return "Changed here and on the target";
}

std::string pullActor(const std::string &url)
{
    return "pull:" + url;
}

SyncState::SyncState(SQLite::Database &db)
    : m_db(db)
{
}

SyncTarget SyncState::ensureTarget(const std::string &url, const std::string &client)
{
    {
        ImmediateTransaction transaction(m_db);
        SQLite::Statement insert(m_db, "INSERT OR IGNORE INTO sync_targets (url, client) VALUES (?, ?)");
        insert.bind(1, url);
        insert.bind(2, client);
        insert.exec();
        transaction.commit();
    }
    for (const SyncTarget &target : targets())
        if (target.url == url && target.client == client)
            return target;
    throw StorageError(StorageError::Kind::Io, "the sync target " + url + " could not be recorded");
}

std::vector<SyncTarget> SyncState::targets()
{
    SQLite::Statement query(m_db, "SELECT target_id, url, client, push_cursor, last_pull_at, last_push_at, "
                                  "coalesce(pull_change_version, -1), coalesce(create_check, ''), coalesce(parallel, 0) "
                                  "FROM sync_targets "
                                  "ORDER BY target_id");
    std::vector<SyncTarget> out;
    while (query.executeStep())
        out.push_back({query.getColumn(0).getInt64(), query.getColumn(1).getString(), query.getColumn(2).getString(),
                       query.getColumn(3).getInt64(), optionalText(query.getColumn(4)),
                       optionalText(query.getColumn(5)), query.getColumn(6).getInt64(),
                       query.getColumn(7).getString(), query.getColumn(8).getInt()});
    return out;
}

void SyncState::setCreateCheck(std::int64_t targetId, const std::string &check)
{
    writeRow(m_db, statement("UPDATE sync_targets SET create_check = ? WHERE target_id = ?"), check, targetId);
}

void SyncState::setParallel(std::int64_t targetId, int parallel)
{
    writeRow(m_db, statement("UPDATE sync_targets SET parallel = ? WHERE target_id = ?"), parallel, targetId);
}

int SyncState::parallelFor(const SyncTarget &target, int asked)
{
    if (asked > 0) {
        asked = std::min(asked, kMostParallel);
        if (asked != target.parallel)
            setParallel(target.targetId, asked);
        return asked;
    }
    return target.parallel > 0 ? target.parallel : kDefaultParallel;
}

void SyncState::setPushCursor(std::int64_t targetId, std::int64_t seq)
{
    writeRow(m_db,
             statement(std::string("UPDATE sync_targets SET push_cursor = max(push_cursor, ?), last_push_at = ") + kNow +
                       " WHERE target_id = ?"),
             seq, targetId);
}

void SyncState::markPulled(std::int64_t targetId, std::optional<std::int64_t> changeVersion)
{
    BookkeepingWrite transaction(m_db);
    SQLite::Statement update(m_db, std::string("UPDATE sync_targets SET last_pull_at = ") + kNow
                                       + ", pull_change_version = ? WHERE target_id = ?");
    if (changeVersion)
        update.bind(1, *changeVersion);
    else
        update.bind(1); // NULL: the next pull takes everything again
    update.bind(2, targetId);
    update.exec();
    transaction.commit();
}

std::optional<std::string> SyncState::localId(std::int64_t targetId, const std::string &remoteId)
{
    SQLite::Statement &query = statement("SELECT id FROM sync_remote_ids WHERE target_id = ? AND remote_id = ?");
    query.bind(1, targetId);
    query.bind(2, remoteId);
    if (!query.executeStep())
        return std::nullopt;
    std::string found = query.getColumn(0).getString();
    query.reset();
    return found;
}

bool SyncState::knowsRemoteIds(std::int64_t targetId)
{
    SQLite::Statement &query = statement("SELECT 1 FROM sync_remote_ids WHERE target_id = ? AND remote_id > '' LIMIT 1");
    query.bind(1, targetId);
    const bool known = query.executeStep();
    query.reset();
    return known;
}

std::optional<std::string> SyncState::remoteId(std::int64_t targetId, const std::string &localId)
{
    SQLite::Statement &query = statement("SELECT remote_id FROM sync_remote_ids WHERE target_id = ? AND id = ?");
    query.bind(1, targetId);
    query.bind(2, localId);
    if (!query.executeStep())
        return std::nullopt;
    std::string found = query.getColumn(0).getString();
    query.reset();
    return found;
}

void SyncState::setRemoteId(std::int64_t targetId, const std::string &localId, const std::string &remoteId)
{
    setRemoteIds(targetId, {{localId, remoteId}});
}

void SyncState::setRemoteIds(std::int64_t targetId,
                             const std::vector<std::pair<std::string, std::string>> &localToRemote)
{
    BookkeepingWrite transaction(m_db);
    SQLite::Statement upsert(m_db, "INSERT INTO sync_remote_ids (target_id, id, remote_id) VALUES (?, ?, ?) "
                                   "ON CONFLICT (target_id, id) DO UPDATE SET remote_id = excluded.remote_id");
    for (const auto &[localId, remoteId] : localToRemote) {
        upsert.reset();
        upsert.bind(1, targetId);
        upsert.bind(2, localId);
        upsert.bind(3, remoteId);
        upsert.exec();
    }
    transaction.commit();
}

std::optional<SyncBase> SyncState::base(std::int64_t targetId, const std::string &localId)
{
    SQLite::Statement &query = statement("SELECT remote_id, coalesce(base_etag, ''), coalesce(base_seq, 0), base_text "
                                         "FROM sync_remote_ids WHERE target_id = ? AND id = ?");
    query.bind(1, targetId);
    query.bind(2, localId);
    if (!query.executeStep())
        return std::nullopt;
    SyncBase base;
    base.remoteId = query.getColumn(0).getString();
    base.etag = query.getColumn(1).getString();
    base.seq = query.getColumn(2).getInt64();
    if (!query.getColumn(3).isNull())
        base.text = query.getColumn(3).getString();
    query.reset(); // a statement left on its row would hold a read transaction open
    return base;
}

void SyncState::setBase(std::int64_t targetId, const std::string &localId, const SyncBase &base)
{
    BookkeepingWrite transaction(m_db);
    SQLite::Statement &upsert = statement("INSERT INTO sync_remote_ids (target_id, id, remote_id, base_etag, base_seq, "
                                          "base_text) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (target_id, id) DO UPDATE SET "
                                          "remote_id = excluded.remote_id, base_etag = excluded.base_etag, "
                                          "base_seq = excluded.base_seq, base_text = excluded.base_text");
    upsert.bind(1, targetId);
    upsert.bind(2, localId);
    upsert.bind(3, base.remoteId);
    upsert.bind(4, base.etag);
    if (base.seq > 0)
        upsert.bind(5, base.seq);
    else
        upsert.bind(5);
    bindOptionalText(upsert, 6, base.seq > 0 ? std::nullopt : base.text);
    upsert.exec();
    transaction.commit();
}

std::optional<Json> SyncState::baseBody(const SyncBase &base)
{
    if (base.seq <= 0) {
        if (!base.text)
            return std::nullopt;
        Json body = Json::parse(*base.text, nullptr, false);
        return body.is_discarded() ? std::nullopt : std::optional<Json>(std::move(body));
    }
    SQLite::Statement query(m_db, std::string("SELECT ") + kChangeBody + " FROM " + kChangesWithBodies
                                      + " WHERE c.seq = ? AND c.op <> 'delete'");
    query.bind(1, base.seq);
    if (!query.executeStep() || query.getColumn(0).isNull())
        return std::nullopt;
    Json body = Json::parse(query.getColumn(0).getString(), nullptr, false);
    return body.is_discarded() ? std::nullopt : std::optional<Json>(std::move(body));
}

void SyncState::recordConflict(const SyncConflict &conflict)
{
    BookkeepingWrite transaction(m_db);
    SQLite::Statement upsert(m_db, std::string("INSERT OR REPLACE INTO sync_conflicts (target_id, id, project, resource, "
                                               "kind, remote_id, base_etag, base_seq, base_text, theirs_text, "
                                               "theirs_etag, reason, found_at, resolved_op) VALUES "
                                               "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ")
                                       + kNow + ", NULL)");
    upsert.bind(1, conflict.targetId);
    upsert.bind(2, conflict.id);
    upsert.bind(3, conflict.project);
    upsert.bind(4, conflict.resource);
    upsert.bind(5, conflictKindName(conflict.kind));
    upsert.bind(6, conflict.base.remoteId);
    upsert.bind(7, conflict.base.etag);
    if (conflict.base.seq > 0)
        upsert.bind(8, conflict.base.seq);
    else
        upsert.bind(8);
    bindOptionalText(upsert, 9, conflict.base.seq > 0 ? std::nullopt : conflict.base.text);
    bindOptionalText(upsert, 10, conflict.theirsText);
    upsert.bind(11, conflict.theirsEtag);
    upsert.bind(12, conflict.reason);
    upsert.exec();
    transaction.commit();
}

std::optional<SyncConflict> SyncState::conflict(std::int64_t targetId, const std::string &localId)
{
    SQLite::Statement &query =
        statement(std::string("SELECT ") + kConflictColumns + " FROM sync_conflicts WHERE target_id = ? AND id = ?");
    query.bind(1, targetId);
    query.bind(2, localId);
    if (!query.executeStep())
        return std::nullopt;
    SyncConflict found = readConflict(query);
    query.reset();
    return found;
}

bool SyncState::isOpen(const SyncConflict &conflict)
{
    if (conflict.resolvedOp == 0)
        return true;
    SQLite::Statement &query = statement("SELECT 1 FROM open_sync_conflicts WHERE target_id = ? AND id = ?");
    query.bind(1, conflict.targetId);
    query.bind(2, conflict.id);
    const bool open = query.executeStep();
    query.reset();
    return open;
}

SQLite::Statement &SyncState::statement(const std::string &sql)
{
    auto found = m_statements.find(sql);
    if (found == m_statements.end())
        found = m_statements.emplace(sql, std::make_unique<SQLite::Statement>(m_db, sql)).first;
    SQLite::Statement &cached = *found->second;
    cached.reset();
    cached.clearBindings();
    return cached;
}

std::vector<SyncConflict> SyncState::openConflicts(std::int64_t targetId)
{
    SQLite::Statement query(m_db, std::string("SELECT ") + kConflictColumns
                                      + " FROM open_sync_conflicts WHERE ?1 = 0 OR target_id = ?1 ORDER BY found_at, id");
    query.bind(1, targetId);
    std::vector<SyncConflict> out;
    while (query.executeStep())
        out.push_back(readConflict(query));
    return out;
}

std::vector<SyncState::ConflictCount> SyncState::openConflictCounts()
{
    SQLite::Statement &query = statement("SELECT target_id, project, resource, count(*) FROM open_sync_conflicts "
                                         "GROUP BY target_id, project, resource");
    std::vector<ConflictCount> out;
    while (query.executeStep())
        out.push_back({query.getColumn(0).getInt64(), query.getColumn(1).getString(), query.getColumn(2).getString(),
                       query.getColumn(3).getInt64()});
    return out;
}

std::set<std::string> SyncState::conflictIds(std::int64_t targetId)
{
    SQLite::Statement &query = statement("SELECT id FROM sync_conflicts WHERE target_id = ?");
    query.bind(1, targetId);
    std::set<std::string> out;
    while (query.executeStep())
        out.insert(query.getColumn(0).getString());
    return out;
}

std::int64_t SyncState::openConflictCount(std::int64_t targetId)
{
    SQLite::Statement query(m_db, "SELECT count(*) FROM open_sync_conflicts WHERE ?1 = 0 OR target_id = ?1");
    query.bind(1, targetId);
    query.executeStep();
    return query.getColumn(0).getInt64();
}

void SyncState::updateTheirs(std::int64_t targetId, const std::string &localId, const std::string &remoteId,
                             const std::optional<std::string> &theirsText, const std::string &theirsEtag)
{
    BookkeepingWrite transaction(m_db);
    SQLite::Statement update(m_db, "UPDATE sync_conflicts SET theirs_text = ?1, theirs_etag = ?2, "
                                   "remote_id = CASE WHEN ?3 = '' THEN remote_id ELSE ?3 END, "
                                   "kind = CASE WHEN ?1 IS NULL AND kind <> 'deleted-here' THEN 'deleted-there' "
                                   "WHEN ?1 IS NOT NULL AND kind = 'deleted-there' THEN 'edited-both' ELSE kind END "
                                   "WHERE target_id = ?4 AND id = ?5");
    bindOptionalText(update, 1, theirsText);
    update.bind(2, theirsEtag);
    update.bind(3, remoteId);
    update.bind(4, targetId);
    update.bind(5, localId);
    update.exec();
    transaction.commit();
}

void SyncState::markResolved(std::int64_t targetId, const std::string &localId, std::int64_t opId)
{
    writeRow(m_db, statement("UPDATE sync_conflicts SET resolved_op = ? WHERE target_id = ? AND id = ?"), opId, targetId, localId);
}

void SyncState::dropConflict(std::int64_t targetId, const std::string &localId)
{
    writeRow(m_db, statement("DELETE FROM sync_conflicts WHERE target_id = ? AND id = ?"), targetId, localId);
}

void SyncState::forgetRemoteId(std::int64_t targetId, const std::string &localId)
{
    writeRow(m_db, statement("DELETE FROM sync_remote_ids WHERE target_id = ? AND id = ?"), targetId, localId);
}

void SyncState::recordFailure(std::int64_t targetId, const SyncFailure &failure)
{
    BookkeepingWrite transaction(m_db);
    SQLite::Statement upsert(
        m_db, std::string("INSERT OR REPLACE INTO sync_failures (target_id, id, seq, project, resource, operation, "
                          "status, problem, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ")
                  + kNow + ")");
    upsert.bind(1, targetId);
    upsert.bind(2, failure.id);
    upsert.bind(3, failure.seq);
    upsert.bind(4, failure.project);
    upsert.bind(5, failure.resource);
    upsert.bind(6, failure.operation);
    upsert.bind(7, failure.status);
    upsert.bind(8, dumpJson(failure.problem));
    upsert.exec();
    transaction.commit();
}

void SyncState::clearFailure(std::int64_t targetId, const std::string &localId)
{
    writeRow(m_db, statement("DELETE FROM sync_failures WHERE target_id = ? AND id = ?"), targetId, localId);
}

std::vector<SyncFailure> SyncState::failures(std::int64_t targetId)
{
    SQLite::Statement query(m_db, "SELECT id, seq, project, resource, operation, status, problem, at "
                                  "FROM sync_failures WHERE target_id = ? ORDER BY seq");
    query.bind(1, targetId);
    std::vector<SyncFailure> out;
    while (query.executeStep()) {
        SyncFailure failure;
        failure.id = query.getColumn(0).getString();
        failure.seq = query.getColumn(1).getInt64();
        failure.project = query.getColumn(2).getString();
        failure.resource = query.getColumn(3).getString();
        failure.operation = query.getColumn(4).getString();
        failure.status = query.getColumn(5).getInt();
        failure.problem = Json::parse(query.getColumn(6).getString(), nullptr, false);
        failure.at = query.getColumn(7).getString();
        out.push_back(std::move(failure));
    }
    return out;
}

const char *operationName(PushItem::Operation operation)
{
    switch (operation) {
    case PushItem::Operation::KeyChange:
        return "key-change";
    case PushItem::Operation::Upsert:
        return "upsert";
    case PushItem::Operation::Delete:
        return "delete";
    }
    return "?";
}

std::map<std::string, std::map<std::string, int>> PushPlan::counts() const
{
    std::map<std::string, std::map<std::string, int>> out;
    for (const PushItem &item : items)
        ++out[item.resource->resourceKey()][operationName(item.operation)];
    return out;
}

Json PushPlan::toJson() const
{
    Json byResource = Json::object();
    for (const auto &[resource, operations] : counts())
        for (const auto &[operation, count] : operations)
            byResource[resource][operation] = count;
    return Json{{"fromSeq", fromSeq}, {"toSeq", toSeq}, {"documents", items.size()}, {"byResource", byResource}};
}

namespace {

// One document's changes after the cursor, folded: its first and last operation and entries.
struct FoldedChanges
{
    std::string project;
    std::string resource;
    std::string firstOp;
    std::string lastOp;
    bool keyChanged = false;
    std::string lastIdentity;
    std::int64_t firstSeq = 0;
    std::int64_t lastSeq = 0;
};

// The change log after the cursor folded per document, in the order documents first changed
// (arrival), leaving out what a pull from the target wrote; plan.toSeq is the log's last entry.
std::vector<std::pair<std::string, FoldedChanges>> foldChanges(SQLite::Database &db, std::int64_t cursor,
                                                               const std::string &url, PushPlan &plan)
{
    std::unordered_map<std::string, std::size_t> indexOf;
    std::vector<std::pair<std::string, FoldedChanges>> arrival;
    // What the target gave (its pulls) is skipped by SQLite, not read: behind a cursor a conflict holds
    // back, a year's pulls would otherwise be read again at every push.
    SQLite::Statement changes(db, "SELECT seq, op, project, resource, id, identity FROM changes "
                                  "WHERE seq > ? AND actor <> ? ORDER BY seq");
    changes.bind(1, cursor);
    changes.bind(2, pullActor(url));
    plan.toSeq = std::max(cursor, db.execAndGet("SELECT coalesce(max(seq), 0) FROM change_rows").getInt64());
    while (changes.executeStep()) {
        const std::int64_t seq = changes.getColumn(0).getInt64();
        const std::string id = changes.getColumn(4).getString();
        auto [it, fresh] = indexOf.try_emplace(id, arrival.size());
        if (fresh) {
            arrival.emplace_back(id, FoldedChanges{});
            arrival.back().second.firstOp = changes.getColumn(1).getString();
            arrival.back().second.firstSeq = seq;
        }
        FoldedChanges &folded = arrival[it->second].second;
        folded.project = changes.getColumn(2).getString();
        folded.resource = changes.getColumn(3).getString();
        folded.lastOp = changes.getColumn(1).getString();
        folded.keyChanged = folded.keyChanged || folded.lastOp == "key-change";
        folded.lastIdentity = changes.getColumn(5).getString();
        folded.lastSeq = seq;
    }
    return arrival;
}

// Identity changes first, then upserts in load order, then deletes in reverse load order.
void sortInLoadOrder(PushPlan &plan, const Model &model)
{
    const LoadOrder order(model);
    std::stable_sort(plan.items.begin(), plan.items.end(), [&order](const PushItem &a, const PushItem &b) {
        if (a.operation != b.operation)
            return static_cast<int>(a.operation) < static_cast<int>(b.operation);
        const int rankA = order.rankOf(a.resource);
        const int rankB = order.rankOf(b.resource);
        if (rankA != rankB)
            return a.operation == PushItem::Operation::Delete ? rankA > rankB : rankA < rankB;
        return a.lastSeq < b.lastSeq;
    });
}

} // namespace

PushPlan planPush(SQLite::Database &db, const Model &model, std::int64_t cursor, const std::string &url,
                  std::int64_t targetId)
{
    PushPlan plan;
    plan.fromSeq = cursor;
    plan.toSeq = cursor;
    DeferredTransaction snapshot(db);
    const std::vector<std::pair<std::string, FoldedChanges>> arrival = foldChanges(db, cursor, url, plan);

    SQLite::Statement current(db, "SELECT steward_text(body), steward_text(identity), coalesce(change_seq, 0) "
                                  "FROM documents WHERE id_key = steward_id_key(?)");
    SQLite::Statement before(db, std::string("SELECT ") + kChangeIdentity + " FROM " + kChangesWithBodies
                                     + " WHERE " + kEntryOfDocument + " AND c.seq < ?2 ORDER BY c.seq DESC LIMIT 1");
    // A push the cursor stayed behind (a conflict before it) may have delivered it already.
    SQLite::Statement known(db, "SELECT 1 FROM sync_remote_ids WHERE target_id = ? AND id = ?");
    // Delivered already, as it is now, and not held by a conflict: nothing to send (the push would
    // find it agreed). Left out here, so a cursor a conflict holds back costs what was sent since, not
    // every document written since (a bulk fix a week made a year's pushes 2.5 times as long).
    SQLite::Statement agreed(db, "SELECT 1 FROM sync_remote_ids s WHERE s.target_id = ?1 AND s.id = ?2"
                                 " AND s.base_seq = (SELECT d.change_seq FROM document_rows d WHERE d.id = steward_id_key(?2))"
                                 " AND NOT EXISTS (SELECT 1 FROM open_sync_conflicts o WHERE o.target_id = ?1 AND o.id = ?2)");
    for (const auto &[id, folded] : arrival) {
        const ResourceSchema *resource = model.findByName(folded.project, folded.resource);
        if (resource == nullptr)
            continue; // a resource the loaded model does not have cannot be sent
        if (folded.lastOp != "delete") {
            agreed.reset();
            agreed.bind(1, targetId);
            agreed.bind(2, id);
            if (agreed.executeStep())
                continue;
        }
        PushItem item;
        item.id = id;
        item.resource = resource;
        item.firstSeq = folded.firstSeq;
        item.lastSeq = folded.lastSeq;
        before.reset();
        before.bind(1, id);
        before.bind(2, folded.firstSeq);
        const bool targetMayKnowIt = before.executeStep();
        if (targetMayKnowIt)
            item.targetIdentity = Json::parse(before.getColumn(0).getString(), nullptr, false);
        if (folded.lastOp == "delete") {
            known.reset();
            known.bind(1, targetId);
            known.bind(2, id);
            if (folded.firstOp == "insert" && !targetMayKnowIt && !known.executeStep())
                continue; // created and deleted since the last push: the target never saw it
            item.operation = PushItem::Operation::Delete;
            item.identity = Json::parse(folded.lastIdentity, nullptr, false);
            if (!targetMayKnowIt)
                item.targetIdentity = item.identity;
        } else {
            current.reset();
            current.bind(1, id);
            if (!current.executeStep())
                continue;
            item.body = Json::parse(current.getColumn(0).getString(), nullptr, false);
            item.identity = Json::parse(current.getColumn(1).getString(), nullptr, false);
            item.bodySeq = current.getColumn(2).getInt64();
            if (!targetMayKnowIt)
                item.targetIdentity = item.identity;
            item.operation = folded.keyChanged && targetMayKnowIt ? PushItem::Operation::KeyChange
                                                                  : PushItem::Operation::Upsert;
        }
        plan.items.push_back(std::move(item));
    }
    sortInLoadOrder(plan, model);
    return plan;
}

std::int64_t cursorAfter(const PushPlan &plan, const std::vector<bool> &accepted)
{
    std::int64_t cursor = plan.toSeq;
    for (std::size_t i = 0; i < plan.items.size(); ++i)
        if (i >= accepted.size() || !accepted[i])
            cursor = std::min(cursor, plan.items[i].firstSeq - 1);
    return std::max(cursor, plan.fromSeq);
}

std::string identityQuery(const ResourceSchema &resource, const Json &identity)
{
    std::string query;
    const std::vector<JsonPath> &paths = resource.identityPaths;
    if (resource.isDescriptor) {
        for (const char *key : {"namespace", "codeValue"}) {
            if (!identity.contains(key) || !identity[key].is_string())
                return {};
            query += std::string(query.empty() ? "" : "&") + key + "="
                     + QByteArray::fromStdString(identity[key].get<std::string>()).toPercentEncoding().toStdString();
        }
        return query;
    }
    for (const JsonPath &path : paths) {
        const QueryField *field = nullptr;
        for (const auto &[name, candidate] : resource.queryFields)
            for (const QueryFieldPath &fieldPath : candidate.paths)
                if (fieldPath.path.text() == path.text())
                    field = &candidate;
        const Json *value = path.resolve(identity, {});
        if (field == nullptr || value == nullptr || value->is_structured())
            return {};
        const std::string text = value->is_string() ? value->get<std::string>() : value->dump();
        query += (query.empty() ? "" : "&") + field->name + "="
                 + QByteArray::fromStdString(text).toPercentEncoding().toStdString();
    }
    return query;
}

namespace {

Json withoutLinks(Json value)
{
    if (value.is_object()) {
        if (auto link = value.find("link"); link != value.end() && link->is_object() && link->contains("href"))
            value.erase(link);
        for (auto &[key, member] : value.items())
            member = withoutLinks(std::move(member));
    } else if (value.is_array()) {
        for (Json &item : value)
            item = withoutLinks(std::move(item));
    }
    return value;
}

} // namespace

Json withoutApiFields(const ResourceSchema &resource, Json body)
{
    if (!body.is_object())
        return body;
    for (const char *field : {"id", "_etag", "_lastModifiedDate"})
        body.erase(field);
    // ODS/API gives each descriptor its own integer id beside the document's.
    if (resource.isDescriptor && !resource.resourceName.empty()) {
        std::string idField = resource.resourceName + "Id";
        idField[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(idField[0])));
        body.erase(idField);
    }
    return withoutLinks(std::move(body));
}

Json ChangeEntry::toJson() const
{
    Json out{{"seq", seq},           {"op", op}, {"project", project}, {"resource", resource}, {"id", id},
             {"identity", identity}, {"at", at}, {"actor", actor}};
    if (!source.empty())
        out["source"] = source;
    if (body) {
        out["body"] = *body;
        out["etag"] = etag;
    }
    return out;
}

std::vector<ChangeEntry> readChanges(SQLite::Database &db, std::int64_t afterSeq, int limit)
{
    SQLite::Statement query(db, std::string("SELECT c.seq, c.op, c.project, c.resource, c.id, ") + kChangeIdentity + ", "
                                    + kChangeBody + ", " + kChangeEtag + ", " + kChangeAt + ", c.actor, c.source FROM " + kChangesWithBodies
                                    + " WHERE c.seq > ? ORDER BY c.seq LIMIT ?");
    query.bind(1, afterSeq);
    query.bind(2, limit);
    std::vector<ChangeEntry> out;
    while (query.executeStep()) {
        ChangeEntry entry;
        entry.seq = query.getColumn(0).getInt64();
        entry.op = query.getColumn(1).getString();
        entry.project = query.getColumn(2).getString();
        entry.resource = query.getColumn(3).getString();
        entry.id = query.getColumn(4).getString();
        entry.identity = Json::parse(query.getColumn(5).getString(), nullptr, false);
        if (!query.getColumn(6).isNull()) {
            entry.body = Json::parse(query.getColumn(6).getString(), nullptr, false);
            entry.etag = optionalText(query.getColumn(7));
        }
        entry.at = query.getColumn(8).getString();
        entry.actor = query.getColumn(9).getString();
        entry.source = optionalText(query.getColumn(10));
        out.push_back(std::move(entry));
    }
    return out;
}

} // namespace steward
