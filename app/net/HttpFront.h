#pragma once

#include "AccessControl.h"
#include "ConnectionGuard.h"
#include "Protocol.h"

#include <QAbstractHttpServer>
#include <QByteArray>
#include <QHostAddress>
#include <QPointer>
#include <QSslConfiguration>
#include <QTcpSocket>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace steward {

class ApiClients;
class Engine;
class WriteGroup;

// The HTTP carrier of the request protocol (`steward-cli serve`): one handler routes every request.
// The URL layout is ODS/API 7.x's, so its clients work unmodified:
//   GET  /                        discovery document (no token needed)
//   POST /oauth/token             OAuth2 client credentials against api_clients; POST /oauth/token_info
//   GET  /metadata/...            OpenAPI documents, dependencies (the load order), xsd (no token needed)
//   GET  /changeQueries/v1/availableChangeVersions
//   *    /data/v3/{project}/{resource}[/{id}|/deletes|/keyChanges]   Engine::handle, answered byte for
//                                 byte like the NDJSON carrier (Location made absolute); the same paths
//                                 without /data/v3 are kept as aliases
// Connections pass through GuardedTcpServer/ConnectionGuard first (limits, timeouts, caps).
// Reads are answered here, on the serving thread; writes go to a WriteGroup (its own connection and
// thread, commits shared by the writes that wait together) and are answered when it has committed.
// A connection with a write in flight has its later requests queued behind it, so that its
// answers keep their order.
class HttpFront : public QAbstractHttpServer
{
    Q_OBJECT

public:
    HttpFront(Engine &engine, ApiClients &clients, const ServeLimits &limits, QObject *parent = nullptr);
    ~HttpFront() override;

    // Listens on the address (over TLS with `tls`, when given); false with the reason when it cannot.
    bool start(const QHostAddress &address, quint16 port, QString *error,
               const std::optional<QSslConfiguration> &tls = std::nullopt);
    quint16 port() const;

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    Response route(const QHttpServerRequest &request, QTcpSocket *socket, const std::string &method);
    // "https://host:port" (or http: on a connection without TLS) as the client addressed this server.
    std::string baseUrl(const QHttpServerRequest &request, QTcpSocket *socket) const;
    Response discovery(const QHttpServerRequest &request, QTcpSocket *socket) const;
    Response metadata(const QHttpServerRequest &request, QTcpSocket *socket, const QString &path);
    Response issueToken(const QHttpServerRequest &request, QTcpSocket *socket);
    Response tokenInfo(const QHttpServerRequest &request);
    // The request's path less its first prefixLength characters (/data/v3) is the protocol path.
    Response dataRequest(const QHttpServerRequest &request, QTcpSocket *socket, const std::string &method,
                         const std::string &client, int prefixLength);
    // Hands the pending writes to the writer, when it is free.
    void dispatchWrites();
    void answerWrites(const std::vector<Response> &responses);
    // The client a bearer token belongs to, or the 401 that says why not.
    std::optional<std::string> authenticate(const QHttpServerRequest &request, Response &refusal);
    void send(const QHttpServerRequest &request, QTcpSocket *socket, const Response &response, bool close);

    // A request that goes to the writer, and what its answer needs once it is written.
    struct DeferredRequest
    {
        Request call;
        QPointer<QTcpSocket> socket;
        QTcpSocket *waitingKey = nullptr; // its entry in m_socketsWaiting, even once the socket is gone
        std::string locationPrefix; // made absolute: the base address and /data/v3 the client used
        bool close = false;
    };

    Engine &m_engine;
    ApiClients &m_clients;
    ServeLimits m_limits;
    AccessTokens m_tokens;
    RateLimiter m_requestRates;
    RateLimiter m_tokenRates;
    Json m_dependencies;
    std::map<std::string, Json> m_openApiCache; // generated documents by section and base address
    GuardedTcpServer *m_server = nullptr;
    std::unique_ptr<WriteGroup> m_writer;
    std::optional<Request> m_deferredCall; // set by dataRequest when the writer is to answer
    std::string m_deferredLocationPrefix;
    std::vector<DeferredRequest> m_pendingWrites;
    std::vector<DeferredRequest> m_inFlight;
    std::multiset<QTcpSocket *> m_socketsWaiting; // one entry per deferred request not yet answered
};

} // namespace steward
