#include "BulkEdit.h"

#include "Clock.h"
#include "Dependents.h"
#include "EngineRequests.h"

#include <SQLiteCpp/Statement.h>

#include <functional>
#include <map>

namespace steward {

namespace {

std::string idFromLocation(const std::string &location)
{
    const std::size_t slash = location.rfind('/');
    return slash == std::string::npos ? location : location.substr(slash + 1);
}

Json draftToJson(const Draft &draft)
{
    return Json{{"draftId", draft.draftId}, {"project", draft.project},     {"resource", draft.resource},
                {"targetId", draft.targetId}, {"text", draft.text},         {"problem", draft.problem},
                {"createdAt", draft.createdAt}, {"updatedAt", draft.updatedAt}, {"actor", draft.actor}};
}

Draft draftFromJson(const Json &row)
{
    Draft draft;
    draft.draftId = row.at("draftId").get<std::int64_t>();
    draft.project = row.at("project").get<std::string>();
    draft.resource = row.at("resource").get<std::string>();
    draft.targetId = row.at("targetId").get<std::string>();
    draft.text = row.at("text").get<std::string>();
    draft.problem = row.at("problem");
    draft.createdAt = row.at("createdAt").get<std::string>();
    draft.updatedAt = row.at("updatedAt").get<std::string>();
    draft.actor = row.at("actor").get<std::string>();
    return draft;
}

// Sets or removes the value at the path in every place it reaches, creating missing objects on
// the way for a set (never array elements: how many there should be is not the edit's to say).
void editAt(Json &node, const std::vector<JsonPath::Step> &steps, std::size_t index, const std::string &concrete,
            const FieldEdit &edit, std::vector<std::string> &changed)
{
    const JsonPath::Step &step = steps[index];
    const bool last = index + 1 == steps.size();
    if (step.isArray()) {
        if (!node.is_array())
            return;
        if (last && !edit.value) {
            if (!node.empty()) {
                node = Json::array();
                changed.push_back(concrete + "[*]");
            }
            return;
        }
        for (std::size_t i = 0; i < node.size(); ++i) {
            const std::string here = concrete + "[" + std::to_string(i) + "]";
            if (last) {
                if (node[i] != *edit.value) {
                    node[i] = *edit.value;
                    changed.push_back(here);
                }
            } else {
                editAt(node[i], steps, index + 1, here, edit, changed);
            }
        }
        return;
    }
    if (!node.is_object())
        return;
    const std::string here = concrete + "." + step.property;
    auto it = node.find(step.property);
    if (last) {
        if (!edit.value) {
            if (it != node.end()) {
                node.erase(it);
                changed.push_back(here);
            }
        } else if (it == node.end() || *it != *edit.value) {
            node[step.property] = *edit.value;
            changed.push_back(here);
        }
        return;
    }
    if (it == node.end()) {
        if (!edit.value || steps[index + 1].isArray())
            return;
        node[step.property] = Json::object();
    }
    editAt(node[step.property], steps, index + 1, here, edit, changed);
}

// The value(s) at a path as a preview shows them: one value (null when missing), or for a path
// through arrays every value found.
Json valuesAt(const JsonPath &path, const Json &body)
{
    std::vector<JsonPath::Match> matches = path.select(body);
    if (!path.hasArrayStep())
        return matches.empty() ? Json() : *matches.front().value;
    Json values = Json::array();
    for (const JsonPath::Match &match : matches)
        values.push_back(*match.value);
    return values;
}

// True when one path is the other or lies inside it: editing "$.schoolReference" touches the
// identity path "$.schoolReference.schoolId", and so does editing that path itself.
bool overlaps(const JsonPath &a, const JsonPath &b)
{
    const std::size_t common = std::min(a.steps().size(), b.steps().size());
    for (std::size_t i = 0; i < common; ++i)
        if (a.steps()[i].isArray() != b.steps()[i].isArray() || a.steps()[i].property != b.steps()[i].property)
            return false;
    return true;
}

} // namespace

// How an operation changes one body: fills the row's paths and before/after values, and refuses
// (row.outcome = Refused, row.reason) what it must not change. Returns whether the body changed.
struct EditRewrite
{
    std::function<bool(const ResourceSchema &resource, Json &body, EditPreviewRow &row)> change;
};

namespace {

EditRewrite fieldRewrite(const JsonPath &path, const FieldEdit &edit)
{
    EditRewrite rewrite;
    rewrite.change = [path, edit](const ResourceSchema &resource, Json &body, EditPreviewRow &row) {
        row.before = valuesAt(path, body);
        row.after = row.before;
        // A key change the resource does not allow would only come back from the PUT as a bare
        // "key change not supported"; saying which identity path it touches is clearer.
        if (row.target == EditTarget::Document && !resource.allowIdentityUpdates)
            for (const JsonPath &identity : resource.identityPaths)
                if (overlaps(path, identity)) {
                    row.outcome = EditOutcome::Refused;
                    row.reason = edit.path + " is part of the identity of " + resource.resourceName + " ("
                                 + identity.text() + "), and " + resource.resourceName
                                 + " does not allow identity updates";
                    return false;
                }
        Json edited = body;
        std::vector<std::string> changed;
        editAt(edited, path.steps(), 0, "$", edit, changed);
        if (changed.empty())
            return false;
        body = std::move(edited);
        row.paths = std::move(changed);
        row.after = valuesAt(path, body);
        return true;
    };
    return rewrite;
}

} // namespace

const char *editOutcomeName(EditOutcome outcome)
{
    switch (outcome) {
    case EditOutcome::Valid:
        return "valid";
    case EditOutcome::StillDraft:
        return "still a draft";
    case EditOutcome::Unchanged:
        return "unchanged";
    case EditOutcome::Refused:
        return "refused";
    case EditOutcome::Skipped:
        return "skipped";
    }
    return "unknown";
}

int EditPreview::count(EditOutcome outcome) const
{
    int n = 0;
    for (const EditPreviewRow &row : rows)
        n += row.outcome == outcome ? 1 : 0;
    return n;
}

std::string EditPreview::refusals() const
{
    std::string text;
    for (const EditPreviewRow &row : rows)
        if (row.outcome == EditOutcome::Refused)
            text += (text.empty() ? "" : "\n") + row.resource + " " + row.label + " (" + row.key + "): " + row.reason;
    return text;
}

Json EditPreview::toJson() const
{
    Json out = Json::array();
    for (const EditPreviewRow &row : rows)
        out.push_back(Json{{"target", row.target == EditTarget::Draft ? "draft" : "document"},
                           {"key", row.key},
                           {"resource", row.resource},
                           {"label", row.label},
                           {"paths", row.paths},
                           {"before", row.before},
                           {"after", row.after},
                           {"outcome", editOutcomeName(row.outcome)},
                           {"reason", row.reason}});
    return out;
}

Json EditResult::toJson() const
{
    return Json{{"opId", opId},
                {"documentsChanged", documentsChanged},
                {"draftsStored", draftsStored},
                {"draftsStillFailing", draftsStillFailing},
                {"unchanged", unchanged},
                {"skipped", skipped}};
}

const ResourceSchema *findResourceByName(const Model &model, const std::string &name)
{
    const std::string wanted = toLower(name);
    for (const ResourceSchema *resource : model.resources())
        if (toLower(resource->resourceName) == wanted || toLower(resource->endpointName) == wanted)
            return resource;
    return nullptr;
}

BulkEditor::BulkEditor(Engine &engine, Database &database)
    : m_engine(engine)
    , m_database(database)
    , m_journal(database.connection(), database.codec())
{
}

namespace {

// One pass of a bulk edit over its targets: without a journal operation a preview (dry runs only),
// with one the writes inside the open batch, each journaled.
class EditRun
{
public:
    EditRun(Engine &engine, Database &database, EditJournal &journal, const EditRewrite &rewrite,
            EditResult *result, std::int64_t opId, const std::string &actor);

