#include "DocumentEditor.h"
#include "DocumentEditorParts.h"

#include "AppSession.h"
#include "FieldLabels.h"
#include "JsonDiff.h"
#include "JsonHighlighter.h"
#include "SchemaForm.h"

#include <QApplication>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QScopedValueRollback>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTextBlock>
#include <QTimer>
#include <QToolButton>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>

using steward::Json;

using namespace editorparts;

bool DocumentEditor::Private::dirty() const
{
    if (resource == nullptr)
        return false;
    if (parsed && baseline)
        return *parsed != *baseline;
    return text != baselineText;
}

bool DocumentEditor::Private::canSave() const
{
    return resource != nullptr && valid && validated && parsed && parsed->is_object() && (dirty() || draftId != 0);
}

std::string DocumentEditor::Private::requestPath() const
{
    return resource->requestPath(documentId.toStdString());
}

void DocumentEditor::Private::setResource(const steward::ResourceSchema *r)
{
    if (r != resource || form->resource() != r) {
        resource = r;
        form->setResource(r);
    }
}

void DocumentEditor::Private::setJsonEditText(const QString &newText)
{
    const int position = jsonEdit->textCursor().position();
    const int scrollValue = jsonEdit->verticalScrollBar()->value();
    jsonEdit->setPlainText(newText);
    QTextCursor cursor = jsonEdit->textCursor();
    cursor.setPosition(std::min(position, static_cast<int>(newText.size())));
    jsonEdit->setTextCursor(cursor);
    jsonEdit->verticalScrollBar()->setValue(scrollValue);
}

void DocumentEditor::Private::applyText(const QString &newText, Origin origin)
{
    {
        QScopedValueRollback<bool> guard(applying, true);
        text = newText;
        parsed = parseText(text, parseProblem);
        if (origin != Origin::Json && jsonEdit->toPlainText() != text)
            setJsonEditText(text);
        const bool isObject = parsed && parsed->is_object();
        if (isObject && origin != Origin::Form)
            form->setDocument(*parsed);
        form->setEnabled(isObject);
        if (isObject) {
            formBanner->hide();
        } else if (parsed) {
            formBanner->setText(tr("The JSON text is not an object, so the form is read-only. "
                                   "Fix it in the JSON tab."));
            formBanner->show();
        } else {
            formBanner->setText(tr("The JSON text has an error at line %1, column %2, so the form is read-only and "
                                   "shows the last version that could be read. <a href=\"#json\">Show the error</a>")
                                    .arg(parseProblem.line)
                                    .arg(parseProblem.column));
            formBanner->show();
        }
        highlighter->setErrorPosition(parsed ? 0 : parseProblem.line, parsed ? 0 : parseProblem.column);
    }
    validated = false;
    valid = false;
    updateState();
    scheduleValidation();
}

void DocumentEditor::Private::pushText(const QString &after, const QString &mergeKey, Origin origin,
                                       const QString &label)
{
    if (after == text)
        return;
    auto apply = [this](const QString &t, Origin o) { applyText(t, o); };
    undo->push(new SnapshotCommand(apply, text, after, mergeKey, origin, label));
}

void DocumentEditor::Private::scheduleValidation()
{
    if (resource != nullptr)
        validateTimer->start();
}

void DocumentEditor::Private::setSummary(const QString &summaryText, const char *state)
{
    // Every change of the problems ends here: the panel shows only when it has something to say.
    panel->setVisible(problems->count() > 0 || !draftNote->isHidden());
    summary->setText(summaryText);
    summary->setProperty("state", QString::fromLatin1(state));
    summary->style()->unpolish(summary);
    summary->style()->polish(summary);
}

void DocumentEditor::Private::addProblem(const QString &problemText, const QString &path, QStyle::StandardPixmap icon,
                                         int line, int column)
{
    auto *item = new QListWidgetItem(q->style()->standardIcon(icon), problemText);
    item->setData(kPathRole, path);
    item->setData(kLineRole, line);
    item->setData(kColumnRole, column);
    item->setToolTip(problemText);
    problems->addItem(item);
}

