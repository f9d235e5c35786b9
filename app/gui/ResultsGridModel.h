#pragma once

#include "QualityRows.h"
#include "RecordFacts.h"
#include "TableExport.h"

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QList>
#include <QPair>
#include <QSet>
#include <QString>

#include <array>
#include <vector>

// Drafts, results (Steward's rules' and imported ones) and sync conflicts as one table, filtered by facets. Rows are read on a worker
// thread with a read-only connection; a newer reload makes an older one's answer stale.
class ResultsGridModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        // What a steward reads first comes first: at 1280 pixels severity, title and message fit.
        SeverityColumn,
        CauseColumn,
        MessageColumn,
        ResourceColumn,
        KeyColumn,
        FieldColumn,
        StatusColumn,
        SourceColumn,
        KindColumn,
        ColumnCount,
    };
    // The facets a steward filters by; each is one column's values.
    enum class Facet
    {
        Kind,
        Severity,
        Resource,
        Cause,
        Field,
        Source,
    };
    static constexpr int kFacetCount = 6;

    explicit ResultsGridModel(QString databasePath, QObject *parent = nullptr);
    ~ResultsGridModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // Starts a load on a worker thread; loaded() follows.
    void reload();
    // Rule titles for the rows of the next load (read by the session on its connection).
    void setRuleCatalog(const steward::RuleCatalog &rules);
    // For tests and callers that already hold rows.
    void setRows(std::vector<steward::QualityRow> rows);
    bool isLoading() const { return m_loading; }

    // Only rows whose facet value is one of these (an empty set: every value).
    void setFacetFilter(Facet facet, const QSet<QString> &values);
    QSet<QString> facetFilter(Facet facet) const;
    void clearFilters();
    // Each value of the facet with how many rows have it among those the other facets let
    // through, most frequent first (ties by name).
    QList<QPair<QString, int>> facetCounts(Facet facet) const;

    const steward::QualityRow &rowAt(int row) const;
    int totalRows() const { return static_cast<int>(m_rows.size()); }
    // The visible rows as shown (header texts and cell texts), for CSV and .xlsx export.
    steward::TextTable visibleTable() const;

    static QString facetValue(const steward::QualityRow &row, Facet facet);
    static QString facetName(Facet facet);

Q_SIGNALS:
    void loaded();
    void loadFailed(const QString &message);

private:
    QString cellText(const steward::QualityRow &row, int column) const;
    bool passes(const steward::QualityRow &row, int skipFacet) const;
    void applyFilters();

    QString m_databasePath;
    std::vector<steward::QualityRow> m_rows;
    std::vector<int> m_visible; // indices into m_rows, in display order
    std::array<QSet<QString>, kFacetCount> m_filters;
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
    quint64 m_generation = 0;
    steward::RuleCatalog m_rules;
    bool m_loading = false;
};
