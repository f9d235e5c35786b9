// sync against a server that behaves like an Ed-Fi ODS/API 7.x, not like a second Steward
// (tests/OdsApiStandIn). Pull, push, incremental pulls and year-specific routes run against it.
#include "Engine.h"
#include "HttpCarrier.h"
#include "Identity.h"
#include "LoadOrder.h"
#include "OdsApiStandIn.h"
#include "RemoteApi.h"
#include "Sync.h"
#include "SyncJobs.h"
#include "TestSupport.h"
#include "CliSupport.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslServer>
#include <QTemporaryDir>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <csignal>

#include <SQLiteCpp/Database.h>

#include <map>
#include <memory>

using namespace steward;
using namespace steward::test;

namespace {

// A server side TLS configuration with the certificate and key openssl made.
QSslConfiguration serverTls(const TlsFiles &tls)
{
    QFile keyFile(tls.key);
    keyFile.open(QIODevice::ReadOnly);
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setLocalCertificateChain(QSslCertificate::fromPath(tls.cert));
    configuration.setPrivateKey(QSslKey(keyFile.readAll(), QSsl::Ec));
    return configuration;
}

std::int64_t countOf(Fixture &f, const std::string &endpoint)
{
    return std::stoll(f.call("GET", "/ed-fi/" + endpoint + "?limit=0&totalCount=true").header("Total-Count"));
}

std::size_t documentCount(Fixture &f)
{
    return static_cast<std::size_t>(
        f.database().connection().execAndGet("SELECT count(*) FROM documents").getInt64());
}

// Every record of the target is the target's copy of exactly one local document, and every local
// document has one: nothing sent twice as two records, nothing missing.
void checkOneRecordPerDocument(Fixture &local, const OdsApiStandIn &server)
{
    std::map<std::string, std::string> remoteToLocal;
    SQLite::Statement ids(local.database().connection(),
                          "SELECT steward_id_text(r.id), r.remote_id FROM sync_remote_ids r WHERE r.remote_id <> ''");
    while (ids.executeStep())
        QVERIFY2(remoteToLocal.emplace(ids.getColumn(1).getString(), ids.getColumn(0).getString()).second,
                 "two local documents share one record of the target");
    QCOMPARE(server.records().size(), documentCount(local));
    for (const auto &[id, record] : server.records())
        QVERIFY2(remoteToLocal.count(id) == 1, ("a record no local document knows: " + record.endpoint + " " + id).c_str());
}

} // namespace