void DocumentEditor::Private::showParseProblem()
{
    problems->clear();
    form->setProblems({});
    const QString message = tr("Line %1, column %2: %3").arg(parseProblem.line).arg(parseProblem.column).arg(parseProblem.message);
    addProblem(message, QString(), QStyle::SP_MessageBoxCritical, parseProblem.line, parseProblem.column);
    appendFacts();
    setSummary(tr("The JSON text does not parse; nothing can be validated until it does."), "error");
}

void DocumentEditor::Private::showResponse(const steward::Response &response, const QString &prefix)
{
    problems->clear();
    const bool accepted = response.status >= 200 && response.status < 300;
    steward::ValidationErrors errors;
    const Json &body = response.body;
    if (!accepted && body.is_object()) {
        if (auto it = body.find("validationErrors"); it != body.end() && it->is_object())
            for (const auto &entry : it->items()) {
                const QString path = QString::fromStdString(entry.key());
                const Json messages = entry.value().is_array() ? entry.value() : Json::array({entry.value()});
                for (const Json &message : messages) {
                    errors[entry.key()].push_back(jsonText(message).toStdString());
                    addProblem(path + QStringLiteral(": ") + jsonText(message), path, QStyle::SP_MessageBoxWarning);
                }
            }
        if (errors.empty()) {
            const QString detail = jsonText(body.value("detail", Json("")));
            addProblem(detail.isEmpty() ? jsonText(body.value("title", Json("The engine refused the document.")))
                                        : detail,
                       QString(), QStyle::SP_MessageBoxWarning);
            if (auto it = body.find("errors"); it != body.end() && it->is_array())
                for (const Json &error : *it)
                    addProblem(jsonText(error), QString(), QStyle::SP_MessageBoxWarning);
        }
    } else if (!accepted) {
        addProblem(tr("The engine answered %1.").arg(response.status), QString(), QStyle::SP_MessageBoxWarning);
    }

    // A pristine new document is not marked red all over: the list says what is missing.
    const bool pristineNew = documentId.isEmpty() && draftId == 0 && !dirty() && prefix.isEmpty();
    form->setProblems(pristineNew ? steward::ValidationErrors{} : errors);

    const QString name = QString::fromStdString(resource->resourceName);
    const int validationItems = problems->count();
    appendFacts();
    if (accepted) {
        if (documentId.isEmpty() && response.status == 200)
            addProblem(tr("A %1 with this identity is already stored; saving will update it.").arg(name), QString(),
                       QStyle::SP_MessageBoxInformation);
        // "No problems." only when nothing at all is known against the record.
        const QString onRecord = factsSummary();
        const bool blocking = facts.worstSeverity() == "fatal" || facts.worstSeverity() == "error";
        if (!onRecord.isEmpty())
            setSummary(prefix + tr("On record: %1").arg(onRecord), blocking ? "error" : "info");
        else if (!dirty() && draftId == 0)
            setSummary(prefix + tr("No problems."), "ok");
        else
            setSummary(prefix + tr("No problems: ready to save."), "ok");
        return;
    }
    if (pristineNew) {
        setSummary(tr("New %1: fill in the fields marked *.").arg(name), "info");
        return;
    }
    QString title = body.is_object() ? jsonText(body.value("title", Json(""))) : QString();
    const QString detail = body.is_object() ? jsonText(body.value("detail", Json(""))) : QString();
    if (!errors.empty() && !detail.isEmpty() && !detail.startsWith(QLatin1String("Data validation failed")))
        title += QStringLiteral(" — ") + detail;
    const int count = validationItems;
    QString counted = count == 1 ? tr("1 problem") : tr("%1 problems").arg(count);
    if (openFactCount() > 0)
        counted += tr(" (and on record: %1)").arg(factsSummary());
    setSummary(prefix + counted + (title.isEmpty() ? QString() : QStringLiteral(": ") + title), "error");
}

