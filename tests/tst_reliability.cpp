// Nothing a steward does, and nothing that happens to the machine, may corrupt the database or
// lose acknowledged work: check finds damage, backups restore, SIGKILL mid-write loses nothing
// acknowledged, a random sequence of operations agrees with a simple model, a full disk refuses
// cleanly. Cycle counts: STEWARD_KILL_CYCLES (default 50), STEWARD_MODEL_SEQUENCES (default 1000).
#include "Backup.h"
#include "CliSupport.h"
#include "FileMode.h"
#include "Importer.h"
#include "PrivateFiles.h"
#include "QueryValues.h"
#include "TestSupport.h"

#include <QProcess>
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <SQLiteCpp/Database.h>

#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <signal.h>

using namespace steward;
using namespace steward::test;

namespace {

int fromEnvironment(const char *name, int fallback)
{
    const int value = qEnvironmentVariableIntValue(name);
    return value > 0 ? value : fallback;
}

std::int64_t scalar(const std::string &db, const std::string &sql)
{
    SQLite::Database d(db, SQLite::OPEN_READONLY);
    Database::registerFunctions(d);
    return d.execAndGet(sql).getInt64();
}

// A raw connection without Steward's guards, to damage a database on purpose.
void vandalize(const std::string &db, const std::string &sql)
{
    SQLite::Database d(db, SQLite::OPEN_READWRITE);
    Database::registerFunctions(d); // a document row's natural key is an index expression
    d.exec("PRAGMA foreign_keys=OFF");
    d.exec(sql);
}

IntegrityReport checkDatabase(const std::string &path, const Model &model, CheckDepth depth = CheckDepth::Routine)
{
    std::unique_ptr<Database> database = Database::open(path);
    Engine engine(model, *database);
    return engine.check(false, {}, depth);
}

std::string violationsText(const IntegrityReport &report)
{
    return report.toJson().dump();
}

// The violations one per line, leaving out SQLite's integrity_check (what only the full check runs).
std::string violationsBesidesIntegrityCheck(const IntegrityReport &report)
{
    std::string text;
    for (const IntegrityViolation &v : report.violations)
        if (v.problem.rfind("SQLite integrity_check", 0) != 0)
            text += v.resource + " " + v.id + ": " + v.problem + "\n";
    return text;
}

// A small district with what each kind of damage needs: a School referenced by a Course, one
// referenced by nothing, and one updated (so it has an entry before its current one).
struct DamageTarget
{
    std::string courseId;
    std::string loneSchoolId;
    std::string updatedSchoolId;
};

DamageTarget buildDamageTarget(Fixture &f)
{
    f.seedDescriptors();
    f.create("/ed-fi/schools", Fixture::school(100));
    DamageTarget target;
    target.courseId = f.create("/ed-fi/courses", Fixture::course("ALG-1", 100));
    target.loneSchoolId = f.create("/ed-fi/schools", Fixture::school(7));
    target.updatedSchoolId = f.create("/ed-fi/schools", Fixture::school(9));
    f.call("PUT", "/ed-fi/schools/" + target.updatedSchoolId, Fixture::school(9, "Renamed"));
    return target;
}

std::string docKeyOf(const std::string &id)
{
    return "(SELECT doc_key FROM document_rows WHERE id = steward_id_key('" + id + "'))";
}

// A query-index word of the School's schoolId field.
std::string schoolIdWord(const std::string &db, int schoolId)
{
    const std::int64_t field =
        scalar(db, "SELECT field_key FROM query_fields WHERE resource = 'School' AND name = 'schoolid'");
    return queryIndexToken(field, Json(schoolId));
}

Json courseOf(const std::string &code, int schoolId)
{
    return Fixture::course(code, schoolId);
}

} // namespace

