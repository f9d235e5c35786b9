// Two Steward instances over loopback: A pushes to B (`steward-cli serve`), B's documents equal A's;
// a document B refuses lands in A's failure list with B's problem details; deletes and identity
// changes travel; a push killed midway and run again completes without duplicates; a pull into an
// empty database reproduces B.
#include "CliSupport.h"
#include "Sync.h"
#include "TestSupport.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <thread>

#include <signal.h>

using namespace steward;
using namespace steward::test;

namespace {

// Every stored document as "Resource body", sorted: what must be equal on both sides.
std::vector<std::string> contents(const std::string &db)
{
    // The text, not its stored form: each database trains its own dictionaries (BodyCodec).
    std::unique_ptr<Database> reader = Database::open(db, Database::Access::ReadOnly);
    SQLite::Statement q(reader->connection(), "SELECT resource || ' ' || steward_text(body) FROM documents ORDER BY 1");
    std::vector<std::string> out;
    while (q.executeStep())
        out.push_back(q.getColumn(0).getString());
    return out;
}

std::int64_t scalar(const std::string &db, const std::string &sql)
{
    // B's server writes meanwhile: a reader can meet a lock for a moment (WAL recovery by a
    // connection its checkpointer opens), as the product's own readers wait it out.
    SQLite::Database d(db, SQLite::OPEN_READONLY, Database::kBusyTimeoutMs);
    Database::registerFunctions(d);
    return d.execAndGet(sql).getInt64();
}

} // namespace

class TestSyncLoop : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_b;
    Credentials m_client;
    std::unique_ptr<Server> m_server;
    QString m_url;

    CliRun sync(const QString &db, const QStringList &args)
    {
        qputenv("STEWARD_CLIENT_SECRET", m_client.secret);
        CliRun run = runCli(QStringList{"--db", db, "sync"} + args + QStringList{"--progress", "none"}, "");
        qunsetenv("STEWARD_CLIENT_SECRET");
        return run;
    }
    CliRun push(const QString &db) { return sync(db, {"push", "--to", m_url, "--client", "district"}); }

