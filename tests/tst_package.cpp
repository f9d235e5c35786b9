// The Debian package as a user gets it: CPack builds it from this tree into a scratch folder,
// dpkg-deb unpacks it into a scratch root, and the programs there run on system libraries only.
// Skips, visibly, where dpkg-deb or cpack is missing (not a Debian machine).
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

// Runs a program with no LD_LIBRARY_PATH, no display and no Qt platform chosen: what an installed
// binary meets in a plain terminal.
Run run(const QString &program, const QStringList &args, int timeoutMs = 120000)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"LD_LIBRARY_PATH", "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QString::fromLatin1(name));
    process.setProcessEnvironment(env);
    process.start(program, args);
    Run result;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        result.err = program + " did not finish";
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

// Width and height from a PNG's IHDR chunk.
QSize pngSize(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray head = file.read(24);
    if (head.size() < 24 || !head.startsWith("\x89PNG\r\n\x1a\n"))
        return {};
    auto be32 = [&head](int at) {
        return (quint32(quint8(head[at])) << 24) | (quint32(quint8(head[at + 1])) << 16) |
               (quint32(quint8(head[at + 2])) << 8) | quint32(quint8(head[at + 3]));
    };
    return QSize(int(be32(16)), int(be32(20)));
}

const QString kAppId = QStringLiteral(STEWARD_APP_ID);

} // namespace

class TestPackage : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_scratch;
    QString m_deb;
    QString m_root;

