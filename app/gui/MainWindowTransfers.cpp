// The main window's transfers in and out: importing files, spreadsheets, rule packs and a state's
// results; signing off what went out; exporting the principal's report and a validated batch.
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
#include "ConflictDialog.h"
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

void MainWindow::importFilesDialog()
{
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Import documents"), QString(),
        tr("Import files (*.ndjson *.jsonl *.json *.xml);;All files (*)"));
    if (files.isEmpty() || !confirmDiscardEdits())
        return;
    steward::ImportOptions options;
    for (const QString &file : files)
        options.paths.push_back(file.toStdString());
    runImport(options);
}

void MainWindow::importSpreadsheetDialog()
{
    if (!confirmDiscardEdits())
        return;
    SpreadsheetImportDialog dialog(*m_session, this);
    if (dialog.exec() != QDialog::Accepted || !dialog.mapping())
        return;
    steward::ImportOptions options;
    options.paths = {dialog.filePath().toStdString()};
    options.mapping = dialog.mapping();
    runImport(options);
}

void MainWindow::runImport(steward::ImportOptions options)
{
    options.actor = steward::currentOsUser();
    steward::Engine *engine = &m_session->engine();
    const steward::Model *model = &m_session->model();
    const steward::ImportReport report = runWithProgress<steward::ImportReport>(
        this, tr("Importing…"), [engine, model, options](const std::function<bool(int, int)> &progress) {
            bool read = false; // input in load order skips the reading phase; applying is then all of it
            return steward::importFiles(*engine, *model, options, [&progress, &read](const steward::ImportProgress &p) {
                // Reading is measured in bytes, applying in documents; both shown as a share of 1000.
                read = read || p.phase == "reading";
                const double applied = p.itemsTotal ? p.items / static_cast<double>(p.itemsTotal) : 0.0;
                const double share = p.phase == "reading"
                                         ? (p.bytesTotal ? 0.5 * p.bytesRead / static_cast<double>(p.bytesTotal) : 0.0)
                                         : (read ? 0.5 + 0.5 * applied : applied);
                return progress(static_cast<int>(share * 1000), 1000);
            });
        });
    m_session->announceEverythingChanged();
    const steward::ImportCounts &t = report.totals;
    QString text = tr("%1 created, %2 updated, %3 unchanged, %4 kept as drafts.")
                       .arg(t.created)
                       .arg(t.updated)
                       .arg(t.unchanged)
                       .arg(t.drafts);
    if (report.cancelled)
        text += tr("\nStopped: the chunks committed before stay; the rest was not applied.");
    if (!report.error.empty())
        text += QStringLiteral("\n") + QString::fromStdString(report.error);
    if (t.drafts > 0)
        text += tr("\nDrafts are listed under each resource's Drafts tab with their reasons.");
    Prompt::inform(this, tr("Import"), text);
}

void MainWindow::importRulePackDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import a rule pack"), QString(), tr("Rule packs (*.json)"));
    if (!path.isEmpty())
        Prompt::inform(this, tr("Import a rule pack"), importRulePackFile(path));
}

QString MainWindow::importRulePackFile(const QString &path)
{
    try {
        const steward::RulePack pack = steward::loadRulePack(path.toStdString(), m_session->model());
        const steward::RulePackImport outcome =
            steward::importRulePack(m_session->database(), pack, steward::currentOsUser(), m_session->model());
        QString text = (outcome.alreadyStored ? tr("%1 %2 was stored already (%3 rules).") : tr("Stored %1 %2 (%3 rules)."))
                           .arg(QString::fromStdString(pack.id), QString::fromStdString(pack.version))
                           .arg(pack.rules.size());
        if (!outcome.previousVersion.empty())
            text += QLatin1Char('\n') + tr("Against %1: %n change(s).", nullptr, static_cast<int>(outcome.changes.size()))
                                              .arg(QString::fromStdString(outcome.previousVersion));
        for (const steward::RulePackChange &change : outcome.changes)
            text += QStringLiteral("\n• %1 %2 %3")
                        .arg(QString::fromStdString(change.ruleId), QString::fromStdString(change.kind),
                             QString::fromStdString(change.from.empty() && change.to.empty()
                                                        ? std::string()
                                                        : change.from + " → " + change.to));
        return text;
    } catch (const std::exception &e) {
        return tr("Not imported: %1").arg(QString::fromUtf8(e.what()));
    }
}

