// Readiness: counts per resource, the verdict, and how status / export / sync push use it.
#include "CliSupport.h"
#include "Readiness.h"
#include "SampleDistrict.h"
#include "TestSupport.h"

#include <SQLiteCpp/Statement.h>

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace steward;
using namespace steward::test;

namespace {

const ResourceReadiness *rowOf(const ReadinessReport &report, const std::string &resource)
{
    for (const ResourceReadiness &row : report.resources)
        if (row.resource == resource)
            return &row;
    return nullptr;
}

std::int64_t documentCount(Fixture &f, const std::string &resource)
{
    SQLite::Statement query(f.database().connection(), "SELECT COUNT(*) FROM documents WHERE resource = ?");
    query.bind(1, resource);
    query.executeStep();
    return query.getColumn(0).getInt64();
}

void addRuleResult(Fixture &f, const std::string &rule, const std::string &severity, const std::string &resource,
                   const std::string &docId)
{
    SQLite::Statement insert(f.database().connection(),
                             "INSERT INTO rule_results (pack_id, rule_id, severity, project, resource, doc_id, "
                             "natural_key, message, found_at) VALUES ('test-pack', ?, ?, 'Ed-Fi', ?, ?, 'k', 'm', "
                             "'2026-01-01T00:00:00Z')");
    insert.bind(1, rule);
    insert.bind(2, severity);
    insert.bind(3, resource);
    insert.bind(4, docId);
    insert.exec();
}

std::int64_t lastSeq(Fixture &f)
{
    return f.database().connection().execAndGet("SELECT COALESCE(MAX(seq), 0) FROM changes").getInt64();
}

void recordBatch(Fixture &f, std::int64_t seqTo)
{
    SQLite::Statement insert(f.database().connection(),
                             "INSERT INTO batches (batch_id, created_at, seq_from, seq_to, out_dir, manifest) "
                             "VALUES (?, '2026-01-01T00:00:00Z', 0, ?, '/tmp/b', '{}')");
    insert.bind(1, "batch-" + std::to_string(seqTo));
    insert.bind(2, seqTo);
    insert.exec();
}

std::vector<std::string> ids(Fixture &f, const std::string &endpoint)
{
    std::vector<std::string> out;
    for (const Json &doc : f.call("GET", "/ed-fi/" + endpoint + "?limit=500").body)
        out.push_back(doc["id"].get<std::string>());
    return out;
}

} // namespace

