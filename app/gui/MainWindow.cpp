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

constexpr int kDraftIdRole = Qt::UserRole + 1;

QString settingsKeyFor(const QString &databasePath)
{
    QString key = QFileInfo(databasePath).absoluteFilePath();
    key.replace(QLatin1Char('/'), QLatin1Char('|'));
    return QStringLiteral("databases/") + key + QStringLiteral("/schemas");
}

QString problemSummary(const steward::Json &problem)
{
    if (!problem.is_object())
        return {};
    QString text = QString::fromStdString(problem.value("detail", std::string()));
    if (problem.contains("validationErrors") && problem["validationErrors"].is_object())
        for (const auto &item : problem["validationErrors"].items())
            for (const steward::Json &message : item.value())
                text += QStringLiteral("\n%1: %2").arg(QString::fromStdString(item.key()),
                                                       QString::fromStdString(message.get<std::string>()));
    return text;
}

} // namespace

MainWindow::MainWindow(std::unique_ptr<AppSession> session, QWidget *parent)
    : QMainWindow(parent)
    , m_session(std::move(session))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Steward"));
    buildMenus();
    m_statusLabel = new QLabel(this);
    statusBar()->addPermanentWidget(m_statusLabel);
    rebuildForSession();
    restoreLayout();
}

MainWindow::~MainWindow()
{
    // The fix list's worker reads the session's model; it finishes before the session goes.
    delete m_causesPanel;
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New database…"), this, [this] { openDatabaseDialog(true); });
    file->addAction(tr("&Open database…"), QKeySequence::Open, this, [this] { openDatabaseDialog(false); });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addSeparator();
    file->addAction(tr("&Import…"), QKeySequence(tr("Ctrl+I")), this, &MainWindow::importFilesDialog);
    file->addAction(tr("Import s&preadsheet…"), this, &MainWindow::importSpreadsheetDialog);
    file->addAction(tr("&Export validated batch…"), QKeySequence(tr("Ctrl+E")), this, &MainWindow::exportBatchDialog);
    file->addAction(tr("Export repor&t (PDF)…"), this, &MainWindow::exportReportDialog);
    file->addSeparator();
    QMenu *model = file->addMenu(tr("&Model"));
    model->addAction(tr("Embedded &starter model"), this, [this] { chooseModelDialog(true); });
    model->addAction(tr("Ed-Fi &ApiSchema files…"), this, [this] { chooseModelDialog(false); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *newAction = edit->addAction(tr("&New document"), QKeySequence::New, this, &MainWindow::newDocument);
    m_saveAction = edit->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::saveDocument);
    QAction *draftAction = edit->addAction(tr("Save as dr&aft"), QKeySequence(tr("Ctrl+Shift+S")), this,
                                           &MainWindow::saveDraft);
    m_deleteAction = edit->addAction(tr("&Delete document"), QKeySequence::Delete, this, &MainWindow::deleteDocument);
    edit->addAction(tr("Change &identity…"), this, [this] { changeIdentityDialog(); });
    m_deleteAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    edit->addSeparator();
    edit->addAction(tr("&Undo last operation"), this, [this] {
        if (m_resultsGrid)
            m_resultsGrid->undoLastFix();
    });
    edit->addSeparator();
    edit->addAction(tr("&Filter documents"), QKeySequence::Find, this, [this] {
        m_centerTabs->setCurrentIndex(0);
        m_documentFilter->setFocus();
        m_documentFilter->selectAll();
    });

    QMenu *go = menuBar()->addMenu(tr("&Go"));
    m_backAction = go->addAction(tr("&Back"), QKeySequence(Qt::ALT | Qt::Key_Left), this, &MainWindow::goBack);
    m_forwardAction = go->addAction(tr("&Forward"), QKeySequence(Qt::ALT | Qt::Key_Right), this, &MainWindow::goForward);
    go->addSeparator();
    go->addAction(tr("Find &anything…"), QKeySequence(tr("Ctrl+K")), this, &MainWindow::findAnything);

    QMenu *tools = menuBar()->addMenu(tr("&Tools"));
    QAction *revalidate = tools->addAction(tr("Re&validate drafts"), this, &MainWindow::revalidateDrafts);
    tools->addAction(tr("Load a &sample district"), this, &MainWindow::loadSampleDistrict);
    tools->addSeparator();
    tools->addAction(tr("S&ync with an Ed-Fi API…"), QKeySequence(tr("Ctrl+Shift+Y")), this, &MainWindow::openSyncDialog);
    tools->addAction(tr("C&heck database"), this, [this] { checkDatabase(steward::CheckDepth::Routine); });
    tools->addAction(tr("Check database &fully (with SQLite's integrity_check)"), this,
                     [this] { checkDatabase(steward::CheckDepth::Full); });
    tools->addAction(tr("&Undo and history…"), this, &MainWindow::undoRetentionDialog);
    tools->addAction(tr("Run &rules"), this, &MainWindow::runRules);
    tools->addAction(tr("Import a rule &pack…"), this, &MainWindow::importRulePackDialog);
    tools->addAction(tr("Import the s&tate's results…"), this, &MainWindow::importStateResultsDialog);
    tools->addAction(tr("Sign &off a submission…"), this, &MainWindow::signOffDialog);
    tools->addAction(tr("Readi&ness dashboard"), QKeySequence(tr("Ctrl+Shift+D")), this, &MainWindow::showReadiness);
    tools->addAction(tr("Find &duplicates…"), this, &MainWindow::openDuplicatesDialog);
    tools->addAction(tr("Root &causes of drafts (fix list)…"), QKeySequence(tr("Ctrl+Shift+R")), this,
                     &MainWindow::showRootCauses);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Steward"), this, [this] {
        QMessageBox::about(this, tr("About Steward"),
                           tr("<p><b>Steward %1</b></p><p>Offline Ed-Fi data stewardship: documents in SQLite with "
                              "referential integrity, validated against the Ed-Fi data standard.</p>")
                               .arg(QCoreApplication::applicationVersion()));
    });

    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addAction(m_backAction);
    toolbar->addAction(m_forwardAction);
    toolbar->addSeparator();
    toolbar->addAction(newAction);
    toolbar->addAction(m_saveAction);
    toolbar->addAction(draftAction);
    toolbar->addAction(m_deleteAction);
    toolbar->addSeparator();
    toolbar->addAction(revalidate);
    updateRecentMenu();
}

