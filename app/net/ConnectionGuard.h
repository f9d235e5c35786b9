#pragma once

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSslConfiguration>
#include <QTcpServer>
#include <QTimer>

#include <optional>
#include <string>
#include <utility>
#include <vector>

class QSslSocket;
class QTcpSocket;

namespace steward {

// What one connection, one peer or one client may cost `steward-cli serve`.
struct ServeLimits
{
    int maxHeaderBytes = 16 * 1024;        // request line and headers together; beyond: 431
    int maxHeaderFields = 100;             // beyond: 431
    qint64 maxBodyBytes = 8 * 1024 * 1024; // a larger Content-Length: 413 before the body is read
    int requestTimeoutMs = 15000;          // from a request's first byte (or the connection) to its last: 408
    int idleTimeoutMs = 60000;             // a kept-alive connection with no new request is closed
    int lingerMs = 2000;                   // after a refusal, input is discarded this long before closing
    int maxConnections = 128;              // beyond: 503
    int maxConnectionsPerPeer = 32;        // beyond: 503
    int requestsPerMinute = 6000;          // data requests per client (bursts as large): 429
    // Whether that rate holds for clients on this machine too. By default it does not: a local bulk
    // load (8 connections of a loader) would spend its time in 429s, and loopback floods nobody else.
    bool limitLoopback = false;
    int tokenRequestsPerMinute = 120;      // POST /oauth/token per peer address (each one hashes): 429
    int tokenLifetimeSeconds = 1800;
};

class GuardedTcpServer;

// Sees each connection's bytes before QAbstractHttpServer does (over TLS, the decrypted bytes: a
// QSslSocket's readyRead, peek and bytesAvailable are those of the plaintext). Qt 6.4's parser buffers whatever a
// client announces, waits forever for the rest and drops bad request lines without an answer; the
// guard follows the same request boundaries (its readyRead slot is connected first, and it peeks
// only at bytes Qt has not read yet) and answers limit breaches itself: 400, 408, 411, 413, 431,
// each followed by a graceful close. Accepted requests flow on to the HTTP server unchanged.
class ConnectionGuard : public QObject
{
    Q_OBJECT

public:
    enum class Slot
    {
        Counted, // holds one of the server's connection slots and is handed to the HTTP server
        Refused, // over the connection caps: answered 503 and closed, never handed over
    };
    ConnectionGuard(QTcpSocket *socket, GuardedTcpServer *server, const ServeLimits &limits, Slot slot);
    ~ConnectionGuard() override;

    static ConnectionGuard *of(QTcpSocket *socket);

    // The method token of the request being handled (Qt names only the methods it knows).
    const QByteArray &method() const { return m_current.method; }
    // Connection: close, or HTTP/1.0 without keep-alive.
    bool clientWantsClose() const { return m_current.wantsClose; }
    // Refused, timed out or answered for the last time: never to be handed to the HTTP server.
    bool closing() const { return m_phase == Phase::Closing; }

    // Answers with problem details and Connection: close, then closes gracefully.
    void refuse(int status, const std::string &detail,
                const std::vector<std::pair<std::string, std::string>> &headers = {});
    // Stops reading, lets what was written go out, shuts the write side, and discards input for a
    // moment: closing with unread input would send a reset that can destroy the answer in flight.
    void close();

private:
    enum class Phase
    {
        Idle,
        RequestLine,
        Headers,
        Body,
        Closing,
    };
    enum class Timing
    {
        Request,
        Idle,
        Linger,
    };
    enum class Step
    {
        More,
        Complete,
        Refused,
    };
    struct Head
    {
        QByteArray method;
        bool http10 = false;
        bool wantsClose = false;
        bool keepAlive = false;
        bool hasHost = false;
        bool transferEncoding = false;
        bool expectContinue = false;
        qint64 contentLength = -1;
        int fields = 0;
    };

    void onReadyRead();
    void onTimeout();
    Step feed(char c);
    bool acceptRequestLine(const QByteArray &line);
    bool acceptHeaderLine(const QByteArray &line);
    Step headersComplete();
    void requestComplete();
    void takeOver();
    void shutdownWrite();
    qint64 unsentBytes() const;
    void discardInput();
    void arm(Timing timing, int ms);

    QTcpSocket *m_socket;
    QPointer<GuardedTcpServer> m_server;
    ServeLimits m_limits;
    Slot m_slot;
    QString m_peer;
    QTimer m_timer;
    Timing m_timing = Timing::Request;
    Phase m_phase = Phase::Idle;
    qint64 m_headerBytes = 0; // of the request being read, leading blank lines included
    QByteArray m_line;
    qint64 m_bodyLeft = 0;
    Head m_next;    // the request being read
    Head m_current; // the request being handled
    bool m_takenOver = false;
    bool m_writeShut = false;
};

// A QTcpServer that enforces the connection caps and puts a ConnectionGuard on every socket before
// the HTTP server sees it. With TLS, each connection is a QSslSocket (as QSslServer makes them), but
// counted and guarded from its first byte, not from the end of its handshake: the caps and the request
// timeout hold for a client that connects and never finishes a handshake too. It goes on to the HTTP
// server once encrypted.
class GuardedTcpServer : public QTcpServer
{
    Q_OBJECT

public:
    explicit GuardedTcpServer(const ServeLimits &limits, QObject *parent = nullptr);

    // Every later connection speaks TLS with this configuration (certificate, key, TLS 1.2 or later).
    void setTls(const QSslConfiguration &configuration) { m_tls = configuration; }
    bool servesTls() const { return m_tls.has_value(); }

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    friend class ConnectionGuard;
    void release(const QString &peer, ConnectionGuard::Slot slot);
    // Starts the server side of the handshake; a counted connection is handed over once it is done.
    void startTls(QSslSocket *socket, bool handOver);

    ServeLimits m_limits;
    std::optional<QSslConfiguration> m_tls;
    int m_open = 0;
    int m_refusing = 0;
    QHash<QString, int> m_perPeer;
};

// Reason phrases for the statuses the server sends.
QByteArray reasonPhrase(int status);

} // namespace steward
