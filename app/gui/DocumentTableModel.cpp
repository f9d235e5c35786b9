#include "DocumentTableModel.h"

#include "FieldLabels.h"

#include "DocumentLoader.h"
#include "Database.h"
#include "RecordFacts.h"

#include <QApplication>
#include <QFutureWatcher>
#include <QStyle>
#include <QtConcurrent/QtConcurrentRun>

#include <QThread>
#include <QTimer>

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

// Named, not anonymous: The table model's Private holds these types, and a class whose members have
// internal linkage is warned about once the file is compiled inside a unity batch.
namespace tableparts {

// Rows per request to the loader: a screenful several times over, and a short IN (...) list.
constexpr int kChunkRows = 200;
// Loaded rows kept beyond this are dropped, least recently shown first (about 10 MB for Students).
constexpr int kMaxCachedRows = 50000;
// Chunk requests sent to the loader at once; the rest wait, newest first, so a fast scroll loads
// where the view stopped rather than every place it passed.
constexpr int kMaxChunksInFlight = 2;
constexpr std::size_t kMaxWaitingChunks = 32;
constexpr int kMaxPropertyColumns = 3;

const QString kPlaceholder = QStringLiteral("…");

enum class ColumnKind
{
    Identity,
    Property,
    LastModified,
};

struct Column
{
    QString header;
    steward::JsonPath path; // empty for "Last modified"
    ColumnKind kind = ColumnKind::Identity;
    bool sortsByNaturalKey = false; // the natural key text starts with this column's value
    bool descriptor = false;        // its values are descriptor URIs
};

struct Chunk
{
    LoadedRows rows;
    quint64 lastUse = 0;
};

// A loaded row: its chunk's rows and the index in them.
struct RowRef
{
    const LoadedRows *rows = nullptr;
    qsizetype index = 0;

    explicit operator bool() const { return rows != nullptr; }
    QString id() const { return rows->id(index).toString(); }
    QString cell(int column) const { return rows->cell(index, column).toString(); }
    bool isDeleted() const { return rows->id(index).isEmpty(); }
};

bool isScalarProperty(const steward::Json &schema)
{
    const std::string type = schema.is_object() ? schema.value("type", std::string()) : std::string();
    return type == "string" || type == "integer" || type == "number";
}

// Identity paths in the order their values appear in the natural key text: naturalKeyText() walks the
// identity object, whose keys are sorted, so that order is the order of the paths' steps.
std::vector<steward::JsonPath> identityPathsInNaturalKeyOrder(const steward::ResourceSchema &resource)
{
    if (resource.isDescriptor)
        return {steward::JsonPath("$.namespace"), steward::JsonPath("$.codeValue")};
    std::vector<steward::JsonPath> paths = resource.identityPaths;
    std::stable_sort(paths.begin(), paths.end(), [](const steward::JsonPath &a, const steward::JsonPath &b) {
        return std::lexicographical_compare(
            a.steps().begin(), a.steps().end(), b.steps().begin(), b.steps().end(),
            [](const steward::JsonPath::Step &x, const steward::JsonPath::Step &y) {
                return x.property < y.property;
            });
    });
    return paths;
}

bool isDescriptorProperty(const steward::ResourceSchema &resource, const std::string &name)
{
    const std::string path = "$." + name;
    for (const steward::DescriptorMapping &descriptor : resource.descriptors)
        if (descriptor.path.text() == path)
            return true;
    return name.size() > 10 && name.compare(name.size() - 10, 10, "Descriptor") == 0;
}

// Up to three top-level scalar properties that tell documents apart at a glance: required ones first
// (in the schema's order), then optional ones; descriptor URIs last, being long and repetitive.
std::vector<std::string> usefulProperties(const steward::ResourceSchema &resource,
                                          const std::set<std::string> &identityNames)
{
    const steward::Json &schema = resource.jsonSchema;
    const auto properties = schema.find("properties");
    if (properties == schema.end() || !properties->is_object())
        return {};
    std::vector<std::string> required;
    if (const auto list = schema.find("required"); list != schema.end() && list->is_array())
        for (const steward::Json &name : *list)
            if (name.is_string())
                required.push_back(name.get<std::string>());

    const auto eligible = [&](const std::string &name) {
        if (name.empty() || name[0] == '_' || name == "id" || name == "link" || identityNames.contains(name))
            return false;
        const auto property = properties->find(name);
        return property != properties->end() && isScalarProperty(*property);
    };
    std::vector<std::string> chosen;
    const auto consider = [&](const std::string &name, bool wantDescriptor) {
        if (static_cast<int>(chosen.size()) < kMaxPropertyColumns && eligible(name)
            && isDescriptorProperty(resource, name) == wantDescriptor
            && std::find(chosen.begin(), chosen.end(), name) == chosen.end())
            chosen.push_back(name);
    };
    for (const bool wantDescriptor : {false, true}) {
        for (const std::string &name : required)
            consider(name, wantDescriptor);
        for (const auto &item : properties->items())
            consider(item.key(), wantDescriptor);
    }
    return chosen;
}

} // namespace tableparts

