// The main window's data-quality actions: running the rules, the readiness verdict, likely
// duplicates, changing a document's identity, drafts grouped by root cause.
#include "MainWindow.h"
#include "Prompt.h"
#include "SubmissionReport.h"
#include "TableExport.h"
#include "ExternalResults.h"
#include "Rules.h"
#include "Submissions.h"
#include "Spreadsheet.h"
#include "AppSession.h"
#include "BlockedDeleteDialog.h"
#include "DocumentEditor.h"
#include "DocumentTableModel.h"
#include "Exporter.h"
#include "Importer.h"
#include "Progress.h"
#include "ReferencesPane.h"
#include "RootCausesPanel.h"
#include "ResultsGrid.h"
#include "ResourceTreeModel.h"
#include "Rules.h"
#include "SampleDistrict.h"
#include "AttentionBar.h"
#include "ConflictDialog.h"
#include "DocumentEditor.h"
#include "ResourceTreeModel.h"
#include "SyncDialog.h"
#include "SpreadsheetImportDialog.h"
#include "ReadinessPanel.h"
#include "DuplicatesDialog.h"
#include "FindDialog.h"
#include "IdentityChangeDialog.h"
#include <QDockWidget>
#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QRegularExpression>
#include <QEventLoop>
#include <SQLiteCpp/Statement.h>
#include <QFileDialog>
#include <QInputDialog>
#include <QFileInfo>
#include <QDockWidget>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QProgressDialog>
#include <QPushButton>
#include <QFontMetrics>
#include <QScreen>
#include <QSettings>
#include <QStyle>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <atomic>

namespace {

// What the worker hands back: the report, or why the pack could not run.
struct RulesOutcome
{
    steward::RuleRunReport report;
    QString error;
};

} // namespace

void MainWindow::runRules()
{
    // The built-in starter pack, or one imported here (its newest version).
    std::string packName = "starter";
    QStringList choices{tr("The starter pack (built in)")};
    std::vector<std::string> names{packName};
    for (const steward::StoredRulePack &stored : steward::storedRulePacks(m_session->database().connection())) {
        if (!names.empty() && names.back() == stored.id) {
            choices.back() = tr("%1 %2").arg(QString::fromStdString(stored.title), QString::fromStdString(stored.version));
            continue;
        }
        names.push_back(stored.id);
        choices << tr("%1 %2").arg(QString::fromStdString(stored.title), QString::fromStdString(stored.version));
    }
    if (names.size() > 1) {
        bool ok = false;
        const QString choice = QInputDialog::getItem(this, tr("Run rules"), tr("Which rule pack?"), choices, 0, false, &ok);
        if (!ok || choices.indexOf(choice) < 0)
            return;
        packName = names[static_cast<std::size_t>(choices.indexOf(choice))];
    }
    const steward::Model *model = &m_session->model();
    steward::Database *database = &m_session->database();
    const RulesOutcome outcome = runWithProgress<RulesOutcome>(
        this, tr("Running the rules…"), [model, database, packName](const std::function<bool(int, int)> &progress) {
            RulesOutcome result;
            try {
                const steward::RulePack pack = steward::resolveRulePack(&database->connection(), packName, *model);
                steward::RuleRunOptions options;
                options.progress = progress;
                result.report = steward::runRules(pack, *model, *database, options);
            } catch (const std::exception &e) {
                result.error = QString::fromStdString(e.what());
            }
            return result;
        });
    if (!outcome.error.isEmpty()) {
        Prompt::inform(this, tr("Run rules"), tr("The rules could not run:\n%1").arg(outcome.error));
        return;
    }
    const steward::RuleRunReport &report = outcome.report;
    if (report.cancelled) {
        statusBar()->showMessage(tr("Rules stopped; nothing stored."), 8000);
        return;
    }
    auto total = [&report](const char *severity) {
        auto it = report.totalsBySeverity.find(severity);
        return it == report.totalsBySeverity.end() ? qint64(0) : qint64(it->second);
    };
    QString text = tr("%1 rules run over %2 documents (%3).\n%4 new, %5 resolved.\n\nNow: %6 fatal, %7 error, %8 warning, "
                      "%9 info.")
                       .arg(report.rulesRun)
                       .arg(report.documentsChecked)
                       .arg(report.fullRun ? tr("everything") : tr("changed since the last run"))
                       .arg(report.added)
                       .arg(report.removed)
                       .arg(total("fatal"))
                       .arg(total("error"))
                       .arg(total("warning"))
                       .arg(total("info"));
    steward::RuleResultFilter filter;
    filter.packId = report.packId;
    filter.limit = 10;
    const std::vector<steward::RuleResult> first = steward::readRuleResults(m_session->database().connection(), filter);
    if (!first.empty())
        text += tr("\n\nFirst results:");
    for (const steward::RuleResult &result : first)
        text += QStringLiteral("\n• %1 %2 %3 %4: %5")
                    .arg(QString::fromStdString(result.severity), QString::fromStdString(result.ruleId),
                         QString::fromStdString(result.resource), QString::fromStdString(result.naturalKey),
                         QString::fromStdString(result.message));
    Q_EMIT ruleResultsChanged();
    if (m_readiness != nullptr)
        m_readiness->refresh(); // fatal results decide the verdict
    Prompt::inform(this, tr("Run rules"), text);
}

