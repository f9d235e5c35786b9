// The NDJSON carrier end to end: the steward-cli binary, its exit codes and its bad-input answers.
#include "CliSupport.h"
#include "FileMode.h"
#include "TestSupport.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <SQLiteCpp/Database.h>

#include <fstream>
#include <tuple>

#include <pwd.h>
#include <unistd.h>

using namespace steward;
using namespace steward::test;

class TestCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exampleSessionOnStarterModel()
    {
        QTemporaryDir dir;
        checkExampleSession({}, dir.filePath("s.db"));
    }

    void badLinesGetProblemDetailsAndProcessingGoesOn()
    {
        QTemporaryDir dir;
        QByteArray input;
        input += "not json\n";
        input += "\n   \n";                                              // blank: skipped
        input += "[1,2]\n";                                              // not an object
        input += "{\"method\":\"GET\"}\n";                               // no path
        input += "{\"method\":\"GET\",\"path\":\"/ed-fi/noSuchThings\"}\n"; // unknown resource
        input += "{\"method\":\"BREW\",\"path\":\"/ed-fi/schools\"}\n";  // unknown method
        input += "{\"method\":\"GET\",\"path\":\"/ed-fi/schools\",\"body\":\"\xff\xfe\"}\n"; // invalid UTF-8
        input += "{\"method\":\"POST\",\"path\":\"/ed-fi/schools\",\"body\":" + QByteArray(129, '[') + QByteArray(129, ']') + "}\n";
        input += "{\"method\":\"POST\",\"path\":\"/ed-fi/schools\",\"body\":\"" + QByteArray(9 * 1024 * 1024, 'a') + "\"}\n";
        // Lone surrogates in \u escapes, invalid UTF-8 and a number beyond a double, each in a
        // POST body that would otherwise be a valid Student.
        const QByteArray student = "{\"method\":\"POST\",\"path\":\"/ed-fi/students\",\"body\":{\"studentUniqueId\":\"1\","
                                   "\"lastSurname\":\"Woods\",\"birthDate\":\"2010-01-13\",\"firstName\":";
        input += student + "\"Lisa\\ud800\"}}\n";
        input += student + "\"\\udc00Lisa\"}}\n";
        input += student + "\"Lis\xc3\x28\"}}\n";
        input += student + "\"Lisa\",\"multipleBirthStatus\":1e999}}\n";
        input += "{\"method\":\"GET\",\"path\":\"/ed-fi/schools\"}";      // last line without newline
        CliRun run = runCli({"--db", dir.filePath("b.db"), "requests"}, input);
        QCOMPARE(run.exitCode, 0);
        const std::vector<int> expected = {400, 400, 400, 404, 405, 400, 400, 400, 400, 400, 400, 400, 200};
        QCOMPARE(run.responses.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(run.responses[i]["status"].get<int>(), expected[i]);
            if (expected[i] >= 400) {
                QVERIFY(run.responses[i]["body"]["type"].get<std::string>().rfind("urn:ed-fi:api:", 0) == 0);
                QVERIFY(!run.responses[i]["body"]["detail"].get<std::string>().empty());
            }
        }
        QVERIFY(run.responses[5]["body"]["detail"].get<std::string>().find("UTF-8") != std::string::npos);
        QVERIFY(run.responses[6]["body"]["detail"].get<std::string>().find("128") != std::string::npos);
        QVERIFY(run.responses[7]["body"]["detail"].get<std::string>().find("limit") != std::string::npos);
        for (std::size_t i : {8, 9})
            QVERIFY(run.responses[i]["body"]["detail"].get<std::string>().find("surrogate") != std::string::npos);
        QVERIFY(run.responses[10]["body"]["detail"].get<std::string>().find("UTF-8") != std::string::npos);
        QVERIFY(run.responses[11]["body"]["detail"].get<std::string>().find("number overflow") != std::string::npos);
        SQLite::Database db(dir.filePath("b.db").toStdString());
        Database::registerFunctions(db);
        QCOMPARE(db.execAndGet("SELECT count(*) FROM documents").getInt(), 0);
    }

    void usageErrorsExitTwo()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath("u.db");
        for (const QStringList &args : {QStringList{"--db", db}, QStringList{"--db", db, "frobnicate"},
                                        QStringList{"--bogus", "requests"}, QStringList{"--db"},
                                        QStringList{"--db", db, "requests", dir.filePath("missing.ndjson")},
                                        QStringList{"--db", db, "--schema", dir.filePath("missing.json"), "requests"}}) {
            CliRun run = runCli(args, "");
            QCOMPARE(run.exitCode, 2);
            QCOMPARE(run.stderrText.trimmed().count('\n'), 0); // one clear line
            QVERIFY(!run.stderrText.trimmed().isEmpty());
        }
        CliRun help = runCli({"--help"}, "");
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.stdoutText.contains("requests"));

        // A sync's pace: requests in flight a whole number from 1 to 64, a rate above 0.
        const QStringList push{"--db", db, "sync", "push", "--to", "http://127.0.0.1:9", "--client", "c"};
        for (const auto &[option, value, said] :
             {std::tuple<QString, QString, QString>{"--parallel", "0", "--parallel takes a whole number from 1 to 64"},
              {"--parallel", "65", "--parallel takes a whole number from 1 to 64"},
              {"--parallel", "1.5", "--parallel takes a whole number from 1 to 64"},
              {"--rate", "0", "--rate takes a number above 0"},
              {"--rate", "fast", "--rate takes a number above 0"}}) {
            CliRun run = runCli(push + QStringList{option, value}, "");
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.stderrText.contains(said), qPrintable(run.stderrText));
        }

        // Every command reads its options through one parser: the same words for the same mistake,
        // "--name=VALUE" as well as "--name VALUE", and the command's help named.
        for (const auto &[args, said] : std::vector<std::pair<QStringList, QString>>{
                 {{"find", "--limit"}, "--limit needs a number (see steward-cli find --help)"},
                 {{"find", "--limit=0", "ab"}, "--limit takes a whole number from 1 to 1000, not '0'"},
                 {{"causes", "--limit", "-3"}, "--limit takes a whole number, not '-3'"},
                 {{"export", "--out", "a", "--out=b"}, "--out given twice (see steward-cli export --help)"},
                 {{"sync", "pull", "--dry-run"}, "unknown option '--dry-run' for sync pull"},
                 {{"rules", "run", "--out", "x"}, "unknown option '--out' for rules run"},
                 {{"fix", "set", "--id"}, "--id needs at least one value"},
                 {{"mapping", "suggest", "--rows", "0"}, "--rows takes a whole number from 1 to 100000, not '0'"},
                 {{"import", "--progress=loud", "x.ndjson"}, "--progress takes bar, json or none"},
                 {{"status", "--resource="}, "--resource needs a value"},
                 {{"delete", "a", "b"}, "delete takes one document"},
                 {{"order", "extra"}, "unexpected argument 'extra' (see steward-cli order --help)"},
             }) {
            CliRun run = runCli(QStringList{"--db", db} + args, "");
            QCOMPARE(run.exitCode, 2);
            QCOMPARE(run.stderrText.trimmed().count('\n'), 0);
            QVERIFY2(run.stderrText.contains(said), qPrintable(args.join(' ') + ": " + run.stderrText));
        }
    }

    // The man pages are made from these texts (packaging/manpages.sh), so they must be complete:
    // each command's --help explains every option its usage names and shows an example.
    void everyCommandHelpExplainsItsOptionsAndHasAnExample()
    {
        const CliRun top = runCli({"--help"}, "");
        QCOMPARE(top.exitCode, 0);
        QStringList commands;
        bool inCommands = false;
        for (const QString &line : top.stdoutText.split('\n')) {
            if (line.startsWith("Commands"))
                inCommands = true;
            else if (line.isEmpty())
                inCommands = false;
            else if (inCommands && line.startsWith("  "))
                commands << line.trimmed().section(' ', 0, 0);
        }
        QVERIFY2(commands.size() >= 13, qPrintable(commands.join(' ')));
        const QRegularExpression option("--[a-z][a-z-]*");
        for (const QString &command : commands) {
            const CliRun help = runCli({command, "--help"}, "");
            QVERIFY2(help.exitCode == 0 && help.stdoutText.startsWith("Usage: steward-cli"),
                     qPrintable(command));
            // The usage block runs to the first blank line; the rest must explain what it names.
            const QString usage = help.stdoutText.section("\n\n", 0, 0);
            const QString rest = help.stdoutText.section("\n\n", 1);
            QVERIFY2(rest.contains("Example"), qPrintable(command + " --help has no example"));
            for (auto it = option.globalMatch(usage); it.hasNext();) {
                const QString name = it.next().captured();
                if (name != "--db" && name != "--schema") // explained by steward-cli --help
                    QVERIFY2(rest.contains(name), qPrintable(command + " --help does not explain " + name));
            }
        }
    }

    void foreignNewerAndReadOnlyDatabasesAreLeftUntouched()
    {
        QTemporaryDir dir;
        const QString text = dir.filePath("notes.txt");
        { std::ofstream(text.toStdString()) << "These are my notes, not a database.\n"; }
        const QString foreign = dir.filePath("other.sqlite");
        {
            SQLite::Database db(foreign.toStdString(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
            Database::registerFunctions(db);
            db.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1);");
        }
        const QString newer = dir.filePath("newer.db");
        runCli({"--db", newer, "requests"}, "");
        {
            SQLite::Database db(newer.toStdString(), SQLite::OPEN_READWRITE);
            Database::registerFunctions(db);
            db.exec("PRAGMA user_version=99");
        }
        const QString readOnly = dir.filePath("ro.db");
        runCli({"--db", readOnly, "requests"}, "");
        QFile::setPermissions(readOnly, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther);

        for (const auto &[path, phrase] : std::vector<std::pair<QString, QString>>{
                 {text, "not a Steward database"}, {foreign, "not a Steward database"},
                 {newer, "newer Steward"}, {readOnly, "read-only"}}) {
            const QByteArray before = fileHash(path);
            CliRun run = runCli({"--db", path, "requests"}, "{\"method\":\"GET\",\"path\":\"/ed-fi/schools\"}\n");
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.stderrText.contains(phrase), qPrintable(run.stderrText));
            QVERIFY(run.stderrText.contains(path));
            QCOMPARE(run.responses.size(), std::size_t(0));
            QCOMPARE(fileHash(path), before);
        }
    }

    // A database from before the model was recorded (schema v28) opens; the starter model, which it
    // was opened with unless --schema was given, is recorded then.
    void aDatabaseFromBeforeTheModelRecordOpensWithTheStarterModel()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("v28.db");
        const CliRun made = runCli({"--db", path, "requests"},
                                   "{\"method\":\"POST\",\"path\":\"/ed-fi/gradeLevelDescriptors\",\"body\":{\"namespace\":"
                                   "\"uri://ed-fi.org/GradeLevelDescriptor\",\"codeValue\":\"Ninth\",\"shortDescription\":\"9\"}}\n");
        QCOMPARE(made.exitCode, 0);
        {
            SQLite::Database db(path.toStdString(), SQLite::OPEN_READWRITE);
            db.exec("DROP TABLE model_files; PRAGMA user_version=28");
        }
        const CliRun status = runCli({"--db", path, "status"}, "");
        QVERIFY2(status.exitCode == 0, qPrintable(status.stderrText));
        QVERIFY2(status.stdoutText.startsWith("model: the starter model (Ed-Fi 5.1.0)\n"), qPrintable(status.stdoutText));
        const CliRun check = runCli({"--db", path, "check"}, "");
        QVERIFY2(check.exitCode == 0, qPrintable(check.stdoutText + check.stderrText));
        SQLite::Database db(path.toStdString(), SQLite::OPEN_READONLY);
        QCOMPARE(db.execAndGet("PRAGMA user_version").getInt(), Database::schemaVersion());
        QCOMPARE(db.execAndGet("SELECT count(*) FROM model_files WHERE content IS NULL AND name = 'starter model'").getInt(),
                 1);
    }

    void schemaErrorNamesFileAndPath()
    {
        QTemporaryDir dir;
        const QString schema = dir.filePath("broken.json");
        { std::ofstream(schema.toStdString()) << R"({"projectSchema":{"projectName":"X","projectEndpointName":"x","resourceSchemas":[]}})"; }
        CliRun run = runCli({"--db", dir.filePath("x.db"), "--schema", schema, "requests"}, "");
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.stderrText.contains(schema + ": $.projectSchema.resourceSchemas: expected an object"),
                 qPrintable(run.stderrText));
        QVERIFY(!QFile::exists(dir.filePath("x.db")));
    }

    // A command steward-cli suggests ("Undo with: ...") names the database it was run with, quoted
    // for the shell, so that pasting it undoes the edit there and not in the default database.
    void suggestedCommandsNameTheDatabaseGiven()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath("the district's data.db");
        CliRun created = runCli({"--db", db, "requests"},
                                "{\"method\":\"POST\",\"path\":\"/ed-fi/gradeLevelDescriptors\",\"body\":{\"namespace\":"
                                "\"uri://ed-fi.org/GradeLevelDescriptor\",\"codeValue\":\"Ninth\",\"shortDescription\":\"Ninth\"}}\n");
        QCOMPARE(created.exitCode, 0);
        const CliRun fixed = runCli({"--db", db, "fix", "set", "--resource", "GradeLevelDescriptor", "--field",
                                     "$.description", "--value", "\"Ninth grade\""},
                                    "");
        QCOMPARE(fixed.exitCode, 0);
        const QRegularExpressionMatch undo = QRegularExpression("Undo with: (.*)$", QRegularExpression::MultilineOption)
                                                 .match(fixed.stdoutText);
        QVERIFY2(undo.hasMatch(), qPrintable(fixed.stdoutText));
        QVERIFY2(undo.captured(1).startsWith("steward-cli --db "), qPrintable(undo.captured(1)));

        // Pasted into a shell elsewhere, with a home of its own (whose default database has no such edit).
        QTemporaryDir elsewhere;
        QProcess shell;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("HOME", elsewhere.path());
        env.remove("XDG_DATA_HOME");
        env.insert("PATH", QFileInfo(cliPath()).absolutePath() + ":" + env.value("PATH"));
        shell.setProcessEnvironment(env);
        shell.setWorkingDirectory(elsewhere.path());
        shell.start("bash", {"-c", undo.captured(1)});
        QVERIFY(shell.waitForFinished(60000));
        QVERIFY2(shell.exitCode() == 0, qPrintable(QString::fromUtf8(shell.readAllStandardError())));
        const CliRun read = runCli({"--db", db, "requests"},
                                   "{\"method\":\"GET\",\"path\":\"/ed-fi/gradeLevelDescriptors\"}\n");
        QCOMPARE(read.responses.size(), std::size_t(1));
        QVERIFY2(!read.responses[0]["body"][0].contains("description"), qPrintable(read.stdoutText));
    }

    // What commands write holds student records: under the usual umask each file is the owner's
    // alone (the database a command creates, a generated district, an import's --report, a backup,
    // a database a restore creates, an exported rule pack) and a batch's folder too (tst_export
    // checks the files in it).
    void filesCommandsWriteAreOwnerOnly()
    {
        const ScopedUmask usual(022);
        QTemporaryDir dir;
        const QString db = dir.filePath("records.db");
        const std::vector<QStringList> commands = {
            {"generate", "--scale", "1", "--seed", "3", "--out", dir.filePath("district.ndjson")},
            {"--db", db, "import", dir.filePath("district.ndjson"), "--report", dir.filePath("import.json")},
            {"--db", db, "backup", "--to", dir.filePath("backup.db")},
            {"--db", dir.filePath("restored.db"), "restore", "--from", dir.filePath("backup.db")},
            {"--db", db, "rules", "export", "--out", dir.filePath("pack.json")},
            {"--db", db, "export", "--out", dir.filePath("batch")},
        };
        for (const QStringList &command : commands) {
            const CliRun run = runCli(command, {});
            QVERIFY2(run.exitCode == 0, qPrintable(command.join(' ') + ": " + run.stderrText));
            QVERIFY2(!run.stderrText.contains("other accounts"), qPrintable(run.stderrText));
        }
        for (const char *file : {"district.ndjson", "records.db", "import.json", "backup.db", "restored.db", "pack.json"})
            QVERIFY2(modeOf(dir.filePath(file)) == QStringLiteral("600"),
                     qPrintable(QString::fromLatin1(file) + " is " + modeOf(dir.filePath(file))));
        QCOMPARE(modeOf(dir.filePath("batch")), QStringLiteral("700"));
    }

    // A database other accounts can read (chmod'ed 0644) still opens, with one line on stderr that
    // names the file, its mode and the fix, and the exit code it would have had; check reports it
    // without failing; make-private makes it 0600 and the warning goes.
    void aDatabaseOthersCanReadWarnsAndMakePrivateFixesIt()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath("shared.db");
        const QByteArray get = "{\"method\":\"GET\",\"path\":\"/ed-fi/schools\"}\n";
        const QString privateDb = dir.filePath("private.db");
        CliRun run = runCli({"--db", db, "requests"}, get);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(!run.stderrText.contains("warning"), qPrintable(run.stderrText));
        QCOMPARE(runCli({"--db", privateDb, "requests"}, get).exitCode, 0);
        QVERIFY(QFile::setPermissions(db, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther));

        for (const QStringList &command : {QStringList{"requests"}, QStringList{"status"}, QStringList{"changes", "--summary"}}) {
            const CliRun warned = runCli(QStringList{"--db", db} + command, get);
            const CliRun unwarned = runCli(QStringList{"--db", privateDb} + command, get);
            QCOMPARE(warned.exitCode, unwarned.exitCode);
            QVERIFY2(!unwarned.stderrText.contains("warning"), qPrintable(unwarned.stderrText));
            const QStringList warnings = warned.stderrText.split('\n').filter("warning");
            QVERIFY2(warnings.size() == 1, qPrintable(command.join(' ') + ": " + warned.stderrText));
            QVERIFY2(warnings[0].contains(db + " (mode 0644)") && warnings[0].contains("steward-cli --db " + db + " make-private"),
                     qPrintable(warnings[0]));
        }
        run = runCli({"--db", db, "check", "--json"}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdoutText + run.stderrText));
        const Json report = Json::parse(run.stdoutText.toStdString());
        QCOMPARE(report["clean"].get<bool>(), true);
        QCOMPARE(report["readableByOthers"][0]["path"].get<std::string>(), db.toStdString());
        QCOMPARE(report["readableByOthers"][0]["mode"].get<std::string>(), std::string("0644"));
        run = runCli({"--db", db, "check"}, {});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.stdoutText.contains("privacy: other accounts can read " + db + " (mode 0644)"), qPrintable(run.stdoutText));

        run = runCli({"--db", db, "make-private"}, {});
        QVERIFY2(run.exitCode == 0 && run.stdoutText.contains("Made private: " + db + " (mode 0644) is now 0600."),
                 qPrintable(run.stdoutText + run.stderrText));
        QCOMPARE(modeOf(db), QStringLiteral("600"));
        run = runCli({"--db", db, "check", "--json"}, {});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(!run.stderrText.contains("warning"));
        QCOMPARE(Json::parse(run.stdoutText.toStdString())["readableByOthers"].size(), std::size_t(0));
        QCOMPARE(runCli({"--db", dir.filePath("missing.db"), "make-private"}, {}).exitCode, 1);
        QVERIFY(!QFile::exists(dir.filePath("missing.db")));
    }

    // tidy runs the app's idle-time upkeep on demand: what is due, or everything with --now.
    void tidyRunsTheIdleUpkeep()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath("district.db");
        QCOMPARE(runCli({"--db", db, "requests"}, "{\"method\":\"GET\",\"path\":\"/ed-fi/schools\"}\n").exitCode, 0);
        CliRun run = runCli({"--db", db, "tidy", "--now", "--json"}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stdoutText + run.stderrText));
        const Json report = Json::parse(run.stdoutText.toStdString());
        QCOMPARE(report["mergedTextIndexes"].get<bool>(), true);
        QVERIFY(report["unusedShare"].is_number());
        QCOMPARE(report["busy"].get<bool>(), false);
        QVERIFY(report["fileBytesAfter"].get<std::int64_t>() <= report["fileBytesBefore"].get<std::int64_t>());
        run = runCli({"--db", db, "tidy"}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        QVERIFY2(run.stdoutText.contains("Text indexes: merged within the last day.")
                     && run.stdoutText.contains("VACUUM: not due"),
                 qPrintable(run.stdoutText));
        QVERIFY(runCli({"--db", db, "tidy", "--help"}, {}).stdoutText.contains("over 10% of its pages' bytes"));
        QCOMPARE(runCli({"--db", dir.filePath("missing.db"), "tidy"}, {}).exitCode, 1);
        QVERIFY(!QFile::exists(dir.filePath("missing.db")));
    }

    // A directory left from an earlier export is not the batch just asked for: with --batch ID,
    // verify-batch says so instead of "ok"; its "ok" names the batch it checked.
    void verifyBatchChecksTheBatchAskedFor()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath("v.db");
        const CliRun first = runCli({"--db", db, "export", "--out", dir.filePath("batch-1")}, "");
        QCOMPARE(first.exitCode, 0);
        const CliRun again = runCli({"--db", db, "export", "--out", dir.filePath("batch-1")}, "");
        QCOMPARE(again.exitCode, 2); // the directory holds the first batch
        const CliRun second = runCli({"--db", db, "export", "--out", dir.filePath("batch-2")}, "");
        QCOMPARE(second.exitCode, 0);
        const QString firstId = first.stdoutText.trimmed();
        const QString secondId = second.stdoutText.trimmed();
        QVERIFY(!firstId.isEmpty() && firstId != secondId);

        const CliRun stale = runCli({"verify-batch", dir.filePath("batch-1"), "--batch", secondId}, "");
        QCOMPARE(stale.exitCode, 1);
        QVERIFY2(stale.stdoutText.contains("batch " + firstId + ", not " + secondId), qPrintable(stale.stdoutText));
        QVERIFY(!stale.stdoutText.contains("ok:"));
        const CliRun sound = runCli({"verify-batch", dir.filePath("batch-1"), "--batch", firstId}, "");
        QCOMPARE(sound.exitCode, 0);
        QVERIFY2(sound.stdoutText.contains(" files of batch " + firstId + ", made "), qPrintable(sound.stdoutText));
    }

    // The README's ID: the id the engine gives, in either spelling Ed-Fi APIs use (ODS/API's 32 hex
    // digits, or hyphenated), for the commands that take one as for requests.
    void commandsTakeIdsInEitherSpelling()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath("ids.db");
        const CliRun created = runCli({"--db", db, "requests"},
                                      "{\"method\":\"POST\",\"path\":\"/ed-fi/gradeLevelDescriptors\",\"body\":{\"namespace\":"
                                      "\"uri://ed-fi.org/GradeLevelDescriptor\",\"codeValue\":\"Ninth\",\"shortDescription\":\"Ninth\"}}\n");
        QCOMPARE(created.responses.size(), std::size_t(1));
        const std::string location = created.responses[0]["headers"]["Location"].get<std::string>();
        const QString id = QString::fromStdString(location.substr(location.rfind('/') + 1));
        QCOMPARE(id.size(), 36);
        const QString odsSpelling = QString(id).remove('-').toUpper();
        const CliRun found = runCli({"--db", db, "find", "Ninth"}, "");
        QVERIFY2(found.stdoutText.contains(id), qPrintable(found.stdoutText));
        const CliRun deleted = runCli({"--db", db, "delete", "ed-fi/gradeLevelDescriptors/" + odsSpelling}, "");
        QVERIFY2(deleted.exitCode == 0, qPrintable(deleted.stderrText));
        const CliRun gone = runCli({"--db", db, "requests"},
                                   ("{\"method\":\"GET\",\"path\":\"" + location + "\"}\n").c_str());
        QCOMPARE(gone.responses[0]["status"].get<int>(), 404);
    }

    // A service, a container or `env -i` sets neither USER nor LOGNAME: the change log's actor is
    // then the account's name from the password database, not a placeholder; USER still wins.
    void actingUserWithoutUserIsTheAccountsName()
    {
        const passwd *account = getpwuid(geteuid());
        if (account == nullptr || account->pw_name == nullptr)
            QSKIP("this account has no entry in the password database");
        const QString accountName = QString::fromLocal8Bit(account->pw_name);
        QTemporaryDir dir;
        const QString db = dir.filePath("who.db");
        const QByteArray descriptor =
            "{\"method\":\"POST\",\"path\":\"/ed-fi/gradeLevelDescriptors\",\"body\":{\"namespace\":"
            "\"uri://ed-fi.org/GradeLevelDescriptor\",\"codeValue\":\"%1\",\"shortDescription\":\"%1\"}}\n";
        for (const QString &user : {QString(), QStringLiteral("someone-else")}) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            for (const char *name : {"USER", "LOGNAME", "USERNAME"})
                env.remove(QString::fromLatin1(name));
            if (!user.isEmpty())
                env.insert("USER", user);
            QProcess process;
            process.setProcessEnvironment(env);
            process.start(cliPath(), {"--db", db, "requests"});
            process.write(QString::fromLatin1(descriptor).arg(user.isEmpty() ? QStringLiteral("Ninth") : QStringLiteral("Tenth")).toUtf8());
            process.closeWriteChannel();
            QVERIFY(process.waitForFinished(60000));
            QCOMPARE(process.exitCode(), 0);
            QVERIFY2(process.readAllStandardOutput().contains("\"status\":201"), "the descriptor was not created");
        }
        SQLite::Database check(db.toStdString());
        Database::registerFunctions(check);
        SQLite::Statement actors(check, "SELECT actor FROM changes ORDER BY seq");
        QStringList seen;
        while (actors.executeStep())
            seen << QString::fromStdString(actors.getColumn(0).getString());
        QCOMPARE(seen, (QStringList{accountName, QStringLiteral("someone-else")}));

        // The same answer in this process, as the app and every command ask for it.
        const QByteArray savedUser = qgetenv("USER");
        const QByteArray savedLogname = qgetenv("LOGNAME");
        qunsetenv("USER");
        qunsetenv("LOGNAME");
        const std::string who = currentOsUser();
        if (!savedUser.isEmpty())
            qputenv("USER", savedUser);
        if (!savedLogname.isEmpty())
            qputenv("LOGNAME", savedLogname);
        QCOMPARE(QString::fromStdString(who), accountName);
    }

    // Plain HTTP to another machine is refused from the address alone: district.invalid resolves to
    // nothing, and the answer is the refusal, not a failed lookup; no database is made, no secret asked.
    // Loopback stays allowed; a certificate authority file that cannot be used is a usage error naming it.
    void plainHttpToAnotherMachineIsRefusedBeforeAnyConnection()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath("never.db");
        for (const QString &action : {QStringLiteral("pull"), QStringLiteral("push")}) {
            const CliRun refused = runCli({"--db", db, "sync", action, action == "pull" ? "--from" : "--to",
                                           "http://district.invalid/api", "--client", "district",
                                           "--secret-env", "STEWARD_TEST_NEVER_SET"},
                                          "");
            QCOMPARE(refused.exitCode, 2);
            QVERIFY2(refused.stderrText.contains("plain HTTP to another machine")
                         && refused.stderrText.contains("--plain-http")
                         && !refused.stderrText.contains("resolve"),
                     qPrintable(refused.stderrText));
        }
        QVERIFY(!QFile::exists(db));
        const CliRun credentials = runCli({"--db", db, "sync", "pull", "--from", "https://district:pw@district.invalid",
                                           "--client", "district"},
                                          "");
        QCOMPARE(credentials.exitCode, 2);
        QVERIFY2(!credentials.stderrText.contains("pw@"), qPrintable(credentials.stderrText));
        const QString missing = dir.filePath("no-ca.crt");
        const CliRun noCa = runCli({"--db", db, "sync", "pull", "--from", "https://district.invalid", "--client",
                                    "district", "--ca-cert", missing},
                                   "");
        QCOMPARE(noCa.exitCode, 2);
        QVERIFY2(noCa.stderrText.contains(missing), qPrintable(noCa.stderrText));
        QVERIFY(!QFile::exists(db));
        // This machine by name or loopback address is allowed: the refusal is not what stops these
        // (nothing listens on port 9, the secret is missing first).
        for (const QString &local : {QStringLiteral("http://localhost:9"), QStringLiteral("http://127.0.0.1:9"),
                                     QStringLiteral("http://[::1]:9")}) {
            const CliRun allowed = runCli({"--db", db, "sync", "pull", "--from", local, "--client", "district",
                                           "--secret-env", "STEWARD_TEST_NEVER_SET"},
                                          "");
            QVERIFY2(!allowed.stderrText.contains("plain HTTP"), qPrintable(allowed.stderrText));
            QVERIFY2(allowed.stderrText.contains("STEWARD_TEST_NEVER_SET"), qPrintable(allowed.stderrText));
        }
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
