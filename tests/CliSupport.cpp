#include "CliSupport.h"
#include "TestSupport.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>

namespace steward::test {

namespace {

const char *const kExampleSession = R"(
{"method":"POST","path":"/ed-fi/gradeLevelDescriptors","body":{"namespace":"uri://ed-fi.org/GradeLevelDescriptor","codeValue":"Ninth grade","shortDescription":"Ninth grade"}}
{"method":"POST","path":"/ed-fi/schools","body":{"schoolId":255901,"nameOfInstitution":"Grand Bend High School","educationOrganizationCategories":[{"educationOrganizationCategoryDescriptor":"uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}],"gradeLevels":[{"gradeLevelDescriptor":"uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}]}}
{"method":"POST","path":"/ed-fi/educationOrganizationCategoryDescriptors","body":{"namespace":"uri://ed-fi.org/EducationOrganizationCategoryDescriptor","codeValue":"School","shortDescription":"School"}}
{"method":"POST","path":"/ed-fi/schools","body":{"schoolId":255901,"nameOfInstitution":"Grand Bend High School","educationOrganizationCategories":[{"educationOrganizationCategoryDescriptor":"uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}],"gradeLevels":[{"gradeLevelDescriptor":"uri://ed-fi.org/GRADELEVELDESCRIPTOR#ninth grade"}]}}
{"method":"POST","path":"/ed-fi/courses","body":{"courseCode":"ALG-1","courseTitle":"Algebra I","numberOfParts":1,"identificationCodes":[],"educationOrganizationReference":{"educationOrganizationId":255901}}}
)";

} // namespace

CliRun runCli(const QStringList &args, const QByteArray &input)
{
    QProcess process;
    process.start(cliPath(), args);
    process.waitForStarted();
    process.write(input);
    process.closeWriteChannel();
    process.waitForFinished(300000);
    CliRun run;
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.stderrText = QString::fromUtf8(process.readAllStandardError());
    const QByteArray out = process.readAllStandardOutput();
    run.stdoutText = QString::fromUtf8(out);
    for (const QByteArray &line : out.split('\n'))
        if (JsonParseResult parsed = parseJson(line.toStdString()); parsed.value)
            run.responses.push_back(std::move(*parsed.value));
    return run;
}

QByteArray fileHash(const QString &path)
{
    QFile file(path);
    file.open(QIODevice::ReadOnly);
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

void checkExampleSession(const QStringList &schemaArgs, const QString &dbPath)
{
    CliRun first = runCli(QStringList{"--db", dbPath} + schemaArgs + QStringList{"requests"}, kExampleSession);
    QCOMPARE(first.exitCode, 0);
    QCOMPARE(first.responses.size(), std::size_t(5));
    const std::vector<int> expected = {201, 400, 201, 201, 201};
    for (std::size_t i = 0; i < expected.size(); ++i)
        QCOMPARE(first.responses[i]["status"].get<int>(), expected[i]);
    QCOMPARE(first.responses[1]["body"]["type"].get<std::string>(), std::string("urn:ed-fi:api:bad-request"));
    const std::string location = first.responses[3]["headers"]["Location"].get<std::string>();
    const std::string courseLocation = first.responses[4]["headers"]["Location"].get<std::string>();

    const std::string deleteLine = Json{{"method", "DELETE"}, {"path", location}}.dump() + "\n";
    CliRun second = runCli(QStringList{"--db", dbPath} + schemaArgs + QStringList{"requests", "-"},
                           QByteArray::fromStdString(deleteLine));
    QCOMPARE(second.responses.size(), std::size_t(1));
    const Json &blocked = second.responses[0];
    QCOMPARE(blocked["status"].get<int>(), 409);
    QCOMPARE(blocked["body"]["type"].get<std::string>(),
             std::string("urn:ed-fi:api:data-conflict:dependent-item-exists"));
    QCOMPARE(blocked["body"]["detail"].get<std::string>(),
             std::string("The requested action cannot be performed because this item is referenced by existing Course "
                         "item(s)."));
    QCOMPARE(blocked["body"]["referencedByCount"].get<int>(), 1);
    const Json &by = blocked["body"]["referencedBy"][0];
    QCOMPARE(by["resource"].get<std::string>(), std::string("Course"));
    QCOMPARE("/ed-fi/courses/" + by["id"].get<std::string>(), courseLocation);
    JSON_COMPARE(by["identity"],
             Json::parse(R"({"courseCode":"ALG-1","educationOrganizationReference":{"educationOrganizationId":255901}})"));
}

Server::Server(const QString &dbPath, const QStringList &extra)
{
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    m_process.start(cliPath(), QStringList{"--db", dbPath, "serve", "--port", "0"} + extra);
    m_process.waitForStarted();
    while (!m_process.canReadLine() && m_process.state() == QProcess::Running)
        m_process.waitForReadyRead(30000);
    m_firstLine = QString::fromUtf8(m_process.readLine()).trimmed();
    m_output = m_firstLine + "\n";
    const QRegularExpressionMatch match =
        QRegularExpression("^Serving (https?)://[^ ]+:(\\d+) \\(Ctrl-C stops\\)$").match(m_firstLine);
    if (match.hasMatch()) {
        m_scheme = match.captured(1);
        m_port = static_cast<quint16>(match.captured(2).toUInt());
    }
}

QString Server::output()
{
    m_output += QString::fromUtf8(m_process.readAllStandardOutput());
    m_output += QString::fromUtf8(m_process.readAllStandardError());
    return m_output;
}

Server::~Server()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.terminate();
        if (!m_process.waitForFinished(30000))
            m_process.kill();
    }
}

int Server::stop()
{
    m_process.terminate();
    m_process.waitForFinished(30000);
    return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
}

QUrl Server::url(const QString &pathAndQuery) const
{
    return QUrl(QStringLiteral("%1://127.0.0.1:%2%3").arg(m_scheme).arg(m_port).arg(pathAndQuery));
}

namespace {

// openssl with these arguments in `dir`; its complaint when it fails.
QString openssl(const QString &dir, const QStringList &args)
{
    QProcess process;
    process.setWorkingDirectory(dir);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QStringLiteral("openssl"), args);
    if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return "openssl " + args.join(' ') + ": " + QString::fromUtf8(process.readAll()) + process.errorString();
    return {};
}

const QStringList kNewEcKey{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"};

} // namespace

bool hasOpenssl()
{
    return !QStandardPaths::findExecutable(QStringLiteral("openssl")).isEmpty();
}

TlsFiles makeTlsFiles(const QString &dir, const QString &prefix)
{
    TlsFiles files;
    files.caCert = dir + "/" + prefix + "-ca.crt";
    files.caKey = dir + "/" + prefix + "-ca.key";
    files.cert = dir + "/" + prefix + "-server.crt";
    files.key = dir + "/" + prefix + "-server.key";
    files.request = dir + "/" + prefix + "-server.csr";
    files.problem = openssl(dir, QStringList{"req", "-x509"} + kNewEcKey
                                     + QStringList{"-keyout", files.caKey, "-out", files.caCert, "-days", "2",
                                                   "-subj", "/CN=" + prefix + " test district CA"});
    if (files.problem.isEmpty())
        files.problem = openssl(dir, QStringList{"req", "-new"} + kNewEcKey
                                         + QStringList{"-keyout", files.key, "-out", files.request, "-subj",
                                                       "/CN=127.0.0.1"});
    if (files.problem.isEmpty() && !signAgain(files, files, 2, files.cert))
        files.problem = "openssl could not sign " + files.request;
    return files;
}

bool signAgain(const TlsFiles &files, const TlsFiles &authority, int days, const QString &out, const QString &names)
{
    const QString extensions = out + ".ext";
    QFile ext(extensions);
    if (!ext.open(QIODevice::WriteOnly))
        return false;
    ext.write("subjectAltName=" + names.toUtf8() + "\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n");
    ext.close();
    const QString problem = openssl(QFileInfo(out).absolutePath(),
                                    {"x509", "-req", "-in", files.request, "-CA", authority.caCert, "-CAkey",
                                     authority.caKey, "-CAcreateserial", "-out", out, "-days", QString::number(days),
                                     "-extfile", extensions});
    if (!problem.isEmpty())
        qWarning("%s", qPrintable(problem));
    return problem.isEmpty();
}

Credentials addClient(const QString &dbPath, const QString &name)
{
    CliRun run = runCli({"--db", dbPath, "clients", "add", name}, "");
    Credentials credentials;
    for (const QString &line : run.stdoutText.split('\n', Qt::SkipEmptyParts)) {
        if (line.startsWith("key: "))
            credentials.key = line.mid(5).toUtf8();
        else if (line.startsWith("secret: "))
            credentials.secret = line.mid(8).toUtf8();
    }
    return credentials;
}

} // namespace steward::test
