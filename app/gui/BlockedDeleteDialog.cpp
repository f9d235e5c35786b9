#include "BlockedDeleteDialog.h"
#include "ItemRoles.h"

#include "AppSession.h"
#include "PrivateFiles.h"
#include "Prompt.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMap>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QStackedWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {

// Enough to group and act on; the count in the message is always the full one.
constexpr int kListLimit = 10000;
// Groups this small open by themselves; larger ones show their count until opened.
constexpr int kExpandedGroup = 50;
constexpr int kTargetChoices = 200;

QTreeWidget *makeTree(QWidget *parent, const QString &objectName, const QString &accessibleName,
                      const QStringList &headers)
{
    auto *tree = new QTreeWidget(parent);
    tree->setObjectName(objectName);
    tree->setAccessibleName(accessibleName);
    tree->setHeaderLabels(headers);
    tree->setAlternatingRowColors(true);
    tree->setUniformRowHeights(true);
    return tree;
}

QString count(qint64 n)
{
    return QLocale().toString(n);
}

QString documentsText(qint64 n)
{
    return n == 1 ? BlockedDeleteDialog::tr("1 document") : BlockedDeleteDialog::tr("%1 documents").arg(count(n));
}

} // namespace

// Page 1: who blocks it, grouped by resource and field, and the message that says so. Returns the
// document itself (none when it is gone).
std::optional<steward::StoredDocument> BlockedDeleteDialog::setupBlockersPage()
{
    m_blockers = makeTree(this, QStringLiteral("blockers"), tr("Documents that block the delete"),
                          {tr("Resource"), tr("Natural key"), tr("Field that references it")});
    m_blockers->setSelectionMode(QAbstractItemView::SingleSelection);
    const std::optional<steward::StoredDocument> document = m_session->engine().document(m_documentId.toStdString());
    const steward::ReferrerPage page = m_session->engine().referrers(m_documentId.toStdString(), kListLimit, 0);
    const QString what = document ? describeDocument(*document) : m_documentId;
    QMap<QPair<QString, QString>, QTreeWidgetItem *> groups;
    for (const steward::Referrer &referrer : page.items) {
        const QString resource = QString::fromStdString(referrer.resource);
        QStringList fields;
        for (const std::string &path : referrer.paths)
            fields << QString::fromStdString(path.substr(2));
        const QString field = fields.join(QStringLiteral(", "));
        QTreeWidgetItem *&group = groups[{resource, field}];
        if (group == nullptr) {
            group = new QTreeWidgetItem(m_blockers);
            group->setText(0, resource);
            group->setText(2, field);
        }
        auto *item = new QTreeWidgetItem(group);
        item->setText(0, resource);
        item->setText(1, m_session->descriptorLabels().labelsIn(referrer.naturalKey));
        item->setText(2, field);
        item->setData(0, kDocumentIdRole, QString::fromStdString(referrer.id));
    }
    for (QTreeWidgetItem *group : std::as_const(groups)) {
        group->setText(1, documentsText(group->childCount()));
        group->setExpanded(group->childCount() <= kExpandedGroup);
    }
    for (int c = 0; c < 3; ++c)
        m_blockers->resizeColumnToContents(c);
    m_message->setText(
        tr("<p><b>%1 cannot be deleted: %2 reference it.</b></p>"
           "<p>Nothing was deleted. Change or delete the documents below first, or choose a way out: delete it "
           "with everything that depends on it, or move these references to another %3. Each is previewed in "
           "full first and can be undone (Edit &gt; Undo last operation).</p>")
            .arg(what.toHtmlEscaped(), documentsText(page.total),
                 document ? QString::fromStdString(document->resource) : tr("document")));

    return document;
}

// Page 2: the cascade's preview.
QWidget *BlockedDeleteDialog::setupCascadePage()
{
    auto *cascadePage = new QWidget(this);
    auto *cascadeLayout = new QVBoxLayout(cascadePage);
    cascadeLayout->setContentsMargins(0, 0, 0, 0);
    m_cascadeSummary = new QLabel(cascadePage);
    m_cascadeSummary->setWordWrap(true);
    m_cascadeSummary->setObjectName(QStringLiteral("cascadeSummary"));
    m_cascadeTree = makeTree(cascadePage, QStringLiteral("cascadeTree"), tr("Documents the delete would remove"),
                             {tr("Resource"), tr("Natural key"), tr("References")});
    cascadeLayout->addWidget(m_cascadeSummary);
    cascadeLayout->addWidget(m_cascadeTree, 1);

    return cascadePage;
}