private Q_SLOTS:
    void initTestCase()
    {
        const QString dpkgDeb = QStandardPaths::findExecutable("dpkg-deb");
        if (dpkgDeb.isEmpty())
            QSKIP("dpkg-deb not found: not a Debian system, no package to test");
        QVERIFY(QFile::exists(QStringLiteral(STEWARD_CPACK_CONFIG)));
        QVERIFY2(!QStandardPaths::findExecutable("dpkg-shlibdeps").isEmpty(),
                 "dpkg-shlibdeps not found: install dpkg-dev (scripts/install-deps.sh)");

        // The tree's own CPack configuration, written into the scratch folder, not the build's.
        const QString out = m_scratch.filePath("out");
        const Run cpack =
            run(QStringLiteral(STEWARD_CPACK_COMMAND),
                {"--config", QStringLiteral(STEWARD_CPACK_CONFIG), "-G", "DEB", "-B", out}, 300000);
        QVERIFY2(cpack.exitCode == 0, qPrintable(cpack.out + cpack.err));
        const QStringList debs = QDir(out).entryList({"*.deb"}, QDir::Files);
        QCOMPARE(debs.size(), 1);
        m_deb = QDir(out).filePath(debs.first());
        QVERIFY2(debs.first().startsWith(QStringLiteral("steward_%1_").arg(STEWARD_VERSION)),
                 qPrintable(m_deb));

        m_root = m_scratch.filePath("root");
        const Run extract = run(dpkgDeb, {"-x", m_deb, m_root});
        QVERIFY2(extract.exitCode == 0, qPrintable(extract.err));
    }

    void programsRunFromTheUnpackedPackage()
    {
        const Run cli = run(m_root + "/usr/bin/steward-cli", {"--version"});
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        QCOMPARE(cli.out.trimmed(), QStringLiteral("steward-cli %1").arg(STEWARD_VERSION));
        // No display here: --version must not need one.
        const Run app = run(m_root + "/usr/bin/steward", {"--version"});
        QVERIFY2(app.exitCode == 0, qPrintable(app.err));
        QCOMPARE(app.out.trimmed(), QStringLiteral("steward %1").arg(STEWARD_VERSION));
        QVERIFY2(app.err.isEmpty(), qPrintable(app.err));

        // Only system libraries: no RPATH/RUNPATH back into a build tree.
        const QString readelf = QStandardPaths::findExecutable("readelf");
        if (readelf.isEmpty()) {
            qInfo("readelf not found: RPATH not checked");
            return;
        }
        for (const QString binary : {"steward", "steward-cli"}) {
            const Run dynamic = run(readelf, {"-d", m_root + "/usr/bin/" + binary});
            QCOMPARE(dynamic.exitCode, 0);
            QVERIFY2(!dynamic.out.contains("RPATH") && !dynamic.out.contains("RUNPATH"),
                     qPrintable(dynamic.out));
        }
    }

    void dependsNamesQtAndSqlite()
    {
        const Run fields = run("dpkg-deb", {"-f", m_deb, "Package", "Depends"});
        QCOMPARE(fields.exitCode, 0);
        QVERIFY2(fields.out.contains("Package: steward\n"), qPrintable(fields.out));
        // Found by dpkg-shlibdeps (Debian's t64 names add a suffix: match the stem).
        for (const char *library : {"libqt6core6", "libqt6gui6", "libqt6widgets6", "libqt6network6",
                                    "libqt6httpserver6", "libsqlite3-0", "libc6", "libstdc++6", "libxlsxwriter"})
            QVERIFY2(fields.out.contains(QLatin1String(library)),
                     qPrintable(library + (" missing: " + fields.out)));
        QVERIFY2(fields.out.contains("qt6-qpa-plugins"), qPrintable(fields.out));
    }

    void desktopEntryAndMetadata()
    {
        const QString desktop = m_root + "/usr/share/applications/" + kAppId + ".desktop";
        const QString metainfo = m_root + "/usr/share/metainfo/" + kAppId + ".metainfo.xml";
        QVERIFY(QFile::exists(desktop));
        QVERIFY(QFile::exists(metainfo));
        QFile entry(desktop);
        QVERIFY(entry.open(QIODevice::ReadOnly));
        const QByteArray text = entry.readAll();
        QVERIFY(text.contains("\nExec=steward\n"));
        QVERIFY(text.contains("\nIcon=" + kAppId.toUtf8() + "\n"));

        const QString validateDesktop = QStandardPaths::findExecutable("desktop-file-validate");
        if (validateDesktop.isEmpty()) {
            qWarning(
                "desktop-file-validate not found (desktop-file-utils): the desktop entry is not validated");
        } else {
            const Run check = run(validateDesktop, {desktop});
            QVERIFY2(check.exitCode == 0, qPrintable(check.out + check.err));
        }
        const QString appstream = QStandardPaths::findExecutable("appstreamcli");
        if (appstream.isEmpty()) {
            qWarning("appstreamcli not found (appstream): the metainfo is not validated");
        } else {
            const Run check = run(appstream, {"validate", "--no-net", metainfo});
            QVERIFY2(check.exitCode == 0, qPrintable(check.out + check.err));
        }
    }

    void iconsInEverySize()
    {
        const QString hicolor = m_root + "/usr/share/icons/hicolor/";
        QVERIFY(QFile::exists(hicolor + "scalable/apps/" + kAppId + ".svg"));
        for (int size : {16, 22, 24, 32, 48, 64, 128, 256}) {
            const QString png = hicolor + QStringLiteral("%1x%1/apps/").arg(size) + kAppId + ".png";
            QVERIFY2(QFile::exists(png), qPrintable(png + " missing (rsvg-convert: librsvg2-bin)"));
            QCOMPARE(pngSize(png), QSize(size, size));
        }
    }

    // A page for each program and for every command steward-cli --help lists, with its example.
    void manPagesForEveryCommand()
    {
        const Run help = run(m_root + "/usr/bin/steward-cli", {"--help"});
        QCOMPARE(help.exitCode, 0);
        QStringList pages{"steward", "steward-cli"};
        const QRegularExpression commandLine("^  ([a-z][a-z-]*)( |$)");
        bool inCommands = false;
        for (const QString &line : help.out.split('\n')) {
            if (line.startsWith("Commands"))
                inCommands = true;
            else if (line.isEmpty())
                inCommands = false;
            else if (const QRegularExpressionMatch m = commandLine.match(line); inCommands && m.hasMatch())
                pages << "steward-cli-" + m.captured(1);
        }
        QVERIFY2(pages.contains("steward-cli-restore"), qPrintable(pages.join(' ')));
        const QString man1 = m_root + "/usr/share/man/man1/";
        for (const QString &page : pages) {
            const QString path = man1 + page + ".1.gz";
            const Run roff = run("gzip", {"-dc", path});
            QVERIFY2(roff.exitCode == 0, qPrintable(path + ": " + roff.err));
            QVERIFY2(roff.out.contains(".TH " + page.toUpper() + " 1 "), qPrintable(page));
            QVERIFY2(roff.out.contains(".SH NAME\n" + QString(page).replace('-', "\\-") + " \\- "),
                     qPrintable(page));
            QVERIFY2(roff.out.contains(".SH SYNOPSIS") && roff.out.contains(".SH EXAMPLES"),
                     qPrintable(page));
        }
        // Nothing else in man1: a page without a command would be a stale one.
        QCOMPARE(QDir(man1).entryList(QDir::Files).size(), pages.size());

        // man renders them without complaint where man-db is installed.
        const QString man = QStandardPaths::findExecutable("man");
        if (man.isEmpty()) {
            qInfo("man not found: pages not rendered");
            return;
        }
        const Run shown = run(man, {"-l", "-P", "cat", man1 + "steward-cli-export.1.gz"});
        QVERIFY2(shown.exitCode == 0 && shown.out.contains("--changed-since"),
                 qPrintable(shown.out + shown.err));
    }

    // Everything the package holds is one of the above: no headers, static libraries or tests.
    void nothingElseIsInstalled()
    {
        const QRegularExpression expected("^/usr/(bin/steward(-cli)?|share/(applications|metainfo|icons/"
                                          "hicolor/[^/]+/apps|man/man1)/[^/]+)$");
        int files = 0;
        for (QDirIterator it(m_root, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
            const QString path = it.next().mid(m_root.size());
            QVERIFY2(expected.match(path).hasMatch(), qPrintable(path));
            ++files;
        }
        QVERIFY(files > 10);
    }
};

QTEST_GUILESS_MAIN(TestPackage)
#include "tst_package.moc"