void MainWindow::rebuildForSession()
{
    if (m_readinessDock != nullptr) {
        // The panel follows the session it was made for; a new database gets a new one.
        delete m_readinessDock->widget();
        m_readiness = new ReadinessPanel(*m_session, m_readinessDock);
        m_readinessDock->setWidget(m_readiness);
    }
    // The fix list reads the previous session's model on its worker: it goes (waiting) before that session.
    if (m_causesPanel != nullptr) {
        delete m_causesPanel;
        m_causesPanel = nullptr;
        if (m_causesDock->isVisible())
            showRootCauses();
    }
    QWidget *old = centralWidget();
    m_currentResource = nullptr;
    m_history.clear();
    m_historyPosition = -1;
    buildPanes();
    delete old;
    updatePrivacyBanner();
    m_statusLabel->setText(tr("%1 · %2").arg(QDir::toNativeSeparators(m_session->databasePath()),
                                              QString::fromStdString(m_session->model().describe())));
    setWindowTitle(tr("%1 — Steward").arg(QFileInfo(m_session->databasePath()).fileName()));
    addRecent(m_session->databasePath());
    refreshCounts();
    // Start where the steward left this database, or on Schools.
    const QStringList remembered =
        QSettings().value(settingsKeyFor(m_session->databasePath()).replace("/schemas", "/resource")).toStringList();
    const steward::ResourceSchema *start =
        remembered.size() == 2 ? m_session->resourceByName(remembered[0].toStdString(), remembered[1].toStdString())
                               : nullptr;
    if (start == nullptr)
        start = m_session->resourceByName("Ed-Fi", "School");
    if (start == nullptr && !m_session->model().resources().empty())
        start = m_session->model().resources().front();
    selectResource(start);
    updateActions();
}

void MainWindow::openFirstDocument()
{
    if (m_documents->rowCount() > 0 && !m_documents->documentId(0).isEmpty())
        navigateTo(m_documents->documentId(0));
}

void MainWindow::buildPanes()
{
    auto *central = new QWidget(this);
    auto *outer = new QVBoxLayout(central);
    outer->setContentsMargins(4, 4, 4, 4);

    buildPrivacyBanner(central);
    outer->addWidget(m_privacyBanner);
    buildSampleBanner(central);
    outer->addWidget(m_sampleBanner);

    auto *splitter = new QSplitter(Qt::Horizontal, central);
    splitter->setObjectName(QStringLiteral("mainSplitter"));
    outer->addWidget(splitter, 1);

    QWidget *left = buildResourcePane(splitter);

    // Documents and drafts.
    m_centerTabs = new QTabWidget(splitter);
    m_centerTabs->setObjectName(QStringLiteral("centerTabs"));
    buildDocumentsTab();
    buildDraftsTab();
    buildDataQualityTab();
    connectDocumentsTable();

    QWidget *right = buildEditorPane(splitter);
    splitter->addWidget(left);
    splitter->addWidget(m_centerTabs);
    splitter->addWidget(right);
    // The tree keeps its width (its minimum fits its names); the form gains the most from room.
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 2);
    splitter->setStretchFactor(2, 3);
    splitter->setSizes({290, 380, 610});

    connectEditorPane();
    connectSessionSignals();
    buildAttention(central);
    outer->insertWidget(2, m_attention); // under the two banners, over the panes

    setCentralWidget(central);
}

