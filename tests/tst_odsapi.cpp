// sync against a server that behaves like an Ed-Fi ODS/API 7.x, not like a second Steward: its URL
// layout under a path base (/api), a discovery document, a token endpoint that wants HTTP Basic,
// ids as 32 hex digits, 500-item pages, Change Queries with deletes and key changes, and its
// problem-details bodies. Pull, push, incremental pulls and year-specific routes run against it.
#include "Engine.h"
#include "Identity.h"
#include "LoadOrder.h"
#include "RemoteApi.h"
#include "Sync.h"
#include "SyncJobs.h"
#include "TestSupport.h"

#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QUrlQuery>

#include <SQLiteCpp/Database.h>

#include <map>
#include <memory>

using namespace steward;
using namespace steward::test;

namespace {

// One stored record of the stand-in: what ODS/API keeps per resource item for these clients.
struct OdsRecord
{
    std::string id; // 32 hex digits, as ODS/API writes ids
    std::string endpoint;
    Json body;
    Uuid referentialId;
    std::int64_t changeVersion = 0;
};

class OdsApiStandIn : public QObject
{
public:
    explicit OdsApiStandIn(const Model &model, std::string route = {})
        : m_model(model)
        , m_identity(model)
        , m_route(std::move(route))
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                QObject::connect(socket, &QTcpSocket::readyRead, this, [this, socket] { readFrom(socket); });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        m_server.listen(QHostAddress::LocalHost);
    }

    std::string base() const { return "http://127.0.0.1:" + std::to_string(m_server.serverPort()) + "/api"; }
    // Requests to the data API and Change Queries since the last reset.
    int dataRequests() const { return m_dataRequests; }
    void resetCounts() { m_dataRequests = 0; }
    const std::map<std::string, OdsRecord> &records() const { return m_records; }
    std::vector<const OdsRecord *> recordsOf(const std::string &endpoint) const
    {
        std::vector<const OdsRecord *> out;
        for (const auto &[id, record] : m_records)
            if (record.endpoint == endpoint)
                out.push_back(&record);
        return out;
    }
    std::string yearSpecificMode() const { return m_route.empty() ? "" : "Year Specific"; }

    // What the district changes on the server side between pulls.
    std::string upsert(const std::string &endpoint, const Json &body) { return store(endpoint, body, {}).second; }
    bool remove(const std::string &id)
    {
        auto it = m_records.find(id);
        if (it == m_records.end())
            return false;
        m_deletes.push_back({it->second.endpoint, Json{{"id", id},
                                                       {"changeVersion", ++m_version},
                                                       {"keyValues", keyValues(it->second)}}});
        m_records.erase(it);
        return true;
    }
    // A key change the way ODS/API records one: same id, new identity, a keyChanges entry.
    void changeKey(const std::string &id, const Json &newBody)
    {
        OdsRecord &record = m_records.at(id);
        const Json oldKeys = keyValues(record);
        record.body = newBody;
        const ResourceSchema *resource = resourceOf(record.endpoint);
        record.referentialId = m_identity.documentIdentity(*resource, newBody)->referentialId();
        record.changeVersion = ++m_version;
        m_keyChanges.push_back({record.endpoint, Json{{"id", id},
                                                      {"changeVersion", record.changeVersion},
                                                      {"oldKeyValues", oldKeys},
                                                      {"newKeyValues", keyValues(record)}}});
    }

private:
    struct Answer
    {
        int status = 200;
        Json body;
        std::vector<std::pair<std::string, std::string>> headers;
    };

    const ResourceSchema *resourceOf(const std::string &endpoint) const
    {
        return m_model.findByEndpoint("ed-fi", endpoint);
    }

    Json keyValues(const OdsRecord &record) const
    {
        return keyValuesOf(m_identity.identityObject(*resourceOf(record.endpoint), record.body));
    }

    static Answer problemBody(int status, const std::string &type, const std::string &detail,
                              const Json &validationErrors = Json::object())
    {
        return {status,
                Json{{"detail", detail},
                     {"type", type},
                     {"title", status == 404 ? "Not Found" : status == 409 ? "Conflict" : "Bad Request"},
                     {"status", status},
                     {"correlationId", "stand-in"},
                     {"validationErrors", validationErrors},
                     {"errors", Json::array()}},
                {}};
    }