void MainWindow::showReadiness()
{
    if (m_readinessDock == nullptr) {
        m_readinessDock = new QDockWidget(tr("Readiness"), this);
        m_readinessDock->setObjectName(QStringLiteral("readinessDock"));
        m_readiness = new ReadinessPanel(*m_session, m_readinessDock);
        m_readinessDock->setWidget(m_readiness);
        addDockWidget(Qt::BottomDockWidgetArea, m_readinessDock);
    }
    m_readinessDock->show();
    m_readinessDock->raise();
    m_readiness->refresh();
}

void MainWindow::openDuplicatesDialog()
{
    DuplicatesDialog dialog(*m_session, this);
    dialog.exec();
}

QString MainWindow::changeIdentityDialog(const QString &id)
{
    const QString documentId = id.isEmpty() ? m_editor->documentId() : id;
    if (documentId.isEmpty()) {
        Prompt::inform(this, tr("Change identity"), tr("Open a stored document first."));
        return {};
    }
    IdentityChangeDialog dialog(*m_session, documentId, this);
    if (dialog.exec() != QDialog::Accepted)
        return {};
    navigateTo(dialog.resultId());
    return dialog.resultId();
}

void MainWindow::showRootCauses()
{
    if (m_causesDock == nullptr) {
        m_causesDock = new QDockWidget(tr("Root causes of drafts"), this);
        m_causesDock->setObjectName(QStringLiteral("rootCausesDock"));
        addDockWidget(Qt::BottomDockWidgetArea, m_causesDock);
        // Room for a screenful of causes and the details under them.
        resizeDocks({m_causesDock}, {qMax(320, height() / 3)}, Qt::Vertical);
    }
    if (m_causesPanel == nullptr) {
        m_causesPanel = new RootCausesPanel(m_session.get(), m_causesDock);
        m_causesDock->setWidget(m_causesPanel);
        connect(m_causesPanel, &RootCausesPanel::createDocumentRequested, this, &MainWindow::newDocumentWithValues);
        connect(m_causesPanel, &RootCausesPanel::openDraftRequested, this, [this](qint64 draftId) {
            if (!confirmDiscardEdits())
                return;
            m_editor->openDraft(draftId);
            m_references->showDocument({});
            updateActions();
        });
    }
    m_causesDock->show();
    m_causesDock->raise();
    m_causesPanel->refresh();
}

void MainWindow::buildAttention(QWidget *central)
{
    m_attention = new AttentionBar(*m_session, central);
    statusBar()->insertPermanentWidget(0, m_attention->statusLabel());
    connect(m_attention, &AttentionBar::conflictCountsChanged, this,
            [this](const QHash<QString, qint64> &byResource) {
                if (m_resourceModel != nullptr)
                    m_resourceModel->setConflictCounts(byResource);
            });
    connect(m_attention, &AttentionBar::decideRequested, this, &MainWindow::decideConflict);
    // The editor's verdict lists the record's conflict and drafts; a click opens them.
    connect(m_editor, &DocumentEditor::conflictRequested, this, &MainWindow::decideConflict);
    connect(m_editor, &DocumentEditor::draftRequested, this, [this](qint64 draftId) {
        if (!confirmDiscardEdits())
            return;
        m_editor->openDraft(draftId);
        updateActions();
    });
}

void MainWindow::decideConflict(const QString &id, const QString &targetUrl)
{
    if (id.isEmpty() || !openConflictDialog(*m_session, id.toStdString(), targetUrl.toStdString(), this))
        return;
    m_session->announceEverythingChanged();
    statusBar()->showMessage(tr("Decided. The next push sends it; Edit > Undo last operation opens the conflict again."),
                             8000);
}

void MainWindow::previewRecord(const QString &id)
{
    if (id == m_editor->documentId())
        return;
    if (m_editor->hasUnsavedChanges()) {
        statusBar()->showMessage(tr("The editor has unsaved changes: save or revert them to see the selected record."), 6000);
        return;
    }
    const int tab = m_centerTabs->currentIndex();
    if (navigateTo(id))
        m_centerTabs->setCurrentIndex(tab);
}
