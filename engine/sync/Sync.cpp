#include "Sync.h"

#include "Database.h"
#include "DocumentStore.h"
#include "LoadOrder.h"

#include <QByteArray>

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <unordered_map>

namespace steward {

namespace {

const char *const kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

std::string optionalText(const SQLite::Column &column)
{
    return column.isNull() ? std::string() : column.getString();
}

} // namespace

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
                                  "coalesce(pull_change_version, -1) FROM sync_targets ORDER BY target_id");
    std::vector<SyncTarget> out;
    while (query.executeStep())
        out.push_back({query.getColumn(0).getInt64(), query.getColumn(1).getString(), query.getColumn(2).getString(),
                       query.getColumn(3).getInt64(), optionalText(query.getColumn(4)),
                       optionalText(query.getColumn(5)), query.getColumn(6).getInt64()});
    return out;
}

void SyncState::setPushCursor(std::int64_t targetId, std::int64_t seq)
{
    ImmediateTransaction transaction(m_db);
    SQLite::Statement update(m_db, std::string("UPDATE sync_targets SET push_cursor = max(push_cursor, ?), "
                                               "last_push_at = ")
                                       + kNow + " WHERE target_id = ?");
    update.bind(1, seq);
    update.bind(2, targetId);
    update.exec();
    transaction.commit();
}

void SyncState::markPulled(std::int64_t targetId, std::optional<std::int64_t> changeVersion)
{
    ImmediateTransaction transaction(m_db);
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
    SQLite::Statement query(m_db, "SELECT id FROM sync_remote_ids WHERE target_id = ? AND remote_id = ?");
    query.bind(1, targetId);
    query.bind(2, remoteId);
    if (query.executeStep())
        return query.getColumn(0).getString();
    return std::nullopt;
}

std::optional<std::string> SyncState::remoteId(std::int64_t targetId, const std::string &localId)
{
    SQLite::Statement query(m_db, "SELECT remote_id FROM sync_remote_ids WHERE target_id = ? AND id = ?");
    query.bind(1, targetId);
    query.bind(2, localId);
    if (query.executeStep())
        return query.getColumn(0).getString();
    return std::nullopt;
}

void SyncState::setRemoteId(std::int64_t targetId, const std::string &localId, const std::string &remoteId)
{
    setRemoteIds(targetId, {{localId, remoteId}});
}

void SyncState::setRemoteIds(std::int64_t targetId,
                             const std::vector<std::pair<std::string, std::string>> &localToRemote)
{
    ImmediateTransaction transaction(m_db);
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

void SyncState::forgetRemoteId(std::int64_t targetId, const std::string &localId)
{
    ImmediateTransaction transaction(m_db);
    SQLite::Statement remove(m_db, "DELETE FROM sync_remote_ids WHERE target_id = ? AND id = ?");
    remove.bind(1, targetId);
    remove.bind(2, localId);
    remove.exec();
    transaction.commit();
}

void SyncState::recordFailure(std::int64_t targetId, const SyncFailure &failure)
{
    ImmediateTransaction transaction(m_db);
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
    ImmediateTransaction transaction(m_db);
    SQLite::Statement remove(m_db, "DELETE FROM sync_failures WHERE target_id = ? AND id = ?");
    remove.bind(1, targetId);
    remove.bind(2, localId);
    remove.exec();
    transaction.commit();
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

PushPlan planPush(SQLite::Database &db, const Model &model, std::int64_t cursor, const std::string &url)
{
    PushPlan plan;
    plan.fromSeq = cursor;
    plan.toSeq = cursor;
    DeferredTransaction snapshot(db);

    struct Folded
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
    std::unordered_map<std::string, Folded> byDocument;
    std::vector<std::string> arrival;
    {
        SQLite::Statement changes(db, "SELECT seq, op, project, resource, id, identity, actor FROM changes "
                                      "WHERE seq > ? ORDER BY seq");
        changes.bind(1, cursor);
        const std::string skipActor = pullActor(url);
        while (changes.executeStep()) {
            const std::int64_t seq = changes.getColumn(0).getInt64();
            plan.toSeq = seq;
            if (changes.getColumn(6).getString() == skipActor)
                continue; // the target is where it came from
            const std::string id = changes.getColumn(4).getString();
            auto [it, fresh] = byDocument.try_emplace(id);
            Folded &folded = it->second;
            if (fresh) {
                arrival.push_back(id);
                folded.firstOp = changes.getColumn(1).getString();
                folded.firstSeq = seq;
            }
            folded.project = changes.getColumn(2).getString();
            folded.resource = changes.getColumn(3).getString();
            folded.lastOp = changes.getColumn(1).getString();
            folded.keyChanged = folded.keyChanged || folded.lastOp == "key-change";
            folded.lastIdentity = changes.getColumn(5).getString();
            folded.lastSeq = seq;
        }
    }

    SQLite::Statement current(db, "SELECT steward_text(body), steward_text(identity) FROM documents "
                                  "WHERE id_key = steward_id_key(?)");
    SQLite::Statement before(db, std::string("SELECT ") + kChangeIdentity + " FROM " + kChangesWithBodies
                                     + " WHERE " + kEntryOfDocument + " AND c.seq < ?2 ORDER BY c.seq DESC LIMIT 1");
    for (const std::string &id : arrival) {
        const Folded &folded = byDocument[id];
        const ResourceSchema *resource = model.findByName(folded.project, folded.resource);
        if (resource == nullptr)
            continue; // a resource the loaded model does not have cannot be sent
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
            if (folded.firstOp == "insert" && !targetMayKnowIt)
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
            if (!targetMayKnowIt)
                item.targetIdentity = item.identity;
            item.operation = folded.keyChanged && targetMayKnowIt ? PushItem::Operation::KeyChange
                                                                  : PushItem::Operation::Upsert;
        }
        plan.items.push_back(std::move(item));
    }

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
