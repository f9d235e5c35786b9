#pragma once

#include <QDialog>
#include <QString>

class AppSession;
class QLabel;
class QPushButton;
class QTreeWidget;

// Says in plain words why a document cannot be deleted and lists the documents that block it.
// Nothing is deleted here; the steward can jump to a blocker, or copy or save the list.
class BlockedDeleteDialog : public QDialog
{
    Q_OBJECT

public:
    BlockedDeleteDialog(AppSession *session, const QString &documentId, QWidget *parent = nullptr);

    QString message() const;
    QTreeWidget *blockersView() const { return m_blockers; }
    QString listAsText() const;
    // The blocker the steward chose to go to (after accept()); empty otherwise.
    QString chosenId() const { return m_chosenId; }

private:
    void goToSelected();
    void saveList();

    QLabel *m_message;
    QTreeWidget *m_blockers;
    QPushButton *m_goTo;
    QString m_chosenId;
};
