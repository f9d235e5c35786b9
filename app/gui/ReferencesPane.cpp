#include "ReferencesPane.h"
#include "ItemRoles.h"

#include "AppSession.h"

#include <algorithm>

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {

QTreeWidget *makeTree(const QStringList &headers, QWidget *parent)
{
    auto *tree = new QTreeWidget(parent);
    tree->setHeaderLabels(headers);
    tree->setRootIsDecorated(true);
    tree->setUniformRowHeights(true);
    tree->header()->setStretchLastSection(true);
    tree->setAlternatingRowColors(true);
    // A key's start (a date, a school) and its end (a student's id) both tell which document it is.
    tree->setTextElideMode(Qt::ElideMiddle);
    return tree;
}

// The column as wide as its contents, but no wider than its share of the tree's width.
void fitColumn(QTreeWidget *tree, int column, int share)
{
    tree->resizeColumnToContents(column);
    const int most = tree->viewport()->width() * share / 100;
    tree->setColumnWidth(column, std::min(tree->columnWidth(column), most));
}

} // namespace

ReferencesPane::ReferencesPane(AppSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *outgoingTitle = new QLabel(tr("<b>References</b> — what this document points at"), this);
    m_outgoing = makeTree({tr("Field"), tr("Resource"), tr("Key")}, this);
    m_outgoing->setObjectName(QStringLiteral("outgoingReferences"));
    m_outgoing->setAccessibleName(tr("References of this document"));
    m_outgoing->setRootIsDecorated(false);
    m_incomingTitle = new QLabel(this);
    m_incoming = makeTree({tr("Resource / key"), tr("Field")}, this);
    m_incoming->setObjectName(QStringLiteral("referencedBy"));
    // The key is the first column and takes the room; the field names follow.
    m_incoming->header()->setStretchLastSection(false);
    m_incoming->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_incoming->setAccessibleName(tr("Documents that reference this one"));
    m_more = new QPushButton(tr("Load more"), this);
    m_more->setVisible(false);
    layout->addWidget(outgoingTitle);
    layout->addWidget(m_outgoing, 1);
    layout->addWidget(m_incomingTitle);
    layout->addWidget(m_incoming, 2);
    layout->addWidget(m_more);
    connect(m_more, &QPushButton::clicked, this, &ReferencesPane::loadMoreReferrers);
    m_outgoing->viewport()->installEventFilter(this);
    m_incoming->viewport()->installEventFilter(this);
    connect(m_outgoing, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) { activate(item); });
    connect(m_incoming, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) { activate(item); });
    connect(m_session, &AppSession::documentsChanged, this, &ReferencesPane::reload);
    showDocument({});
}

void ReferencesPane::activate(QTreeWidgetItem *item)
{
    const QString id = item->data(0, kDocumentIdRole).toString();
    if (!id.isEmpty())
        Q_EMIT navigateTo(id);
}

void ReferencesPane::showDocument(const QString &id)
{
    m_id = id;
    reload();
}

void ReferencesPane::reload()
{
    m_outgoing->clear();
    m_incoming->clear();
    m_loadedReferrers = 0;
    m_more->setVisible(false);
    if (m_id.isEmpty() || !m_session->engine().document(m_id.toStdString())) {
        m_incomingTitle->setText(tr("<b>Referenced by</b>"));
        Q_EMIT countsChanged(0, 0);
        return;
    }
    for (const steward::OutgoingReference &ref : m_session->engine().outgoingReferences(m_id.toStdString())) {
        auto *item = new QTreeWidgetItem(m_outgoing);
        item->setText(0, QString::fromStdString(ref.path.substr(2)));
        item->setText(1, QString::fromStdString(ref.storedResource.empty() ? ref.targetResource : ref.storedResource));
        item->setToolTip(1, item->text(1));
        item->setText(2, m_session->descriptorLabels().labelsIn(ref.naturalKey));
        item->setToolTip(2, QString::fromStdString(ref.naturalKey));
        item->setData(0, kDocumentIdRole, QString::fromStdString(ref.targetId));
        item->setToolTip(0, ref.targetId.empty() ? tr("Nothing stored answers to this reference")
                                                 : tr("Double-click or press Enter to go there"));
        if (ref.targetId.empty())
            for (int c = 0; c < 3; ++c)
                item->setForeground(c, QColor(Qt::red));
    }
    loadMoreReferrers();
}

bool ReferencesPane::eventFilter(QObject *watched, QEvent *event)
{
    const bool tree = watched == m_outgoing->viewport() || watched == m_incoming->viewport();
    if (tree && event->type() == QEvent::Resize)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

void ReferencesPane::fitColumns()
{
    fitColumn(m_outgoing, 0, 30);
    fitColumn(m_outgoing, 1, 22);
    fitColumn(m_incoming, 1, 35);
}

void ReferencesPane::loadMoreReferrers()
{
    const steward::ReferrerPage page =
        m_session->engine().referrers(m_id.toStdString(), kPageSize, m_loadedReferrers);
    m_incomingTitle->setText(tr("<b>Referenced by</b> — %n document(s)", nullptr, static_cast<int>(page.total)));
    Q_EMIT countsChanged(m_outgoing->topLevelItemCount(), page.total);
    for (const steward::Referrer &referrer : page.items) {
        const QString resource = QString::fromStdString(referrer.resource);
        QTreeWidgetItem *group = nullptr;
        for (int i = 0; i < m_incoming->topLevelItemCount(); ++i)
            if (m_incoming->topLevelItem(i)->data(0, Qt::UserRole).toString() == resource)
                group = m_incoming->topLevelItem(i);
        if (group == nullptr) {
            group = new QTreeWidgetItem(m_incoming);
            group->setData(0, Qt::UserRole, resource);
            group->setFirstColumnSpanned(true);
            group->setExpanded(true);
            QFont font = group->font(0);
            font.setBold(true);
            group->setFont(0, font);
        }
        auto *item = new QTreeWidgetItem(group);
        item->setText(0, m_session->descriptorLabels().labelsIn(referrer.naturalKey));
        item->setToolTip(0, QString::fromStdString(referrer.naturalKey));
        QStringList fields;
        for (const std::string &path : referrer.paths)
            fields << QString::fromStdString(path.substr(2));
        item->setText(1, fields.join(QStringLiteral(", ")));
        item->setToolTip(1, item->text(1));
        item->setData(0, kDocumentIdRole, QString::fromStdString(referrer.id));
        group->setText(0, QStringLiteral("%1 (%2)").arg(resource).arg(group->childCount()));
        group->setToolTip(0, group->text(0));
    }
    m_loadedReferrers += static_cast<int>(page.items.size());
    m_more->setVisible(m_loadedReferrers < page.total);
    m_more->setText(tr("Load more (%1 of %2 shown)").arg(m_loadedReferrers).arg(page.total));
    fitColumns();
}
