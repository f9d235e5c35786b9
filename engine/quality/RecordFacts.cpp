#include "RecordFacts.h"

#include "Database.h"
#include "ExternalResults.h"
#include "ResponseText.h"
#include "Rules.h"
#include "Sync.h"

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <set>

namespace steward {

RuleCatalog RuleCatalog::read(SQLite::Database &db, const Model &model)
{
    RuleCatalog catalog;
    std::set<std::string> packIds;
    SQLite::Statement packs(db, "SELECT DISTINCT pack_id FROM rule_results");
    while (packs.executeStep())
        packIds.insert(packs.getColumn(0).getString());
    for (const std::string &packId : packIds) {
        try {
            const RulePack pack = resolveRulePack(&db, packId, model);
            for (const Rule &rule : pack.rules)
                catalog.m_rules[{packId, rule.id}] = RuleText{rule.title, rule.fix};
        } catch (const std::exception &) {
            // A pack that cannot be read any more (a model without its resources): its results
            // still show, by their rule ids.
        }
    }
    return catalog;
}

const RuleText *RuleCatalog::find(const std::string &packId, const std::string &ruleId) const
{
    const auto it = m_rules.find({packId, ruleId});
    return it == m_rules.end() ? nullptr : &it->second;
}

const char *recordFactKindName(RecordFact::Kind kind)
{
    switch (kind) {
    case RecordFact::Kind::Validation:
        return "validation";
    case RecordFact::Kind::Rule:
        return "rule";
    case RecordFact::Kind::Imported:
        return "imported";
    case RecordFact::Kind::Draft:
        return "draft";
    case RecordFact::Kind::Conflict:
        return "conflict";
    }
    return "validation";
}

int severityRank(const std::string &severity)
{
    if (severity == "fatal")
        return 0;
    if (severity == "error")
        return 1;
    if (severity == "warning")
        return 2;
    if (severity == "info")
        return 3;
    return 4;
}

Json RecordFact::toJson() const
{
    Json out = {{"kind", recordFactKindName(kind)}, {"severity", severity}, {"code", code}, {"title", title},
                {"message", message}};
    if (!fix.empty())
        out["fix"] = fix;
    if (!field.empty())
        out["field"] = field;
    if (!source.empty())
        out["source"] = source;
    if (acknowledged)
        out["acknowledged"] = {{"by", ackActor}, {"reason", ackReason}, {"at", ackAt}};
    if (changedSince)
        out["changedSince"] = true;
    if (draftId != 0)
        out["draftId"] = draftId;
    if (!targetUrl.empty())
        out["target"] = targetUrl;
    return out;
}

std::string RecordFacts::worstSeverity() const
{
    std::string worst;
    for (const RecordFact &fact : facts)
        if (!fact.acknowledged && (worst.empty() || severityRank(fact.severity) < severityRank(worst)))
            worst = fact.severity;
    return worst;
}

Json RecordFacts::toJson() const
{
    Json out = {{"id", id}, {"stored", stored}, {"project", project}, {"resource", resource},
                {"naturalKey", naturalKey}, {"worstSeverity", worstSeverity()}, {"facts", Json::array()}};
    if (!etag.empty())
        out["etag"] = etag;
    for (const RecordFact &fact : facts)
        out["facts"].push_back(fact.toJson());
    return out;
}

namespace {

// One fact per field the problem names (or one for the whole problem).
void addProblemFacts(const Json &problem, RecordFact base, std::vector<RecordFact> &facts)
{
    if (!problem.is_object())
        return;
    base.code = problem.value("type", std::string());
    base.title = problemTypeTitle(base.code);
    base.fix = problemTypeFix(base.code);
    bool perField = false;
    if (auto errors = problem.find("validationErrors"); errors != problem.end() && errors->is_object())
        for (const auto &[path, messages] : errors->items()) {
            RecordFact fact = base;
            fact.field = path;
            for (const Json &message : messages.is_array() ? messages : Json::array({messages}))
                if (message.is_string())
                    fact.message += (fact.message.empty() ? "" : " ") + message.get<std::string>();
            facts.push_back(std::move(fact));
            perField = true;
        }
    if (!perField) {
        base.message = problemSummary(problem);
        facts.push_back(std::move(base));
    }
}

void addValidationFacts(Engine &engine, const StoredDocument &document, std::vector<RecordFact> &facts)
{
    const ResourceSchema *resource = engine.model().findByName(document.project, document.resource);
    if (resource == nullptr) {
        RecordFact fact;
        fact.severity = "fatal";
        fact.code = "not-in-model";
        fact.title = "Its resource is not in the loaded model";
        fact.message = document.project + " " + document.resource + " is not a resource of the model this database was opened with.";
        fact.fix = "Open the database with the model it was made with.";
        fact.source = "Steward (validation)";
        facts.push_back(std::move(fact));
        return;
    }
    const Json body = Json::parse(document.body, nullptr, false);
    const Response response =
        engine.validate(Request::make("PUT", resource->requestPath(document.id), currentOsUser(), body));
    if (succeeded(response))
        return;
    RecordFact base;
    base.severity = "fatal";
    base.source = "Steward (validation)";
    addProblemFacts(response.body, base, facts);
}

void addResultFacts(SQLite::Database &db, const std::string &id, const RuleCatalog &rules,
                    std::vector<RecordFact> &facts)
{
    QualityResultFilter filter;
    filter.docId = id;
    for (const QualityResult &result : readQualityResults(db, filter)) {
        RecordFact fact;
        fact.kind = result.originKind == "rules" ? RecordFact::Kind::Rule : RecordFact::Kind::Imported;
        fact.severity = result.severity;
        fact.code = result.ruleId;
        fact.message = result.message;
        fact.source = result.originLabel;
        if (fact.kind == RecordFact::Kind::Imported && result.row > 0)
            fact.source += ", row " + std::to_string(result.row);
        fact.origin = result.origin;
        if (const RuleText *text = fact.kind == RecordFact::Kind::Rule ? rules.find(result.origin, result.ruleId) : nullptr) {
            fact.title = text->title;
            fact.fix = text->fix;
        }
        if (fact.title.empty())
            fact.title = result.ruleId;
        if (fact.kind == RecordFact::Kind::Imported && fact.fix.empty())
            fact.fix = result.changedSince ? "Edited since the state ran its rules: submit again to clear it."
                                           : "Correct the record as the message says, then submit again.";
        fact.acknowledged = result.acknowledged;
        fact.ackActor = result.ackActor;
        fact.ackReason = result.ackReason;
        fact.ackAt = result.ackAt;
        fact.changedSince = result.changedSince;
        facts.push_back(std::move(fact));
    }
}

void addDraftFacts(SQLite::Database &db, const std::string &id, std::vector<RecordFact> &facts)
{
    SQLite::Statement drafts(db, "SELECT draft_id, problem, actor, updated_at FROM drafts WHERE target_id = ?"
                                 " ORDER BY draft_id");
    drafts.bind(1, id);
    while (drafts.executeStep()) {
        RecordFact base;
        base.kind = RecordFact::Kind::Draft;
        base.severity = "fatal";
        base.draftId = drafts.getColumn(0).getInt64();
        base.source = "draft #" + std::to_string(base.draftId) + " by " + drafts.getColumn(2).getString() + ", "
                      + drafts.getColumn(3).getString();
        const Json problem = Json::parse(drafts.getColumn(1).getString(), nullptr, false);
        if (problem.is_object()) {
            addProblemFacts(problem, base, facts);
            for (RecordFact &fact : facts)
                if (fact.draftId == base.draftId && fact.kind == RecordFact::Kind::Draft)
                    fact.title = "An edit kept as a draft: " + fact.title;
        } else {
            base.code = "draft";
            base.title = "An edit kept as a draft";
            base.message = "It would pass now.";
            base.fix = "Open the draft and save it.";
            facts.push_back(std::move(base));
        }
    }
}

void addConflictFacts(SQLite::Database &db, const std::string &id, std::vector<RecordFact> &facts)
{
    SyncState sync(db);
    for (const SyncTarget &target : sync.targets()) {
        const std::optional<SyncConflict> conflict = sync.conflict(target.targetId, id);
        if (!conflict || !sync.isOpen(*conflict))
            continue;
        RecordFact fact;
        fact.kind = RecordFact::Kind::Conflict;
        fact.severity = "fatal";
        fact.code = conflictKindName(conflict->kind);
        fact.title = conflictKindTitle(conflict->kind);
        fact.message = conflict->reason;
        fact.fix = "Decide which version to keep, field by field (Decide…); the push holds it back until then.";
        fact.targetId = target.targetId;
        fact.targetUrl = target.url;
        fact.source = "sync with " + fact.targetUrl + ", found " + conflict->foundAt;
        facts.push_back(std::move(fact));
    }
}

} // namespace

RecordFacts readRecordFacts(Engine &engine, const std::string &id, const RecordFactsOptions &options)
{
    RecordFacts out;
    out.id = id;
    SQLite::Database &db = engine.database().connection();
    const std::optional<StoredDocument> document = engine.document(id);
    if (document) {
        out.stored = true;
        out.id = document->id;
        out.project = document->project;
        out.resource = document->resource;
        out.etag = document->etag;
        const Json identity = Json::parse(document->identity, nullptr, false);
        out.naturalKey = identity.is_discarded() ? std::string() : naturalKeyText(identity);
        if (options.validateStored)
            addValidationFacts(engine, *document, out.facts);
    }
    const RuleCatalog ownRules = options.rules != nullptr ? RuleCatalog() : RuleCatalog::read(db, engine.model());
    DeferredTransaction read(db);
    addResultFacts(db, out.id, options.rules != nullptr ? *options.rules : ownRules, out.facts);
    addDraftFacts(db, out.id, out.facts);
    addConflictFacts(db, out.id, out.facts);
    std::stable_sort(out.facts.begin(), out.facts.end(), [](const RecordFact &a, const RecordFact &b) {
        if (a.acknowledged != b.acknowledged)
            return !a.acknowledged;
        return severityRank(a.severity) < severityRank(b.severity);
    });
    return out;
}

std::unordered_map<std::string, std::string> worstSeverityByRecord(SQLite::Database &db, const std::string &project,
                                                                   const std::string &resource)
{
    std::unordered_map<std::string, std::string> worst;
    auto note = [&worst](const std::string &id, const std::string &severity) {
        auto [it, added] = worst.emplace(id, severity);
        if (!added && severityRank(severity) < severityRank(it->second))
            it->second = severity;
    };
    DeferredTransaction read(db);
    SQLite::Statement results(
        db, "SELECT r.doc_id, r.severity FROM rule_results r WHERE r.project = ?1 AND r.resource = ?2"
            " AND NOT EXISTS (SELECT 1 FROM acknowledgements a WHERE a.origin = r.pack_id AND a.rule_id = r.rule_id"
            "                 AND a.doc_id = r.doc_id)"
            " UNION ALL SELECT i.doc_id, i.severity FROM imported_results i"
            " WHERE i.project = ?1 AND i.resource = ?2 AND i.doc_id IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM acknowledgements a WHERE a.origin = i.source AND a.rule_id = i.rule_id"
            "                 AND a.doc_id = i.doc_id)"
            " UNION ALL SELECT d.target_id, 'fatal' FROM drafts d"
            " WHERE d.project = ?1 AND d.resource = ?2 AND d.target_id IS NOT NULL"
            " UNION ALL SELECT c.id, 'fatal' FROM open_sync_conflicts c WHERE c.project = ?1 AND c.resource = ?2");
    results.bind(1, project);
    results.bind(2, resource);
    while (results.executeStep())
        note(results.getColumn(0).getString(), results.getColumn(1).getString());
    return worst;
}

} // namespace steward