void DocumentEditor::Private::revalidate()
{
    validateTimer->stop();
    closeBurst();
    if (resource == nullptr) {
        problems->clear();
        setSummary(QString(), "info");
        return;
    }
    if (!parsed) {
        valid = false;
        validated = true;
        showParseProblem();
        updateState();
        return;
    }
    steward::Response response;
    if (!parsed->is_object()) {
        response = steward::problem::make(400, steward::problem::kDataValidationFailed, "Data Validation Failed",
                                          "The document must be a JSON object.",
                                          {{"$", {"The document must be a JSON object."}}});
    } else {
        try {
            response = session->validate(documentId.isEmpty() ? "POST" : "PUT", requestPath(), *parsed);
        } catch (const std::exception &e) {
            response = steward::problem::make(500, steward::problem::kInternalError, "Internal Server Error", e.what());
        }
    }
    valid = response.status >= 200 && response.status < 300;
    validated = true;
    showResponse(response, QString());
    form->refreshReferences();
    updateState();
}

void DocumentEditor::Private::goToTextPosition(int line, int column)
{
    tabs->setCurrentIndex(kJsonTab);
    const QTextBlock block = jsonEdit->document()->findBlockByNumber(std::max(0, line - 1));
    if (block.isValid()) {
        QTextCursor cursor(block);
        cursor.setPosition(block.position() + std::clamp(column - 1, 0, std::max(0, block.length() - 1)));
        jsonEdit->setTextCursor(cursor);
        jsonEdit->centerCursor();
    }
    jsonEdit->setFocus(Qt::OtherFocusReason);
}

void DocumentEditor::Private::goToProblem(QListWidgetItem *item)
{
    if (item == nullptr || goToFact(item))
        return;
    const int line = item->data(kLineRole).toInt();
    if (line > 0) {
        goToTextPosition(line, item->data(kColumnRole).toInt());
        return;
    }
    const QString path = item->data(kPathRole).toString();
    if (path.isEmpty() || !parsed || !parsed->is_object())
        return;
    tabs->setCurrentIndex(kFormTab);
    if (QWidget *widget = form->fieldWidget(path)) {
        scroll->ensureWidgetVisible(widget, 40, 40);
        widget->setFocus(Qt::OtherFocusReason);
    }
}

bool DocumentEditor::Private::loadStored(bool replaceText)
{
    std::optional<steward::StoredDocument> doc;
    try {
        doc = session->engine().document(documentId.toStdString());
    } catch (const std::exception &) {
        doc.reset();
    }
    if (!doc)
        return false;
    etag = doc->etag;
    Json identity = Json::parse(doc->identity, nullptr, false);
    naturalKey = identity.is_discarded() ? QString() : QString::fromStdString(steward::naturalKeyText(identity));
    Json body = Json::parse(doc->body, nullptr, false);
    if (body.is_discarded())
        body = Json::object();
    const QString pretty = formatDocumentJson(body, resource);
    if (draftId == 0) {
        baselineText = pretty;
        baseline = body;
    }
    if (replaceText || !parsed || *parsed != body)
        applyText(pretty, Origin::None);
    changedNotice->hide();
    reloadFacts();
    loadHistory();
    return true;
}

void DocumentEditor::Private::updateHeader()
{
    if (resource == nullptr) {
        header->setText(tr("No document"));
        subtitle->clear();
        return;
    }
    const QString name = QString::fromStdString(resource->resourceName);
    if (documentId.isEmpty())
        header->setText(tr("New %1").arg(name));
    else
        header->setText(naturalKey.isEmpty() ? name : QStringLiteral("%1 · %2").arg(name, naturalKey));
    QStringList parts;
    if (draftId != 0)
        parts << tr("Draft #%1").arg(draftId);
    if (!documentId.isEmpty())
        parts << tr("id %1").arg(documentId);
    else
        parts << tr("not stored yet");
    if (dirty())
        parts << tr("unsaved changes");
    subtitle->setText(parts.join(QStringLiteral("  ·  ")));
}