    EditPreviewRow editDocument(const std::string &id);
    EditPreviewRow editDraft(std::int64_t draftId);

private:
    void journalDocumentChange(const std::string &id, const StoredDocument &before);
    void storeDraft(std::int64_t draftId, const Draft &draft, const Json &body, const Request &request,
                    EditPreviewRow &row);
    std::optional<StoredDocument> documentBeforeDraft(const Draft &draft, const Request &request);

    Engine &m_engine;
    Database &m_database;
    EditJournal &m_journal;
    const Model &m_model;
    const EditRewrite &m_rewrite;
    EditResult *m_result;
    const std::int64_t m_opId;
    const std::string &m_actor;
    const bool m_write;
    std::int64_t m_itemNumber = 0;
};

EditRun::EditRun(Engine &engine, Database &database, EditJournal &journal, const EditRewrite &rewrite,
                 EditResult *result, std::int64_t opId, const std::string &actor)
    : m_engine(engine)
    , m_database(database)
    , m_journal(journal)
    , m_model(engine.model())
    , m_rewrite(rewrite)
    , m_result(result)
    , m_opId(opId)
    , m_actor(actor)
    , m_write(opId > 0)
{
}

EditPreviewRow EditRun::editDocument(const std::string &id)
{
    EditPreviewRow row;
    row.target = EditTarget::Document;
    row.key = id;
    std::optional<StoredDocument> document = m_engine.document(id);
    const ResourceSchema *resource = document ? m_model.findByName(document->project, document->resource) : nullptr;
    if (!document || resource == nullptr) {
        row.outcome = EditOutcome::Refused;
        row.reason = document ? "its resource " + document->resource + " is not in the loaded model"
                              : "no stored document has this id";
        return row;
    }
    row.project = document->project;
    row.resource = document->resource;
    row.label = naturalKeyText(Json::parse(document->identity));
    Json body = Json::parse(document->body);
    if (!m_rewrite.change(*resource, body, row)) {
        if (row.outcome != EditOutcome::Refused)
            row.outcome = EditOutcome::Unchanged;
        return row;
    }
    Request request = Request::make("PUT", resource->requestPath(id), m_actor, body);
    request.ifMatch(document->etag);
    const Response response = m_write ? m_engine.handle(request) : m_engine.validate(request);
    if (!succeeded(response)) {
        row.outcome = EditOutcome::Refused;
        row.problem = response.body;
        row.reason = problemSummary(response.body);
    } else {
        row.outcome = EditOutcome::Valid;
        if (m_write)
            journalDocumentChange(id, *document);
    }
    return row;
}

void EditRun::journalDocumentChange(const std::string &id, const StoredDocument &before)
{
    const std::optional<StoredDocument> after = m_engine.document(id);
    EditItem item;
    item.item = ++m_itemNumber;
    item.target = EditTarget::Document;
    item.targetKey = id;
    item.project = before.project;
    item.resource = before.resource;
    item.beforeText = before.body;
    item.afterText = after->body;
    item.afterEtag = after->etag;
    m_journal.addItem(m_opId, item);
    ++m_result->documentsChanged;
}

EditPreviewRow EditRun::editDraft(std::int64_t draftId)
{
    EditPreviewRow row;
    row.target = EditTarget::Draft;
    row.key = std::to_string(draftId);
    row.label = "draft " + row.key;
    std::optional<Draft> draft = m_engine.draft(draftId);
    if (!draft) {
        row.outcome = EditOutcome::Skipped;
        row.reason = "no draft has this id";
        return row;
    }
    row.project = draft->project;
    row.resource = draft->resource;
    const ResourceSchema *resource = m_model.findByName(draft->project, draft->resource);
    JsonParseResult parsed = parseJson(draft->text);
    if (resource == nullptr || !parsed.value || !parsed.value->is_object()) {
        row.outcome = EditOutcome::Skipped;
        row.reason = resource == nullptr ? "its resource is not in the loaded model"
                     : !parsed.value     ? "its text is not valid JSON: " + parsed.error
                                         : "its text is not a JSON object";
        return row;
    }
    Json body = *parsed.value;
    if (!m_rewrite.change(*resource, body, row)) {
        if (row.outcome != EditOutcome::Refused)
            row.outcome = EditOutcome::Unchanged;
        else
            row.outcome = EditOutcome::Skipped;
        return row;
    }
    const Request request = m_engine.draftRequest(*resource, draft->targetId, body);
    if (!m_write) {
        const Response response = m_engine.validate(request);
        row.outcome = succeeded(response) ? EditOutcome::Valid : EditOutcome::StillDraft;
        if (!succeeded(response)) {
            row.problem = response.body;
            row.reason = problemSummary(response.body);
        }
        return row;
    }
    storeDraft(draftId, *draft, body, request, row);
    return row;
}

// Sends the edited draft as its request: stored, it leaves the drafts; refused, it keeps the new
// text and problem. Either way the journal keeps what an undo needs.
void EditRun::storeDraft(std::int64_t draftId, const Draft &draft, const Json &body, const Request &request,
                         EditPreviewRow &row)
{
    EditItem item;
    item.item = ++m_itemNumber;
    item.target = EditTarget::Draft;
    item.targetKey = row.key;
    item.project = draft.project;
    item.resource = draft.resource;
    item.beforeText = draft.text;
    item.afterText = body.dump(2);
    item.draftRow = draftToJson(draft);
    const std::optional<StoredDocument> existing = documentBeforeDraft(draft, request);

    Request attempt = request;
    attempt.actor = m_actor;
    const Response response = m_engine.handle(attempt);
    if (succeeded(response)) {
        const std::string storedId =
            draft.targetId.empty() ? idFromLocation(response.header("Location")) : draft.targetId;
        const std::optional<StoredDocument> stored = m_engine.document(storedId);
        if (!stored)
            throw StorageError(StorageError::Kind::Io, m_database.path() + ": draft " + row.key
                                                           + " was stored but its document " + storedId
                                                           + " cannot be read back");
        m_engine.deleteDraft(draftId);
        item.documentId = storedId;
        item.afterEtag = stored->etag;
        if (existing)
            item.documentBefore = existing->body;
        row.outcome = EditOutcome::Valid;
        ++m_result->draftsStored;
    } else {
        m_engine.updateDraft(draftId, item.afterText, response.body);
        row.outcome = EditOutcome::StillDraft;
        row.problem = response.body;
        row.reason = problemSummary(response.body);
        ++m_result->draftsStillFailing;
    }
    m_journal.addItem(m_opId, item);
}

// What the document it may become held before, so an undo can put that back: the target of
// a PUT draft, or the document a POST would update (a dry run names it in Location).
std::optional<StoredDocument> EditRun::documentBeforeDraft(const Draft &draft, const Request &request)
{
    std::string existingId = draft.targetId;
    if (existingId.empty()) {
        const Response dryRun = m_engine.validate(request);
        if (dryRun.status == 200 && !dryRun.header("Location").empty())
            existingId = idFromLocation(dryRun.header("Location"));
    }
    std::optional<StoredDocument> existing;
    if (!existingId.empty())
        existing = m_engine.document(existingId);
    return existing;
}

} // namespace

EditPreview BulkEditor::run(const EditSelection &selection, const EditRewrite &rewrite, EditResult *result,
                            std::int64_t opId, const std::string &actor)
{
    const bool write = opId > 0;
    EditPreview preview;
    EditRun pass(m_engine, m_database, m_journal, rewrite, result, opId, actor);
    const int total = static_cast<int>(selection.documentIds.size() + selection.draftIds.size());
    int done = 0;
    auto step = [&] {
        if (write && m_progress && !m_progress(done++, total))
            throw EditRefused("Stopped before the end; nothing was changed.");
    };

    for (const std::string &id : selection.documentIds) {
        step();
        preview.rows.push_back(pass.editDocument(id));
    }
    for (std::int64_t draftId : selection.draftIds) {
        step();
        preview.rows.push_back(pass.editDraft(draftId));
    }
    if (result) {
        result->unchanged = preview.count(EditOutcome::Unchanged);
        result->skipped = preview.count(EditOutcome::Skipped);
    }
    return preview;
}

EditResult BulkEditor::applyRewrite(const EditSelection &selection, const EditRewrite &rewrite,
                                    const std::string &kind, const std::string &summary, const Json &detail,
                                    const std::string &actor)
{
    const ChangeSourceScope source(m_engine, kind == "bulk-edit" ? "bulk fix" : "descriptor mapping");
    EditResult result;
    const std::string who = actor.empty() ? currentOsUser() : actor;
    m_engine.beginBatch();
    try {
        const std::int64_t opId = m_journal.beginOperation(kind, summary, detail, who, engineNowText());
        const EditPreview outcome = run(selection, rewrite, &result, opId, who);
        if (const std::string refused = outcome.refusals(); !refused.empty())
            throw EditRefused("The edit was not applied; nothing was changed. Refused:\n" + refused);
        if (result.documentsChanged + result.draftsStored + result.draftsStillFailing == 0) {
            // Nothing to journal: an operation without items could only confuse an undo.
            m_engine.rollbackBatch();
            return result;
        }
        m_engine.commitBatch();
        result.opId = opId;
    } catch (...) {
        m_engine.rollbackBatch();
        throw;
    }
    return result;
}

namespace {

JsonPath parseEditPath(const std::string &text)
{
    try {
        JsonPath path(text);
        if (path.steps().empty())
            throw EditRefused("The field '" + text + "' names the whole document; name a field such as $.entryDate.");
        return path;
    } catch (const std::invalid_argument &e) {
        throw EditRefused(std::string("The field is not a supported JSON path ($.a.b, $.a[*].b): ") + e.what());
    }
}

} // namespace

EditPreview BulkEditor::preview(const EditSelection &selection, const FieldEdit &edit)
{
    return run(selection, fieldRewrite(parseEditPath(edit.path), edit));
}

EditResult BulkEditor::apply(const EditSelection &selection, const FieldEdit &edit, const std::string &actor)
{
    const EditRewrite rewrite = fieldRewrite(parseEditPath(edit.path), edit);
    const std::string summary = "set " + edit.path + (edit.value ? " = " + dumpJson(*edit.value) : " (removed)")
                                + " on " + std::to_string(selection.documentIds.size()) + " document(s) and "
                                + std::to_string(selection.draftIds.size()) + " draft(s)";
    Json detail{{"field", edit.path}};
    detail["value"] = edit.value ? *edit.value : Json();
    detail["remove"] = !edit.value.has_value();
    return applyRewrite(selection, rewrite, "bulk-edit", summary, detail, actor);
}

namespace {

const ResourceSchema &descriptorResourceNamed(const Model &model, const std::string &name)
{
    const ResourceSchema *resource = findResourceByName(model, name);
    if (resource == nullptr || !resource->isDescriptor)
        throw EditRefused("'" + name + "' is not a descriptor resource of the loaded model (for example "
                          "GradeLevelDescriptor).");
    return *resource;
}

EditRewrite descriptorRewrite(const ResourceSchema &descriptor, const std::string &fromValue, const std::string &toUri)
{
    EditRewrite rewrite;
    const std::string from = toLower(fromValue);
    rewrite.change = [&descriptor, from, toUri](const ResourceSchema &resource, Json &body, EditPreviewRow &row) {
        row.before = Json::array();
        row.after = Json::array();
        for (const DescriptorMapping &mapping : resource.descriptors) {
            if (mapping.descriptorResourceName != descriptor.resourceName
                || mapping.descriptorProjectName != descriptor.projectName())
                continue;
            // Matches first, then assignments: assigning while holding pointers into the body
            // could move what they point at.
            std::vector<JsonPath::Match> hits;
            for (const JsonPath::Match &match : mapping.path.select(body))
                if (match.value->is_string() && toLower(match.value->get<std::string>()) == from)
                    hits.push_back(match);
            for (const JsonPath::Match &hit : hits) {
                row.paths.push_back(hit.concretePath);
                row.before.push_back(*hit.value);
                row.after.push_back(toUri);
            }
            for (const JsonPath::Match &hit : hits)
                mapping.path.assign(body, hit.indices, toUri);
        }
        return !row.paths.empty();
    };
    return rewrite;
}

} // namespace

std::string BulkEditor::storedDescriptorUri(const ResourceSchema &descriptor, const std::string &uri)
{
    if (uri.find('#') == std::string::npos)
        throw EditRefused("'" + uri + "' is not a descriptor URI; give namespace#codeValue, for example "
                          "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade.");
    // Descriptors are matched without case, as the engine matches them in documents.
    for (const StoredDocument &stored :
         m_engine.lookup(descriptor.projectName(), descriptor.resourceName, uri, 50)) {
        const std::string text = naturalKeyText(Json::parse(stored.identity));
        if (toLower(text) == toLower(uri))
            return text;
    }
    throw EditRefused("'" + uri + "' is not a stored " + descriptor.resourceName
                      + "; map to a descriptor that exists (import or create it first).");
}

EditPreview BulkEditor::previewDescriptorMapping(const std::string &descriptorResource, const std::string &fromValue,
                                                 const std::string &toUri)
{
    const ResourceSchema &descriptor = descriptorResourceNamed(m_engine.model(), descriptorResource);
    const std::string stored = storedDescriptorUri(descriptor, toUri);
    return run(allDrafts(), descriptorRewrite(descriptor, fromValue, stored));
}

EditResult BulkEditor::mapDescriptorValue(const std::string &descriptorResource, const std::string &fromValue,
                                          const std::string &toUri, const std::string &actor)
{
    const ResourceSchema &descriptor = descriptorResourceNamed(m_engine.model(), descriptorResource);
    const std::string stored = storedDescriptorUri(descriptor, toUri);
    if (toLower(fromValue) == toLower(stored))
        throw EditRefused("'" + fromValue + "' is already the stored descriptor; there is nothing to map.");
    const std::string summary = "map " + descriptor.resourceName + " '" + fromValue + "' to '" + stored + "'";
    const Json detail{{"descriptor", descriptor.resourceName}, {"from", fromValue}, {"to", stored}};
    return applyRewrite(allDrafts(), descriptorRewrite(descriptor, fromValue, stored), "map-descriptor", summary,
                        detail, actor);
}

// What changed since the operation wrote it, one line each: the last write of each document, and
// each draft it edited. Empty when the operation can still be undone.
std::string BulkEditor::changedSince(const std::vector<EditItem> &items)
{
    // One operation may write a document twice (a draft stored onto a document it also edited):
    // only its last write's etag can still be current.
    std::map<std::string, std::size_t> lastWriteOf;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (items[i].target == EditTarget::Document)
            lastWriteOf[items[i].targetKey] = i;
        else if (items[i].draftWasStored())
            lastWriteOf[items[i].documentId] = i;
    }
    std::string conflicts;
    auto conflict = [&conflicts](const std::string &text) { conflicts += "\n" + text; };
    for (std::size_t i = 0; i < items.size(); ++i) {
        const EditItem &item = items[i];
        if (item.target == EditTarget::Document || item.draftWasStored()) {
            const std::string id = item.target == EditTarget::Document ? item.targetKey : item.documentId;
            if (lastWriteOf[id] != i)
                continue;
            const std::string what = item.target == EditTarget::Document
                                         ? item.resource + " " + id
                                         : item.resource + " " + id + " (stored from draft " + item.targetKey + ")";
            const std::optional<StoredDocument> now = m_engine.document(id);
            if (!now)
                conflict(what + " was deleted since the edit");
            else if (now->etag != item.afterEtag)
                conflict(what + " (" + naturalKeyText(Json::parse(now->identity)) + ") changed since the edit");
        } else {
            const std::optional<Draft> now = m_engine.draft(std::stoll(item.targetKey));
            if (!now)
                conflict("draft " + item.targetKey + " (" + item.resource + ") was stored or deleted since the edit");
            else if (now->text != item.afterText)
                conflict("draft " + item.targetKey + " (" + item.resource + ") was edited since the edit");
        }
    }
    return conflicts;
}

