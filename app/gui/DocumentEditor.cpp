#include "DocumentEditor.h"

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

// Named, not anonymous: The editor's Private holds these types, and a class whose members have
// internal linkage is warned about once the file is compiled inside a unity batch.
namespace editorparts {

// One line that takes what room the row leaves it: the text cut with "…" where it does not fit, the
// whole of it on hover.
class ElidedLabel : public QLabel
{
public:
    QSize minimumSizeHint() const override { return {fontMetrics().averageCharWidth() * 8, QLabel::minimumSizeHint().height()}; }
    QSize sizeHint() const override { return {fontMetrics().horizontalAdvance(text()), QLabel::sizeHint().height()}; }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter painter(this);
        const QString shown = fontMetrics().elidedText(text(), Qt::ElideRight, contentsRect().width());
        setToolTip(shown == text() ? QString() : text());
        style()->drawItemText(&painter, contentsRect(), static_cast<int>(alignment()), palette(), isEnabled(), shown,
                              foregroundRole());
    }
};

enum class Origin { None, Form, Json };

constexpr int kFormTab = 0;
constexpr int kJsonTab = 1;
constexpr int kHistoryTab = 2;
constexpr int kValidationDelayMs = 300;

constexpr int kPathRole = Qt::UserRole + 1;
constexpr int kLineRole = Qt::UserRole + 2;
constexpr int kColumnRole = Qt::UserRole + 3;

struct ParseProblem
{
    int line = 0; // 1-based; 0 when the text parses
    int column = 0;
    QString message;
};

// Parses the editor's text; on failure converts nlohmann's byte position to line and column
// (in characters, as the text editor counts them).
std::optional<Json> parseText(const QString &text, ParseProblem &problem)
{
    problem = ParseProblem{};
    const QByteArray utf8 = text.toUtf8();
    try {
        return Json::parse(utf8.constBegin(), utf8.constEnd());
    } catch (const Json::parse_error &e) {
        // nlohmann names the last character it read: the end of the offending token, or the
        // character after it. People look for the token's start.
        qsizetype offset = std::clamp<qsizetype>(static_cast<qsizetype>(e.byte) - 1, 0, utf8.size());
        if (offset < utf8.size()) {
            auto isWordChar = [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
            };
            while (offset > 0 && std::isspace(static_cast<unsigned char>(utf8[offset])))
                --offset;
            if (utf8[offset] == '"') {
                qsizetype open = offset - 1;
                while (open >= 0 && !(utf8[open] == '"' && (open == 0 || utf8[open - 1] != '\\')))
                    --open;
                if (open >= 0)
                    offset = open;
            } else if (isWordChar(utf8[offset])) {
                while (offset > 0 && isWordChar(utf8[offset - 1]))
                    --offset;
            }
        }
        const QByteArray before = utf8.left(offset);
        problem.line = static_cast<int>(before.count('\n')) + 1;
        const qsizetype lineStart = before.lastIndexOf('\n') + 1;
        problem.column = static_cast<int>(QString::fromUtf8(before.mid(lineStart)).size()) + 1;
        QString message = QString::fromUtf8(e.what());
        message.remove(QRegularExpression(QStringLiteral("^\\[json\\.exception\\.[a-z_]+\\.\\d+\\] ")));
        message.remove(QRegularExpression(QStringLiteral("^parse error( at line \\d+, column \\d+)?: ")));
        problem.message = message;
    } catch (const std::exception &e) {
        problem.line = 1;
        problem.column = 1;
        problem.message = QString::fromUtf8(e.what());
    }
    return std::nullopt;
}

// One edit: the whole document text before and after. Typing in one field (or in the JSON tab)
// merges into one command until the edit is finished.
class SnapshotCommand : public QUndoCommand
{
public:
    using Apply = std::function<void(const QString &text, Origin origin)>;

    SnapshotCommand(Apply apply, QString before, QString after, QString mergeKey, Origin origin, const QString &label)
        : QUndoCommand(label)
        , m_apply(std::move(apply))
        , m_before(std::move(before))
        , m_after(std::move(after))
        , m_mergeKey(std::move(mergeKey))
        , m_origin(origin)
    {
    }

