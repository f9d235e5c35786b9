#include "ResourceTreeModel.h"

#include <QApplication>
#include <QStyle>

#include <QColor>
#include <QFont>
#include <QLocale>

#include <algorithm>

namespace {

enum GroupIndex
{
    EducationOrganizations,
    People,
    Associations,
    Others,
    Descriptors,
    GroupCount
};

// Internal ids: groups are 0; resources are (group + 1).
constexpr quintptr kGroupTag = 0;

bool isPerson(const steward::ResourceSchema &r)
{
    for (const steward::JsonPath &path : r.identityPaths) {
        const std::string &text = path.text();
        if (path.steps().size() == 1 && text.size() > 8 && text.compare(text.size() - 8, 8, "UniqueId") == 0)
            return true;
    }
    return false;
}

int groupOf(const steward::ResourceSchema &r)
{
    if (r.isDescriptor)
        return Descriptors;
    if (r.isSubclass && r.superclassResourceName == "EducationOrganization")
        return EducationOrganizations;
    if (isPerson(r))
        return People;
    if (r.resourceName.find("Association") != std::string::npos)
        return Associations;
    return Others;
}

} // namespace

ResourceTreeModel::ResourceTreeModel(const steward::Model &model, QObject *parent)
    : QAbstractItemModel(parent)
{
    m_groups.resize(GroupCount);
    m_groups[EducationOrganizations].title = tr("Education organizations");
    m_groups[People].title = tr("People");
    m_groups[Associations].title = tr("Enrollment and associations");
    m_groups[Others].title = tr("Other resources");
    m_groups[Descriptors].title = tr("Descriptors");
    for (const steward::ResourceSchema *resource : model.resources())
        m_groups[groupOf(*resource)].entries.push_back({resource, -1, 0});
    for (Group &group : m_groups)
        std::sort(group.entries.begin(), group.entries.end(), [](const Entry &a, const Entry &b) {
            return a.resource->resourceName < b.resource->resourceName;
        });
}

void ResourceTreeModel::setCounts(const std::vector<steward::ResourceCount> &counts)
{
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g) {
        for (int row = 0; row < static_cast<int>(m_groups[g].entries.size()); ++row) {
            Entry &entry = m_groups[g].entries[row];
            qint64 documents = 0;
            qint64 drafts = 0;
            for (const steward::ResourceCount &c : counts)
                if (c.resource == entry.resource->resourceName && c.project == entry.resource->projectName()) {
                    documents = c.documents;
                    drafts = c.drafts;
                }
            if (documents != entry.documents || drafts != entry.drafts) {
                entry.documents = documents;
                entry.drafts = drafts;
                const QModelIndex changed = index(row, 0, index(g, 0));
                Q_EMIT dataChanged(changed, changed);
            }
        }
    }
}

void ResourceTreeModel::setConflictCounts(const QHash<QString, qint64> &conflicts)
{
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g) {
        for (int row = 0; row < static_cast<int>(m_groups[g].entries.size()); ++row) {
            Entry &entry = m_groups[g].entries[row];
            const qint64 count = conflicts.value(
                QString::fromStdString(entry.resource->projectName() + "/" + entry.resource->resourceName), 0);
            if (count != entry.conflicts) {
                entry.conflicts = count;
                const QModelIndex changed = index(row, 0, index(g, 0));
                Q_EMIT dataChanged(changed, changed);
            }
        }
    }
}

QModelIndex ResourceTreeModel::indexOf(const steward::ResourceSchema *resource) const
{
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g)
        for (int row = 0; row < static_cast<int>(m_groups[g].entries.size()); ++row)
            if (m_groups[g].entries[row].resource == resource)
                return index(row, 0, index(g, 0));
    return {};
}

const steward::ResourceSchema *ResourceTreeModel::resourceAt(const QModelIndex &index)
{
    return reinterpret_cast<const steward::ResourceSchema *>(index.data(ResourceRole).value<quintptr>());
}

QModelIndex ResourceTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (column != 0 || row < 0)
        return {};
    if (!parent.isValid())
        return row < static_cast<int>(m_groups.size()) ? createIndex(row, 0, kGroupTag) : QModelIndex();
    if (parent.internalId() != kGroupTag)
        return {};
    if (row >= static_cast<int>(m_groups[parent.row()].entries.size()))
        return {};
    return createIndex(row, 0, static_cast<quintptr>(parent.row() + 1));
}

QModelIndex ResourceTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kGroupTag)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kGroupTag);
}

int ResourceTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_groups.size());
    if (parent.internalId() == kGroupTag && parent.column() == 0)
        return static_cast<int>(m_groups[parent.row()].entries.size());
    return 0;
}

int ResourceTreeModel::columnCount(const QModelIndex &) const
{
    return 1;
}

QVariant ResourceTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    if (index.internalId() == kGroupTag) {
        const Group &group = m_groups[index.row()];
        if (role == Qt::DisplayRole)
            return QStringLiteral("%1 (%2)").arg(group.title).arg(group.entries.size());
        // A narrow tree cuts a title as it cuts a resource's name: hovering says it whole.
        if (role == Qt::ToolTipRole)
            return tr("%1: %n resource(s)", nullptr, static_cast<int>(group.entries.size())).arg(group.title);
        if (role == Qt::FontRole) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    }
    const Entry &entry = m_groups[index.internalId() - 1].entries[index.row()];
    const QString name = QString::fromStdString(entry.resource->resourceName);
    switch (role) {
    case Qt::DisplayRole: {
        QString text = name;
        if (entry.documents >= 0)
            text += QStringLiteral("  ·  %1").arg(QLocale().toString(entry.documents));
        if (entry.drafts > 0)
            text += tr("  ·  ✎ %n draft(s)", nullptr, static_cast<int>(entry.drafts));
        if (entry.conflicts > 0)
            text += tr("  ·  ⚠ %n conflict(s)", nullptr, static_cast<int>(entry.conflicts));
        return text;
    }
    case Qt::DecorationRole:
        if (entry.conflicts > 0)
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        return {};
    case Qt::ToolTipRole:
        return tr("%1 (/%2/%3): %4 documents, %5 drafts")
            .arg(name, QString::fromStdString(entry.resource->project->projectEndpointName),
                 QString::fromStdString(entry.resource->endpointName))
            .arg(entry.documents < 0 ? QStringLiteral("?") : QString::number(entry.documents))
            .arg(entry.drafts)
            + (entry.conflicts > 0 ? tr("; %n open sync conflict(s) to decide", nullptr, static_cast<int>(entry.conflicts))
                                   : QString());
    case Qt::ForegroundRole:
        if (entry.documents == 0 && entry.drafts == 0)
            return QVariant::fromValue(QColor(Qt::gray));
        return {};
    case ResourceRole:
        return QVariant::fromValue(reinterpret_cast<quintptr>(entry.resource));
    case DocumentCountRole:
        return entry.documents;
    case DraftCountRole:
        return entry.drafts;
    case ConflictCountRole:
        return entry.conflicts;
    default:
        return {};
    }
}
