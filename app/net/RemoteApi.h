#pragma once

#include "HttpCarrier.h"
#include "Json.h"
#include "RemoteExchange.h"

#include <QByteArray>
#include <QUrl>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace steward {

struct RemoteOptions
{
    std::string url;    // the API's base address: its discovery document, or where data paths start
    std::string client; // OAuth client id (Ed-Fi "key")
    std::string secret;
    int timeoutMs = 30000;
    int retries = 4;          // for 5xx, timeouts and refused connections
    int firstBackoffMs = 500; // doubled each retry
    // The district's own certificate authority (PEM), trusted in place of the system's list.
    std::string caCertFile;
    // Plain HTTP to another machine, asked for by name (--plain-http); otherwise http:// is for this
    // machine only.
    bool plainHttp = false;
};

// Why a sync may not go to this address, or an empty text: http:// to a host that is not this
// machine (a loopback address literal or localhost) unless plainHttp, and credentials in the address.
// Decided from the text alone, before any name lookup or connection.
std::string addressProblem(const std::string &url, bool plainHttp);
// Why the certificate authority file cannot be used (unreadable, no PEM certificate in it), or an
// empty text.
std::string caCertificateProblem(const std::string &path);

// An Ed-Fi API reached over HTTP with OAuth2 client credentials. send() and the rest wait for their
// answer on the calling thread, so they belong on a worker thread in the app and on the main thread
// of steward-cli; start() is for many requests at once (RequestPool).
class RemoteApi
{
public:
    explicit RemoteApi(RemoteOptions options);

    // Reads the discovery document (for the token and data addresses) and gets a token.
    bool connect(std::string *error);
    // pathAndQuery is relative to the data API ("/ed-fi/schools?limit=500"). Transient failures
    // are retried with backoff; a 401 gets one new token and one more try. ifMatch, when given, is
    // sent as the If-Match header, quoted (an etag as a document's _etag spells it).
    RemoteResponse send(const std::string &method, const std::string &pathAndQuery, const QByteArray &body = {},
                        const std::string &ifMatch = {});
    // Whether the discovery document named Change Queries; then pathAndQuery relative to them
    // ("/availableChangeVersions"), with the data address's year or instance route applied.
    bool hasChangeQueries() const { return !m_changeQueries.isEmpty(); }
    RemoteResponse sendChangeQueries(const std::string &pathAndQuery);
    // For many requests at once (RequestPool): a data-API request carried by `carrier` (the caller's),
    // its answer handed to `answered` on `receiver`'s thread. No retries here; a 401 asks for renewToken().
    void start(HttpCarrier &carrier, const RemoteRequest &request, QObject *receiver,
               HttpCarrier::Answered answered) const;
    // A new token (after a 401); false when the token endpoint gave none.
    bool renewToken();
    // Counts the tokens got: a request started with an older one than the current needs no renewal.
    int tokenGeneration() const { return m_tokenGeneration; }
    const RemoteOptions &options() const { return m_options; }
    // Between retries; tests shorten it.
    void setSleep(std::function<void(int ms)> sleep) { m_sleep = std::move(sleep); }

    const std::string &url() const { return m_options.url; }
    // What the discovery document says the server is: "ODS/API 7.1 (suite 3)", "Steward 7.3 (suite 3)"; empty
    // when it gave none.
    const std::string &serverName() const { return m_serverName; }
    // Whether the discovery document names an ODS/API of version 7 or later (suite "3", which the Ed-Fi API
    // guidelines keep for the ODS/API), whose upsert refuses a POST with If-Match that would update a
    // record of the same identity.
    bool promisesIfMatchOnCreate() const { return m_promisesIfMatchOnCreate; }

private:
    // authorization: sent as the Authorization header when there is no token to send.
    RemoteResponse sendOnce(const std::string &method, const QUrl &url, const QByteArray &body,
                            const QByteArray &contentType, bool withToken, const QByteArray &authorization = {},
                            const std::string &ifMatch = {});
    // sendOnce, again with backoff while the answer is transient (discovery and token requests).
    RemoteResponse sendWithRetries(const std::string &method, const QUrl &url, const QByteArray &body,
                                   const QByteArray &contentType, bool withToken,
                                   const QByteArray &authorization = {});
    bool fetchToken(std::string *error);
    HttpCall prepare(const std::string &method, const QUrl &url, const QByteArray &body,
                     const QByteArray &contentType, bool withToken, const QByteArray &authorization,
                     const std::string &ifMatch) const;
    // A data-API call: the token, one renewal on 401, waits on 429, retries while transient.
    RemoteResponse sendAuthorized(const std::string &method, const QUrl &url, const QByteArray &body,
                                  const std::string &ifMatch = {});
    // The discovery document at the address or, when it answers none, at the nearest address above it.
    RemoteResponse discover(const QUrl &address, QUrl *root);

    RemoteOptions m_options;
    HttpCarrier m_carrier; // for the calls that wait for their answer
    QUrl m_root;     // where the discovery document is
    QUrl m_dataBase; // where data paths start
    QString m_route; // "/2026" or "/instance/2026" when the address named a year-specific data route
    bool m_dataAddressGiven = false;
    QUrl m_changeQueries;
    std::string m_serverName;
    bool m_promisesIfMatchOnCreate = false;
    QUrl m_tokenUrl;
    QByteArray m_token;
    int m_tokenGeneration = 0;
    std::function<void(int)> m_sleep;
};

// Whether an ODS/API in this apiMode ("SharedInstance", "Year Specific", "DistrictSpecific", ...)
// puts its data under a route that its data address must name.
bool apiModeNeedsRoute(const std::string &apiMode);

} // namespace steward