// Page 3: move the references to a document found by the start of its natural key.
QWidget *BlockedDeleteDialog::setupRepointPage()
{
    auto *repointPage = new QWidget(this);
    auto *repointLayout = new QVBoxLayout(repointPage);
    repointLayout->setContentsMargins(0, 0, 0, 0);
    auto *form = new QFormLayout;
    auto *find = new QLineEdit(repointPage);
    find->setObjectName(QStringLiteral("repointFind"));
    find->setAccessibleName(tr("Find the document to move the references to"));
    find->setPlaceholderText(tr("Start of its natural key"));
    m_target = new QComboBox(repointPage);
    m_target->setObjectName(QStringLiteral("repointTarget"));
    m_target->setAccessibleName(tr("Document to move the references to"));
    m_target->setMinimumContentsLength(40);
    form->addRow(tr("&Find:"), find);
    form->addRow(tr("Move &to:"), m_target);
    m_repointSummary = new QLabel(repointPage);
    m_repointSummary->setWordWrap(true);
    m_repointSummary->setObjectName(QStringLiteral("repointSummary"));
    m_repointSteps = makeTree(repointPage, QStringLiteral("repointSteps"), tr("Steps of the move"),
                              {tr("Step"), tr("Resource"), tr("Natural key"), tr("Why")});
    m_repointSteps->setRootIsDecorated(false);
    repointLayout->addLayout(form);
    repointLayout->addWidget(m_repointSummary);
    repointLayout->addWidget(m_repointSteps, 1);

    connect(find, &QLineEdit::textEdited, this, [this, find] {
        m_target->setProperty("prefix", find->text());
        fillTargets();
    });
    return repointPage;
}

// Close, the list's buttons and the two ways out (a re-point only where references are by id),
// Back and Apply for the previews.
QDialogButtonBox *BlockedDeleteDialog::setupButtons(const std::optional<steward::StoredDocument> &document)
{
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_goTo = buttons->addButton(tr("&Go to document"), QDialogButtonBox::ActionRole);
    m_goTo->setObjectName(QStringLiteral("goToBlocker"));
    m_goTo->setEnabled(false);
    QPushButton *copy = buttons->addButton(tr("&Copy list"), QDialogButtonBox::ActionRole);
    QPushButton *save = buttons->addButton(tr("&Save list…"), QDialogButtonBox::ActionRole);
    m_cascade = buttons->addButton(tr("&Delete with dependents…"), QDialogButtonBox::ActionRole);
    m_cascade->setObjectName(QStringLiteral("cascadeDelete"));
    m_cascade->setToolTip(tr("Preview deleting it with every document that depends on it"));
    m_repoint = buttons->addButton(tr("&Move references to…"), QDialogButtonBox::ActionRole);
    m_repoint->setObjectName(QStringLiteral("repoint"));
    m_repoint->setToolTip(tr("Move every reference to another document of the same resource, then delete it"));
    const steward::ResourceSchema *schema =
        document ? m_session->model().findByName(document->project, document->resource) : nullptr;
    // Descriptors are referenced by their URI text: a re-point does not apply (map the values instead).
    m_repoint->setEnabled(schema != nullptr && !schema->isDescriptor);
    m_cascade->setEnabled(document.has_value());
    m_back = buttons->addButton(tr("&Back"), QDialogButtonBox::ActionRole);
    m_back->setObjectName(QStringLiteral("blockedBack"));
    m_confirm = buttons->addButton(tr("Apply"), QDialogButtonBox::ActionRole);
    m_confirm->setObjectName(QStringLiteral("confirmResolution"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_goTo, &QPushButton::clicked, this, &BlockedDeleteDialog::goToSelected);
    connect(m_blockers, &QTreeWidget::itemActivated, this, &BlockedDeleteDialog::goToSelected);
    connect(m_blockers, &QTreeWidget::itemSelectionChanged, this, [this] {
        const QList<QTreeWidgetItem *> selected = m_blockers->selectedItems();
        m_goTo->setEnabled(!selected.isEmpty() && !selected.first()->data(0, kDocumentIdRole).toString().isEmpty());
    });
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(listAsText()); });
    connect(save, &QPushButton::clicked, this, &BlockedDeleteDialog::saveList);
    connect(m_cascade, &QPushButton::clicked, this, &BlockedDeleteDialog::previewCascade);
    connect(m_repoint, &QPushButton::clicked, this, [this] {
        showPage(Page::Repoint);
        fillTargets();
    });
    connect(m_target, &QComboBox::currentIndexChanged, this, &BlockedDeleteDialog::previewRepoint);
    connect(m_back, &QPushButton::clicked, this, [this] { showPage(Page::Blockers); });
    connect(m_confirm, &QPushButton::clicked, this, &BlockedDeleteDialog::confirm);
    // Go to, Copy, Save and the ways out belong to the list; Back and Apply to the previews.
    m_listButtons = {m_goTo, copy, save, m_cascade, m_repoint};
    return buttons;
}