void DocumentEditor::Private::updateDraftNote()
{
    if (draftId == 0) {
        draftNote->hide();
        panel->setVisible(problems->count() > 0);
        return;
    }
    QString note = tr("Draft #%1, saved %2.").arg(draftId).arg(draftSavedAt);
    if (draftProblem.is_object()) {
        QString detail = jsonText(draftProblem.value("detail", Json("")));
        if (auto it = draftProblem.find("validationErrors"); it != draftProblem.end() && it->is_object() && !it->empty()) {
            QStringList lines;
            for (const auto &entry : it->items())
                for (const Json &message : entry.value().is_array() ? entry.value() : Json::array({entry.value()}))
                    lines << QString::fromStdString(entry.key()) + QStringLiteral(": ") + jsonText(message);
            detail = lines.join(QStringLiteral("; "));
        }
        note += QLatin1Char(' ') + tr("It was kept as a draft because: %1").arg(detail);
    } else {
        note += QLatin1Char(' ') + tr("It had no problems when it was saved.");
    }
    draftNote->setText(note);
    draftNote->show();
    panel->show();
}

void DocumentEditor::Private::updateState()
{
    const bool isDirty = dirty();
    const bool save = canSave();
    saveButton->setEnabled(save);
    draftButton->setEnabled(resource != nullptr);
    revertButton->setEnabled(resource != nullptr && (isDirty || !documentId.isEmpty() || draftId != 0));
    updateHeader();
    if (isDirty != lastDirty) {
        lastDirty = isDirty;
        Q_EMIT q->dirtyChanged(isDirty);
    }
    if (save != lastCanSave) {
        lastCanSave = save;
        Q_EMIT q->validityChanged(save);
    }
}

void DocumentEditor::Private::resetForLoad()
{
    validateTimer->stop();
    undo->clear();
    closeBurst();
    problems->clear();
    historyList->clear();
    historyView->clear();
    history.clear();
    draftProblem = Json();
    draftSavedAt.clear();
    facts = {};
    changedNotice->hide();
    etag.clear();
    naturalKey.clear();
    valid = false;
    validated = false;
}

void DocumentEditor::Private::revert()
{
    if (resource == nullptr)
        return;
    QString target;
    if (draftId != 0) {
        std::optional<steward::Draft> draft;
        try {
            draft = session->engine().draft(draftId);
        } catch (const std::exception &) {
            draft.reset();
        }
        if (!draft)
            return;
        target = QString::fromStdString(draft->text);
        baselineText = target;
        ParseProblem ignored;
        baseline = parseText(target, ignored);
    } else if (!documentId.isEmpty()) {
        std::optional<steward::StoredDocument> doc;
        try {
            doc = session->engine().document(documentId.toStdString());
        } catch (const std::exception &) {
            doc.reset();
        }
        if (!doc) {
            setSummary(tr("The stored %1 is gone: it was deleted elsewhere.")
                           .arg(QString::fromStdString(resource->resourceName)),
                       "error");
            return;
        }
        etag = doc->etag;
        Json body = Json::parse(doc->body, nullptr, false);
        if (body.is_discarded())
            body = Json::object();
        target = formatDocumentJson(body, resource);
        baselineText = target;
        baseline = body;
        loadHistory();
    } else {
        target = baselineText;
    }
    closeBurst();
    if (target == text)
        updateState();
    else
        pushText(target, QString(), Origin::None, tr("Revert"));
    revalidate();
}

