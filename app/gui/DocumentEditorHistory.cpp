#include "DocumentEditorParts.h"

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

// The History tab: the change log of the document, a version shown, two compared, one restored.

using namespace editorparts;

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
