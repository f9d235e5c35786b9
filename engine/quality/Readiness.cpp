#include "Readiness.h"

#include "Database.h"
#include "Exporter.h"
#include "Sync.h"

#include <SQLiteCpp/Statement.h>

#include <functional>
#include <map>
#include <set>
#include <utility>

namespace steward {

namespace {

using ResourceName = std::pair<std::string, std::string>; // project, resource

std::string plural(std::int64_t count, const std::string &one, const std::string &many)
{
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

// Documents whose last change is after seq, per resource: one per document however many changes
// it had, and a deleted document counts (the deletion is what has not left yet).
void countChangedDocuments(SQLite::Database &db, std::int64_t afterSeq, const std::string &skipActor,
                           const std::function<void(const ResourceName &, std::int64_t)> &add)
{
    SQLite::Statement query(db, "SELECT project, resource, COUNT(DISTINCT id_key) FROM changes "
                                "WHERE seq > ? AND actor <> ? GROUP BY project, resource");
    query.bind(1, static_cast<std::int64_t>(afterSeq));
    query.bind(2, skipActor);
    while (query.executeStep())
        add({query.getColumn(0).getString(), query.getColumn(1).getString()}, query.getColumn(2).getInt64());
}

} // namespace

std::string ReadinessReport::verdictText() const
{
    if (ready)
        return "Ready to submit";
    std::string text = "Not ready: ";
    for (std::size_t i = 0; i < reasons.size(); ++i)
        text += (i == 0 ? "" : ", ") + reasons[i];
    return text;
}

Json ReadinessReport::toJson() const
{
    Json rows = Json::array();
    for (const ResourceReadiness &r : resources) {
        Json synced = Json::array();
        for (std::size_t i = 0; i < targets.size() && i < r.changesNotSynced.size(); ++i)
            synced.push_back({{"url", targets[i].url}, {"client", targets[i].client}, {"changes", r.changesNotSynced[i]}});
        rows.push_back({{"project", r.project},
                        {"resource", r.resource},
                        {"documents", r.documents},
                        {"drafts", r.drafts},
                        {"fatal", r.fatal},
                        {"error", r.error},
                        {"warning", r.warning},
                        {"acknowledged", r.acknowledged},
                        {"info", r.info},
                        {"awaitingResubmit", r.awaitingResubmit},
                        {"changesNotExported", r.changesNotExported},
                        {"changesNotSynced", synced},
                        {"conflicts", r.conflicts}});
    }
    Json targetList = Json::array();
    for (const ReadinessTarget &t : targets)
        targetList.push_back({{"url", t.url}, {"client", t.client}, {"pushCursor", t.pushCursor}, {"conflicts", t.conflicts}});
    return {{"ready", ready},
            {"verdict", verdictText()},
            {"reasons", reasons},
            {"scope", scope},
            {"exported", exported},
            {"exportedUpTo", exportedUpTo},
            {"targets", targetList},
            {"unmatchedImported", unmatchedImported},
            {"resources", rows}};
}

bool readinessScope(const Model &model, const std::vector<std::string> &names,
                    std::vector<const ResourceSchema *> &scope, std::string &error)
{
    std::set<const ResourceSchema *> seen;
    for (const std::string &name : names) {
        const std::vector<const ResourceSchema *> matches = matchResources(model, name);
        if (matches.empty()) {
            error = "unknown resource '" + name + "': not an endpoint or resource name of " + model.describe();
            return false;
        }
        for (const ResourceSchema *resource : matches)
            if (seen.insert(resource).second)
                scope.push_back(resource);
    }
    return true;
}

namespace {

// The per-resource rows of a readiness report, only those in scope (all when the scope is empty).
class ReadinessRows
{
public:
    explicit ReadinessRows(const std::set<ResourceName> &inScope)
        : m_inScope(inScope)
    {
        for (const ResourceName &name : inScope)
            row(name);
    }
    ResourceReadiness *row(const ResourceName &name)
    {
        if (!m_inScope.empty() && !m_inScope.count(name))
            return nullptr;
        ResourceReadiness &r = m_rows[name];
        r.project = name.first;
        r.resource = name.second;
        return &r;
    }
    std::map<ResourceName, ResourceReadiness> &all() { return m_rows; }

private:
    const std::set<ResourceName> &m_inScope;
    std::map<ResourceName, ResourceReadiness> m_rows;
};

// A count per resource from a query whose first two columns are project and resource.
void countPerResource(SQLite::Database &db, const char *sql, ReadinessRows &rows,
                      std::int64_t ResourceReadiness::*field)
{
    SQLite::Statement query(db, sql);
    while (query.executeStep())
        if (ResourceReadiness *r = rows.row({query.getColumn(0).getString(), query.getColumn(1).getString()}))
            r->*field = query.getColumn(2).getInt64();
}

// Steward's results and the imported ones on stored documents, each with whether it was acknowledged
// and whether it waits for a resubmission.
void countResults(SQLite::Database &db, ReadinessRows &rows)
{
    // (The acknowledgement is looked up inside each branch: as a column of the union it was evaluated
    // twice a row, once for the select and once for the grouping.)
    SQLite::Statement query(
        db, "WITH x AS (SELECT r.project, r.resource, r.severity, 0 AS changed,"
            "                  EXISTS (SELECT 1 FROM acknowledgements a WHERE a.origin = r.pack_id"
            "                          AND a.rule_id = r.rule_id AND a.doc_id = r.doc_id) AS acked"
            "           FROM rule_results r"
            "           UNION ALL SELECT i.project, i.resource, i.severity, i.changed_since,"
            "                  EXISTS (SELECT 1 FROM acknowledgements a WHERE a.origin = i.source"
            "                          AND a.rule_id = i.rule_id AND a.doc_id = i.doc_id)"
            "           FROM imported_results i WHERE i.doc_id IS NOT NULL)"
            " SELECT project, resource, severity, changed, acked, COUNT(*) FROM x GROUP BY 1, 2, 3, 4, 5");
    while (query.executeStep()) {
        ResourceReadiness *r = rows.row({query.getColumn(0).getString(), query.getColumn(1).getString()});
        if (r == nullptr)
            continue;
        const std::string severity = query.getColumn(2).getString();
        const std::int64_t count = query.getColumn(5).getInt64();
        if (query.getColumn(3).getInt() != 0) {
            r->awaitingResubmit += count;
            continue;
        }
        (severity == "fatal" ? r->fatal : severity == "error" ? r->error : severity == "warning" ? r->warning : r->info) +=
            count;
        if (severity == "warning" && query.getColumn(4).getInt() != 0)
            r->acknowledged += count;
    }
}

// Changes not exported yet, and not pushed to each sync target; each target's open conflicts.
void countChanges(SQLite::Database &db, ReadinessReport &report, ReadinessRows &rows)
{
    {
        SQLite::Statement query(db, "SELECT COUNT(*), COALESCE(MAX(seq_to), 0) FROM batches");
        query.executeStep();
        report.exported = query.getColumn(0).getInt64() > 0;
        report.exportedUpTo = query.getColumn(1).getInt64();
    }
    // An actor no change can have: every change counts towards an export.
    countChangedDocuments(db, report.exportedUpTo, std::string(), [&](const ResourceName &name, std::int64_t count) {
        if (ResourceReadiness *r = rows.row(name))
            r->changesNotExported = count;
    });
    SyncState sync(db);
    for (const SyncTarget &target : sync.targets())
        report.targets.push_back({target.targetId, target.url, target.client, target.pushCursor});
    for (std::size_t t = 0; t < report.targets.size(); ++t) {
        // What a pull from this target wrote is not pushed back to it.
        countChangedDocuments(db, report.targets[t].pushCursor, pullActor(report.targets[t].url),
                              [&](const ResourceName &name, std::int64_t count) {
                                  if (ResourceReadiness *r = rows.row(name)) {
                                      r->changesNotSynced.resize(report.targets.size(), 0);
                                      r->changesNotSynced[t] = count;
                                  }
                              });
    }
    for (const SyncState::ConflictCount &open : sync.openConflictCounts()) {
        ResourceReadiness *r = rows.row({open.project, open.resource});
        if (r == nullptr)
            continue;
        r->conflicts += open.count;
        for (ReadinessTarget &target : report.targets)
            if (target.targetId == open.targetId)
                target.conflicts += open.count;
    }
}

// Why it is not ready, most serious first: drafts, fatal results, errors, warnings, conflicts.
void giveReasons(ReadinessReport &report)
{
    for (const ResourceReadiness &r : report.resources)
        if (r.drafts > 0)
            report.reasons.push_back(plural(r.drafts, "draft", "drafts") + " in " + r.resource);
    for (const ResourceReadiness &r : report.resources)
        if (r.fatal > 0)
            report.reasons.push_back(plural(r.fatal, "fatal result", "fatal results") + " in " + r.resource);
    for (const ResourceReadiness &r : report.resources)
        if (r.error > 0)
            report.reasons.push_back(plural(r.error, "error", "errors") + " in " + r.resource);
    for (const ResourceReadiness &r : report.resources)
        if (r.warning > r.acknowledged)
            report.reasons.push_back(plural(r.warning - r.acknowledged, "unacknowledged warning",
                                            "unacknowledged warnings") +
                                     " in " + r.resource);
    for (const ReadinessTarget &target : report.targets)
        if (target.conflicts > 0)
            report.reasons.push_back(plural(target.conflicts, "unresolved sync conflict", "unresolved sync conflicts") +
                                     " with " + target.url);
    report.ready = report.reasons.empty();
}

} // namespace

ReadinessReport computeReadiness(SQLite::Database &db, const std::vector<const ResourceSchema *> &scope)
{
    ReadinessReport report;
    std::set<ResourceName> inScope;
    for (const ResourceSchema *resource : scope) {
        inScope.insert({resource->projectName(), resource->resourceName});
        report.scope.push_back(resource->projectName() + "/" + resource->resourceName);
    }
    ReadinessRows rows(inScope);
    DeferredTransaction read(db);
    countPerResource(db, "SELECT project, resource, COUNT(*) FROM documents GROUP BY project, resource", rows,
                     &ResourceReadiness::documents);
    countPerResource(db, "SELECT project, resource, COUNT(*) FROM drafts GROUP BY project, resource", rows,
                     &ResourceReadiness::drafts);
    countResults(db, rows);
    {
        // Each source keeps its counts: no scan of its results on every recount.
        SQLite::Statement query(db, "SELECT coalesce(sum(row_count - matched), 0) FROM result_sources");
        query.executeStep();
        report.unmatchedImported = query.getColumn(0).getInt64();
    }
    countChanges(db, report, rows);
    for (auto &[name, r] : rows.all()) {
        r.changesNotSynced.resize(report.targets.size(), 0);
        report.resources.push_back(r);
    }
    giveReasons(report);
    return report;
}

} // namespace steward