DocumentEditor::DocumentEditor(AppSession *session, QWidget *parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
{
    d->q = this;
    d->session = session;
    d->undo = new QUndoStack(this);
    d->validateTimer = new QTimer(this);
    d->validateTimer->setSingleShot(true);
    d->validateTimer->setInterval(kValidationDelayMs);
    d->buildUi();

    connect(d->validateTimer, &QTimer::timeout, this, [this] { d->revalidate(); });
    connect(d->form, &SchemaForm::changed, this, [this](const QString &path) {
        if (d->applying)
            return;
        d->pushText(formatDocumentJson(d->form->document(), d->resource),
                    QStringLiteral("form:%1#%2").arg(path).arg(d->burst), Origin::Form, tr("Edit %1").arg(path));
    });
    connect(d->form, &SchemaForm::editFinished, this, [this] { d->closeBurst(); });
    connect(d->form, &SchemaForm::navigateRequested, this, &DocumentEditor::navigateTo);
    connect(d->jsonEdit, &QPlainTextEdit::textChanged, this, [this] {
        if (d->applying)
            return;
        d->pushText(d->jsonEdit->toPlainText(), QStringLiteral("json#%1").arg(d->burst), Origin::Json,
                    tr("Edit JSON"));
    });
    connect(d->tabs, &QTabWidget::currentChanged, this, [this] { d->closeBurst(); });
    connect(d->formBanner, &QLabel::linkActivated, this,
            [this] { d->goToTextPosition(d->parseProblem.line, d->parseProblem.column); });
    connect(d->problems, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) { d->goToProblem(item); });
    connect(d->problems, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) { d->goToProblem(item); });
    connect(d->historyList, &QListWidget::currentRowChanged, this, [this](int row) { d->showHistoryEntry(row); });
    connect(d->historyList, &QListWidget::itemSelectionChanged, this, [this] { d->compareHistoryEntries(); });
    connect(d->restoreButton, &QPushButton::clicked, this, [this] { d->restoreHistoryEntry(); });
    connect(d->saveButton, &QPushButton::clicked, this, [this] { save(); });
    connect(d->draftButton, &QPushButton::clicked, this, [this] { saveAsDraft(); });
    connect(d->revertButton, &QPushButton::clicked, this, [this] { d->revert(); });

    connect(d->undoButton, &QToolButton::clicked, d->undo, &QUndoStack::undo);
    connect(d->redoButton, &QToolButton::clicked, d->undo, &QUndoStack::redo);
    connect(d->undo, &QUndoStack::canUndoChanged, d->undoButton, &QWidget::setEnabled);
    connect(d->undo, &QUndoStack::canRedoChanged, d->redoButton, &QWidget::setEnabled);
    connect(d->undo, &QUndoStack::undoTextChanged, d->undoButton,
            [this](const QString &text) { d->undoButton->setToolTip(tr("Undo %1 (Ctrl+Z)").arg(text)); });
    connect(d->undo, &QUndoStack::redoTextChanged, d->redoButton,
            [this](const QString &text) { d->redoButton->setToolTip(tr("Redo %1 (Ctrl+Shift+Z)").arg(text)); });

    auto *keys = new EditorKeyFilter(
        [this](const QKeyEvent *key, bool perform) {
            const bool isUndo = key->matches(QKeySequence::Undo);
            const bool isRedo =
                key->matches(QKeySequence::Redo)
                || key->keyCombination() == QKeyCombination(Qt::ControlModifier | Qt::ShiftModifier, Qt::Key_Z);
            const bool isSave = key->matches(QKeySequence::Save);
            if (!isUndo && !isRedo && !isSave)
                return false;
            if (perform) {
                d->closeBurst();
                if (isUndo)
                    d->undo->undo();
                else if (isRedo)
                    d->undo->redo();
                else if (d->resource != nullptr)
                    save();
            }
            return true;
        },
        this);
    installEventFilter(keys);
    connect(qApp, &QApplication::focusChanged, this, [this, keys](QWidget *, QWidget *now) {
        if (now != nullptr && isAncestorOf(now))
            now->installEventFilter(keys);
    });

    connect(session, &AppSession::documentsChanged, this, [this] {
        d->form->invalidateLookups();
        d->scheduleValidation();
    });
    // The record's facts follow every change of results, drafts and conflicts, here or elsewhere.
    const auto refreshFacts = [this] {
        d->reloadFacts();
        d->scheduleValidation();
    };
    connect(session, &AppSession::draftsChanged, this, refreshFacts);
    connect(session, &AppSession::qualityChanged, this, refreshFacts);
    connect(session, &AppSession::changedElsewhere, this, [this] { d->checkChangedElsewhere(); });

    clear();
}

