#pragma once

#include <QString>
#include <QWidget>

class AppSession;
class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

// The selected document's outgoing references (click to go there) and the documents that
// reference it, grouped by resource and paged.
class ReferencesPane : public QWidget
{
    Q_OBJECT

public:
    static constexpr int kPageSize = 50;

    explicit ReferencesPane(AppSession *session, QWidget *parent = nullptr);

    void showDocument(const QString &id); // empty clears
    QString documentId() const { return m_id; }
    QTreeWidget *outgoingView() const { return m_outgoing; }
    QTreeWidget *incomingView() const { return m_incoming; }

public Q_SLOTS:
    void reload();

Q_SIGNALS:
    void navigateTo(const QString &id);
    // How many references the shown document makes and how many documents reference it.
    void countsChanged(int outgoing, qint64 incoming);

private:
    void loadMoreReferrers();
    void activate(QTreeWidgetItem *item);

    AppSession *m_session;
    QString m_id;
    int m_loadedReferrers = 0;
    QTreeWidget *m_outgoing;
    QTreeWidget *m_incoming;
    QLabel *m_incomingTitle;
    QPushButton *m_more;
};