    // Creates or updates by natural key, ODS/API's POST; returns (created, id).
    std::pair<bool, std::string> store(const std::string &endpoint, Json body, const std::string &id)
    {
        const ResourceSchema *resource = resourceOf(endpoint);
        const Uuid referentialId = m_identity.documentIdentity(*resource, body)->referentialId();
        for (auto &[existingId, record] : m_records) {
            if (record.referentialId == referentialId || existingId == id) {
                if (record.body != body) {
                    record.body = std::move(body);
                    record.changeVersion = ++m_version;
                }
                return {false, existingId};
            }
        }
        std::string newId = id;
        if (newId.empty())
            for (char c : Uuid::random().toString())
                if (c != '-')
                    newId += c;
        m_records[newId] = OdsRecord{newId, endpoint, std::move(body), referentialId, ++m_version};
        return {true, newId};
    }

    bool referencesResolve(const ResourceSchema &resource, const Json &body, Json &errors) const
    {
        for (const BodyReference &reference : m_identity.referencesIn(resource, body)) {
            if (reference.isDescriptor() || !reference.identity)
                continue;
            const Uuid target = reference.identity->referentialId();
            bool found = false;
            for (const auto &[id, record] : m_records) {
                const ResourceSchema *stored = resourceOf(record.endpoint);
                std::optional<DocumentIdentity> own = m_identity.documentIdentity(*stored, record.body);
                std::optional<DocumentIdentity> super = m_identity.superclassIdentity(*stored, *own);
                found = found || record.referentialId == target || (super && super->referentialId() == target);
            }
            if (!found)
                errors[reference.path].push_back("The referenced " + reference.targetResource()
                                                 + " resource does not exist.");
        }
        return errors.empty();
    }

    Answer page(const std::vector<Json> &items, const QUrlQuery &query)
    {
        const std::int64_t offset = query.queryItemValue("offset").toLongLong();
        const std::int64_t limit = query.hasQueryItem("limit") ? query.queryItemValue("limit").toLongLong() : 500;
        if (limit > 500)
            return problemBody(400, "urn:ed-fi:api:bad-request:parameter-validation-failed",
                               "The request construction was invalid.");
        Answer answer;
        answer.body = Json::array();
        for (std::size_t i = static_cast<std::size_t>(offset); i < items.size() && answer.body.size() < std::size_t(limit);
             ++i)
            answer.body.push_back(items[i]);
        if (query.queryItemValue("totalCount") == QLatin1String("true"))
            answer.headers.emplace_back("Total-Count", std::to_string(items.size()));
        return answer;
    }

    bool inWindow(std::int64_t version, const QUrlQuery &query) const
    {
        const bool hasMin = query.hasQueryItem("minChangeVersion");
        const bool hasMax = query.hasQueryItem("maxChangeVersion");
        return (!hasMin || version >= query.queryItemValue("minChangeVersion").toLongLong())
               && (!hasMax || version <= query.queryItemValue("maxChangeVersion").toLongLong());
    }

    Answer feed(const std::vector<std::pair<std::string, Json>> &entries, const std::string &endpoint,
                const QUrlQuery &query)
    {
        std::vector<Json> items;
        for (const auto &[entryEndpoint, entry] : entries)
            if (entryEndpoint == endpoint && inWindow(entry["changeVersion"].get<std::int64_t>(), query))
                items.push_back(entry);
        return page(items, query);
    }

