// The documents table over many Student documents, driven headless through DocumentTableModel: first
// page, key list, a jump deep into the table, a prefix filter and sorts, each measured from the request
// until the rows are in the model. Beside them, raw SQLite figures from the same run on the same file:
// count(*) and an OFFSET page at the same depth, which is why the table pages by keyset instead.
// Usage: bench_documents [documents]   (default 1000000)
#include "BenchSupport.h"
#include "DocumentTableModel.h"
#include "Engine.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

using namespace steward;

namespace {

constexpr int kTimeoutMs = 600000;

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string uniqueIdOf(int number)
{
    return QString::asprintf("S%07d", number).toStdString();
}

// Students straight into the documents table in one transaction (the table reads no aliases or refs).
void generateStudents(const std::string &path, const Model &model, int count)
{
    static const char *const firstNames[]
        = {"Ana", "Ben",  "Chloe", "Dmitri", "Esi", "Farah", "Gus",   "Hana", "Ivo",
           "Jun", "Kofi", "Lena",  "Mateo",  "Nia", "Omar",  "Priya", "Quinn"};
    static const char *const lastSurnames[]
        = {"Abara",  "Bianchi", "Castillo", "Dubois",   "Eriksen", "Fujita", "Garcia",
           "Haddad", "Ibrahim", "Jensen",   "Kowalski", "Lopez",   "Moreau", "Nakamura",
           "Okafor", "Petrov",  "Quispe",   "Rossi",    "Silva"};
    const ResourceSchema *students = model.findByEndpoint("ed-fi", "students");
    const IdentityCalculator identities(model);
    std::unique_ptr<Database> database = Database::open(path);
    SQLite::Database &db = database->connection();
    db.exec("PRAGMA cache_size=-131072"); // the two random-UUID indexes want their pages at hand
    ImmediateTransaction transaction(db);
    SQLite::Statement name(db, "INSERT INTO resources (project, resource) VALUES (?, ?) ON CONFLICT DO NOTHING");
    name.bind(1, students->projectName());
    name.bind(2, students->resourceName);
    name.exec();
    SQLite::Statement insert(db,
                             "INSERT INTO document_rows (id, resource_key, identity, body, etag, last_modified) "
                             "VALUES (steward_id_key(?), (SELECT resource_key FROM resources WHERE project = ? AND "
                             "resource = ?), ?, ?, steward_hex_key(?), steward_time_key(?))");
    // A document's referential id is its own alias's.
    SQLite::Statement alias(db, "INSERT INTO alias_rows (referential_id, doc_key, resource_key) "
                                "SELECT ?, doc_key, resource_key FROM document_rows WHERE doc_key = last_insert_rowid()");
    const qint64 epoch = 1700000000;
    for (int number = 1; number <= count; ++number) {
        const Json body{
            {"studentUniqueId", uniqueIdOf(number)},
            {"firstName", firstNames[number % 17]},
            {"middleName", firstNames[(number / 17) % 17]},
            {"lastSurname", lastSurnames[(number / 289) % 19]},
            {"birthDate",
             QString::asprintf("20%02d-%02d-%02d", 5 + number % 10, 1 + number % 12, 1 + number % 28)
                 .toStdString()},
            {"birthCity", "Austin"},
            {"birthSexDescriptor",
             number % 2 ? "uri://ed-fi.org/SexDescriptor#Female" : "uri://ed-fi.org/SexDescriptor#Male"}};
        const Json identity = identities.identityObject(*students, body);
        const Uuid referentialId = identities.documentIdentity(*students, body)->referentialId();
        const std::string when
            = QDateTime::fromSecsSinceEpoch(epoch + (static_cast<qint64>(number) * 7919) % 10000019, Qt::UTC)
                  .toString(Qt::ISODate)
                  .toStdString();
        insert.bind(1, Uuid::random().toString());
        insert.bind(2, students->projectName());
        insert.bind(3, students->resourceName);
        insert.bind(4, dumpJson(identity));
        insert.bind(5, dumpJson(body));
        insert.bind(6, QString::asprintf("%016x", number).toStdString());
        insert.bind(7, when);
        insert.exec();
        insert.reset();
        alias.bind(1, referentialId.bytes.data(), static_cast<int>(referentialId.bytes.size()));
        alias.exec();
        alias.reset();
    }
    transaction.commit();
}

// Runs the event loop until the condition holds, checking whenever the model announces a change.
bool runUntil(DocumentTableModel &model, const std::function<bool()> &done)
{
    if (done())
        return true;
    QEventLoop loop;
    const auto check = [&] {
        if (done())
            loop.quit();
    };
    QObject::connect(&model, &QAbstractItemModel::rowsInserted, &loop, check);
    QObject::connect(&model, &QAbstractItemModel::dataChanged, &loop, check);
    QObject::connect(&model, &QAbstractItemModel::modelReset, &loop, check);
    QObject::connect(&model, &DocumentTableModel::totalCountChanged, &loop, check);
    QObject::connect(&model, &DocumentTableModel::loadingChanged, &loop, check);
    QTimer::singleShot(kTimeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    return done();
}

bool isLoaded(const DocumentTableModel &model, int row)
{
    return model.data(model.index(row, 0), DocumentTableModel::LoadedRole).toBool();
}

bool firstRowsShown(const DocumentTableModel &model)
{
    return model.rowCount() > 0 && isLoaded(model, 0);
}

bool keysKnown(const DocumentTableModel &model)
{
    return !model.isLoading() && model.totalCount() >= 0;
}

struct Timing
{
    double firstRowsMs = 0;
    double keysMs = 0;
};

// From a reset-causing call until the first rows are in the model, and until the key list is.
Timing timeReload(DocumentTableModel &model, const std::function<void()> &request)
{
    Timing timing;
    const Clock::time_point start = Clock::now();
    request();
    runUntil(model, [&] { return firstRowsShown(model) || keysKnown(model); });
    timing.firstRowsMs = msSince(start);
    runUntil(model, [&] { return keysKnown(model); });
    timing.keysMs = msSince(start);
    return timing;
}

double timeRowArrival(DocumentTableModel &model, int row)
{
    const Clock::time_point start = Clock::now();
    model.data(model.index(row, 0)); // what a view's paint does
    runUntil(model, [&] { return isLoaded(model, row); });
    return msSince(start);
}

struct SqlFigure
{
    double ms = 0;
    long long rows = 0;
    long long firstValue = 0; // the first column of the first row
};

SqlFigure timeSql(SQLite::Database &db, const std::string &sql,
                  const std::function<void(SQLite::Statement &)> &bind)
{
    SqlFigure figure;
    const Clock::time_point start = Clock::now();
    SQLite::Statement statement(db, sql);
    bind(statement);
    while (statement.executeStep()) {
        if (figure.rows == 0)
            figure.firstValue = statement.getColumn(0).getInt64();
        ++figure.rows;
    }
    figure.ms = msSince(start);
    return figure;
}

void line(const char *what, double ms, const std::string &note = {})
{
    std::printf("  %-46s %10.1f ms   %s\n", what, ms, note.c_str());
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int count = argc > 1 ? std::max(1000, std::atoi(argv[1])) : 1000000;
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("steward.db")).toStdString();
    std::unique_ptr<Model> model = Model::loadStarter();
    const ResourceSchema *students = model->findByEndpoint("ed-fi", "students");
    const ResourceSchema *schools = model->findByEndpoint("ed-fi", "schools");

    std::printf("Steward documents table benchmark: %d Student documents, starter model\n\n", count);
    Clock::time_point start = Clock::now();
    generateStudents(path, *model, count);
    std::printf("  %-46s %10.1f ms   (one transaction of INSERTs, WAL checkpointed on close)\n",
                "generate documents", msSince(start));
    const bool peakReset = resetPeakRss();

    DocumentTableModel table(QString::fromStdString(path), *model);
    // An empty resource first, as the app shows one before the user picks Student: the connection is open.
    table.setResource(schools);
    runUntil(table, [&] { return keysKnown(table); });

    std::printf("\nDocumentTableModel (request -> rows in the model; GUI thread never waits)\n");
    const Timing open = timeReload(table, [&] { table.setResource(students); });
    line("first page (200 rows)", open.firstRowsMs, "target < 100 ms");
    line("key list, creation order", open.keysMs, "count " + std::to_string(table.totalCount()));

    const int deep = std::min(900000, count * 9 / 10);
    const double jumpMs = timeRowArrival(table, deep);
    line(("jump to row " + std::to_string(deep)).c_str(), jumpMs,
         "target < 50 ms; shows " + table.data(table.index(deep, 0)).toString().toStdString());
    const double lastRowMs = timeRowArrival(table, count - 1);
    line("jump to the last row", lastRowMs,
         "shows " + table.data(table.index(count - 1, 0)).toString().toStdString());

    // A long scroll: chunk after chunk across the table, more rows than the cache keeps (50,000).
    const int sweepChunks = std::min(300, count / 200);
    const int stride = count / sweepChunks;
    start = Clock::now();
    double slowestChunkMs = 0;
    for (int i = 0; i < sweepChunks; ++i)
        slowestChunkMs = std::max(slowestChunkMs, timeRowArrival(table, i * stride));
    const double sweepMs = msSince(start);
    const bool firstSweptKept = isLoaded(table, 0);
    line(("scroll through " + std::to_string(sweepChunks) + " chunks, per chunk").c_str(),
         sweepMs / sweepChunks,
         "slowest " + std::to_string(static_cast<int>(slowestChunkMs)) + " ms; first chunk "
             + (firstSweptKept ? "still cached" : "evicted (cache bounded)"));

    // A prefix that matches ten documents: numbers m..m+9 share all but the last digit.
    const int tenth = std::max(10, (count * 9 / 10) / 10 * 10);
    const std::string prefix = uniqueIdOf(tenth).substr(0, 7);
    const Timing filter = timeReload(table, [&] { table.setFilter(QString::fromStdString(prefix)); });
    line(("filter natural key \"" + prefix + "\"").c_str(), filter.firstRowsMs, "target < 50 ms");
    line("filter, key list", filter.keysMs, "count " + std::to_string(table.totalCount()));
    const Timing unfilter = timeReload(table, [&] { table.setFilter(QString()); });
    line("clear filter, first page", unfilter.firstRowsMs);

    const Timing byKey = timeReload(table, [&] { table.sort(0, Qt::DescendingOrder); });
    line("sort studentUniqueId desc (index), first page", byKey.firstRowsMs);
    line("sort studentUniqueId desc, key list", byKey.keysMs);
    const Timing byJson = timeReload(table, [&] { table.sort(2, Qt::AscendingOrder); });
    line("sort lastSurname (json_extract), first page", byJson.firstRowsMs, "reads every body");
    line("sort lastSurname, key list", byJson.keysMs);
    line(("sorted, jump to row " + std::to_string(deep)).c_str(), timeRowArrival(table, deep));
    const Timing back = timeReload(table, [&] { table.sort(-1); });
    line("back to creation order, first page", back.firstRowsMs);

    const double peakMb = procStatusMb("VmHWM:");
    const double nowMb = procStatusMb("VmRSS:");

    // Baseline: the same questions asked of SQLite directly, on a fresh read-only connection.
    std::printf("\nBaseline: raw SQLite on the same file\n");
    SQLite::Database raw(path, SQLite::OPEN_READONLY);
    Database::registerFunctions(raw); // natural_key and steward_text() are the engine's SQL functions
    const auto bindStudents = [&](SQLite::Statement &s) {
        s.bind(1, students->projectName());
        s.bind(2, students->resourceName);
    };
    const std::string rowColumns
        = "SELECT doc_key, id, natural_key, identity, body, last_modified FROM documents "
          "WHERE project = ? AND resource = ? ";
    SqlFigure figure
        = timeSql(raw, "SELECT count(*) FROM documents WHERE project = ? AND resource = ?", bindStudents);
    line("SELECT count(*)", figure.ms,
         std::to_string(figure.firstValue) + " (a count alone costs about a key list)");
    figure = timeSql(raw, "SELECT doc_key FROM documents WHERE project = ? AND resource = ? ORDER BY doc_key",
                     bindStudents);
    line("SELECT doc_key ... ORDER BY doc_key (all keys)", figure.ms, std::to_string(figure.rows) + " rows");
    figure = timeSql(raw, rowColumns + "ORDER BY doc_key LIMIT 200", bindStudents);
    line("first 200 rows (LIMIT)", figure.ms);
    figure = timeSql(raw, rowColumns + "ORDER BY doc_key LIMIT 200 OFFSET " + std::to_string(deep),
                     bindStudents);
    line(("LIMIT 200 OFFSET " + std::to_string(deep)).c_str(), figure.ms, "walks every row before it");
    figure = timeSql(raw,
                     rowColumns + "ORDER BY json_extract(body, '$.lastSurname'), doc_key LIMIT 200 OFFSET "
                         + std::to_string(deep),
                     bindStudents);
    line("sorted by lastSurname, LIMIT 200 OFFSET deep", figure.ms, "every page of a sorted table pays this");
    std::printf("\n  %-46s %10.1f MB   %s\n", "peak RSS (after generation)", peakMb,
                peakReset ? "" : "(could not reset; includes the generator)");
    std::printf("  %-46s %10.1f MB\n", "RSS now", nowMb);
    return 0;
}