using namespace tableparts;

struct DocumentTableModel::Private
{
    explicit Private(DocumentTableModel *model)
        : q(model)
    {
    }

    void buildColumns(const steward::ResourceSchema *resource);
    steward::DocumentQuery query() const;
    void reload(bool rebuildColumns);
    void setLoading(bool value);

    RowRef loadedRow(int row);
    void want(int chunk);
    void dispatch();
    void evictLeastRecentlyUsed();

    void onFirstRows(quint64 forGeneration, const LoadedRows &rows);
    void onKeys(quint64 forGeneration, const QList<qint64> &docKeys);
    void onRows(quint64 forGeneration, int firstRow, const LoadedRows &rows);
    void onFailed(quint64 forGeneration, int firstRow, const QString &message);

    DocumentTableModel *q;
    QThread *thread = nullptr;
    DocumentLoader *loader = nullptr;
    QTimer dispatchTimer;

    std::vector<Column> columns;
    int sortColumn = -1;
    Qt::SortOrder sortOrder = Qt::AscendingOrder;

    quint64 generation = 0;
    bool loading = false;
    // The worst severity of what is known against each record of the resource (results not
    // acknowledged, drafts waiting on it, open conflicts), read beside the rows.
    QString databasePath;
    std::unordered_map<std::string, std::string> worstSeverity;
    void readWorstSeverities();
    std::string worstSeverityOf(const QString &id) const
    {
        const auto it = worstSeverity.find(id.toStdString());
        return it == worstSeverity.end() ? std::string() : it->second;
    }
    qint64 total = -1;
    bool keysKnown = false;
    QList<qint64> keys; // display order, once known
    int rows = 0;

    std::unordered_map<int, Chunk> chunks; // by row / kChunkRows
    int cachedRows = 0;
    quint64 useClock = 0;
    std::unordered_set<int> inFlight;
    std::vector<int> waiting; // newest last
    std::function<QString(const QString &)> descriptorLabel;
};

void DocumentTableModel::Private::buildColumns(const steward::ResourceSchema *resource)
{
    columns.clear();
    if (resource == nullptr)
        return;
    std::set<std::string> identityNames;
    bool first = true;
    for (const steward::JsonPath &path : identityPathsInNaturalKeyOrder(*resource)) {
        Column column;
        // The form's label of the value (its JSON path is the tooltip).
        column.header = fieldLabel(path.steps().empty() ? path.text() : path.steps().back().property);
        column.path = path;
        column.kind = ColumnKind::Identity;
        column.descriptor = resource->isDescriptorPath(path.text());
        column.sortsByNaturalKey = first;
        first = false;
        columns.push_back(column);
        if (!path.steps().empty())
            identityNames.insert(path.steps().front().property);
    }
    for (const std::string &name : usefulProperties(*resource, identityNames)) {
        Column column;
        column.header = fieldLabel(name);
        column.path = steward::JsonPath("$." + name);
        column.kind = ColumnKind::Property;
        column.descriptor = isDescriptorProperty(*resource, name);
        columns.push_back(column);
    }
    Column lastModified;
    lastModified.header = DocumentTableModel::tr("Last modified");
    lastModified.kind = ColumnKind::LastModified;
    columns.push_back(lastModified);
}

