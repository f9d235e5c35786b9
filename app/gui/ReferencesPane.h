#pragma once

#include <QString>
#include <QWidget>

class AppSession;
class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

// The selected document's outgoing references (click to go there) and the documents that
// reference it, grouped by resource and paged. Keys take the room and are cut in the middle, so
// both their start and their end show (the whole key on hover); a resource's name over its group
// spans the row.
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

protected:
    // A tree's viewport that changed its width fits its columns again (a hidden page's trees learn
    // their width only when it shows).
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void loadMoreReferrers();
    // The field and resource columns fit their contents up to a share of the width; the key has the rest.
    void fitColumns();
    void activate(QTreeWidgetItem *item);

    AppSession *m_session;
    QString m_id;
    int m_loadedReferrers = 0;
    QTreeWidget *m_outgoing;
    QTreeWidget *m_incoming;
    QLabel *m_incomingTitle;
    QPushButton *m_more;
};
