#pragma once

// A server that behaves like an Ed-Fi ODS/API 7.x for sync tests, not like a second Steward: its URL
// layout under a path base (/api), a discovery document, a token endpoint that wants HTTP Basic, ids
// as 32 hex digits, 500-item pages, Change Queries with deletes and key changes, ETags (the body's
// _etag, quoted in the ETag header) and If-Match on PUT, POST (when it would update) and DELETE,
// answered with 412 urn:ed-fi:api:optimistic-lock-failed, and ODS/API's problem-details bodies.

#include "ApiSchema.h"
#include "Identity.h"
#include "Json.h"
#include "RemoteApi.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QSslConfiguration>
#include <QStringList>
#include <QTcpServer>
#include <QUrlQuery>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

class QTcpSocket;

namespace steward::test {

// One stored record of the stand-in: what ODS/API keeps per resource item for these clients.
struct OdsRecord
{
    std::string id; // 32 hex digits, as ODS/API writes ids
    std::string endpoint;
    Json body;
    Uuid referentialId;
    std::int64_t changeVersion = 0; // also its etag
};

class OdsApiStandIn : public QObject
{
public:
    // route: "/2026" for a year-specific API. apiMode: what the discovery document says (none by default).
    explicit OdsApiStandIn(const Model &model, std::string route = {}, std::string apiMode = {});

    std::string base() const;
    // From now on it listens (on another port) for TLS only, with this certificate and key: base()
    // names https. For sync over TLS with a district's own authority.
    void serveTls(const QSslConfiguration &configuration);
    // Requests to the data API and Change Queries since the last reset.
    int dataRequests() const { return m_dataRequests; }
    void resetCounts() { m_dataRequests = 0; }
    const std::map<std::string, OdsRecord> &records() const { return m_records; }
    std::vector<const OdsRecord *> recordsOf(const std::string &endpoint) const;
    // The record of that endpoint with this identity (the identity's values in a body), or null.
    const OdsRecord *find(const std::string &endpoint, const Json &identityBody) const;

    // A target that gives no ETags and ignores If-Match, as some older APIs do.
    void setGivesEtags(bool gives) { m_givesEtags = gives; }
    // A target that answers 412 to a POST with If-Match that would insert (the Data Management Service,
    // 2026).
    void setRefusesIfMatchOnInsert(bool refuses) { m_ifMatchInsertRefused = refuses; }
    // A target that refuses a PUT whose body lacks the route's id, as Meadowlark and the Data Management
    // Service do (ODS/API accepts the id there and ignores it).
    void setPutNeedsId(bool needs) { m_putNeedsId = needs; }
    // A target that upserts by natural key whatever If-Match says (Meadowlark): a POST of an identity it has
    // replaces that record and answers 200.
    void setPostIgnoresIfMatch(bool ignores) { m_postIgnoresIfMatch = ignores; }
    // What the discovery document says the server is ("3" is the ODS/API's; other servers name their own).
    void setSuite(std::string suite) { m_suite = std::move(suite); }
    // A target whose queries fail (Meadowlark without its search engine): GETs with query fields answer 500 with no body.
    void setAnswersQueries(bool answers) { m_answersQueries = answers; }
    // Every POST and PUT of this endpoint refused 400 "Invalid resource" (a resource the target's data
    // standard shapes otherwise).
    void refuseEndpoint(const std::string &endpoint, bool refuse = true)
    {
        if (refuse)
            m_refusedEndpoints.insert(endpoint);
        else
            m_refusedEndpoints.erase(endpoint);
    }
    // A network fault: every `every`-th write the stand-in takes (a 2xx POST, PUT or DELETE) is applied
    // and then the connection is cut before the answer goes out (0: never). The client cannot tell
    // whether the write landed; its retry must not make it land twice or look like a conflict.
    void setCutAfterWrites(int every) { m_cutEvery = every; }
    // Answers out of order: each request is taken when it arrives and its answer held back 0 to maxMs
    // milliseconds (drawn from seed), so that answers to requests sent together come back shuffled.
    void setAnswerDelays(int maxMs, unsigned seed = 1);
    // A target with a limit: a data request that arrives while `most` answers are held back is answered
    // 429 with Retry-After (seconds), and not taken (0: no limit).
    void setMostInFlight(int most, int retryAfterSeconds = 1)
    {
        m_mostInFlight = most;
        m_retryAfter = retryAfterSeconds;
    }
    int tooManyRequests() const { return m_tooMany; }
    // For each request answered 429 and sent again: milliseconds from the 429 going out to the same
    // request (method, target and body) coming back. What the client waited, at least.
    const std::vector<qint64> &waitsAfterTooMany() const { return m_waitsAfterTooMany; }
    // Tokens that expire: after every `dataRequests` data requests the token issued is refused (401).
    void setTokenLifetime(int dataRequests) { m_tokenLifetime = dataRequests; }
    int tokensIssued() const { return m_tokensIssued; }
    // The most answers held back at once (setAnswerDelays) since the last resetMostHeld().
    int mostHeldAtOnce() const { return m_mostHeld; }
    void resetMostHeld() { m_mostHeld = 0; }
    int writesCut() const { return m_writesCut; }
    // Data under another path than /data/v3 and no Change Queries, as Meadowlark serves it ("/v3.3b").
    void setDataPath(std::string path) { m_dataPath = std::move(path); }

