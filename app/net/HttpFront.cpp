#include "HttpFront.h"

#include "ApiClients.h"
#include "Engine.h"
#include "WriteGroup.h"
#include "Json.h"
#include "LoadOrder.h"
#include "OpenApi.h"

#include <QCoreApplication>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QMetaEnum>
#include <QSslSocket>
#include <QTcpSocket>

#include <SQLiteCpp/Exception.h>

namespace steward {

namespace {

// Ed-Fi's problem type for a request without valid credentials (the ODS/API and DMS answer
// unauthenticated calls with it).
constexpr const char *kAuthenticationProblem = "urn:ed-fi:api:security:authentication";

using Headers = std::vector<std::pair<std::string, std::string>>;

Response jsonResponse(int status, Json body, Headers headers = {})
{
    Response response;
    response.status = status;
    response.headers = std::move(headers);
    response.body = std::move(body);
    return response;
}

// RFC 6749 section 5.2 error bodies; no caching of anything the token endpoint says.
Response oauthError(int status, const std::string &error, const std::string &description,
                    Headers headers = {})
{
    headers.emplace_back("Cache-Control", "no-store");
    headers.emplace_back("Pragma", "no-cache");
    return jsonResponse(status, Json{{"error", error}, {"error_description", description}},
                        std::move(headers));
}

Response tooManyRequests(int waitSeconds, const std::string &detail)
{
    Response response = problem::make(429, "about:blank", "Too Many Requests", detail);
    response.headers.emplace_back("Retry-After", std::to_string(waitSeconds));
    return response;
}

Response methodNotAllowed(const std::string &allowed, const std::string &path)
{
    Response response = problem::make(405, problem::kMethodNotAllowed, "Method Not Allowed",
                                      path + " answers " + allowed + " only.");
    response.headers.emplace_back("Allow", allowed);
    return response;
}

std::string methodName(QHttpServerRequest::Method method, const QByteArray &fromRequestLine)
{
    switch (method) {
    case QHttpServerRequest::Method::Get: return "GET";
    case QHttpServerRequest::Method::Put: return "PUT";
    case QHttpServerRequest::Method::Delete: return "DELETE";
    case QHttpServerRequest::Method::Post: return "POST";
    case QHttpServerRequest::Method::Head: return "HEAD";
    case QHttpServerRequest::Method::Options: return "OPTIONS";
    case QHttpServerRequest::Method::Patch: return "PATCH";
    default: return fromRequestLine.isEmpty() ? std::string("UNKNOWN") : fromRequestLine.toStdString();
    }
}

QByteArray headerValue(const QHttpServerRequest &request, const QByteArray &lowerName)
{
    for (const auto &[name, value] : request.headers())
        if (name.toLower() == lowerName)
            return value;
    return {};
}

// application/x-www-form-urlencoded: '+' is a space, then percent-decoding.
std::map<std::string, std::string> parseForm(const QByteArray &body)
{
    std::map<std::string, std::string> fields;
    for (const QByteArray &pair : body.split('&')) {
        if (pair.isEmpty())
            continue;
        const qsizetype eq = pair.indexOf('=');
        QByteArray name = eq < 0 ? pair : pair.left(eq);
        QByteArray value = eq < 0 ? QByteArray() : pair.mid(eq + 1);
        name.replace('+', ' ');
        value.replace('+', ' ');
        fields.emplace(QByteArray::fromPercentEncoding(name).toStdString(),
                       QByteArray::fromPercentEncoding(value).toStdString());
    }
    return fields;
}

bool knownStatus(int status)
{
    return QMetaEnum::fromType<QHttpServerResponder::StatusCode>().valueToKey(status) != nullptr;
}

} // namespace

HttpFront::HttpFront(Engine &engine, ApiClients &clients, const ServeLimits &limits, QObject *parent)
    : QAbstractHttpServer(parent)
    , m_engine(engine)
    , m_clients(clients)
    , m_limits(limits)
    , m_tokens(std::chrono::seconds(limits.tokenLifetimeSeconds))
    , m_requestRates(limits.requestsPerMinute)
    , m_tokenRates(limits.tokenRequestsPerMinute)
{
    // The model does not change while serving, so the dependency list is built once.
    const LoadOrder order(engine.model());
    m_dependencies = Json::array();
    for (std::size_t layer = 0; layer < order.layers().size(); ++layer)
        for (const ResourceSchema *resource : order.layers()[layer])
            m_dependencies.push_back(Json{
                {"resource", resource->requestPath()},
                {"order", layer + 1},
                {"operations", Json::array({"Create", "Update"})}});
}

HttpFront::~HttpFront() = default;

namespace {

bool isWrite(const std::string &method)
{
    return method == "POST" || method == "PUT" || method == "DELETE";
}

// An answer as it goes on the wire: the status (500 for one Qt cannot name), the headers in order and
// the body, the same whether Qt's responder writes it or the writer's answer is written directly.
struct WireAnswer
{
    int status = 500;
    std::vector<std::pair<QByteArray, QByteArray>> headers;
    QByteArray body;
};

WireAnswer wireAnswer(const Response &response, bool close)
{
    WireAnswer answer;
    answer.status = knownStatus(response.status) ? response.status : 500;
    bool retryAfter = false;
    for (const auto &[name, value] : response.headers) {
        answer.headers.emplace_back(QByteArray::fromStdString(name), QByteArray::fromStdString(value));
        retryAfter = retryAfter || name == "Retry-After";
    }
    // Clients back off by Retry-After on the statuses they retry; a busy database clears in moments.
    if ((answer.status == 429 || answer.status == 503) && !retryAfter)
        answer.headers.emplace_back("Retry-After", "1");
    // The bytes the NDJSON carrier writes in its "body" field: one serializer for both.
    if (!response.body.is_null()) {
        answer.body = QByteArray::fromStdString(dumpJson(response.body));
        answer.headers.emplace_back("Content-Type", "application/json");
    }
    if (answer.status != 204 && answer.status != 304)
        answer.headers.emplace_back("Content-Length", QByteArray::number(answer.body.size()));
    if (close)
        answer.headers.emplace_back("Connection", "close");
    return answer;
}

// The answer to a request the writer handled, written straight to its connection (the request
// object it came with is gone by then).
QByteArray responseBytes(const Response &response, bool close)
{
    const WireAnswer answer = wireAnswer(response, close);
    QByteArray out = "HTTP/1.1 " + QByteArray::number(answer.status) + " " + reasonPhrase(answer.status) + "\r\n";
    for (const auto &[name, value] : answer.headers)
        out += name + ": " + value + "\r\n";
    return out + "\r\n" + answer.body;
}

} // namespace

void HttpFront::dispatchWrites()
{
    if (!m_inFlight.empty() || m_pendingWrites.empty())
        return;
    if (!m_writer)
        m_writer = std::make_unique<WriteGroup>(m_engine.model(), m_engine.database().path());
    m_inFlight.swap(m_pendingWrites);
    std::vector<Request> calls;
    for (const DeferredRequest &deferred : m_inFlight)
        calls.push_back(deferred.call);
    m_writer->run(std::move(calls), [this](const std::vector<Response> &responses) { answerWrites(responses); });
}

void HttpFront::answerWrites(const std::vector<Response> &responses)
{
    std::vector<DeferredRequest> answered;
    answered.swap(m_inFlight);
    for (std::size_t i = 0; i < answered.size(); ++i) {
        DeferredRequest &deferred = answered[i];
        Response response = i < responses.size() ? responses[i]
                                                  : problem::make(500, problem::kInternalError,
                                                                  "Internal Server Error", "The write was not answered.");
        if (!deferred.locationPrefix.empty())
            for (auto &[name, value] : response.headers)
                if (name == "Location")
                    value = deferred.locationPrefix + value;
        if (auto it = m_socketsWaiting.find(deferred.waitingKey); it != m_socketsWaiting.end())
            m_socketsWaiting.erase(it);
        if (!deferred.socket)
            continue; // the client went away; the write stands
        deferred.socket->write(responseBytes(response, deferred.close));
        deferred.socket->flush(); // now, not on a later turn of the event loop
        if (deferred.close)
            if (ConnectionGuard *guard = ConnectionGuard::of(deferred.socket))
                guard->close();
    }
    dispatchWrites();
}

bool HttpFront::start(const QHostAddress &address, quint16 port, QString *error,
                      const std::optional<QSslConfiguration> &tls)
{
    auto *server = new GuardedTcpServer(m_limits, this);
    if (tls)
        server->setTls(*tls);
    if (!server->listen(address, port)) {
        if (error)
            *error = server->errorString();
        delete server;
        return false;
    }
    m_server = server;
    bind(server);
    return true;
}

quint16 HttpFront::port() const
{
    return m_server ? m_server->serverPort() : 0;
}

bool HttpFront::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    ConnectionGuard *guard = ConnectionGuard::of(socket);
    const std::string method = methodName(request.method(), guard ? guard->method() : QByteArray());
    Response response;
    m_deferredCall.reset();
    m_deferredLocationPrefix.clear();
    try {
        response = route(request, socket, method);
    } catch (const SQLite::Exception &e) {
        response = problem::make(503, problem::kServiceUnavailable, "Service Unavailable",
                                 std::string("The database could not be read: ") + e.what());
    } catch (const std::exception &e) {
        response = problem::make(500, problem::kInternalError, "Internal Server Error", e.what());
    }
    const bool close = guard && guard->clientWantsClose();
    if (m_deferredCall) {
        DeferredRequest deferred;
        deferred.call = std::move(*m_deferredCall);
        m_deferredCall.reset();
        deferred.socket = socket;
        deferred.waitingKey = socket;
        deferred.close = close;
        deferred.locationPrefix = m_deferredLocationPrefix;
        m_socketsWaiting.insert(socket);
        m_pendingWrites.push_back(std::move(deferred));
        dispatchWrites();
        return true;
    }
    send(request, socket, response, close);
    if (close)
        guard->close();
    return true;
}

