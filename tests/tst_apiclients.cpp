// Serve clients: secrets shown once and stored only as salted PBKDF2 hashes; `steward-cli clients`.
#include "ApiClients.h"
#include "CliSupport.h"
#include "TestSupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <SQLiteCpp/Database.h>

using namespace steward;
using namespace steward::test;

class TestApiClients : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pbkdf2MatchesRfc7914Vectors()
    {
        QCOMPARE(pbkdf2Sha256("passwd", "salt", 1, 64).toHex(),
                 QByteArray("55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                            "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"));
        QCOMPARE(pbkdf2Sha256("Password", "NaCl", 80000, 64).toHex(),
                 QByteArray("4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
                            "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"));
    }

    void namesAreShortAndPlain()
    {
        for (const char *good : {"a", "sis-sync", "Vendor.App_2",
                                 "0123456789012345678901234567890123456789012345678901234567890123"})
            QVERIFY2(ApiClients::isValidName(good), good);
        for (const char *bad : {"", "has space", "slash/", "colon:", "ü",
                                "01234567890123456789012345678901234567890123456789012345678901234"})
            QVERIFY2(!ApiClients::isValidName(bad), bad);
    }

    void addVerifyListRemove()
    {
        Fixture fixture;
        ApiClients clients(fixture.database().connection());
        const NewApiClient added = clients.add("sis");
        QCOMPARE(added.name, std::string("sis"));
        QCOMPARE(added.secret.size(), std::size_t(43)); // 32 bytes, base64url without padding
        QVERIFY(added.secret.find_first_not_of(
                    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
                == std::string::npos);
        QVERIFY(clients.verify("sis", added.secret));
        QVERIFY(!clients.verify("sis", added.secret + "x"));
        QVERIFY(!clients.verify("sis", ""));
        QVERIFY(!clients.verify("other", added.secret));
        QVERIFY(clients.exists("sis"));

        try {
            clients.add("sis");
            QFAIL("a duplicate name was accepted");
        } catch (const ApiClientError &e) {
            QCOMPARE(e.kind(), ApiClientError::Kind::Duplicate);
            QVERIFY(std::string(e.what()).find("sis") != std::string::npos);
        }
        try {
            clients.add("no spaces");
            QFAIL("a bad name was accepted");
        } catch (const ApiClientError &e) {
            QCOMPARE(e.kind(), ApiClientError::Kind::BadName);
        }

        const NewApiClient second = clients.add("another");
        QVERIFY(second.secret != added.secret);
        const std::vector<ApiClient> all = clients.list();
        QCOMPARE(all.size(), std::size_t(2));
        QCOMPARE(all[0].name, std::string("another"));
        QVERIFY(!all[0].createdAt.empty());

        SQLite::Statement row(
            fixture.database().connection(),
            "SELECT length(salt), length(secret_hash), iterations FROM api_clients WHERE name = 'sis'");
        QVERIFY(row.executeStep());
        QCOMPARE(row.getColumn(0).getInt(), ApiClients::kSaltBytes);
        QCOMPARE(row.getColumn(1).getInt(), ApiClients::kHashBytes);
        QCOMPARE(row.getColumn(2).getInt(), ApiClients::kIterations);

        QVERIFY(clients.remove("sis"));
        QVERIFY(!clients.remove("sis"));
        QVERIFY(!clients.exists("sis"));
        QVERIFY(!clients.verify("sis", added.secret));
    }

    void cliAddPrintsKeyAndSecretOnce()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath("c.db");
        CliRun add = runCli({"--db", db, "clients", "add", "sis-sync"}, "");
        QCOMPARE(add.exitCode, 0);
        const QStringList lines = add.stdoutText.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0], QStringLiteral("key: sis-sync"));
        QVERIFY(lines[1].startsWith("secret: "));
        const QByteArray secret = lines[1].mid(8).toLatin1();
        QCOMPARE(secret.size(), 43);
        QVERIFY(add.stdoutText.endsWith('\n'));

        CliRun duplicate = runCli({"--db", db, "clients", "add", "sis-sync"}, "");
        QCOMPARE(duplicate.exitCode, 1);
        QVERIFY(duplicate.stdoutText.isEmpty());
        QCOMPARE(duplicate.stderrText.trimmed().count('\n'), 0);
        QVERIFY(duplicate.stderrText.contains("already exists"));

        CliRun list = runCli({"--db", db, "clients", "list"}, "");
        QCOMPARE(list.exitCode, 0);
        QVERIFY(list.stdoutText.startsWith("sis-sync "));
        QVERIFY(!list.stdoutText.contains(QString::fromLatin1(secret)));

        // Only the salted hash is kept: not the text, not the bytes it encodes, in no encoding.
        const QByteArray raw = QByteArray::fromBase64(secret, QByteArray::Base64UrlEncoding);
        QCOMPARE(raw.size(), 32);
        QByteArray files;
        for (const QString &name : QDir(dir.path()).entryList(QDir::Files)) {
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::ReadOnly));
            files += file.readAll();
        }
        QVERIFY(files.size() > 0);
        for (const QByteArray &form : {secret, raw, raw.toHex(), raw.toBase64(), raw.toHex().toUpper()})
            QVERIFY2(!files.contains(form), form.toHex().constData());

        CliRun remove = runCli({"--db", db, "clients", "remove", "sis-sync"}, "");
        QCOMPARE(remove.exitCode, 0);
        CliRun again = runCli({"--db", db, "clients", "remove", "sis-sync"}, "");
        QCOMPARE(again.exitCode, 1);
        QVERIFY(again.stderrText.contains("no client named"));
        CliRun empty = runCli({"--db", db, "clients", "list"}, "");
        QCOMPARE(empty.exitCode, 0);
        QVERIFY(empty.stdoutText.isEmpty());
    }

    void cliUsageErrorsExitTwo()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath("u.db");
        for (const QStringList &args :
             {QStringList{"clients"}, QStringList{"clients", "add"}, QStringList{"clients", "add", "a", "b"},
              QStringList{"clients", "add", "bad name"}, QStringList{"clients", "frob"},
              QStringList{"clients", "list", "x"}, QStringList{"clients", "remove"}}) {
            CliRun run = runCli(QStringList{"--db", db} + args, "");
            QCOMPARE(run.exitCode, 2);
            QCOMPARE(run.stderrText.trimmed().count('\n'), 0);
            QVERIFY(run.stderrText.contains("clients --help"));
        }
        CliRun help = runCli({"clients", "--help"}, "");
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.stdoutText.contains("Example: steward-cli"));
        CliRun top = runCli({"--help"}, "");
        QVERIFY(top.stdoutText.contains("clients add NAME"));
    }
};

QTEST_GUILESS_MAIN(TestApiClients)
#include "tst_apiclients.moc"
