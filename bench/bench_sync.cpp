// Sync with an Ed-Fi API (`steward-cli serve` on this machine): a push of a generated district into an
// empty API and a pull of it into an empty database, each beside the same run without the safeguards
// that keep edits from being lost (no If-Match, no merge on pull: last writer wins, as sync did
// before them), with their time and requests; then a pull where 1% of the documents changed both
// on the API and here, with the merges it does a second.
// Each figure is the median of runs taken in turn with and without (a shared machine is noisy).
// Then requests in flight: a push and a pull with 1 and with 16 in flight, against serve on loopback
// (beside serve's own POST capacity with 8 connections, measured in the same run) and through a proxy
// that holds each request 20 ms (beside the latency limit: in flight / delay), with the client's CPU a
// pushed document.
// Usage: bench_sync [students] [runs] [students for the delayed target] [delay ms]
//   (defaults 1000, about 11,000 documents, 3, 150 and 20; 9300 students make about 100,000 documents)
#include "ApiClients.h"
#include "BenchSupport.h"
#include "Database.h"
#include "Engine.h"
#include "Importer.h"
#include "RemoteApi.h"
#include "SyncJobs.h"

#include "FlowControl.h"
#include "LoadOrder.h"
#include "PageFetcher.h"
#include "RequestPool.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

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

// A network that takes `delay` ms to carry each request to the API (answers come straight back): a
// proxy on its own thread, so that the client's work does not delay what it forwards.
class DelayProxy
{
public:
    DelayProxy(quint16 upstream, int delayMs)
    {
        m_thread.start();
        m_server = new QTcpServer;
        m_server->moveToThread(&m_thread);
        QMetaObject::invokeMethod(m_server, [this, upstream, delayMs] {
            QObject::connect(m_server, &QTcpServer::newConnection, m_server, [this, upstream, delayMs] {
                while (QTcpSocket *client = m_server->nextPendingConnection())
                    relay(client, upstream, delayMs);
            });
            m_server->listen(QHostAddress::LocalHost);
            m_port = m_server->serverPort();
        }, Qt::BlockingQueuedConnection);
    }
    ~DelayProxy()
    {
        QMetaObject::invokeMethod(m_server, [this] { delete m_server; }, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }
    quint16 port() const { return m_port; }

private:
    static void relay(QTcpSocket *client, quint16 upstream, int delayMs)
    {
        auto *api = new QTcpSocket(client);
        api->connectToHost(QHostAddress::LocalHost, upstream);
        QObject::connect(client, &QTcpSocket::readyRead, api, [client, api, delayMs] {
            const QByteArray data = client->readAll();
            QTimer::singleShot(delayMs, Qt::PreciseTimer, api, [api, data] { api->write(data); });
        });
        QObject::connect(api, &QTcpSocket::readyRead, client, [client, api] { client->write(api->readAll()); });
        QObject::connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
        QObject::connect(api, &QTcpSocket::disconnected, client, [client] { client->disconnectFromHost(); });
    }

    QThread m_thread;
    QTcpServer *m_server = nullptr;
    quint16 m_port = 0;
};

// `steward-cli serve` on an empty database of its own, with one client.
class Api
{
public:
    explicit Api(const std::string &path, int delayMs = 0)
    {
        {
            std::unique_ptr<Database> database = Database::open(path);
            m_secret = ApiClients(database->connection()).add("bench").secret;
        }
        m_port = startServe(m_process, QStringLiteral(STEWARD_CLI_PATH), path, {"--rate", "1000000"});
        if (delayMs > 0 && m_port != 0)
            m_proxy = std::make_unique<DelayProxy>(m_port, delayMs);
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
        options.url = "http://127.0.0.1:" + std::to_string(m_proxy ? m_proxy->port() : m_port);
        options.client = "bench";
        options.secret = m_secret;
        return options;
    }

private:
    QProcess m_process;
    quint16 m_port = 0;
    std::string m_secret;
    std::unique_ptr<DelayProxy> m_proxy;
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
    double mainCpuSeconds = 0; // of it, the thread that runs the sync (the rest: Qt's network thread, a proxy)
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
        // As steward-cli and the desktop app open it: checkpoints off the writer's thread.
        m_database->startBackgroundCheckpoints();
        std::string error;
        m_connected = m_remote.connect(&error);
        if (!m_connected)
            std::fprintf(stderr, "%s\n", error.c_str());
    }

