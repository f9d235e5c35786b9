#pragma once

#include "EditJournal.h"
#include "Engine.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace steward {

// What a bulk edit goes to: stored documents by id and drafts by draft id.
struct EditSelection
{
    std::vector<std::string> documentIds;
    std::vector<std::int64_t> draftIds;

    bool empty() const { return documentIds.empty() && draftIds.empty(); }
};

// One field, as a JSON path ("$.entryDate", "$.schoolReference.schoolId", "$.addresses[*].city"),
// set to a value or removed.
struct FieldEdit
{
    std::string path;
    std::optional<Json> value; // empty: remove the field
};

enum class EditOutcome
{
    Valid,      // a document that would be stored; a draft that would be stored and leave the drafts
    StillDraft, // a draft that changes but would still be refused: it keeps the new text and problem
    Unchanged,  // nothing at the path to change, or the value is already there
    Refused,    // a document the edit cannot go to; apply() refuses the whole edit while any is
    Skipped,    // a draft the edit cannot go to (its text is not JSON, ...): left as it is
};

const char *editOutcomeName(EditOutcome outcome); // "valid", "still a draft", ...

struct EditPreviewRow
{
    EditTarget target = EditTarget::Document;
    std::string key; // the document id, or the draft id as text
    std::string project;
    std::string resource;
    std::string label;              // the natural key, or "draft 12"
    std::vector<std::string> paths; // the concrete paths that change ("$.addresses[1].city")
    Json before;                    // the value at the path (null when missing); "[*]" paths: every value
    Json after;
    EditOutcome outcome = EditOutcome::Unchanged;
    std::string reason; // why it is refused, skipped or still a draft
    Json problem;       // the problem details the edited body would get (null when it would pass)
};

struct EditPreview
{
    std::vector<EditPreviewRow> rows;

    int count(EditOutcome outcome) const;
    // The refused rows, one per line ("School 255901 (id): reason"); empty when apply() may go ahead.
    std::string refusals() const;
    Json toJson() const;
};

struct EditResult
{
    std::int64_t opId = 0; // 0 when nothing changed (then nothing is journaled)
    int documentsChanged = 0;
    int draftsStored = 0;
    int draftsStillFailing = 0;
    int unchanged = 0;
    int skipped = 0;
    Json toJson() const;
};

struct UndoResult
{
    std::int64_t opId = 0;
    int documentsRestored = 0;
    int draftsRestored = 0;
};

// A bulk edit, mapping or undo that cannot go ahead; nothing was written. The message names every
// document or draft in the way and why.
class EditRefused : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

struct EditRewrite; // how an operation changes one body (BulkEdit.cpp)

// Bulk edits, descriptor mappings and their undo. Every change goes through the engine's request
// path (PUT for documents, the draft's POST/PUT for drafts) inside one batch, so validation,
// references, cascades and the change log behave as for any request, and an operation is applied
// and journaled entirely or not at all.
class BulkEditor
{
public:
    BulkEditor(Engine &engine, Database &database);

    // Throws EditRefused for a path that is not of the supported form.
    EditPreview preview(const EditSelection &selection, const FieldEdit &edit);
    // Throws EditRefused (nothing written) when any document would be refused.
    EditResult apply(const EditSelection &selection, const FieldEdit &edit, const std::string &actor = {});

    // Every draft whose descriptor fields of that descriptor type hold fromValue (compared without
    // case, as the engine compares descriptors) gets toUri there instead, and is tried again.
    // toUri must be a stored descriptor of that type, else EditRefused.
    EditPreview previewDescriptorMapping(const std::string &descriptorResource, const std::string &fromValue,
                                         const std::string &toUri);
    EditResult mapDescriptorValue(const std::string &descriptorResource, const std::string &fromValue,
                                  const std::string &toUri, const std::string &actor = {});

    // Puts back every document and draft of the operation in one transaction. Refused (EditRefused,
    // nothing written) when the operation is unknown or already undone, or when any of its documents
    // or drafts changed since.
    UndoResult undo(std::int64_t opId, const std::string &actor = {});

    EditJournal &journal() { return m_journal; }
    // Called before each target of an apply or a mapping (done, total); returning false stops it,
    // rolls everything back and throws EditRefused saying so. For the app's progress dialog.
    void setProgress(std::function<bool(int done, int total)> progress) { m_progress = std::move(progress); }

    // Selections built from what is stored: a resource's documents and/or drafts (by resource or
    // endpoint name, any case), and the documents a business rule flagged.
    EditSelection selectResource(const std::string &resourceName, bool documents, bool drafts);
    EditSelection selectRule(const std::string &ruleId);
    EditSelection allDrafts();

private:
    // Without a journal operation: a preview (dry runs only). With one: writes inside the open batch.
    EditPreview run(const EditSelection &selection, const EditRewrite &rewrite, EditResult *result = nullptr,
                    std::int64_t opId = 0, const std::string &actor = {});
    EditResult applyRewrite(const EditSelection &selection, const EditRewrite &rewrite, const std::string &kind,
                            const std::string &summary, const Json &detail, const std::string &actor);
    std::string storedDescriptorUri(const ResourceSchema &descriptor, const std::string &uri);
    std::string changedSince(const std::vector<EditItem> &items);
    std::string putBack(const std::vector<EditItem> &items, const std::string &who, UndoResult &result);

    Engine &m_engine;
    Database &m_database;
    EditJournal m_journal;
    std::function<bool(int, int)> m_progress;
};

// A resource of the model by resource name or endpoint name, any case; nullptr when none.
const ResourceSchema *findResourceByName(const Model &model, const std::string &name);

} // namespace steward