    Answer data(const std::string &method, const QStringList &segments, const QUrlQuery &query, const QByteArray &body)
    {
        // segments: ed-fi, endpoint[, id | deletes | keyChanges]
        if (segments.size() < 2 || segments[0] != QLatin1String("ed-fi") || !resourceOf(segments[1].toStdString()))
            return problemBody(404, "urn:ed-fi:api:not-found", "The specified data could not be found.");
        const std::string endpoint = segments[1].toStdString();
        const ResourceSchema *resource = resourceOf(endpoint);
        if (segments.size() == 3 && segments[2] == QLatin1String("deletes"))
            return feed(m_deletes, endpoint, query);
        if (segments.size() == 3 && segments[2] == QLatin1String("keyChanges"))
            return feed(m_keyChanges, endpoint, query);
        if (method == "GET" && segments.size() == 2) {
            std::vector<Json> items;
            for (const auto &[id, record] : m_records) {
                if (record.endpoint != endpoint || !inWindow(record.changeVersion, query))
                    continue;
                bool matches = true;
                for (const auto &[name, value] : query.queryItems()) {
                    if (resource->queryFields.count(toLower(name.toStdString())) == 0)
                        continue;
                    const Json keys = keyValues(record);
                    const auto key = keys.find(name.toStdString());
                    matches = matches && key != keys.end()
                              && (key->is_string() ? key->get<std::string>() == value.toStdString()
                                                   : key->dump() == value.toStdString());
                }
                if (!matches)
                    continue;
                Json item = record.body;
                item["id"] = id;
                item["_etag"] = std::to_string(record.changeVersion);
                items.push_back(std::move(item));
            }
            return page(items, query);
        }
        if (method == "POST" || method == "PUT") {
            Json document = Json::parse(body.toStdString(), nullptr, false);
            document.erase("id");
            Json errors = Json::object();
            if (!referencesResolve(*resource, document, errors))
                return problemBody(409, "urn:ed-fi:api:data-conflict:unresolved-reference",
                                   "The referenced item(s) do not exist.", errors);
            const std::string id = segments.size() == 3 ? segments[2].toStdString() : std::string();
            if (!id.empty() && m_records.count(id) == 0)
                return problemBody(404, "urn:ed-fi:api:not-found", "The specified data could not be found.");
            const auto [created, storedId] = store(endpoint, document, id);
            Answer answer;
            answer.status = method == "PUT" ? 204 : created ? 201 : 200;
            answer.body = nullptr;
            answer.headers.emplace_back("Location", base() + "/data/v3" + m_route + "/ed-fi/" + endpoint + "/" + storedId);
            return answer;
        }
        if (method == "DELETE" && segments.size() == 3) {
            if (!remove(segments[2].toStdString()))
                return problemBody(404, "urn:ed-fi:api:not-found", "The specified data could not be found.");
            return {204, nullptr, {}};
        }
        return problemBody(405, "urn:ed-fi:api:method-not-allowed", "Method not allowed.");
    }

    Answer answer(const std::string &method, const QUrl &url, const QByteArray &authorization, const QByteArray &body)
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
                             {"dataManagementApi", base() + "/data/v3/"},
                             {"xsdMetadata", base() + "/metadata/xsd"},
                             {"changeQueries", base() + "/changeQueries/v1/"}}}};
            if (!m_route.empty())
                discovery["apiMode"] = yearSpecificMode();
            return {200, discovery, {}};
        }
        if (path == QLatin1String("/api/oauth/token")) {
            // The Data Management Service and ODS/API both take HTTP Basic; this one takes nothing else.
            if (!authorization.startsWith("Basic ") || !body.contains("grant_type=client_credentials"))
                return {401, Json{{"error", "invalid_client"}}, {}};
            return {200, Json{{"access_token", "stand-in-token"}, {"expires_in", 1800}, {"token_type", "bearer"}}, {}};
        }
        if (authorization != "Bearer stand-in-token")
            return problemBody(401, "urn:ed-fi:api:security:authentication", "Authorization denied.");
        ++m_dataRequests;
        const QString changeQueries = QStringLiteral("/api/changeQueries/v1") + QString::fromStdString(m_route);
        if (path == changeQueries + "/availableChangeVersions")
            return {200, Json{{"OldestChangeVersion", 0}, {"NewestChangeVersion", m_version}}, {}}; // older spelling
        const QString data = QStringLiteral("/api/data/v3") + QString::fromStdString(m_route) + "/";
        if (path.startsWith(data))
            return this->data(method, path.mid(data.size()).split('/', Qt::SkipEmptyParts), query, body);
        return problemBody(404, "urn:ed-fi:api:not-found", "The specified data could not be found.");
    }

    // HTTP/1.1 with Content-Length bodies and keep-alive: what QNetworkAccessManager sends.
    void readFrom(QTcpSocket *socket)
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
            for (const QByteArray &line : lines.mid(1)) {
                const qsizetype colon = line.indexOf(':');
                const QByteArray name = line.left(colon).trimmed().toLower();
                if (name == "content-length")
                    length = line.mid(colon + 1).trimmed().toLongLong();
                if (name == "authorization")
                    authorization = line.mid(colon + 1).trimmed();
            }
            if (buffer.size() < end + 4 + length)
                return;
            const QList<QByteArray> requestLine = lines[0].trimmed().split(' ');
            const QByteArray body = buffer.mid(end + 4, length);
            buffer.remove(0, end + 4 + length);
            const Answer result = answer(requestLine[0].toStdString(), QUrl(QString::fromUtf8(requestLine[1])),
                                         authorization, body);
            QByteArray response = "HTTP/1.1 " + QByteArray::number(result.status) + " X\r\n";
            const QByteArray payload = result.body.is_null() ? QByteArray() : QByteArray::fromStdString(result.body.dump());
            if (!payload.isEmpty())
                response += "Content-Type: application/json; charset=utf-8\r\n";
            for (const auto &[name, value] : result.headers)
                response += QByteArray::fromStdString(name + ": " + value + "\r\n");
            response += "Content-Length: " + QByteArray::number(payload.size()) + "\r\n\r\n" + payload;
            socket->write(response);
        }
    }

    const Model &m_model;
    IdentityCalculator m_identity;
    std::string m_route; // "/2026" for a year-specific API
    QTcpServer m_server;
    std::map<QTcpSocket *, QByteArray> m_buffers;
    std::map<std::string, OdsRecord> m_records;
    std::vector<std::pair<std::string, Json>> m_deletes;
    std::vector<std::pair<std::string, Json>> m_keyChanges;
    std::int64_t m_version = 0;
    int m_dataRequests = 0;
};