void MainWindow::buildSampleBanner(QWidget *central)
{
    m_sampleBanner = new QFrame(central);
    m_sampleBanner->setObjectName(QStringLiteral("sampleBanner"));
    m_sampleBanner->setFrameShape(QFrame::StyledPanel);
    m_sampleBanner->setStyleSheet(QStringLiteral("#sampleBanner { background: #eef5ff; border: 1px solid #9bbbe6; }"));
    auto *bannerLayout = new QHBoxLayout(m_sampleBanner);
    auto *bannerText = new QLabel(tr("This database is empty. Load a small made-up district (two schools, their "
                                     "courses, sections, staff and students) to look around?"),
                                  m_sampleBanner);
    bannerText->setWordWrap(true);
    auto *bannerLoad = new QPushButton(tr("Load sample district"), m_sampleBanner);
    bannerLoad->setObjectName(QStringLiteral("loadSample"));
    auto *bannerDismiss = new QPushButton(tr("No, thanks"), m_sampleBanner);
    bannerLayout->addWidget(bannerText, 1);
    bannerLayout->addWidget(bannerLoad);
    bannerLayout->addWidget(bannerDismiss);
    connect(bannerLoad, &QPushButton::clicked, this, &MainWindow::loadSampleDistrict);
    connect(bannerDismiss, &QPushButton::clicked, this, [this] { showSampleOffer(false); });
    m_sampleBanner->setVisible(false);
}

// Resources pane.
QWidget *MainWindow::buildResourcePane(QWidget *splitter)
{
    auto *left = new QWidget(splitter);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_resourceFilter = new QLineEdit(left);
    m_resourceFilter->setObjectName(QStringLiteral("resourceFilter"));
    m_resourceFilter->setAccessibleName(tr("Filter resources"));
    m_resourceFilter->setPlaceholderText(tr("Filter resources"));
    m_resourceFilter->setClearButtonEnabled(true);
    m_resourceModel = new ResourceTreeModel(m_session->model(), this);
    m_resourceProxy = new QSortFilterProxyModel(this);
    m_resourceProxy->setSourceModel(m_resourceModel);
    m_resourceProxy->setRecursiveFilteringEnabled(true);
    m_resourceProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_resourceView = new QTreeView(left);
    m_resourceView->setObjectName(QStringLiteral("resourceTree"));
    m_resourceView->setAccessibleName(tr("Resources"));
    m_resourceView->setModel(m_resourceProxy);
    m_resourceView->setHeaderHidden(true);
    m_resourceView->setUniformRowHeights(true);
    m_resourceView->expandAll();
    m_resourceView->collapse(m_resourceProxy->index(4, 0)); // descriptors: many, rarely the place to start
    leftLayout->addWidget(m_resourceFilter);
    leftLayout->addWidget(m_resourceView, 1);
    // Never narrower than its longest name with a count, so that nothing in the tree is cut (up to a
    // width that leaves the documents and the form their room at 1280 pixels).
    const QFontMetrics metrics(m_resourceView->font());
    int widest = metrics.horizontalAdvance(tr("Enrollment and associations (99)"));
    for (const steward::ResourceSchema *resource : m_session->model().resources())
        widest = std::max(widest, metrics.horizontalAdvance(QString::fromStdString(resource->resourceName)
                                                            + QStringLiteral(" · 9,999")));
    left->setMinimumWidth(std::min(290, widest + m_resourceView->indentation() + 24));
    connect(m_resourceFilter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_resourceProxy->setFilterFixedString(text);
        if (!text.isEmpty())
            m_resourceView->expandAll();
    });
    connect(m_resourceView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) {
                const steward::ResourceSchema *resource = ResourceTreeModel::resourceAt(current);
                if (resource && resource != m_currentResource)
                    selectResource(resource);
            });
    return left;
}