void HttpFront::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // handleRequest answers everything; this only keeps a client from waiting if that ever changes.
    send(request, socket, problem::make(404, problem::kNotFound, "Not Found", "Nothing answers this path."),
         false);
}

namespace {

// Where ODS/API 7.x puts things under its base address (and so where its clients look).
constexpr const char *kDataPrefix = "/data/v3";
constexpr const char *kMetadataDataPrefix = "/metadata/data/v3";
constexpr const char *kChangeQueriesPrefix = "/changeQueries/v1";

bool startsWithSegment(const QString &path, const QString &prefix)
{
    return path.compare(prefix, Qt::CaseInsensitive) == 0
           || (path.startsWith(prefix, Qt::CaseInsensitive) && path.at(prefix.size()) == QLatin1Char('/'));
}

} // namespace

Response HttpFront::route(const QHttpServerRequest &request, QTcpSocket *socket, const std::string &method)
{
    QString path = request.url().path();
    while (path.size() > 1 && path.endsWith(QLatin1Char('/')))
        path.chop(1);
    if (path.isEmpty() || path == QLatin1String("/"))
        return method == "GET" ? discovery(request, socket) : methodNotAllowed("GET", "/");
    if (path == QLatin1String("/oauth/token"))
        return method == "POST" ? issueToken(request, socket) : methodNotAllowed("POST", "/oauth/token");
    // The roots the discovery document names answer with what lies under them.
    if (path.compare(QString::fromLatin1(kDataPrefix), Qt::CaseInsensitive) == 0)
        return method == "GET" ? jsonResponse(200, m_dependencies) : methodNotAllowed("GET", kDataPrefix);
    if (path.compare(QString::fromLatin1(kChangeQueriesPrefix), Qt::CaseInsensitive) == 0)
        return method == "GET" ? jsonResponse(200, Json{{"availableChangeVersions",
                                                         baseUrl(request, socket) + kChangeQueriesPrefix
                                                             + "/availableChangeVersions"}})
                               : methodNotAllowed("GET", kChangeQueriesPrefix);
    // Metadata is public on ODS/API: clients read it before they have a token.
    if (startsWithSegment(path, QStringLiteral("/metadata")))
        return method == "GET" ? metadata(request, socket, path) : methodNotAllowed("GET", path.toStdString());

    Response refusal;
    const std::optional<std::string> client = authenticate(request, refusal);
    if (!client)
        return refusal;
    if (path == QLatin1String("/oauth/token_info"))
        return method == "POST" ? tokenInfo(request) : methodNotAllowed("POST", "/oauth/token_info");
    const bool limited = m_limits.limitLoopback || !socket->peerAddress().isLoopback();
    if (const int wait = limited ? m_requestRates.take(*client) : 0)
        return tooManyRequests(wait, "Client '" + *client + "' has used its " +
                                         std::to_string(m_limits.requestsPerMinute) +
                                         " requests per minute; retry after " + std::to_string(wait) + " s.");
    if (startsWithSegment(path, QString::fromLatin1(kDataPrefix))) {
        Response response = dataRequest(request, socket, method, *client, int(qstrlen(kDataPrefix)));
        if (m_deferredCall) { // the writer answers it: keep where its Location is to point
            m_deferredLocationPrefix = baseUrl(request, socket) + kDataPrefix;
            return response;
        }
        // ODS/API answers with the address the client used, in full.
        for (auto &[name, value] : response.headers)
            if (name == "Location")
                value = baseUrl(request, socket) + kDataPrefix + value;
        return response;
    }
    return dataRequest(request, socket, method, *client, 0);
}