void MainWindow::importStateResultsDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import the state's validation results"), QString(),
                                                      tr("Results (*.csv *.tsv *.txt *.xlsx *.jsonl *.ndjson)"));
    if (path.isEmpty())
        return;
    QString mapping;
    if (steward::isSpreadsheetFile(path.toStdString())) {
        mapping = QFileDialog::getOpenFileName(this, tr("The results mapping for %1").arg(QFileInfo(path).fileName()),
                                               QString(), tr("Results mappings (*.json)"));
        if (mapping.isEmpty())
            return;
    }
    Prompt::inform(this, tr("Import the state's results"), importStateResults(path, mapping));
}

QString MainWindow::importStateResults(const QString &path, const QString &mappingPath)
{
    try {
        std::optional<steward::ResultsMapping> mapping;
        if (!mappingPath.isEmpty())
            mapping = steward::loadResultsMapping(mappingPath.toStdString(), m_session->model());
        steward::Database *database = &m_session->database();
        const steward::Model *model = &m_session->model();
        const std::string file = path.toStdString();
        const steward::ResultsMapping *chosen = mapping ? &*mapping : nullptr;
        struct Outcome
        {
            steward::ResultsImportReport report;
            QString error;
        };
        const Outcome outcome = runWithProgress<Outcome>(
            this, tr("Matching the state's results…"), [database, model, file, chosen](const std::function<bool(int, int)> &) {
                Outcome out;
                try {
                    steward::ResultsImportOptions options;
                    options.actor = steward::currentOsUser();
                    out.report = steward::importExternalResults(*database, *model, file, chosen, options);
                } catch (const std::exception &e) {
                    out.error = QString::fromUtf8(e.what());
                }
                return out;
            });
        if (!outcome.error.isEmpty())
            return tr("Nothing stored: %1").arg(outcome.error);
        const steward::ResultsImportReport &report = outcome.report;
        QString text = tr("%1 result(s) from %2: %3 matched to stored records, %4 matched nothing.")
                           .arg(report.rows)
                           .arg(QFileInfo(path).fileName())
                           .arg(report.matched)
                           .arg(report.rows - report.matched);
        if (report.replaced)
            text += QLatin1Char('\n') + tr("Against the earlier results: %1 fixed, %2 still there, %3 new.")
                                              .arg(report.fixed)
                                              .arg(report.still)
                                              .arg(report.added);
        for (std::size_t i = 0; i < report.unmatched.size() && i < 10; ++i)
            text += QStringLiteral("\n• row %1 (%2): %3")
                        .arg(report.unmatched[i].row)
                        .arg(QString::fromStdString(report.unmatched[i].ruleId),
                             QString::fromStdString(report.unmatched[i].reason));
        Q_EMIT ruleResultsChanged();
        if (m_readiness != nullptr)
            m_readiness->refresh();
        return text;
    } catch (const std::exception &e) {
        return tr("Nothing stored: %1").arg(QString::fromUtf8(e.what()));
    }
}

void MainWindow::signOffDialog()
{
    // What went out: the newest exported batch, or what was pushed to one of the sync targets.
    QStringList choices{tr("The newest exported batch")};
    QStringList targets{QString()};
    {
        SQLite::Statement query(m_session->database().connection(), "SELECT url FROM sync_targets ORDER BY target_id");
        while (query.executeStep()) {
            targets << QString::fromStdString(query.getColumn(0).getString());
            choices << tr("What was pushed to %1").arg(targets.last());
        }
    }
    bool ok = true;
    int chosen = 0;
    if (choices.size() > 1) {
        const QString choice = QInputDialog::getItem(this, tr("Sign off a submission"), tr("What went out?"), choices, 0,
                                                     false, &ok);
        chosen = static_cast<int>(choices.indexOf(choice));
    }
    if (!ok || chosen < 0)
        return;
    const QString name = QInputDialog::getText(this, tr("Sign off a submission"),
                                               tr("Who signs off (with the verdict as it is now)?"), QLineEdit::Normal,
                                               QString::fromStdString(steward::currentOsUser()), &ok);
    if (ok)
        Prompt::inform(this, tr("Sign off"), signOff(name, targets[chosen]));
}

