// The typed views the desktop app reads: counts, references both ways, history, drafts, lookups.
#include "Clock.h"
#include "Engine.h"
#include "Text.h"


#include <SQLiteCpp/Statement.h>

#include <set>

namespace steward {

namespace {

Draft readDraft(SQLite::Statement &s)
{
    Draft d;
    d.draftId = s.getColumn(0).getInt64();
    d.project = s.getColumn(1).getString();
    d.resource = s.getColumn(2).getString();
    d.targetId = s.getColumn(3).isNull() ? std::string() : s.getColumn(3).getString();
    d.text = s.getColumn(4).getString();
    d.problem = Json::parse(s.getColumn(5).getString());
    d.createdAt = s.getColumn(6).getString();
    d.updatedAt = s.getColumn(7).getString();
    d.actor = s.getColumn(8).getString();
    return d;
}

const char *const kDraftColumns = "draft_id, project, resource, target_id, body_text, problem, created_at, updated_at, actor";

} // namespace

std::vector<ResourceCount> Engine::resourceCounts()
{
    return readResourceCounts(m_database.connection());
}

std::vector<ResourceCount> readResourceCounts(SQLite::Database &db)
{
    DeferredTransaction read(db);
    std::map<std::pair<std::string, std::string>, ResourceCount> counts;
    SQLite::Statement documents(db,
                                "SELECT project, resource, count(*) FROM documents GROUP BY project, resource");
    while (documents.executeStep()) {
        ResourceCount &c = counts[{documents.getColumn(0).getString(), documents.getColumn(1).getString()}];
        c.project = documents.getColumn(0).getString();
        c.resource = documents.getColumn(1).getString();
        c.documents = documents.getColumn(2).getInt64();
    }
    SQLite::Statement drafts(db, "SELECT project, resource, count(*) FROM drafts GROUP BY project, resource");
    while (drafts.executeStep()) {
        ResourceCount &c = counts[{drafts.getColumn(0).getString(), drafts.getColumn(1).getString()}];
        c.project = drafts.getColumn(0).getString();
        c.resource = drafts.getColumn(1).getString();
        c.drafts = drafts.getColumn(2).getInt64();
    }
    std::vector<ResourceCount> out;
    for (auto &[key, count] : counts)
        out.push_back(count);
    return out;
}

std::optional<StoredDocument> Engine::document(const std::string &id)
{
    std::optional<DeferredTransaction> read;
    if (!m_inBatch)
        read.emplace(m_database.connection());
    return m_store.findById(canonicalDocumentId(id));
}

std::vector<OutgoingReference> Engine::outgoingReferences(const std::string &id)
{
    DeferredTransaction read(m_database.connection());
    std::vector<OutgoingReference> out;
    std::optional<StoredDocument> doc = m_store.findById(id);
    if (!doc)
        return out;
    const ResourceSchema *resource = m_model.findByName(doc->project, doc->resource);
    if (resource == nullptr)
        return out;
    const Json body = Json::parse(doc->body);
    auto resolve = [&](OutgoingReference &ref, const Uuid &referentialId) {
        if (std::optional<AliasRow> alias = m_store.findAlias(referentialId))
            if (std::optional<StoredDocument> target = m_store.findByKey(alias->docKey)) {
                ref.targetId = target->id;
                ref.storedResource = target->resource;
            }
    };
    // References first, then descriptors: the order the references pane shows them in.
    const std::vector<BodyReference> found = m_identity.referencesIn(*resource, body);
    for (bool descriptors : {false, true}) {
        for (const BodyReference &item : found) {
            if (item.isDescriptor() != descriptors || !item.identity)
                continue;
            OutgoingReference ref;
            ref.path = item.path;
            ref.targetProject = item.targetProject();
            ref.targetResource = item.targetResource();
            ref.isDescriptor = item.isDescriptor();
            ref.naturalKey = item.isDescriptor() ? item.value->get<std::string>() : naturalKeyText(*item.value);
            resolve(ref, item.identity->referentialId());
            out.push_back(std::move(ref));
        }
    }
    return out;
}

ReferrerPage Engine::referrers(const std::string &id, int limit, int offset)
{
    DeferredTransaction read(m_database.connection());
    ReferrerPage page;
    std::optional<StoredDocument> target = m_store.findById(id);
    if (!target)
        return page;
    page.total = m_store.countReferencing(target->docKey);
    std::set<Uuid> targetIds;
    for (const auto &[aliasKey, referentialId] : m_store.aliasesOf(target->docKey))
        targetIds.insert(referentialId);
    SQLite::Statement s(m_database.connection(),
                        "SELECT doc_key FROM documents WHERE doc_key IN (SELECT r.from_doc FROM aliases a JOIN refs r "
                        "ON r.to_alias = a.alias_key WHERE a.doc_key = ? AND r.from_doc <> a.doc_key) "
                        "ORDER BY resource, natural_key, doc_key LIMIT ? OFFSET ?");
    s.bind(1, target->docKey);
    s.bind(2, limit);
    s.bind(3, offset);
    std::vector<std::int64_t> keys;
    while (s.executeStep())
        keys.push_back(s.getColumn(0).getInt64());
    for (std::int64_t key : keys) {
        std::optional<StoredDocument> doc = m_store.findByKey(key);
        if (!doc)
            continue;
        Referrer referrer;
        referrer.project = doc->project;
        referrer.resource = doc->resource;
        referrer.id = doc->id;
        referrer.identity = Json::parse(doc->identity);
        referrer.naturalKey = naturalKeyText(referrer.identity);
        if (const ResourceSchema *schema = m_model.findByName(doc->project, doc->resource)) {
            const Json body = Json::parse(doc->body);
            for (const ReferenceMapping &reference : schema->references)
                for (const JsonPath::Match &occurrence : reference.objectPath.select(body))
                    if (auto identity = m_identity.referenceIdentity(reference, body, occurrence.indices);
                        identity && targetIds.count(identity->referentialId()))
                        referrer.paths.push_back(occurrence.concretePath);
            for (const DescriptorMapping &descriptor : schema->descriptors)
                for (const JsonPath::Match &match : descriptor.path.select(body))
                    if (match.value->is_string()
                        && targetIds.count(IdentityCalculator::descriptorIdentity(descriptor.descriptorProjectName,
                                                                                  descriptor.descriptorResourceName,
                                                                                  match.value->get<std::string>())
                                               .referentialId()))
                        referrer.paths.push_back(match.concretePath);
        }
        page.items.push_back(std::move(referrer));
    }
    return page;
}

std::vector<HistoryEntry> Engine::history(const std::string &id)
{
    DeferredTransaction read(m_database.connection());
    SQLite::Statement s(m_database.connection(), std::string("SELECT c.seq, c.op, ") + kChangeAt + ", c.actor, c.source, " + kChangeBody
                                                     + " FROM " + kChangesWithBodies
                                                     + " WHERE " + kEntryOfDocument + " ORDER BY c.seq DESC");
    s.bind(1, id);
    std::vector<HistoryEntry> out;
    while (s.executeStep()) {
        HistoryEntry e;
        e.seq = s.getColumn(0).getInt64();
        e.op = s.getColumn(1).getString();
        e.at = s.getColumn(2).getString();
        e.actor = s.getColumn(3).getString();
        e.source = s.getColumn(4).isNull() ? std::string() : s.getColumn(4).getString();
        if (!s.getColumn(5).isNull())
            e.body = Json::parse(s.getColumn(5).getString());
        out.push_back(std::move(e));
    }
    return out;
}

std::string Engine::setChangeSource(const std::string &source)
{
    std::string previous = m_store.changeSource();
    m_store.setChangeSource(source);
    return previous;
}

ChangeSourceScope::ChangeSourceScope(Engine &engine, const std::string &source)
    : m_engine(engine)
    , m_previous(engine.setChangeSource(source))
{
}

ChangeSourceScope::~ChangeSourceScope()
{
    m_engine.setChangeSource(m_previous);
}

std::int64_t Engine::newestChange()
{
    DeferredTransaction read(m_database.connection());
    return m_store.newestChangeVersion();
}

std::vector<DocumentChange> Engine::documentsChangedSince(std::int64_t seq)
{
    SQLite::Database &db = m_database.connection();
    DeferredTransaction read(db);
    // The entries after seq by their key (a range of the primary key), each document once: grouping
    // by id in SQL made the planner walk the whole change log through its id index.
    SQLite::Statement written(db, "SELECT id, project, resource FROM changes WHERE seq > ? ORDER BY seq");
    SQLite::Statement before(db, std::string("SELECT c.op, ") + kChangeBody + " FROM " + kChangesWithBodies
                                     + " WHERE " + kEntryOfDocument + " AND c.seq <= ?2 ORDER BY c.seq DESC LIMIT 1");
    written.bind(1, seq);
    std::vector<DocumentChange> out;
    std::set<std::string> seen;
    while (written.executeStep()) {
        DocumentChange change;
        change.id = written.getColumn(0).getString();
        if (!seen.insert(change.id).second)
            continue;
        change.project = written.getColumn(1).getString();
        change.resource = written.getColumn(2).getString();
        before.reset();
        before.bind(1, change.id);
        before.bind(2, seq);
        if (before.executeStep() && before.getColumn(0).getString() != "delete" && !before.getColumn(1).isNull())
            change.before = before.getColumn(1).getString();
        if (std::optional<StoredDocument> now = m_store.findById(change.id)) {
            change.after = now->body;
            change.afterEtag = now->etag;
        }
        out.push_back(std::move(change));
    }
    return out;
}

Request Engine::draftRequest(const ResourceSchema &resource, const std::string &targetId, const Json &body) const
{
    Request request;
    request.method = targetId.empty() ? "POST" : "PUT";
    request.path = resource.requestPath(targetId);
    request.body = body;
    return request;
}

Json Engine::draftProblem(const ResourceSchema &resource, const std::string &text, const std::string &targetId)
{
    JsonParseResult parsed = parseJson(text);
    if (!parsed.value)
        return problem::make(400, problem::kBadRequest, "Bad Request", "The draft is not valid JSON: " + parsed.error)
            .body;
    Response response = validate(draftRequest(resource, targetId, *parsed.value));
    return response.status >= 400 ? response.body : Json();
}

std::int64_t Engine::keepDraft(const std::string &project, const std::string &resource, const std::string &text,
                               const Json &problemBody, const std::string &actor)
{
    SQLite::Database &db = m_database.connection();
    const std::string hash = sha256Hex(text);
    std::optional<ImmediateTransaction> transaction;
    if (!m_inBatch)
        transaction.emplace(db);
    const std::string now = engineNowText();
    SQLite::Statement update(db, "UPDATE drafts SET problem = ?, updated_at = ? WHERE project = ? AND resource = ? "
                                 "AND text_hash = ? AND target_id IS NULL");
    // dumpJson, not dump(): problems quote input (values, file names) that need not be valid UTF-8,
    // and dump() threw on it, which stopped the import that was keeping the draft.
    update.bind(1, dumpJson(problemBody));
    update.bind(2, now);
    update.bind(3, project);
    update.bind(4, resource);
    update.bind(5, hash);
    std::int64_t id = 0;
    if (update.exec() > 0) {
        SQLite::Statement find(db, "SELECT draft_id FROM drafts WHERE project = ? AND resource = ? AND text_hash = ? "
                                   "AND target_id IS NULL LIMIT 1");
        find.bind(1, project);
        find.bind(2, resource);
        find.bind(3, hash);
        if (find.executeStep())
            id = find.getColumn(0).getInt64();
    } else {
        SQLite::Statement insert(db, "INSERT INTO drafts (project, resource, target_id, body_text, problem, created_at, "
                                     "updated_at, actor, text_hash) VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?)");
        insert.bind(1, project);
        insert.bind(2, resource);
        insert.bind(3, text);
        insert.bind(4, dumpJson(problemBody));
        insert.bind(5, now);
        insert.bind(6, now);
        insert.bind(7, actor.empty() ? currentOsUser() : actor);
        insert.bind(8, hash);
        insert.exec();
        id = db.getLastInsertRowid();
    }
    if (transaction)
        transaction->commit();
    return id;
}

std::int64_t Engine::saveDraft(const ResourceSchema &resource, const std::string &text, const std::string &targetId,
                               std::int64_t draftId, const std::string &actor)
{
    const Json problemBody = draftProblem(resource, text, targetId);
    const std::string now = engineNowText();
    ImmediateTransaction transaction(m_database.connection());
    SQLite::Database &db = m_database.connection();
    if (draftId > 0) {
        SQLite::Statement update(db, "UPDATE drafts SET body_text = ?, problem = ?, target_id = ?, updated_at = ? "
                                     "WHERE draft_id = ?");
        update.bind(1, text);
        update.bind(2, dumpJson(problemBody));
        if (targetId.empty())
            update.bind(3);
        else
            update.bind(3, targetId);
        update.bind(4, now);
        update.bind(5, draftId);
        if (update.exec() == 0)
            draftId = 0;
    }
    if (draftId <= 0) {
        SQLite::Statement insert(db, "INSERT INTO drafts (project, resource, target_id, body_text, problem, created_at, "
                                     "updated_at, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        insert.bind(1, resource.projectName());
        insert.bind(2, resource.resourceName);
        if (targetId.empty())
            insert.bind(3);
        else
            insert.bind(3, targetId);
        insert.bind(4, text);
        insert.bind(5, dumpJson(problemBody));
        insert.bind(6, now);
        insert.bind(7, now);
        insert.bind(8, actor.empty() ? currentOsUser() : actor);
        insert.exec();
        draftId = db.getLastInsertRowid();
    }
    transaction.commit();
    return draftId;
}

std::vector<Draft> Engine::drafts(const std::string &project, const std::string &resource)
{
    DeferredTransaction read(m_database.connection());
    SQLite::Statement s(m_database.connection(), std::string("SELECT ") + kDraftColumns
                                                     + " FROM drafts WHERE project = ? AND resource = ? ORDER BY draft_id");
    s.bind(1, project);
    s.bind(2, resource);
    std::vector<Draft> out;
    while (s.executeStep())
        out.push_back(readDraft(s));
    return out;
}

std::optional<Draft> Engine::draft(std::int64_t draftId)
{
    std::optional<DeferredTransaction> read;
    if (!m_inBatch)
        read.emplace(m_database.connection());
    SQLite::Statement s(m_database.connection(), std::string("SELECT ") + kDraftColumns + " FROM drafts WHERE draft_id = ?");
    s.bind(1, draftId);
    if (!s.executeStep())
        return std::nullopt;
    return readDraft(s);
}

bool Engine::deleteDraft(std::int64_t draftId)
{
    std::optional<ImmediateTransaction> transaction;
    if (!m_inBatch)
        transaction.emplace(m_database.connection());
    SQLite::Statement s(m_database.connection(), "DELETE FROM drafts WHERE draft_id = ?");
    s.bind(1, draftId);
    const bool removed = s.exec() > 0;
    if (transaction)
        transaction->commit();
    return removed;
}

namespace {

// keepDraft deduplicates drafts of new documents by this hash; a draft whose text changes must
// carry the hash of its new text, or a later import of the old text would land on it.
void bindTextHash(SQLite::Statement &s, int index, const std::string &text, const std::string &targetId)
{
    if (!targetId.empty()) {
        s.bind(index);
        return;
    }
    s.bind(index, sha256Hex(text));
}

} // namespace

bool Engine::updateDraft(std::int64_t draftId, const std::string &text, const Json &problemBody,
                         const std::string &updatedAt)
{
    SQLite::Database &db = m_database.connection();
    std::optional<ImmediateTransaction> transaction;
    if (!m_inBatch)
        transaction.emplace(db);
    std::string targetId;
    {
        SQLite::Statement find(db, "SELECT target_id FROM drafts WHERE draft_id = ?");
        find.bind(1, draftId);
        if (!find.executeStep())
            return false;
        targetId = find.getColumn(0).isNull() ? std::string() : find.getColumn(0).getString();
    }
    SQLite::Statement update(db, "UPDATE drafts SET body_text = ?, problem = ?, updated_at = ?, text_hash = ? "
                                 "WHERE draft_id = ?");
    update.bind(1, text);
    update.bind(2, dumpJson(problemBody));
    update.bind(3, updatedAt.empty() ? engineNowText() : updatedAt);
    bindTextHash(update, 4, text, targetId);
    update.bind(5, draftId);
    update.exec();
    if (transaction)
        transaction->commit();
    return true;
}

std::int64_t Engine::restoreDraft(const Draft &d)
{
    SQLite::Database &db = m_database.connection();
    std::optional<ImmediateTransaction> transaction;
    if (!m_inBatch)
        transaction.emplace(db);
    bool idFree = true;
    {
        SQLite::Statement taken(db, "SELECT 1 FROM drafts WHERE draft_id = ?");
        taken.bind(1, d.draftId);
        idFree = !taken.executeStep();
    }
    SQLite::Statement insert(db, "INSERT INTO drafts (draft_id, project, resource, target_id, body_text, problem, "
                                 "created_at, updated_at, actor, text_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (idFree)
        insert.bind(1, d.draftId);
    else
        insert.bind(1);
    insert.bind(2, d.project);
    insert.bind(3, d.resource);
    if (d.targetId.empty())
        insert.bind(4);
    else
        insert.bind(4, d.targetId);
    insert.bind(5, d.text);
    insert.bind(6, dumpJson(d.problem));
    insert.bind(7, d.createdAt);
    insert.bind(8, d.updatedAt);
    insert.bind(9, d.actor.empty() ? currentOsUser() : d.actor);
    bindTextHash(insert, 10, d.text, d.targetId);
    insert.exec();
    const std::int64_t id = db.getLastInsertRowid();
    if (transaction)
        transaction->commit();
    return id;
}

RevalidateReport Engine::revalidateDrafts(const std::function<bool(int, int)> &progress)
{
    std::vector<std::int64_t> ids;
    {
        DeferredTransaction read(m_database.connection());
        // Load order matters: a School draft promoted first lets its Course drafts pass in the same run,
        // so drafts are retried in rounds until a round promotes nothing.
        SQLite::Statement s(m_database.connection(), "SELECT draft_id FROM drafts ORDER BY draft_id");
        while (s.executeStep())
            ids.push_back(s.getColumn(0).getInt64());
    }
    RevalidateReport report;
    const int total = static_cast<int>(ids.size());
    int done = 0;
    for (bool promotedThisRound = true; promotedThisRound && !ids.empty();) {
        promotedThisRound = false;
        std::vector<std::int64_t> left;
        for (std::int64_t id : ids) {
            if (progress && !progress(done, total)) {
                report.cancelled = true;
                report.remaining = total - report.promoted;
                return report;
            }
            std::optional<Draft> d = draft(id);
            if (!d)
                continue;
            const ResourceSchema *resource = m_model.findByName(d->project, d->resource);
            JsonParseResult parsed = parseJson(d->text);
            bool stored = false;
            if (resource != nullptr && parsed.value) {
                Request request = draftRequest(*resource, d->targetId, *parsed.value);
                Response response = handle(request);
                stored = response.status >= 200 && response.status < 300;
                if (!stored)
                    saveDraft(*resource, d->text, d->targetId, id);
            }
            if (stored) {
                deleteDraft(id);
                ++report.promoted;
                promotedThisRound = true;
                ++done;
            } else {
                left.push_back(id);
            }
        }
        ids = std::move(left);
    }
    report.remaining = static_cast<int>(ids.size());
    if (progress)
        progress(total, total);
    return report;
}

std::vector<StoredDocument> Engine::lookup(const std::string &project, const std::string &resource,
                                           const std::string &prefix, int limit)
{
    std::vector<std::pair<std::string, std::string>> targets;
    if (const AbstractResource *abstract = m_model.findAbstract(project, resource)) {
        for (const ResourceSchema *subclass : abstract->subclasses)
            targets.emplace_back(subclass->projectName(), subclass->resourceName);
    } else {
        targets.emplace_back(project, resource);
    }
    DeferredTransaction read(m_database.connection());
    std::vector<StoredDocument> out;
    for (const auto &[p, r] : targets) {
        SQLite::Statement s(m_database.connection(),
                            "SELECT id FROM documents WHERE project = ? AND resource = ? AND natural_key LIKE ? "
                            "ESCAPE '\\' ORDER BY natural_key LIMIT ?");
        std::string pattern;
        for (char c : prefix) {
            if (c == '%' || c == '_' || c == '\\')
                pattern += '\\';
            pattern += c;
        }
        s.bind(1, p);
        s.bind(2, r);
        s.bind(3, pattern + "%");
        s.bind(4, limit);
        std::vector<std::string> ids;
        while (s.executeStep())
            ids.push_back(s.getColumn(0).getString());
        for (const std::string &id : ids)
            if (std::optional<StoredDocument> doc = m_store.findById(id))
                out.push_back(std::move(*doc));
    }
    if (static_cast<int>(out.size()) > limit)
        out.resize(limit);
    return out;
}

} // namespace steward