std::string HttpFront::baseUrl(const QHttpServerRequest &request, QTcpSocket *socket) const
{
    // The guard lets only plain host[:port] values through, so the Host header can be echoed.
    QByteArray host = headerValue(request, "host");
    if (host.isEmpty()) {
        const QHostAddress local = socket->localAddress();
        const QString address = local.protocol() == QAbstractSocket::IPv6Protocol
                                    ? "[" + local.toString() + "]"
                                    : local.toString();
        host = address.toUtf8() + ':' + QByteArray::number(socket->localPort());
    }
    // Over TLS every address it names is https: a client that follows them never drops to plain HTTP.
    const bool tls = qobject_cast<QSslSocket *>(socket) != nullptr;
    return (tls ? "https://" : "http://") + host.toStdString();
}

Response HttpFront::discovery(const QHttpServerRequest &request, QTcpSocket *socket) const
{
    const std::string base = baseUrl(request, socket);
    Json models = Json::array();
    for (const auto &project : m_engine.model().projects())
        models.push_back(Json{{"name", project->projectName},
                              {"version", project->projectVersion},
                              {"informationalVersion", project->projectName + " " + project->projectVersion}});
    // The ODS/API release whose behaviour serve follows: clients choose their paging by it (7.3 and
    // later page by cursor: pageToken, pageSize, Next-Page-Token).
    return jsonResponse(200, Json{{"version", "7.3"},
                                  {"informationalVersion", "7.3"},
                                  {"suite", "3"},
                                  {"build", QCoreApplication::applicationVersion().toStdString()},
                                  {"apiMode", "Sandbox"},
                                  {"applicationName", "Steward"},
                                  {"dataModels", models},
                                  {"urls",
                                   {{"dependencies", base + kMetadataDataPrefix + "/dependencies"},
                                    {"openApiMetadata", base + "/metadata/"},
                                    {"oauth", base + "/oauth/token"},
                                    {"dataManagementApi", base + kDataPrefix + "/"},
                                    {"xsdMetadata", base + "/metadata/xsd"},
                                    {"changeQueries", base + kChangeQueriesPrefix + "/"}}}});
}

