// Import, save, delete-check and export figures on a generated district, beside a baseline
// measured in the same run: the same documents' bytes inserted into one plain SQLite table in
// one transaction; and beside the floor of an import's writer, the rows integrity needs and nothing
// else (IntegrityFloor.h). Usage: bench_import [documents]   (default 100000; large run: 1000000)
#include "BenchSupport.h"
#include "Engine.h"
#include "Exporter.h"
#include "Generator.h"
#include "ImportSource.h"
#include "Importer.h"
#include "IntegrityFloor.h"
#include "PostgresDesign.h"

#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <thread>

using namespace steward;

namespace {

struct Latency
{
    double p50 = 0;
    double p99 = 0;
};

Latency percentiles(std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)]};
}

Request request(const std::string &method, const std::string &path, const Json &body = nullptr)
{
    return Request::make(method, path, "bench", body);
}

// The input: a generated district of about `target` documents; returns how many it holds.
std::int64_t generateInput(const std::string &input, std::int64_t target)
{
    const std::int64_t students = std::max<std::int64_t>(10, target / 10);
    const Clock::time_point t0 = Clock::now();
    const std::int64_t documents = writeDistrictFile(input, students);
    std::printf("Steward import benchmark: %lld documents (%lld students), %u cores\n\n",
                static_cast<long long>(documents), static_cast<long long>(students),
                std::thread::hardware_concurrency());
    std::printf("generate                       %8.1f s\n", seconds(t0, Clock::now()));
    return documents;
}

