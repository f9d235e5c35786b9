#pragma once

#include "Readiness.h"

#include <QAbstractTableModel>
#include <QTimer>
#include <QWidget>

class AppSession;
class QLabel;
namespace steward {
struct SubmissionStatus;
}
class QTableView;

// Readiness per resource: one row each, counts in columns (one "not synced" column per sync target).
class ReadinessModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { ResourceColumn, DocumentsColumn, DraftsColumn, FatalColumn, ErrorColumn, WarningColumn, InfoColumn,
                  ResubmitColumn, NotExportedColumn, ConflictsColumn, FirstSyncColumn };

    explicit ReadinessModel(QObject *parent = nullptr);

    void setReport(const steward::ReadinessReport &report);
    const steward::ReadinessReport &report() const { return m_report; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    steward::ReadinessReport m_report;
};

// The dashboard: a verdict banner (green "Ready to submit" / red "Not ready: …") over the table.
// Recomputed on a worker thread with its own read-only connection whenever the session announces
// changes (coalesced, so an import's stream of signals costs one recount).
class ReadinessPanel : public QWidget
{
    Q_OBJECT

public:
    explicit ReadinessPanel(AppSession &session, QWidget *parent = nullptr);

    ReadinessModel *model() const { return m_model; }
    QLabel *banner() const { return m_banner; }
    // "Last submission: export of batch … signed off by …. Changed since: 12 documents (…)."
    QLabel *submissionLabel() const { return m_submission; }
    QTableView *view() const { return m_view; }

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void refreshed();

private:
    void showReport(const steward::ReadinessReport &report, const QString &error);
    void showSubmission(const steward::SubmissionStatus &status);

    AppSession &m_session;
    ReadinessModel *m_model = nullptr;
    QLabel *m_banner = nullptr;
    QLabel *m_submission = nullptr;
    QTableView *m_view = nullptr;
    QTimer m_coalesce;
    bool m_running = false;
    bool m_again = false;
};

// Before export or push: computes readiness on a worker thread (behind a progress dialog) and, when
// not ready, asks "Not ready to submit: … <action> anyway?" through Prompt. True to go on.
bool confirmReadyToSubmit(QWidget *parent, AppSession &session, const QString &action);