void MainWindow::buildDocumentsTab()
{
    auto *documentsPage = new QWidget(m_centerTabs);
    auto *documentsLayout = new QVBoxLayout(documentsPage);
    documentsLayout->setContentsMargins(0, 4, 0, 0);
    auto *filterRow = new QHBoxLayout;
    m_documentFilter = new QLineEdit(documentsPage);
    m_documentFilter->setObjectName(QStringLiteral("documentFilter"));
    m_documentFilter->setAccessibleName(tr("Filter documents by natural key"));
    m_documentFilter->setPlaceholderText(tr("Filter by natural key (Ctrl+F)"));
    m_documentFilter->setClearButtonEnabled(true);
    m_documentCount = new QLabel(documentsPage);
    filterRow->addWidget(m_documentFilter, 1);
    filterRow->addWidget(m_documentCount);
    m_documents = new DocumentTableModel(m_session->databasePath(), m_session->model(), this);
    m_documents->setDescriptorLabel([this](const QString &uri) {
        return uri.isEmpty() || !m_session ? uri : m_session->descriptorLabels().label(uri.toStdString());
    });
    m_documentView = new QTableView(documentsPage);
    m_documentView->setObjectName(QStringLiteral("documentTable"));
    m_documentView->setAccessibleName(tr("Documents"));
    m_documentView->setModel(m_documents);
    m_documentView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_documentView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_documentView->setSortingEnabled(true);
    m_documentView->sortByColumn(-1, Qt::AscendingOrder);
    m_documentView->verticalHeader()->setDefaultSectionSize(m_documentView->fontMetrics().height() + 6);
    m_documentView->verticalHeader()->setVisible(false);
    m_documentView->horizontalHeader()->setStretchLastSection(true);
    m_documentView->horizontalHeader()->setMaximumSectionSize(320);
    m_documentView->setAlternatingRowColors(true);
    documentsLayout->addLayout(filterRow);
    documentsLayout->addWidget(m_documentView, 1);
    // Del deletes only where documents are shown, never while typing in a field.
    m_documentView->addAction(m_deleteAction);
    m_centerTabs->addTab(documentsPage, tr("Documents"));
}

void MainWindow::buildDraftsTab()
{
    auto *draftsPage = new QWidget(m_centerTabs);
    auto *draftsLayout = new QVBoxLayout(draftsPage);
    m_drafts = new QListWidget(draftsPage);
    m_drafts->setObjectName(QStringLiteral("draftList"));
    auto *revalidateButton = new QPushButton(tr("Revalidate drafts"), draftsPage);
    revalidateButton->setObjectName(QStringLiteral("revalidateDrafts"));
    auto *draftsNote = new QLabel(tr("Input kept as typed, with what stopped it. Open one to fix and save it."),
                                  draftsPage);
    draftsNote->setWordWrap(true);
    draftsLayout->addWidget(draftsNote);
    draftsLayout->addWidget(m_drafts, 1);
    draftsLayout->addWidget(revalidateButton, 0, Qt::AlignLeft);
    m_centerTabs->addTab(draftsPage, tr("Drafts"));
    connect(revalidateButton, &QPushButton::clicked, this, &MainWindow::revalidateDrafts);
    connect(m_drafts, &QListWidget::itemActivated, this, [this] { openDraftItem(); });
}

// Data quality: drafts, rule results and sync conflicts across resources, bulk fixes, export.
void MainWindow::buildDataQualityTab()
{
    m_resultsGrid = new ResultsGrid(m_session.get(), m_centerTabs);
    m_resultsGrid->setObjectName(QStringLiteral("resultsGrid"));
    m_centerTabs->addTab(m_resultsGrid, tr("Data quality"));
    connect(m_resultsGrid, &ResultsGrid::openDocument, this, [this](const QString &id) { navigateTo(id); });
    connect(m_resultsGrid, &ResultsGrid::openConflict, this, [this](const QString &id) { decideConflict(id, {}); });
    connect(m_resultsGrid, &ResultsGrid::recordSelected, this, &MainWindow::previewRecord);
    connect(m_resultsGrid, &ResultsGrid::openDraft, this, [this](qint64 draftId) {
        if (!confirmDiscardEdits())
            return;
        m_editor->openDraft(draftId);
        m_references->showDocument({});
        updateActions();
    });
    connect(m_resultsGrid, &ResultsGrid::fixApplied, this,
            [this](const QString &message) { statusBar()->showMessage(message, 8000); });
}