Response HttpFront::metadata(const QHttpServerRequest &request, QTcpSocket *socket, const QString &path)
{
    const std::string base = baseUrl(request, socket);
    const Model &model = m_engine.model();
    if (path.compare(QLatin1String("/metadata"), Qt::CaseInsensitive) == 0) {
        Json list = Json::array();
        for (const OpenApiDocumentInfo &document : openApiDocuments(model))
            list.push_back(Json{{"name", document.name}, {"endpointUri", base + document.path}, {"prefix", ""}});
        return jsonResponse(200, list);
    }
    if (path.compare(QLatin1String("/metadata/dependencies"), Qt::CaseInsensitive) == 0
        || path.compare(QString::fromLatin1(kMetadataDataPrefix) + "/dependencies", Qt::CaseInsensitive) == 0)
        return jsonResponse(200, m_dependencies);
    if (path.compare(QLatin1String("/metadata/xsd"), Qt::CaseInsensitive) == 0) {
        // The interchange schemas are Ed-Fi's files, which Steward does not carry: each data model is
        // listed with an address that answers, and names no files.
        Json list = Json::array();
        for (const auto &project : model.projects())
            list.push_back(Json{{"name", project->projectEndpointName},
                                {"version", project->projectVersion},
                                {"description", project->projectName + " interchange schemas (not served)"},
                                {"files", base + "/metadata/xsd/" + project->projectEndpointName + "/files"}});
        return jsonResponse(200, list);
    }
    const QStringList parts = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (parts.size() == 4 && parts[1] == QLatin1String("xsd") && parts[3] == QLatin1String("files")
        && model.findProjectByEndpoint(parts[2].toStdString()) != nullptr)
        return jsonResponse(200, Json::array());
    // /metadata/data/v3/{section}/swagger.json
    if (parts.size() == 5 && startsWithSegment(path, QString::fromLatin1(kMetadataDataPrefix))
        && parts[4].compare(QLatin1String("swagger.json"), Qt::CaseInsensitive) == 0) {
        const std::string section = parts[3].toLower().toStdString();
        const std::string key = section + " " + base;
        auto cached = m_openApiCache.find(key);
        if (cached == m_openApiCache.end()) {
            std::optional<Json> document = openApiDocument(model, section, base + kDataPrefix);
            if (document) {
                if (m_openApiCache.size() > 16)
                    m_openApiCache.clear();
                cached = m_openApiCache.emplace(key, std::move(*document)).first;
            }
        }
        if (cached != m_openApiCache.end())
            return jsonResponse(200, cached->second);
    }
    return problem::make(404, problem::kNotFound, "Not Found",
                         "No metadata at " + path.toStdString() + "; GET /metadata/ lists the documents.");
}

