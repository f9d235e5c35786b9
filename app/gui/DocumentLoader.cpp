#include "DocumentLoader.h"

#include "Json.h"

#include <algorithm>
#include <cstddef>

namespace {

QString cellText(const steward::Json *value)
{
    if (value == nullptr || value->is_null())
        return {};
    if (value->is_string())
        return QString::fromStdString(value->get<std::string>());
    return QString::fromStdString(steward::dumpJson(*value));
}

// Orders that SQLite can only give after reading every row: ask for the keys first and take the first
// rows from them, instead of paying for the full scan twice.
bool needsFullScan(const steward::DocumentQuery &query)
{
    return query.order == steward::DocumentQuery::Order::JsonPath
        || query.order == steward::DocumentQuery::Order::LastModified;
}

// Runs one read; when it was interrupted although its request is still current (an interrupt meant for an
// older request landed on it), runs it once more.
template <typename IsStale, typename Read>
auto readRetryingOnce(IsStale isStale, Read read) -> decltype(read())
{
    try {
        return read();
    } catch (const steward::ReadInterrupted &) {
        if (isStale())
            throw;
    }
    return read();
}

} // namespace

LoadedRows::LoadedRows(int cellsPerRow)
    : m_cellsPerRow(cellsPerRow)
{
}

void LoadedRows::appendField(QStringView text)
{
    m_text.append(text);
    m_fieldEnds.append(static_cast<int>(m_text.size()));
}

void LoadedRows::append(qint64 docKey, QStringView id, QStringView naturalKey, const QStringList &cells)
{
    Q_ASSERT(cells.size() == m_cellsPerRow);
    m_docKeys.append(docKey);
    appendField(id);
    appendField(naturalKey);
    for (const QString &text : cells)
        appendField(text);
}

void LoadedRows::appendMissing(qint64 docKey)
{
    m_docKeys.append(docKey);
    for (int i = 0; i < fieldsPerRow(); ++i)
        appendField({});
}

QStringView LoadedRows::cell(qsizetype row, int column) const
{
    if (column < 0 || column >= m_cellsPerRow)
        return {};
    return field(row, column + 2);
}

QStringView LoadedRows::field(qsizetype row, int field) const
{
    const qsizetype index = row * fieldsPerRow() + field;
    const int start = index == 0 ? 0 : m_fieldEnds.at(index - 1);
    return QStringView(m_text).mid(start, m_fieldEnds.at(index) - start);
}

DocumentLoader::DocumentLoader(QString databasePath, QObject *parent)
    : QObject(parent)
    , m_databasePath(std::move(databasePath))
{
    qRegisterMetaType<LoadedRows>();
}

DocumentLoader::~DocumentLoader()
{
    close();
}

void DocumentLoader::cancelBefore(quint64 generation)
{
    quint64 newest = m_newestGeneration.load();
    while (newest < generation && !m_newestGeneration.compare_exchange_weak(newest, generation)) {
    }
    std::lock_guard<std::mutex> lock(m_readerMutex);
    if (m_reader)
        m_reader->interrupt();
}

void DocumentLoader::open()
{
    try {
        auto reader = std::make_unique<steward::DocumentReader>(m_databasePath.toStdString());
        // Work that became stale between two statements is stopped at the next one.
        reader->setCancellationCheck([this] { return isStale(m_currentGeneration.load()); });
        std::lock_guard<std::mutex> lock(m_readerMutex);
        m_reader = std::move(reader);
    } catch (const std::exception &e) {
        Q_EMIT failed(0, -1, QString::fromStdString(e.what()));
    }
}

void DocumentLoader::close()
{
    std::lock_guard<std::mutex> lock(m_readerMutex);
    m_reader.reset();
}

void DocumentLoader::load(quint64 generation, const DocumentLoadRequest &request)
{
    if (isStale(generation))
        return;
    m_currentGeneration = generation;
    m_cellPaths = request.cellPaths;
    if (!m_reader) {
        Q_EMIT failed(generation, -1, tr("The database is not open."));
        return;
    }
    try {
        loadInOrder(generation, request);
    } catch (const steward::ReadInterrupted &) {
        if (!isStale(generation))
            Q_EMIT failed(generation, -1, tr("Loading was interrupted."));
    } catch (const std::exception &e) {
        if (!isStale(generation))
            Q_EMIT failed(generation, -1, QString::fromStdString(e.what()));
    }
}