// Puts every item back as it was before, newest first, inside the open batch; the refusals, one line each.
std::string BulkEditor::putBack(const std::vector<EditItem> &items, const std::string &who, UndoResult &result)
{
    const Model &model = m_engine.model();
    std::string failures;
    // Every last write was checked above; an earlier one's etag was replaced by this operation
    // itself, so each restore matches what the undo found (or already put back) in this batch.
    auto currentEtag = [this](const std::string &id) {
        const std::optional<StoredDocument> now = m_engine.document(id);
        return now ? now->etag : std::string();
    };
    auto putBack = [&](const EditItem &item, const std::string &id, const std::string &bodyText) {
        const ResourceSchema *resource = model.findByName(item.project, item.resource);
        const Response response = m_engine.handle(
            Request::make("PUT", resource->requestPath(id), who, Json::parse(bodyText)).ifMatch(currentEtag(id)));
        if (!succeeded(response))
            failures += "\n" + item.resource + " " + id + ": " + problemSummary(response.body);
    };
    for (auto it = items.rbegin(); it != items.rend(); ++it) {
        const EditItem &item = *it;
        if (model.findByName(item.project, item.resource) == nullptr) {
            failures += "\n" + item.resource + " is not in the loaded model";
            continue;
        }
        if (item.target == EditTarget::Document) {
            putBack(item, item.targetKey, item.beforeText);
            ++result.documentsRestored;
            continue;
        }
        const Draft draft = draftFromJson(*item.draftRow);
        if (!item.draftWasStored()) {
            m_engine.updateDraft(draft.draftId, draft.text, draft.problem, draft.updatedAt);
            ++result.draftsRestored;
            continue;
        }
        if (item.documentBefore) {
            putBack(item, item.documentId, *item.documentBefore);
        } else {
            const ResourceSchema *resource = model.findByName(item.project, item.resource);
            const Response response = m_engine.handle(
                Request::make("DELETE", resource->requestPath(item.documentId), who)
                    .ifMatch(currentEtag(item.documentId)));
            if (!succeeded(response))
                failures += "\n" + item.resource + " " + item.documentId + " (stored from draft " + item.targetKey
                            + "): " + problemSummary(response.body);
        }
        m_engine.restoreDraft(draft);
        ++result.draftsRestored;
    }
    return failures;
}