// Baseline: the same bytes into one plain table in one transaction; returns its docs/s.
double measureBaseline(const QTemporaryDir &dir, const std::string &input, std::int64_t documents)
{
    SQLite::Database db(dir.filePath("baseline.db").toStdString(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE docs (k INTEGER PRIMARY KEY, body TEXT)");
    SQLite::Statement insert(db, "INSERT INTO docs (body) VALUES (?)");
    std::ifstream in(input);
    std::string line;
    const Clock::time_point t0 = Clock::now();
    db.exec("BEGIN");
    while (std::getline(in, line)) {
        insert.reset();
        insert.bind(1, line);
        insert.exec();
    }
    db.exec("COMMIT");
    const double baselineRate = documents / seconds(t0, Clock::now());
    std::printf("baseline: plain insert, 1 txn  %8.0f docs/s\n", baselineRate);
    return baselineRate;
}

// The work an import does per document before SQLite sees it, on one thread with nothing to
// wait for: what one preparing core can feed a writer at most.
double g_prepareMicros = 0; // measurePrepareOnly's cost per document, for the model of more threads

void measurePrepareOnly(const Engine &engine, const Model &model, const std::string &input)
{
    std::string error;
    std::unique_ptr<ImportSource> source = openImportSource(input, model, &error);
    std::int64_t prepared = 0;
    const Clock::time_point t0 = Clock::now();
    ImportItem item;
    while (source && source->next(item)) {
        const ResourceSchema *resource = model.findByPath(item.resource);
        if (resource != nullptr && item.body && !engine.preparePost(*resource, std::move(*item.body)).refusal)
            ++prepared;
        item = ImportItem();
    }
    const double rate = prepared / seconds(t0, Clock::now());
    g_prepareMicros = 1e6 / rate;
    std::printf("prepare only, 1 thread         %8.0f docs/s   (%.1f us each: parse, validate, identities, "
                "stored text)\n",
                rate, 1e6 / rate);
}

double measureImportInOrder(Engine &engine, const Model &model, const std::string &input, std::int64_t documents,
                            double baselineRate)
{
    ImportOptions options;
    options.paths = {input};
    Clock::time_point applyStart;
    Clock::time_point tenPercent;
    Clock::time_point ninetyPercent;
    Clock::time_point indexing;
    std::int64_t atTen = 0;
    std::int64_t atNinety = 0;
    const Clock::time_point t0 = Clock::now();
    const ImportReport report = importFiles(engine, model, options, [&](const ImportProgress &p) {
        if (p.phase == "indexing" && indexing == Clock::time_point())
            indexing = Clock::now();
        if (p.phase != "applying")
            return true;
        if (applyStart == Clock::time_point())
            applyStart = Clock::now();
        if (atTen == 0 && p.items >= p.itemsTotal / 10) {
            tenPercent = Clock::now();
            atTen = p.items;
        }
        if (atNinety == 0 && p.items >= p.itemsTotal * 9 / 10) {
            ninetyPercent = Clock::now();
            atNinety = p.items;
        }
        return true;
    });
    const auto t1 = Clock::now();
    const double importRate = documents / seconds(t0, t1);
    std::printf("import, input in load order    %8.0f docs/s   (%.2fx the baseline; %lld created, %lld drafts)\n",
                importRate, importRate / baselineRate, static_cast<long long>(report.totals.created),
                static_cast<long long>(report.totals.drafts));
    if (atTen > 0 && atNinety > atTen) {
        std::printf("  before applying (scan)       %8.1f s\n", seconds(t0, applyStart));
        std::printf("  first 10%% applied            %8.0f docs/s\n", atTen / seconds(applyStart, tenPercent));
        const Clock::time_point applied = indexing == Clock::time_point() ? t1 : indexing;
        std::printf("  last 10%% applied             %8.0f docs/s\n",
                    (documents - atNinety) / seconds(ninetyPercent, applied));
        if (indexing != Clock::time_point())
            std::printf("  deferred indexes built       %8.1f s\n", seconds(indexing, t1));
    }
    return importRate;
}

// Input in load order with 1 and 2 preparing threads (--jobs), each into a fresh database; CPU per
// document (user + sys of the whole process); and what 8 and 16 would give on as many cores, modelled
// as the slower of the writer (CPU per document less the preparing) and the preparing shared out.
struct JobsFigures
{
    double oneThreadMicros = 0;
    double writerMicros = 0;
};

JobsFigures measureJobs(const QTemporaryDir &dir, const Model &model, const std::string &input, std::int64_t documents)
{
    double writerMicros = 0;
    double oneThreadMicros = 0;
    for (int jobs : {1, 2}) {
        const std::string path = dir.filePath(QStringLiteral("jobs%1.db").arg(jobs)).toStdString();
        std::unique_ptr<Database> database = Database::open(path);
        database->startBackgroundCheckpoints();
        Engine engine(model, *database);
        ImportOptions options;
        options.paths = {input};
        options.jobs = jobs;
        const double cpu0 = processCpuSeconds();
        const Clock::time_point t0 = Clock::now();
        const ImportReport report = importFiles(engine, model, options);
        const double wall = seconds(t0, Clock::now());
        const double cpuMicros = (processCpuSeconds() - cpu0) * 1e6 / static_cast<double>(documents);
        if (jobs == 1) {
            oneThreadMicros = cpuMicros;
            writerMicros = std::max(1.0, cpuMicros - g_prepareMicros);
        }
        std::printf("import, --jobs %d               %8.0f docs/s   (%.1f us CPU per document; %lld created)\n", jobs,
                    static_cast<double>(documents) / wall, cpuMicros, static_cast<long long>(report.totals.created));
    }
    for (int jobs : {8, 16}) {
        const double micros = std::max(writerMicros, g_prepareMicros / jobs);
        std::printf("import, --jobs %-2d (modelled)   %8.0f docs/s   (writer, checkpoints, index builds %.1f us; "
                    "preparing %.1f us / %d threads)\n",
                    jobs, 1e6 / micros, writerMicros, g_prepareMicros, jobs);
    }
    return {oneThreadMicros, writerMicros};
}

// What the database takes against the document text it holds (current bodies and the older
// versions the change log keeps), after a checkpoint; and the largest tables and indexes.
void printStorage(const std::string &label, SQLite::Database &db)
{
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    // The text, not its stored form (BodyCodec compresses it).
    const double text =
        static_cast<double>(db.execAndGet("SELECT coalesce(sum(length(steward_text(body))), 0) FROM documents").getInt64()
                            + db.execAndGet("SELECT coalesce(sum(length(steward_text(body))), 0) FROM changes").getInt64());
    const double bytes = static_cast<double>(db.execAndGet("PRAGMA page_count").getInt64()
                                             * db.execAndGet("PRAGMA page_size").getInt64());
    std::printf("storage, %-22s %8.1f MB for %.1f MB of document text (%.2fx; target 1.5x)\n", label.c_str(),
                bytes / 1e6, text / 1e6, bytes / text);
    SQLite::Statement stored(db, "SELECT count(*), coalesce(sum(typeof(body) = 'blob'), 0), coalesce(sum(length(body)), 0) "
                                 "FROM documents");
    stored.executeStep();
    std::printf("  bodies as stored: %.1f MB; %lld of %lld compressed with their resource's dictionary\n",
                static_cast<double>(stored.getColumn(2).getInt64()) / 1e6,
                static_cast<long long>(stored.getColumn(1).getInt64()), static_cast<long long>(stored.getColumn(0).getInt64()));
    SQLite::Statement largest(db, "SELECT name, sum(pgsize) AS size FROM dbstat GROUP BY name ORDER BY size DESC LIMIT 8");
    std::string line = "  largest:";
    while (largest.executeStep())
        line += " " + largest.getColumn(0).getString() + " "
                + std::to_string(static_cast<int>(largest.getColumn(1).getInt64() / 1000000)) + " MB,";
    line.pop_back();
    std::printf("%s\n", line.c_str());
}

// The imported rows written again with nothing but what referential integrity needs (IntegrityFloor.h):
// how far below the writer's share SQLite itself lets it go.
void measureFloor(const QTemporaryDir &dir, double writerMicros)
{
    const IntegrityFloorResult floor = measureIntegrityFloor(
        dir.filePath("steward.db").toStdString(), dir.filePath("floor.db").toStdString(), ImportOptions().chunkSize);
    std::printf("floor: integrity's rows only   %8.0f docs/s   (%.1f us CPU per document: a document, change, alias and "
                "reference rows, resolved through the alias index; %lld references, %lld unresolved)\n",
                floor.docsPerSecond, floor.cpuMicros, floor.references, floor.unresolved);
    std::printf("  with an API's lookups        %8.1f us CPU per document (and indexes by id, a collection's page and "
                "referencing documents, built at the end); the writer's share above: %.1f us\n",
                floor.cpuMicrosWithLookups, writerMicros);
    QFile::remove(dir.filePath("floor.db"));
}

// The same generated district under the full DS 5.1 model (when ../shared holds it), one preparing
// thread as for the starter model above: CPU per document, docs/s and storage, beside the starter's.
void measureDs51(const QTemporaryDir &dir, const std::string &input, std::int64_t documents, double starterMicros)
{
    const std::string schema = std::string(STEWARD_SHARED_DIR) + "/edfi/ds-5.1/ApiSchema.json";
    if (!QFile::exists(QString::fromStdString(schema))) {
        std::printf("import, full DS 5.1 model      skipped: %s is not here\n", schema.c_str());
        return;
    }
    std::unique_ptr<Model> model = Model::loadFiles({schema});
    const std::string path = dir.filePath("ds51.db").toStdString();
    std::unique_ptr<Database> database = Database::open(path);
    database->startBackgroundCheckpoints();
    Engine engine(*model, *database);
    ImportOptions options;
    options.paths = {input};
    options.jobs = 1;
    const double cpu0 = processCpuSeconds();
    const Clock::time_point t0 = Clock::now();
    const ImportReport report = importFiles(engine, *model, options);
    const double wall = seconds(t0, Clock::now());
    const double cpuMicros = (processCpuSeconds() - cpu0) * 1e6 / static_cast<double>(documents);
    std::printf("import, full DS 5.1, --jobs 1  %8.0f docs/s   (%.1f us CPU per document, %.2fx the starter model's; "
                "%lld created, %lld drafts)\n",
                static_cast<double>(documents) / wall, cpuMicros, cpuMicros / starterMicros,
                static_cast<long long>(report.totals.created), static_cast<long long>(report.totals.drafts));
    printStorage("full DS 5.1", database->connection());
}

// The same documents stored in the PostgreSQL design of Ed-Fi's document store, beside this import.
void measurePostgres(const QTemporaryDir &dir, const Model &model, const Engine &engine, const std::string &input,
                     double importRate)
{
    const PostgresDesignResult design = measurePostgresDesign(dir.path(), model, engine, input);
    if (!design.ran) {
        std::printf("PostgreSQL document-store design  skipped: %s\n", design.skipped.c_str());
        return;
    }
    std::printf("PostgreSQL document-store design %6.0f docs/s   (validated beforehand, a prepared statement a "
                "document over a Unix socket; this import is %.2fx it; %.1f MB)\n",
                design.docsPerSecond, importRate / design.docsPerSecond, design.megabytes);
}

// The same documents through the spool: the first line (a descriptor that later lines use) moved
// to the end, so the input is no longer in load order and must be read and sorted first.
void measureImportOutOfOrder(const QTemporaryDir &dir, const Model &model, const std::string &input,
                             std::int64_t documents, double baselineRate)
{
    const std::string shuffled = dir.filePath("out-of-order.ndjson").toStdString();
    {
        std::ifstream in(input);
        std::ofstream out(shuffled);
        std::string first;
        std::string line;
        std::getline(in, first);
        while (std::getline(in, line))
            out << line << '\n';
        out << first << '\n';
    }
    {
        std::unique_ptr<Database> spoolDatabase = Database::open(dir.filePath("spooled.db").toStdString());
        spoolDatabase->startBackgroundCheckpoints();
        Engine spoolEngine(model, *spoolDatabase);
        ImportOptions spoolOptions;
        spoolOptions.paths = {shuffled};
        Clock::time_point applying;
        const Clock::time_point t0 = Clock::now();
        const ImportReport spooled = importFiles(spoolEngine, model, spoolOptions, [&](const ImportProgress &p) {
            if (p.phase == "applying" && applying == Clock::time_point())
                applying = Clock::now();
            return true;
        });
        const double rate = documents / seconds(t0, Clock::now());
        std::printf("import, input out of order     %8.0f docs/s   (%.2fx the baseline; %lld created, %lld "
                    "drafts; %.1f s reading into the spool)\n",
                    rate, rate / baselineRate, static_cast<long long>(spooled.totals.created),
                    static_cast<long long>(spooled.totals.drafts), seconds(t0, applying));
    }
    QFile::remove(QString::fromStdString(shuffled));
    QFile::remove(dir.filePath("spooled.db"));
}

// Single-document saves at the final size: parse, validate, commit with synchronous=FULL.
void measureSaveLatency(Engine &engine)
{
    std::vector<double> saves;
    for (int i = 0; i < 2000; ++i) {
        const Json student{{"studentUniqueId", "B" + std::to_string(i)},
                           {"firstName", "Bench"},
                           {"lastSurname", "Student"},
                           {"birthDate", "2010-01-01"}};
        const auto s = Clock::now();
        engine.handle(request("POST", "/ed-fi/students", student));
        saves.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s).count());
    }
    const Latency save = percentiles(saves);
    std::printf("save one document              p50 %6.3f ms   p99 %6.3f ms\n", save.p50, save.p99);
}