Response HttpFront::tokenInfo(const QHttpServerRequest &request)
{
    std::map<std::string, std::string> fields;
    const QByteArray contentType = headerValue(request, "content-type").toLower();
    if (contentType.startsWith("application/json")) {
        JsonParseResult parsed = parseJson(request.body().toStdString());
        if (parsed.value && parsed.value->is_object() && parsed.value->contains("token")
            && (*parsed.value)["token"].is_string())
            fields["token"] = (*parsed.value)["token"].get<std::string>();
    } else {
        fields = parseForm(request.body());
    }
    if (fields["token"].empty())
        return problem::make(400, problem::kBadRequest, "Bad Request", "The form field 'token' is required.");
    const std::optional<std::string> client = m_tokens.clientOf(fields["token"]);
    if (!client || !m_clients.exists(*client))
        return jsonResponse(200, Json{{"active", false}});
    // Serve grants every client the whole API: no claim sets, profiles or education organization limits.
    return jsonResponse(200, Json{{"active", true},
                                  {"client_id", *client},
                                  {"namespace_prefixes", Json::array()},
                                  {"education_organizations", Json::array()},
                                  {"assigned_profiles", Json::array()},
                                  {"claim_set", {{"name", "Steward full access"}}}});
}

Response HttpFront::issueToken(const QHttpServerRequest &request, QTcpSocket *socket)
{
    std::map<std::string, std::string> fields;
    const QByteArray contentType = headerValue(request, "content-type").toLower();
    if (contentType.startsWith("application/json")) {
        JsonParseResult parsed = parseJson(request.body().toStdString());
        if (!parsed.value || !parsed.value->is_object())
            return oauthError(400, "invalid_request", "The body is not a JSON object.");
        for (const char *key : {"grant_type", "client_id", "client_secret"})
            if (auto it = parsed.value->find(key); it != parsed.value->end() && it->is_string())
                fields[key] = it->get<std::string>();
    } else {
        fields = parseForm(request.body());
    }
    if (fields.count("grant_type") == 0)
        return oauthError(400, "invalid_request", "grant_type is required (client_credentials).");
    if (fields["grant_type"] != "client_credentials")
        return oauthError(400, "unsupported_grant_type", "Only the client_credentials grant is supported.");

    std::string id = fields["client_id"];
    std::string secret = fields["client_secret"];
    bool basic = false;
    const QByteArray authorization = headerValue(request, "authorization");
    if (authorization.left(6).compare("basic ", Qt::CaseInsensitive) == 0) {
        basic = true;
        const QByteArray decoded = QByteArray::fromBase64(authorization.mid(6).trimmed());
        const qsizetype colon = decoded.indexOf(':');
        if (colon >= 0) {
            // RFC 6749 2.3.1: both parts are form-encoded before they are joined.
            QByteArray user = decoded.left(colon);
            QByteArray password = decoded.mid(colon + 1);
            user.replace('+', ' ');
            password.replace('+', ' ');
            id = QByteArray::fromPercentEncoding(user).toStdString();
            secret = QByteArray::fromPercentEncoding(password).toStdString();
        }
    }
    Headers challenge;
    if (basic)
        challenge.emplace_back("WWW-Authenticate", "Basic realm=\"Steward\"");
    if (id.empty() || secret.empty())
        return oauthError(401, "invalid_client",
                          "Client credentials are required (HTTP Basic or client_id and client_secret).",
                          challenge);
    // Each check costs a deliberate amount of hashing, so attempts are limited per peer address.
    if (const int wait = m_tokenRates.take(socket->peerAddress().toString().toStdString())) {
        Response response = oauthError(
            429, "slow_down", "Too many token requests; retry after " + std::to_string(wait) + " s.");
        response.headers.emplace_back("Retry-After", std::to_string(wait));
        return response;
    }
    if (!m_clients.verify(id, secret))
        return oauthError(401, "invalid_client", "The client id or secret is not valid.", challenge);
    const std::string token = m_tokens.issue(id);
    return jsonResponse(200,
                        Json{{"access_token", token},
                             {"token_type", "bearer"},
                             {"expires_in", static_cast<std::int64_t>(m_tokens.lifetime().count())}},
                        {{"Cache-Control", "no-store"}, {"Pragma", "no-cache"}});
}

