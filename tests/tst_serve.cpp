// The HTTP carrier end to end: `steward-cli serve` as a process, spoken to with QNetworkAccessManager
// and raw sockets. Tokens, the same answers as the NDJSON carrier, and refusals that leave the
// server serving others.
#include "AccessControl.h"
#include "CliSupport.h"
#include "TestSupport.h"

#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrlQuery>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>

using namespace steward;
using namespace steward::test;

namespace {

using RawHeaders = QList<QPair<QByteArray, QByteArray>>;

struct HttpResult
{
    int status = 0;
    RawHeaders headers;
    QByteArray body;

    QByteArray header(const QByteArray &name) const
    {
        for (const auto &[key, value] : headers)
            if (key.compare(name, Qt::CaseInsensitive) == 0)
                return value;
        return {};
    }
    Json json() const
    {
        JsonParseResult parsed = parseJson(body.toStdString());
        return parsed.value ? *parsed.value : Json();
    }
};

// One request, waited for in its own event loop.
HttpResult call(QNetworkAccessManager &nam, const QByteArray &method, const QUrl &url,
                const QByteArray &body = {}, const RawHeaders &headers = {})
{
    QNetworkRequest request(url);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    if ((method == "POST" || method == "PUT") && !request.hasRawHeader("Content-Type"))
        request.setRawHeader("Content-Type", "application/json");
    QNetworkReply *reply = method == "POST" || method == "PUT" ? nam.sendCustomRequest(request, method, body)
                                                               : nam.sendCustomRequest(request, method);
    if (!reply->isFinished()) {
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(60000, &loop, &QEventLoop::quit);
        loop.exec();
    }
    HttpResult result;
    result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    result.headers = reply->rawHeaderPairs();
    result.body = reply->readAll();
    delete reply;
    return result;
}

// A raw HTTP/1.1 response: status line, headers and Content-Length body.
struct RawResponse
{
    int status = 0;
    QByteArray head;
    QByteArray body;
    bool closed = false; // the server closed the connection after answering
};

// Reads exactly one response and leaves whatever follows in the socket.
RawResponse readRawResponse(QTcpSocket &socket, int timeoutMs = 30000)
{
    RawResponse response;
    const auto waitFor = [&](const std::function<bool()> &ready) {
        while (!ready()) {
            if (socket.state() != QAbstractSocket::ConnectedState || !socket.waitForReadyRead(timeoutMs)) {
                response.closed = true;
                return ready();
            }
        }
        return true;
    };
    if (!waitFor([&] { return socket.canReadLine(); }))
        return response;
    const QByteArray statusLine = socket.readLine();
    const QList<QByteArray> parts = statusLine.split(' ');
    response.status = parts.size() > 1 ? parts[1].toInt() : 0;
    response.head = statusLine.trimmed();
    qint64 length = 0;
    for (;;) {
        if (!waitFor([&] { return socket.canReadLine(); }))
            return response;
        const QByteArray line = socket.readLine().trimmed();
        if (line.isEmpty())
            break;
        response.head += "\r\n" + line;
        if (line.toLower().startsWith("content-length:"))
            length = line.mid(15).trimmed().toLongLong();
    }
    if (!waitFor([&] { return socket.bytesAvailable() >= length; }))
        return response;
    response.body = socket.read(length);
    return response;
}

// Sends bytes on a new connection and reads the answer and whether the server then closed.
RawResponse rawExchange(quint16 port, const QByteArray &bytes)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(10000))
        return {};
    socket.write(bytes);
    socket.waitForBytesWritten(10000);
    RawResponse response = readRawResponse(socket);
    // Every use expects the server to close after answering.
    response.closed = response.closed || socket.state() == QAbstractSocket::UnconnectedState
                      || socket.waitForDisconnected(10000);
    return response;
}

// A TLS connection to the server on this machine, trusting only the test's certificate authority.
std::unique_ptr<QSslSocket> tlsConnection(quint16 port, const QString &caCert)
{
    auto socket = std::make_unique<QSslSocket>();
    QSslConfiguration configuration = socket->sslConfiguration();
    configuration.setCaCertificates(QSslCertificate::fromPath(caCert));
    socket->setSslConfiguration(configuration);
    socket->connectToHostEncrypted(QStringLiteral("127.0.0.1"), port);
    if (!socket->waitForEncrypted(10000))
        qWarning("TLS connection: %s", qPrintable(socket->errorString()));
    return socket;
}

// rawExchange over TLS.
RawResponse rawTlsExchange(quint16 port, const QString &caCert, const QByteArray &bytes)
{
    std::unique_ptr<QSslSocket> socket = tlsConnection(port, caCert);
    if (!socket->isEncrypted())
        return {};
    socket->write(bytes);
    socket->waitForBytesWritten(10000);
    RawResponse response = readRawResponse(*socket);
    response.closed = response.closed || socket->state() == QAbstractSocket::UnconnectedState
                      || socket->waitForDisconnected(10000);
    return response;
}

QByteArray basicAuth(const Credentials &credentials)
{
    return "Basic " + (credentials.key + ':' + credentials.secret).toBase64();
}

QByteArray fetchToken(QNetworkAccessManager &nam, const Server &server, const Credentials &credentials)
{
    const HttpResult result = call(nam, "POST", server.url("/oauth/token"), "grant_type=client_credentials",
                                   {{"Authorization", basicAuth(credentials)},
                                    {"Content-Type", "application/x-www-form-urlencoded"}});
    const Json json = result.json();
    return result.status == 200 && json.contains("access_token")
               ? QByteArray::fromStdString(json["access_token"].get<std::string>())
               : QByteArray();
}

RawHeaders bearer(const QByteArray &token)
{
    return {{"Authorization", "Bearer " + token}};
}

// The protocol's example session, then reads, an update, a lost update, an upsert and deletes.
// "{N}" in a path stands for the id in the Location of response N (1-based).
const char *const kSession[] = {
    R"({"method":"POST","path":"/ed-fi/gradeLevelDescriptors","body":{"namespace":"uri://ed-fi.org/GradeLevelDescriptor","codeValue":"Ninth grade","shortDescription":"Ninth grade"}})",
    R"({"method":"POST","path":"/ed-fi/schools","body":{"schoolId":255901,"nameOfInstitution":"Grand Bend High School","educationOrganizationCategories":[{"educationOrganizationCategoryDescriptor":"uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}],"gradeLevels":[{"gradeLevelDescriptor":"uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}]}})",
    R"({"method":"POST","path":"/ed-fi/educationOrganizationCategoryDescriptors","body":{"namespace":"uri://ed-fi.org/EducationOrganizationCategoryDescriptor","codeValue":"School","shortDescription":"School"}})",
    R"({"method":"POST","path":"/ed-fi/schools","body":{"schoolId":255901,"nameOfInstitution":"Grand Bend High School","educationOrganizationCategories":[{"educationOrganizationCategoryDescriptor":"uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}],"gradeLevels":[{"gradeLevelDescriptor":"uri://ed-fi.org/GRADELEVELDESCRIPTOR#ninth grade"}]}})",
    R"({"method":"POST","path":"/ed-fi/courses","body":{"courseCode":"ALG-1","courseTitle":"Algebra I","numberOfParts":1,"identificationCodes":[],"educationOrganizationReference":{"educationOrganizationId":255901}}})",
    R"({"method":"DELETE","path":"{4}"})",
    R"({"method":"GET","path":"{4}"})",
    R"({"method":"GET","path":"/ed-fi/schools?totalCount=true&limit=5"})",
    R"({"method":"PUT","path":"{4}","body":{"schoolId":255901,"nameOfInstitution":"Grand Bend HS","educationOrganizationCategories":[{"educationOrganizationCategoryDescriptor":"uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}],"gradeLevels":[{"gradeLevelDescriptor":"uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}]}})",
    R"({"method":"PUT","path":"{4}","headers":{"If-Match":"\"0000000000000000\""},"body":{"schoolId":255901,"nameOfInstitution":"Lost update","educationOrganizationCategories":[{"educationOrganizationCategoryDescriptor":"uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}],"gradeLevels":[{"gradeLevelDescriptor":"uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}]}})",
    R"({"method":"POST","path":"/ed-fi/courses","body":{"courseCode":"ALG-1","courseTitle":"Algebra I","numberOfParts":1,"identificationCodes":[],"educationOrganizationReference":{"educationOrganizationId":255901}}})",
    R"({"method":"POST","path":"/ed-fi/courses","body":{"courseCode":"ALG-1","courseTitle":"Algebra One","numberOfParts":1,"identificationCodes":[],"educationOrganizationReference":{"educationOrganizationId":255901}}})",
    R"({"method":"GET","path":"{5}"})",
    R"({"method":"POST","path":"/ed-fi/schools","body":{"schoolId":"not a number"}})",
    R"({"method":"GET","path":"/ed-fi/courses/6f1d2c1e-0000-4000-8000-000000000000"})",
    R"({"method":"GET","path":"/ed-fi/schools?limit=9999"})",
    R"({"method":"GET","path":"/ed-fi/noSuchThings"})",
    R"({"method":"DELETE","path":"{5}"})",
    R"({"method":"DELETE","path":"{4}"})",
    R"({"method":"GET","path":"/ed-fi/schools"})",
};