RemoteOptions optionsFor(const std::string &url)
{
    RemoteOptions options;
    options.url = url;
    options.client = "district";
    options.secret = "s3cret";
    options.retries = 0;
    return options;
}

// The descriptors Fixture::seedDescriptors stores, on the server.
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

std::int64_t countOf(Fixture &f, const std::string &endpoint)
{
    return std::stoll(f.call("GET", "/ed-fi/" + endpoint + "?limit=0&totalCount=true").header("Total-Count"));
}

} // namespace

class TestOdsApi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pullThenIncrementalPulls()
    {
        Fixture seed;
        seed.seedDescriptors();
        OdsApiStandIn server(seed.model());
        seedServerDescriptors(server, seed);
        server.upsert("schools", Fixture::school(100));
        server.upsert("schoolYearTypes", Fixture::schoolYear(2022));
        const std::string session = server.upsert("sessions", Fixture::session(100, 2022, "Fall"));
        // More than one page of 500.
        for (int i = 0; i < 1100; ++i)
            server.upsert("courses", Fixture::course("C-" + std::to_string(i), 100));
        const std::string doomed = server.upsert("courses", Fixture::course("DOOMED", 100));

        Fixture local;
        RemoteApi remote(optionsFor(server.base()));
        std::string error;
        QVERIFY2(remote.connect(&error), error.c_str());
        QVERIFY(remote.hasChangeQueries());
        PullReport first = runPull(local.engine(), local.database(), remote, "district");
        QVERIFY2(first.outcome.completed, first.outcome.error.c_str());
        QVERIFY(!first.incremental);
        QCOMPARE(countOf(local, "courses"), std::int64_t(1101));
        QCOMPARE(first.outcome.totals.drafts, std::int64_t(0));
        QVERIFY(first.pages >= 3 + 3); // courses alone take three pages

        // Nothing changed: one look at the change versions and no resource is read.
        server.resetCounts();
        PullReport idle = runPull(local.engine(), local.database(), remote, "district");
        QVERIFY(idle.outcome.completed && idle.incremental);
        QCOMPARE(server.dataRequests(), 1);

        // The district renames a school, renames the session (a key change), deletes a course.
        server.upsert("schools", Fixture::school(100, "Renamed High"));
        server.changeKey(session, Fixture::session(100, 2022, "Autumn"));
        QVERIFY(server.remove(doomed));
        server.resetCounts();
        PullReport second = runPull(local.engine(), local.database(), remote, "district");
        QVERIFY2(second.outcome.completed, second.outcome.error.c_str());
        QVERIFY(second.incremental);
        QCOMPARE(second.outcome.totals.updated, std::int64_t(2));
        QCOMPARE(second.outcome.totals.created, std::int64_t(0));
        QCOMPARE(second.deleted, 1);
        QCOMPARE(second.keyChanges, 1);
        // One request per resource for its changes and one for its deletes (key changes only where
        // identities may change), not one per page of everything.
        const int resources = static_cast<int>(local.model().resources().size());
        QVERIFY2(server.dataRequests() <= 2 * resources + 12, qPrintable(QString::number(server.dataRequests())));
        QCOMPARE(second.requests, server.dataRequests());
        // The 1,101 courses took three pages the first time; their one change now takes one request.
        QVERIFY(first.pages >= resources + 2);
        QVERIFY(second.pages <= resources);

        QCOMPARE(countOf(local, "courses"), std::int64_t(1100));
        QCOMPARE(local.call("GET", "/ed-fi/schools?schoolId=100").body[0]["nameOfInstitution"].get<std::string>(),
                 std::string("Renamed High"));
        // The session moved (one document, its new name), it was not copied.
        const Json sessions = local.call("GET", "/ed-fi/sessions").body;
        QCOMPARE(sessions.size(), std::size_t(1));
        QCOMPARE(sessions[0]["sessionName"].get<std::string>(), std::string("Autumn"));
        QVERIFY(local.engine().check().clean());
    }

    void pushIntoAnOdsApi()
    {
        Fixture local;
        local.seedDescriptors();
        OdsApiStandIn server(local.model());
        seedServerDescriptors(server, local);
        local.create("/ed-fi/schools", Fixture::school(300));
        local.create("/ed-fi/courses", Fixture::course("ALG-1", 300));
        // A course whose school the server will not have: pushed before the school would be refused.
        RemoteApi remote(optionsFor(server.base()));
        std::string error;
        QVERIFY2(remote.connect(&error), error.c_str());
        PushReport pushed = runPush(local.database(), local.model(), remote, "district");
        QVERIFY2(pushed.completed, pushed.error.c_str());
        QCOMPARE(pushed.refused, 0);
        QCOMPARE(server.recordsOf("schools").size(), std::size_t(1));
        QCOMPARE(server.recordsOf("courses").size(), std::size_t(1));

        // A delete travels to the server's id, which is spelled without hyphens.
        const std::string courseId = local.call("GET", "/ed-fi/courses").body[0]["id"].get<std::string>();
        QCOMPARE(local.call("DELETE", "/ed-fi/courses/" + courseId).status, 204);
        PushReport deleted = runPush(local.database(), local.model(), remote, "district");
        QVERIFY2(deleted.completed && deleted.refused == 0, deleted.toJson().dump().c_str());
        QCOMPARE(server.recordsOf("courses").size(), std::size_t(0));
    }

    void yearSpecificRoutes()
    {
        Fixture seed;
        seed.seedDescriptors();
        OdsApiStandIn server(seed.model(), "/2026");
        seedServerDescriptors(server, seed);
        server.upsert("schools", Fixture::school(400));

        // The base address alone does not say which year: a clear error, not an empty pull.
        RemoteApi bare(optionsFor(server.base()));
        std::string error;
        QVERIFY(!bare.connect(&error));
        QVERIFY2(QString::fromStdString(error).contains("Year Specific"), error.c_str());

        Fixture local;
        RemoteApi year(optionsFor(server.base() + "/data/v3/2026/"));
        QVERIFY2(year.connect(&error), error.c_str());
        PullReport pulled = runPull(local.engine(), local.database(), year, "district");
        QVERIFY2(pulled.outcome.completed, pulled.outcome.error.c_str());
        QCOMPARE(countOf(local, "schools"), std::int64_t(1));
        QVERIFY(pulled.changeVersion.has_value()); // Change Queries were found under the year's route
    }
};

QTEST_GUILESS_MAIN(TestOdsApi)
#include "tst_odsapi.moc"