steward::DocumentQuery DocumentTableModel::Private::query() const
{
    steward::DocumentQuery out;
    out.project = q->m_resource->projectName();
    out.resource = q->m_resource->resourceName;
    out.naturalKeyPrefix = q->m_filter.toStdString();
    if (sortColumn < 0 || sortColumn >= static_cast<int>(columns.size()))
        return out;
    const Column &column = columns[static_cast<std::size_t>(sortColumn)];
    out.descending = sortOrder == Qt::DescendingOrder;
    if (column.kind == ColumnKind::LastModified) {
        out.order = steward::DocumentQuery::Order::LastModified;
    } else if (column.sortsByNaturalKey) {
        out.order = steward::DocumentQuery::Order::NaturalKey;
    } else {
        out.order = steward::DocumentQuery::Order::JsonPath;
        out.jsonPath = column.path.text();
    }
    return out;
}

void DocumentTableModel::Private::readWorstSeverities()
{
    if (q->m_resource == nullptr || databasePath.isEmpty())
        return;
    const std::string project = q->m_resource->projectName();
    const std::string resource = q->m_resource->resourceName;
    const std::string path = databasePath.toStdString();
    const quint64 forGeneration = generation;
    auto *watcher = new QFutureWatcher<std::unordered_map<std::string, std::string>>(q);
    QObject::connect(watcher, &QFutureWatcherBase::finished, q, [this, watcher, forGeneration] {
        watcher->deleteLater();
        if (forGeneration != generation)
            return;
        worstSeverity = watcher->result();
        if (rows > 0)
            Q_EMIT q->dataChanged(q->index(0, 0), q->index(rows - 1, 0), {Qt::DecorationRole, Qt::ToolTipRole});
    });
    watcher->setFuture(QtConcurrent::run([path, project, resource] {
        try {
            std::unique_ptr<steward::Database> reader = steward::Database::open(path, steward::Database::Access::ReadOnly);
            return steward::worstSeverityByRecord(reader->connection(), project, resource);
        } catch (const std::exception &) {
            return std::unordered_map<std::string, std::string>();
        }
    }));
}

void DocumentTableModel::Private::reload(bool rebuildColumns)
{
    ++generation;
    readWorstSeverities();
    // Whatever the loader is doing now is for an older generation: stop it.
    loader->cancelBefore(generation);
    dispatchTimer.stop();

    q->beginResetModel();
    if (rebuildColumns)
        buildColumns(q->m_resource);
    if (sortColumn >= static_cast<int>(columns.size()))
        sortColumn = -1;
    chunks.clear();
    cachedRows = 0;
    inFlight.clear();
    waiting.clear();
    keys.clear();
    keysKnown = false;
    rows = 0;
    const bool totalWasKnown = total >= 0;
    total = -1;
    const bool wasLoading = loading;
    loading = q->m_resource != nullptr;
    q->endResetModel();

    if (totalWasKnown)
        Q_EMIT q->totalCountChanged(total);
    if (loading != wasLoading)
        Q_EMIT q->loadingChanged(loading);
    if (q->m_resource == nullptr)
        return;

    DocumentLoadRequest request;
    request.query = query();
    request.firstRowCount = kChunkRows;
    for (const Column &column : columns)
        if (column.kind != ColumnKind::LastModified)
            request.cellPaths.push_back(column.path);
    DocumentLoader *target = loader;
    const quint64 forGeneration = generation;
    QMetaObject::invokeMethod(
        target, [target, forGeneration, request] { target->load(forGeneration, request); },
        Qt::QueuedConnection);
}

void DocumentTableModel::Private::setLoading(bool value)
{
    if (loading == value)
        return;
    loading = value;
    Q_EMIT q->loadingChanged(loading);
}

