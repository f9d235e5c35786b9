// Sync with an Ed-Fi API (`steward-cli serve` on this machine): a push of a generated district into an
// empty API and a pull of it into an empty database, each beside the same run without the safeguards
// that keep edits from being lost (no If-Match, no merge on pull: last writer wins, as sync did
// before them), with their time and requests; then a pull where 1% of the documents changed both
// on the API and here, with the merges it does a second.
// Each figure is the median of runs taken in turn with and without (a shared machine is noisy).
// Usage: bench_sync [students] [runs]   (defaults 1000, about 11,000 documents, and 3; 9300 students
// make about 100,000 documents)
#include "ApiClients.h"
#include "BenchSupport.h"
#include "Database.h"
#include "Engine.h"
#include "Importer.h"
#include "RemoteApi.h"
#include "SyncJobs.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

using namespace steward;

namespace {

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// `steward-cli serve` on an empty database of its own, with one client.
class Api
{
public:
    explicit Api(const std::string &path)
    {
        {
            std::unique_ptr<Database> database = Database::open(path);
            m_secret = ApiClients(database->connection()).add("bench").secret;
        }
        m_port = startServe(m_process, QStringLiteral(STEWARD_CLI_PATH), path, {"--rate", "1000000"});
    }
    ~Api()
    {
        m_process.terminate();
        m_process.waitForFinished(10000);
    }
    bool running() const { return m_port != 0; }
    RemoteOptions options() const
    {
        RemoteOptions options;
        options.url = "http://127.0.0.1:" + std::to_string(m_port);
        options.client = "bench";
        options.secret = m_secret;
        return options;
    }

private:
    QProcess m_process;
    quint16 m_port = 0;
    std::string m_secret;
};

// A database file copied whole (closed, so its WAL is in it).
void copyDatabase(const std::string &from, const std::string &to)
{
    QFile::remove(QString::fromStdString(to));
    QFile::copy(QString::fromStdString(from), QString::fromStdString(to));
}

struct Figure
{
    double seconds = 0;
    double cpuSeconds = 0; // this process's: the client's own work, without the API's
    int requests = 0;
    std::int64_t documents = 0;
    bool completed = false;
};

// The run with the median time of several.
Figure median(std::vector<Figure> runs)
{
    std::sort(runs.begin(), runs.end(), [](const Figure &a, const Figure &b) { return a.seconds < b.seconds; });
    Figure out = runs[runs.size() / 2];
    for (const Figure &run : runs)
        out.completed = out.completed && run.completed;
    return out;
}

// A steward's database and a connection to the API, for one sync.
class Session
{
public:
    Session(const std::string &databasePath, const Api &api)
        : m_model(Model::loadStarter())
        , m_database(Database::open(databasePath))
        , m_engine(*m_model, *m_database)
        , m_remote(api.options())
    {
        std::string error;
        m_connected = m_remote.connect(&error);
        if (!m_connected)
            std::fprintf(stderr, "%s\n", error.c_str());
    }

    Figure push(const SyncSafeguards &safeguards)
    {
        if (!m_connected)
            return {};
        const Clock::time_point start = Clock::now();
        const double cpu = processCpuSeconds();
        const PushReport report = runPush(m_engine, *m_database, m_remote, "bench", {}, safeguards);
        return {secondsSince(start), processCpuSeconds() - cpu, report.requests, report.accepted,
                report.completed && report.refused == 0};
    }

