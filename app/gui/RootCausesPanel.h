#pragma once

#include "RootCauses.h"

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QTimer>
#include <QWidget>

#include <vector>

class AppSession;
class QLabel;
class QPushButton;
class QTextBrowser;
class QTreeView;

// The root causes of the drafts as a fix list: one row per cause, in dependency (load) order, then
// most blocked first.
class RootCauseListModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Columns
    {
        CauseColumn,
        BlockedColumn,
        ResourcesColumn,
        ColumnCount
    };

    explicit RootCauseListModel(QObject *parent = nullptr);

    void setReport(const steward::RootCauseReport &report);
    const steward::RootCause *causeAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "School 255901044 missing", "GradeLevelDescriptor '…#9th grade' unknown", "42 Student drafts fail the schema: …"
    static QString title(const steward::RootCause &cause);

private:
    std::vector<steward::RootCause> m_causes; // fix-list order
};

// Tools > Root causes: computes the causes on a worker thread with its own read-only connection
// (the GUI thread keeps working), shows them as a fix list, and follows the session's changes.
// Activating a missing document asks for a new-document editor prefilled with its identity; a
// descriptor value shows the closest stored values; a draft problem opens the first such draft.
class RootCausesPanel : public QWidget
{
    Q_OBJECT

public:
    explicit RootCausesPanel(AppSession *session, QWidget *parent = nullptr);
    ~RootCausesPanel() override;

    RootCauseListModel *causeModel() const { return m_model; }
    QTreeView *view() const { return m_view; }
    QTextBrowser *details() const { return m_details; }
    bool isLoading() const { return m_watcher.isRunning(); }
    const steward::RootCauseReport &report() const { return m_report; }

public Q_SLOTS:
    void refresh();
    void activateRow(int row);

Q_SIGNALS:
    void refreshed();
    // identityJson: the identity shaped like the document ({"schoolId":255901044}).
    void createDocumentRequested(const QString &project, const QString &resource, const QString &identityJson);
    void openDraftRequested(qint64 draftId);

protected:
    void showEvent(QShowEvent *event) override;

private:
    struct Result
    {
        steward::RootCauseReport report;
        QString error;
    };
    void finished();
    void showDetails(int row);

    AppSession *m_session;
    RootCauseListModel *m_model;
    QTreeView *m_view;
    QLabel *m_summary;
    QTextBrowser *m_details;
    QPushButton *m_refreshButton;
    QFutureWatcher<Result> m_watcher;
    QTimer m_changeTimer; // changes come in bursts (an import, a revalidation): compute once after them
    steward::RootCauseReport m_report;
    bool m_stale = true;
    bool m_again = false; // a change arrived while computing
};