class TestOdsApi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pullThenIncrementalPulls()
    {
        Fixture seed;
        seed.seedDescriptors();
        OdsApiStandIn server(seed.model());
        seedServerDescriptors(server, seed);
        server.upsert("schools", Fixture::school(100));
        server.upsert("schoolYearTypes", Fixture::schoolYear(2022));
        const std::string session = server.upsert("sessions", Fixture::session(100, 2022, "Fall"));
        // More than one page of 500.
        for (int i = 0; i < 1100; ++i)
            server.upsert("courses", Fixture::course("C-" + std::to_string(i), 100));
        const std::string doomed = server.upsert("courses", Fixture::course("DOOMED", 100));

        Fixture local;
        RemoteApi remote(standInOptions(server.base()));
        std::string error;
        QVERIFY2(remote.connect(&error), error.c_str());
        QVERIFY(remote.hasChangeQueries());
        PullReport first = runPull(local.engine(), local.database(), remote, "district");
        QVERIFY2(first.outcome.completed, first.outcome.error.c_str());
        QVERIFY(!first.incremental);
        QCOMPARE(countOf(local, "courses"), std::int64_t(1101));
        QCOMPARE(first.outcome.totals.drafts, std::int64_t(0));
        QVERIFY(first.pages >= 3 + 3); // courses alone take three pages

        // Nothing changed: one look at the change versions and no resource is read.
        server.resetCounts();
        PullReport idle = runPull(local.engine(), local.database(), remote, "district");
        QVERIFY(idle.outcome.completed && idle.incremental);
        QCOMPARE(server.dataRequests(), 1);

        // The district renames a school, renames the session (a key change), deletes a course.
        server.upsert("schools", Fixture::school(100, "Renamed High"));
        server.changeKey(session, Fixture::session(100, 2022, "Autumn"));
        QVERIFY(server.remove(doomed));
        server.resetCounts();
        PullReport second = runPull(local.engine(), local.database(), remote, "district");
        QVERIFY2(second.outcome.completed, second.outcome.error.c_str());
        QVERIFY(second.incremental);
        QCOMPARE(second.outcome.totals.updated, std::int64_t(2));
        QCOMPARE(second.outcome.totals.created, std::int64_t(0));
        QCOMPARE(second.deleted, 1);
        QCOMPARE(second.keyChanges, 1);
        // One request per resource for its changes and one for its deletes (key changes only where
        // identities may change), not one per page of everything.
        const int resources = static_cast<int>(local.model().resources().size());
        QVERIFY2(server.dataRequests() <= 2 * resources + 12, qPrintable(QString::number(server.dataRequests())));
        QCOMPARE(second.requests, server.dataRequests());
        // The 1,101 courses took three pages the first time; their one change now takes one request.
        QVERIFY(first.pages >= resources + 2);
        QVERIFY(second.pages <= resources);

        QCOMPARE(countOf(local, "courses"), std::int64_t(1100));
        QCOMPARE(local.call("GET", "/ed-fi/schools?schoolId=100").body[0]["nameOfInstitution"].get<std::string>(),
                 std::string("Renamed High"));
        // The session moved (one document, its new name), it was not copied.
        const Json sessions = local.call("GET", "/ed-fi/sessions").body;
        QCOMPARE(sessions.size(), std::size_t(1));
        QCOMPARE(sessions[0]["sessionName"].get<std::string>(), std::string("Autumn"));
        QVERIFY(local.engine().check().clean());
    }

    void pushIntoAnOdsApi()
    {
        Fixture local;
        local.seedDescriptors();
        OdsApiStandIn server(local.model());
        seedServerDescriptors(server, local);
        local.create("/ed-fi/schools", Fixture::school(300));
        local.create("/ed-fi/courses", Fixture::course("ALG-1", 300));
        // A course whose school the server will not have: pushed before the school would be refused.
        RemoteApi remote(standInOptions(server.base()));
        std::string error;
        QVERIFY2(remote.connect(&error), error.c_str());
        PushReport pushed = runPush(local.engine(), local.database(), remote, "district");
        QVERIFY2(pushed.completed, pushed.error.c_str());
        QCOMPARE(pushed.refused, 0);
        QVERIFY2(server.recordsOf("schools").size() == 1, pushed.toJson().dump().c_str());
        QCOMPARE(server.recordsOf("courses").size(), std::size_t(1));

        // A delete travels to the server's id, which is spelled without hyphens.
        const std::string courseId = local.call("GET", "/ed-fi/courses").body[0]["id"].get<std::string>();
        QCOMPARE(local.call("DELETE", "/ed-fi/courses/" + courseId).status, 204);
        PushReport deleted = runPush(local.engine(), local.database(), remote, "district");
        QVERIFY2(deleted.completed && deleted.refused == 0, deleted.toJson().dump().c_str());
        QCOMPARE(server.recordsOf("courses").size(), std::size_t(0));
    }

    void yearSpecificRoutes()
    {
        Fixture seed;
        seed.seedDescriptors();
        OdsApiStandIn server(seed.model(), "/2026");
        seedServerDescriptors(server, seed);
        server.upsert("schools", Fixture::school(400));

        // The base address alone does not say which year: a clear error, not an empty pull.
        RemoteApi bare(standInOptions(server.base()));
        std::string error;
        QVERIFY(!bare.connect(&error));
        QVERIFY2(QString::fromStdString(error).contains("Year Specific"), error.c_str());

        Fixture local;
        RemoteApi year(standInOptions(server.base() + "/data/v3/2026/"));
        QVERIFY2(year.connect(&error), error.c_str());
        PullReport pulled = runPull(local.engine(), local.database(), year, "district");
        QVERIFY2(pulled.outcome.completed, pulled.outcome.error.c_str());
        QCOMPARE(countOf(local, "schools"), std::int64_t(1));
        QVERIFY(pulled.changeVersion.has_value()); // Change Queries were found under the year's route
    }

    // The usual production mode serves its data at /data/v3 with no route: its root address will do.
    void sharedInstanceNeedsNoRoute()
    {
        Fixture seed;
        seed.seedDescriptors();
        OdsApiStandIn server(seed.model(), {}, "SharedInstance");
        seedServerDescriptors(server, seed);
        server.upsert("schools", Fixture::school(410));
        Fixture local;
        RemoteApi remote(standInOptions(server.base()));
        std::string error;
        QVERIFY2(remote.connect(&error), error.c_str());
        PullReport pulled = runPull(local.engine(), local.database(), remote, "district");
        QVERIFY2(pulled.outcome.completed, pulled.outcome.error.c_str());
        QCOMPARE(countOf(local, "schools"), std::int64_t(1));
        // The modes that do need one still say so.
        for (const char *mode : {"YearSpecific", "Year Specific", "InstanceYearSpecific", "DistrictSpecific"})
            QVERIFY2(apiModeNeedsRoute(mode), mode);
        for (const char *mode : {"SharedInstance", "Sandbox", ""})
            QVERIFY2(!apiModeNeedsRoute(mode), mode);
    }

    // A data address not under /data/v3 (Meadowlark's /v3.3b): the discovery document above it names
    // the token address, which is not beside the data.
    void aDataAddressFindsTheDiscoveryDocumentAboveIt()
    {
        Fixture seed;
        seed.seedDescriptors();
        OdsApiStandIn server(seed.model());
        server.setDataPath("/v3.3b");
        seedServerDescriptors(server, seed);
        server.upsert("schools", Fixture::school(420));
        Fixture local;
        RemoteApi remote(standInOptions(server.base() + "/v3.3b"));
        std::string error;
        QVERIFY2(remote.connect(&error), error.c_str());
        QVERIFY(!remote.hasChangeQueries());
        PullReport pulled = runPull(local.engine(), local.database(), remote, "district");
        QVERIFY2(pulled.outcome.completed, pulled.outcome.error.c_str());
        QCOMPARE(countOf(local, "schools"), std::int64_t(1));
        local.create("/ed-fi/courses", Fixture::course("ALG-2", 420));
        PushReport pushed = runPush(local.engine(), local.database(), remote, "district");
        QVERIFY2(pushed.completed && pushed.refused == 0, pushed.toJson().dump().c_str());
        QCOMPARE(server.recordsOf("courses").size(), std::size_t(1));
    }

    // Many requests in flight, answered out of order: every document reaches the target after what it
    // references (the stand-in refuses a reference it does not have), and a pull many pages at once
    // stores them all again in load order.
    void manyRequestsInFlightKeepTheLoadOrder()
    {
        Fixture local;
        local.loadSampleDistrict(2026, 8);
        OdsApiStandIn server(local.model());
        server.setAnswerDelays(6, 45);
        RemoteApi remote(standInOptions(server.base()));
        std::string error;
        QVERIFY2(remote.connect(&error), error.c_str());
        SyncPace pace;
        pace.parallel = 16;
        const PushReport pushed = runPush(local.engine(), local.database(), remote, "district", {}, {}, {}, pace);
        QVERIFY2(pushed.completed, pushed.error.c_str());
        QVERIFY2(pushed.refused == 0 && pushed.waiting == 0, pushed.toJson()["groups"].dump().c_str());
        QCOMPARE(pushed.parallel, 16);
        // Held at once by the push alone.
        const int pushHeld = server.mostHeldAtOnce();
        QVERIFY2(pushHeld >= 8, std::to_string(pushHeld).c_str());
        checkOneRecordPerDocument(local, server);
        // Remembered for the target.
        QCOMPARE(SyncState(local.database().connection()).targets().front().parallel, 16);

        server.resetMostHeld();
        Fixture fresh;
        const PullReport pulled = runPull(fresh.engine(), fresh.database(), remote, "district", {}, {}, pace);
        QVERIFY2(pulled.outcome.completed, pulled.outcome.error.c_str());
        // Held at once by the pull alone: its pages go many at once too.
        QVERIFY2(server.mostHeldAtOnce() >= 8, std::to_string(server.mostHeldAtOnce()).c_str());
        qInfo("answers held at once: %d by the push, %d by the pull", pushHeld, server.mostHeldAtOnce());
        QCOMPARE(pulled.outcome.totals.drafts, 0);
        QCOMPARE(documentCount(fresh), documentCount(local));
        const std::string problems = fresh.engine().check().toJson().dump();
        QVERIFY2(fresh.engine().check().clean(), problems.c_str());
    }

    // A target that allows 4 requests at once answers the rest 429 with Retry-After: the whole push
    // slows down to what it takes, waits as it asks, and nothing is lost or refused for it.
    // The same over TLS, trusting the district's own authority: many requests in flight on their
    // kept-alive connections for the push and the pull, the Retry-After kept; refused without it.
    void overTlsTheSameHolds()
    {
        if (!hasOpenssl())
            QSKIP("openssl is not installed: no certificate to serve TLS with");
        QTemporaryDir dir;
        const TlsFiles tls = makeTlsFiles(dir.path(), "standin");
        QVERIFY2(tls.problem.isEmpty(), qPrintable(tls.problem));
        const QSslConfiguration configuration = serverTls(tls);
        Fixture local;
        local.loadSampleDistrict(2026, 4);
        OdsApiStandIn server(local.model());
        server.serveTls(configuration);
        QVERIFY(server.base().rfind("https://", 0) == 0);
        server.setAnswerDelays(4, 7);
        server.setMostInFlight(6, 1);

        std::string error;
        RemoteApi untrusting(standInOptions(server.base()));
        QVERIFY(!untrusting.connect(&error));
        QVERIFY2(error.find("certificate was not accepted") != std::string::npos, error.c_str());

        RemoteOptions options = standInOptions(server.base());
        options.caCertFile = tls.caCert.toStdString();
        RemoteApi remote(options);
        QVERIFY2(remote.connect(&error), error.c_str());
        SyncPace pace;
        pace.parallel = 16;
        const PushReport pushed = runPush(local.engine(), local.database(), remote, "district", {}, {}, {}, pace);
        QVERIFY2(pushed.completed, pushed.error.c_str());
        QVERIFY2(pushed.refused == 0, pushed.toJson()["groups"].dump().c_str());
        QVERIFY2(server.mostHeldAtOnce() >= 4, std::to_string(server.mostHeldAtOnce()).c_str());
        QVERIFY(pushed.pushedBack > 0);
        for (qint64 waited : server.waitsAfterTooMany())
            QVERIFY2(waited >= 1000, (std::to_string(waited) + " ms after a 429 with Retry-After: 1").c_str());
        checkOneRecordPerDocument(local, server);

        server.resetMostHeld();
        server.setMostInFlight(0);
        // Answers held longer, so that the pull's requests overlap whatever the handshakes cost.
        server.setAnswerDelays(20, 11);
        Fixture fresh;
        const PullReport pulled = runPull(fresh.engine(), fresh.database(), remote, "district", {}, {}, pace);
        QVERIFY2(pulled.outcome.completed, pulled.outcome.error.c_str());
        QCOMPARE(documentCount(fresh), documentCount(local));
        // Several at once (10 to 16 seen; new connections' handshakes stagger the first ones).
        QVERIFY2(server.mostHeldAtOnce() >= 4, std::to_string(server.mostHeldAtOnce()).c_str());
        qInfo("over TLS: %d requests, %d answered 429; the pull held %d answers at once", pushed.requests,
              pushed.pushedBack, server.mostHeldAtOnce());
    }

    // An https address that redirects to plain HTTP is not followed, even with plain HTTP allowed:
    // the token request (with the client's secret) never reaches the http address.
    void aRedirectNeverLeadsFromHttpsToHttp()
    {
        if (!hasOpenssl())
            QSKIP("openssl is not installed: no certificate to serve TLS with");
        QTemporaryDir dir;
        const TlsFiles tls = makeTlsFiles(dir.path(), "redirect");
        QVERIFY2(tls.problem.isEmpty(), qPrintable(tls.problem));
        QTcpServer plain;
        QVERIFY(plain.listen(QHostAddress::LocalHost));
        int plainConnections = 0;
        QObject::connect(&plain, &QTcpServer::pendingConnectionAvailable, &plain, [&plain, &plainConnections] {
            while (QTcpSocket *socket = plain.nextPendingConnection()) {
                ++plainConnections;
                socket->abort();
                socket->deleteLater();
            }
        });
        QSslServer secure;
        secure.setSslConfiguration(serverTls(tls));
        QVERIFY(secure.listen(QHostAddress::LocalHost));
        const QByteArray location = "http://127.0.0.1:" + QByteArray::number(plain.serverPort()) + "/api/oauth/token";
        QObject::connect(&secure, &QTcpServer::pendingConnectionAvailable, &secure, [&secure, location] {
            while (QTcpSocket *socket = secure.nextPendingConnection())
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [socket, location] {
                    socket->readAll();
                    socket->write("HTTP/1.1 307 Temporary Redirect\r\nLocation: " + location
                                  + "\r\nContent-Length: 0\r\n\r\n");
                });
        });
        HttpCarrier carrier;
        HttpCall call;
        call.method = "POST";
        call.url = "https://127.0.0.1:" + std::to_string(secure.serverPort()) + "/api/oauth/token";
        call.label = "POST " + call.url;
        call.headers = {"Authorization: Basic ZGlzdHJpY3Q6czNjcmV0"};
        call.body = "grant_type=client_credentials";
        call.caFile = tls.caCert.toStdString();
        call.idleTimeoutMs = 5000;
        for (bool plainAllowed : {false, true}) {
            call.plainRedirects = plainAllowed;
            const RemoteResponse answer = carrier.exchange(call);
            QVERIFY2(answer.status == 0 && !answer.networkError.empty(), answer.describeWithRequest().c_str());
            QCOMPARE(plainConnections, 0);
        }
    }

    void aTargetThatPushesBackSlowsTheWholePushDown()
    {
        Fixture local;
        local.loadSampleDistrict(2026, 4);
        OdsApiStandIn server(local.model());
        server.setAnswerDelays(4, 7);
        server.setMostInFlight(4, 1);
        RemoteApi remote(standInOptions(server.base()));
        std::string error;
        QVERIFY2(remote.connect(&error), error.c_str());
        SyncPace pace;
        pace.parallel = 16;
        const PushReport pushed = runPush(local.engine(), local.database(), remote, "district", {}, {}, {}, pace);
        QVERIFY2(pushed.completed, pushed.error.c_str());
        QVERIFY2(pushed.refused == 0, pushed.toJson()["groups"].dump().c_str());
        QCOMPARE(pushed.pushedBack, server.tooManyRequests());
        QVERIFY(pushed.pushedBack > 0);
        QVERIFY2(pushed.fewestInFlight <= 4, std::to_string(pushed.fewestInFlight).c_str());
        // The Retry-After was kept: each request answered 429 came back a second later at the soonest
        // (a lower bound the client promises, not a measure of speed).
        const std::vector<qint64> &waits = server.waitsAfterTooMany();
        QVERIFY(!waits.empty());
        for (qint64 waited : waits)
            QVERIFY2(waited >= 1000, (std::to_string(waited) + " ms after a 429 with Retry-After: 1").c_str());
        qInfo("%zu requests sent again after a 429, the soonest %lld ms after it", waits.size(),
              static_cast<long long>(*std::min_element(waits.begin(), waits.end())));
        // Slowed down, not hammering: a 429 for a few in a hundred requests.
        QVERIFY2(pushed.pushedBack * 20 < pushed.requests,
                 (std::to_string(pushed.pushedBack) + " of " + std::to_string(pushed.requests)).c_str());
        checkOneRecordPerDocument(local, server);
        qInfo("%d requests, %d answered 429, the window went down to %d", pushed.requests, pushed.pushedBack,
              pushed.fewestInFlight);
    }

    // steward-cli killed in the middle of a push with 16 requests in flight: the database opens and
    // passes its check, and the push run again finishes without sending any document twice as two.
    void aPushKilledWithRequestsInFlightLosesNothing()
    {
        Fixture local;
        local.loadSampleDistrict(2026, 8);
        OdsApiStandIn server(local.model());
        server.setAnswerDelays(20, 3);
        const std::size_t total = documentCount(local);
        QProcess cli;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("STEWARD_CLIENT_SECRET"), QStringLiteral("s3cret"));
        cli.setProcessEnvironment(environment);
        cli.start(cliPath(), {"--db", QString::fromStdString(local.databasePath()), "sync", "push", "--to",
                              QString::fromStdString(server.base()), "--client", "district", "--parallel", "16"});
        QVERIFY(cli.waitForStarted());
        QVERIFY2(QTest::qWaitFor([&] { return server.records().size() >= total / 3 || cli.state() == QProcess::NotRunning; },
                                 120000),
                 "the push did not get a third of the way");
        QVERIFY2(cli.state() == QProcess::Running, cli.readAllStandardError().constData());
        const int heldWhenKilled = server.mostHeldAtOnce();
        ::kill(static_cast<pid_t>(cli.processId()), SIGKILL);
        cli.waitForFinished();
        QVERIFY(server.records().size() < total);
        QVERIFY2(heldWhenKilled >= 8, std::to_string(heldWhenKilled).c_str());
        // What the killed process had written is whole.
        QVERIFY2(local.engine().check().clean(), local.engine().check().toJson().dump().c_str());

        RemoteApi remote(standInOptions(server.base()));
        std::string error;
        QVERIFY2(remote.connect(&error), error.c_str());
        const PushReport again = runPush(local.engine(), local.database(), remote, "district");
        QVERIFY2(again.completed && again.refused == 0 && again.conflicts == 0, again.toJson()["groups"].dump().c_str());
        checkOneRecordPerDocument(local, server);
        QCOMPARE(runPush(local.engine(), local.database(), remote, "district").plan.items.size(), std::size_t(0));
    }

    // Tokens that expire in the middle of a push with 16 requests in flight: one new token for all of
    // them each time, and nothing refused for it.
    void anExpiredTokenIsRenewedOnceForEverythingInFlight()
    {
        Fixture local;
        local.loadSampleDistrict(2026, 4);
        OdsApiStandIn server(local.model());
        server.setAnswerDelays(4, 11);
        server.setTokenLifetime(100);
        RemoteApi remote(standInOptions(server.base()));
        std::string error;
        QVERIFY2(remote.connect(&error), error.c_str());
        SyncPace pace;
        pace.parallel = 16;
        server.resetCounts();
        const PushReport pushed = runPush(local.engine(), local.database(), remote, "district", {}, {}, {}, pace);
        QVERIFY2(pushed.completed && pushed.refused == 0, pushed.toJson()["groups"].dump().c_str());
        checkOneRecordPerDocument(local, server);
        const int expiries = server.dataRequests() / 100;
        QVERIFY(expiries >= 2);
        // The first token, and one a expiry (not one for each request in flight when it expired).
        qInfo("%d data requests, %d expiries, %d tokens", server.dataRequests(), expiries, server.tokensIssued());
        QVERIFY2(server.tokensIssued() <= 1 + expiries + 1,
                 (std::to_string(server.tokensIssued()) + " tokens for " + std::to_string(expiries) + " expiries").c_str());
    }

    // The carrier gives a request up when nothing has moved for its idle timeout, not when the whole
    // answer takes longer: a target that trickles a large page is waited for, a silent one is not.
    void aSilentTargetIsGivenUpAfterItsIdleTimeout()
    {
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        std::vector<std::unique_ptr<QTimer>> tricklers;
        QObject::connect(&server, &QTcpServer::newConnection, &server, [&server, &tricklers] {
            QTcpSocket *socket = server.nextPendingConnection();
            QObject::connect(socket, &QTcpSocket::readyRead, socket, [socket, &tricklers] {
                const QByteArray request = socket->readAll();
                if (!request.contains("/trickle"))
                    return; // silent
                socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n");
                auto timer = std::make_unique<QTimer>();
                auto sent = std::make_shared<int>(0);
                QObject::connect(timer.get(), &QTimer::timeout, socket, [socket, sent, raw = timer.get()] {
                    socket->write(QByteArray(1, "[1,2,3,4,5 ]"[*sent]));
                    if (++*sent == 12)
                        raw->stop();
                });
                timer->start(100); // 1.2 s in all, 0.1 s between bytes
                tricklers.push_back(std::move(timer));
            });
        });
        const std::string base = "http://127.0.0.1:" + std::to_string(server.serverPort());
        HttpCarrier carrier;
        HttpCall silent{"GET", base + "/silent", "GET /silent", {"Accept: application/json"}, {}, 500, {}, false};
        QElapsedTimer waited;
        waited.start();
        const RemoteResponse given = carrier.exchange(silent);
        QCOMPARE(given.status, 0);
        QVERIFY2(given.networkError.find("no answer within") == 0, given.networkError.c_str());
        QCOMPARE(given.request, std::string("GET /silent"));
        QVERIFY2(waited.elapsed() >= 500, std::to_string(waited.elapsed()).c_str());

        HttpCall trickle{"GET", base + "/trickle", "GET /trickle", {}, {}, 500, {}, false};
        const RemoteResponse slow = carrier.exchange(trickle);
        QVERIFY2(slow.status == 200, slow.describeWithRequest().c_str());
        QCOMPARE(slow.body, QByteArray("[1,2,3,4,5 ]"));
        QCOMPARE(slow.header("content-type"), std::string("application/json"));
    }
};

QTEST_GUILESS_MAIN(TestOdsApi)
#include "tst_odsapi.moc"