// Delete-block checks on referenced students (the 409 with its referencedBy list).
void measureDeleteCheckLatency(Engine &engine)
{
    std::vector<std::string> studentIds;
    for (const Json &doc : engine.handle(request("GET", "/ed-fi/students?limit=500")).body)
        studentIds.push_back(doc["id"].get<std::string>());
    std::vector<double> checks;
    int blocked = 0;
    for (int round = 0; round < 4; ++round)
        for (const std::string &id : studentIds) {
            const auto s = Clock::now();
            blocked += engine.handle(request("DELETE", "/ed-fi/students/" + id)).status == 409 ? 1 : 0;
            checks.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s).count());
        }
    const Latency check = percentiles(checks);
    std::printf("delete-block check (409)       p50 %6.3f ms   p99 %6.3f ms   (%d of %zu blocked)\n", check.p50,
                check.p99, blocked, checks.size());
}

void measureExport(const QTemporaryDir &dir, Database &database, const Model &model)
{
    ExportOptions exportOptions;
    exportOptions.outDir = dir.filePath("batch").toStdString();
    const Clock::time_point t0 = Clock::now();
    const ExportResult exported = exportBatch(database, model, exportOptions);
    std::printf("export                         %8.0f docs/s   (%lld documents%s)\n",
                exported.documents / seconds(t0, Clock::now()), static_cast<long long>(exported.documents),
                exported.ok ? "" : (", failed: " + exported.error).c_str());
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const std::int64_t target = argc > 1 ? std::max<std::int64_t>(1000, std::atoll(argv[1])) : 100000;
    QTemporaryDir dir;
    const std::string input = dir.filePath("district.ndjson").toStdString();

    const std::int64_t documents = generateInput(input, target);
    const double baselineRate = measureBaseline(dir, input, documents);

    std::unique_ptr<Model> model = Model::loadStarter();
    std::unique_ptr<Database> database = Database::open(dir.filePath("steward.db").toStdString());
    database->startBackgroundCheckpoints();
    Engine engine(*model, *database);

    measurePrepareOnly(engine, *model, input);
    const double importRate = measureImportInOrder(engine, *model, input, documents, baselineRate);
    printStorage("starter model", database->connection());
    const JobsFigures jobs = measureJobs(dir, *model, input, documents);
    measureFloor(dir, jobs.writerMicros);
    measureDs51(dir, input, documents, jobs.oneThreadMicros);
    measurePostgres(dir, *model, engine, input, importRate);
    measureImportOutOfOrder(dir, *model, input, documents, baselineRate);
    measureSaveLatency(engine);
    measureDeleteCheckLatency(engine);
    measureExport(dir, *database, *model);
    std::printf("\npeak RSS %.1f MB\n", procStatusMb("VmHWM:"));
    return 0;
}

