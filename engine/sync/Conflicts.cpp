#include "Conflicts.h"

#include "DocumentJournal.h"
#include "Identity.h"
#include "ResponseText.h"

#include <algorithm>

namespace steward {

namespace {

Json sideOrNull(const std::optional<Json> &side)
{
    return side ? *side : Json(nullptr);
}

std::string targetUrl(SyncState &state, std::int64_t targetId)
{
    for (const SyncTarget &target : state.targets())
        if (target.targetId == targetId)
            return target.url;
    return {};
}

std::optional<Json> parsedText(const std::optional<std::string> &text)
{
    if (!text)
        return std::nullopt;
    Json body = Json::parse(*text, nullptr, false);
    return body.is_discarded() ? std::nullopt : std::optional<Json>(std::move(body));
}

ConflictView viewOf(Engine &engine, SyncState &state, const IdentityCalculator &identities,
                    const SyncConflict &conflict)
{
    ConflictView view;
    view.conflict = conflict;
    view.url = targetUrl(state, conflict.targetId);
    view.base = conflict.base.known() ? state.baseBody(conflict.base) : std::nullopt;
    if (std::optional<StoredDocument> mine = engine.document(conflict.id))
        view.mine = Json::parse(mine->body, nullptr, false);
    view.theirs = parsedText(conflict.theirsText);
    const ResourceSchema *resource = engine.model().findByName(conflict.project, conflict.resource);
    const std::optional<Json> &named = view.mine ? view.mine : view.theirs ? view.theirs : view.base;
    if (resource != nullptr && named)
        view.naturalKey = naturalKeyText(identities.identityObject(*resource, *named));
    if (view.mine && view.theirs)
        view.fields = DocumentMerger(resource)
                          .merge(view.base ? &*view.base : nullptr, *view.mine, *view.theirs)
                          .conflicts;
    return view;
}

std::string choiceText(const MergeChoice &choice)
{
    switch (choice.kind) {
    case MergeChoice::Kind::Mine:
        return "mine";
    case MergeChoice::Kind::Theirs:
        return "theirs";
    case MergeChoice::Kind::Both:
        return "both items";
    case MergeChoice::Kind::Value:
        break;
    }
    return dumpJson(choice.value);
}

} // namespace

Json ConflictView::toJson() const
{
    Json list = Json::array();
    for (const MergeConflict &field : fields)
        list.push_back(field.toJson());
    return Json{{"target", url},
                {"id", conflict.id},
                {"project", conflict.project},
                {"resource", conflict.resource},
                {"naturalKey", naturalKey},
                {"kind", conflictKindName(conflict.kind)},
                {"reason", conflict.reason},
                {"foundAt", conflict.foundAt},
                {"remoteId", conflict.base.remoteId},
                {"theirsEtag", conflict.theirsEtag},
                {"base", sideOrNull(base)},
                {"mine", sideOrNull(mine)},
                {"theirs", sideOrNull(theirs)},
                {"fields", list}};
}

std::vector<ConflictView> listConflicts(Engine &engine, std::int64_t targetId)
{
    SyncState state(engine.database().connection());
    const IdentityCalculator identities(engine.model());
    DeferredTransaction read(engine.database().connection());
    std::vector<ConflictView> out;
    for (const SyncConflict &conflict : state.openConflicts(targetId))
        out.push_back(viewOf(engine, state, identities, conflict));
    return out;
}

namespace {

// One decision being carried out: what it writes here, and the base it leaves both sides agreeing on.
struct Resolving
{
    Engine &engine;
    SyncState &state;
    const SyncConflict &conflict;
    const ResourceSchema &resource;
    const ConflictView &view;
    const std::string &actor;
    SyncBase newBase;
};

// The open conflict the decision names, read inside the write lock (a sync may have moved it meanwhile).
SyncConflict theOpenConflict(SyncState &state, const ConflictDecision &decision)
{
    std::vector<SyncConflict> candidates;
    for (const SyncConflict &conflict : state.openConflicts())
        if (conflict.id == decision.id && (decision.url.empty() || targetUrl(state, conflict.targetId) == decision.url))
            candidates.push_back(conflict);
    if (candidates.empty())
        throw ConflictRefused("There is no open sync conflict for " + decision.id +
                              (decision.url.empty() ? std::string() : " with " + decision.url) + ".");
    if (candidates.size() > 1)
        throw ConflictRefused(decision.id + " is in conflict with " + std::to_string(candidates.size()) +
                              " targets: name the target.");
    return candidates.front();
}

// Stores one version as the document here; refusal: what a refusal says before the engine's problem.
void store(Resolving &r, const Json &body, const std::string &refusal)
{
    const Response written =
        r.engine.handle(Request::make("PUT", r.resource.requestPath(r.conflict.id), r.actor, body));
    if (!succeeded(written))
        throw ConflictRefused(refusal + problemSummary(written.body));
}

// Field by field (and collection items): the merge with the decided fields stored here. Returns what
// was decided, in words.
std::string decideFields(Resolving &r, const ConflictDecision &decision)
{
    const ConflictView &view = r.view;
    for (const auto &fieldDecision : decision.fields) {
        const std::string &path = fieldDecision.first;
        const MergeChoice &choice = fieldDecision.second;
        auto field = std::find_if(view.fields.begin(), view.fields.end(),
                                  [&path](const MergeConflict &field) { return field.path == path; });
        if (field == view.fields.end())
            throw ConflictRefused("'" + path +
                                  "' is not a field in conflict here; the fields are listed by steward-cli sync "
                                  "conflicts.");
        if (choice.kind == MergeChoice::Kind::Both && !field->item)
            throw ConflictRefused("'" + path +
                                  "' is one value, not a collection item: decide it mine, theirs or a value.");
    }
    const MergeResult merge = DocumentMerger(&r.resource).merge(view.base ? &*view.base : nullptr, *view.mine,
                                                                *view.theirs, decision.fields, decision.take);
    if (!merge.clean()) {
        std::string open;
        for (const MergeConflict &field : merge.conflicts)
            open += (open.empty() ? "" : ", ") + field.path;
        throw ConflictRefused("Undecided: " + open +
                              ". Decide each (mine, theirs or a value), or all with take mine|theirs.");
    }
    if (merge.merged != *view.mine)
        store(r, merge.merged, "The resolved " + r.conflict.resource + " is refused: ");
    if (merge.merged == *view.theirs)
        r.newBase.seq = r.engine.document(r.conflict.id)->changeSeq;
    else
        r.newBase.text = dumpJson(*view.theirs);
    std::string decided;
    for (const auto &[path, choice] : decision.fields)
        decided += (decided.empty() ? "" : ", ") + path + " " + choiceText(choice);
    if (decision.take)
        decided += (decided.empty() ? "" : ", ") + std::string("the rest ") + choiceText(*decision.take);
    return decided;
}

// One side's version whole, or its delete: a delete against an edit, a merge refused here, --whole.
std::string decideWhole(Resolving &r, const ConflictDecision &decision)
{
    const ConflictView &view = r.view;
    const SyncConflict &conflict = r.conflict;
    if (!view.mine && !view.theirs)
        return "deleted on both sides"; // nothing is left to decide (a delete still to send finds it gone)
    if (!decision.fields.empty() || !decision.take || decision.take->kind == MergeChoice::Kind::Value ||
        decision.take->kind == MergeChoice::Kind::Both)
        throw ConflictRefused(std::string(!view.mine || !view.theirs ? "A delete against an edit"
                                          : conflict.kind == SyncConflict::Kind::Refused
                                              ? "A merge refused here (" + conflict.reason + ")"
                                              : "A whole-document decision") +
                              " is decided for the whole document: take mine or theirs.");
    const bool mine = decision.take->kind == MergeChoice::Kind::Mine;
    if (view.mine && view.theirs) {
        // Both versions stand: one of them, as it is, becomes the document on both sides.
        if (!mine && *view.theirs != *view.mine)
            store(r, *view.theirs, "The target's " + conflict.resource + " is refused here: ");
        if (mine)
            r.newBase.text = dumpJson(*view.theirs);
        else
            r.newBase.seq = r.engine.document(conflict.id)->changeSeq;
    } else if (view.mine && !mine) {
        // Deleted on the target: delete it here too (refused while something here references it).
        const Response removed =
            r.engine.handle(Request::make("DELETE", r.resource.requestPath(conflict.id), r.actor));
        if (!succeeded(removed))
            throw ConflictRefused("Deleting " + conflict.resource + " " + conflict.id +
                                  " here is refused: " + problemSummary(removed.body));
        // Agreed: both deleted it. The delete is not sent again, to a document made there since.
        r.newBase = SyncBase{conflict.base.remoteId, {}, r.engine.newestChange(), std::nullopt};
    } else if (view.mine) {
        // Kept here: the target no longer has it, so the next push creates it there again.
        r.state.forgetRemoteId(conflict.targetId, conflict.id);
    } else if (!mine) {
        // Deleted here: the target's copy comes back under the id it had here.
        if (!view.theirs)
            throw ConflictRefused("The target's copy of " + conflict.id + " cannot be read.");
        const Response restored = r.engine.restoreDocument(r.resource, conflict.id, dumpJson(*view.theirs), r.actor);
        if (!succeeded(restored))
            throw ConflictRefused("Putting the target's " + conflict.resource +
                                  " back here is refused: " + problemSummary(restored.body));
        r.newBase.seq = r.engine.document(conflict.id)->changeSeq;
    } else {
        // The delete stands: the next push deletes the target's copy, if it is still the one seen.
        r.newBase.text = view.theirs ? dumpJson(*view.theirs) : std::string("{}");
    }
    return mine ? "mine, whole" : "theirs, whole";
}

} // namespace

ConflictResolution resolveConflict(Engine &engine, const ConflictDecision &decision)
{
    SyncState state(engine.database().connection());
    const std::string actor = decision.actor.empty() ? currentOsUser() : decision.actor;
    if (engine.inBatch())
        throw ConflictRefused("the engine is inside another batch; finish it first");
    engine.beginBatch();
    try {
        const SyncConflict conflict = theOpenConflict(state, decision);
        const ResourceSchema *resource = engine.model().findByName(conflict.project, conflict.resource);
        if (resource == nullptr)
            throw ConflictRefused(conflict.project + " " + conflict.resource + " is not in the loaded model.");
        const ConflictView view = viewOf(engine, state, IdentityCalculator(engine.model()), conflict);
        const std::int64_t since = engine.newestChange();
        Resolving resolving{engine, state, conflict, *resource, view, actor, {}};
        resolving.newBase.remoteId = conflict.base.remoteId;
        resolving.newBase.etag = conflict.theirsEtag;
        // A delete against an edit, or a merge the engine refuses, is decided for the whole document.
        const bool whole = decision.wholeDocument || !view.mine || !view.theirs ||
                           conflict.kind == SyncConflict::Kind::Refused;
        const std::string decided = whole ? decideWhole(resolving, decision) : decideFields(resolving, decision);
        if (resolving.newBase.known())
            state.setBase(conflict.targetId, conflict.id, resolving.newBase);
        ConflictResolution result;
        result.summary = "resolve the sync conflict of " + conflict.resource + " " + view.naturalKey + " with " +
                         view.url + ": " + decided;
        const Json detail{
            {"target", view.url}, {"id", conflict.id}, {"kind", conflictKindName(conflict.kind)}, {"decided", decided}};
        result.opId = journalDocumentChanges(engine, since, "resolve-conflict", result.summary, detail, actor, true);
        state.markResolved(conflict.targetId, conflict.id, result.opId);
        if (std::optional<StoredDocument> stored = engine.document(conflict.id))
            result.document = Json::parse(stored->body, nullptr, false);
        engine.commitBatch();
        return result;
    } catch (...) {
        engine.rollbackBatch();
        throw;
    }
}

} // namespace steward
