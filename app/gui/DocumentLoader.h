#pragma once

#include "DocumentReader.h"
#include "JsonPath.h"

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

// Rows as the documents table shows them, made ready on the loader's thread. Packed into one text
// buffer with an offset table: a chunk of a few hundred rows is a handful of allocations, so dropping
// tens of thousands of cached rows on a reset is cheap (one allocation per cell made the GUI thread
// spend tens of milliseconds in free(), and the loader as much again in malloc's consolidation).
// Implicitly shared: copying through a queued signal costs nothing.
class LoadedRows
{
public:
    LoadedRows() = default;
    explicit LoadedRows(int cellsPerRow);

    // A document that exists: id, natural key, then exactly cellsPerRow cells.
    void append(qint64 docKey, QStringView id, QStringView naturalKey, const QStringList &cells);
    // A key whose document was deleted after the key list was read: empty id and cells.
    void appendMissing(qint64 docKey);

    qsizetype size() const { return m_docKeys.size(); }
    bool isEmpty() const { return m_docKeys.isEmpty(); }
    qint64 docKey(qsizetype row) const { return m_docKeys.at(row); }
    QStringView id(qsizetype row) const { return field(row, 0); }
    QStringView naturalKey(qsizetype row) const { return field(row, 1); }
    QStringView cell(qsizetype row, int column) const;
    int cellsPerRow() const { return m_cellsPerRow; }

private:
    int fieldsPerRow() const { return m_cellsPerRow + 2; }
    QStringView field(qsizetype row, int field) const;
    void appendField(QStringView text);

    int m_cellsPerRow = 0;
    QList<qint64> m_docKeys;
    QString m_text;
    QList<int> m_fieldEnds; // end offset in m_text of each field, row after row
};

// What to load and how each row becomes cells.
struct DocumentLoadRequest
{
    steward::DocumentQuery query;
    std::vector<steward::JsonPath> cellPaths; // values taken from the body, one per column
    int firstRowCount = 200;
};

Q_DECLARE_METATYPE(LoadedRows)

// Reads documents for DocumentTableModel on a worker thread, with its own read-only connection.
// Call its slots with queued calls only; every request carries a generation and every answer repeats
// it. Requests older than the newest generation announced by cancelBefore() are skipped, and the
// statement running for one of them is interrupted.
class DocumentLoader : public QObject
{
    Q_OBJECT

public:
    explicit DocumentLoader(QString databasePath, QObject *parent = nullptr);
    ~DocumentLoader() override;

    // Thread-safe, never blocks: from now on, work for generations before this one is abandoned.
    void cancelBefore(quint64 generation);

public Q_SLOTS:
    // Opens the connection (on the worker thread); failures come back as failed(0, -1, message).
    void open();
    // First rows (firstRowsLoaded), then the whole ordered key list (keysLoaded).
    void load(quint64 generation, const DocumentLoadRequest &request);
    // The rows of these keys, in this order, for the rows starting at firstRow (rowsLoaded).
    void loadRows(quint64 generation, int firstRow, const QList<qint64> &docKeys);
    // Closes the connection; the loader can be deleted from another thread afterwards.
    void close();

Q_SIGNALS:
    void firstRowsLoaded(quint64 generation, const LoadedRows &rows);
    void keysLoaded(quint64 generation, const QList<qint64> &docKeys);
    // One entry per requested key; a deleted document's entry has an empty id.
    void rowsLoaded(quint64 generation, int firstRow, const LoadedRows &rows);
    // firstRow is -1 when the first rows or the key list failed.
    void failed(quint64 generation, int firstRow, const QString &message);

private:
    bool isStale(quint64 generation) const { return generation < m_newestGeneration.load(); }
    void appendRow(LoadedRows &out, const steward::DocumentRow &row) const;
    LoadedRows toLoadedRows(const std::vector<steward::DocumentRow> &rows) const;
    void loadInOrder(quint64 generation, const DocumentLoadRequest &request);

    QString m_databasePath;
    std::unique_ptr<steward::DocumentReader> m_reader;
    std::mutex m_readerMutex; // guards m_reader's lifetime against cancelBefore() from the GUI thread
    std::atomic<quint64> m_newestGeneration{0};
    std::atomic<quint64> m_currentGeneration{0}; // of the request being worked on
    std::vector<steward::JsonPath> m_cellPaths;  // of the newest load() request
};
