#include "QualityRows.h"

#include "Database.h"
#include "ExternalResults.h"
#include "Json.h"
#include "RecordFacts.h"
#include "ResponseText.h"
#include "Sync.h"

#include <SQLiteCpp/Statement.h>

#include <map>

namespace steward {

std::string genericPath(const std::string &concretePath)
{
    std::string out;
    for (std::size_t i = 0; i < concretePath.size(); ++i) {
        if (concretePath[i] == '[') {
            const std::size_t close = concretePath.find(']', i);
            if (close != std::string::npos
                && concretePath.find_first_not_of("0123456789", i + 1) == close && close > i + 1) {
                out += "[*]";
                i = close;
                continue;
            }
        }
        out += concretePath[i];
    }
    return out;
}

std::vector<QualityRow> readQualityRows(SQLite::Database &db, const RuleCatalog *rules)
{
    DeferredTransaction read(db);
    std::vector<QualityRow> rows;
    SQLite::Statement drafts(db, "SELECT draft_id, project, resource, target_id, problem FROM drafts ORDER BY draft_id");
    while (drafts.executeStep()) {
        QualityRow base;
        base.kind = QualityRow::Kind::Draft;
        base.severity = "fatal";
        base.draftId = drafts.getColumn(0).getInt64();
        base.source = "Steward (drafts)";
        base.project = drafts.getColumn(1).getString();
        base.resource = drafts.getColumn(2).getString();
        base.docId = drafts.getColumn(3).isNull() ? std::string() : drafts.getColumn(3).getString();
        base.key = "draft " + std::to_string(base.draftId);
        JsonParseResult problem = parseJson(drafts.getColumn(4).getString());
        const Json body = problem.value ? *problem.value : Json();
        base.cause = body.is_object() ? body.value("type", std::string()) : std::string();
        if (base.cause.empty())
            base.cause = body.is_null() ? "would pass now" : "unknown";
        base.title = body.is_null() ? "It would pass now: save it" : problemTypeTitle(base.cause);
        base.message = body.is_object() ? body.value("detail", std::string()) : std::string();
        bool perField = false;
        if (body.is_object())
            if (auto errors = body.find("validationErrors"); errors != body.end() && errors->is_object())
                for (const auto &[path, messages] : errors->items()) {
                    QualityRow row = base;
                    row.field = genericPath(path);
                    std::string text;
                    if (messages.is_array())
                        for (const Json &m : messages)
                            if (m.is_string())
                                text += (text.empty() ? "" : " ") + m.get<std::string>();
                    if (!text.empty())
                        row.message = text;
                    rows.push_back(std::move(row));
                    perField = true;
                }
        if (!perField) {
            if (body.is_object())
                if (auto errors = body.find("errors"); errors != body.end() && errors->is_array())
                    for (const Json &m : *errors)
                        if (m.is_string())
                            base.message += (base.message.empty() ? "" : " ") + m.get<std::string>();
            rows.push_back(std::move(base));
        }
    }
    for (const QualityResult &result : readQualityResults(db)) {
        QualityRow row;
        row.kind = result.originKind == "rules" ? QualityRow::Kind::Rule : QualityRow::Kind::Imported;
        row.severity = result.severity;
        row.project = result.project;
        row.resource = result.resource;
        row.key = result.docId.empty() ? "row " + std::to_string(result.row) : result.naturalKey;
        row.docId = result.docId;
        row.cause = result.ruleId;
        const RuleText *text = rules != nullptr && result.originKind == "rules" ? rules->find(result.origin, result.ruleId) : nullptr;
        row.title = text != nullptr ? text->title : result.ruleId;
        row.message = result.message;
        row.source = result.originLabel;
        row.origin = result.origin;
        row.acknowledged = result.acknowledged;
        if (result.acknowledged)
            row.status = "acknowledged by " + result.ackActor + ": " + result.ackReason;
        else if (result.changedSince)
            row.status = "changed since: resubmit to clear";
        else if (!result.unmatched.empty())
            row.status = "matches no record: " + result.unmatched;
        rows.push_back(std::move(row));
    }
    SyncState sync(db);
    std::map<std::int64_t, std::string> urls;
    for (const SyncTarget &target : sync.targets())
        urls[target.targetId] = target.url;
    SQLite::Statement naturalKey(db, "SELECT natural_key FROM documents WHERE id_key = steward_id_key(?)");
    for (const SyncConflict &conflict : sync.openConflicts()) {
        QualityRow row;
        row.kind = QualityRow::Kind::Conflict;
        row.severity = "fatal";
        row.docId = conflict.id;
        row.project = conflict.project;
        row.resource = conflict.resource;
        row.cause = std::string("sync conflict: ") + conflictKindName(conflict.kind);
        row.title = conflictKindTitle(conflict.kind);
        const std::string &url = urls[conflict.targetId];
        row.message = conflict.reason + " (with " + url + ")";
        naturalKey.reset();
        naturalKey.bind(1, conflict.id);
        row.key = naturalKey.executeStep() ? naturalKey.getColumn(0).getString() : "(deleted here)";
        row.source = "sync with " + url;
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace steward