    Figure push(const SyncSafeguards &safeguards, const SyncPace &pace = {})
    {
        if (!m_connected)
            return {};
        const Clock::time_point start = Clock::now();
        const double cpu = processCpuSeconds();
        const double mainCpu = threadCpuSeconds();
        const PushReport report = runPush(m_engine, *m_database, m_remote, "bench", {}, safeguards, {}, pace);
        Figure figure{secondsSince(start), processCpuSeconds() - cpu, 0, report.requests, report.accepted,
                      report.completed && report.refused == 0};
        figure.mainCpuSeconds = threadCpuSeconds() - mainCpu;
        return figure;
    }

    Figure pull(const SyncSafeguards &safeguards, PullReport *out = nullptr, const SyncPace &pace = {})
    {
        if (!m_connected)
            return {};
        const Clock::time_point start = Clock::now();
        const double cpu = processCpuSeconds();
        const double mainCpu = threadCpuSeconds();
        PullReport report = runPull(m_engine, *m_database, m_remote, "bench", {}, safeguards, pace);
        const ImportCounts &t = report.outcome.totals;
        Figure figure{secondsSince(start), processCpuSeconds() - cpu, threadCpuSeconds() - mainCpu, report.requests,
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

Figure push(const std::string &databasePath, const Api &api, const SyncSafeguards &safeguards, int parallel = 0)
{
    SyncPace pace;
    pace.parallel = parallel;
    return Session(databasePath, api).push(safeguards, pace);
}

Figure pull(const std::string &databasePath, const Api &api, const SyncSafeguards &safeguards, PullReport *out = nullptr,
            int parallel = 0)
{
    SyncPace pace;
    pace.parallel = parallel;
    return Session(databasePath, api).pull(safeguards, out, pace);
}

// serve's own capacity for durable POSTs: every Student of the district posted again as a new student
// (another studentUniqueId: a create, one write each, as a push's) into an API that has the rest, 8
// requests in flight, and nothing of a sync around them.
double postCapacity(const std::string &districtPath, const Api &api)
{
    std::vector<QByteArray> bodies;
    {
        std::unique_ptr<Database> database = Database::open(districtPath);
        SQLite::Statement students(database->connection(),
                                   "SELECT steward_text(body) FROM documents WHERE resource = 'Student'");
        while (students.executeStep()) {
            Json body = Json::parse(students.getColumn(0).getString());
            body["studentUniqueId"] = "capacity-" + body.value("studentUniqueId", std::string());
            bodies.push_back(QByteArray::fromStdString(body.dump()));
        }
    }
    RemoteApi remote(api.options());
    std::string error;
    if (!remote.connect(&error))
        return 0;
    FlowControl flow(8);
    RequestPool pool(remote, flow);
    QEventLoop loop;
    std::size_t next = 0;
    int written = 0;
    std::function<void()> pump = [&] {
        while (next < bodies.size() && pool.hasRoom())
            pool.submit(RemoteRequest{"POST", "/ed-fi/students", bodies[next++], {}}, [&](const RemoteResponse &answer) {
                written += answer.status == 200 || answer.status == 201;
                pump();
            });
        if (next >= bodies.size() && pool.idle())
            loop.quit();
    };
    const Clock::time_point start = Clock::now();
    pump();
    if (!pool.idle())
        loop.exec();
    return written / std::max(secondsSince(start), 1e-9);
}

// serve's own capacity for the pages a pull reads: every page of every resource, 8 requests in flight,
// each page's documents parsed and counted, nothing stored.
double pageCapacity(const Api &api)
{
    RemoteApi remote(api.options());
    std::string error;
    if (!remote.connect(&error))
        return 0;
    std::unique_ptr<Model> model = Model::loadStarter();
    const std::vector<const ResourceSchema *> resources = LoadOrder(*model).flat();
    FlowControl flow(8);
    std::int64_t documents = 0;
    PageFetcher fetcher(
        remote, flow, resources.size(), 500,
        [&](std::size_t source, std::int64_t offset, bool withTotalCount) {
            return resources[source]->requestPath() + "?offset=" + std::to_string(offset) + "&limit=500" +
                   (withTotalCount ? "&totalCount=true" : "");
        },
        [&](const PageFetcher::Page &page) {
            const Json items = page.answer.json();
            const int count = page.answer.status == 200 && items.is_array() ? static_cast<int>(items.size()) : 0;
            documents += count;
            return count;
        });
    const Clock::time_point start = Clock::now();
    fetcher.run();
    return documents / std::max(secondsSince(start), 1e-9);
}

// The rate with N in flight beside the limits it is measured against: the (first), and for a
// pull, a second one that fits pages (a request carries up to 500 documents).
struct Limit
{
    double perSecond = 0;
    const char *name = nullptr;
};

void printInFlight(const char *what, const Figure &one, const Figure &many, int parallel, Limit limit, Limit also = {})
{
    const double oneRate = one.documents / std::max(one.seconds, 1e-9);
    const double manyRate = many.documents / std::max(many.seconds, 1e-9);
    const double perDocument = 1e6 / std::max<double>(static_cast<double>(many.documents), 1);
    std::printf("%-26s 1 in flight %7.0f docs/s (%5.1f s) | %2d in flight %7.0f docs/s (%5.1f s, %4.0f µs CPU a "
                "document: %3.0f the sync's thread, %3.0f the others)",
                what, oneRate, one.seconds, parallel, manyRate, many.seconds, many.cpuSeconds * perDocument,
                many.mainCpuSeconds * perDocument, (many.cpuSeconds - many.mainCpuSeconds) * perDocument);
    for (const Limit &beside : {limit, also})
        if (beside.name != nullptr)
            std::printf(" | %s %7.0f/s: %3.0f%%", beside.name, beside.perSecond,
                        100 * manyRate / std::max(beside.perSecond, 1e-9));
    std::printf("%s\n", one.completed && many.completed ? "" : "  (INCOMPLETE)");
}

// One sync run alone (BENCH_SYNC_ONLY), 16 in flight.
void printAlone(const char *what, const Figure &run)
{
    const double perDocument = 1e6 / std::max<double>(static_cast<double>(run.documents), 1);
    std::printf("%s, 16 in flight: %.0f docs/s, %.0f µs CPU a document (%.0f the sync's thread)\n", what,
                run.documents / std::max(run.seconds, 1e-9), run.cpuSeconds * perDocument,
                run.mainCpuSeconds * perDocument);
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
    const std::int64_t delayedStudents = argc > 3 ? std::max(10LL, std::atoll(argv[3])) : 150;
    const int delayMs = argc > 4 ? std::max(1, std::atoi(argv[4])) : 20;
    QTemporaryDir dir;
    auto path = [&dir](const char *name) { return dir.filePath(QString::fromLatin1(name)).toStdString(); };
    const std::int64_t documents = writeDistrictDatabase(path("district.ndjson"), path("district.db"), students);
    std::printf("Sync benchmark: %lld documents (%lld students) against steward-cli serve on this machine\n\n",
                static_cast<long long>(documents), static_cast<long long>(students));

    // Requests in flight. On loopback: the push and pull with 1 and 16, beside serve's POST capacity.
    constexpr int kMany = 16;
    if (qEnvironmentVariableIsSet("BENCH_SYNC_ONLY")) {
        // One push (and with "pull", a pull after it) with 16 in flight and nothing else, to profile
        // the client.
        const bool pullToo = qEnvironmentVariable("BENCH_SYNC_ONLY") == QLatin1String("pull");
        copyDatabase(path("district.db"), path("only-push.db"));
        Api api(path("only-api.db"));
        std::fprintf(stderr, "pushing (pid %lld)\n", static_cast<long long>(QCoreApplication::applicationPid()));
        const Figure pushed = push(path("only-push.db"), api, {}, kMany);
        printAlone("push", pushed);
        if (pullToo) {
            std::fprintf(stderr, "pulling\n");
            const Figure pulled = pull(path("only-pull.db"), api, {}, nullptr, kMany);
            printAlone("pull", pulled);
        }
        return 0;
    }
    {
        Figure pushed[2];
        Figure pulled[2];
        double capacity = 0;
        double pages = 0;
        for (int i = 0; i < 2; ++i) {
            const int parallel = i == 0 ? 1 : kMany;
            const std::string tag = "loop" + std::to_string(parallel);
            copyDatabase(path("district.db"), path((tag + "-push.db").c_str()));
            Api api(path((tag + "-api.db").c_str()));
            pushed[i] = push(path((tag + "-push.db").c_str()), api, {}, parallel);
            pulled[i] = pull(path((tag + "-pull.db").c_str()), api, {}, nullptr, parallel);
            if (i == 1) {
                pages = pageCapacity(api);
                capacity = postCapacity(path("district.db"), api);
            }
        }
        const Limit postCapacity{capacity, "serve's POST capacity (8 connections)"};
        printInFlight("push, serve on loopback", pushed[0], pushed[1], kMany, postCapacity);
        printInFlight("pull, serve on loopback", pulled[0], pulled[1], kMany, postCapacity,
                      {pages, "serve's page capacity (8 connections)"});
    }
    // Through a network that holds each request delayMs: a smaller district (one request at a time
    // takes a request's delay per document).
    {
        const std::int64_t delayedDocuments =
            writeDistrictDatabase(path("small.ndjson"), path("small.db"), delayedStudents);
        Figure pushed[2];
        Figure pulled[2];
        for (int i = 0; i < 2; ++i) {
            const int parallel = i == 0 ? 1 : kMany;
            const std::string tag = "delay" + std::to_string(parallel);
            copyDatabase(path("small.db"), path((tag + "-push.db").c_str()));
            Api api(path((tag + "-api.db").c_str()), delayMs);
            pushed[i] = push(path((tag + "-push.db").c_str()), api, {}, parallel);
            pulled[i] = pull(path((tag + "-pull.db").c_str()), api, {}, nullptr, parallel);
        }
        std::printf("\n%lld documents (%lld students) through a network that holds each request %d ms:\n",
                    static_cast<long long>(delayedDocuments), static_cast<long long>(delayedStudents), delayMs);
        const Limit latencyLimit{kMany * 1000.0 / delayMs, "latency limit (16 / delay)"};
        printInFlight("push, delayed target", pushed[0], pushed[1], kMany, latencyLimit);
        // A page carries up to 500 documents, so a pull's limit is how fast it stores them, not the
        // latency: it is set beside the same pull with no delay too.
        Figure local;
        {
            Api api(path("delay0-api.db"));
            copyDatabase(path("small.db"), path("delay0-push.db"));
            push(path("delay0-push.db"), api, {}, kMany);
            local = pull(path("delay0-pull.db"), api, {}, nullptr, kMany);
        }
        printInFlight("pull, delayed target", pulled[0], pulled[1], kMany, latencyLimit,
                      {local.documents / std::max(local.seconds, 1e-9), "the same pull without the delay"});
        std::printf("\n");
    }
    std::printf("Safeguards (%d in flight, the default), medians of %d runs; 'without' is the same run without "
                "If-Match and merges\n",
                kDefaultParallel, runs);

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