void MainWindow::connectDocumentsTable()
{
    connect(m_documentFilter, &QLineEdit::textChanged, m_documents, &DocumentTableModel::setFilter);
    // Fit the columns to the first rows of each resource (the view samples what it shows, not every row).
    connect(m_documents, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!m_columnsFitted) {
            m_columnsFitted = true;
            m_documentView->resizeColumnsToContents();
        }
    });
    connect(m_documents, &QAbstractItemModel::modelReset, this, [this] { m_columnsFitted = false; });
    connect(m_documents, &DocumentTableModel::totalCountChanged, this, [this](qint64 count) {
        m_documentCount->setText(count < 0 ? tr("counting…") : tr("%n document(s)", nullptr, static_cast<int>(count)));
        // No rows will come to fit the columns to: they fit their titles.
        if (count == 0)
            m_documentView->resizeColumnsToContents();
    });
    connect(m_documentView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                const QString id = m_documents->documentId(current.row());
                if (!id.isEmpty() && id != m_editor->documentId())
                    navigateTo(id);
            });
}

// Editor and references: the references are a page of the editor's, so that the form has the
// column's height (stacked under it, each was a few rows tall at 1280x800).
QWidget *MainWindow::buildEditorPane(QWidget *splitter)
{
    m_editor = new DocumentEditor(m_session.get(), splitter);
    m_editor->setObjectName(QStringLiteral("editor"));
    m_references = new ReferencesPane(m_session.get(), m_editor);
    m_editor->addPage(m_references, tr("References"));
    connect(m_references, &ReferencesPane::countsChanged, this, [this](int outgoing, qint64 incoming) {
        m_editor->setPageTitle(m_references, outgoing == 0 && incoming == 0
                                                 ? tr("References")
                                                 : tr("References (%1 out · %2 in)").arg(outgoing).arg(incoming));
    });
    return m_editor;
}

void MainWindow::connectEditorPane()
{
    connect(m_references, &ReferencesPane::navigateTo, this, [this](const QString &id) { navigateTo(id); });
    connect(m_editor, &DocumentEditor::navigateTo, this, [this](const QString &id) { navigateTo(id); });
    connect(m_editor, &DocumentEditor::saved, this, [this](const QString &id) {
        m_references->showDocument(id);
        statusBar()->showMessage(tr("Saved."), 4000);
        updateActions();
    });
    connect(m_editor, &DocumentEditor::draftSaved, this, [this] {
        statusBar()->showMessage(tr("Kept as a draft."), 4000);
        reloadDrafts();
    });
    connect(m_editor, &DocumentEditor::validityChanged, this, [this] { updateActions(); });
    connect(m_editor, &DocumentEditor::dirtyChanged, this, [this] { updateActions(); });
}

void MainWindow::connectSessionSignals()
{
    connect(m_session.get(), &AppSession::documentsChanged, this, [this] {
        m_documents->refresh();
        refreshCounts();
    });
    connect(m_session.get(), &AppSession::draftsChanged, this, [this] {
        reloadDrafts();
        refreshCounts();
    });
    connect(m_session.get(), &AppSession::documentsChanged, m_resultsGrid, &ResultsGrid::reload);
    connect(m_session.get(), &AppSession::draftsChanged, m_resultsGrid, &ResultsGrid::reload);
    connect(m_session.get(), &AppSession::qualityChanged, m_resultsGrid, &ResultsGrid::reload);
    connect(this, &MainWindow::ruleResultsChanged, m_session.get(), &AppSession::announceQualityChanged);
    m_resultsGrid->reload();
}

void MainWindow::showSampleOffer(bool show)
{
    m_sampleBanner->setVisible(show);
}

bool MainWindow::selectResource(const steward::ResourceSchema *resource)
{
    if (resource == nullptr)
        return false;
    if (resource != m_currentResource) {
        m_currentResource = resource;
        m_documentFilter->clear();
        m_documents->setResource(resource);
        m_documentCount->setText(tr("counting…"));
        reloadDrafts();
        QSettings().setValue(settingsKeyFor(m_session->databasePath()).replace("/schemas", "/resource"),
                             QStringList{QString::fromStdString(resource->projectName()),
                                         QString::fromStdString(resource->resourceName)});
    }
    const QModelIndex index = m_resourceProxy->mapFromSource(m_resourceModel->indexOf(resource));
    if (index.isValid() && m_resourceView->currentIndex() != index) {
        {
            const QSignalBlocker blocker(m_resourceView->selectionModel());
            m_resourceView->setCurrentIndex(index);
        }
        // The selection changed with the model's signals held back: the view paints it again itself.
        m_resourceView->viewport()->update();
        m_resourceView->scrollTo(index);
    }
    updateActions();
    return true;
}

