#pragma once

// The editor's own parts, shared by its files (DocumentEditor.cpp: loading, validating, saving;
// DocumentEditorLayout.cpp: the widgets; DocumentEditorHistory.cpp: the History tab): the undo
// command, the key filter, the text parser and DocumentEditor::Private. Not for use outside the
// editor.

#include "DocumentEditor.h"

#include "AppSession.h"

#include <QLabel>
#include <QStyle>
#include <QUndoCommand>

#include <functional>
#include <optional>
#include <string>
#include <vector>

class JsonHighlighter;
class QHBoxLayout;
class QKeyEvent;
class QListWidget;
class QListWidgetItem;
class QPlainTextEdit;
class QPushButton;
class QScrollArea;
class QTabWidget;
class QTimer;
class QToolButton;
class QUndoStack;
class QVBoxLayout;
class SchemaForm;

// Named, not anonymous: The editor's Private holds these types, and a class whose members have
// internal linkage is warned about once the file is compiled inside a unity batch.
namespace editorparts {

using steward::Json;

// One line that takes what room the row leaves it: the text cut with "…" where it does not fit, the
// whole of it on hover.
class ElidedLabel : public QLabel
{
public:
    QSize minimumSizeHint() const override { return {fontMetrics().averageCharWidth() * 8, QLabel::minimumSizeHint().height()}; }
    QSize sizeHint() const override { return {fontMetrics().horizontalAdvance(text()), QLabel::sizeHint().height()}; }

protected:
    void paintEvent(QPaintEvent *) override;
};

enum class Origin { None, Form, Json };

constexpr int kFormTab = 0;
constexpr int kJsonTab = 1;
constexpr int kHistoryTab = 2;
constexpr int kValidationDelayMs = 300;

constexpr int kPathRole = Qt::UserRole + 1;
constexpr int kLineRole = Qt::UserRole + 2;
constexpr int kColumnRole = Qt::UserRole + 3;
constexpr int kFactRole = Qt::UserRole + 4; // the fact's index in the record's facts

struct ParseProblem
{
    int line = 0; // 1-based; 0 when the text parses
    int column = 0;
    QString message;
};

// Parses the editor's text; on failure converts nlohmann's byte position to line and column
// (in characters, as the text editor counts them).
std::optional<Json> parseText(const QString &text, ParseProblem &problem);

// One edit: the whole document text before and after. Typing in one field (or in the JSON tab)
// merges into one command until the edit is finished.
class SnapshotCommand : public QUndoCommand
{
public:
    using Apply = std::function<void(const QString &text, Origin origin)>;

    SnapshotCommand(Apply apply, QString before, QString after, QString mergeKey, Origin origin, const QString &label);

    int id() const override { return m_mergeKey.isEmpty() ? -1 : 0x5354; }
    bool mergeWith(const QUndoCommand *other) override;
    void undo() override { m_apply(m_before, Origin::None); }
    void redo() override;

private:
    Apply m_apply;
    QString m_before;
    QString m_after;
    QString m_mergeKey;
    Origin m_origin;
    bool m_first = true;
};

// The editor's keys (undo, redo, save) inside the editor: the focused input would otherwise take
// Ctrl+Z for its own per-widget undo, and a window-wide Ctrl+S would be ambiguous with the editor's.
// Claiming the shortcut override turns the key into a plain key press, handled here.
class EditorKeyFilter : public QObject
{
public:
    using Handler = std::function<bool(const QKeyEvent *key, bool perform)>;

    EditorKeyFilter(Handler handler, QObject *parent);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    Handler m_handler;
};

QString jsonText(const Json &value);

} // namespace editorparts

struct DocumentEditor::Private
{
    using Origin = editorparts::Origin;

    DocumentEditor *q = nullptr;
    AppSession *session = nullptr;

    const steward::ResourceSchema *resource = nullptr;
    QString documentId;
    std::string etag;
    qint64 draftId = 0;
    QString naturalKey;
    steward::Json draftProblem;
    QString draftSavedAt;