private Q_SLOTS:
    void initTestCase()
    {
        m_b = m_dir.filePath("b.db");
        m_client = addClient(m_b, "district");
        QVERIFY(!m_client.secret.isEmpty());
        m_server = std::make_unique<Server>(m_b, QStringList{"--rate", "1000000"});
        QVERIFY2(m_server->port() != 0, qPrintable(m_server->firstLine()));
        m_url = QStringLiteral("http://127.0.0.1:%1").arg(m_server->port());
    }

    void pushMakesBEqualToA()
    {
        Fixture a;
        a.seedDescriptors();
        a.create("/ed-fi/schools", Fixture::school(100));
        a.create("/ed-fi/schools", Fixture::school(200, "Second"));
        a.create("/ed-fi/courses", Fixture::course("ALG-1", 100));
        a.create("/ed-fi/schoolYearTypes", Fixture::schoolYear(2022));
        a.create("/ed-fi/sessions", Fixture::session(100, 2022, "Fall"));
        const QString dbA = QString::fromStdString(a.databasePath());

        CliRun dry = sync(dbA, {"push", "--to", m_url, "--client", "district", "--dry-run"});
        QCOMPARE(dry.exitCode, 0);
        QVERIFY2(dry.stdoutText.contains("ed-fi/schools  upsert 2"), qPrintable(dry.stdoutText));
        QCOMPARE(scalar(m_b.toStdString(), "SELECT count(*) FROM documents"), 0); // a dry run sends nothing

        CliRun first = push(dbA);
        QVERIFY2(first.exitCode == 0, qPrintable(first.stderrText + first.stdoutText));
        QCOMPARE(contents(m_b.toStdString()), contents(a.databasePath()));
        // What the push carried, signed off: the change range up to the target's push cursor.
        CliRun signedOff = runCli({"--db", dbA, "submission", "sign", "--push", "--by", "A. Steward", "--json"}, "");
        QVERIFY2(signedOff.exitCode == 0, qPrintable(signedOff.stderrText));
        const Json submission = Json::parse(signedOff.stdoutText.toStdString());
        QCOMPARE(submission["kind"].get<std::string>(), std::string("push"));
        QCOMPARE(submission["what"]["target"].get<std::string>(), m_url.toStdString());
        QCOMPARE(submission["seqFrom"].get<std::int64_t>(), std::int64_t(1));
        QCOMPARE(submission["seqTo"].get<std::int64_t>(),
                 scalar(a.databasePath(), "SELECT push_cursor FROM sync_targets"));
        QVERIFY(submission["seqTo"].get<std::int64_t>() >= 5);
        CliRun nothingNew = runCli({"--db", dbA, "submission", "sign", "--push", "--by", "A. Steward"}, "");
        QCOMPARE(nothingNew.exitCode, 1);
        QVERIFY2(nothingNew.stderrText.contains("nothing was pushed"), qPrintable(nothingNew.stderrText));
        // Pushing again finds nothing new.
        CliRun again = push(dbA);
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(again.stderrText.contains("pushed 0 document(s) now") &&
                     again.stderrText.contains("; 0 the target had already; 0 refused now;"),
                 qPrintable(again.stderrText));

        // An identity change and a delete travel; the Session keeps its id on B (updated, not re-created).
        const std::string sessionOnB = std::to_string(scalar(m_b.toStdString(), "SELECT doc_key FROM documents WHERE resource = 'Session'"));
        Response found = a.call("GET", "/ed-fi/sessions?sessionName=Fall");
        QCOMPARE(found.body.size(), std::size_t(1));
        const std::string sessionId = found.body[0]["id"].get<std::string>();
        QCOMPARE(a.call("PUT", "/ed-fi/sessions/" + sessionId, Fixture::session(100, 2022, "Fall Semester")).status, 204);
        const std::string courseId = a.call("GET", "/ed-fi/courses?courseCode=ALG-1").body[0]["id"].get<std::string>();
        QCOMPARE(a.call("DELETE", "/ed-fi/courses/" + courseId).status, 204);
        CliRun changes = sync(dbA, {"push", "--to", m_url, "--client", "district", "--sign-off", "B. Steward"});
        QVERIFY2(changes.exitCode == 0, qPrintable(changes.stderrText + changes.stdoutText));
        QVERIFY2(changes.stderrText.contains("submission #2: push to " + m_url) &&
                     changes.stderrText.contains("signed off by B. Steward"),
                 qPrintable(changes.stderrText));
        QCOMPARE(contents(m_b.toStdString()), contents(a.databasePath()));
        QCOMPARE(std::to_string(scalar(m_b.toStdString(), "SELECT doc_key FROM documents WHERE resource = 'Session'")), sessionOnB);
        QCOMPARE(scalar(m_b.toStdString(), "SELECT count(*) FROM changes WHERE op = 'key-change'"), 1);
    }

    void refusalsShowBsAnswerAndHoldTheCursor()
    {
        Fixture a;
        a.seedDescriptors();
        const std::string schoolId = a.create("/ed-fi/schools", Fixture::school(300, "Third"));
        const QString dbA = QString::fromStdString(a.databasePath());
        QCOMPARE(push(dbA).exitCode, 0);
        // Someone adds a Course for that School on B directly; A then deletes the School.
        CliRun onB = runCli({"--db", m_b, "requests"},
                            QByteArray::fromStdString(Json{{"method", "POST"}, {"path", "/ed-fi/courses"},
                                                           {"body", Fixture::course("BIO-1", 300)}}.dump() + "\n"));
        QCOMPARE(onB.responses.at(0)["status"].get<int>(), 201);
        QCOMPARE(a.call("DELETE", "/ed-fi/schools/" + schoolId).status, 204);

        CliRun refused = push(dbA);
        QCOMPARE(refused.exitCode, 0); // the push ran to the end; the refusal is an outcome
        QVERIFY2(refused.stdoutText.contains("refused  delete ed-fi/schools"), qPrintable(refused.stdoutText));
        QVERIFY2(refused.stdoutText.contains("dependent-item-exists"), qPrintable(refused.stdoutText));
        SyncState state(a.database().connection());
        const SyncTarget target = state.ensureTarget(m_url.toStdString(), "district");
        const std::vector<SyncFailure> failures = state.failures(target.targetId);
        QCOMPARE(failures.size(), std::size_t(1));
        QCOMPARE(failures[0].id, schoolId);
        QCOMPARE(failures[0].status, 409);
        QCOMPARE(failures[0].problem["type"].get<std::string>(), std::string(problem::kDependentItemExists));
        QCOMPARE(failures[0].problem["referencedBy"][0]["resource"].get<std::string>(), std::string("Course"));
        // The cursor stays before the refused delete, so the next push tries it again.
        QVERIFY(target.pushCursor < scalar(a.databasePath(), "SELECT max(seq) FROM changes"));
        CliRun status = runCli({"--db", dbA, "sync", "status"}, "");
        QVERIFY2(status.stdoutText.contains("refused 1"), qPrintable(status.stdoutText));

        // Unchanged since, the next push does not send it again: listed as still refused.
        CliRun unchanged = push(dbA);
        QCOMPARE(unchanged.exitCode, 0);
        QVERIFY2(unchanged.stdoutText.contains("still-refused  delete ed-fi/schools"), qPrintable(unchanged.stdoutText));
        QVERIFY2(unchanged.stderrText.contains("1 still refused") &&
                     unchanged.stderrText.contains("--retry-refused sends them"),
                 qPrintable(unchanged.stderrText));

        // Once B's Course is gone, a push asked to retry delivers the delete and clears the failure.
        CliRun clear = runCli({"--db", m_b, "requests"},
                              QByteArray::fromStdString(Json{{"method", "GET"}, {"path", "/ed-fi/courses?courseCode=BIO-1"}}.dump() + "\n"));
        const std::string bioId = clear.responses.at(0)["body"][0]["id"].get<std::string>();
        runCli({"--db", m_b, "requests"},
               QByteArray::fromStdString(Json{{"method", "DELETE"}, {"path", "/ed-fi/courses/" + bioId}}.dump() + "\n"));
        QCOMPARE(sync(dbA, {"push", "--to", m_url, "--client", "district", "--retry-refused"}).exitCode, 0);
        QVERIFY(state.failures(target.targetId).empty());
        QCOMPARE(scalar(m_b.toStdString(), "SELECT count(*) FROM documents WHERE natural_key = '300' AND resource = 'School'"), 0);
    }

    // Two stewards change one student's middle name differently: the second push keeps its own as a
    // conflict; sync conflicts lists it, sync resolve decides it, fix undo opens it again.
    void conflictsListedAndResolvedFromTheCommandLine()
    {
        Fixture a;
        a.seedDescriptors();
        const Json ada{{"studentUniqueId", "CLI-1"}, {"firstName", "Ada"}, {"lastSurname", "Byron"}, {"birthDate", "2010-12-10"}};
        const std::string id = a.create("/ed-fi/students", ada);
        const QString dbA = QString::fromStdString(a.databasePath());
        QCOMPARE(push(dbA).exitCode, 0);
        const QString dbC = m_dir.filePath("c-conflicts.db");
        QCOMPARE(sync(dbC, {"pull", "--from", m_url, "--client", "district"}).exitCode, 0);
        CliRun edited = runCli({"--db", dbC, "requests"}, QByteArray::fromStdString(
                                   Json{{"method", "GET"}, {"path", "/ed-fi/students?studentUniqueId=CLI-1"}}.dump() + "\n"));
        Json onC = edited.responses.at(0)["body"][0];
        const std::string idOnC = onC["id"].get<std::string>();
        for (const char *field : {"id", "_etag", "_lastModifiedDate"})
            onC.erase(field);
        onC["middleName"] = "X";
        runCli({"--db", dbC, "requests"}, QByteArray::fromStdString(
                   Json{{"method", "PUT"}, {"path", "/ed-fi/students/" + idOnC}, {"body", onC}}.dump() + "\n"));
        QCOMPARE(push(dbC).exitCode, 0);
        Json mine = ada;
        mine["middleName"] = "Y";
        QCOMPARE(a.call("PUT", "/ed-fi/students/" + id, mine).status, 204);

        CliRun pushed = push(dbA);
        QCOMPARE(pushed.exitCode, 0); // a conflict is an outcome, not a failure
        QVERIFY2(pushed.stdoutText.contains("conflict  upsert ed-fi/students " + QString::fromStdString(id)),
                 qPrintable(pushed.stdoutText));
        QVERIFY2(pushed.stderrText.contains("1 conflicts"), qPrintable(pushed.stderrText));
        CliRun listed = runCli({"--db", dbA, "sync", "conflicts"}, "");
        QVERIFY2(listed.stdoutText.contains("$.middleName  base (none)  mine \"Y\"  theirs \"X\""),
                 qPrintable(listed.stdoutText));
        CliRun asJson = runCli({"--db", dbA, "sync", "conflicts", "--json"}, "");
        const Json conflicts = Json::parse(asJson.stdoutText.toStdString());
        QCOMPARE(conflicts.size(), std::size_t(1));
        QCOMPARE(conflicts[0]["fields"][0]["path"].get<std::string>(), std::string("$.middleName"));
        QCOMPARE(runCli({"--db", dbA, "sync", "status"}, "").stdoutText.contains("conflicts 1"), true);

        // A field that is not in conflict is refused; a decision per field is taken and journaled.
        CliRun wrong = runCli({"--db", dbA, "sync", "resolve", QString::fromStdString(id), "--field", "$.firstName=theirs"}, "");
        QCOMPARE(wrong.exitCode, 1);
        QVERIFY2(wrong.stderrText.contains("not a field in conflict"), qPrintable(wrong.stderrText));
        CliRun resolved = runCli({"--db", dbA, "sync", "resolve", QString::fromStdString(id), "--field", "$.middleName=theirs"}, "");
        QVERIFY2(resolved.exitCode == 0, qPrintable(resolved.stderrText));
        const QRegularExpressionMatch op = QRegularExpression("operation (\\d+)").match(resolved.stdoutText);
        QVERIFY2(op.hasMatch(), qPrintable(resolved.stdoutText));
        QCOMPARE(a.call("GET", "/ed-fi/students/" + id).body["middleName"].get<std::string>(), std::string("X"));
        QVERIFY(runCli({"--db", dbA, "sync", "conflicts"}, "").stdoutText.contains("No open sync conflicts"));
        CliRun undone = runCli({"--db", dbA, "fix", "undo", op.captured(1)}, "");
        QVERIFY2(undone.exitCode == 0, qPrintable(undone.stderrText));
        QCOMPARE(a.call("GET", "/ed-fi/students/" + id).body["middleName"].get<std::string>(), std::string("Y"));
        QVERIFY(runCli({"--db", dbA, "sync", "conflicts"}, "").stdoutText.contains("$.middleName"));

        // Mine, then: the next push sends it with B's current etag.
        QCOMPARE(runCli({"--db", dbA, "sync", "resolve", QString::fromStdString(id), "--take", "mine"}, "").exitCode, 0);
        CliRun sent = push(dbA);
        QVERIFY2(sent.exitCode == 0 && sent.stderrText.contains("0 conflicts"), qPrintable(sent.stderrText));
        QCOMPARE(scalar(m_b.toStdString(), "SELECT count(*) FROM documents WHERE resource = 'Student' AND "
                                           "json_extract(steward_text(body), '$.middleName') = 'Y'"),
                 1);
    }

    void killedPushCompletesWhenRunAgain()
    {
        Fixture a;
        a.seedDescriptors();
        a.engine().beginBatch();
        for (int i = 0; i < 600; ++i)
            QCOMPARE(a.call("POST", "/ed-fi/schools", Fixture::school(40000 + i)).status, 201);
        a.engine().commitBatch();
        const QString dbA = QString::fromStdString(a.databasePath());
        QProcess child;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("STEWARD_CLIENT_SECRET", QString::fromUtf8(m_client.secret));
        child.setProcessEnvironment(environment);
        child.start(cliPath(),
                    {"--db", dbA, "sync", "push", "--to", m_url, "--client", "district", "--progress", "none"});
        QVERIFY(child.waitForStarted());
        // Kill it once B has some but not all of them.
        for (int i = 0; i < 600 && scalar(m_b.toStdString(), "SELECT count(*) FROM documents WHERE natural_key LIKE '4____'") < 100; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        ::kill(static_cast<pid_t>(child.processId()), SIGKILL);
        child.waitForFinished(10000);
        const std::int64_t partial = scalar(m_b.toStdString(), "SELECT count(*) FROM documents WHERE natural_key LIKE '4____'");
        QVERIFY2(partial > 0 && partial < 600, qPrintable(QString::number(partial)));

        CliRun rest = push(dbA);
        QVERIFY2(rest.exitCode == 0, qPrintable(rest.stderrText));
        QCOMPARE(scalar(m_b.toStdString(), "SELECT count(*) FROM documents WHERE natural_key LIKE '4____'"), 600);
        QCOMPARE(scalar(m_b.toStdString(), "SELECT count(*) FROM documents WHERE natural_key LIKE '4____' GROUP BY resource"), 600);
        QCOMPARE(scalar(m_b.toStdString(), "SELECT count(DISTINCT natural_key) FROM documents WHERE natural_key LIKE '4____'"), 600);
    }

    void pullIntoAnEmptyDatabaseReproducesB()
    {
        const QString c = m_dir.filePath("c.db");
        CliRun pulled = sync(c, {"pull", "--from", m_url, "--client", "district"});
        QVERIFY2(pulled.exitCode == 0, qPrintable(pulled.stderrText));
        QCOMPARE(contents(c.toStdString()), contents(m_b.toStdString()));
        // Pulling again adds nothing, and nothing pulled is pushed back.
        CliRun again = sync(c, {"pull", "--from", m_url, "--client", "district"});
        QVERIFY2(again.stderrText.contains(" 0 created, 0 updated"), qPrintable(again.stderrText));
        CliRun dry = sync(c, {"push", "--to", m_url, "--client", "district", "--dry-run"});
        QVERIFY2(dry.stdoutText.contains("Push plan: 0 documents"), qPrintable(dry.stdoutText));
        // Every pulled document knows its id on B.
        QCOMPARE(scalar(c.toStdString(), "SELECT count(*) FROM sync_remote_ids"),
                 scalar(c.toStdString(), "SELECT count(*) FROM documents"));
    }

    // --dry-run asks B and sends nothing: a new school, a changed one with the field that differs, and
    // one B would refuse because it lacks a descriptor value (A has it from an earlier pull of B, which
    // B has since deleted, so the push does not send it).
    void pushPreviewNamesWhatTheTargetWouldRefuse()
    {
        Fixture a;
        a.seedDescriptors();
        a.create("/ed-fi/schools", Fixture::school(700, "Seven Hundred"));
        const QString dbA = QString::fromStdString(a.databasePath());
        CliRun first = push(dbA);
        QVERIFY2(first.exitCode == 0, qPrintable(first.stderrText));

        Request pulled;
        pulled.method = "POST";
        pulled.path = "/ed-fi/gradeLevelDescriptors";
        pulled.body = Json{{"namespace", "uri://ed-fi.org/GradeLevelDescriptor"}, {"codeValue", "Twelfth grade"},
                           {"shortDescription", "12"}};
        pulled.actor = "pull:" + m_url.toStdString();
        QCOMPARE(a.engine().handle(pulled).status, 201);
        Json renamed = Fixture::school(700, "Seven Hundred Academy");
        QCOMPARE(a.call("POST", "/ed-fi/schools", renamed).status, 200);
        a.create("/ed-fi/schools", Fixture::school(701, "Seven Oh One"));
        Json twelfth = Fixture::school(702, "Seven Oh Two");
        twelfth["gradeLevels"][0]["gradeLevelDescriptor"] = "uri://ed-fi.org/GradeLevelDescriptor#Twelfth grade";
        a.create("/ed-fi/schools", twelfth);

        const std::int64_t onB = scalar(m_b.toStdString(), "SELECT count(*) FROM documents");
        const QString report = m_dir.filePath("preview.json");
        CliRun dry = sync(dbA, {"push", "--to", m_url, "--client", "district", "--dry-run", "--report", report});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.stderrText + dry.stdoutText));
        QCOMPARE(scalar(m_b.toStdString(), "SELECT count(*) FROM documents"), onB); // nothing sent
        QVERIFY2(dry.stdoutText.contains("changed  ed-fi/schools 700"), qPrintable(dry.stdoutText));
        QVERIFY2(dry.stdoutText.contains("$.nameOfInstitution: \"Seven Hundred\" -> \"Seven Hundred Academy\""),
                 qPrintable(dry.stdoutText));
        QVERIFY2(dry.stdoutText.contains("new  ed-fi/schools 701"), qPrintable(dry.stdoutText));
        QVERIFY2(dry.stdoutText.contains("refused  ed-fi/schools 702"), qPrintable(dry.stdoutText));
        QVERIFY2(dry.stdoutText.contains("descriptor value uri://ed-fi.org/GradeLevelDescriptor#Twelfth grade "
                                         "(gradeLevels[0].gradeLevelDescriptor): the target does not have it"),
                 qPrintable(dry.stdoutText));
        QVERIFY2(dry.stdoutText.contains("1 new, 1 changed, 0 unchanged, 1 it would refuse"), qPrintable(dry.stdoutText));
        QFile file(report);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const Json json = Json::parse(file.readAll().toStdString());
        QCOMPARE(json["counts"]["refused"].get<int>(), 1);

        // The push itself: B refuses exactly the one the preview named.
        CliRun sent = push(dbA);
        QVERIFY2(sent.stdoutText.contains("refused  upsert ed-fi/schools"), qPrintable(sent.stdoutText));
        QVERIFY2(sent.stderrText.contains("1 refused"), qPrintable(sent.stderrText));
    }

    void changesFeedPrintsAndFollows()
    {
        Fixture a;
        a.seedDescriptors();
        const std::string schoolId = a.create("/ed-fi/schools", Fixture::school(900));
        const QString dbA = QString::fromStdString(a.databasePath());
        const std::int64_t last = scalar(a.databasePath(), "SELECT max(seq) FROM changes");
        CliRun all = runCli({"--db", dbA, "changes"}, "");
        QCOMPARE(all.exitCode, 0);
        QCOMPARE(all.responses.size(), static_cast<std::size_t>(last));
        QCOMPARE(all.responses.back()["id"].get<std::string>(), schoolId);
        QCOMPARE(all.responses.back()["op"].get<std::string>(), std::string("insert"));
        CliRun since = runCli({"--db", dbA, "changes", "--since", QString::number(last - 1)}, "");
        QCOMPARE(since.responses.size(), std::size_t(1));
        QCOMPARE(runCli({"--db", dbA, "changes", "--since", "soon"}, "").exitCode, 2);

        // --follow prints what another program commits while it runs.
        QProcess follower;
        follower.start(cliPath(), {"--db", dbA, "changes", "--since", QString::number(last), "--follow"});
        QVERIFY(follower.waitForStarted());
        QCOMPARE(a.call("DELETE", "/ed-fi/schools/" + schoolId).status, 204);
        QTRY_VERIFY_WITH_TIMEOUT((follower.waitForReadyRead(100), follower.canReadLine()), 10000);
        const Json line = Json::parse(follower.readLine().toStdString());
        QCOMPARE(line["op"].get<std::string>(), std::string("delete"));
        QCOMPARE(line["seq"].get<std::int64_t>(), last + 1);
        follower.terminate();
        QVERIFY(follower.waitForFinished(10000));
        QCOMPARE(follower.exitCode(), 0);
    }

    // A push and a pull over HTTPS to a serve whose certificate a district authority made here:
    // trusted with --ca-cert, refused without it (with the reason and the way out). The client's
    // secret appears in no output of either side: stdout, stderr, the report file.
    void pushAndPullOverTlsWithTheDistrictsAuthority()
    {
        if (!hasOpenssl())
            QSKIP("openssl is not installed: no certificate to serve TLS with");
        const TlsFiles tls = makeTlsFiles(m_dir.path(), "district");
        QVERIFY2(tls.problem.isEmpty(), qPrintable(tls.problem));
        const QString dbB = m_dir.filePath("b-tls.db");
        const Credentials client = addClient(dbB, "district");
        Server server(dbB, {"--tls-cert", tls.cert, "--tls-key", tls.key, "--rate", "1000000"});
        QVERIFY2(server.port() != 0, qPrintable(server.firstLine()));
        const QString url = QStringLiteral("https://127.0.0.1:%1").arg(server.port());

        Fixture a;
        a.seedDescriptors();
        a.create("/ed-fi/schools", Fixture::school(100));
        a.create("/ed-fi/schoolYearTypes", Fixture::schoolYear(2022));
        a.create("/ed-fi/sessions", Fixture::session(100, 2022, "Fall"));
        const QString dbA = QString::fromStdString(a.databasePath());
        auto syncWith = [&](const QString &db, const QStringList &args) {
            qputenv("STEWARD_CLIENT_SECRET", client.secret);
            CliRun run = runCli(QStringList{"--db", db, "sync"} + args + QStringList{"--progress", "json"}, "");
            qunsetenv("STEWARD_CLIENT_SECRET");
            return run;
        };
        std::vector<CliRun> runs;
        QStringList reports;

        // The system's authorities do not know the district's: refused, with the reason, not retried.
        CliRun untrusted = syncWith(dbA, {"push", "--to", url, "--client", "district"});
        QCOMPARE(untrusted.exitCode, 1);
        QVERIFY2(untrusted.stderrText.contains(url) && untrusted.stderrText.contains("certificate was not accepted")
                     && untrusted.stderrText.contains("--ca-cert"),
                 qPrintable(untrusted.stderrText));
        runs.push_back(untrusted);

        reports << m_dir.filePath("tls-push.json") << m_dir.filePath("tls-pull.json");
        CliRun pushed = syncWith(dbA, {"push", "--to", url, "--client", "district", "--ca-cert", tls.caCert,
                                       "--report", reports[0]});
        QVERIFY2(pushed.exitCode == 0, qPrintable(pushed.stderrText + pushed.stdoutText));
        QCOMPARE(contents(dbB.toStdString()), contents(a.databasePath()));
        runs.push_back(pushed);
        const QString dbC = m_dir.filePath("c-tls.db");
        CliRun pulled = syncWith(dbC, {"pull", "--from", url, "--client", "district", "--ca-cert", tls.caCert,
                                       "--report", reports[1]});
        QVERIFY2(pulled.exitCode == 0, qPrintable(pulled.stderrText));
        QCOMPARE(contents(dbC.toStdString()), contents(dbB.toStdString()));
        runs.push_back(pulled);

        QCOMPARE(server.stop(), 0);
        const QString secret = QString::fromUtf8(client.secret);
        QVERIFY2(!server.output().contains(secret), qPrintable(server.output()));
        for (const CliRun &run : runs)
            QVERIFY2(!run.stdoutText.contains(secret) && !run.stderrText.contains(secret)
                         && !run.stderrText.contains("Bearer"),
                     qPrintable(run.stderrText));
        for (const QString &report : reports) {
            QFile file(report);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(report));
            const QByteArray text = file.readAll();
            QVERIFY(!text.isEmpty());
            QVERIFY2(!text.contains(client.secret) && !text.contains("Bearer"), qPrintable(report));
        }
    }

    // A certificate signed by an authority that is not the one trusted, one that has expired and one
    // for another server's name: each refused with the address and curl's reason.
    void wrongCertificatesAreRefusedWithTheReason()
    {
        if (!hasOpenssl())
            QSKIP("openssl is not installed: no certificates to refuse");
        const TlsFiles district = makeTlsFiles(m_dir.path(), "trusted");
        const TlsFiles stranger = makeTlsFiles(m_dir.path(), "stranger");
        QVERIFY2(district.problem.isEmpty() && stranger.problem.isEmpty(),
                 qPrintable(district.problem + stranger.problem));
        const QString expired = m_dir.filePath("expired-server.crt");
        QVERIFY(signAgain(district, district, -1, expired));
        const QString elsewhere = m_dir.filePath("elsewhere-server.crt");
        QVERIFY(signAgain(district, district, 2, elsewhere, "DNS:steward.district.example"));
        const QString dbB = m_dir.filePath("b-wrong.db");
        const Credentials client = addClient(dbB, "district");
        const struct
        {
            QString certificate;
            QString key;
            QString reason;
        } cases[] = {{stranger.cert, stranger.key, "unable to get local issuer certificate"},
                     {expired, district.key, "certificate has expired"},
                     {elsewhere, district.key, "no alternative certificate subject name matches"}};
        for (const auto &wrong : cases) {
            Server server(dbB, {"--tls-cert", wrong.certificate, "--tls-key", wrong.key});
            QVERIFY2(server.port() != 0, qPrintable(server.firstLine()));
            const QString url = QStringLiteral("https://127.0.0.1:%1").arg(server.port());
            qputenv("STEWARD_CLIENT_SECRET", client.secret);
            const CliRun refused = runCli({"--db", m_dir.filePath("d-wrong.db"), "sync", "pull", "--from", url,
                                           "--client", "district", "--ca-cert", district.caCert},
                                          "");
            qunsetenv("STEWARD_CLIENT_SECRET");
            QCOMPARE(refused.exitCode, 1);
            QVERIFY2(refused.stderrText.contains(url) && refused.stderrText.contains("certificate was not accepted")
                         && refused.stderrText.contains(wrong.reason),
                     qPrintable(refused.stderrText));
            QCOMPARE(server.stop(), 0);
        }
    }

    void wrongSecretOrUnreachableTargetIsAClearError()
    {
        const QString d = m_dir.filePath("d.db");
        qputenv("STEWARD_CLIENT_SECRET", "not-the-secret");
        CliRun wrong = runCli({"--db", d, "sync", "pull", "--from", m_url, "--client", "district"}, "");
        qunsetenv("STEWARD_CLIENT_SECRET");
        QCOMPARE(wrong.exitCode, 1);
        QVERIFY2(wrong.stderrText.contains("no token") && wrong.stderrText.contains("401"), qPrintable(wrong.stderrText));
        QVERIFY2(!wrong.stderrText.contains("not-the-secret") && !wrong.stdoutText.contains("not-the-secret"),
                 qPrintable(wrong.stderrText));
        CliRun none = runCli({"--db", d, "sync", "push", "--to", m_url, "--client", "district", "--secret-env", "STEWARD_TEST_UNSET"}, "");
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.stderrText.contains("STEWARD_TEST_UNSET is not set"), qPrintable(none.stderrText));
    }
};

QTEST_GUILESS_MAIN(TestSyncLoop)
#include "tst_syncloop.moc"
