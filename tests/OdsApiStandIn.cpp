#include "OdsApiStandIn.h"

#include <algorithm>

#include "TestSupport.h"

#include <QHostAddress>
#include <QSslServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

namespace steward::test {

OdsApiStandIn::OdsApiStandIn(const Model &model, std::string route, std::string apiMode)
    : m_model(model), m_identity(model), m_route(std::move(route)), m_apiMode(std::move(apiMode))
{
    if (m_apiMode.empty() && !m_route.empty())
        m_apiMode = "Year Specific";
    m_clock.start();
    listen(std::make_unique<QTcpServer>());
}

void OdsApiStandIn::listen(std::unique_ptr<QTcpServer> server)
{
    m_server = std::move(server);
    // pendingConnectionAvailable, not newConnection: a QSslServer has a connection only once encrypted.
    QObject::connect(m_server.get(), &QTcpServer::pendingConnectionAvailable, this, [this] {
        while (QTcpSocket *socket = m_server->nextPendingConnection()) {
            QObject::connect(socket, &QTcpSocket::readyRead, this, [this, socket] { readFrom(socket); });
            QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        }
    });
    m_server->listen(QHostAddress::LocalHost);
}

void OdsApiStandIn::serveTls(const QSslConfiguration &configuration)
{
    auto server = std::make_unique<QSslServer>();
    server->setSslConfiguration(configuration);
    m_tls = true;
    listen(std::move(server));
}

std::string OdsApiStandIn::base() const
{
    return std::string(m_tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(m_server->serverPort()) + "/api";
}

std::vector<const OdsRecord *> OdsApiStandIn::recordsOf(const std::string &endpoint) const
{
    std::vector<const OdsRecord *> out;
    for (const auto &[id, record] : m_records)
        if (record.endpoint == endpoint)
            out.push_back(&record);
    return out;
}

const OdsRecord *OdsApiStandIn::find(const std::string &endpoint, const Json &identityBody) const
{
    std::optional<DocumentIdentity> identity =
        m_identity.documentIdentity(*resourceOf(endpoint), identityBody);
    if (!identity)
        return nullptr;
    auto named = m_byIdentity.find({endpoint, identity->referentialId()});
    return named == m_byIdentity.end() ? nullptr : &m_records.at(named->second);
}

std::string OdsApiStandIn::upsert(const std::string &endpoint, const Json &body)
{
    return store(endpoint, body, {}).second;
}

bool OdsApiStandIn::remove(const std::string &id)
{
    auto it = m_records.find(id);
    if (it == m_records.end())
        return false;
    index(it->second, -1);
    m_deletes.push_back(
        {it->second.endpoint,
         Json{{"id", id}, {"changeVersion", ++m_version}, {"keyValues", keyValues(it->second)}}});
    m_records.erase(it);
    return true;
}

void OdsApiStandIn::changeKey(const std::string &id, const Json &newBody)
{
    store(m_records.at(id).endpoint, newBody, id);
}

const ResourceSchema *OdsApiStandIn::resourceOf(const std::string &endpoint) const
{
    return m_model.findByEndpoint("ed-fi", endpoint);
}

Json OdsApiStandIn::keyValues(const OdsRecord &record) const
{
    return keyValuesOf(m_identity.identityObject(*resourceOf(record.endpoint), record.body));
}

OdsApiStandIn::Answer OdsApiStandIn::problemBody(int status, const std::string &type,
                                                 const std::string &detail, const Json &validationErrors)
{
    const char *title = status == 404   ? "Not Found"
                        : status == 409 ? "Conflict"
                        : status == 412 ? "Optimistic Lock Failed"
                                        : "Bad Request";
    return {status,
            Json{{"detail", detail},
                 {"type", type},
                 {"title", title},
                 {"status", status},
                 {"correlationId", "stand-in"},
                 {"validationErrors", validationErrors},
                 {"errors", Json::array()}},
            {}};
}

OdsApiStandIn::Answer OdsApiStandIn::lockFailed()
{
    return problemBody(412, "urn:ed-fi:api:optimistic-lock-failed",
                       "The item has been modified by another user.");
}

std::pair<bool, std::string> OdsApiStandIn::store(const std::string &endpoint, Json body,
                                                  const std::string &id)
{
    const ResourceSchema *resource = resourceOf(endpoint);
    const Uuid referentialId = m_identity.documentIdentity(*resource, body)->referentialId();
    auto existing = m_records.end();
    if (!id.empty()) {
        existing = m_records.find(id);
    } else if (auto named = m_byIdentity.find({endpoint, referentialId}); named != m_byIdentity.end()) {
        existing = m_records.find(named->second);
    }
    if (existing != m_records.end()) {
        const std::string &existingId = existing->first;
        OdsRecord &record = existing->second;
        if (record.body != body) {
            const Json oldKeys = keyValues(record);
            index(record, -1);
            record.body = std::move(body);
            record.changeVersion = ++m_version;
            const bool keyChanged = record.referentialId != referentialId;
            record.referentialId = referentialId;
            index(record, +1);
            if (keyChanged) {
                // An identity update (allowIdentityUpdates): ODS/API lists it among the key changes.
                m_keyChanges.push_back({endpoint, Json{{"id", existingId},
                                                       {"changeVersion", record.changeVersion},
                                                       {"oldKeyValues", oldKeys},
                                                       {"newKeyValues", keyValues(record)}}});
            }
        }
        return {false, existingId};
    }
    std::string newId = id;
    if (newId.empty())
        for (char c : Uuid::random().toString())
            if (c != '-')
                newId += c;
    const OdsRecord &added = m_records[newId] = OdsRecord{newId, endpoint, std::move(body), referentialId, ++m_version};
    index(added, +1);
    return {true, newId};
}

void OdsApiStandIn::index(const OdsRecord &record, int delta)
{
    if (delta > 0) {
        m_byIdentity[{record.endpoint, record.referentialId}] = record.id;
    } else if (auto named = m_byIdentity.find({record.endpoint, record.referentialId});
               named != m_byIdentity.end() && named->second == record.id) {
        m_byIdentity.erase(named);
    }
    const ResourceSchema *resource = resourceOf(record.endpoint);
    std::vector<Uuid> answered{record.referentialId};
    if (std::optional<DocumentIdentity> own = m_identity.documentIdentity(*resource, record.body))
        if (std::optional<DocumentIdentity> super = m_identity.superclassIdentity(*resource, *own))
            answered.push_back(super->referentialId());
    for (const Uuid &referentialId : answered) {
        int &count = m_answering[referentialId];
        count += delta;
        if (count <= 0)
            m_answering.erase(referentialId);
    }
}

bool OdsApiStandIn::referencesResolve(const ResourceSchema &resource, const Json &body, Json &errors) const
{
    for (const BodyReference &reference : m_identity.referencesIn(resource, body)) {
        if (reference.isDescriptor() || !reference.identity)
            continue;
        if (m_answering.count(reference.identity->referentialId()) == 0)
            errors[reference.path].push_back("The referenced " + reference.targetResource() +
                                             " resource does not exist.");
    }
    return errors.empty();
}

OdsApiStandIn::Answer OdsApiStandIn::page(const std::vector<Json> &items, const QUrlQuery &query)
{
    const std::int64_t offset = query.queryItemValue("offset").toLongLong();
    const std::int64_t limit = query.hasQueryItem("limit") ? query.queryItemValue("limit").toLongLong() : 500;
    if (limit > 500)
        return problemBody(400, "urn:ed-fi:api:bad-request:parameter-validation-failed",
                           "The request construction was invalid.");
    Answer answer;
    answer.body = Json::array();
    for (std::size_t i = static_cast<std::size_t>(offset);
         i < items.size() && answer.body.size() < std::size_t(limit); ++i)
        answer.body.push_back(items[i]);
    if (query.queryItemValue("totalCount") == QLatin1String("true"))
        answer.headers.emplace_back("Total-Count", std::to_string(items.size()));
    return answer;
}

bool OdsApiStandIn::inWindow(std::int64_t version, const QUrlQuery &query) const
{
    const bool hasMin = query.hasQueryItem("minChangeVersion");
    const bool hasMax = query.hasQueryItem("maxChangeVersion");
    return (!hasMin || version >= query.queryItemValue("minChangeVersion").toLongLong()) &&
           (!hasMax || version <= query.queryItemValue("maxChangeVersion").toLongLong());
}

OdsApiStandIn::Answer OdsApiStandIn::feed(const std::vector<std::pair<std::string, Json>> &entries,
                                          const std::string &endpoint, const QUrlQuery &query)
{
    std::vector<Json> items;
    for (const auto &[entryEndpoint, entry] : entries)
        if (entryEndpoint == endpoint && inWindow(entry["changeVersion"].get<std::int64_t>(), query))
            items.push_back(entry);
    return page(items, query);
}

Json OdsApiStandIn::served(const OdsRecord &record) const
{
    Json item = record.body;
    item["id"] = record.id;
    if (m_givesEtags)
        item["_etag"] = std::to_string(record.changeVersion);
    item["_lastModifiedDate"] = "2026-11-27T00:00:00." + std::to_string(record.changeVersion) + "Z";
    return item;
}

bool OdsApiStandIn::ifMatchHolds(const QByteArray &ifMatch, const OdsRecord &record) const
{
    if (ifMatch.isEmpty() || !m_givesEtags)
        return true;
    QByteArray tag = ifMatch.trimmed();
    if (tag.size() >= 2 && tag.startsWith('"') && tag.endsWith('"'))
        tag = tag.mid(1, tag.size() - 2); // ODS/API trims the quotes; "*" means nothing special there
    return tag.toStdString() == std::to_string(record.changeVersion);
}

OdsApiStandIn::Answer OdsApiStandIn::data(const std::string &method, const QStringList &segments,
                                          const QUrlQuery &query, const QByteArray &body,
                                          const QByteArray &ifMatch)
{
    // segments: ed-fi, endpoint[, id | deletes | keyChanges]
    if (segments.size() < 2 || segments[0] != QLatin1String("ed-fi") ||
        !resourceOf(segments[1].toStdString()))
        return problemBody(404, "urn:ed-fi:api:not-found", "The specified data could not be found.");
    const std::string endpoint = segments[1].toStdString();
    const ResourceSchema *resource = resourceOf(endpoint);
    if (segments.size() == 3 && segments[2] == QLatin1String("deletes"))
        return feed(m_deletes, endpoint, query);
    if (segments.size() == 3 && segments[2] == QLatin1String("keyChanges"))
        return feed(m_keyChanges, endpoint, query);
    const std::string id = segments.size() == 3 ? segments[2].toStdString() : std::string();
    auto named = id.empty() ? m_records.end() : m_records.find(id);
    if (!id.empty() && (named == m_records.end() || named->second.endpoint != endpoint))
        return problemBody(404, "urn:ed-fi:api:not-found", "The specified data could not be found.");
    auto withEtag = [this](Answer answer, const OdsRecord &record) {
        if (m_givesEtags)
            answer.headers.emplace_back("ETag", "\"" + std::to_string(record.changeVersion) + "\"");
        return answer;
    };
    if (method == "GET" && !id.empty())
        return withEtag({200, served(named->second), {}}, named->second);
    const QList<std::pair<QString, QString>> asked = query.queryItems(QUrl::FullyDecoded);
    if (method == "GET" && !m_answersQueries && std::any_of(asked.begin(), asked.end(), [&resource](const auto &item) {
            return resource->queryFields.count(toLower(item.first.toStdString())) > 0;
        }))
        return {500, nullptr, {}}; // as Meadowlark answers when it has no search engine
    if (method == "GET") {
        std::vector<Json> items;
        for (const auto &[recordId, record] : m_records) {
            if (record.endpoint != endpoint || !inWindow(record.changeVersion, query))
                continue;
            bool matches = true;
            for (const auto &[name, value] : query.queryItems(QUrl::FullyDecoded)) {
                if (resource->queryFields.count(toLower(name.toStdString())) == 0)
                    continue;
                // A field of the body itself (a descriptor's namespace and codeValue), else of its identity.
                const Json keys = keyValues(record);
                const std::string field = name.toStdString();
                const Json *key = record.body.contains(field) && !record.body[field].is_structured() ? &record.body[field]
                                  : keys.contains(field)                                            ? &keys[field]
                                                                                                    : nullptr;
                matches = matches && key != nullptr &&
                          (key->is_string() ? key->get<std::string>() == value.toStdString()
                                            : key->dump() == value.toStdString());
            }
            if (matches)
                items.push_back(served(record));
        }
        return page(items, query);
    }
    if (method == "POST" || method == "PUT") {
        Json document = Json::parse(body.toStdString(), nullptr, false);
        if (!document.is_object())
            return problemBody(400, "urn:ed-fi:api:bad-request", "The request body is not JSON.");
        if (method == "PUT" && m_putNeedsId) {
            // Meadowlark's and the Data Management Service's rule: a PUT body names its document.
            if (!document.contains("id"))
                return problemBody(400, "urn:ed-fi:api:bad-request:data-validation-failed",
                                   "{requestBody} must have required property 'id'");
            if (document["id"] != Json(id))
                return problemBody(400, "urn:ed-fi:api:bad-request:data-validation-failed",
                                   "The request body's id does not match the id in the URL.");
        }
        document.erase("id");
        if (m_refusedEndpoints.count(endpoint) > 0)
            return problemBody(400, "urn:ed-fi:api:bad-request", "Invalid resource");
        Json errors = Json::object();
        if (!referencesResolve(*resource, document, errors))
            return problemBody(409, "urn:ed-fi:api:data-conflict:unresolved-reference",
                               "The referenced item(s) do not exist.", errors);
        if (method == "PUT" && !ifMatchHolds(ifMatch, named->second))
            return lockFailed();
        if (method == "POST" && !m_postIgnoresIfMatch) {
            // ODS/API's upsert checks If-Match only when it would update.
            if (const OdsRecord *existing = find(endpoint, document)) {
                if (!ifMatchHolds(ifMatch, *existing))
                    return lockFailed();
            } else if (m_ifMatchInsertRefused && !ifMatch.isEmpty()) {
                return lockFailed();
            }
        }
        const auto [created, storedId] = store(endpoint, document, id);
        Answer answer;
        answer.status = method == "PUT" ? 204 : created ? 201 : 200;
        answer.body = nullptr;
        answer.headers.emplace_back("Location",
                                    base() + m_dataPath + m_route + "/ed-fi/" + endpoint + "/" + storedId);
        return withEtag(answer, m_records.at(storedId));
    }
    if (method == "DELETE" && !id.empty()) {
        if (!ifMatchHolds(ifMatch, named->second))
            return lockFailed();
        remove(id);
        return {204, nullptr, {}};
    }
    return problemBody(405, "urn:ed-fi:api:method-not-allowed", "Method not allowed.");
}

OdsApiStandIn::Answer OdsApiStandIn::answer(const std::string &method, const QUrl &url,
                                            const QByteArray &authorization, const QByteArray &body,
                                            const QByteArray &ifMatch)
{
    const QString path = url.path();
    const QUrlQuery query(url);
    if (path == QLatin1String("/api") || path == QLatin1String("/api/")) {
        Json discovery{{"version", "7.1"},
                       {"informationalVersion", "7.1"},
                       {"suite", "3"},
                       {"build", "7.1.1"},
                       {"dataModels", Json::array({{{"name", "Ed-Fi"}, {"version", "5.1.0"}}})},
                       {"urls",
                        {{"dependencies", base() + "/metadata/data/v3/dependencies"},
                         {"openApiMetadata", base() + "/metadata/"},
                         {"oauth", base() + "/oauth/token"},
                         {"dataManagementApi", base() + m_dataPath + "/"},
                         {"xsdMetadata", base() + "/metadata/xsd"},
                         {"changeQueries", base() + "/changeQueries/v1/"}}}};
        if (!m_apiMode.empty())
            discovery["apiMode"] = m_apiMode;
        if (!m_suite.empty())
            discovery["suite"] = m_suite;
        if (m_dataPath != "/data/v3")
            discovery["urls"].erase("changeQueries");
        return {200, discovery, {}};
    }
    if (path == QLatin1String("/api/oauth/token")) {
        // The Data Management Service and ODS/API both take HTTP Basic; this one takes nothing else.
        if (!authorization.startsWith("Basic ") || !body.contains("grant_type=client_credentials"))
            return {401, Json{{"error", "invalid_client"}}, {}};
        ++m_tokensIssued;
        return {200,
                Json{{"access_token", "stand-in-token-" + std::to_string(m_tokenGeneration)},
                     {"expires_in", 1800},
                     {"token_type", "bearer"}},
                {}};
    }
    if (authorization != "Bearer stand-in-token-" + QByteArray::number(m_tokenGeneration))
        return problemBody(401, "urn:ed-fi:api:security:authentication", "Authorization denied.");
    ++m_dataRequests;
    if (m_tokenLifetime > 0 && m_dataRequests % m_tokenLifetime == 0)
        ++m_tokenGeneration; // this request still passes; the next with the same token does not
    const QString changeQueries = QStringLiteral("/api/changeQueries/v1") + QString::fromStdString(m_route);
    if (path == changeQueries + "/availableChangeVersions")
        return {
            200, Json{{"OldestChangeVersion", 0}, {"NewestChangeVersion", m_version}}, {}}; // older spelling
    const QString data = QStringLiteral("/api") + QString::fromStdString(m_dataPath + m_route) + "/";
    if (path.startsWith(data))
        return this->data(method, path.mid(data.size()).split('/', Qt::SkipEmptyParts), query, body, ifMatch);
    return problemBody(404, "urn:ed-fi:api:not-found", "The specified data could not be found.");
}

// HTTP/1.1 with Content-Length bodies and keep-alive: what QNetworkAccessManager sends.
void OdsApiStandIn::readFrom(QTcpSocket *socket)
{
    QByteArray &buffer = m_buffers[socket];
    buffer += socket->readAll();
    for (;;) {
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        const QList<QByteArray> lines = buffer.left(end).split('\n');
        qsizetype length = 0;
        QByteArray authorization;
        QByteArray ifMatch;
        for (const QByteArray &line : lines.mid(1)) {
            const qsizetype colon = line.indexOf(':');
            const QByteArray name = line.left(colon).trimmed().toLower();
            if (name == "content-length")
                length = line.mid(colon + 1).trimmed().toLongLong();
            if (name == "authorization")
                authorization = line.mid(colon + 1).trimmed();
            if (name == "if-match")
                ifMatch = line.mid(colon + 1).trimmed();
        }
        if (buffer.size() < end + 4 + length)
            return;
        const QList<QByteArray> requestLine = lines[0].trimmed().split(' ');
        const QByteArray body = buffer.mid(end + 4, length);
        buffer.remove(0, end + 4 + length);
        const std::string method = requestLine[0].toStdString();
        const QByteArray sameRequest = lines[0].trimmed() + '\n' + body;
        if (auto pushedBack = m_tooManyAt.find(sameRequest); pushedBack != m_tooManyAt.end()) {
            m_waitsAfterTooMany.push_back(m_clock.elapsed() - pushedBack->second);
            m_tooManyAt.erase(pushedBack);
        }
        if (m_mostInFlight > 0 && m_held >= m_mostInFlight && requestLine[1].contains("/data/")) {
            ++m_tooMany;
            respond(socket, Answer{429, Json{{"detail", "Too many requests"}},
                                   {{"Retry-After", std::to_string(m_retryAfter)}}});
            m_tooManyAt[sameRequest] = m_clock.elapsed();
            continue;
        }
        const Answer result = answer(method, QUrl(QString::fromUtf8(requestLine[1])), authorization, body, ifMatch);
        const bool write = method == "POST" || method == "PUT" || method == "DELETE";
        if (m_cutEvery > 0 && write && result.status >= 200 && result.status < 300 &&
            requestLine[1].contains("/data/") && ++m_writesTaken % m_cutEvery == 0) {
            ++m_writesCut;
            m_buffers.erase(socket);
            socket->abort();
            return;
        }
        if (m_delayMost <= 0) {
            respond(socket, result);
            continue;
        }
        // A small linear congruential draw: the same seed, the same delays.
        m_delayState = m_delayState * 6364136223846793005ULL + 1442695040888963407ULL;
        const int delay = static_cast<int>((m_delayState >> 33) % static_cast<std::uint64_t>(m_delayMost + 1));
        m_mostHeld = std::max(m_mostHeld, ++m_held);
        QTimer::singleShot(delay, socket, [this, socket, result] {
            --m_held;
            respond(socket, result);
        });
    }
}

void OdsApiStandIn::setAnswerDelays(int maxMs, unsigned seed)
{
    m_delayMost = maxMs;
    m_delayState = seed;
}

void OdsApiStandIn::respond(QTcpSocket *socket, const Answer &result)
{
    QByteArray response = "HTTP/1.1 " + QByteArray::number(result.status) + " X\r\n";
    const QByteArray payload = result.body.is_null() ? QByteArray() : QByteArray::fromStdString(result.body.dump());
    if (!payload.isEmpty())
        response += "Content-Type: application/json; charset=utf-8\r\n";
    for (const auto &[name, value] : result.headers)
        response += QByteArray::fromStdString(name + ": " + value + "\r\n");
    response += "Content-Length: " + QByteArray::number(payload.size()) + "\r\n\r\n" + payload;
    socket->write(response);
}

RemoteOptions standInOptions(const std::string &url)
{
    RemoteOptions options;
    options.url = url;
    options.client = "district";
    options.secret = "s3cret";
    options.retries = 0;
    return options;
}

void seedServerDescriptors(OdsApiStandIn &server, Fixture &local)
{
    for (const ResourceSchema *resource : local.model().resources()) {
        if (!resource->isDescriptor)
            continue;
        for (const Json &item : local.call("GET", "/ed-fi/" + resource->endpointName + "?limit=500").body) {
            Json body = item;
            for (const char *field : {"id", "_etag", "_lastModifiedDate"})
                body.erase(field);
            server.upsert(resource->endpointName, body);
        }
    }
}

} // namespace steward::test