    // What the district changes on the server side between pulls: an upsert by natural key.
    std::string upsert(const std::string &endpoint, const Json &body);
    bool remove(const std::string &id);
    // A key change the way ODS/API records one: same id, new identity, a keyChanges entry.
    void changeKey(const std::string &id, const Json &newBody);

private:
    struct Answer
    {
        int status = 200;
        Json body;
        std::vector<std::pair<std::string, std::string>> headers;
    };

    const ResourceSchema *resourceOf(const std::string &endpoint) const;
    Json keyValues(const OdsRecord &record) const;
    static Answer problemBody(int status, const std::string &type, const std::string &detail,
                              const Json &validationErrors = Json::object());
    static Answer lockFailed();
    // Creates or updates by natural key (id: the record a PUT names); returns (created, id).
    std::pair<bool, std::string> store(const std::string &endpoint, Json body, const std::string &id);
    // Adds a record to the look-ups below (delta +1) or takes it out (-1).
    void index(const OdsRecord &record, int delta);
    bool referencesResolve(const ResourceSchema &resource, const Json &body, Json &errors) const;
    Answer page(const std::vector<Json> &items, const QUrlQuery &query);
    bool inWindow(std::int64_t version, const QUrlQuery &query) const;
    Answer feed(const std::vector<std::pair<std::string, Json>> &entries, const std::string &endpoint,
                const QUrlQuery &query);
    Json served(const OdsRecord &record) const;
    // Whether If-Match (when sent) names the record's current version, as ODS/API compares it.
    bool ifMatchHolds(const QByteArray &ifMatch, const OdsRecord &record) const;
    Answer data(const std::string &method, const QStringList &segments, const QUrlQuery &query,
                const QByteArray &body, const QByteArray &ifMatch);
    Answer answer(const std::string &method, const QUrl &url, const QByteArray &authorization,
                  const QByteArray &body, const QByteArray &ifMatch);
    void readFrom(QTcpSocket *socket);
    void respond(QTcpSocket *socket, const Answer &result);

    const Model &m_model;
    IdentityCalculator m_identity;
    std::string m_route;
    std::string m_apiMode;
    void listen(std::unique_ptr<QTcpServer> server);

    std::unique_ptr<QTcpServer> m_server;
    bool m_tls = false;
    std::map<QTcpSocket *, QByteArray> m_buffers;
    std::map<std::string, OdsRecord> m_records;
    // Every record by endpoint and referential id, and how many records a reference's referential id
    // finds (a subclass's superclass identity too): a district of 100,000 records is not read whole
    // for each write and each reference it holds.
    std::map<std::pair<std::string, Uuid>, std::string> m_byIdentity;
    std::map<Uuid, int> m_answering;
    std::vector<std::pair<std::string, Json>> m_deletes;
    std::vector<std::pair<std::string, Json>> m_keyChanges;
    std::int64_t m_version = 0;
    int m_dataRequests = 0;
    bool m_givesEtags = true;
    std::string m_dataPath = "/data/v3";
    bool m_ifMatchInsertRefused = false;
    bool m_putNeedsId = false;
    bool m_postIgnoresIfMatch = false;
    bool m_answersQueries = true;
    std::string m_suite;
    std::set<std::string> m_refusedEndpoints;
    int m_delayMost = 0;
    std::uint64_t m_delayState = 1;
    int m_held = 0;
    int m_mostHeld = 0;
    int m_mostInFlight = 0;
    int m_retryAfter = 1;
    int m_tooMany = 0;
    QElapsedTimer m_clock;
    std::map<QByteArray, qint64> m_tooManyAt; // a request answered 429 → when
    std::vector<qint64> m_waitsAfterTooMany;
    int m_tokenLifetime = 0;
    int m_tokenGeneration = 1;
    int m_tokensIssued = 0;
    int m_cutEvery = 0;
    int m_writesTaken = 0;
    int m_writesCut = 0;
};

class Fixture;

// A client of the stand-in: its credentials, no retries.
RemoteOptions standInOptions(const std::string &url);
// The descriptors a fixture stores (Fixture::seedDescriptors), on the server.
void seedServerDescriptors(OdsApiStandIn &server, Fixture &local);

} // namespace steward::test
