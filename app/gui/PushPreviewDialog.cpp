#include "PushPreviewDialog.h"
#include "ItemRoles.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {

// Small groups open by themselves; a large one shows its count until opened.
constexpr int kExpandedGroup = 20;

QString shown(const steward::Json &value)
{
    return value.is_null() ? QStringLiteral("—") : QString::fromStdString(steward::dumpJson(value));
}

} // namespace

// The planned documents grouped by what the target would do, most urgent first; each with why it
// would be refused, whether it changed there since, and the fields that differ.
void PushPreviewDialog::fillDocuments(const steward::PushPreview &preview)
{
    using State = steward::PushPreviewItem::State;
    const struct
    {
        State state;
        QString title;
    } groups[] = {
        {State::Conflict, tr("Held back by a sync conflict (decide it first)")},
        {State::Refused, tr("The target would refuse")},
        {State::New, tr("New on the target")},
        {State::Changed, tr("Changed (the fields that differ)")},
        {State::Delete, tr("Deleted on the target")},
        {State::Absent, tr("Deletes of what the target does not have (nothing to send)")},
        {State::Unchanged, tr("Unchanged: the target has them as they are here")},
    };
    for (const auto &group : groups) {
        const int count = preview.count(group.state);
        if (count == 0)
            continue;
        auto *branch = new QTreeWidgetItem(m_documents, {QStringLiteral("%1 (%2)").arg(group.title).arg(count)});
        branch->setFirstColumnSpanned(true);
        for (const steward::PushPreviewItem &item : preview.items) {
            if (item.state != group.state)
                continue;
            auto *document = new QTreeWidgetItem(
                branch, {QStringLiteral("%1 %2").arg(QString::fromStdString(item.resource),
                                                      QString::fromStdString(item.naturalKey))});
            document->setData(0, kDocumentIdRole, QString::fromStdString(item.id));
            for (const std::string &reason : item.reasons) {
                auto *line = new QTreeWidgetItem(document, {QString::fromStdString(reason)});
                line->setFirstColumnSpanned(true);
            }
            if (item.changedOnTarget) {
                // Someone changed it there since: the push merges the two instead of overwriting.
                document->setText(1, tr("changed there since the last sync"));
                auto *line = new QTreeWidgetItem(
                    document, {tr("Changed on the target since this database last synced it: the push merges the "
                                  "two, field by field, or keeps it as a conflict.")});
                line->setFirstColumnSpanned(true);
            }
            for (const steward::FieldChange &change : item.changes)
                new QTreeWidgetItem(document, {QString::fromStdString(change.path), shown(change.before),
                                               shown(change.after)});
            document->setExpanded(group.state == State::Refused || group.state == State::Conflict
                                  || (group.state == State::Changed && count <= kExpandedGroup));
        }
        branch->setExpanded(group.state != State::Unchanged && count <= kExpandedGroup);
    }
}

// What the push would change, what the target would refuse, and whether the preview is whole.
QString PushPreviewDialog::summaryText(const steward::PushPreview &preview)
{
    using State = steward::PushPreviewItem::State;
    const int sending = preview.count(State::New) + preview.count(State::Changed) + preview.count(State::Delete);
    QString text = tr("<b>%1 of %2 planned documents would change the target</b>: %3 new, %4 changed, %5 deleted. ")
                       .arg(sending)
                       .arg(preview.items.size())
                       .arg(preview.count(State::New))
                       .arg(preview.count(State::Changed))
                       .arg(preview.count(State::Delete));
    if (preview.count(State::Refused) > 0)
        text += tr("<b>%1 it would refuse</b> (listed first, with why): fix them here, or send and find them "
                   "in the refused list afterwards. ")
                    .arg(preview.count(State::Refused));
    text += tr("Nothing has been sent yet.");
    if (!preview.error.empty())
        text += QStringLiteral("<br>") + tr("The preview is incomplete: %1").arg(QString::fromStdString(preview.error).toHtmlEscaped());

    return text;
}

PushPreviewDialog::PushPreviewDialog(const steward::PushPreview &preview, const QString &target, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Push to %1: preview").arg(target));
    setObjectName(QStringLiteral("pushPreviewDialog"));
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setObjectName(QStringLiteral("pushPreviewSummary"));
    m_documents = new QTreeWidget(this);
    m_documents->setObjectName(QStringLiteral("pushPreviewDocuments"));
    m_documents->setAccessibleName(tr("Documents the push would send, by what the target would do"));
    m_documents->setHeaderLabels({tr("Document"), tr("On the target"), tr("Here")});
    m_documents->setAlternatingRowColors(true);
    layout->addWidget(m_summary);
    layout->addWidget(m_documents, 1);

    fillDocuments(preview);
    m_documents->resizeColumnToContents(0);

    m_summary->setText(summaryText(preview));

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_send = buttons->addButton(tr("&Send %1 documents").arg(preview.items.size()), QDialogButtonBox::AcceptRole);
    m_send->setObjectName(QStringLiteral("sendPush"));
    m_send->setEnabled(!preview.items.empty());
    QPushButton *open = buttons->addButton(tr("&Open document"), QDialogButtonBox::ActionRole);
    open->setObjectName(QStringLiteral("openPreviewed"));
    open->setEnabled(false);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_documents, &QTreeWidget::currentItemChanged, this, [open](QTreeWidgetItem *item) {
        open->setEnabled(item != nullptr && !item->data(0, kDocumentIdRole).toString().isEmpty());
    });
    connect(open, &QPushButton::clicked, this, [this] {
        const QTreeWidgetItem *item = m_documents->currentItem();
        if (item != nullptr && !item->data(0, kDocumentIdRole).toString().isEmpty()) {
            Q_EMIT documentActivated(item->data(0, kDocumentIdRole).toString());
            reject();
        }
    });
    resize(760, 480);
}

QString PushPreviewDialog::summary() const
{
    return m_summary->text();
}
