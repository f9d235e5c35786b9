#pragma once

#include <QFrame>
#include <QHash>
#include <QPointer>
#include <QString>
#include <QTimer>

class AppSession;
#include <QLabel>
class QPushButton;

// What must stay in sight while it is open: sync conflicts waiting for a person and the readiness
// verdict. A banner over the window's panes ("2 open sync conflicts hold records back from the
// push. Decide…"), a status-bar line, and per-resource conflict counts for the resources tree. Read
// on a worker thread with a read-only connection whenever the session announces a change
// (coalesced), so it follows other programs' writes too.
class AttentionBar : public QFrame
{
    Q_OBJECT

public:
    struct Reading; // what a refresh read on its worker thread

    explicit AttentionBar(AppSession &session, QWidget *parent = nullptr);
    ~AttentionBar() override;

    // For the status bar: "⚠ 2 sync conflicts · Not ready: 3 drafts in Student".
    QLabel *statusLabel() const { return m_status; }
    QPushButton *decideButton() const { return m_decide; }
    int openConflicts() const { return m_openConflicts; }

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void conflictCountsChanged(const QHash<QString, qint64> &byResource); // "Project/Resource" -> count
    void refreshed();
    // Decide… was pressed: the oldest open conflict.
    void decideRequested(const QString &id, const QString &targetUrl);

private:
    void show(const Reading &reading);

    AppSession &m_session;
    QLabel *m_message = nullptr;
    QPushButton *m_decide = nullptr;
    QPointer<QLabel> m_status; // lives in the window's status bar, goes with this bar
    QTimer m_coalesce;
    bool m_running = false;
    bool m_again = false;
    int m_openConflicts = 0;
    QString m_firstConflictId;
    QString m_firstConflictUrl;
};