BlockedDeleteDialog::BlockedDeleteDialog(AppSession *session, const QString &documentId, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_documentId(documentId)
{
    setWindowTitle(tr("Cannot delete"));
    setObjectName(QStringLiteral("blockedDeleteDialog"));
    auto *layout = new QVBoxLayout(this);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setObjectName(QStringLiteral("blockedMessage"));
    m_pages = new QStackedWidget(this);
    const std::optional<steward::StoredDocument> document = setupBlockersPage();
    QWidget *cascadePage = setupCascadePage();
    QWidget *repointPage = setupRepointPage();
    m_pages->addWidget(m_blockers);
    m_pages->addWidget(cascadePage);
    m_pages->addWidget(repointPage);
    QDialogButtonBox *buttons = setupButtons(document);
    layout->addWidget(m_message);
    layout->addWidget(m_pages, 1);
    layout->addWidget(buttons);
    showPage(Page::Blockers);
    resize(760, 460);
}

void BlockedDeleteDialog::showPage(Page page)
{
    m_page = page;
    m_pages->setCurrentIndex(static_cast<int>(page));
    const bool list = page == Page::Blockers;
    for (QPushButton *button : m_listButtons)
        button->setVisible(list);
    m_back->setVisible(!list);
    m_confirm->setVisible(!list);
    m_confirm->setEnabled(false);
    m_confirm->setDefault(!list);
}

QString BlockedDeleteDialog::message() const
{
    return m_message->text();
}

QString BlockedDeleteDialog::listAsText() const
{
    QString text = tr("Resource\tNatural key\tField\tId\n");
    for (int i = 0; i < m_blockers->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *group = m_blockers->topLevelItem(i);
        for (int j = 0; j < group->childCount(); ++j) {
            const QTreeWidgetItem *item = group->child(j);
            text += QStringLiteral("%1\t%2\t%3\t%4\n")
                        .arg(item->text(0), item->text(1), item->text(2), item->data(0, kDocumentIdRole).toString());
        }
    }
    return text;
}

void BlockedDeleteDialog::goToSelected()
{
    const QList<QTreeWidgetItem *> selected = m_blockers->selectedItems();
    if (selected.isEmpty() || selected.first()->data(0, kDocumentIdRole).toString().isEmpty())
        return;
    m_chosenId = selected.first()->data(0, kDocumentIdRole).toString();
    accept();
}

void BlockedDeleteDialog::saveList()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the list of blocking documents"),
                                                      QStringLiteral("blocking-documents.tsv"),
                                                      tr("Tab-separated values (*.tsv)"));
    if (path.isEmpty())
        return;
    QSaveFile file(path);
    if (!steward::openPrivateForWriting(file) || file.write(listAsText().toUtf8()) < 0 || !file.commit())
        QMessageBox::warning(this, tr("Not saved"), tr("Could not write %1: %2").arg(path, file.errorString()));
}

void BlockedDeleteDialog::previewCascade()
{
    showPage(Page::Cascade);
    m_cascadeTree->clear();
    m_cascadePlan = steward::cascadeDelete(m_session->engine(), m_documentId.toStdString(), false);
    if (!m_cascadePlan.ok) {
        m_cascadeSummary->setText(tr("This cannot be done: %1").arg(QString::fromStdString(m_cascadePlan.error)));
        return;
    }
    // One branch per resource, in the order they would go, each with its documents.
    QMap<QString, QTreeWidgetItem *> branches;
    for (std::size_t index : m_cascadePlan.deleteOrder) {
        const steward::DependentNode &node = m_cascadePlan.nodes[index];
        const QString resource = QString::fromStdString(node.resource);
        QTreeWidgetItem *&branch = branches[resource];
        if (branch == nullptr) {
            branch = new QTreeWidgetItem(m_cascadeTree);
            branch->setText(0, resource);
        }
        auto *item = new QTreeWidgetItem(branch);
        item->setText(0, resource);
        item->setText(1, m_session->descriptorLabels().labelsIn(node.naturalKey));
        if (node.parent >= 0) {
            const steward::DependentNode &parent = m_cascadePlan.nodes[static_cast<std::size_t>(node.parent)];
            item->setText(2, QStringLiteral("%1 %2").arg(QString::fromStdString(parent.resource),
                                                       m_session->descriptorLabels().labelsIn(parent.naturalKey)));
        }
        item->setData(0, kDocumentIdRole, QString::fromStdString(node.id));
    }
    for (QTreeWidgetItem *branch : std::as_const(branches)) {
        branch->setText(1, documentsText(branch->childCount()));
        branch->setExpanded(branch->childCount() <= kExpandedGroup / 5);
    }
    m_cascadeTree->resizeColumnToContents(0);
    m_cascadeTree->resizeColumnToContents(1);
    const int total = static_cast<int>(m_cascadePlan.nodes.size());
    m_cascadeSummary->setText(tr("<b>%1 will be deleted</b> in one transaction: the %2 and everything that "
                                 "references it, directly or through others (%3 resources). Undo puts every one back "
                                 "as it was.")
                                  .arg(documentsText(total), QString::fromStdString(m_cascadePlan.nodes.front().resource))
                                  .arg(branches.size()));
    m_confirm->setText(tr("Delete %1 documents").arg(count(total)));
    m_confirm->setEnabled(true);
}