std::optional<std::string> HttpFront::authenticate(const QHttpServerRequest &request, Response &refusal)
{
    const QByteArray authorization = headerValue(request, "authorization").trimmed();
    if (authorization.left(7).compare("bearer ", Qt::CaseInsensitive) != 0) {
        refusal = problem::make(
            401, kAuthenticationProblem, "Authentication Failed",
            "The request needs 'Authorization: Bearer <token>'; POST /oauth/token issues tokens.");
        refusal.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"Steward\"");
        return std::nullopt;
    }
    const std::string token = authorization.mid(7).trimmed().toStdString();
    std::optional<std::string> client = m_tokens.clientOf(token);
    // A client removed with `steward-cli clients remove` loses its tokens at once.
    if (client && !m_clients.exists(*client)) {
        m_tokens.revokeClient(*client);
        client.reset();
    }
    if (!client) {
        refusal =
            problem::make(401, kAuthenticationProblem, "Authentication Failed",
                          "The bearer token is unknown or has expired; POST /oauth/token issues a new one.");
        refusal.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"Steward\", error=\"invalid_token\"");
    }
    return client;
}

Response HttpFront::dataRequest(const QHttpServerRequest &request, QTcpSocket *socket, const std::string &method,
                                const std::string &client, int prefixLength)
{
    Request call;
    call.method = method;
    const QUrl url = request.url();
    call.path = url.path(QUrl::FullyEncoded).mid(prefixLength).toStdString();
    if (url.hasQuery())
        call.path += "?" + url.query(QUrl::FullyEncoded).toStdString();
    for (const auto &[name, value] : request.headers()) {
        const std::string key = name.toLower().toStdString();
        // The engine has no use for credentials, so they never reach it.
        if (key == "authorization")
            continue;
        auto [it, inserted] = call.headers.emplace(key, value.toStdString());
        if (!inserted)
            it->second += ", " + value.toStdString();
    }
    const QByteArray body = request.body();
    if (!body.isEmpty()) {
        // The same limits and the same answer as a bad line on the NDJSON carrier.
        JsonParseLimits limits;
        limits.maxBytes = static_cast<std::size_t>(m_limits.maxBodyBytes);
        JsonParseResult parsed =
            parseJson(std::string_view(body.constData(), static_cast<std::size_t>(body.size())), limits);
        if (!parsed.value)
            return problem::make(400, problem::kBadRequest, "Bad Request",
                                 "The request body is not valid JSON: " + parsed.error + ".");
        if (!parsed.value->is_null())
            call.body = std::move(*parsed.value);
    }
    call.actor = client;
    // Writes go to the writer, and so does anything behind a write on the same connection.
    if (isWrite(method) || m_socketsWaiting.count(socket) > 0) {
        m_deferredCall = std::move(call);
        return Response{};
    }
    return m_engine.handle(call);
}

void HttpFront::send(const QHttpServerRequest &request, QTcpSocket *socket, const Response &response,
                     bool close)
{
    const WireAnswer answer = wireAnswer(response, close);
    QHttpServerResponder responder = makeResponder(request, socket);
    responder.writeStatusLine(static_cast<QHttpServerResponder::StatusCode>(answer.status));
    for (const auto &[name, value] : answer.headers)
        responder.writeHeader(name, value);
    const bool head = request.method() == QHttpServerRequest::Method::Head;
    responder.writeBody(head ? QByteArray() : answer.body);
}

} // namespace steward