// What a carrier answered, in a form both carriers can be compared in.
struct Answer
{
    int status = 0;
    Json headers = Json::object(); // the engine's headers only
    std::string body;              // the body bytes; empty when there is none
};

std::string substitute(std::string path, const std::vector<std::string> &locations)
{
    for (std::size_t i = 0; i < locations.size(); ++i) {
        const std::string placeholder = "{" + std::to_string(i + 1) + "}";
        if (path == placeholder)
            return locations[i];
    }
    return path;
}

// Ids are random per database: each distinct UUID becomes <id-N> in order of first appearance.
// Times differ between runs: _lastModifiedDate values become <time>. ETags are hashes of the
// stored document text, which holds neither, so they must match exactly and are left alone.
std::vector<std::string> normalize(const std::vector<Answer> &answers)
{
    const QRegularExpression uuid("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    const QRegularExpression time("\"_lastModifiedDate\":\"[^\"]*\"");
    std::map<QString, QString> ids;
    std::vector<std::string> out;
    for (const Answer &answer : answers) {
        QString text = QString::fromStdString(std::to_string(answer.status) + " " + answer.headers.dump() +
                                              " " + answer.body);
        QRegularExpressionMatchIterator it = uuid.globalMatch(text);
        while (it.hasNext()) {
            const QString id = it.next().captured(0);
            if (!ids.count(id))
                ids[id] = QStringLiteral("<id-%1>").arg(ids.size() + 1);
        }
        for (const auto &[id, name] : ids)
            text.replace(id, name);
        text.replace(time, "\"_lastModifiedDate\":\"<time>\"");
        out.push_back(text.toStdString());
    }
    return out;
}

} // namespace