UndoResult BulkEditor::undo(std::int64_t opId, const std::string &actor)
{
    const std::optional<EditOperation> operation = m_journal.operation(opId);
    if (!operation) {
        // Ids are never used again: one below the newest was let go by the undo retention.
        const std::vector<EditOperation> newest = m_journal.operations(1);
        if (!newest.empty() && opId < newest.front().opId) {
            const UndoRetention retention = UndoRetention::read(m_database.connection());
            throw EditRefused("Edit operation " + std::to_string(opId)
                              + " is no longer kept for undo: this database keeps the newest "
                              + std::to_string(retention.operations) + " operation(s) for "
                              + std::to_string(retention.days)
                              + " day(s) (steward-cli fix keep). What it changed is in each document's history.");
        }
        throw EditRefused("There is no edit operation " + std::to_string(opId) + ".");
    }
    const ChangeSourceScope source(m_engine, "undo of " + operation->kind + " " + std::to_string(opId));
    if (operation->undone())
        throw EditRefused("Edit operation " + std::to_string(opId) + " was already undone (at " + operation->undoneAt
                          + " by " + operation->undoneBy + ").");
    const std::string who = actor.empty() ? currentOsUser() : actor;
    UndoResult result;
    result.opId = opId;

    m_engine.beginBatch();
    try {
        // Re-read inside the write lock: another undo may have finished meanwhile.
        if (m_journal.operation(opId)->undone())
            throw EditRefused("Edit operation " + std::to_string(opId) + " was already undone.");
        const std::vector<EditItem> items = m_journal.items(opId);
        if (isDocumentOperation(operation->kind)) {
            result.documentsRestored = putDocumentsBack(m_engine, opId, items, who);
            m_journal.markUndone(opId, who, engineNowText());
            m_engine.commitBatch();
            return result;
        }
        const std::string conflicts = changedSince(items);
        if (!conflicts.empty())
            throw EditRefused("Edit operation " + std::to_string(opId)
                              + " cannot be undone; nothing was changed. Changed since:" + conflicts);

        const std::string failures = putBack(items, who, result);
        if (!failures.empty())
            throw EditRefused("Edit operation " + std::to_string(opId)
                              + " cannot be undone; nothing was changed. Refused:" + failures);
        m_journal.markUndone(opId, who, engineNowText());
        m_engine.commitBatch();
    } catch (...) {
        m_engine.rollbackBatch();
        throw;
    }
    return result;
}

