#pragma once

#include "ApiSchema.h"

#include <QAbstractTableModel>
#include <QString>

#include <functional>
#include <memory>

class DocumentLoader;
class QThread;

// The documents of one resource, for a QTableView that must stay smooth at a million rows.
// Rows are loaded in chunks by a DocumentLoader on its own thread with its own read-only
// connection: first the first chunk (shown at once), then the ordered list of row keys (keyset:
// no OFFSET, which also gives the count), then chunks around whatever the view asks for.
// Results come back by queued signals tagged with a generation; stale ones are dropped.
class DocumentTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Roles
    {
        DocumentIdRole = Qt::UserRole + 1, // QString id of the row's document ("" while not loaded)
        NaturalKeyRole,                    // QString natural key text
        LoadedRole,                        // bool: the row's data has arrived
    };

    DocumentTableModel(const QString &databasePath, const steward::Model &model, QObject *parent = nullptr);
    ~DocumentTableModel() override;

    void setResource(const steward::ResourceSchema *resource); // null clears
    const steward::ResourceSchema *resource() const { return m_resource; }
    // Rows whose natural key starts with the text (case-insensitive); empty shows all.
    void setFilter(const QString &naturalKeyPrefix);
    QString filter() const { return m_filter; }
    // Reload after writes, keeping the sort and filter.
    void refresh();
    // How a descriptor column shows a URI (its code value); the URI stays the cell's tooltip.
    void setDescriptorLabel(std::function<QString(const QString &uri)> label);

    QString documentId(int row) const;
    int rowOfDocument(const QString &id) const; // -1 when not loaded
    bool isLoading() const;
    qint64 totalCount() const; // -1 until known

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

Q_SIGNALS:
    void loadingChanged(bool loading);
    void totalCountChanged(qint64 count);

private:
    struct Private;
    std::unique_ptr<Private> d;
    const steward::ResourceSchema *m_resource = nullptr;
    QString m_filter;
};