void DocumentLoader::loadInOrder(quint64 generation, const DocumentLoadRequest &request)
{
    const auto stale = [this, generation] { return isStale(generation); };
    steward::DocumentReader &reader = *m_reader;
    if (needsFullScan(request.query)) {
        const std::vector<std::int64_t> keys
            = readRetryingOnce(stale, [&] { return reader.keys(request.query); });
        if (stale())
            return;
        const std::size_t firstCount = std::min<std::size_t>(keys.size(), std::max(0, request.firstRowCount));
        const std::vector<std::int64_t> firstKeys(keys.begin(),
                                                  keys.begin() + static_cast<std::ptrdiff_t>(firstCount));
        const LoadedRows firstRows
            = toLoadedRows(readRetryingOnce(stale, [&] { return reader.rows(firstKeys); }));
        if (stale())
            return;
        Q_EMIT firstRowsLoaded(generation, firstRows);
        Q_EMIT keysLoaded(generation, QList<qint64>(keys.begin(), keys.end()));
        return;
    }
    const LoadedRows firstRows = toLoadedRows(
        readRetryingOnce(stale, [&] { return reader.firstRows(request.query, request.firstRowCount); }));
    if (stale())
        return;
    Q_EMIT firstRowsLoaded(generation, firstRows);
    const std::vector<std::int64_t> keys
        = readRetryingOnce(stale, [&] { return reader.keys(request.query); });
    if (stale())
        return;
    Q_EMIT keysLoaded(generation, QList<qint64>(keys.begin(), keys.end()));
}

void DocumentLoader::loadRows(quint64 generation, int firstRow, const QList<qint64> &docKeys)
{
    if (isStale(generation))
        return;
    m_currentGeneration = generation;
    if (!m_reader) {
        Q_EMIT failed(generation, firstRow, tr("The database is not open."));
        return;
    }
    try {
        const std::vector<std::int64_t> keys(docKeys.begin(), docKeys.end());
        const std::vector<steward::DocumentRow> found = readRetryingOnce(
            [this, generation] { return isStale(generation); }, [&] { return m_reader->rows(keys); });
        if (isStale(generation))
            return;
        // One entry per key, in order, so the model can place them without searching.
        LoadedRows out(static_cast<int>(m_cellPaths.size() + 1));
        std::size_t next = 0;
        for (const qint64 key : docKeys) {
            if (next < found.size() && found[next].docKey == key)
                appendRow(out, found[next++]);
            else
                out.appendMissing(key);
        }
        Q_EMIT rowsLoaded(generation, firstRow, out);
    } catch (const steward::ReadInterrupted &) {
        if (!isStale(generation))
            Q_EMIT failed(generation, firstRow, tr("Loading was interrupted."));
    } catch (const std::exception &e) {
        if (!isStale(generation))
            Q_EMIT failed(generation, firstRow, QString::fromStdString(e.what()));
    }
}

void DocumentLoader::appendRow(LoadedRows &out, const steward::DocumentRow &row) const
{
    QStringList cells;
    cells.reserve(static_cast<qsizetype>(m_cellPaths.size() + 1));
    // Stored bodies were validated on the way in; a damaged one still shows its row, with empty cells.
    const steward::Json body = steward::Json::parse(row.body, nullptr, false);
    for (const steward::JsonPath &path : m_cellPaths)
        cells.append(body.is_discarded() ? QString() : cellText(path.resolve(body, {})));
    cells.append(QString::fromStdString(row.lastModified));
    out.append(row.docKey, QString::fromStdString(row.id), QString::fromStdString(row.naturalKey), cells);
}

LoadedRows DocumentLoader::toLoadedRows(const std::vector<steward::DocumentRow> &rows) const
{
    LoadedRows out(static_cast<int>(m_cellPaths.size() + 1));
    for (const steward::DocumentRow &row : rows)
        appendRow(out, row);
    return out;
}