QString MainWindow::signOff(const QString &name, const QString &pushTarget)
{
    try {
        const std::string who = name.trimmed().toStdString();
        const steward::Submission submission =
            pushTarget.isEmpty() ? steward::signOffExport(m_session->database(), std::string(), who, std::string())
                                 : steward::signOffPush(m_session->database(), pushTarget.toStdString(), who, std::string());
        if (m_readiness != nullptr)
            m_readiness->refresh();
        return tr("Recorded: %1.\nVerdict then: %2")
            .arg(QString::fromStdString(submission.summary()),
                 QString::fromStdString(submission.verdict.value("verdict", std::string())));
    } catch (const std::exception &e) {
        return tr("Not signed off: %1").arg(QString::fromUtf8(e.what()));
    }
}

void MainWindow::exportReportDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the submission report"),
                                                      QStringLiteral("submission-report.pdf"), tr("PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    steward::Database *database = &m_session->database();
    // Read on a worker (a million documents take a few seconds); drawn here, where fonts live.
    const steward::SubmissionReportData data = runWithProgress<steward::SubmissionReportData>(
        this, tr("Reading the report…"), [database](const std::function<bool(int, int)> &) {
            return steward::gatherSubmissionReport(database->connection());
        });
    QString error;
    int pages = 0;
    if (!steward::writeSubmissionReportPdf(data, path, &error, &pages)) {
        Prompt::inform(this, tr("Export report"), error);
        return;
    }
    // The fix list beside it, as a spreadsheet to sort and hand out.
    QString fixList = path;
    fixList.replace(QRegularExpression(QStringLiteral("\\.pdf$"), QRegularExpression::CaseInsensitiveOption),
                    QString());
    fixList += QStringLiteral("-fix-list.xlsx");
    const steward::FixListTable list = steward::fixListTable(data);
    try {
        steward::writeXlsx(fixList.toStdString(), {list.headers, list.rows}, "Fix list");
    } catch (const std::exception &e) {
        Prompt::inform(this, tr("Export report"),
                       tr("The report was written, the fix list not: %1").arg(QString::fromStdString(e.what())));
        return;
    }
    statusBar()->showMessage(tr("Report written to %1: %n page(s); the fix list to %2.", nullptr, pages)
                                 .arg(QDir::toNativeSeparators(path), QDir::toNativeSeparators(fixList)),
                             8000);
}

void MainWindow::exportBatchDialog()
{
    if (!confirmReadyToSubmit(this, *m_session, tr("Export")))
        return;
    const QString dir = QFileDialog::getSaveFileName(this, tr("Export a validated batch to a new folder"),
                                                     QStringLiteral("batch"), QString(),
                                                     nullptr, QFileDialog::ShowDirsOnly);
    if (dir.isEmpty())
        return;
    steward::ExportOptions options;
    options.outDir = dir.toStdString();
    steward::Database *database = &m_session->database();
    const steward::Model *model = &m_session->model();
    const steward::ExportResult result = runWithProgress<steward::ExportResult>(
        this, tr("Exporting…"), [database, model, options](const std::function<bool(int, int)> &progress) {
            return steward::exportBatch(*database, *model, options, [&progress](std::int64_t done, std::int64_t total) {
                return progress(static_cast<int>(total > 0 ? done * 1000 / total : 0), 1000);
            });
        });
    if (!result.ok)
        Prompt::inform(this, tr("Export"), result.cancelled ? tr("Stopped; nothing was written.")
                                                            : QString::fromStdString(result.error));
    else
        Prompt::inform(this, tr("Export"), tr("Batch %1: %2 documents written to %3.")
                                               .arg(QString::fromStdString(result.batchId))
                                               .arg(result.documents)
                                               .arg(QDir::toNativeSeparators(dir)));
}