RowRef DocumentTableModel::Private::loadedRow(int row)
{
    const auto it = chunks.find(row / kChunkRows);
    if (it == chunks.end())
        return {};
    const int offset = row % kChunkRows;
    if (offset >= it->second.rows.size())
        return {};
    it->second.lastUse = ++useClock;
    return {&it->second.rows, offset};
}

void DocumentTableModel::Private::want(int chunk)
{
    // Before the key list arrives the model holds only the first rows, all of them loaded.
    if (!keysKnown || inFlight.contains(chunk))
        return;
    const auto known = std::find(waiting.begin(), waiting.end(), chunk);
    if (known != waiting.end())
        waiting.erase(known);
    waiting.push_back(chunk);
    if (waiting.size() > kMaxWaitingChunks)
        waiting.erase(waiting.begin()); // scrolled past long ago; asked again if shown again
    // A zero timer gathers every row one paint asks for into one round of requests.
    if (!dispatchTimer.isActive())
        dispatchTimer.start();
}

void DocumentTableModel::Private::dispatch()
{
    while (static_cast<int>(inFlight.size()) < kMaxChunksInFlight && !waiting.empty()) {
        const int chunk = waiting.back();
        waiting.pop_back();
        const int firstRow = chunk * kChunkRows;
        if (firstRow >= rows)
            continue;
        const int count = std::min(kChunkRows, rows - firstRow);
        const auto cached = chunks.find(chunk);
        if (cached != chunks.end() && cached->second.rows.size() == count)
            continue;
        inFlight.insert(chunk);
        DocumentLoader *target = loader;
        const quint64 forGeneration = generation;
        const QList<qint64> chunkKeys = keys.mid(firstRow, count);
        QMetaObject::invokeMethod(
            target,
            [target, forGeneration, firstRow, chunkKeys] {
                target->loadRows(forGeneration, firstRow, chunkKeys);
            },
            Qt::QueuedConnection);
    }
}

void DocumentTableModel::Private::evictLeastRecentlyUsed()
{
    if (cachedRows <= kMaxCachedRows)
        return;
    std::vector<std::pair<quint64, int>> byUse; // (last use, chunk)
    byUse.reserve(chunks.size());
    for (const auto &[index, chunk] : chunks)
        byUse.emplace_back(chunk.lastUse, index);
    std::sort(byUse.begin(), byUse.end());
    // Down to 90% so that eviction does not run again for every arriving chunk.
    const int target = kMaxCachedRows - kMaxCachedRows / 10;
    for (const auto &[lastUse, index] : byUse) {
        if (cachedRows <= target)
            break;
        const auto it = chunks.find(index);
        cachedRows -= static_cast<int>(it->second.rows.size());
        chunks.erase(it);
    }
}

void DocumentTableModel::Private::onFirstRows(quint64 forGeneration, const LoadedRows &firstRows)
{
    if (forGeneration != generation || keysKnown || rows > 0 || firstRows.isEmpty())
        return;
    q->beginInsertRows({}, 0, static_cast<int>(firstRows.size()) - 1);
    chunks[0] = Chunk{firstRows, ++useClock};
    cachedRows = static_cast<int>(firstRows.size());
    rows = static_cast<int>(firstRows.size());
    q->endInsertRows();
}

void DocumentTableModel::Private::onKeys(quint64 forGeneration, const QList<qint64> &docKeys)
{
    if (forGeneration != generation || keysKnown)
        return;
    const int count = static_cast<int>(std::min<qsizetype>(docKeys.size(), std::numeric_limits<int>::max()));
    // A write between the two reads can make the first rows disagree with the key list; the list wins.
    bool agrees = count >= rows;
    if (agrees && rows > 0) {
        const LoadedRows &shown = chunks[0].rows;
        for (int i = 0; i < rows && agrees; ++i)
            agrees = shown.docKey(i) == docKeys[i];
    }
    if (agrees) {
        if (count > rows) {
            q->beginInsertRows({}, rows, count - 1);
            keys = docKeys;
            keysKnown = true;
            rows = count;
            q->endInsertRows();
        } else {
            keys = docKeys;
            keysKnown = true;
        }
    } else {
        q->beginResetModel();
        chunks.clear();
        cachedRows = 0;
        keys = docKeys;
        keysKnown = true;
        rows = count;
        q->endResetModel();
    }
    // Both changes are in place before either signal goes out, so a slot of one sees the other.
    total = docKeys.size();
    const bool wasLoading = loading;
    loading = false;
    Q_EMIT q->totalCountChanged(total);
    if (wasLoading)
        Q_EMIT q->loadingChanged(false);
}

