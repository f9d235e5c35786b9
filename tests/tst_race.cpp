// The race the document stores got wrong: one process deletes a School while another inserts a
// Course that references it. With BEGIN IMMEDIATE and the checks inside the transaction, exactly
// one of the two may win each round, and nothing may be left dangling.
#include "TestSupport.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QTest>

#include <SQLiteCpp/Database.h>

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

using namespace steward;
using namespace steward::test;

namespace {

class CliWorker
{
public:
    explicit CliWorker(const QString &dbPath)
    {
        m_process.start(cliPath(), {"--db", dbPath, "requests", "-"});
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
        Database::registerFunctions(check);
        QCOMPARE(check.execAndGet("SELECT count(*) FROM pragma_foreign_key_check").getInt(), 0);
        QCOMPARE(check.execAndGet("SELECT count(*) FROM refs WHERE to_alias NOT IN (SELECT alias_key FROM aliases)")
                     .getInt(),
                 0);
        QCOMPARE(check.execAndGet("SELECT count(*) FROM documents WHERE resource = 'Course'").getInt(), insertWon);
        QCOMPARE(check.execAndGet("SELECT count(*) FROM documents WHERE resource = 'School'").getInt(), insertWon);
    }

    // Three processes at once, each with its own connection: one inserts and deletes Courses that
    // reference Schools, one deletes and re-creates those Schools and renames Sessions (identity
    // updates that cascade), one walks the collections. No request may fail for lack of the lock,
    // every success must be in the database, and check must find nothing wrong.
    void twoWritersAndAReaderAtOnce()
    {
        const int perProcess = std::max(700, qEnvironmentVariableIntValue("STEWARD_RACE_OPS") / 3);
        Fixture f;
        f.seedDescriptors();
        f.create("/ed-fi/schoolYearTypes", Fixture::schoolYear(2022));
        constexpr int kSchools = 12;
        for (int s = 0; s < kSchools; ++s)
            f.create("/ed-fi/schools", Fixture::school(500 + s));
        std::vector<std::string> sessionIds;
        for (int s = 0; s < 4; ++s)
            sessionIds.push_back(f.create("/ed-fi/sessions", Fixture::session(500 + s, 2022, "Term")));
        const QString db = QString::fromStdString(f.databasePath());

        std::vector<std::string> failures;
        std::mutex failuresMutex;
        auto fail = [&](const std::string &what) {
            std::lock_guard<std::mutex> lock(failuresMutex);
            failures.push_back(what);
        };
        std::map<std::string, std::string> liveCourses; // id -> course code, kept by the course writer
        std::map<int, bool> schoolExists;               // kept by the school writer
        std::map<std::string, std::string> sessionNames;
        for (int s = 0; s < kSchools; ++s)
            schoolExists[500 + s] = true;

        std::thread courseWriter([&] {
            CliWorker worker(db);
            QRandomGenerator random(1);
            for (int op = 0; op < perProcess; ++op) {
                if (!liveCourses.empty() && random.bounded(3) == 0) {
                    auto it = std::next(liveCourses.begin(), random.bounded(static_cast<quint32>(liveCourses.size())));
                    worker.send(Json{{"method", "DELETE"}, {"path", "/ed-fi/courses/" + it->first}});
                    const int status = worker.receive()["status"].get<int>();
                    if (status != 204)
                        fail("DELETE course answered " + std::to_string(status));
                    liveCourses.erase(it);
                    continue;
                }
                const int schoolId = 500 + static_cast<int>(random.bounded(kSchools));
                const std::string code = "R-" + std::to_string(op);
                worker.send(Json{{"method", "POST"}, {"path", "/ed-fi/courses"}, {"body", Fixture::course(code, schoolId)}});
                const Json answer = worker.receive();
                const int status = answer["status"].get<int>();
                if (status == 201)
                    liveCourses[idFromLocation(answer["headers"]["Location"].get<std::string>())] = code;
                else if (status != 409)
                    fail("POST course answered " + std::to_string(status));
            }
        });
        std::thread schoolWriter([&] {
            CliWorker worker(db);
            QRandomGenerator random(2);
            std::map<int, std::string> ids;
            for (int op = 0; op < perProcess; ++op) {
                if (random.bounded(4) == 0) {
                    const std::size_t which = random.bounded(static_cast<quint32>(sessionIds.size()));
                    const std::string name = "Term " + std::to_string(op);
                    worker.send(Json{{"method", "PUT"}, {"path", "/ed-fi/sessions/" + sessionIds[which]},
                                     {"body", Fixture::session(500 + static_cast<int>(which), 2022, name)}});
                    const int status = worker.receive()["status"].get<int>();
                    if (status == 204)
                        sessionNames[sessionIds[which]] = name;
                    else
                        fail("PUT session answered " + std::to_string(status));
                    continue;
                }
                // Schools 504 and up have no Sessions, so only Courses can hold them.
                const int schoolId = 504 + static_cast<int>(random.bounded(kSchools - 4));
                if (schoolExists[schoolId]) {
                    if (!ids.count(schoolId)) {
                        worker.send(Json{{"method", "GET"}, {"path", "/ed-fi/schools?schoolId=" + std::to_string(schoolId)}});
                        ids[schoolId] = worker.receive()["body"][0]["id"].get<std::string>();
                    }
                    worker.send(Json{{"method", "DELETE"}, {"path", "/ed-fi/schools/" + ids[schoolId]}});
                    const int status = worker.receive()["status"].get<int>();
                    if (status == 204) {
                        schoolExists[schoolId] = false;
                        ids.erase(schoolId);
                    } else if (status != 409) {
                        fail("DELETE school answered " + std::to_string(status));
                    }
                } else {
                    worker.send(Json{{"method", "POST"}, {"path", "/ed-fi/schools"}, {"body", Fixture::school(schoolId)}});
                    const Json answer = worker.receive();
                    if (answer["status"].get<int>() == 201) {
                        schoolExists[schoolId] = true;
                        ids[schoolId] = idFromLocation(answer["headers"]["Location"].get<std::string>());
                    } else {
                        fail("POST school answered " + std::to_string(answer["status"].get<int>()));
                    }
                }
            }
        });
        std::thread reader([&] {
            CliWorker worker(db);
            for (int op = 0; op < perProcess; ++op) {
                const std::string path = op % 2 == 0 ? "/ed-fi/courses?limit=25&offset=" + std::to_string((op / 2) % 8 * 25)
                                                     : "/ed-fi/schools?limit=25";
                worker.send(Json{{"method", "GET"}, {"path", path}});
                const int status = worker.receive()["status"].get<int>();
                if (status != 200)
                    fail("GET " + path + " answered " + std::to_string(status));
            }
        });
        courseWriter.join();
        schoolWriter.join();
        reader.join();
        for (const std::string &failure : failures)
            qWarning("%s", failure.c_str());
        QVERIFY(failures.empty());

        // Every acknowledged outcome is what the database holds.
        for (const auto &[id, code] : liveCourses)
            QCOMPARE(f.call("GET", "/ed-fi/courses/" + id).status, 200);
        QCOMPARE(f.call("GET", "/ed-fi/courses?limit=1&totalCount=true").header("Total-Count"),
                 std::to_string(liveCourses.size()));
        for (const auto &[schoolId, exists] : schoolExists)
            QCOMPARE(f.call("GET", "/ed-fi/schools?schoolId=" + std::to_string(schoolId)).body.size(), exists ? 1u : 0u);
        for (const auto &[id, name] : sessionNames)
            QCOMPARE(f.call("GET", "/ed-fi/sessions/" + id).body["sessionName"].get<std::string>(), name);
        const IntegrityReport report = f.engine().check();
        QVERIFY2(report.clean(), report.toJson().dump().c_str());
        qInfo("%d operations in three processes; %zu courses and %zu sessions renamed at the end",
              perProcess * 3, liveCourses.size(), sessionNames.size());
    }
};

QTEST_GUILESS_MAIN(TestRace)
#include "tst_race.moc"
