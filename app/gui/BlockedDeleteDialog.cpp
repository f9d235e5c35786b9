#include "BlockedDeleteDialog.h"

#include "AppSession.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {

constexpr int kIdRole = Qt::UserRole + 1;
// Enough to act on; the count in the message is always the full one.
constexpr int kListLimit = 1000;

} // namespace

BlockedDeleteDialog::BlockedDeleteDialog(AppSession *session, const QString &documentId, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Cannot delete"));
    setObjectName(QStringLiteral("blockedDeleteDialog"));
    auto *layout = new QVBoxLayout(this);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setObjectName(QStringLiteral("blockedMessage"));
    m_blockers = new QTreeWidget(this);
    m_blockers->setObjectName(QStringLiteral("blockers"));
    m_blockers->setAccessibleName(tr("Documents that block the delete"));
    m_blockers->setHeaderLabels({tr("Resource"), tr("Natural key"), tr("Field that references it")});
    m_blockers->setRootIsDecorated(false);
    m_blockers->setAlternatingRowColors(true);
    m_blockers->setSelectionMode(QAbstractItemView::SingleSelection);

    const std::optional<steward::StoredDocument> document = session->engine().document(documentId.toStdString());
    const steward::ReferrerPage page = session->engine().referrers(documentId.toStdString(), kListLimit, 0);
    const QString what = document ? describeDocument(*document) : documentId;
    m_message->setText(tr("<p><b>%1 cannot be deleted: %n document(s) reference it.</b></p>"
                          "<p>Nothing was deleted. Change or delete the documents below first; then delete again.</p>",
                          nullptr, static_cast<int>(page.total))
                           .arg(what.toHtmlEscaped()));
    for (const steward::Referrer &referrer : page.items) {
        auto *item = new QTreeWidgetItem(m_blockers);
        item->setText(0, QString::fromStdString(referrer.resource));
        item->setText(1, QString::fromStdString(referrer.naturalKey));
        QStringList fields;
        for (const std::string &path : referrer.paths)
            fields << QString::fromStdString(path.substr(2));
        item->setText(2, fields.join(QStringLiteral(", ")));
        item->setData(0, kIdRole, QString::fromStdString(referrer.id));
    }
    for (int c = 0; c < 3; ++c)
        m_blockers->resizeColumnToContents(c);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_goTo = buttons->addButton(tr("Go to document"), QDialogButtonBox::ActionRole);
    m_goTo->setObjectName(QStringLiteral("goToBlocker"));
    m_goTo->setEnabled(false);
    QPushButton *copy = buttons->addButton(tr("Copy list"), QDialogButtonBox::ActionRole);
    QPushButton *save = buttons->addButton(tr("Save list…"), QDialogButtonBox::ActionRole);
    layout->addWidget(m_message);
    layout->addWidget(m_blockers, 1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_goTo, &QPushButton::clicked, this, &BlockedDeleteDialog::goToSelected);
    connect(m_blockers, &QTreeWidget::itemActivated, this, &BlockedDeleteDialog::goToSelected);
    connect(m_blockers, &QTreeWidget::itemSelectionChanged, this,
            [this] { m_goTo->setEnabled(!m_blockers->selectedItems().isEmpty()); });
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(listAsText()); });
    connect(save, &QPushButton::clicked, this, &BlockedDeleteDialog::saveList);
    resize(640, 380);
}

QString BlockedDeleteDialog::message() const
{
    return m_message->text();
}

QString BlockedDeleteDialog::listAsText() const
{
    QString text = tr("Resource\tNatural key\tField\tId\n");
    for (int i = 0; i < m_blockers->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *item = m_blockers->topLevelItem(i);
        text += QStringLiteral("%1\t%2\t%3\t%4\n")
                    .arg(item->text(0), item->text(1), item->text(2), item->data(0, kIdRole).toString());
    }
    return text;
}

void BlockedDeleteDialog::goToSelected()
{
    const QList<QTreeWidgetItem *> selected = m_blockers->selectedItems();
    if (selected.isEmpty())
        return;
    m_chosenId = selected.first()->data(0, kIdRole).toString();
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
    if (!file.open(QIODevice::WriteOnly) || file.write(listAsText().toUtf8()) < 0 || !file.commit())
        QMessageBox::warning(this, tr("Not saved"), tr("Could not write %1: %2").arg(path, file.errorString()));
}