void DocumentTableModel::Private::onRows(quint64 forGeneration, int firstRow, const LoadedRows &loaded)
{
    if (forGeneration != generation)
        return;
    const int chunk = firstRow / kChunkRows;
    inFlight.erase(chunk);
    const int count = static_cast<int>(loaded.size());
    if (keysKnown && count > 0 && firstRow % kChunkRows == 0 && firstRow + count <= rows) {
        Chunk &target = chunks[chunk];
        cachedRows += count - static_cast<int>(target.rows.size());
        target.rows = loaded;
        target.lastUse = ++useClock;
        Q_EMIT q->dataChanged(q->index(firstRow, 0), q->index(firstRow + count - 1, q->columnCount() - 1));
        evictLeastRecentlyUsed();
    }
    dispatch();
}

void DocumentTableModel::Private::onFailed(quint64 forGeneration, int firstRow, const QString &message)
{
    if (forGeneration != 0 && forGeneration != generation)
        return;
    qWarning("Documents table: %s", qPrintable(message));
    if (firstRow >= 0) {
        inFlight.erase(firstRow / kChunkRows);
        dispatch();
    } else if (forGeneration == generation) {
        setLoading(false);
    }
}

DocumentTableModel::DocumentTableModel(const QString &databasePath, const steward::Model &model,
                                       QObject *parent)
    : QAbstractTableModel(parent)
    , d(std::make_unique<Private>(this))
{
    Q_UNUSED(model); // the resources set later belong to it; the columns need nothing else
    d->dispatchTimer.setSingleShot(true);
    d->dispatchTimer.setInterval(0);
    connect(&d->dispatchTimer, &QTimer::timeout, this, [this] { d->dispatch(); });

    d->thread = new QThread;
    d->thread->setObjectName(QStringLiteral("DocumentLoader"));
    d->loader = new DocumentLoader(databasePath);
    d->databasePath = databasePath;
    d->loader->moveToThread(d->thread);
    // Queued: the loader emits on its own thread, the model lives on the GUI thread.
    connect(d->loader, &DocumentLoader::firstRowsLoaded, this,
            [this](quint64 generation, const LoadedRows &rows) { d->onFirstRows(generation, rows); });
    connect(d->loader, &DocumentLoader::keysLoaded, this,
            [this](quint64 generation, const QList<qint64> &docKeys) { d->onKeys(generation, docKeys); });
    connect(d->loader, &DocumentLoader::rowsLoaded, this,
            [this](quint64 generation, int firstRow, const LoadedRows &rows) {
                d->onRows(generation, firstRow, rows);
            });
    connect(d->loader, &DocumentLoader::failed, this,
            [this](quint64 generation, int firstRow, const QString &message) {
                d->onFailed(generation, firstRow, message);
            });
    d->thread->start();
    QMetaObject::invokeMethod(d->loader, &DocumentLoader::open, Qt::QueuedConnection);
}

DocumentTableModel::~DocumentTableModel()
{
    // The one wait on the worker: shutting down. The interrupt makes it short.
    d->loader->cancelBefore(std::numeric_limits<quint64>::max());
    d->thread->quit();
    d->thread->wait();
    delete d->loader;
    delete d->thread;
}

void DocumentTableModel::setResource(const steward::ResourceSchema *resource)
{
    m_resource = resource;
    d->reload(true);
}

void DocumentTableModel::setFilter(const QString &naturalKeyPrefix)
{
    if (naturalKeyPrefix == m_filter)
        return;
    m_filter = naturalKeyPrefix;
    if (m_resource != nullptr)
        d->reload(false);
}

