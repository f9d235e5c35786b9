#pragma once

#include "ApiSchema.h"
#include "Json.h"

#include <QString>
#include <QWidget>

#include <memory>

class AppSession;
class QUndoStack;

// Edits one document of one resource: a form generated from the resource's JSON Schema and a raw
// JSON tab over the same text, validated live through the engine (debounced), with Save (enabled
// only when the engine would accept it), Save as draft (always), undo/redo, and a History tab
// for stored documents (from the change log, with "restore this version").
class DocumentEditor : public QWidget
{
    Q_OBJECT

public:
    explicit DocumentEditor(AppSession *session, QWidget *parent = nullptr);
    ~DocumentEditor() override;

    // prefill (an object, e.g. the identity of a missing document) is merged over the empty form.
    void newDocument(const steward::ResourceSchema *resource, const steward::Json &prefill = steward::Json());
    void openDocument(const QString &id); // a stored document
    void openDraft(qint64 draftId);
    void clear();

    const steward::ResourceSchema *resource() const;
    QString documentId() const; // empty for a new document
    qint64 draftId() const;     // 0 when not editing a draft
    bool hasUnsavedChanges() const;
    bool canSave() const; // the engine would accept the current text
    steward::Json currentBody() const; // null when the text is not valid JSON
    QUndoStack *undoStack() const;
    // A page of the window's beside Form, JSON and History (the references of the document shown).
    void addPage(QWidget *page, const QString &title);
    void setPageTitle(QWidget *page, const QString &title);

public Q_SLOTS:
    bool save();        // stores through the engine; false (and the problem shown) when refused
    bool saveAsDraft(); // keeps the text as it is, with its problems
    void revalidateNow();

Q_SIGNALS:
    void saved(const QString &id);
    void draftSaved(qint64 draftId);
    void navigateTo(const QString &id); // a reference in the form was followed
    void validityChanged(bool canSave);
    void dirtyChanged(bool dirty);
    // A fact of the record was clicked: its sync conflict (with that target), a draft waiting on it.
    void conflictRequested(const QString &id, const QString &targetUrl);
    void draftRequested(qint64 draftId);

private:
    struct Private;
    std::unique_ptr<Private> d;
};
