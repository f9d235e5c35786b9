#pragma once

#include "Dependents.h"
#include "IdentityChange.h"

#include <QDialog>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

class AppSession;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QPushButton;
class QStackedWidget;
class QTreeWidget;

// Says in plain words why a document cannot be deleted, lists the documents that block it grouped by
// resource and field, and offers the two ways out, each previewed in full before anything changes:
// delete it with everything that depends on it, or move the references to another document of the
// same resource and then delete it. Either is one transaction, journaled, undone by Edit > Undo.
class BlockedDeleteDialog : public QDialog
{
    Q_OBJECT

public:
    BlockedDeleteDialog(AppSession *session, const QString &documentId, QWidget *parent = nullptr);

    QString message() const;
    // Top level: one row per resource and field with its count; under each, the documents.
    QTreeWidget *blockersView() const { return m_blockers; }
    QString listAsText() const;
    // The blocker the steward chose to go to (after accept()); empty otherwise.
    QString chosenId() const { return m_chosenId; }
    // What was done when the dialog was accepted by applying a way out ("Deleted 1,698 documents…").
    QString outcome() const { return m_outcome; }

    QPushButton *cascadeButton() const { return m_cascade; }
    QPushButton *repointButton() const { return m_repoint; }
    // The cascade preview: per resource (with counts), the documents under it.
    QTreeWidget *cascadeView() const { return m_cascadeTree; }
    QComboBox *repointTarget() const { return m_target; }
    QTreeWidget *repointView() const { return m_repointSteps; }
    QPushButton *confirmButton() const { return m_confirm; }
    const steward::CascadeDeleteResult &cascadePreview() const { return m_cascadePlan; }

public Q_SLOTS:
    void previewCascade();
    void previewRepoint();
    void confirm();

private:
    enum class Page { Blockers, Cascade, Repoint };
    std::optional<steward::StoredDocument> setupBlockersPage();
    QWidget *setupCascadePage();
    QWidget *setupRepointPage();
    QDialogButtonBox *setupButtons(const std::optional<steward::StoredDocument> &document);
    void showPage(Page page);
    void goToSelected();
    void saveList();
    void fillTargets();

    AppSession *m_session;
    QString m_documentId;
    QLabel *m_message;
    QStackedWidget *m_pages;
    QTreeWidget *m_blockers;
    QPushButton *m_goTo;
    QPushButton *m_cascade;
    QPushButton *m_repoint;
    QPushButton *m_back;
    QPushButton *m_confirm;
    QList<QPushButton *> m_listButtons;
    QLabel *m_cascadeSummary;
    QTreeWidget *m_cascadeTree;
    QComboBox *m_target;
    QLabel *m_repointSummary;
    QTreeWidget *m_repointSteps;
    Page m_page = Page::Blockers;
    steward::CascadeDeleteResult m_cascadePlan;
    std::vector<steward::IdentityStep> m_repointPlan;
    QString m_repointTo;
    QString m_chosenId;
    QString m_outcome;
};