EditSelection BulkEditor::selectResource(const std::string &resourceName, bool documents, bool drafts)
{
    const ResourceSchema *resource = findResourceByName(m_engine.model(), resourceName);
    if (resource == nullptr)
        throw EditRefused("'" + resourceName + "' is not a resource of the loaded model.");
    EditSelection selection;
    SQLite::Database &db = m_database.connection();
    DeferredTransaction read(db);
    if (documents) {
        SQLite::Statement s(db, "SELECT id FROM documents WHERE project = ? AND resource = ? ORDER BY doc_key");
        s.bind(1, resource->projectName());
        s.bind(2, resource->resourceName);
        while (s.executeStep())
            selection.documentIds.push_back(s.getColumn(0).getString());
    }
    if (drafts) {
        SQLite::Statement s(db, "SELECT draft_id FROM drafts WHERE project = ? AND resource = ? ORDER BY draft_id");
        s.bind(1, resource->projectName());
        s.bind(2, resource->resourceName);
        while (s.executeStep())
            selection.draftIds.push_back(s.getColumn(0).getInt64());
    }
    return selection;
}

EditSelection BulkEditor::selectRule(const std::string &ruleId)
{
    EditSelection selection;
    SQLite::Database &db = m_database.connection();
    DeferredTransaction read(db);
    // Only documents still stored: a rule result can outlive the document it was about.
    SQLite::Statement s(db, "SELECT DISTINCT r.doc_id FROM rule_results r "
                            "JOIN documents d ON d.id_key = steward_id_key(r.doc_id) "
                            "WHERE r.rule_id = ? ORDER BY r.doc_id");
    s.bind(1, ruleId);
    while (s.executeStep())
        selection.documentIds.push_back(s.getColumn(0).getString());
    return selection;
}

EditSelection BulkEditor::allDrafts()
{
    EditSelection selection;
    SQLite::Database &db = m_database.connection();
    DeferredTransaction read(db);
    SQLite::Statement s(db, "SELECT draft_id FROM drafts ORDER BY draft_id");
    while (s.executeStep())
        selection.draftIds.push_back(s.getColumn(0).getInt64());
    return selection;
}

} // namespace steward