class TestServe : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tokensAndBucketsInMemory()
    {
        AccessTokens tokens(std::chrono::seconds(60));
        const std::string a = tokens.issue("a");
        const std::string b = tokens.issue("b");
        QVERIFY(a != b);
        QCOMPARE(a.size(), std::size_t(43));
        QCOMPARE(tokens.clientOf(a).value_or(""), std::string("a"));
        QVERIFY(!tokens.clientOf("unknown"));
        std::vector<std::string> many;
        for (std::size_t i = 0; i < AccessTokens::kMaxPerClient; ++i)
            many.push_back(tokens.issue("a"));
        QVERIFY(!tokens.clientOf(a)); // the oldest made room
        QCOMPARE(tokens.clientOf(many.back()).value_or(""), std::string("a"));
        tokens.revokeClient("a");
        QVERIFY(!tokens.clientOf(many.back()));
        QCOMPARE(tokens.clientOf(b).value_or(""), std::string("b"));

        RateLimiter limiter(30);
        for (int i = 0; i < 30; ++i)
            QCOMPARE(limiter.take("flood"), 0);
        QVERIFY(limiter.take("flood") >= 1);
        QCOMPARE(limiter.take("other"), 0);
    }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        m_db = m_dir->filePath("serve.db");
        m_client = addClient(m_db, "sis");
        QVERIFY(!m_client.secret.isEmpty());
    }

    void printsTheAddressAndStopsCleanly()
    {
        Server server(m_db);
        QVERIFY2(server.port() != 0, qPrintable(server.firstLine()));
        QNetworkAccessManager nam;
        const HttpResult root = call(nam, "GET", server.url("/"));
        QCOMPARE(root.status, 200);
        QCOMPARE(root.header("Content-Type"), QByteArray("application/json"));
        const Json doc = root.json();
        const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
        QCOMPARE(doc["applicationName"].get<std::string>(), std::string("Steward"));
        QVERIFY(!doc["version"].get<std::string>().empty());
        QCOMPARE(doc["dataModels"][0]["name"].get<std::string>(), std::string("Ed-Fi"));
        QVERIFY(!doc["dataModels"][0]["version"].get<std::string>().empty());
        QCOMPARE(doc["urls"]["oauth"].get<std::string>(), base + "/oauth/token");
        // ODS/API 7.x's layout, where clients look; the old paths stay as aliases.
        QCOMPARE(doc["urls"]["dependencies"].get<std::string>(), base + "/metadata/data/v3/dependencies");
        QCOMPARE(doc["urls"]["dataManagementApi"].get<std::string>(), base + "/data/v3/");
        QCOMPARE(server.stop(), 0);

        CliRun help = runCli({"serve", "--help"}, "");
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.stdoutText.contains("Example:"));
        QVERIFY(help.stdoutText.contains("--port"));
        QVERIFY(runCli({"--help"}, "").stdoutText.contains("serve"));
        QCOMPARE(runCli({"--db", m_db, "serve", "--port", "70000"}, "").exitCode, 2);
        QCOMPARE(runCli({"--db", m_db, "serve", "--host", "not-an-address"}, "").exitCode, 2);
        QCOMPARE(runCli({"--db", m_db, "serve", "--bogus"}, "").exitCode, 2);
    }

    // HTTPS with a certificate made here: the discovery document names https addresses, tokens and
    // data go through, and the guard's limits hold over TLS as over plain HTTP (each checked on the
    // decrypted bytes). The secret and the token never reach serve's output.
    void tlsServesHttpsWithEveryLimitKept()
    {
        if (!hasOpenssl())
            QSKIP("openssl is not installed: no certificate to serve TLS with");
        const TlsFiles tls = makeTlsFiles(m_dir->path(), "serve");
        QVERIFY2(tls.problem.isEmpty(), qPrintable(tls.problem));
        // Qt's HTTP server would log each request with its headers at debug level: asked for here,
        // it must still not print the secret or the token.
        qputenv("QT_LOGGING_RULES", "qt.httpserver*=true");
        Server server(m_db, {"--tls-cert", tls.cert, "--tls-key", tls.key, "--request-timeout", "2",
                             "--max-connections-per-peer", "4"});
        qunsetenv("QT_LOGGING_RULES");
        QVERIFY2(server.port() != 0, qPrintable(server.firstLine()));
        QVERIFY2(server.firstLine().startsWith("Serving https://127.0.0.1:"), qPrintable(server.firstLine()));
        QSslConfiguration trusting = QSslConfiguration::defaultConfiguration();
        trusting.setCaCertificates(trusting.caCertificates() + QSslCertificate::fromPath(tls.caCert));
        QSslConfiguration::setDefaultConfiguration(trusting);

        QNetworkAccessManager nam;
        const HttpResult root = call(nam, "GET", server.url("/"));
        QCOMPARE(root.status, 200);
        const std::string base = "https://127.0.0.1:" + std::to_string(server.port());
        const Json urls = root.json()["urls"];
        QVERIFY(urls.size() >= 6);
        for (const auto &item : urls.items())
            QVERIFY2(item.value().get<std::string>().rfind(base + "/", 0) == 0, item.value().dump().c_str());
        const QByteArray token = fetchToken(nam, server, m_client);
        QVERIFY(!token.isEmpty());
        const HttpResult created = call(nam, "POST", server.url("/data/v3/ed-fi/schoolYearTypes"),
                                        R"({"schoolYear":2031,"currentSchoolYear":false,"schoolYearDescription":"Y"})",
                                        bearer(token));
        QCOMPARE(created.status, 201);
        QVERIFY2(created.header("Location").startsWith(QByteArray::fromStdString(base) + "/data/v3/"),
                 created.header("Location").constData());

        // 431 and 411 over TLS, each closing that connection only.
        const RawResponse bigHeaders = rawTlsExchange(
            server.port(), tls.caCert,
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + QByteArray(17 * 1024, 'p') + "\r\n\r\n");
        QCOMPARE(bigHeaders.status, 431);
        QVERIFY(bigHeaders.closed);
        const RawResponse chunked = rawTlsExchange(
            server.port(), tls.caCert,
            "POST /ed-fi/schools HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
        QCOMPARE(chunked.status, 411);
        // Plain HTTP on the TLS port gets no HTTP answer, only a closed connection.
        const RawResponse plain = rawExchange(server.port(), "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QCOMPARE(plain.status, 0);
        QVERIFY(plain.closed);
        // A request that does not arrive in time gets 408, encrypted.
        std::unique_ptr<QSslSocket> slow = tlsConnection(server.port(), tls.caCert);
        QVERIFY(slow->isEncrypted());
        slow->write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: appl");
        QVERIFY(slow->waitForBytesWritten(10000));
        QCOMPARE(readRawResponse(*slow, 60000).status, 408);
        // A connection that never starts its handshake is closed by the same timeout.
        QTcpSocket silent;
        silent.connectToHost(QHostAddress::LocalHost, server.port());
        QVERIFY(silent.waitForConnected(10000));
        QVERIFY(silent.state() == QAbstractSocket::UnconnectedState || silent.waitForDisconnected(30000));

        // The connection caps: a fifth connection from this address is answered 503 over TLS.
        std::vector<std::unique_ptr<QSslSocket>> held;
        for (int i = 0; i < 4; ++i) {
            held.push_back(tlsConnection(server.port(), tls.caCert));
            QVERIFY(held.back()->isEncrypted());
        }
        const RawResponse refused =
            rawTlsExchange(server.port(), tls.caCert, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QCOMPARE(refused.status, 503);
        QVERIFY(refused.head.contains("Retry-After"));
        held.front()->write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QCOMPARE(readRawResponse(*held.front()).status, 200);
        held.clear();
        QTRY_COMPARE_WITH_TIMEOUT(call(nam, "GET", server.url("/")).status, 200, 30000);

        QCOMPARE(server.stop(), 0);
        const QString output = server.output();
        QVERIFY2(!output.contains(QString::fromUtf8(m_client.secret)), qPrintable(output));
        QVERIFY2(!output.contains(QString::fromUtf8(token)), qPrintable(output));
    }

    // Without TLS, serve stays on this machine unless told --plain-http, which it then says at every
    // start; a certificate or key that cannot serve is a usage error naming the file.
    void plainHttpStaysOnThisMachineUnlessAskedFor()
    {
        const CliRun refused = runCli({"--db", m_db, "serve", "--host", "0.0.0.0", "--port", "0"}, "");
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.stderrText.contains("--tls-cert") && refused.stderrText.contains("--plain-http"),
                 qPrintable(refused.stderrText));
        QVERIFY(refused.stdoutText.isEmpty()); // it never listened

        // Listening on every address, reached here over loopback only.
        Server plain(m_db, {"--host", "0.0.0.0", "--plain-http"});
        QVERIFY2(plain.port() != 0, qPrintable(plain.firstLine()));
        QVERIFY2(plain.firstLine().startsWith("Serving http://0.0.0.0:"), qPrintable(plain.firstLine()));
        QNetworkAccessManager nam;
        QCOMPARE(call(nam, "GET", plain.url("/")).status, 200);
        QCOMPARE(plain.stop(), 0);
        QVERIFY2(plain.output().contains("warning: serving plain HTTP on 0.0.0.0"), qPrintable(plain.output()));

        const QString missing = m_dir->filePath("no-such.crt");
        const CliRun noFile = runCli({"--db", m_db, "serve", "--tls-cert", missing, "--tls-key", missing}, "");
        QCOMPARE(noFile.exitCode, 2);
        QVERIFY2(noFile.stderrText.contains(missing), qPrintable(noFile.stderrText));
        const CliRun alone = runCli({"--db", m_db, "serve", "--tls-cert", missing}, "");
        QCOMPARE(alone.exitCode, 2);
        QVERIFY2(alone.stderrText.contains("--tls-key"), qPrintable(alone.stderrText));
        if (!hasOpenssl())
            QSKIP("openssl is not installed: no certificates to mismatch");
        const TlsFiles one = makeTlsFiles(m_dir->path(), "one");
        const TlsFiles other = makeTlsFiles(m_dir->path(), "other");
        QVERIFY2(one.problem.isEmpty() && other.problem.isEmpty(), qPrintable(one.problem + other.problem));
        const CliRun mismatched = runCli({"--db", m_db, "serve", "--tls-cert", one.cert, "--tls-key", other.key}, "");
        QCOMPARE(mismatched.exitCode, 2);
        QVERIFY2(mismatched.stderrText.contains(other.key) && mismatched.stderrText.contains(one.cert),
                 qPrintable(mismatched.stderrText));
        const CliRun keyAsCertificate =
            runCli({"--db", m_db, "serve", "--tls-cert", one.key, "--tls-key", one.key}, "");
        QCOMPARE(keyAsCertificate.exitCode, 2);
        QVERIFY2(keyAsCertificate.stderrText.contains(one.key), qPrintable(keyAsCertificate.stderrText));
    }

    void dataRequestsNeedAValidToken()
    {
        Server server(m_db);
        QNetworkAccessManager nam;
        const QUrl schools = server.url("/ed-fi/schools");

        const HttpResult none = call(nam, "GET", schools);
        QCOMPARE(none.status, 401);
        QVERIFY(none.header("WWW-Authenticate").startsWith("Bearer"));
        QCOMPARE(none.json()["type"].get<std::string>(),
                 std::string("urn:ed-fi:api:security:authentication"));
        QCOMPARE(none.json()["status"].get<int>(), 401);
        QCOMPARE(call(nam, "GET", schools, {}, bearer("made-up")).status, 401);
        QCOMPARE(call(nam, "GET", schools, {}, {{"Authorization", basicAuth(m_client)}}).status, 401);
        // Metadata is public, as on ODS/API: clients read the load order before they hold a token.
        QCOMPARE(call(nam, "GET", server.url("/metadata/dependencies")).status, 200);

        // Wrong secret, by HTTP Basic and by form fields.
        const Credentials wrong{m_client.key,
                                m_client.secret.left(42) + (m_client.secret.endsWith('A') ? "B" : "A")};
        HttpResult refused = call(nam, "POST", server.url("/oauth/token"), "grant_type=client_credentials",
                                  {{"Authorization", basicAuth(wrong)},
                                   {"Content-Type", "application/x-www-form-urlencoded"}});
        QCOMPARE(refused.status, 401);
        QCOMPARE(refused.json()["error"].get<std::string>(), std::string("invalid_client"));
        refused = call(nam, "POST", server.url("/oauth/token"),
                       "grant_type=client_credentials&client_id=sis&client_secret=" + wrong.secret,
                       {{"Content-Type", "application/x-www-form-urlencoded"}});
        QCOMPARE(refused.status, 401);
        QCOMPARE(refused.json()["error"].get<std::string>(), std::string("invalid_client"));
        const HttpResult grant = call(nam, "POST", server.url("/oauth/token"), "grant_type=password",
                                      {{"Authorization", basicAuth(m_client)},
                                       {"Content-Type", "application/x-www-form-urlencoded"}});
        QCOMPARE(grant.status, 400);
        QCOMPARE(grant.json()["error"].get<std::string>(), std::string("unsupported_grant_type"));

        // The secret `clients add` printed, three ways.
        const HttpResult issued = call(
            nam, "POST", server.url("/oauth/token"), "grant_type=client_credentials",
            {{"Authorization", basicAuth(m_client)}, {"Content-Type", "application/x-www-form-urlencoded"}});
        QCOMPARE(issued.status, 200);
        const Json token = issued.json();
        QCOMPARE(token["token_type"].get<std::string>(), std::string("bearer"));
        QCOMPARE(token["expires_in"].get<int>(), 1800);
        QCOMPARE(issued.header("Cache-Control"), QByteArray("no-store"));
        const QByteArray accessToken = QByteArray::fromStdString(token["access_token"].get<std::string>());
        QVERIFY(accessToken.size() >= 32);
        const HttpResult viaForm = call(nam, "POST", server.url("/oauth/token"),
                                        "grant_type=client_credentials&client_id=sis&client_secret=" +
                                            QUrl::toPercentEncoding(m_client.secret),
                                        {{"Content-Type", "application/x-www-form-urlencoded"}});
        QCOMPARE(viaForm.status, 200);
        const HttpResult viaJson =
            call(nam, "POST", server.url("/oauth/token"),
                 QByteArray::fromStdString(Json{{"grant_type", "client_credentials"},
                                                {"client_id", "sis"},
                                                {"client_secret", m_client.secret.toStdString()}}
                                               .dump()));
        QCOMPARE(viaJson.status, 200);
        QVERIFY(viaJson.json()["access_token"] != token["access_token"]);

        const HttpResult ok = call(nam, "GET", schools, {}, bearer(accessToken));
        QCOMPARE(ok.status, 200);
        QCOMPARE(ok.body, QByteArray("[]"));
        const HttpResult order =
            call(nam, "GET", server.url("/metadata/dependencies"), {}, bearer(accessToken));
        QCOMPARE(order.status, 200);
        const Json dependencies = order.json();
        QVERIFY(dependencies.is_array() && dependencies.size() > 10);
        int schoolOrder = 0;
        int descriptorOrder = 0;
        for (const Json &item : dependencies) {
            JSON_COMPARE(item["operations"], Json::array({"Create", "Update"}));
            if (item["resource"] == "/ed-fi/schools")
                schoolOrder = item["order"].get<int>();
            if (item["resource"] == "/ed-fi/gradeLevelDescriptors")
                descriptorOrder = item["order"].get<int>();
        }
        QCOMPARE(descriptorOrder, 1);
        QVERIFY(schoolOrder > descriptorOrder);

        // Removing the client revokes the tokens it holds.
        QCOMPARE(runCli({"--db", m_db, "clients", "remove", "sis"}, "").exitCode, 0);
        QCOMPARE(call(nam, "GET", schools, {}, bearer(accessToken)).status, 401);
        QCOMPARE(server.stop(), 0);
    }

    void tokensExpire()
    {
        Server server(m_db, {"--token-lifetime", "1"});
        QNetworkAccessManager nam;
        const HttpResult issued = call(
            nam, "POST", server.url("/oauth/token"), "grant_type=client_credentials",
            {{"Authorization", basicAuth(m_client)}, {"Content-Type", "application/x-www-form-urlencoded"}});
        QCOMPARE(issued.status, 200);
        QCOMPARE(issued.json()["expires_in"].get<int>(), 1);
        const QByteArray token = QByteArray::fromStdString(issued.json()["access_token"].get<std::string>());
        QTRY_COMPARE_WITH_TIMEOUT(call(nam, "GET", server.url("/ed-fi/schools"), {}, bearer(token)).status,
                                  401, 30000);
    }

    // A district's loader and extractor as they meet an ODS/API 7.x server: discovery, a token, the
    // OpenAPI documents, a send in dependency order, counting and paging past one page, then an
    // update and a delete found by natural key and seen again through Change Queries. Every address
    // but the token's comes from the discovery document, as those clients build theirs.
    void anEdFiClientWalksTheApi()
    {
        // A bulk send is hundreds of requests a minute; the default rate would turn most away.
        Server server(m_db, {"--rate", "1000000"});
        QVERIFY2(server.port() != 0, qPrintable(server.firstLine()));
        QNetworkAccessManager nam;
        const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
        const auto at = [](const std::string &url) { return QUrl(QString::fromStdString(url)); };
        const auto said = [](const std::string &what, const HttpResult &result) {
            return QString::fromStdString(what) + " answered " + QString::number(result.status) + ": "
                   + QString::fromUtf8(result.body.left(400));
        };
        const auto body = [](const Json &json) { return QByteArray::fromStdString(dumpJson(json)); };

        // Discovery: the keys clients stop without, and every address in it answers.
        const HttpResult root = call(nam, "GET", at(base + "/"));
        QCOMPARE(root.status, 200);
        const Json discovery = root.json();
        QCOMPARE(discovery.value("version", std::string()), std::string("7.3"));
        QVERIFY(!discovery.value("apiMode", std::string()).empty());
        QVERIFY(discovery.contains("dataModels") && discovery["dataModels"].is_array());
        bool edFiModel = false;
        for (const Json &model : discovery["dataModels"]) {
            for (const char *key : {"name", "version", "informationalVersion"})
                QVERIFY2(!model.value(key, std::string()).empty(), key);
            edFiModel = edFiModel || model["name"] == "Ed-Fi";
        }
        QVERIFY(edFiModel);
        QVERIFY(discovery.contains("urls") && discovery["urls"].is_object());
        const Json urls = discovery["urls"];
        for (const char *key : {"dependencies", "openApiMetadata", "oauth", "dataManagementApi",
                                "xsdMetadata", "changeQueries"})
            QVERIFY2(urls.value(key, std::string()).starts_with(base + "/"), key);
        const std::string dataApi = urls["dataManagementApi"].get<std::string>();
        QCOMPARE(dataApi, base + "/data/v3/");
        QCOMPARE(urls["changeQueries"].get<std::string>(), base + "/changeQueries/v1/");
        for (auto it = urls.begin(); it != urls.end(); ++it) {
            const std::string url = it.value().get<std::string>();
            const HttpResult answer = call(nam, "GET", at(url));
            // The token address takes POST only; the others answer a GET before any token.
            const int expected = it.key() == "oauth" ? 405 : 200;
            QVERIFY2(answer.status == expected, qPrintable(said("GET " + url, answer)));
        }

        // A token the way both clients ask for one: HTTP Basic and a form body.
        const HttpResult issued = call(
            nam, "POST", at(urls["oauth"].get<std::string>()), "grant_type=client_credentials",
            {{"Authorization", basicAuth(m_client)}, {"Content-Type", "application/x-www-form-urlencoded"}});
        QCOMPARE(issued.status, 200);
        const Json grant = issued.json();
        QVERIFY(!grant.value("access_token", std::string()).empty());
        QVERIFY(grant.contains("expires_in") && grant["expires_in"].is_number_integer());
        QVERIFY(grant["expires_in"].get<std::int64_t>() > 0);
        QCOMPARE(QString::fromStdString(grant.value("token_type", std::string())).toLower(),
                 QStringLiteral("bearer"));
        const QByteArray token = QByteArray::fromStdString(grant["access_token"].get<std::string>());
        RawHeaders formWithToken = bearer(token);
        formWithToken.append(
            qMakePair(QByteArray("Content-Type"), QByteArray("application/x-www-form-urlencoded")));
        const HttpResult info = call(nam, "POST", at(base + "/oauth/token_info"),
                                     "token=" + QUrl::toPercentEncoding(token), formWithToken);
        QCOMPARE(info.status, 200);
        QVERIFY2(info.json().value("active", false), info.body.constData());
        QCOMPARE(info.json().value("client_id", std::string()), m_client.key.toStdString());

        // Change versions are data: they need the token.
        const QUrl versionsUrl = at(urls["changeQueries"].get<std::string>() + "availableChangeVersions");
        QCOMPARE(call(nam, "GET", versionsUrl).status, 401);
        const HttpResult versions = call(nam, "GET", versionsUrl, {}, bearer(token));
        QVERIFY2(versions.status == 200, qPrintable(said("availableChangeVersions", versions)));
        QVERIFY(versions.json().contains("oldestChangeVersion"));
        QVERIFY(versions.json().contains("newestChangeVersion"));

        // The OpenAPI documents, found by their lower-cased names.
        const HttpResult listed = call(nam, "GET", at(urls["openApiMetadata"].get<std::string>()));
        QCOMPARE(listed.status, 200);
        QVERIFY(listed.json().is_array());
        std::map<std::string, Json> documents; // lower-cased name -> the document
        for (const Json &entry : listed.json()) {
            const std::string uri = entry.value("endpointUri", std::string());
            QVERIFY2(uri.starts_with(base + "/") && entry.contains("prefix"), entry.dump().c_str());
            const HttpResult fetched = call(nam, "GET", at(uri));
            QVERIFY2(fetched.status == 200, qPrintable(said("GET " + uri, fetched)));
            const Json document = fetched.json();
            QVERIFY2(document.value("openapi", std::string()).starts_with("3.0"), uri.c_str());
            QVERIFY(document.contains("components") && document["components"].contains("schemas"));
            // Schema validators follow every $ref; one that points nowhere stops them.
            QStringList dangling;
            int refs = 0;
            std::function<void(const Json &)> walk = [&](const Json &node) {
                if (node.is_object()) {
                    if (const auto ref = node.find("$ref"); ref != node.end()) {
                        ++refs;
                        const std::string target = ref->is_string() ? ref->get<std::string>() : ref->dump();
                        bool resolves = false;
                        try {
                            resolves = target.starts_with("#/")
                                       && document.contains(Json::json_pointer(target.substr(1)));
                        } catch (const Json::exception &) {
                        }
                        if (!resolves)
                            dangling << QString::fromStdString(target);
                    }
                }
                if (node.is_object() || node.is_array())
                    for (const Json &child : node)
                        walk(child);
            };
            walk(document);
            QVERIFY(refs > 0);
            QVERIFY2(dangling.isEmpty(),
                     qPrintable(QString::fromStdString(uri) + ": " + dangling.mid(0, 10).join(", ")));
            documents[QString::fromStdString(entry.value("name", std::string())).toLower().toStdString()] =
                document;
        }
        QVERIFY(documents.count("resources") && documents.count("descriptors"));
        // Deletes by identity are switched on by this marker; without it a client falls back to every
        // required field.
        QVERIFY(documents["resources"].value(
            Json::json_pointer("/components/schemas/edFi_school/properties/schoolId/x-Ed-Fi-isIdentity"),
            false));
        QVERIFY(documents["descriptors"].value(
            Json::json_pointer(
                "/components/schemas/edFi_gradeLevelDescriptor/properties/codeValue/x-Ed-Fi-isIdentity"),
            false));

        // The send: what the load order can create, by its order. The descriptors a School names,
        // three schools, and more grade levels than one page of 500 holds.
        const HttpResult order = call(nam, "GET", at(urls["dependencies"].get<std::string>()));
        QCOMPARE(order.status, 200);
        QVERIFY(order.json().is_array());
        std::vector<Json> creatable;
        for (const Json &item : order.json()) {
            const Json operations = item.value("operations", Json::array());
            if (std::find(operations.begin(), operations.end(), Json("Create")) != operations.end())
                creatable.push_back(item);
        }
        std::stable_sort(creatable.begin(), creatable.end(), [](const Json &a, const Json &b) {
            return a.value("order", 0) < b.value("order", 0);
        });
        const int gradeLevels = 620;
        const auto descriptor = [](const std::string &type, const std::string &code) {
            return Json{
                {"namespace", "uri://ed-fi.org/" + type}, {"codeValue", code}, {"shortDescription", code}};
        };
        std::map<std::string, std::vector<Json>> toSend;
        toSend["educationOrganizationCategoryDescriptors"].push_back(
            descriptor("EducationOrganizationCategoryDescriptor", "School"));
        toSend["gradeLevelDescriptors"].push_back(descriptor("GradeLevelDescriptor", "Ninth grade"));
        for (int i = 1; i < gradeLevels; ++i)
            toSend["gradeLevelDescriptors"].push_back(
                descriptor("GradeLevelDescriptor",
                           QStringLiteral("Level %1").arg(i, 3, 10, QLatin1Char('0')).toStdString()));
        for (int schoolId : {255901, 255902, 255903})
            toSend["schools"].push_back(Fixture::school(schoolId, "School " + std::to_string(schoolId)));
        std::map<int, std::string> schoolLocations;
        std::vector<std::string> sent;
        for (const Json &item : creatable) {
            const std::string resource = item.value("resource", std::string());
            if (!resource.starts_with("/ed-fi/"))
                continue;
            const std::string endpoint = resource.substr(7);
            const auto bodies = toSend.find(endpoint);
            if (bodies == toSend.end())
                continue;
            const std::string collection = dataApi + "ed-fi/" + endpoint;
            for (const Json &document : bodies->second) {
                const HttpResult created = call(nam, "POST", at(collection), body(document), bearer(token));
                QVERIFY2(created.status == 201, qPrintable(said("POST " + collection, created)));
                const std::string location = created.header("Location").toStdString();
                QVERIFY2(location.starts_with(collection + "/") && location.size() > collection.size() + 1,
                         location.c_str());
                if (endpoint == "schools")
                    schoolLocations[document["schoolId"].get<int>()] = location;
            }
            sent.push_back(endpoint);
            toSend.erase(bodies);
        }
        QVERIFY2(toSend.empty(), "an endpoint the send needs is missing from the load order");
        QCOMPARE(sent.back(), std::string("schools"));
        const HttpResult byLocation = call(nam, "GET", at(schoolLocations[255901]), {}, bearer(token));
        QCOMPARE(byLocation.status, 200);
        QCOMPARE(byLocation.json().value("schoolId", 0), 255901);

        // Counting as the loader does, and the page limit.
        const std::string grades = dataApi + "ed-fi/gradeLevelDescriptors";
        const HttpResult counted =
            call(nam, "GET", at(grades + "?limit=0&totalCount=true"), {}, bearer(token));
        QCOMPARE(counted.status, 200);
        QCOMPARE(counted.header("Total-Count"), QByteArray::number(gradeLevels));
        JSON_COMPARE(counted.json(), Json::array());
        for (const char *tooMany : {"?limit=501", "?pageSize=501"}) {
            const HttpResult refused = call(nam, "GET", at(grades + tooMany), {}, bearer(token));
            QVERIFY2(refused.status == 400, qPrintable(said(tooMany, refused)));
            QCOMPARE(refused.json().value("type", std::string()),
                     std::string("urn:ed-fi:api:bad-request:parameter-validation-failed"));
        }

        // Paging past 500 by offset until a short page, then by cursor until no Next-Page-Token:
        // every document once, and the same documents both ways.
        std::set<std::string> byOffset;
        for (int offset = 0;; offset += 500) {
            QVERIFY(offset <= gradeLevels);
            const std::string url = grades + "?limit=500&offset=" + std::to_string(offset);
            const HttpResult page = call(nam, "GET", at(url), {}, bearer(token));
            QVERIFY2(page.status == 200, qPrintable(said(url, page)));
            const Json items = page.json();
            for (const Json &item : items)
                QVERIFY2(byOffset.insert(item.value("id", std::string())).second,
                         qPrintable(QString::fromStdString(url)));
            if (items.size() < 500)
                break;
        }
        QCOMPARE(byOffset.size(), std::size_t(gradeLevels));
        std::set<std::string> byCursor;
        QByteArray pageToken;
        int pages = 0;
        do {
            QUrlQuery query;
            query.addQueryItem("pageSize", "500");
            if (!pageToken.isEmpty())
                query.addQueryItem("pageToken", QString::fromLatin1(pageToken));
            QUrl url = at(grades);
            url.setQuery(query);
            const HttpResult page = call(nam, "GET", url, {}, bearer(token));
            QVERIFY2(page.status == 200, qPrintable(said(url.toString().toStdString(), page)));
            for (const Json &item : page.json())
                QVERIFY2(byCursor.insert(item.value("id", std::string())).second, qPrintable(url.toString()));
            pageToken = page.header("Next-Page-Token");
            QVERIFY(++pages <= 3);
        } while (!pageToken.isEmpty());
        QCOMPARE(pages, 2);
        QVERIFY(byCursor == byOffset);

        // An update found by natural key, then seen in the change window after the newest version.
        const HttpResult before = call(nam, "GET", versionsUrl, {}, bearer(token));
        QCOMPARE(before.status, 200);
        const std::int64_t newest = before.json().value("newestChangeVersion", std::int64_t(-1));
        QVERIFY(newest > 0);
        const std::string schools = dataApi + "ed-fi/schools";
        const auto findSchool = [&](int schoolId) {
            const HttpResult found =
                call(nam, "GET", at(schools + "?schoolId=" + std::to_string(schoolId)), {}, bearer(token));
            const Json items = found.json();
            return found.status == 200 && items.is_array() && items.size() == 1 ? items[0] : Json();
        };
        Json updated = findSchool(255902);
        QVERIFY(updated.is_object());
        const std::string updatedId = updated.value("id", std::string());
        QCOMPARE(updatedId, idFromLocation(schoolLocations[255902]));
        for (const char *serverField : {"id", "_etag", "_lastModifiedDate"})
            updated.erase(serverField);
        updated["nameOfInstitution"] = "Grand Bend Middle School";
        const HttpResult put = call(nam, "PUT", at(schools + "/" + updatedId), body(updated), bearer(token));
        QVERIFY2(put.status == 204, qPrintable(said("PUT", put)));
        const std::string since = "?minChangeVersion=" + std::to_string(newest + 1);
        const HttpResult changed = call(nam, "GET", at(schools + since), {}, bearer(token));
        QCOMPARE(changed.status, 200);
        QCOMPARE(changed.json().size(), std::size_t(1));
        QCOMPARE(changed.json()[0].value("id", std::string()), updatedId);
        QCOMPARE(changed.json()[0].value("nameOfInstitution", std::string()),
                 std::string("Grand Bend Middle School"));
        JSON_COMPARE(call(nam, "GET", at(grades + since), {}, bearer(token)).json(), Json::array());
        // The window's upper end is inclusive too: up to the newest version, the other two schools.
        const HttpResult upTo =
            call(nam, "GET", at(schools + "?maxChangeVersion=" + std::to_string(newest)), {}, bearer(token));
        QCOMPARE(upTo.status, 200);
        QCOMPARE(upTo.json().size(), std::size_t(2));

        // A delete by natural key, then the deletes feed of the same window names it by its identity.
        const std::string doomedId = findSchool(255903).value("id", std::string());
        QVERIFY(!doomedId.empty());
        const HttpResult deleted = call(nam, "DELETE", at(schools + "/" + doomedId), {}, bearer(token));
        QVERIFY2(deleted.status == 204, qPrintable(said("DELETE", deleted)));
        QVERIFY(findSchool(255903).is_null());
        const HttpResult deletes = call(nam, "GET", at(schools + "/deletes" + since), {}, bearer(token));
        QVERIFY2(deletes.status == 200, qPrintable(said("deletes", deletes)));
        const Json gone = deletes.json();
        QCOMPARE(gone.size(), std::size_t(1));
        QCOMPARE(gone[0].value("id", std::string()), doomedId);
        QVERIFY(gone[0].value("changeVersion", std::int64_t(0)) > newest);
        JSON_COMPARE(gone[0]["keyValues"], Json({{"schoolId", 255903}}));
        const HttpResult keyChanges =
            call(nam, "GET", at(schools + "/keyChanges" + since), {}, bearer(token));
        QCOMPARE(keyChanges.status, 200);
        JSON_COMPARE(keyChanges.json(), Json::array());
        const HttpResult after = call(nam, "GET", versionsUrl, {}, bearer(token));
        QCOMPARE(after.json().value("newestChangeVersion", std::int64_t(0)),
                 gone[0]["changeVersion"].get<std::int64_t>());
        QCOMPARE(call(nam, "GET", at(schools + "?limit=0&totalCount=true"), {}, bearer(token))
                     .header("Total-Count"),
                 QByteArray("2"));
        QCOMPARE(server.stop(), 0);
    }

    void bothCarriersAnswerTheSameBytes()
    {
        // NDJSON carrier, one line at a time so later lines can name ids from earlier answers.
        std::vector<Answer> viaCli;
        {
            QProcess cli;
            cli.start(cliPath(), {"--db", m_dir->filePath("cli.db"), "requests", "-"});
            QVERIFY(cli.waitForStarted());
            std::vector<std::string> locations;
            for (const char *line : kSession) {
                Json request = Json::parse(line);
                request["path"] = substitute(request["path"].get<std::string>(), locations);
                cli.write(QByteArray::fromStdString(dumpJson(request) + "\n"));
                while (!cli.canReadLine())
                    QVERIFY(cli.waitForReadyRead(30000));
                const Json response = Json::parse(cli.readLine().toStdString());
                Answer answer;
                answer.status = response["status"].get<int>();
                answer.headers = response["headers"];
                answer.body = response["body"].is_null() ? std::string() : dumpJson(response["body"]);
                locations.push_back(answer.headers.value("Location", std::string()));
                viaCli.push_back(answer);
            }
            cli.closeWriteChannel();
            QVERIFY(cli.waitForFinished(30000));
            QCOMPARE(cli.exitCode(), 0);
        }

        // HTTP carrier on another fresh database.
        std::vector<Answer> viaHttp;
        {
            const QString db = m_dir->filePath("http.db");
            const Credentials credentials = addClient(db, "carrier");
            Server server(db);
            QNetworkAccessManager nam;
            const QByteArray token = fetchToken(nam, server, credentials);
            QVERIFY(!token.isEmpty());
            std::vector<std::string> locations;
            for (const char *line : kSession) {
                const Json request = Json::parse(line);
                const std::string path = substitute(request["path"].get<std::string>(), locations);
                RawHeaders headers = bearer(token);
                if (request.contains("headers"))
                    for (auto it = request["headers"].begin(); it != request["headers"].end(); ++it)
                        headers.append({QByteArray::fromStdString(it.key()),
                                        QByteArray::fromStdString(it.value().get<std::string>())});
                const QByteArray body = request.contains("body")
                                            ? QByteArray::fromStdString(dumpJson(request["body"]))
                                            : QByteArray();
                const HttpResult result =
                    call(nam, QByteArray::fromStdString(request["method"].get<std::string>()),
                         server.url(QString::fromStdString(path)), body, headers);
                Answer answer;
                answer.status = result.status;
                QStringList engineHeaderOrder;
                for (const auto &[name, value] : result.headers) {
                    const QByteArray lower = name.toLower();
                    if (lower == "content-type" || lower == "content-length" || lower == "connection"
                        || lower == "keep-alive")
                        continue;
                    QVERIFY2(!answer.headers.contains(name.toStdString()), name.constData());
                    answer.headers[name.toStdString()] = value.toStdString();
                    engineHeaderOrder << QString::fromLatin1(name);
                }
                // The engine's order: Location before ETag.
                if (engineHeaderOrder.contains("Location") && engineHeaderOrder.contains("ETag"))
                    QVERIFY(engineHeaderOrder.indexOf("Location") < engineHeaderOrder.indexOf("ETag"));
                QCOMPARE(result.header("Content-Type"),
                         result.body.isEmpty() ? QByteArray() : QByteArray("application/json"));
                answer.body = result.body.toStdString();
                locations.push_back(answer.headers.value("Location", std::string()));
                viaHttp.push_back(answer);
            }
            QCOMPARE(server.stop(), 0);
        }

        // The statuses the protocol's example promises, then everything byte for byte.
        const std::vector<int> expected = {201, 400, 201, 201, 201, 409, 200, 200, 204, 412,
                                           200, 200, 200, 400, 404, 400, 404, 204, 204, 200};
        QCOMPARE(viaCli.size(), expected.size());
        QCOMPARE(viaHttp.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(viaCli[i].status, expected[i]);
            QCOMPARE(viaHttp[i].status, expected[i]);
        }
        QVERIFY(viaCli[5].body.find("referenced by existing Course item(s)") != std::string::npos);
        QVERIFY(viaCli[6].body.find("_lastModifiedDate") != std::string::npos);
        QCOMPARE(viaCli[7].headers["Total-Count"].get<std::string>(), std::string("1"));
        const std::vector<std::string> cli = normalize(viaCli);
        const std::vector<std::string> http = normalize(viaHttp);
        QVERIFY(cli[3].find("\"Location\":\"/ed-fi/schools/<id-3>\"") != std::string::npos);
        QVERIFY(cli[6].find("\"_lastModifiedDate\":\"<time>\"") != std::string::npos);
        QVERIFY(cli[6].find("\"_etag\":\"") != std::string::npos);
        for (std::size_t i = 0; i < cli.size(); ++i)
            QVERIFY2(cli[i] == http[i],
                     qPrintable(QStringLiteral("request %1:\n  requests: %2\n  HTTP:     %3")
                                    .arg(i + 1)
                                    .arg(QString::fromStdString(cli[i]), QString::fromStdString(http[i]))));
    }

    void badBodiesGetTheSameProblemAsOnTheNdjsonCarrier()
    {
        Server server(m_db);
        QNetworkAccessManager nam;
        const QByteArray token = fetchToken(nam, server, m_client);
        const QUrl schools = server.url("/ed-fi/schools");
        const HttpResult broken = call(nam, "POST", schools, "{\"schoolId\":", bearer(token));
        QCOMPARE(broken.status, 400);
        QCOMPARE(broken.json()["type"].get<std::string>(), std::string("urn:ed-fi:api:bad-request"));
        const HttpResult utf8 =
            call(nam, "POST", schools, "{\"nameOfInstitution\":\"\xff\xfe\"}", bearer(token));
        QCOMPARE(utf8.status, 400);
        QVERIFY(utf8.json()["detail"].get<std::string>().find("UTF-8") != std::string::npos);
        const HttpResult deep =
            call(nam, "POST", schools, QByteArray(129, '[') + QByteArray(129, ']'), bearer(token));
        QCOMPARE(deep.status, 400);
        QVERIFY(deep.json()["detail"].get<std::string>().find("128") != std::string::npos);
    }

    void pipelinedAndTrickledRequestsKeepTheirBoundaries()
    {
        Server server(m_db);
        const QByteArray get = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        const QByteArray post =
            "POST /ed-fi/schools HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}";
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, server.port());
        QVERIFY(socket.waitForConnected(10000));
        socket.write(get + post + get + post);
        for (int expected : {200, 401, 200, 401})
            QCOMPARE(readRawResponse(socket).status, expected);
        // One byte at a time: the guard and Qt's parser must still agree where each request ends.
        for (char c : post + get) {
            socket.write(&c, 1);
            QVERIFY(socket.waitForBytesWritten(10000));
        }
        QCOMPARE(readRawResponse(socket).status, 401);
        QCOMPARE(readRawResponse(socket).status, 200);
        // Expect: 100-continue gets its interim answer before the body is sent.
        socket.write("POST /ed-fi/schools HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
                     "Expect: 100-continue\r\n\r\n");
        QCOMPARE(readRawResponse(socket).status, 100);
        socket.write("{}");
        QCOMPARE(readRawResponse(socket).status, 401);
        QCOMPARE(server.stop(), 0);
    }

    // Writes arriving together share one commit; each is answered by its own outcome, and a
    // connection's later request sees its earlier write.
    void writesArrivingTogetherKeepTheirOwnOutcomes()
    {
        Server server(m_db);
        QNetworkAccessManager nam;
        const QByteArray token = fetchToken(nam, server, m_client);
        QVERIFY(!token.isEmpty());
        auto request = [&](const QByteArray &method, const QByteArray &path, const QByteArray &body) {
            return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                   + "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
                   + "\r\n\r\n" + body;
        };
        auto year = [](int schoolYear) {
            return QByteArray("{\"schoolYear\":") + QByteArray::number(schoolYear)
                   + ",\"currentSchoolYear\":false,\"schoolYearDescription\":\"Year\"}";
        };
        const std::vector<std::pair<QByteArray, int>> writes{
            {request("POST", "/data/v3/ed-fi/schoolYearTypes", year(2031)), 201},
            {request("POST", "/data/v3/ed-fi/schoolYearTypes", year(2032)), 201},
            // References and a descriptor nobody stored, a body that is not valid, a delete of nothing:
            // each refused alone.
            {request("POST", "/data/v3/ed-fi/sessions",
                     "{\"sessionName\":\"Fall\",\"schoolReference\":{\"schoolId\":404},"
                     "\"schoolYearTypeReference\":{\"schoolYear\":2031},\"beginDate\":\"2030-08-20\","
                     "\"endDate\":\"2030-12-20\",\"termDescriptor\":\"uri://ed-fi.org/TermDescriptor#Fall\","
                     "\"totalInstructionalDays\":80}"),
             400},
            {request("DELETE", "/data/v3/ed-fi/schoolYearTypes/00000000000040008000000000000000", {}), 404},
            {request("POST", "/data/v3/ed-fi/schoolYearTypes", "{\"schoolYear\":\"soon\"}"), 400},
            {request("POST", "/data/v3/ed-fi/schoolYearTypes", year(2033)), 201},
        };
        std::vector<std::unique_ptr<QTcpSocket>> sockets;
        for (std::size_t i = 0; i < writes.size(); ++i) {
            sockets.push_back(std::make_unique<QTcpSocket>());
            sockets.back()->connectToHost(QHostAddress::LocalHost, server.port());
            QVERIFY(sockets.back()->waitForConnected(10000));
        }
        // The first connection pipelines a read of what it has just written.
        sockets[0]->write(writes[0].first + request("GET", "/data/v3/ed-fi/schoolYearTypes?schoolYear=2031", {}));
        for (std::size_t i = 1; i < writes.size(); ++i)
            sockets[i]->write(writes[i].first);
        for (std::size_t i = 0; i < writes.size(); ++i) {
            const RawResponse answer = readRawResponse(*sockets[i]);
            QVERIFY2(answer.status == writes[i].second,
                     qPrintable(QStringLiteral("write %1: %2 %3").arg(i).arg(answer.status).arg(QString::fromUtf8(answer.body))));
            if (answer.status == 201)
                QVERIFY(answer.head.contains("Location: http://127.0.0.1/data/v3/ed-fi/schoolYearTypes/"));
        }
        const RawResponse read = readRawResponse(*sockets[0]);
        QCOMPARE(read.status, 200);
        QCOMPARE(parseJson(read.body.toStdString()).value->size(), std::size_t(1));
        const HttpResult all = call(nam, "GET", server.url("/data/v3/ed-fi/schoolYearTypes?totalCount=true"), {},
                                    {{"Authorization", "Bearer " + token}});
        QCOMPARE(all.header("Total-Count"), QByteArray("3"));
        QCOMPARE(server.stop(), 0);
    }

    void oversizedBodyIsRefusedBeforeItIsRead()
    {
        Server server(m_db);
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, server.port());
        QVERIFY(socket.waitForConnected(10000));
        const qint64 length = 9 * 1024 * 1024;
        socket.write("POST /ed-fi/schools HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     "Content-Length: "
                     + QByteArray::number(length) + "\r\n\r\n");
        socket.write(QByteArray(256 * 1024, 'a'));
        const RawResponse response = readRawResponse(socket);
        QCOMPARE(response.status, 413);
        QVERIFY(response.head.contains("Connection: close"));
        QVERIFY(response.body.contains("not read"));

        QNetworkAccessManager nam;
        QCOMPARE(call(nam, "GET", server.url("/")).status, 200);
        QCOMPARE(server.stop(), 0);
    }

    void malformedRequestsGetCleanAnswers()
    {
        Server server(m_db);
        QNetworkAccessManager nam;

        const RawResponse bigHeaders = rawExchange(
            server.port(),
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + QByteArray(17 * 1024, 'p') + "\r\n\r\n");
        QCOMPARE(bigHeaders.status, 431);
        QVERIFY(bigHeaders.closed);
        QCOMPARE(call(nam, "GET", server.url("/")).status, 200);

        for (const QByteArray &bad :
             {QByteArray("GARBAGE\r\n\r\n"), QByteArray("GET\r\n\r\n"),
              QByteArray("GET /ed-fi/schools HTTP/1.1 extra\r\nHost: x\r\n\r\n"),
              QByteArray("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15), // TLS on the plain port
              QByteArray("GET / HTTP/1.1\r\nNo colon here\r\n\r\n"),
              QByteArray("GET / HTTP/1.1\r\n Host: folded\r\n\r\n"),
              QByteArray("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: ten\r\n\r\n")}) {
            const RawResponse response = rawExchange(server.port(), bad);
            QVERIFY2(response.status == 400 || (response.status == 0 && response.closed), bad.constData());
            QVERIFY(response.closed);
            QCOMPARE(call(nam, "GET", server.url("/")).status, 200);
        }
        const RawResponse chunked =
            rawExchange(server.port(), "POST /ed-fi/schools HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: "
                                       "chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
        QCOMPARE(chunked.status, 411);
        QCOMPARE(call(nam, "GET", server.url("/")).status, 200);
        QCOMPARE(server.stop(), 0);
    }

    void aSlowClientDoesNotHoldUpOthers()
    {
        // A request timeout of 2 s instead of the default 15 s: the same guard, less waiting.
        Server server(m_db, {"--request-timeout", "2"});
        QTcpSocket slow;
        slow.connectToHost(QHostAddress::LocalHost, server.port());
        QVERIFY(slow.waitForConnected(10000));
        slow.write("GET /ed-fi/schools HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: appl");
        QVERIFY(slow.waitForBytesWritten(10000));

        QNetworkAccessManager nam;
        const QByteArray token = fetchToken(nam, server, m_client);
        QCOMPARE(call(nam, "GET", server.url("/ed-fi/schools"), {}, bearer(token)).status, 200);
        QCOMPARE(slow.bytesAvailable(), qint64(0));
        QCOMPARE(slow.state(), QAbstractSocket::ConnectedState);

        // It gets 408 once its request has taken longer than the request timeout given.
        const RawResponse timedOut = readRawResponse(slow, 60000);
        QCOMPARE(timedOut.status, 408);
        QVERIFY(timedOut.body.contains("within 2 seconds"));
        QCOMPARE(call(nam, "GET", server.url("/ed-fi/schools"), {}, bearer(token)).status, 200);
        QCOMPARE(server.stop(), 0);
    }

    // A loader on this machine (8 connections of a bulk load) is never slowed by the default rate:
    // more requests than a minute's default allowance all answer 200. A --rate given holds for it too
    // (the flood test below).
    void theDefaultRateSparesThisMachine()
    {
        Server server(m_db);
        QNetworkAccessManager nam;
        const QByteArray token = fetchToken(nam, server, m_client);
        QVERIFY(!token.isEmpty());
        const int requests = 6100; // the default is 6,000 a minute, bursts as large
        int finished = 0;
        int ok = 0;
        int sent = 0;
        QEventLoop loop;
        std::function<void()> sendOne = [&] {
            QNetworkRequest request(server.url("/data/v3/ed-fi/schools?limit=0"));
            request.setRawHeader("Authorization", "Bearer " + token);
            QNetworkReply *reply = nam.get(request);
            ++sent;
            connect(reply, &QNetworkReply::finished, &loop, [&, reply] {
                ok += reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200 ? 1 : 0;
                reply->deleteLater();
                if (++finished == requests)
                    loop.quit();
                else if (sent < requests)
                    sendOne();
            });
        };
        for (int i = 0; i < 8; ++i)
            sendOne();
        QTimer::singleShot(120000, &loop, &QEventLoop::quit);
        loop.exec();
        QCOMPARE(finished, requests);
        QCOMPARE(ok, requests);
        QCOMPARE(server.stop(), 0);
    }

    void aFloodGetsTooManyRequestsWhileOthersAreServed()
    {
        const Credentials other = addClient(m_db, "other");
        Server server(m_db, {"--rate", "20"});
        QNetworkAccessManager floodNam;
        QNetworkAccessManager otherNam;
        const QByteArray floodToken = fetchToken(floodNam, server, m_client);
        const QByteArray otherToken = fetchToken(otherNam, server, other);
        QVERIFY(!floodToken.isEmpty() && !otherToken.isEmpty());

        const int flood = 60;
        int finished = 0;
        std::map<int, int> statuses;
        QList<QByteArray> retryAfter;
        QEventLoop loop;
        for (int i = 0; i < flood; ++i) {
            QNetworkRequest request(server.url("/ed-fi/schools"));
            request.setRawHeader("Authorization", "Bearer " + floodToken);
            QNetworkReply *reply = floodNam.get(request);
            connect(reply, &QNetworkReply::finished, &loop, [&, reply] {
                const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                ++statuses[status];
                if (status == 429)
                    retryAfter << reply->rawHeader("Retry-After");
                reply->deleteLater();
                if (++finished == flood)
                    loop.quit();
            });
        }
        QTimer::singleShot(120000, &loop, &QEventLoop::quit);
        loop.exec();
        QCOMPARE(finished, flood);
        QVERIFY2(statuses[429] >= 30, qPrintable(QString::number(statuses[429])));
        QVERIFY(statuses[200] >= 20);
        QCOMPARE(statuses[200] + statuses[429], flood);
        for (const QByteArray &value : retryAfter)
            QVERIFY(value.toInt() >= 1);

        // Buckets are per client: another client is served at once.
        QCOMPARE(call(otherNam, "GET", server.url("/ed-fi/schools"), {}, bearer(otherToken)).status, 200);
        QCOMPARE(server.stop(), 0);
    }

    void connectionsBeyondTheCapAreTurnedAway()
    {
        Server server(m_db, {"--max-connections-per-peer", "4"});
        std::vector<std::unique_ptr<QTcpSocket>> held;
        for (int i = 0; i < 4; ++i) {
            held.push_back(std::make_unique<QTcpSocket>());
            held.back()->connectToHost(QHostAddress::LocalHost, server.port());
            QVERIFY(held.back()->waitForConnected(10000));
        }
        const RawResponse refused = rawExchange(server.port(), "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QCOMPARE(refused.status, 503);
        QVERIFY(refused.head.contains("Retry-After"));
        QVERIFY(refused.closed);

        // A held connection still works, and once they are gone there is room again.
        held.front()->write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QCOMPARE(readRawResponse(*held.front()).status, 200);
        held.clear();
        QNetworkAccessManager nam;
        QTRY_COMPARE_WITH_TIMEOUT(call(nam, "GET", server.url("/")).status, 200, 30000);
        QCOMPARE(server.stop(), 0);
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_db;
    Credentials m_client;
};

QTEST_GUILESS_MAIN(TestServe)
#include "tst_serve.moc"