void BlockedDeleteDialog::fillTargets()
{
    const std::optional<steward::StoredDocument> document =
        m_session->engine().document(m_documentId.toStdString());
    const QSignalBlocker blocker(m_target);
    m_target->clear();
    if (!document)
        return;
    for (const steward::StoredDocument &candidate :
         m_session->engine().lookup(document->project, document->resource,
                                    m_target->property("prefix").toString().toStdString(), kTargetChoices)) {
        if (candidate.id == document->id || candidate.resource != document->resource)
            continue;
        m_target->addItem(describeDocument(candidate), QString::fromStdString(candidate.id));
    }
    m_target->setCurrentIndex(-1);
    m_repointSteps->clear();
    m_repointSummary->setText(m_target->count() == 0
                                  ? tr("No other %1 matches.").arg(QString::fromStdString(document->resource))
                                  : tr("Choose the %1 the references move to; the move is previewed here.")
                                        .arg(QString::fromStdString(document->resource)));
    m_confirm->setEnabled(false);
}

void BlockedDeleteDialog::previewRepoint()
{
    m_confirm->setEnabled(false);
    m_repointSteps->clear();
    m_repointPlan.clear();
    m_repointTo = m_target->currentData().toString();
    if (m_repointTo.isEmpty())
        return;
    const steward::IdentityChangeResult result = steward::repointReferences(
        m_session->engine(), m_documentId.toStdString(), m_repointTo.toStdString(), true, false);
    for (const steward::IdentityStep &step : result.steps) {
        auto *item = new QTreeWidgetItem(m_repointSteps);
        item->setText(0, QString::fromStdString(step.op));
        item->setText(1, QString::fromStdString(step.resource));
        item->setText(2, m_session->descriptorLabels().labelsIn(step.naturalKey));
        item->setText(3, QString::fromStdString(step.why));
    }
    for (int c = 0; c < 3; ++c)
        m_repointSteps->resizeColumnToContents(c);
    if (!result.ok) {
        m_repointSummary->setText(tr("This cannot be done: %1").arg(QString::fromStdString(result.error)));
        return;
    }
    int updates = 0;
    int creates = 0;
    for (const steward::IdentityStep &step : result.steps) {
        updates += step.op == "update" ? 1 : 0;
        creates += step.op == "create" ? 1 : 0;
    }
    m_repointPlan = result.steps;
    m_repointSummary->setText(tr("<b>%1 steps</b> in one transaction: %2 updated, %3 re-created (their identity "
                                 "holds the reference), then the old ones and this document deleted. Undo puts every "
                                 "one back as it was.")
                                  .arg(count(static_cast<qint64>(result.steps.size())), documentsText(updates),
                                       documentsText(creates)));
    m_confirm->setText(tr("Move and delete"));
    m_confirm->setEnabled(true);
}

void BlockedDeleteDialog::confirm()
{
    if (m_page == Page::Cascade) {
        const steward::CascadeDeleteResult result = steward::cascadeDelete(
            m_session->engine(), m_documentId.toStdString(), true, &m_cascadePlan.nodes);
        if (!result.ok) {
            Prompt::inform(this, tr("Nothing was deleted"), QString::fromStdString(result.error));
            previewCascade();
            return;
        }
        m_outcome = tr("Deleted %1 documents (operation %2; Edit > Undo last operation puts them back).")
                        .arg(count(static_cast<qint64>(result.nodes.size())))
                        .arg(result.opId);
    } else if (m_page == Page::Repoint) {
        const steward::IdentityChangeResult result = steward::repointReferences(
            m_session->engine(), m_documentId.toStdString(), m_repointTo.toStdString(), true, true, &m_repointPlan);
        if (!result.ok) {
            Prompt::inform(this, tr("Nothing was changed"), QString::fromStdString(result.error));
            previewRepoint();
            return;
        }
        m_outcome = tr("Moved the references and deleted the document: %1 step(s) (operation %2; Edit > Undo "
                       "last operation puts them back).")
                        .arg(count(static_cast<qint64>(result.steps.size())))
                        .arg(result.opId);
    } else {
        return;
    }
    m_session->announceEverythingChanged();
    accept();
}