class TestReliability : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void checkFindsEachKindOfDamage()
    {
        Fixture f;
        f.seedDescriptors();
        f.create("/ed-fi/schools", Fixture::school(100));
        const std::string courseId = f.create("/ed-fi/courses", Fixture::course("ALG-1", 100));
        f.create("/ed-fi/courses", Fixture::course("GEO-1", 100));
        QVERIFY2(f.engine().check().clean(), violationsText(f.engine().check()).c_str());
        const std::string db = f.databasePath();

        // A body edited behind Steward's back: its referential id and its etag disagree with it.
        vandalize(db, "UPDATE document_rows SET body = replace(body, 'ALG-1', 'ALG-9') WHERE id = steward_id_key('" + courseId + "')");
        IntegrityReport report = f.engine().check();
        QVERIFY(!report.clean());
        const std::string text = violationsText(report);
        QVERIFY2(text.find("referential id") != std::string::npos, text.c_str());
        QVERIFY2(text.find("does not match its etag") != std::string::npos, text.c_str());
        QVERIFY2(text.find(courseId) != std::string::npos, text.c_str());

        // A lost reference row and a School's alias gone: dangling references, missing aliases.
        Fixture g;
        g.seedDescriptors();
        g.create("/ed-fi/schools", Fixture::school(100));
        g.create("/ed-fi/courses", Fixture::course("ALG-1", 100));
        vandalize(g.databasePath(), "DELETE FROM alias_rows WHERE resource_key = (SELECT resource_key FROM resources "
                                      "WHERE resource = 'EducationOrganization')");
        const std::string damaged = violationsText(g.engine().check());
        QVERIFY2(damaged.find("point at no document") != std::string::npos, damaged.c_str());
        QVERIFY2(damaged.find("its aliases (1) are not the 2") != std::string::npos, damaged.c_str());
        QVERIFY2(damaged.find("references what is not stored") != std::string::npos, damaged.c_str());

        // The change log says a document exists that is gone.
        Fixture h;
        h.seedDescriptors();
        const std::string schoolId = h.create("/ed-fi/schools", Fixture::school(7));
        vandalize(h.databasePath(), "DELETE FROM document_rows WHERE id = steward_id_key('" + schoolId + "')");
        const std::string vanished = violationsText(h.engine().check());
        QVERIFY2(vanished.find("the document is missing") != std::string::npos, vanished.c_str());

        // A document no longer pointing at its change-log entry leaves that entry without a body.
        Fixture k;
        k.seedDescriptors();
        const std::string pointedId = k.create("/ed-fi/schools", Fixture::school(8));
        vandalize(k.databasePath(), "UPDATE document_rows SET change_seq = NULL WHERE id = steward_id_key('" + pointedId + "')");
        const std::string lost = violationsText(k.engine().check());
        QVERIFY2(lost.find("has lost the body it was written with") != std::string::npos, lost.c_str());
        QVERIFY2(lost.find("the change log has no entry for it") != std::string::npos, lost.c_str());

        // Only a document's current entry may leave its etag and time to the document.
        Fixture m;
        m.seedDescriptors();
        const std::string updatedId = m.create("/ed-fi/schools", Fixture::school(9));
        QCOMPARE(m.call("PUT", "/ed-fi/schools/" + updatedId, Fixture::school(9, "Renamed")).status, 204);
        QVERIFY(m.engine().check().clean());
        vandalize(m.databasePath(), "UPDATE change_rows SET at = '' WHERE op = 'insert' AND id = steward_id_key('" + updatedId + "')");
        const std::string timeless = violationsText(m.engine().check());
        QVERIFY2(timeless.find("has lost the etag or time it was written with") != std::string::npos, timeless.c_str());

        // The command line: exit 1 with a line naming the document.
        const QStringList args{"--db", QString::fromStdString(db), "check"};
        QProcess cli;
        cli.start(cliPath(), args);
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 1);
        QVERIFY(cli.readAllStandardOutput().contains(QByteArray::fromStdString(courseId)));
    }

    // The routine check (quick_check, one scan of the documents beside their rows) finds every kind
    // of damage the full one (integrity_check, then the same) finds, and says the same about it.
    void routineCheckFindsWhatTheFullOneFinds_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("expected");
        const std::vector<std::pair<const char *, const char *>> kinds{
            {"body edited", "does not match its etag"},
            {"referential id changed", "its referential id"},
            {"aliases lost", "its aliases (1) are not the 2"},
            {"reference row lost", "its reference rows ("},
            {"reference row dangling", "references point at no document"},
            {"document vanished", "the document is missing"},
            {"change_seq lost", "the change log has no entry for it"},
            {"entry lost its time", "has lost the etag or time it was written with"},
            {"current entry has another body", "the change log's last entry is not its current state"},
            {"current entry has another etag", "the change log's last entry is not its current state"},
            {"query word lost", "the query index lacks its values of schoolId"},
            {"query word invented", "1 values of School.schoolId that no document has"},
            {"search row changed", "the find-anything index holds 'ghost'"},
            {"search row of no document", "1 entries of no document"},
        };
        for (const auto &[damage, expected] : kinds)
            QTest::newRow(damage) << QString(damage) << QString(expected);
    }

    void routineCheckFindsWhatTheFullOneFinds()
    {
        QFETCH(QString, damage);
        QFETCH(QString, expected);
        Fixture f;
        const DamageTarget target = buildDamageTarget(f);
        const std::string db = f.databasePath();
        QVERIFY2(checkDatabase(db, f.model()).clean(), violationsText(checkDatabase(db, f.model())).c_str());
        const std::string course = "id = steward_id_key('" + target.courseId + "')";
        const std::string lone = "id = steward_id_key('" + target.loneSchoolId + "')";
        const std::string firstRef = "(SELECT min(to_alias) FROM refs WHERE from_doc = " + docKeyOf(target.courseId) + ")";
        const std::map<QString, std::string> plant{
            {"body edited", "UPDATE document_rows SET body = replace(body, 'ALG-1', 'ALG-9') WHERE " + course},
            {"referential id changed", "UPDATE alias_rows SET referential_id = randomblob(16) WHERE doc_key = " +
                                           docKeyOf(target.loneSchoolId) + " AND resource_key = (SELECT resource_key "
                                           "FROM resources WHERE resource = 'School')"},
            {"aliases lost", "DELETE FROM alias_rows WHERE resource_key = (SELECT resource_key FROM resources "
                             "WHERE resource = 'EducationOrganization')"},
            {"reference row lost", "DELETE FROM refs WHERE from_doc = " + docKeyOf(target.courseId) + " AND to_alias = " + firstRef},
            {"reference row dangling", "UPDATE refs SET to_alias = 999999 WHERE from_doc = " + docKeyOf(target.courseId) +
                                           " AND to_alias = " + firstRef},
            {"document vanished", "DELETE FROM document_rows WHERE " + lone},
            {"change_seq lost", "UPDATE document_rows SET change_seq = NULL WHERE " + lone},
            {"entry lost its time", "UPDATE change_rows SET at = '' WHERE op = 'insert' AND id = steward_id_key('" +
                                        target.updatedSchoolId + "')"},
            {"current entry has another body", "UPDATE change_rows SET body = '{}' WHERE seq = "
                                               "(SELECT change_seq FROM document_rows WHERE " + lone + ")"},
            {"current entry has another etag", "UPDATE change_rows SET etag = randomblob(8) WHERE seq = "
                                               "(SELECT change_seq FROM document_rows WHERE " + lone + ")"},
            {"query word lost", "INSERT INTO query_index (query_index, rowid, words) VALUES ('delete', " +
                                    docKeyOf(target.loneSchoolId) + ", '" + schoolIdWord(db, 7) + "')"},
            {"query word invented", "INSERT INTO query_index (rowid, words) VALUES (" +
                                        docKeyOf(target.loneSchoolId) + ", '" + schoolIdWord(db, 555) + "')"},
            {"search row changed", "UPDATE search_index SET terms = 'ghost' WHERE rowid = " + docKeyOf(target.loneSchoolId)},
            {"search row of no document", "INSERT INTO search_index (rowid, terms) VALUES (999999, 'ghost')"},
        };
        vandalize(db, plant.at(damage));

        const IntegrityReport routine = checkDatabase(db, f.model());
        const IntegrityReport full = checkDatabase(db, f.model(), CheckDepth::Full);
        const std::string routineText = violationsBesidesIntegrityCheck(routine);
        QVERIFY2(routineText.find(expected.toStdString()) != std::string::npos, routineText.c_str());
        QCOMPARE(routineText, violationsBesidesIntegrityCheck(full));
    }

    // What only SQLite's integrity_check sees, an index entry whose row is gone: check --full finds it,
    // the routine check (quick_check) does not look.
    void fullCheckFindsAnIndexEntryWithoutItsRow()
    {
        Fixture f;
        buildDamageTarget(f);
        const std::string db = f.databasePath();
        vandalize(db, "CREATE TABLE scratch (a INTEGER); CREATE INDEX scratch_by_a ON scratch(a); "
                      "INSERT INTO scratch VALUES (1), (2), (3)");
        const std::string rootPage = std::to_string(scalar(db, "SELECT rootpage FROM sqlite_schema "
                                                               "WHERE name = 'scratch_by_a'"));
        // The row goes while SQLite does not know the index is there, so its entry stays.
        vandalize(db, "PRAGMA writable_schema = ON; DELETE FROM sqlite_schema WHERE name = 'scratch_by_a'");
        vandalize(db, "DELETE FROM scratch WHERE a = 2");
        vandalize(db, "PRAGMA writable_schema = ON; INSERT INTO sqlite_schema VALUES ('index', 'scratch_by_a', "
                      "'scratch', " + rootPage + ", 'CREATE INDEX scratch_by_a ON scratch(a)')");

        const std::string full = violationsText(checkDatabase(db, f.model(), CheckDepth::Full));
        QVERIFY2(full.find("SQLite integrity_check") != std::string::npos &&
                     full.find("scratch_by_a") != std::string::npos,
                 full.c_str());
        QVERIFY2(checkDatabase(db, f.model()).clean(), violationsText(checkDatabase(db, f.model())).c_str());

        CliRun routineRun = runCli({"--db", QString::fromStdString(db), "check"}, "");
        QCOMPARE(routineRun.exitCode, 0);
        CliRun fullRun = runCli({"--db", QString::fromStdString(db), "check", "--full"}, "");
        QCOMPARE(fullRun.exitCode, 1);
        QVERIFY2(fullRun.stdoutText.contains("scratch_by_a"), qPrintable(fullRun.stdoutText));
    }

    void backupWhileOpenThenRestore()
    {
        Fixture f;
        f.seedDescriptors();
        for (int i = 0; i < 50; ++i)
            f.create("/ed-fi/schools", Fixture::school(1000 + i));
        QTemporaryDir dir;
        const std::string copy = dir.filePath("copy.db").toStdString();
        int steps = 0;
        // The Fixture keeps its writer connection open the whole time, as the app would.
        const BackupResult backup = backupDatabase(f.databasePath(), copy, [&steps](int, int) {
            ++steps;
            return true;
        });
        QVERIFY2(backup.ok, backup.error.c_str());
        QVERIFY(steps >= 1);
        QCOMPARE(scalar(copy, "SELECT count(*) FROM documents WHERE resource = 'School'"), 50);
        QVERIFY(checkDatabase(copy, f.model()).clean());

        // A later change makes the database newer than the backup: restore refuses without --force.
        std::this_thread::sleep_for(std::chrono::milliseconds(1100)); // change times have second precision
        f.create("/ed-fi/schools", Fixture::school(2000));
        BackupResult refused = restoreDatabase(copy, f.databasePath(), false);
        QVERIFY(!refused.ok);
        QVERIFY2(refused.error.find("newer than the backup") != std::string::npos, refused.error.c_str());
        QCOMPARE(scalar(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 51);
        BackupResult forced = restoreDatabase(copy, f.databasePath(), true);
        QVERIFY2(forced.ok, forced.error.c_str());
        QCOMPARE(scalar(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 50);
        // The open engine sees the restored content and keeps working.
        QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(3000)).status, 201);
        QVERIFY(f.engine().check().clean());

        // A damaged backup is refused and changes nothing; a stopped backup leaves no file.
        const std::string broken = dir.filePath("broken.db").toStdString();
        {
            std::ofstream out(broken, std::ios::binary);
            out << "SQLite format 3" << std::string(200, '\0');
        }
        QVERIFY(!restoreDatabase(broken, f.databasePath(), true).ok);
        QCOMPARE(scalar(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 51);
        // (Big enough for more than one backup step of 256 pages.)
        f.engine().beginBatch();
        for (int i = 0; i < 3000; ++i)
            QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(20000 + i)).status, 201);
        f.engine().commitBatch();
        const std::string stopped = dir.filePath("stopped.db").toStdString();
        QVERIFY(!backupDatabase(f.databasePath(), stopped, [](int, int) { return false; }).ok);
        QVERIFY(!QFile::exists(QString::fromStdString(stopped)));
    }

    // The database holds student records: under the usual umask it, its -wal and -shm, a backup and a
    // database a restore makes are the owner's alone, and so is the default database's folder.
    void databaseFilesAndBackupsAreOwnerOnly()
    {
        const ScopedUmask usual(022);
        QTemporaryDir dir;
        const QString path = dir.filePath("records.db");
        {
            const std::unique_ptr<Database> database = Database::open(path.toStdString());
            database->connection().exec("CREATE TABLE scratch(x); INSERT INTO scratch VALUES (1)");
            for (const QString &file : {path, path + "-wal", path + "-shm"})
                QCOMPARE(modeOf(file), QStringLiteral("600"));
        }
        const QString backup = dir.filePath("backup.db");
        const BackupResult copied = backupDatabase(path.toStdString(), backup.toStdString());
        QVERIFY2(copied.ok, copied.error.c_str());
        QCOMPARE(modeOf(backup), QStringLiteral("600"));
        const QString restored = dir.filePath("restored.db");
        const BackupResult restoredResult = restoreDatabase(backup.toStdString(), restored.toStdString(), false);
        QVERIFY2(restoredResult.ok, restoredResult.error.c_str());
        QCOMPARE(modeOf(restored), QStringLiteral("600"));

        const QByteArray previousDataHome = qgetenv("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", dir.filePath("data").toUtf8());
        const QString defaultPath = QString::fromStdString(defaultDatabasePath());
        if (previousDataHome.isNull())
            qunsetenv("XDG_DATA_HOME");
        else
            qputenv("XDG_DATA_HOME", previousDataHome);
        QCOMPARE(defaultPath, dir.filePath("data/steward/steward.db"));
        QCOMPARE(modeOf(dir.filePath("data/steward")), QStringLiteral("700"));
        QCOMPARE(modeOf(dir.filePath("data")), QStringLiteral("755")); // the parents are the user's, as usual
    }

    // A database other accounts can read (here chmod'ed 0644, as a copy or an older Steward leaves it):
    // check reports each of its files without calling the data damaged, and the fix makes them 0600.
    void aDatabaseOthersCanReadIsReportedAndMadePrivate()
    {
        Fixture f;
        f.seedDescriptors();
        const QString path = QString::fromStdString(f.databasePath());
        const QFile::Permissions shared = QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther;
        for (const QString &file : {path, path + "-wal", path + "-shm"})
            QVERIFY(QFile::setPermissions(file, shared));
        const IntegrityReport exposed = f.engine().check();
        QVERIFY2(exposed.clean(), violationsText(exposed).c_str());
        QCOMPARE(exposed.readableByOthers.size(), std::size_t(3));
        QCOMPARE(exposed.readableByOthers[0].path, path.toStdString());
        QCOMPARE(modeText(exposed.readableByOthers[0].mode), std::string("0644"));
        const Json json = exposed.toJson();
        QCOMPARE(json["readableByOthers"][1]["path"].get<std::string>(), path.toStdString() + "-wal");
        QCOMPARE(json["readableByOthers"][1]["mode"].get<std::string>(), std::string("0644"));
        QCOMPARE(json["clean"].get<bool>(), true);

        std::string error;
        QVERIFY2(makeDatabasePrivate(path.toStdString(), &error), error.c_str());
        for (const QString &file : {path, path + "-wal", path + "-shm"})
            QCOMPARE(modeOf(file), QStringLiteral("600"));
        QVERIFY(f.engine().check().readableByOthers.empty());
        QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(255901)).status, 201);
    }

    void killDuringWritesLosesNothingAcknowledged()
    {
        const int cycles = fromEnvironment("STEWARD_KILL_CYCLES", 50);
        Fixture f;
        f.seedDescriptors();
        const std::string db = f.databasePath();
        QRandomGenerator random(4242);
        std::map<std::string, std::string> acknowledgedSchools; // id -> schoolId text
        std::set<std::string> acknowledgedDeletes;
        std::set<std::string> uncertain; // deleted by a request that was in flight when killed
        std::vector<std::string> liveCourses;
        int nextSchool = 10000;
        int killedInFlight = 0;
        std::int64_t operations = 0;
        for (int cycle = 0; cycle < cycles; ++cycle) {
            QProcess child;
            child.start(cliPath(), {"--db", QString::fromStdString(db), "requests", "-"});
            QVERIFY(child.waitForStarted());
            const int ops = 3 + static_cast<int>(random.bounded(25));
            for (int op = 0; op < ops; ++op) {
                Json request;
                int schoolId = 0;
                std::string deleting;
                const int kind = static_cast<int>(random.bounded(3));
                if (kind == 2 && !liveCourses.empty()) {
                    deleting = liveCourses[random.bounded(static_cast<quint32>(liveCourses.size()))];
                    request = Json{{"method", "DELETE"}, {"path", "/ed-fi/courses/" + deleting}};
                } else if (kind == 1 && !acknowledgedSchools.empty()) {
                    schoolId = std::stoi(std::next(acknowledgedSchools.begin(),
                                                   random.bounded(static_cast<quint32>(acknowledgedSchools.size())))
                                             ->second);
                    request = Json{{"method", "POST"}, {"path", "/ed-fi/courses"},
                                   {"body", courseOf("K-" + std::to_string(nextSchool++), schoolId)}};
                } else {
                    schoolId = nextSchool++;
                    request = Json{{"method", "POST"}, {"path", "/ed-fi/schools"}, {"body", Fixture::school(schoolId)}};
                }
                child.write(QByteArray::fromStdString(request.dump() + "\n"));
                child.waitForBytesWritten(1000);
                ++operations;
                const bool killNow = op == ops - 1;
                if (killNow) {
                    if (!deleting.empty()) {
                        liveCourses.erase(std::find(liveCourses.begin(), liveCourses.end(), deleting));
                        uncertain.insert(deleting);
                    }
                    // Kill while this request may be anywhere between parse and commit.
                    std::this_thread::sleep_for(std::chrono::microseconds(random.bounded(3000)));
                    ::kill(static_cast<pid_t>(child.processId()), SIGKILL);
                    ++killedInFlight;
                    break;
                }
                while (!child.canReadLine())
                    QVERIFY(child.waitForReadyRead(30000));
                const Json response = Json::parse(child.readLine().toStdString());
                const int status = response["status"].get<int>();
                if (request["method"] == "DELETE") {
                    QCOMPARE(status, 204);
                    acknowledgedDeletes.insert(deleting);
                    liveCourses.erase(std::find(liveCourses.begin(), liveCourses.end(), deleting));
                } else {
                    QCOMPARE(status, 201);
                    const std::string id = idFromLocation(response["headers"]["Location"].get<std::string>());
                    if (request["path"] == "/ed-fi/schools")
                        acknowledgedSchools[id] = std::to_string(schoolId);
                    else
                        liveCourses.push_back(id);
                }
            }
            child.waitForFinished(10000);

            // After every kill: the database opens, passes check, and holds every acknowledged write.
            const IntegrityReport report = checkDatabase(db, f.model());
            QVERIFY2(report.clean(), violationsText(report).c_str());
            // One read of the stored ids a cycle: a connection per id made the long run quadratic.
            std::set<std::string> stored;
            {
                SQLite::Database d(db, SQLite::OPEN_READONLY);
                Database::registerFunctions(d);
                SQLite::Statement ids(d, "SELECT id FROM documents");
                while (ids.executeStep())
                    stored.insert(ids.getColumn(0).getString());
            }
            for (const auto &[id, schoolId] : acknowledgedSchools)
                QVERIFY2(stored.count(id) == 1, ("acknowledged school lost: " + id).c_str());
            for (const std::string &id : liveCourses)
                QVERIFY2(stored.count(id) == 1, ("acknowledged course lost: " + id).c_str());
            for (const std::string &id : acknowledgedDeletes)
                QVERIFY2(stored.count(id) == 0, ("acknowledged delete undone: " + id).c_str());
        }
        qInfo("kill cycles: %d (%d killed with a request in flight), %lld operations, %zu schools and %zu courses "
              "acknowledged, %zu deletes acknowledged",
              cycles, killedInFlight, static_cast<long long>(operations), acknowledgedSchools.size(),
              liveCourses.size(), acknowledgedDeletes.size());
    }

    void killDuringImportKeepsWholeChunks()
    {
        Fixture f;
        f.seedDescriptors();
        QTemporaryDir dir;
        const QString input = dir.filePath("schools.ndjson");
        {
            std::ofstream out(input.toStdString());
            for (int i = 0; i < 3000; ++i)
                out << Fixture::school(50000 + i).dump() << "\n";
        }
        QRandomGenerator random(77);
        const int cycles = std::max(5, fromEnvironment("STEWARD_KILL_CYCLES", 50) / 10);
        for (int cycle = 0; cycle < cycles; ++cycle) {
            QProcess child;
            child.start(cliPath(), {"--db", QString::fromStdString(f.databasePath()), "import",
                                                           input, "--chunk", "100", "--progress", "none"});
            QVERIFY(child.waitForStarted());
            std::this_thread::sleep_for(std::chrono::milliseconds(50 + random.bounded(400)));
            ::kill(static_cast<pid_t>(child.processId()), SIGKILL);
            child.waitForFinished(10000);
            const IntegrityReport report = checkDatabase(f.databasePath(), f.model());
            QVERIFY2(report.clean(), violationsText(report).c_str());
            // Chunks are all or nothing: the count of Schools is a whole number of chunks, unless
            // this run started from an earlier one's stopping point (then any count is whole too).
            const std::int64_t schools = scalar(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'");
            QCOMPARE(scalar(f.databasePath(), "SELECT count(*) FROM changes WHERE resource = 'School'"), schools);
            QCOMPARE(schools % 100, 0);
        }
        // And running it to the end afterwards completes it.
        ImportOptions options;
        options.paths = {input.toStdString()};
        const ImportReport rest = importFiles(f.engine(), f.model(), options);
        QVERIFY(rest.completed);
        QCOMPARE(rest.totals.created + rest.totals.unchanged, 3000);
        QVERIFY(f.engine().check().clean());
    }

    void randomSequencesAgreeWithASimpleModel()
    {
        // The rules in miniature: a Course needs its School; a referenced School cannot be deleted.
        const int sequences = fromEnvironment("STEWARD_MODEL_SEQUENCES", 1000);
        Fixture f;
        f.seedDescriptors();
        QRandomGenerator random(1122);
        std::int64_t operations = 0;
        QElapsedTimer thousand;
        thousand.start();
        for (int sequence = 0; sequence < sequences; ++sequence) {
            // Each thousand should take as long as the first: a query that grows with the database shows here.
            if (sequence > 0 && sequence % 1000 == 0) {
                qInfo("model-based: sequences %d to %d in %lld ms", sequence - 1000, sequence - 1,
                      static_cast<long long>(thousand.restart()));
            }
            const int base = 100000 + sequence * 10; // each sequence has its own School ids
            std::map<int, std::string> schools;                       // schoolId -> id
            std::map<std::pair<std::string, int>, std::string> courses; // (code, schoolId) -> id
            for (int step = 0; step < 12; ++step) {
                ++operations;
                const int schoolId = base + static_cast<int>(random.bounded(3));
                const std::string code = std::string("C") + static_cast<char>('A' + random.bounded(2));
                const int kind = static_cast<int>(random.bounded(4));
                Response response;
                int expected = 0;
                if (kind == 0) {
                    response = f.call("POST", "/ed-fi/schools", Fixture::school(schoolId));
                    expected = schools.count(schoolId) ? 200 : 201;
                    if (response.status == 201)
                        schools[schoolId] = idFromLocation(response.header("Location"));
                } else if (kind == 1) {
                    response = f.call("POST", "/ed-fi/courses", Fixture::course(code, schoolId));
                    expected = !schools.count(schoolId) ? 409 : courses.count({code, schoolId}) ? 200 : 201;
                    if (response.status == 201)
                        courses[{code, schoolId}] = idFromLocation(response.header("Location"));
                } else if (kind == 2) {
                    const bool exists = schools.count(schoolId) > 0;
                    bool referenced = false;
                    for (const auto &[key, id] : courses)
                        referenced = referenced || key.second == schoolId;
                    response = f.call("DELETE", "/ed-fi/schools/" + (exists ? schools[schoolId] : std::string("00000000-0000-4000-8000-000000000000")));
                    expected = !exists ? 404 : referenced ? 409 : 204;
                    if (response.status == 204)
                        schools.erase(schoolId);
                } else {
                    const auto it = courses.find({code, schoolId});
                    response = f.call("DELETE", "/ed-fi/courses/" + (it != courses.end() ? it->second : std::string("00000000-0000-4000-8000-000000000000")));
                    expected = it != courses.end() ? 204 : 404;
                    if (response.status == 204)
                        courses.erase(it);
                }
                QVERIFY2(response.status == expected,
                         qPrintable(QStringLiteral("sequence %1 step %2: got %3, the model says %4")
                                        .arg(sequence).arg(step).arg(response.status).arg(expected)));
                // The stored state equals the model's.
                for (int s = base; s < base + 3; ++s) {
                    const Response found = f.call("GET", "/ed-fi/schools?schoolId=" + std::to_string(s));
                    QCOMPARE(found.body.size(), schools.count(s));
                }
            }
            std::int64_t storedCourses = 0;
            for (int s = base; s < base + 3; ++s)
                storedCourses += static_cast<std::int64_t>(
                    f.call("GET", "/ed-fi/courses?educationOrganizationId=" + std::to_string(s)).body.size());
            QCOMPARE(storedCourses, static_cast<std::int64_t>(courses.size()));
        }
        QVERIFY(f.engine().check().clean());
        qInfo("model-based: %d sequences, %lld operations", sequences, static_cast<long long>(operations));
    }

    void lockedReadOnlyAndTruncatedDatabasesGiveClearErrors()
    {
        Fixture f;
        f.seedDescriptors();
        for (int i = 0; i < 30; ++i)
            f.create("/ed-fi/schools", Fixture::school(6000 + i));
        const QString db = QString::fromStdString(f.databasePath());
        const QByteArray school = QByteArray::fromStdString(
            Json{{"method", "POST"}, {"path", "/ed-fi/schools"}, {"body", Fixture::school(6999)}}.dump() + "\n");

        // Another program holds the write lock longer than the busy timeout and the retries.
        {
            SQLite::Database holder(f.databasePath(), SQLite::OPEN_READWRITE);
            Database::registerFunctions(holder);
            holder.exec("BEGIN EXCLUSIVE");
            CliRun locked = runCli({"--db", db, "requests"}, school);
            QCOMPARE(locked.exitCode, 0);
            QCOMPARE(locked.responses.at(0)["status"].get<int>(), 503);
            QVERIFY(locked.responses.at(0)["body"]["detail"].get<std::string>().find("locked") != std::string::npos);
            holder.exec("ROLLBACK");
        }
        QVERIFY(checkDatabase(f.databasePath(), f.model()).clean());
        QCOMPARE(scalar(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 30);

        // A read-only file: one clear line, exit 2, nothing touched; writable again, all is there.
        QFile::setPermissions(db, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther);
        CliRun readOnly = runCli({"--db", db, "requests"}, school);
        QCOMPARE(readOnly.exitCode, 2);
        QVERIFY2(readOnly.stderrText.contains("read-only"), qPrintable(readOnly.stderrText));
        QFile::setPermissions(db, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
        QVERIFY(checkDatabase(f.databasePath(), f.model()).clean());
        QCOMPARE(scalar(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 30);

        // A truncated copy (a half-finished download, a full USB stick): check says so, the
        // original is untouched, and a request answers 500 naming the damage instead of crashing.
        QTemporaryDir dir;
        const QString truncated = dir.filePath("truncated.db");
        f.database().connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        QVERIFY(QFile::copy(db, truncated));
        {
            QFile file(truncated);
            QVERIFY(file.resize(file.size() / 2));
        }
        CliRun checked = runCli({"--db", truncated, "check"}, "");
        QVERIFY(checked.exitCode == 1 || checked.exitCode == 2); // found damaged, or refused at opening
        QVERIFY2(checked.stdoutText.contains("integrity_check") || checked.stderrText.contains("malformed"),
                 qPrintable(checked.stdoutText + checked.stderrText));
        QVERIFY(checked.stderrText.isEmpty() || checked.stderrText.contains(truncated));
        CliRun read = runCli({"--db", truncated, "requests"}, "{\"method\":\"GET\",\"path\":\"/ed-fi/schools?limit=500\"}\n");
        QVERIFY2(read.exitCode == 0 || read.exitCode == 2, qPrintable(read.stderrText));
        if (read.exitCode == 0)
            QVERIFY(read.responses.at(0)["status"].get<int>() == 200 || read.responses.at(0)["status"].get<int>() == 500);
        QVERIFY(checkDatabase(f.databasePath(), f.model()).clean());
    }

    void fullDiskRefusesCleanlyAndKeepsWhatWasCommitted()
    {
        Fixture f;
        f.seedDescriptors();
        for (int i = 0; i < 20; ++i)
            f.create("/ed-fi/schools", Fixture::school(7000 + i));
        // A database that may not grow any further behaves like a full disk (SQLITE_FULL).
        SQLite::Database &db = f.database().connection();
        const std::int64_t pages = db.execAndGet("PRAGMA page_count").getInt64();
        db.exec("PRAGMA max_page_count=" + std::to_string(pages));
        int refused = 0;
        std::string detail;
        for (int i = 0; i < 400 && refused == 0; ++i) {
            const Response response = f.call("POST", "/ed-fi/schools", Fixture::school(8000 + i));
            if (response.status != 201) {
                QCOMPARE(response.status, 500);
                detail = response.body.value("detail", std::string());
                ++refused;
            }
        }
        QCOMPARE(refused, 1);
        QVERIFY2(detail.find("full") != std::string::npos, detail.c_str());
        db.exec("PRAGMA max_page_count=1073741823");
        // Everything acknowledged before is there and consistent; the refused document is not.
        QVERIFY2(f.engine().check().clean(), violationsText(f.engine().check()).c_str());
        QCOMPARE(f.call("GET", "/ed-fi/schools?schoolId=7019").body.size(), std::size_t(1));
        QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(9999)).status, 201);
    }
};

QTEST_GUILESS_MAIN(TestReliability)
#include "tst_reliability.moc"