DocumentEditor::~DocumentEditor() = default;

void DocumentEditor::newDocument(const steward::ResourceSchema *resource, const Json &prefill)
{
    if (resource == nullptr) {
        clear();
        return;
    }
    d->resetForLoad();
    d->setResource(resource);
    d->documentId.clear();
    d->draftId = 0;
    Json skeleton = newDocumentSkeleton(resource->jsonSchema);
    if (prefill.is_object())
        skeleton.merge_patch(prefill);
    d->baseline = skeleton;
    d->baselineText = formatDocumentJson(skeleton, resource);
    d->applyText(d->baselineText, Origin::None);
    d->loadHistory();
    d->updateDraftNote();
    d->tabs->setCurrentIndex(kFormTab);
    d->revalidate();
}

void DocumentEditor::openDocument(const QString &id)
{
    std::optional<steward::StoredDocument> doc;
    try {
        doc = d->session->engine().document(id.toStdString());
    } catch (const std::exception &) {
        doc.reset();
    }
    const steward::ResourceSchema *resource = doc ? d->session->resourceByName(doc->project, doc->resource) : nullptr;
    if (resource == nullptr) {
        clear();
        d->setSummary(tr("No stored document has the id %1.").arg(id), "error");
        return;
    }
    d->resetForLoad();
    d->setResource(resource);
    d->documentId = id;
    d->draftId = 0;
    d->loadStored(true);
    d->updateDraftNote();
    if (d->tabs->currentIndex() == kHistoryTab)
        d->tabs->setCurrentIndex(kFormTab);
    d->revalidate();
}

void DocumentEditor::openDraft(qint64 draftId)
{
    std::optional<steward::Draft> draft;
    try {
        draft = d->session->engine().draft(draftId);
    } catch (const std::exception &) {
        draft.reset();
    }
    const steward::ResourceSchema *resource =
        draft ? d->session->resourceByName(draft->project, draft->resource) : nullptr;
    if (resource == nullptr) {
        clear();
        d->setSummary(tr("There is no draft #%1.").arg(draftId), "error");
        return;
    }
    d->resetForLoad();
    d->setResource(resource);
    d->documentId = QString::fromStdString(draft->targetId);
    d->draftId = draftId;
    d->draftProblem = draft->problem;
    d->draftSavedAt = QString::fromStdString(draft->updatedAt);
    const QString text = QString::fromStdString(draft->text);
    d->baselineText = text;
    ParseProblem ignored;
    d->baseline = parseText(text, ignored);
    if (!d->documentId.isEmpty()) {
        // The stored document it would replace: its etag guards the save, its key names it.
        try {
            if (std::optional<steward::StoredDocument> doc = d->session->engine().document(d->documentId.toStdString())) {
                d->etag = doc->etag;
                const Json identity = Json::parse(doc->identity, nullptr, false);
                if (!identity.is_discarded())
                    d->naturalKey = QString::fromStdString(steward::naturalKeyText(identity));
            }
        } catch (const std::exception &) {
            d->etag.clear();
        }
    }
    d->applyText(text, Origin::None);
    d->loadHistory();
    d->updateDraftNote();
    d->tabs->setCurrentIndex(d->baseline ? kFormTab : kJsonTab);
    d->revalidate();
}

void DocumentEditor::clear()
{
    d->resetForLoad();
    d->resource = nullptr;
    d->form->setResource(nullptr);
    d->documentId.clear();
    d->draftId = 0;
    d->baselineText.clear();
    d->baseline.reset();
    {
        QScopedValueRollback<bool> guard(d->applying, true);
        d->text.clear();
        d->parsed.reset();
        d->parseProblem = ParseProblem{};
        d->jsonEdit->clear();
        d->highlighter->setErrorPosition(0, 0);
        d->formBanner->hide();
    }
    d->setSummary(QString(), "info");
    d->loadHistory();
    d->updateDraftNote();
    d->updateState();
}

const steward::ResourceSchema *DocumentEditor::resource() const
{
    return d->resource;
}

