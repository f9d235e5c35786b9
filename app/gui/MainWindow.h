#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QRect>
#include <QString>
#include <QStringList>

#include "Importer.h"

#include <memory>

class AppSession;
class AttentionBar;
class DocumentEditor;
class DocumentTableModel;
class FindDialog;
class QLabel;
class QListWidget;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTabWidget;
class QTreeView;
class QFrame;
class QDockWidget;
class ReferencesPane;
class ReadinessPanel;
class QDockWidget;
class ResourceTreeModel;
class RootCausesPanel;
class ResultsGrid;

namespace steward {
struct ResourceSchema;
}

// Where the window opens the first time (no saved geometry): 1400×860 where that fits, else most of
// the available area (with room for the frame), centred.
QRect firstWindowGeometry(const QRect &available);
// A window's geometry made to fit the available area: no larger, moved inside.
QRect fittedInto(const QRect &window, const QRect &available);

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(std::unique_ptr<AppSession> session, QWidget *parent = nullptr);
    ~MainWindow() override;

    AppSession *session() const { return m_session.get(); }
    DocumentEditor *editor() const { return m_editor; }
    DocumentTableModel *documentModel() const { return m_documents; }
    QTableView *documentView() const { return m_documentView; }
    QTreeView *resourceView() const { return m_resourceView; }
    ReferencesPane *referencesPane() const { return m_references; }
    ReadinessPanel *readinessPanel() const { return m_readiness; }
    ResultsGrid *resultsGrid() const { return m_resultsGrid; }
    AttentionBar *attentionBar() const { return m_attention; }
    // Shown while other accounts can read the database's files; its "Make private" button fixes that.
    QFrame *privacyBanner() const { return m_privacyBanner; }
    // What the Tools menu's rule pack, state results and sign-off actions do once their files and
    // names are chosen; each returns what to tell the steward.
    QString importRulePackFile(const QString &path);
    QString importStateResults(const QString &path, const QString &mappingPath);
    // pushTarget empty: the newest exported batch; else what was pushed to that sync target.
    QString signOff(const QString &name, const QString &pushTarget = QString());

    bool selectResource(const steward::ResourceSchema *resource);
    // Opens a stored document: selects its resource, loads it into the editor and the references pane.
    bool navigateTo(const QString &id, bool recordHistory = true);
    void showSampleOffer(bool show);
    // Opens another database (or this one with another model). schemaFiles empty: the model the
    // database records; starterModel: the embedded one. A model that would leave stored documents
    // outside it is asked about first (confirmModelOutside).
    void switchDatabase(const QString &path, const QStringList &schemaFiles, bool starterModel = false);
    static bool confirmModelOutside(QWidget *parent, const QString &outside);
    // The schema files an earlier Steward remembered for a database in its settings, before databases
    // recorded their model: given once (when all still exist), so that it records them; then forgotten.
    static QStringList takeRememberedSchemaFiles(const QString &databasePath);
    // Opens the first row of the documents table, if it has loaded.
    void openFirstDocument();
    // Tools > Root causes: the fix list, created on first use (null before).
    RootCausesPanel *rootCausesPanel() const { return m_causesPanel; }

public Q_SLOTS:
    void newDocument();
    void saveDocument();
    void saveDraft();
    void deleteDocument();
    // Go > Find anything (Ctrl+K); the dialog stays for the next search.
    FindDialog *findAnything();
    void goBack();
    void goForward();
    void revalidateDrafts();
    void loadSampleDistrict();
    void importFilesDialog();
    void importSpreadsheetDialog();
    void openSyncDialog();
    // Tools > Check database: the routine check, or with SQLite's integrity_check (Full).
    void checkDatabase(steward::CheckDepth depth = steward::CheckDepth::Routine);
    // Tools > Run rules: the starter rule pack on a worker thread, then a summary.
    void runRules();
    void exportBatchDialog();
    void exportReportDialog();
    void importRulePackDialog();
    void importStateResultsDialog();
    void signOffDialog();
    // The database file and its -wal and -shm made readable by their owner alone.
    void makeFilesPrivate();
    void refreshCounts();
    void showReadiness();
    void openDuplicatesDialog();
    // For the document open in the editor (or id); returns the id carrying the new identity, empty when cancelled.
    QString changeIdentityDialog(const QString &id = {});
    void showRootCauses();
    // A new document of the resource with these values filled in (a root cause's identity).
    void newDocumentWithValues(const QString &project, const QString &resource, const QString &valuesJson);

Q_SIGNALS:
    void countsRefreshed();
    // rule_results changed (Tools > Run rules), for views that list them.
    void ruleResultsChanged();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildMenus();
    // Imports with progress, then says what was created, updated and kept as drafts.
    void runImport(steward::ImportOptions options);
    void showBlockedDelete(const QString &id);
    void buildPanes();
    void buildSampleBanner(QWidget *central);
    void buildPrivacyBanner(QWidget *central);
    void updatePrivacyBanner();
    // Open conflicts and readiness in sight: the banner, the status line, the tree's markers.
    void buildAttention(QWidget *central);
    void decideConflict(const QString &id, const QString &targetUrl);
    // A Data quality row's record in the editor and the tree, the grid staying in front; not over
    // unsaved edits (the status bar says why).
    void previewRecord(const QString &id);
    QWidget *buildResourcePane(QWidget *splitter);
    void buildDocumentsTab();
    void buildDraftsTab();
    void buildDataQualityTab();
    void connectDocumentsTable();
    QWidget *buildEditorPane(QWidget *splitter);
    void connectEditorPane();
    void connectSessionSignals();
    void restoreLayout();
    void saveLayout();
    bool confirmDiscardEdits();
    void openDraftItem();
    void reloadDrafts();
    void updateActions();
    void openDatabaseDialog(bool create);
    void chooseModelDialog(bool starter);
    void undoRetentionDialog();
    void rebuildForSession();
    void addRecent(const QString &path);
    void updateRecentMenu();

    std::unique_ptr<AppSession> m_session;
    ResourceTreeModel *m_resourceModel = nullptr;
    QSortFilterProxyModel *m_resourceProxy = nullptr;
    DocumentTableModel *m_documents = nullptr;
    QTreeView *m_resourceView = nullptr;
    QLineEdit *m_resourceFilter = nullptr;
    QLineEdit *m_documentFilter = nullptr;
    QLabel *m_documentCount = nullptr;
    QTableView *m_documentView = nullptr;
    QTabWidget *m_centerTabs = nullptr;
    QListWidget *m_drafts = nullptr;
    DocumentEditor *m_editor = nullptr;
    ReferencesPane *m_references = nullptr;
    QFrame *m_sampleBanner = nullptr;
    QFrame *m_privacyBanner = nullptr;
    QLabel *m_privacyText = nullptr;
    AttentionBar *m_attention = nullptr;
    QLabel *m_statusLabel = nullptr;
    QMenu *m_recentMenu = nullptr;
    QAction *m_saveAction = nullptr;
    QAction *m_deleteAction = nullptr;
    QAction *m_backAction = nullptr;
    QAction *m_forwardAction = nullptr;
    const steward::ResourceSchema *m_currentResource = nullptr;
    QStringList m_history;
    int m_historyPosition = -1;
    bool m_countsPending = false;
    bool m_columnsFitted = false;
    QDockWidget *m_readinessDock = nullptr;
    ReadinessPanel *m_readiness = nullptr;
    QDockWidget *m_causesDock = nullptr;
    RootCausesPanel *m_causesPanel = nullptr;
    ResultsGrid *m_resultsGrid = nullptr;
    FindDialog *m_findDialog = nullptr;
};