bool MainWindow::navigateTo(const QString &id, bool recordHistory)
{
    if (id.isEmpty())
        return false;
    if (id != m_editor->documentId() && !confirmDiscardEdits())
        return false;
    const std::optional<steward::StoredDocument> document = m_session->engine().document(id.toStdString());
    if (!document) {
        statusBar()->showMessage(tr("That document no longer exists."), 5000);
        return false;
    }
    selectResource(m_session->resourceByName(document->project, document->resource));
    m_centerTabs->setCurrentIndex(0);
    if (id != m_editor->documentId())
        m_editor->openDocument(id);
    m_references->showDocument(id);
    const int row = m_documents->rowOfDocument(id);
    if (row >= 0) {
        const QSignalBlocker blocker(m_documentView->selectionModel());
        m_documentView->selectRow(row);
        m_documentView->scrollTo(m_documents->index(row, 0));
    }
    if (recordHistory && (m_historyPosition < 0 || m_history.value(m_historyPosition) != id)) {
        m_history = m_history.mid(0, m_historyPosition + 1);
        m_history.append(id);
        m_historyPosition = static_cast<int>(m_history.size()) - 1;
    }
    updateActions();
    return true;
}

void MainWindow::goBack()
{
    if (m_historyPosition > 0 && navigateTo(m_history.value(m_historyPosition - 1), false))
        --m_historyPosition;
    updateActions();
}

void MainWindow::goForward()
{
    if (m_historyPosition + 1 < m_history.size() && navigateTo(m_history.value(m_historyPosition + 1), false))
        ++m_historyPosition;
    updateActions();
}

bool MainWindow::confirmDiscardEdits()
{
    if (!m_editor->hasUnsavedChanges())
        return true;
    const QMessageBox::StandardButton answer =
        Prompt::ask(this, tr("Unsaved changes"),
                    tr("The document in the editor has changes that are not saved. Keep them as a draft?"),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Save)
        return m_editor->saveAsDraft();
    return true;
}

void MainWindow::newDocument()
{
    if (m_currentResource == nullptr) {
        statusBar()->showMessage(tr("Choose a resource first."), 4000);
        return;
    }
    if (!confirmDiscardEdits())
        return;
    m_editor->newDocument(m_currentResource);
    m_references->showDocument({});
    updateActions();
}

void MainWindow::saveDocument()
{
    if (m_editor->resource() != nullptr)
        m_editor->save();
}

void MainWindow::saveDraft()
{
    if (m_editor->resource() != nullptr)
        m_editor->saveAsDraft();
}