QString DocumentEditor::documentId() const
{
    return d->documentId;
}

qint64 DocumentEditor::draftId() const
{
    return d->draftId;
}

bool DocumentEditor::hasUnsavedChanges() const
{
    return d->dirty();
}

bool DocumentEditor::canSave() const
{
    return d->canSave();
}

steward::Json DocumentEditor::currentBody() const
{
    return d->parsed ? *d->parsed : Json();
}

void DocumentEditor::addPage(QWidget *page, const QString &title)
{
    d->tabs->addTab(page, title);
}

void DocumentEditor::setPageTitle(QWidget *page, const QString &title)
{
    const int index = d->tabs->indexOf(page);
    if (index >= 0)
        d->tabs->setTabText(index, title);
}

QUndoStack *DocumentEditor::undoStack() const
{
    return d->undo;
}

bool DocumentEditor::save()
{
    if (d->resource == nullptr)
        return false;
    if (d->validateTimer->isActive() || !d->validated)
        d->revalidate();
    if (!d->parsed || !d->parsed->is_object()) {
        d->setSummary(tr("Not saved: the JSON text must be a valid object first."), "error");
        return false;
    }
    const bool isNew = d->documentId.isEmpty();
    const std::string ifMatch = isNew || d->etag.empty() ? std::string() : "\"" + d->etag + "\"";
    const steward::Response response =
        d->session->request(isNew ? "POST" : "PUT", d->requestPath(), *d->parsed, ifMatch);
    if (response.status < 200 || response.status >= 300) {
        d->valid = false;
        d->validated = true;
        d->showResponse(response, tr("Not saved. "));
        if (response.status == 412) {
            d->setSummary(tr("Not saved: this %1 was changed elsewhere since it was opened. Your text is kept: save it "
                             "as a draft, or Revert to load the stored version (Undo brings your text back).")
                              .arg(QString::fromStdString(d->resource->resourceName)),
                          "error");
            d->showChangedNotice(tr("Not saved: another program changed this %1 since you opened it. "
                                    "<a href=\"#compare\">Compare</a> your text with it, "
                                    "<a href=\"#reload\">Reload</a> it (Undo brings your text back) or "
                                    "<a href=\"#draft\">save yours as a draft</a>.")
                                     .arg(QString::fromStdString(d->resource->resourceName)));
        }
        d->updateState();
        return false;
    }
    QString id = d->documentId;
    if (isNew) {
        const std::string location = response.header("Location");
        id = QString::fromStdString(location.substr(location.find_last_of('/') + 1));
    }
    if (d->draftId != 0) {
        d->session->deleteDraft(d->draftId);
        d->draftId = 0;
        d->draftProblem = Json();
        d->updateDraftNote();
    }
    d->documentId = id;
    d->closeBurst();
    if (!d->loadStored(false)) {
        d->baselineText = d->text;
        d->baseline = d->parsed;
    }
    d->revalidate();
    Q_EMIT saved(id);
    return true;
}

bool DocumentEditor::saveAsDraft()
{
    if (d->resource == nullptr)
        return false;
    qint64 id = 0;
    try {
        id = d->session->saveDraft(*d->resource, d->text, d->documentId, d->draftId);
    } catch (const std::exception &e) {
        d->setSummary(tr("The draft could not be saved: %1").arg(QString::fromUtf8(e.what())), "error");
        return false;
    }
    d->draftId = id;
    try {
        if (std::optional<steward::Draft> draft = d->session->engine().draft(id)) {
            d->draftProblem = draft->problem;
            d->draftSavedAt = QString::fromStdString(draft->updatedAt);
        }
    } catch (const std::exception &) {
        d->draftProblem = Json();
    }
    // What the draft holds is no longer at risk.
    d->baselineText = d->text;
    d->baseline = d->parsed;
    d->updateDraftNote();
    d->updateState();
    Q_EMIT draftSaved(id);
    return true;
}

void DocumentEditor::revalidateNow()
{
    d->revalidate();
}