    Figure pull(const SyncSafeguards &safeguards, PullReport *out = nullptr)
    {
        if (!m_connected)
            return {};
        const Clock::time_point start = Clock::now();
        const double cpu = processCpuSeconds();
        PullReport report = runPull(m_engine, *m_database, m_remote, "bench", {}, safeguards);
        const ImportCounts &t = report.outcome.totals;
        Figure figure{secondsSince(start), processCpuSeconds() - cpu, report.requests,
                      t.created + t.updated + t.unchanged, report.outcome.completed};
        if (out != nullptr)
            *out = std::move(report);
        return figure;
    }

private:
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Database> m_database;
    Engine m_engine;
    RemoteApi m_remote;
    bool m_connected = false;
};

Figure push(const std::string &databasePath, const Api &api, const SyncSafeguards &safeguards)
{
    return Session(databasePath, api).push(safeguards);
}

Figure pull(const std::string &databasePath, const Api &api, const SyncSafeguards &safeguards, PullReport *out = nullptr)
{
    return Session(databasePath, api).pull(safeguards, out);
}

void print(const char *what, const Figure &safe, const Figure &unsafe)
{
    std::printf("%-28s %7.1f s %7.0f docs/s %6.1f s CPU %7d requests | without: %7.1f s %7.0f docs/s %6.1f s CPU "
                "%7d requests | time %.2fx, requests %.2fx%s\n",
                what, safe.seconds, safe.documents / std::max(safe.seconds, 1e-9), safe.cpuSeconds, safe.requests,
                unsafe.seconds, unsafe.documents / std::max(unsafe.seconds, 1e-9), unsafe.cpuSeconds, unsafe.requests,
                safe.seconds / std::max(unsafe.seconds, 1e-9),
                static_cast<double>(safe.requests) / std::max(unsafe.requests, 1),
                safe.completed && unsafe.completed ? "" : "  (INCOMPLETE)");
}

// Changes one field of every tenth Student (students are about a tenth of the documents, so about 1% of
// them), through the engine.
int changeEveryTenthStudent(const std::string &databasePath, const std::string &field, const std::string &value)
{
    std::unique_ptr<Model> model = Model::loadStarter();
    std::unique_ptr<Database> database = Database::open(databasePath);
    Engine engine(*model, *database);
    std::vector<std::pair<std::string, Json>> changes;
    {
        SQLite::Statement students(database->connection(), "SELECT id, steward_text(body) FROM documents WHERE "
                                                            "resource = 'Student' ORDER BY natural_key");
        for (int i = 0; students.executeStep(); ++i)
            if (i % 10 == 0) {
                Json body = Json::parse(students.getColumn(1).getString());
                body[field] = value;
                changes.emplace_back(students.getColumn(0).getString(), std::move(body));
            }
    }
    int changed = 0;
    engine.beginBatch();
    for (const auto &[id, body] : changes)
        changed += engine.handle(Request::make("PUT", "/ed-fi/students/" + id, "bench", body)).status == 204;
    engine.commitBatch();
    return changed;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const std::int64_t students = argc > 1 ? std::max(10LL, std::atoll(argv[1])) : 1000;
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    QTemporaryDir dir;
    auto path = [&dir](const char *name) { return dir.filePath(QString::fromLatin1(name)).toStdString(); };
    const std::int64_t documents = writeDistrictFile(path("district.ndjson"), students);
    {
        std::unique_ptr<Model> model = Model::loadStarter();
        std::unique_ptr<Database> database = Database::open(path("district.db"));
        Engine engine(*model, *database);
        ImportOptions options;
        options.paths = {path("district.ndjson")};
        importFiles(engine, *model, options);
    }
    std::printf("Sync benchmark: %lld documents (%lld students) against steward-cli serve on this machine, one "
                "connection, medians of %d runs; 'without' is the same run without If-Match and merges\n\n",
                static_cast<long long>(documents), static_cast<long long>(students), runs);

    // A push into an empty API (every document new there), and a pull of all of it into an empty
    // database; each with and without in turn, into an API and a database of its own.
    SyncSafeguards off;
    off.ifMatch = false;
    off.mergeOnPull = false;
    std::vector<Figure> pushes[2];
    std::vector<Figure> pulls[2];
    std::unique_ptr<Api> kept; // the last API pushed with the safeguards on, for the merge figure
    for (int run = 0; run < runs; ++run) {
        for (int safe : {run % 2, 1 - run % 2}) {
            const std::string tag = std::to_string(run) + (safe ? "-safe" : "-unsafe");
            copyDatabase(path("district.db"), path(("push" + tag + ".db").c_str()));
            auto api = std::make_unique<Api>(path(("api" + tag + ".db").c_str()));
            if (!api->running()) {
                std::fprintf(stderr, "serve did not start\n");
                return 1;
            }
            pushes[safe].push_back(push(path(("push" + tag + ".db").c_str()), *api, safe ? SyncSafeguards{} : off));
            pulls[safe].push_back(pull(path(("pull" + tag + ".db").c_str()), *api, safe ? SyncSafeguards{} : off));
            if (safe && run == runs - 1) {
                kept = std::move(api);
                copyDatabase(path(("pull" + tag + ".db").c_str()), path("pull-safe.db"));
            }
        }
    }
    print("push into an empty API", median(pushes[1]), median(pushes[0]));
    print("pull into an empty database", median(pulls[1]), median(pulls[0]));
    const Api &safeApi = *kept;

    // About 1% of the documents changed on the API (another steward pushed) and here (not pushed yet).
    copyDatabase(path("pull-safe.db"), path("other-steward.db"));
    const int changedThere = changeEveryTenthStudent(path("other-steward.db"), "firstName", "There");
    const Figure otherPush = push(path("other-steward.db"), safeApi, {});
    const int changedHere = changeEveryTenthStudent(path("pull-safe.db"), "lastSurname", "Here");
    PullReport merging;
    const Figure mergePull = pull(path("pull-safe.db"), safeApi, {}, &merging);
    std::printf("\n%.1f%% of the documents changed on both sides: %d students changed there (pushed in %.1f s), %d "
                "here\n",
                100.0 * changedHere / std::max<std::int64_t>(documents, 1), changedThere, otherPush.seconds, changedHere);
    std::printf("pull that merges them                %8.1f s  %d merged (%.0f merges/s), %d conflicts, %d requests%s\n",
                mergePull.seconds, merging.merged, merging.merged / std::max(mergePull.seconds, 1e-9),
                merging.conflicts, mergePull.requests, mergePull.completed ? "" : "  (INCOMPLETE)");
    return 0;
}
