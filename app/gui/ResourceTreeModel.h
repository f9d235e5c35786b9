#pragma once

#include "ApiSchema.h"
#include "Engine.h"

#include <QAbstractItemModel>
#include <QHash>

#include <vector>

// Every resource of the loaded model, grouped (descriptors, education organizations, people,
// enrollment and associations, others), each with its document count and a draft marker.
class ResourceTreeModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Roles
    {
        ResourceRole = Qt::UserRole + 1, // quintptr of the const steward::ResourceSchema*
        DocumentCountRole,               // qint64, -1 while unknown
        DraftCountRole,                  // qint64
        ConflictCountRole,               // qint64: open sync conflicts of the resource
    };

    explicit ResourceTreeModel(const steward::Model &model, QObject *parent = nullptr);

    void setCounts(const std::vector<steward::ResourceCount> &counts);
    // Open sync conflicts per "Project/Resource": a marker on each resource that has some.
    void setConflictCounts(const QHash<QString, qint64> &conflicts);
    QModelIndex indexOf(const steward::ResourceSchema *resource) const;
    static const steward::ResourceSchema *resourceAt(const QModelIndex &index);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    struct Entry
    {
        const steward::ResourceSchema *resource = nullptr;
        qint64 documents = -1;
        qint64 drafts = 0;
        qint64 conflicts = 0;
    };
    struct Group
    {
        QString title;
        std::vector<Entry> entries;
    };
    std::vector<Group> m_groups;
};