    QString text;
    std::optional<steward::Json> parsed;
    editorparts::ParseProblem parseProblem;
    QString baselineText;
    std::optional<steward::Json> baseline;

    bool valid = false;
    bool validated = false;
    bool lastCanSave = false;
    bool lastDirty = false;
    bool applying = false;
    int burst = 0;
    std::vector<steward::HistoryEntry> history;
    steward::RecordFacts facts; // what the engine knows about the stored record beyond validation

    QUndoStack *undo = nullptr;
    QTimer *validateTimer = nullptr;

    QLabel *header = nullptr;
    QLabel *subtitle = nullptr;
    QLabel *changedNotice = nullptr; // another program changed or deleted the record
    QTabWidget *tabs = nullptr;
    QScrollArea *scroll = nullptr;
    SchemaForm *form = nullptr;
    QLabel *formBanner = nullptr;
    QPlainTextEdit *jsonEdit = nullptr;
    JsonHighlighter *highlighter = nullptr;
    QListWidget *historyList = nullptr;
    QPlainTextEdit *historyView = nullptr;
    QPushButton *restoreButton = nullptr;
    QLabel *draftNote = nullptr;
    QLabel *summary = nullptr;
    QListWidget *problems = nullptr;
    QWidget *panel = nullptr; // the problems list and the draft note, under the tabs
    QToolButton *undoButton = nullptr;
    QToolButton *redoButton = nullptr;
    QPushButton *revertButton = nullptr;
    QPushButton *draftButton = nullptr;
    QPushButton *saveButton = nullptr;

    static QString tr(const char *text, const char *disambiguation = nullptr, int n = -1)
    {
        return DocumentEditor::tr(text, disambiguation, n);
    }

    // The widgets (DocumentEditorLayout.cpp)
    void buildUi();
    QVBoxLayout *buildTitles();
    QWidget *buildFormPage();
    void buildJsonEdit();
    QWidget *buildProblemsPanel();
    QHBoxLayout *buildButtonRow();

    // Loading, validating, saving (DocumentEditor.cpp)
    bool dirty() const;
    bool canSave() const;
    std::string requestPath() const;
    void setResource(const steward::ResourceSchema *r);
    void applyText(const QString &newText, Origin origin);
    void setJsonEditText(const QString &newText);
    void pushText(const QString &after, const QString &mergeKey, Origin origin, const QString &label);
    void closeBurst() { ++burst; }
    void scheduleValidation();
    void revalidate();
    void showResponse(const steward::Response &response, const QString &prefix);
    void showParseProblem();
    void setSummary(const QString &text, const char *state);
    void addProblem(const QString &text, const QString &path, QStyle::StandardPixmap icon, int line = 0, int column = 0);
    void goToProblem(QListWidgetItem *item);
    void goToTextPosition(int line, int column);
    bool loadStored(bool replaceText);
    void updateHeader();
    void updateDraftNote();
    void updateState();
    void resetForLoad();
    void revert();

    // The record's facts and other programs' changes (DocumentEditorFacts.cpp)
    void reloadFacts();
    void appendFacts();
    bool shownFact(const steward::RecordFact &fact) const; // all but the draft being edited
    int openFactCount() const;
    QString factsSummary() const; // "1 fatal, 1 acknowledged"
    // True when the item was a fact that needs no field shown (a conflict, a draft: signalled).
    bool goToFact(QListWidgetItem *item);
    void checkChangedElsewhere();
    void showChangedNotice(const QString &html);
    void followChangedNotice(const QString &link);
    void compareWithStored();
    // History (DocumentEditorHistory.cpp)
    QWidget *buildHistoryPage();
    void loadHistory();
    void showHistoryEntry(int row);
    // With two versions selected: what changed from the older to the newer.
    void compareHistoryEntries();
    void restoreHistoryEntry();
};
