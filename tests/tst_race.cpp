// The race the document stores got wrong: one process deletes a School while another inserts a
// Course that references it. With BEGIN IMMEDIATE and the checks inside the transaction, exactly
// one of the two may win each round, and nothing may be left dangling.
#include "TestSupport.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QTest>

#include <SQLiteCpp/Database.h>

#include <chrono>
#include <thread>

using namespace steward;
using namespace steward::test;

namespace {

class CliWorker
{
public:
    explicit CliWorker(const QString &dbPath)
    {
        m_process.start(QStringLiteral(STEWARD_CLI_PATH), {"--db", dbPath, "requests", "-"});
        m_process.waitForStarted();
    }
    ~CliWorker()
    {
        m_process.closeWriteChannel();
        m_process.waitForFinished(30000);
    }
    void send(const Json &request)
    {
        m_process.write(QByteArray::fromStdString(request.dump() + "\n"));
        m_process.waitForBytesWritten(1000);
    }
    Json receive()
    {
        while (!m_process.canReadLine())
            if (!m_process.waitForReadyRead(30000))
                return Json{{"status", -1}};
        return Json::parse(m_process.readLine().toStdString());
    }

private:
    QProcess m_process;
};

int roundsToRun()
{
    const int fromEnv = qEnvironmentVariableIntValue("STEWARD_RACE_ROUNDS");
    return fromEnv > 0 ? fromEnv : 500;
}

Json courseFor(int schoolId)
{
    return Json{{"courseCode", "C-" + std::to_string(schoolId)},
                {"courseTitle", "Race course"},
                {"numberOfParts", 1},
                {"identificationCodes", Json::array()},
                {"educationOrganizationReference", {{"educationOrganizationId", schoolId}}}};
}

} // namespace

class TestRace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void deleteSchoolWhileInsertingCourse()
    {
        Fixture f;
        f.seedDescriptors();
        const QString db = QString::fromStdString(f.databasePath());
        CliWorker deleter(db);
        CliWorker inserter(db);
        QRandomGenerator random(20261122);

        const int rounds = roundsToRun();
        int deleteWon = 0;
        int insertWon = 0;
        std::vector<std::string> createdCourses;
        std::vector<std::string> deletedSchools;
        for (int round = 0; round < rounds; ++round) {
            const int schoolId = 100000 + round;
            const std::string schoolId_ = f.create("/ed-fi/schools", Fixture::school(schoolId));
            QVERIFY(!schoolId_.empty());
            const Json del{{"method", "DELETE"}, {"path", "/ed-fi/schools/" + schoolId_}};
            const Json post{{"method", "POST"}, {"path", "/ed-fi/courses"}, {"body", courseFor(schoolId)}};
            const bool deleterFirst = random.bounded(2) == 0;
            (deleterFirst ? deleter : inserter).send(deleterFirst ? del : post);
            std::this_thread::sleep_for(std::chrono::microseconds(random.bounded(400)));
            (deleterFirst ? inserter : deleter).send(deleterFirst ? post : del);
            const Json deleted = deleter.receive();
            const Json inserted = inserter.receive();
            const int d = deleted["status"].get<int>();
            const int i = inserted["status"].get<int>();
            if (d == 204 && i == 409) {
                ++deleteWon;
                deletedSchools.push_back(schoolId_);
                QCOMPARE(inserted["body"]["type"].get<std::string>(),
                         std::string("urn:ed-fi:api:data-conflict:unresolved-reference"));
            } else if (d == 409 && i == 201) {
                ++insertWon;
                createdCourses.push_back(inserted["headers"]["Location"].get<std::string>());
                QCOMPARE(deleted["body"]["referencedByCount"].get<int>(), 1);
            } else {
                QFAIL(qPrintable(QStringLiteral("round %1: delete answered %2 and insert %3: exactly one must win")
                                     .arg(round)
                                     .arg(d)
                                     .arg(i)));
            }
        }
        qInfo("%d rounds: the delete won %d, the insert won %d", rounds, deleteWon, insertWon);
        QVERIFY(deleteWon > 0);
        QVERIFY(insertWon > 0);

        // Every success the engine reported is in the database, and nothing dangles.
        for (const std::string &location : createdCourses)
            QCOMPARE(f.call("GET", location).status, 200);
        for (const std::string &id : deletedSchools)
            QCOMPARE(f.call("GET", "/ed-fi/schools/" + id).status, 404);
        SQLite::Database check(f.databasePath(), SQLite::OPEN_READONLY);
        QCOMPARE(check.execAndGet("SELECT count(*) FROM pragma_foreign_key_check").getInt(), 0);
        QCOMPARE(check.execAndGet("SELECT count(*) FROM refs WHERE to_alias NOT IN (SELECT alias_key FROM aliases)")
                     .getInt(),
                 0);
        QCOMPARE(check.execAndGet("SELECT count(*) FROM documents WHERE resource = 'Course'").getInt(), insertWon);
        QCOMPARE(check.execAndGet("SELECT count(*) FROM documents WHERE resource = 'School'").getInt(), insertWon);
    }
};

QTEST_GUILESS_MAIN(TestRace)
#include "tst_race.moc"
