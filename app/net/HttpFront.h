#pragma once

#include "AccessControl.h"
#include "ConnectionGuard.h"
#include "Protocol.h"

#include <QAbstractHttpServer>
#include <QByteArray>
#include <QHostAddress>

#include <optional>
#include <string>

namespace steward {

class ApiClients;
class Engine;

// The HTTP carrier of the request protocol (`steward-cli serve`): one handler routes every request.
//   GET  /                        discovery document (no token needed)
//   POST /oauth/token             OAuth2 client credentials against api_clients
//   GET  /metadata/dependencies   the load order, Ed-Fi's shape
//   *    /{project}/{resource}[/{id}]   Engine::handle, answered byte for byte like the NDJSON carrier
// Connections pass through GuardedTcpServer/ConnectionGuard first (limits, timeouts, caps).
class HttpFront : public QAbstractHttpServer
{
    Q_OBJECT

public:
    HttpFront(Engine &engine, ApiClients &clients, const ServeLimits &limits, QObject *parent = nullptr);
    ~HttpFront() override;

    // Listens on the address; false with the reason when it cannot.
    bool start(const QHostAddress &address, quint16 port, QString *error);
    quint16 port() const;

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    Response route(const QHttpServerRequest &request, QTcpSocket *socket, const std::string &method);
    Response discovery(const QHttpServerRequest &request, QTcpSocket *socket) const;
    Response issueToken(const QHttpServerRequest &request, QTcpSocket *socket);
    Response dataRequest(const QHttpServerRequest &request, const std::string &method,
                         const std::string &client);
    // The client a bearer token belongs to, or the 401 that says why not.
    std::optional<std::string> authenticate(const QHttpServerRequest &request, Response &refusal);
    void send(const QHttpServerRequest &request, QTcpSocket *socket, const Response &response, bool close);

    Engine &m_engine;
    ApiClients &m_clients;
    ServeLimits m_limits;
    AccessTokens m_tokens;
    RateLimiter m_requestRates;
    RateLimiter m_tokenRates;
    Json m_dependencies;
    GuardedTcpServer *m_server = nullptr;
};

} // namespace steward
