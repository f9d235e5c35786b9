#include "ResultsGridModel.h"

#include "Database.h"

#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <map>

namespace {

struct LoadResult
{
    std::vector<steward::QualityRow> rows;
    QString error;
};

} // namespace

ResultsGridModel::ResultsGridModel(QString databasePath, QObject *parent)
    : QAbstractTableModel(parent)
    , m_databasePath(std::move(databasePath))
{
}

ResultsGridModel::~ResultsGridModel() = default;

int ResultsGridModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_visible.size());
}

int ResultsGridModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ResultsGridModel::facetName(Facet facet)
{
    switch (facet) {
    case Facet::Kind:
        return tr("Kind");
    case Facet::Severity:
        return tr("Severity");
    case Facet::Resource:
        return tr("Resource");
    case Facet::Cause:
        return tr("Rule or cause");
    case Facet::Field:
        return tr("Field");
    case Facet::Source:
        return tr("Source");
    }
    return {};
}

QString ResultsGridModel::facetValue(const steward::QualityRow &row, Facet facet)
{
    switch (facet) {
    case Facet::Kind:
        switch (row.kind) {
        case steward::QualityRow::Kind::Draft:
            return tr("draft");
        case steward::QualityRow::Kind::Rule:
            return tr("rule");
        case steward::QualityRow::Kind::Imported:
            return tr("imported result");
        case steward::QualityRow::Kind::Conflict:
            return tr("sync conflict");
        }
        return {};
    case Facet::Severity:
        return QString::fromStdString(row.severity);
    case Facet::Resource:
        return QString::fromStdString(row.resource);
    case Facet::Cause:
        // The title a steward reads, with the code beside it to look up or tell the state.
        if (row.title.empty() || row.title == row.cause)
            return QString::fromStdString(row.cause);
        if (row.cause.rfind("urn:", 0) == 0 || row.cause.rfind("sync conflict", 0) == 0)
            return QString::fromStdString(row.title);
        return QStringLiteral("%1 (%2)").arg(QString::fromStdString(row.title), QString::fromStdString(row.cause));
    case Facet::Field:
        return QString::fromStdString(row.field);
    case Facet::Source:
        return QString::fromStdString(row.source);
    }
    return {};
}

QString ResultsGridModel::cellText(const steward::QualityRow &row, int column) const
{
    switch (column) {
    case KindColumn:
        return facetValue(row, Facet::Kind);
    case SeverityColumn:
        return facetValue(row, Facet::Severity);
    case ResourceColumn:
        return facetValue(row, Facet::Resource);
    case KeyColumn:
        return QString::fromStdString(row.key);
    case CauseColumn:
        return facetValue(row, Facet::Cause);
    case FieldColumn:
        return facetValue(row, Facet::Field);
    case StatusColumn:
        return QString::fromStdString(row.status);
    case SourceColumn:
        return facetValue(row, Facet::Source);
    case MessageColumn:
        return QString::fromStdString(row.message);
    default:
        return {};
    }
}

QVariant ResultsGridModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const steward::QualityRow &row = m_rows[m_visible[index.row()]];
    if (role == Qt::DisplayRole) {
        // One line per cell in the grid; the tooltip and the export keep the whole text.
        QString text = cellText(row, index.column());
        text.replace(QLatin1Char('\n'), QLatin1Char(' '));
        return text;
    }
    if (role == Qt::ToolTipRole)
        return cellText(row, index.column());
    return {};
}

QVariant ResultsGridModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case KindColumn:
        return tr("Kind");
    case SeverityColumn:
        return tr("Severity");
    case ResourceColumn:
        return tr("Resource");
    case KeyColumn:
        return tr("Natural key / draft");
    case CauseColumn:
        return tr("Rule or problem");
    case FieldColumn:
        return tr("Field");
    case StatusColumn:
        return tr("Status");
    case SourceColumn:
        return tr("Source");
    case MessageColumn:
        return tr("Message");
    default:
        return {};
    }
}