class TestReadiness : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cleanDistrictIsReady()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const ReadinessReport report = computeReadiness(f.database().connection());
        QVERIFY(report.ready);
        QVERIFY(report.reasons.empty());
        QCOMPARE(QString::fromStdString(report.verdictText()), QStringLiteral("Ready to submit"));
        QVERIFY(!report.exported);
        const ResourceReadiness *students = rowOf(report, "Student");
        QVERIFY(students != nullptr);
        QCOMPARE(students->documents, documentCount(f, "Student"));
        QVERIFY(students->documents > 0);
        // Nothing exported yet: every document is a change not exported, once each.
        QCOMPARE(students->changesNotExported, students->documents);
        QCOMPARE(students->drafts, 0);
        QVERIFY(report.targets.empty());
        QVERIFY(students->changesNotSynced.empty());
    }

    void draftsAndFatalResultsMakeItNotReady()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const ResourceSchema *student = f.model().findByName("Ed-Fi", "Student");
        f.engine().saveDraft(*student, "{\"studentUniqueId\": \"1", "", 0, "tester");
        f.engine().saveDraft(*student, "{\"studentUniqueId\": \"2", "", 0, "tester");
        const std::vector<std::string> enrollments = ids(f, "studentSchoolAssociations");
        QVERIFY(enrollments.size() >= 3);
        addRuleResult(f, "r1", "fatal", "StudentSchoolAssociation", enrollments[0]);
        addRuleResult(f, "r1", "fatal", "StudentSchoolAssociation", enrollments[1]);
        addRuleResult(f, "r2", "warning", "StudentSchoolAssociation", enrollments[2]);
        addRuleResult(f, "r3", "info", "StudentSchoolAssociation", enrollments[2]);

        const ReadinessReport report = computeReadiness(f.database().connection());
        QVERIFY(!report.ready);
        // A warning blocks until someone acknowledges it; info never does.
        QCOMPARE(report.reasons.size(), std::size_t(3));
        QCOMPARE(QString::fromStdString(report.reasons[0]), QStringLiteral("2 drafts in Student"));
        QCOMPARE(QString::fromStdString(report.reasons[1]), QStringLiteral("2 fatal results in StudentSchoolAssociation"));
        QCOMPARE(QString::fromStdString(report.reasons[2]),
                 QStringLiteral("1 unacknowledged warning in StudentSchoolAssociation"));
        QCOMPARE(QString::fromStdString(report.verdictText()),
                 QStringLiteral("Not ready: 2 drafts in Student, 2 fatal results in StudentSchoolAssociation, "
                                "1 unacknowledged warning in StudentSchoolAssociation"));
        const ResourceReadiness *ssa = rowOf(report, "StudentSchoolAssociation");
        QCOMPARE(ssa->fatal, 2);
        QCOMPARE(ssa->warning, 1);
        QCOMPARE(ssa->info, 1);
        QCOMPARE(rowOf(report, "Student")->drafts, 2);

        // The scope is exactly the resources given.
        std::vector<const ResourceSchema *> scope;
        std::string error;
        QVERIFY(readinessScope(f.model(), {"schools"}, scope, error));
        const ReadinessReport schools = computeReadiness(f.database().connection(), scope);
        QVERIFY(schools.ready);
        QCOMPARE(schools.resources.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(schools.resources[0].resource), QStringLiteral("School"));
        scope.clear();
        QVERIFY(readinessScope(f.model(), {"Student"}, scope, error));
        const ReadinessReport students = computeReadiness(f.database().connection(), scope);
        QVERIFY(!students.ready);
        QCOMPARE(students.reasons.size(), std::size_t(1));
        scope.clear();
        QVERIFY(!readinessScope(f.model(), {"nonsense"}, scope, error));
        QVERIFY(error.find("nonsense") != std::string::npos);

        // The JSON carries the same.
        const Json json = report.toJson();
        QCOMPARE(json["ready"].get<bool>(), false);
        QCOMPARE(json["reasons"].size(), std::size_t(3));
    }

    void changesSinceTheNewestExportCountPerDocument()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const std::string extra = f.create("/ed-fi/students", {{"studentUniqueId", "S-EXTRA"}, {"firstName", "Ada"},
                                                               {"lastSurname", "Byron"}, {"birthDate", "2010-01-01"}});
        recordBatch(f, lastSeq(f) - 5); // an older batch: the newest one below is what counts
        recordBatch(f, lastSeq(f));
        ReadinessReport report = computeReadiness(f.database().connection());
        QVERIFY(report.exported);
        QCOMPARE(report.exportedUpTo, lastSeq(f));
        for (const ResourceReadiness &row : report.resources)
            QCOMPARE(row.changesNotExported, 0);

        // One student changed twice counts once; a deleted one counts too.
        const std::vector<std::string> students = ids(f, "students");
        const std::string changed = students[0] == extra ? students[1] : students[0];
        Json body = f.call("GET", "/ed-fi/students/" + changed).body;
        for (const char *field : {"id", "_etag", "_lastModifiedDate"})
            body.erase(field);
        body["firstName"] = "Changed";
        QCOMPARE(f.call("PUT", "/ed-fi/students/" + changed, body).status, 204);
        body["firstName"] = "Changed again";
        QCOMPARE(f.call("PUT", "/ed-fi/students/" + changed, body).status, 204);
        QCOMPARE(f.call("DELETE", "/ed-fi/students/" + extra).status, 204);
        report = computeReadiness(f.database().connection());
        QCOMPARE(rowOf(report, "Student")->changesNotExported, 2);
        QCOMPARE(rowOf(report, "School")->changesNotExported, 0);
    }

    void changesSinceEachTargetsPushCursor()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const std::int64_t cursor = lastSeq(f);
        f.database().connection().exec("INSERT INTO sync_targets (url, client, push_cursor) VALUES "
                                       "('http://a.example', 'c1', 0), ('http://b.example', 'c2', "
                                       + std::to_string(cursor) + ")");
        // A document pulled from target b is not a change to push back to b (it is for a).
        Request pulled;
        pulled.method = "POST";
        pulled.path = "/ed-fi/students";
        pulled.body = Json{{"studentUniqueId", "PULLED"}, {"firstName", "P"}, {"lastSurname", "Q"},
                           {"birthDate", "2011-02-02"}};
        pulled.actor = "pull:http://b.example";
        QCOMPARE(f.engine().handle(pulled).status, 201);
        f.create("/ed-fi/students", {{"studentUniqueId", "LOCAL"}, {"firstName", "L"}, {"lastSurname", "M"},
                                     {"birthDate", "2011-03-03"}});
        const ReadinessReport report = computeReadiness(f.database().connection());
        QCOMPARE(report.targets.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(report.targets[1].url), QStringLiteral("http://b.example"));
        QCOMPARE(report.targets[1].pushCursor, cursor);
        const ResourceReadiness *students = rowOf(report, "Student");
        QCOMPARE(students->changesNotSynced.size(), std::size_t(2));
        QCOMPARE(students->changesNotSynced[0], students->documents); // never pushed to a
        QCOMPARE(students->changesNotSynced[1], 1);                    // only LOCAL for b
        QCOMPARE(rowOf(report, "School")->changesNotSynced[1], 0);
        QCOMPARE(report.toJson()["resources"][0]["changesNotSynced"].size(), std::size_t(2));
    }

    void readsOnAReadOnlyConnection()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        f.engine().saveDraft(*f.model().findByName("Ed-Fi", "School"), "{", "", 0, "tester");
        std::unique_ptr<Database> reader = Database::open(f.databasePath(), Database::Access::ReadOnly);
        const ReadinessReport report = computeReadiness(reader->connection());
        QVERIFY(!report.ready);
        QCOMPARE(QString::fromStdString(report.reasons.at(0)), QStringLiteral("1 draft in School"));
    }

    void statusCommand()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const QString db = QString::fromStdString(f.databasePath());
        CliRun ready = runCli({"--db", db, "status", "--strict"}, {});
        QCOMPARE(ready.exitCode, 0);
        QVERIFY2(ready.stdoutText.contains("Ready to submit"), qPrintable(ready.stdoutText));
        QVERIFY(ready.stdoutText.contains("Ed-Fi/Student "));

        f.engine().saveDraft(*f.model().findByName("Ed-Fi", "Student"), "{", "", 0, "tester");
        CliRun notReady = runCli({"--db", db, "status"}, {});
        QCOMPARE(notReady.exitCode, 0);
        QVERIFY(notReady.stdoutText.contains("Not ready: 1 draft in Student"));
        QCOMPARE(runCli({"--db", db, "status", "--strict"}, {}).exitCode, 1);
        // Scoped to schools, the student draft does not count.
        QCOMPARE(runCli({"--db", db, "status", "--strict", "--resource", "schools"}, {}).exitCode, 0);

        CliRun json = runCli({"--db", db, "status", "--json", "--resource", "students"}, {});
        QCOMPARE(json.exitCode, 0);
        const Json parsed = Json::parse(json.stdoutText.toStdString());
        QCOMPARE(parsed["ready"].get<bool>(), false);
        QCOMPARE(parsed["resources"].size(), std::size_t(1));
        QCOMPARE(parsed["resources"][0]["drafts"].get<int>(), 1);

        QCOMPARE(runCli({"--db", db, "status", "--resource", "nonsense"}, {}).exitCode, 2);
        QCOMPARE(runCli({"--db", db, "status", "--bogus"}, {}).exitCode, 2);
        QCOMPARE(runCli({"status", "--help"}, {}).exitCode, 0);
    }

    void exportWarnsOrRefuses()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        QTemporaryDir out;
        const QString db = QString::fromStdString(f.databasePath());
        auto batches = [&f] {
            return f.database().connection().execAndGet("SELECT COUNT(*) FROM batches").getInt64();
        };
        // Ready: no warning.
        CliRun clean = runCli({"--db", db, "export", "--strict", "--out", out.filePath("clean")}, {});
        QCOMPARE(clean.exitCode, 0);
        QVERIFY(!clean.stderrText.contains("Not ready"));
        QCOMPARE(batches(), 1);

        f.engine().saveDraft(*f.model().findByName("Ed-Fi", "Student"), "{", "", 0, "tester");
        CliRun refused = runCli({"--db", db, "export", "--strict", "--out", out.filePath("refused")}, {});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.stderrText.contains("refused") && refused.stderrText.contains("1 draft in Student"),
                 qPrintable(refused.stderrText));
        QVERIFY(!QDir(out.filePath("refused")).exists());
        QCOMPARE(batches(), 1);

        // Exporting only schools is ready; without --strict the student draft is a warning.
        QCOMPARE(runCli({"--db", db, "export", "--strict", "--resource", "schools", "--out", out.filePath("schools")}, {})
                     .exitCode,
                 0);
        CliRun warned = runCli({"--db", db, "export", "--out", out.filePath("warned")}, {});
        QCOMPARE(warned.exitCode, 0);
        QVERIFY2(warned.stderrText.contains("warning: Not ready: 1 draft in Student"), qPrintable(warned.stderrText));
        QVERIFY(QFile::exists(out.filePath("warned/manifest.json")));
        QCOMPARE(batches(), 3);
    }

    void syncPushWarnsOrRefuses()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const QString db = QString::fromStdString(f.databasePath());
        addRuleResult(f, "r1", "fatal", "Student", ids(f, "students").at(0));
        // The plan alone needs no server, so the warning is visible without one.
        CliRun warned = runCli({"--db", db, "sync", "push", "--to", "http://127.0.0.1:9", "--client", "c", "--plan-only"}, {});
        QCOMPARE(warned.exitCode, 0);
        QVERIFY2(warned.stderrText.contains("warning: Not ready: 1 fatal result in Student"),
                 qPrintable(warned.stderrText));
        auto targets = [&f] {
            return f.database().connection().execAndGet("SELECT COUNT(*) FROM sync_targets").getInt64();
        };
        const std::int64_t targetsBefore = targets(); // planning remembered the target
        CliRun refused = runCli({"--db", db, "sync", "push", "--to", "http://127.0.0.2:9", "--client", "c", "--strict"}, {});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.stderrText.contains("sync push refused (--strict): Not ready: 1 fatal result in Student"),
                 qPrintable(refused.stderrText));
        QCOMPARE(targets(), targetsBefore); // refused before anything was recorded or sent
    }
};

QTEST_GUILESS_MAIN(TestReadiness)
#include "tst_readiness.moc"