    int id() const override { return m_mergeKey.isEmpty() ? -1 : 0x5354; }

    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *next = static_cast<const SnapshotCommand *>(other);
        if (next->m_mergeKey != m_mergeKey)
            return false;
        m_after = next->m_after;
        setObsolete(m_after == m_before);
        return true;
    }

    void undo() override { m_apply(m_before, Origin::None); }

    void redo() override
    {
        // The first time, the view the edit came from already shows it.
        const Origin origin = m_first ? m_origin : Origin::None;
        m_first = false;
        m_apply(m_after, origin);
    }

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

    EditorKeyFilter(Handler handler, QObject *parent)
        : QObject(parent)
        , m_handler(std::move(handler))
    {
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress) {
            const auto *key = static_cast<const QKeyEvent *>(event);
            if (m_handler(key, event->type() == QEvent::KeyPress)) {
                event->accept();
                return true;
            }
        }
        return QObject::eventFilter(watched, event);
    }

private:
    Handler m_handler;
};

QString jsonText(const Json &value)
{
    return QString::fromStdString(value.is_string() ? value.get<std::string>() : value.dump());
}

} // namespace editorparts

using namespace editorparts;

struct DocumentEditor::Private
{
    DocumentEditor *q = nullptr;
    AppSession *session = nullptr;

    const steward::ResourceSchema *resource = nullptr;
    QString documentId;
    std::string etag;
    qint64 draftId = 0;
    QString naturalKey;
    Json draftProblem;
    QString draftSavedAt;

    QString text;
    std::optional<Json> parsed;
    ParseProblem parseProblem;
    QString baselineText;
    std::optional<Json> baseline;

    bool valid = false;
    bool validated = false;
    bool lastCanSave = false;
    bool lastDirty = false;
    bool applying = false;
    int burst = 0;
    std::vector<steward::HistoryEntry> history;

    QUndoStack *undo = nullptr;
    QTimer *validateTimer = nullptr;

    QLabel *header = nullptr;
    QLabel *subtitle = nullptr;
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

    void buildUi();
    QVBoxLayout *buildTitles();
    QWidget *buildFormPage();
    void buildJsonEdit();
    QWidget *buildHistoryPage();
    QWidget *buildProblemsPanel();
    QHBoxLayout *buildButtonRow();
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
    void loadHistory();
    void showHistoryEntry(int row);
    // With two versions selected: what changed from the older to the newer.
    void compareHistoryEntries();
    void restoreHistoryEntry();
    void updateHeader();
    void updateDraftNote();
    void updateState();
    void resetForLoad();
    void revert();
};

void DocumentEditor::Private::buildUi()
{
    auto *layout = new QVBoxLayout(q);
    layout->setContentsMargins(12, 10, 12, 10);
    layout->setSpacing(8);

    layout->addLayout(buildTitles());

    tabs = new QTabWidget;
    tabs->setObjectName(QStringLiteral("tabs"));
    tabs->setDocumentMode(true);

    QWidget *formPage = buildFormPage();
    tabs->addTab(formPage, tr("Form"));

    buildJsonEdit();
    tabs->addTab(jsonEdit, tr("JSON"));

    QWidget *historyPage = buildHistoryPage();
    tabs->addTab(historyPage, tr("History"));

    QWidget *problemsPanel = buildProblemsPanel();

    auto *split = new QSplitter(Qt::Vertical);
    split->setObjectName(QStringLiteral("editorSplitter"));
    split->setChildrenCollapsible(false);
    split->addWidget(tabs);
    split->addWidget(problemsPanel);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setSizes({560, 120});
    layout->addWidget(split, 1);

    layout->addLayout(buildButtonRow());

    q->setStyleSheet(QStringLiteral(
        "QLabel#subtitleLabel { color: #666666; }"
        "QLabel#formBanner { background: #fff4e5; border: 1px solid #f0c36d; border-radius: 4px; padding: 6px; }"
        "QLabel#draftNote { background: #eef3fb; border: 1px solid #b9cbe8; border-radius: 4px; padding: 6px; }"
        "QLabel#problemsSummary[state=\"ok\"] { color: #2e7d32; }"
        "QLabel#problemsSummary[state=\"error\"] { color: #b71c1c; font-weight: 600; }"
        "QLabel#problemsSummary[state=\"info\"] { color: #555555; }"));
}