void MainWindow::deleteDocument()
{
    const QString id = m_editor->documentId();
    if (id.isEmpty()) {
        if (const qint64 draftId = m_editor->draftId(); draftId > 0) {
            if (Prompt::ask(this, tr("Delete draft"), tr("Delete this draft? What it holds will be lost."),
                            QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
                == QMessageBox::Yes) {
                m_session->deleteDraft(draftId);
                m_editor->clear();
            }
        }
        return;
    }
    const steward::ReferrerPage blockers = m_session->engine().referrers(id.toStdString(), 1, 0);
    if (blockers.total > 0) {
        showBlockedDelete(id);
        return;
    }
    const std::optional<steward::StoredDocument> document = m_session->engine().document(id.toStdString());
    if (!document)
        return;
    if (Prompt::ask(this, tr("Delete document"), tr("Delete %1?").arg(describeDocument(*document)),
                    QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
        != QMessageBox::Yes)
        return;
    const steward::ResourceSchema *resource = m_session->resourceByName(document->project, document->resource);
    const steward::Response response =
        m_session->request("DELETE", resource->requestPath(id.toStdString()), nullptr,
                           "\"" + document->etag + "\"");
    if (response.status == 409) {
        // Someone added a reference since we looked: show who.
        showBlockedDelete(id);
        return;
    }
    if (response.status != 204) {
        Prompt::inform(this, tr("Not deleted"), problemSummary(response.body));
        return;
    }
    m_editor->clear();
    m_references->showDocument({});
    statusBar()->showMessage(tr("Deleted %1.").arg(describeDocument(*document)), 5000);
    updateActions();
}

FindDialog *MainWindow::findAnything()
{
    if (m_findDialog == nullptr) {
        m_findDialog = new FindDialog(m_session->databasePath(), this);
        m_findDialog->setNaturalKeyLabel([this](const std::string &naturalKey) {
            return m_session->descriptorLabels().labelsIn(naturalKey);
        });
        connect(m_findDialog, &FindDialog::documentChosen, this, [this](const QString &id) { navigateTo(id); });
    }
    m_findDialog->show();
    m_findDialog->raise();
    m_findDialog->activateWindow();
    m_findDialog->input()->setFocus();
    m_findDialog->input()->selectAll();
    return m_findDialog;
}

void MainWindow::showBlockedDelete(const QString &id)
{
    BlockedDeleteDialog dialog(m_session.get(), id, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    if (!dialog.chosenId().isEmpty()) {
        navigateTo(dialog.chosenId());
        return;
    }
    // A way out was applied: the document is gone.
    m_editor->clear();
    m_references->showDocument({});
    statusBar()->showMessage(dialog.outcome(), 10000);
    updateActions();
}

void MainWindow::reloadDrafts()
{
    m_drafts->clear();
    int total = 0;
    if (m_currentResource != nullptr) {
        for (const steward::Draft &draft :
             m_session->engine().drafts(m_currentResource->projectName(), m_currentResource->resourceName)) {
            QString summary = problemSummary(draft.problem).section(QLatin1Char('\n'), 0, 1).simplified();
            auto *item = new QListWidgetItem(tr("Draft %1 · %2 · %3")
                                                 .arg(draft.draftId)
                                                 .arg(QString::fromStdString(draft.updatedAt),
                                                      summary.isEmpty() ? tr("would pass now") : summary),
                                             m_drafts);
            item->setData(kDraftIdRole, static_cast<qlonglong>(draft.draftId));
            item->setToolTip(problemSummary(draft.problem));
            ++total;
        }
    }
    m_centerTabs->setTabText(1, total > 0 ? tr("Drafts (%1)").arg(total) : tr("Drafts"));
}

void MainWindow::openDraftItem()
{
    QListWidgetItem *item = m_drafts->currentItem();
    if (item == nullptr || !confirmDiscardEdits())
        return;
    m_editor->openDraft(item->data(kDraftIdRole).toLongLong());
    m_references->showDocument({});
    updateActions();
}

void MainWindow::updateActions()
{
    if (m_saveAction == nullptr || m_editor == nullptr)
        return;
    m_saveAction->setEnabled(m_editor->canSave());
    m_deleteAction->setEnabled(!m_editor->documentId().isEmpty() || m_editor->draftId() > 0);
    m_backAction->setEnabled(m_historyPosition > 0);
    m_forwardAction->setEnabled(m_historyPosition + 1 < m_history.size());
}

void MainWindow::refreshCounts()
{
    if (m_countsPending)
        return;
    m_countsPending = true;
    // Counting a large database takes a while: a read-only connection on a worker thread does it.
    const QString path = m_session->databasePath();
    auto *watcher = new QFutureWatcher<std::vector<steward::ResourceCount>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        m_countsPending = false;
        const std::vector<steward::ResourceCount> counts = watcher->result();
        watcher->deleteLater();
        m_resourceModel->setCounts(counts);
        Q_EMIT countsRefreshed();
    });
    watcher->setFuture(QtConcurrent::run([path]() -> std::vector<steward::ResourceCount> {
        try {
            std::unique_ptr<steward::Database> reader =
                steward::Database::open(path.toStdString(), steward::Database::Access::ReadOnly);
            return steward::readResourceCounts(reader->connection());
        } catch (const std::exception &) {
            return {};
        }
    }));
}


void MainWindow::revalidateDrafts()
{
    AppSession *session = m_session.get();
    const steward::RevalidateReport report = runWithProgress<steward::RevalidateReport>(
        this, tr("Revalidating drafts…"),
        [session](const std::function<bool(int, int)> &progress) { return session->revalidateDrafts(progress); });
    m_session->announceEverythingChanged();
    statusBar()->showMessage(tr("%1 draft(s) stored, %2 still need attention%3.")
                                 .arg(report.promoted)
                                 .arg(report.remaining)
                                 .arg(report.cancelled ? tr(" (stopped)") : QString()),
                             8000);
}

void MainWindow::loadSampleDistrict()
{
    steward::Engine *engine = &m_session->engine();
    const int failures = runWithProgress<int>(this, tr("Loading the sample district…"),
                                              [engine](const std::function<bool(int, int)> &progress) {
                                                  const steward::ChangeSourceScope source(*engine, "sample district");
                                                  const std::vector<steward::Request> requests =
                                                      steward::sampleDistrictRequests();
                                                  int failed = 0;
                                                  for (std::size_t i = 0; i < requests.size(); ++i) {
                                                      if (!progress(static_cast<int>(i), static_cast<int>(requests.size())))
                                                          break;
                                                      const int status = engine->handle(requests[i]).status;
                                                      failed += status >= 300 ? 1 : 0;
                                                  }
                                                  return failed;
                                              });
    showSampleOffer(false);
    m_session->announceEverythingChanged();
    if (failures > 0)
        Prompt::inform(this, tr("Sample district"), tr("%n sample document(s) could not be stored.", nullptr, failures));
    if (const steward::ResourceSchema *school = m_session->resourceByName("Ed-Fi", "School"))
        selectResource(school);
}

void MainWindow::openSyncDialog()
{
    if (!confirmDiscardEdits())
        return;
    SyncDialog dialog(*m_session, this);
    connect(&dialog, &SyncDialog::documentActivated, this, [this, &dialog](const QString &id) {
        if (navigateTo(id))
            dialog.accept();
        else
            Prompt::inform(&dialog, tr("Sync"), tr("The document %1 is no longer stored here.").arg(id));
    });
    dialog.exec();
}

void MainWindow::checkDatabase(steward::CheckDepth depth)
{
    steward::Engine *engine = &m_session->engine();
    const steward::IntegrityReport report = runWithProgress<steward::IntegrityReport>(
        this, tr("Checking the database…"),
        [engine, depth](const std::function<bool(int, int)> &progress) {
            const auto documentsDone = [&progress](std::int64_t done, std::int64_t total) {
                return progress(static_cast<int>(done), static_cast<int>(total));
            };
            return engine->check(false, documentsDone, depth);
        },
        ProgressLabel::WithTimeLeft);
    updatePrivacyBanner(); // the check reports files other accounts can read; the banner offers the fix
    if (report.cancelled) {
        statusBar()->showMessage(tr("Check stopped after %1 documents.").arg(report.documents), 8000);
        return;
    }
    if (report.clean()) {
        Prompt::inform(this, tr("Check database"), tr("%1 documents checked; no problems found.").arg(report.documents));
        return;
    }
    QString text = tr("%1 documents checked; %2 problem(s):\n").arg(report.documents).arg(report.violations.size());
    for (std::size_t i = 0; i < report.violations.size() && i < 20; ++i) {
        const steward::IntegrityViolation &v = report.violations[i];
        text += QStringLiteral("\n• ") + (v.id.empty() ? tr("database") : QString::fromStdString(v.resource + " " + v.id))
                + QStringLiteral(": ") + QString::fromStdString(v.problem);
    }
    if (report.violations.size() > 20)
        text += tr("\n… and %1 more (steward-cli check lists them all).").arg(report.violations.size() - 20);
    Prompt::inform(this, tr("Check database"), text);
}

void MainWindow::restoreLayout()
{
    QSettings settings;
    const QRect available = screen()->availableGeometry();
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) {
        // The first window fits the screen it opens on (a laptop's 1280×800 among them), centred.
        setGeometry(firstWindowGeometry(available));
    } else if (!available.contains(geometry())) {
        // Saved on a larger screen (a projector, a docked laptop): shrunk into this one.
        setGeometry(fittedInto(geometry(), available));
    }
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    if (auto *splitter = findChild<QSplitter *>(QStringLiteral("mainSplitter")))
        splitter->restoreState(settings.value(QStringLiteral("window/mainSplitter")).toByteArray());
}