void ResultsGridModel::setRuleCatalog(const steward::RuleCatalog &rules)
{
    m_rules = rules;
}

void ResultsGridModel::reload()
{
    const quint64 generation = ++m_generation;
    m_loading = true;
    auto *watcher = new QFutureWatcher<LoadResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        const LoadResult result = watcher->result();
        watcher->deleteLater();
        if (generation != m_generation)
            return; // a newer reload is on its way
        m_loading = false;
        if (!result.error.isEmpty()) {
            Q_EMIT loadFailed(result.error);
            return;
        }
        setRows(result.rows);
        Q_EMIT loaded();
    });
    const std::string path = m_databasePath.toStdString();
    watcher->setFuture(QtConcurrent::run([path, rules = m_rules]() {
        LoadResult result;
        try {
            std::unique_ptr<steward::Database> reader =
                steward::Database::open(path, steward::Database::Access::ReadOnly);
            result.rows = steward::readQualityRows(reader->connection(), &rules);
        } catch (const std::exception &e) {
            result.error = QString::fromUtf8(e.what());
        }
        return result;
    }));
}

void ResultsGridModel::setRows(std::vector<steward::QualityRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
    applyFilters();
}

void ResultsGridModel::setFacetFilter(Facet facet, const QSet<QString> &values)
{
    m_filters[static_cast<int>(facet)] = values;
    applyFilters();
}

QSet<QString> ResultsGridModel::facetFilter(Facet facet) const
{
    return m_filters[static_cast<int>(facet)];
}

void ResultsGridModel::clearFilters()
{
    for (QSet<QString> &filter : m_filters)
        filter.clear();
    applyFilters();
}

bool ResultsGridModel::passes(const steward::QualityRow &row, int skipFacet) const
{
    for (int f = 0; f < kFacetCount; ++f) {
        if (f == skipFacet || m_filters[f].isEmpty())
            continue;
        if (!m_filters[f].contains(facetValue(row, static_cast<Facet>(f))))
            return false;
    }
    return true;
}

QList<QPair<QString, int>> ResultsGridModel::facetCounts(Facet facet) const
{
    std::map<QString, int> counts;
    for (const steward::QualityRow &row : m_rows)
        if (passes(row, static_cast<int>(facet)))
            ++counts[facetValue(row, facet)];
    QList<QPair<QString, int>> out;
    for (const auto &[value, count] : counts)
        out.append({value, count});
    std::stable_sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    return out;
}

void ResultsGridModel::applyFilters()
{
    beginResetModel();
    m_visible.clear();
    for (int i = 0; i < static_cast<int>(m_rows.size()); ++i)
        if (passes(m_rows[i], -1))
            m_visible.push_back(i);
    if (m_sortColumn >= 0) {
        const int column = m_sortColumn;
        const bool descending = m_sortOrder == Qt::DescendingOrder;
        std::stable_sort(m_visible.begin(), m_visible.end(), [this, column, descending](int a, int b) {
            const int order = QString::localeAwareCompare(cellText(m_rows[a], column), cellText(m_rows[b], column));
            return descending ? order > 0 : order < 0;
        });
    }
    endResetModel();
}

void ResultsGridModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= ColumnCount)
        column = -1;
    m_sortColumn = column;
    m_sortOrder = order;
    applyFilters();
}

const steward::QualityRow &ResultsGridModel::rowAt(int row) const
{
    return m_rows.at(m_visible.at(row));
}

steward::TextTable ResultsGridModel::visibleTable() const
{
    steward::TextTable table;
    for (int c = 0; c < ColumnCount; ++c)
        table.headers.push_back(headerData(c, Qt::Horizontal).toString().toStdString());
    for (int index : m_visible) {
        std::vector<std::string> cells;
        for (int c = 0; c < ColumnCount; ++c)
            cells.push_back(cellText(m_rows[index], c).toStdString());
        table.rows.push_back(std::move(cells));
    }
    return table;
}