void DocumentTableModel::refresh()
{
    if (m_resource != nullptr)
        d->reload(false);
}

QString DocumentTableModel::documentId(int row) const
{
    if (row < 0 || row >= d->rows)
        return {};
    const RowRef loaded = d->loadedRow(row);
    return loaded ? loaded.id() : QString();
}

int DocumentTableModel::rowOfDocument(const QString &id) const
{
    if (id.isEmpty())
        return -1;
    for (const auto &[index, chunk] : d->chunks)
        for (qsizetype i = 0; i < chunk.rows.size(); ++i)
            if (chunk.rows.id(i) == id)
                return index * kChunkRows + static_cast<int>(i);
    return -1;
}

bool DocumentTableModel::isLoading() const
{
    return d->loading;
}

qint64 DocumentTableModel::totalCount() const
{
    return d->total;
}

int DocumentTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : d->rows;
}

int DocumentTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(d->columns.size());
}

QVariant DocumentTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.model() != this || index.row() >= d->rows
        || index.column() >= columnCount())
        return {};
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
    case Qt::DecorationRole:
    case DocumentIdRole:
    case NaturalKeyRole:
    case LoadedRole:
        break;
    default:
        return {};
    }
    const RowRef row = d->loadedRow(index.row());
    if (!row) {
        d->want(index.row() / kChunkRows);
        switch (role) {
        case Qt::DisplayRole:
            return kPlaceholder;
        case LoadedRole:
            return false;
        case DocumentIdRole:
        case NaturalKeyRole:
            return QString();
        default:
            return {};
        }
    }
    switch (role) {
    case Qt::DisplayRole:
        if (row.isDeleted())
            return index.column() == 0 ? tr("(deleted)") : QString();
        if (d->descriptorLabel && d->columns[static_cast<std::size_t>(index.column())].descriptor)
            return d->descriptorLabel(row.cell(index.column()));
        return row.cell(index.column());
    case Qt::ToolTipRole: {
        QString text = row.cell(index.column());
        const std::string worst = index.column() == 0 ? d->worstSeverityOf(row.id()) : std::string();
        if (!worst.empty())
            text += tr("\nOn record: %1 (the editor lists it)").arg(QString::fromStdString(worst));
        return text.isEmpty() ? QVariant() : QVariant(text);
    }
    case Qt::DecorationRole: {
        const std::string worst = index.column() == 0 ? d->worstSeverityOf(row.id()) : std::string();
        if (worst.empty())
            return {};
        const QStyle::StandardPixmap icon = worst == "fatal" || worst == "error" ? QStyle::SP_MessageBoxCritical
                                            : worst == "warning"                 ? QStyle::SP_MessageBoxWarning
                                                                                 : QStyle::SP_MessageBoxInformation;
        return QApplication::style()->standardIcon(icon);
    }
    case DocumentIdRole:
        return row.id();
    case NaturalKeyRole:
        return row.rows->naturalKey(row.index).toString();
    case LoadedRole:
        return true;
    default:
        return {};
    }
}

QVariant DocumentTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    const Column &column = d->columns[static_cast<std::size_t>(section)];
    if (role == Qt::DisplayRole)
        return column.header;
    if (role == Qt::ToolTipRole && column.kind != ColumnKind::LastModified)
        return QString::fromStdString(column.path.text());
    return {};
}

void DocumentTableModel::setDescriptorLabel(std::function<QString(const QString &uri)> label)
{
    d->descriptorLabel = std::move(label);
    if (rowCount() > 0 && columnCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {Qt::DisplayRole});
}

void DocumentTableModel::sort(int column, Qt::SortOrder order)
{
    // Without a resource there are no columns yet; the column is checked when one is set.
    if (column < 0 || (m_resource != nullptr && column >= columnCount()))
        column = -1;
    if (column == d->sortColumn && (column == -1 || order == d->sortOrder))
        return;
    d->sortColumn = column;
    d->sortOrder = order;
    if (m_resource != nullptr)
        d->reload(false);
}