QRect firstWindowGeometry(const QRect &available)
{
    QRect window(0, 0, std::min(1400, available.width() * 19 / 20), std::min(860, available.height() * 9 / 10));
    window.moveCenter(available.center());
    return window;
}

QRect fittedInto(const QRect &window, const QRect &available)
{
    QRect fitted(window.topLeft(), window.size().boundedTo(available.size()));
    fitted.moveLeft(std::clamp(fitted.left(), available.left(), available.right() - fitted.width() + 1));
    fitted.moveTop(std::clamp(fitted.top(), available.top(), available.bottom() - fitted.height() + 1));
    return fitted;
}

void MainWindow::saveLayout()
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    if (auto *splitter = findChild<QSplitter *>(QStringLiteral("mainSplitter")))
        settings.setValue(QStringLiteral("window/mainSplitter"), splitter->saveState());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!confirmDiscardEdits()) {
        event->ignore();
        return;
    }
    saveLayout();
    event->accept();
}

void MainWindow::newDocumentWithValues(const QString &project, const QString &resource, const QString &valuesJson)
{
    const steward::ResourceSchema *schema = m_session->resourceByName(project.toStdString(), resource.toStdString());
    if (schema == nullptr) {
        // An abstract target no draft named a concrete resource for (EducationOrganization).
        statusBar()->showMessage(tr("%1 is abstract: create one of its kinds (a School, a district, ...) with "
                                    "these values: %2").arg(resource, valuesJson),
                                 10000);
        return;
    }
    if (!confirmDiscardEdits())
        return;
    selectResource(schema);
    const steward::JsonParseResult values = steward::parseJson(valuesJson.toStdString());
    m_editor->newDocument(schema, values.value ? *values.value : steward::Json());
    m_references->showDocument({});
    updateActions();
}