QVBoxLayout *DocumentEditor::Private::buildTitles()
{
    // A long natural key (an association's) is cut rather than widening the window past the screen.
    header = new ElidedLabel;
    header->setObjectName(QStringLiteral("headerLabel"));
    QFont headerFont = header->font();
    headerFont.setPointSizeF(headerFont.pointSizeF() * 1.3);
    headerFont.setBold(true);
    header->setFont(headerFont);
    subtitle = new QLabel;
    subtitle->setObjectName(QStringLiteral("subtitleLabel"));
    subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // How the document stands (no problems, ready to save, n problems) sits on the title's line, so
    // that with nothing to list the problems take no room of their own.
    summary = new ElidedLabel;
    summary->setObjectName(QStringLiteral("problemsSummary"));
    summary->setTextFormat(Qt::PlainText);
    summary->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    auto *headerRow = new QHBoxLayout;
    headerRow->addWidget(header, 3);
    headerRow->addWidget(summary, 1);
    auto *titles = new QVBoxLayout;
    titles->setSpacing(2);
    titles->addLayout(headerRow);
    titles->addWidget(subtitle);
    return titles;
}

QWidget *DocumentEditor::Private::buildFormPage()
{
    auto *formPage = new QWidget;
    auto *formLayout = new QVBoxLayout(formPage);
    formLayout->setContentsMargins(0, 6, 0, 0);
    formLayout->setSpacing(6);
    formBanner = new QLabel;
    formBanner->setObjectName(QStringLiteral("formBanner"));
    formBanner->setWordWrap(true);
    formBanner->hide();
    formLayout->addWidget(formBanner);
    form = new SchemaForm(session);
    form->setObjectName(QStringLiteral("schemaForm"));
    scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("formScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(form);
    formLayout->addWidget(scroll, 1);
    return formPage;
}

void DocumentEditor::Private::buildJsonEdit()
{
    jsonEdit = new QPlainTextEdit;
    jsonEdit->setObjectName(QStringLiteral("jsonEdit"));
    jsonEdit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    jsonEdit->setLineWrapMode(QPlainTextEdit::NoWrap);
    jsonEdit->setTabStopDistance(QFontMetricsF(jsonEdit->font()).horizontalAdvance(QLatin1Char(' ')) * 2);
    jsonEdit->setUndoRedoEnabled(false); // the editor's undo stack covers both views
    highlighter = new JsonHighlighter(jsonEdit->document());
}

QWidget *DocumentEditor::Private::buildHistoryPage()
{
    auto *historyPage = new QWidget;
    auto *historyLayout = new QVBoxLayout(historyPage);
    historyLayout->setContentsMargins(0, 6, 0, 0);
    auto *historySplit = new QSplitter(Qt::Horizontal);
    historyList = new QListWidget;
    historyList->setObjectName(QStringLiteral("historyList"));
    historyList->setAccessibleName(tr("Versions of this document"));
    // Two selected (Ctrl+click) are compared with each other.
    historyList->setSelectionMode(QAbstractItemView::ExtendedSelection);
    historyList->setToolTip(tr("Select one version to see what it changed; select two to compare them."));
    historyView = new QPlainTextEdit;
    historyView->setObjectName(QStringLiteral("historyView"));
    historyView->setAccessibleName(tr("The selected version"));
    historyView->setReadOnly(true);
    historyView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    historyView->setLineWrapMode(QPlainTextEdit::WidgetWidth); // nothing cut at the pane's edge
    new JsonHighlighter(historyView->document());
    historySplit->addWidget(historyList);
    historySplit->addWidget(historyView);
    historySplit->setStretchFactor(0, 2);
    historySplit->setStretchFactor(1, 3);
    historyLayout->addWidget(historySplit, 1);
    auto *historyButtons = new QHBoxLayout;
    historyButtons->addStretch(1);
    restoreButton = new QPushButton(tr("Restore this version"));
    restoreButton->setObjectName(QStringLiteral("restoreButton"));
    restoreButton->setToolTip(tr("Loads the selected version into the editor as an unsaved change"));
    restoreButton->setEnabled(false);
    historyButtons->addWidget(restoreButton);
    historyLayout->addLayout(historyButtons);
    return historyPage;
}

QWidget *DocumentEditor::Private::buildProblemsPanel()
{
    auto *problemsPanel = new QWidget;
    auto *problemsLayout = new QVBoxLayout(problemsPanel);
    problemsLayout->setContentsMargins(0, 4, 0, 0);
    problemsLayout->setSpacing(4);
    draftNote = new QLabel;
    draftNote->setObjectName(QStringLiteral("draftNote"));
    draftNote->setWordWrap(true);
    draftNote->hide();
    problems = new QListWidget;
    problems->setObjectName(QStringLiteral("problemsList"));
    problems->setAccessibleName(tr("Problems of this document"));
    problems->setWordWrap(true);
    problems->setUniformItemSizes(false);
    problems->setMinimumHeight(60);
    problems->setIconSize(QSize(16, 16));
    problems->setSpacing(1);
    problemsLayout->addWidget(draftNote);
    problemsLayout->addWidget(problems, 1);
    // With no problems (and no draft to tell about) the panel takes no height: the summary line
    // beside the buttons says so.
    panel = problemsPanel;
    panel->hide();
    return problemsPanel;
}

QHBoxLayout *DocumentEditor::Private::buildButtonRow()
{
    auto *buttons = new QHBoxLayout;
    buttons->setSpacing(6);
    undoButton = new QToolButton;
    undoButton->setObjectName(QStringLiteral("undoButton"));
    undoButton->setText(tr("Undo"));
    undoButton->setEnabled(false);
    redoButton = new QToolButton;
    redoButton->setObjectName(QStringLiteral("redoButton"));
    redoButton->setText(tr("Redo"));
    redoButton->setEnabled(false);
    revertButton = new QPushButton(tr("Revert"));
    revertButton->setObjectName(QStringLiteral("revertButton"));
    revertButton->setToolTip(tr("Load the stored version again (undoable)"));
    draftButton = new QPushButton(tr("Save as draft"));
    draftButton->setObjectName(QStringLiteral("draftButton"));
    draftButton->setToolTip(tr("Keep the text as it is, problems and all, to finish later"));
    saveButton = new QPushButton(tr("Save"));
    saveButton->setObjectName(QStringLiteral("saveButton"));
    saveButton->setToolTip(tr("Store the document (Ctrl+S); enabled when the engine would accept it"));
    saveButton->setDefault(true);
    for (QPushButton *button : {revertButton, draftButton, saveButton})
        button->setAutoDefault(false);
    buttons->addWidget(undoButton);
    buttons->addWidget(redoButton);
    buttons->addStretch(1);
    buttons->addWidget(revertButton);
    buttons->addWidget(draftButton);
    buttons->addWidget(saveButton);
    return buttons;
}

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
    if (accepted) {
        if (documentId.isEmpty() && response.status == 200)
            addProblem(tr("A %1 with this identity is already stored; saving will update it.").arg(name), QString(),
                       QStyle::SP_MessageBoxInformation);
        if (!dirty() && draftId == 0)
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
    const int count = problems->count();
    const QString counted = count == 1 ? tr("1 problem") : tr("%1 problems").arg(count);
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
    if (item == nullptr)
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
    loadHistory();
    return true;
}

void DocumentEditor::Private::loadHistory()
{
    historyList->clear();
    historyView->clear();
    restoreButton->setEnabled(false);
    history.clear();
    if (!documentId.isEmpty()) {
        try {
            history = session->engine().history(documentId.toStdString());
        } catch (const std::exception &) {
            history.clear();
        }
    }
    for (const steward::HistoryEntry &entry : history) {
        QString line = tr("#%1  %2  ·  %3").arg(entry.seq).arg(QString::fromStdString(entry.op),
                                                                 QString::fromStdString(entry.at));
        if (!entry.actor.empty())
            line += QStringLiteral("  ·  ") + QString::fromStdString(entry.actor);
        if (!entry.source.empty())
            line += QStringLiteral("  ·  ") + QString::fromStdString(entry.source);
        historyList->addItem(line);
    }
    tabs->setTabEnabled(kHistoryTab, !documentId.isEmpty());
    tabs->setTabText(kHistoryTab, history.empty() ? tr("History") : tr("History (%1)").arg(history.size()));
}

namespace {

QString shortValue(const steward::Json &value)
{
    QString text = QString::fromStdString(steward::dumpJson(value));
    if (text.size() > 80)
        text = text.left(77) + QStringLiteral("...");
    return text;
}

QString versionTitle(const steward::HistoryEntry &entry)
{
    QString title = DocumentEditor::tr("Version #%1 · %2 · %3")
                        .arg(entry.seq)
                        .arg(QString::fromStdString(entry.op), QString::fromStdString(entry.at));
    if (!entry.actor.empty())
        title += QStringLiteral(" · ") + QString::fromStdString(entry.actor);
    if (!entry.source.empty())
        title += QStringLiteral(" · ") + QString::fromStdString(entry.source);
    return title;
}

// What changed between two versions, a line a field, in the form's words with the JSON path beside.
QString describeChanges(const steward::HistoryEntry &older, const steward::HistoryEntry &newer)
{
    if (!newer.body)
        return DocumentEditor::tr("The document was deleted.");
    if (!older.body)
        return DocumentEditor::tr("The document was created again after its delete.");
    const std::vector<steward::FieldChange> changes = steward::diffJson(*older.body, *newer.body);
    if (changes.empty())
        return DocumentEditor::tr("No field changed.");
    QStringList lines;
    for (const steward::FieldChange &change : changes) {
        const QString field = QStringLiteral("%1 (%2)").arg(pathLabel(change.path), QString::fromStdString(change.path));
        switch (change.kind) {
        case steward::FieldChange::Kind::Added:
            lines << DocumentEditor::tr("  added    %1: %2").arg(field, shortValue(change.after));
            break;
        case steward::FieldChange::Kind::Removed:
            lines << DocumentEditor::tr("  removed  %1: %2").arg(field, shortValue(change.before));
            break;
        case steward::FieldChange::Kind::Changed:
            lines << DocumentEditor::tr("  changed  %1: %2 → %3")
                         .arg(field, shortValue(change.before), shortValue(change.after));
            break;
        }
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

void DocumentEditor::Private::showHistoryEntry(int row)
{
    // Ctrl+click on a second version changes the current row as well: the comparison stays shown.
    if (historyList->selectedItems().size() == 2) {
        compareHistoryEntries();
        return;
    }
    if (row < 0 || row >= static_cast<int>(history.size())) {
        historyView->clear();
        restoreButton->setEnabled(false);
        return;
    }
    // Newest first: the version before this one is the next row.
    const steward::HistoryEntry &entry = history[static_cast<std::size_t>(row)];
    QString text = versionTitle(entry) + QLatin1Char('\n');
    if (row + 1 < static_cast<int>(history.size())) {
        const steward::HistoryEntry &previous = history[static_cast<std::size_t>(row) + 1];
        text += tr("What changed since version #%1:").arg(previous.seq) + QLatin1Char('\n')
                + describeChanges(previous, entry) + QLatin1Char('\n');
    } else {
        text += tr("The first version.") + QLatin1Char('\n');
    }
    text += QLatin1Char('\n') + tr("The whole version:") + QLatin1Char('\n');
    text += entry.body ? formatDocumentJson(*entry.body, resource) : tr("(no body: the document was deleted)");
    historyView->setPlainText(text);
    restoreButton->setEnabled(entry.body.has_value() && resource != nullptr);
}

void DocumentEditor::Private::compareHistoryEntries()
{
    const QList<QListWidgetItem *> selected = historyList->selectedItems();
    if (selected.size() != 2)
        return;
    int first = historyList->row(selected[0]);
    int second = historyList->row(selected[1]);
    if (first > second)
        std::swap(first, second); // rows are newest first: the larger row is the older version
    const steward::HistoryEntry &newer = history[static_cast<std::size_t>(first)];
    const steward::HistoryEntry &older = history[static_cast<std::size_t>(second)];
    historyView->setPlainText(tr("Version #%1 compared with version #%2:").arg(newer.seq).arg(older.seq)
                              + QLatin1Char('\n') + describeChanges(older, newer));
    restoreButton->setEnabled(false);
}

void DocumentEditor::Private::restoreHistoryEntry()
{
    const int row = historyList->currentRow();
    if (row < 0 || row >= static_cast<int>(history.size()) || !history[static_cast<std::size_t>(row)].body)
        return;
    const steward::HistoryEntry &entry = history[static_cast<std::size_t>(row)];
    closeBurst();
    pushText(formatDocumentJson(*entry.body, resource), QString(), Origin::None,
             tr("Restore version #%1").arg(entry.seq));
    tabs->setCurrentIndex(kFormTab);
    revalidate();
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
        if (response.status == 412)
            d->setSummary(tr("Not saved: this %1 was changed elsewhere since it was opened. Your text is kept: save it "
                             "as a draft, or Revert to load the stored version (Undo brings your text back).")
                              .arg(QString::fromStdString(d->resource->resourceName)),
                          "error");
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
