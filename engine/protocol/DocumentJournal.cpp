#include "DocumentJournal.h"

#include "Clock.h"
#include "EditJournal.h"
#include "Engine.h"


namespace steward {

bool isDocumentOperation(const std::string &kind)
{
    return kind == "cascade-delete" || kind == "repoint" || kind == "merge" || kind == "change-identity" ||
           kind == "resolve-conflict";
}

std::int64_t journalDocumentChanges(Engine &engine, std::int64_t since, const std::string &kind,
                                    const std::string &summary, const Json &detail, const std::string &actor,
                                    bool evenWhenNothingChanged)
{
    const std::vector<DocumentChange> changes = engine.documentsChangedSince(since);
    if (changes.empty() && !evenWhenNothingChanged)
        return 0;
    EditJournal journal(engine.database().connection(), engine.database().codec());
    const std::int64_t opId = journal.beginOperation(kind, summary, detail, actor, engineNowText());
    std::int64_t position = 0;
    for (const DocumentChange &change : changes) {
        EditItem item;
        item.item = ++position;
        item.target = EditTarget::Document;
        item.targetKey = change.id;
        item.project = change.project;
        item.resource = change.resource;
        item.beforeText = change.before.value_or(std::string());
        item.afterText = change.after.value_or(std::string());
        item.afterEtag = change.afterEtag;
        journal.addItem(opId, item);
    }
    return opId;
}

} // namespace steward
