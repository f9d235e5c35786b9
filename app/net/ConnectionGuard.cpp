#include "ConnectionGuard.h"

#include "Json.h"
#include "Protocol.h"

#include <QSslSocket>
#include <QTcpSocket>

#include <algorithm>
#include <limits>

#ifdef Q_OS_WIN
#include <winsock2.h>
#else
#include <sys/socket.h>
#endif

namespace steward {

namespace {

bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c != '\0' && QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isToken(QByteArrayView text)
{
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), isTokenChar);
}

// Field values: visible characters, spaces, tabs and obs-text; no other control characters.
bool isFieldValue(QByteArrayView text)
{
    return std::all_of(text.begin(), text.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u == '\t' || (u >= 0x20 && u != 0x7f);
    });
}

bool isHostValue(QByteArrayView text)
{
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '-' || c == '_' || c == ':' || c == '[' || c == ']';
    });
}

bool hasToken(const QByteArray &list, const QByteArray &token)
{
    for (const QByteArray &item : list.split(','))
        if (item.trimmed().compare(token, Qt::CaseInsensitive) == 0)
            return true;
    return false;
}

} // namespace

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return {};
    }
}

ConnectionGuard::ConnectionGuard(QTcpSocket *socket, GuardedTcpServer *server, const ServeLimits &limits,
                                 Slot slot)
    : QObject(socket)
    , m_socket(socket)
    , m_server(server)
    , m_limits(limits)
    , m_slot(slot)
    , m_peer(socket->peerAddress().toString())
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ConnectionGuard::onTimeout);
    // Connected before the socket reaches the HTTP server, so this slot runs before Qt's parser.
    connect(m_socket, &QTcpSocket::readyRead, this, &ConnectionGuard::onReadyRead);
    // A new connection gets the request timeout for its first request.
    arm(Timing::Request, m_limits.requestTimeoutMs);
}

ConnectionGuard::~ConnectionGuard()
{
    if (m_server)
        m_server->release(m_peer, m_slot);
}

ConnectionGuard *ConnectionGuard::of(QTcpSocket *socket)
{
    return socket->findChild<ConnectionGuard *>(QString(), Qt::FindDirectChildrenOnly);
}

void ConnectionGuard::arm(Timing timing, int ms)
{
    m_timing = timing;
    m_timer.start(ms);
}

void ConnectionGuard::onReadyRead()
{
    const qint64 available = m_socket->bytesAvailable();
    qint64 used = 0;
    if (m_phase != Phase::Body) {
        // The header section is looked at byte by byte, never beyond what the cap allows.
        const qint64 budget = m_limits.maxHeaderBytes - m_headerBytes + 1;
        const QByteArray chunk = m_socket->peek(std::min(available, budget));
        for (char c : chunk) {
            ++used;
            const Step step = feed(c);
            if (step == Step::Refused)
                return;
            if (step == Step::Complete) {
                requestComplete();
                return;
            }
            if (m_phase == Phase::Body)
                break;
        }
    }
    if (m_phase == Phase::Body) {
        m_bodyLeft -= std::min(available - used, m_bodyLeft);
        if (m_bodyLeft == 0)
            requestComplete();
    }
}

ConnectionGuard::Step ConnectionGuard::feed(char c)
{
    if (m_headerBytes == 0 && m_timing != Timing::Request)
        arm(Timing::Request, m_limits.requestTimeoutMs);
    if (++m_headerBytes > m_limits.maxHeaderBytes) {
        refuse(431, "The request line and headers are larger than " + std::to_string(m_limits.maxHeaderBytes)
                        + " bytes.");
        return Step::Refused;
    }
    switch (m_phase) {
    case Phase::Idle:
        // Qt skips whitespace left over before a request line; so does the guard, but counts it.
        if (c == '\v' || c == '\n' || c == '\r' || c == ' ' || c == '\t')
            return Step::More;
        m_phase = Phase::RequestLine;
        [[fallthrough]];
    case Phase::RequestLine:
        if (c != '\n') {
            m_line.append(c);
            return Step::More;
        }
        if (m_line.endsWith('\r'))
            m_line.chop(1);
        if (!acceptRequestLine(m_line))
            return Step::Refused;
        m_line.clear();
        m_phase = Phase::Headers;
        return Step::More;
    case Phase::Headers:
        if (c != '\n') {
            m_line.append(c);
            return Step::More;
        }
        if (m_line.endsWith('\r'))
            m_line.chop(1);
        if (m_line.isEmpty())
            return headersComplete();
        if (!acceptHeaderLine(m_line))
            return Step::Refused;
        m_line.clear();
        return Step::More;
    case Phase::Body:
    case Phase::Closing:
        break;
    }
    return Step::More;
}

// Stricter than Qt's parser, so that whatever passes here Qt reads the same way.
bool ConnectionGuard::acceptRequestLine(const QByteArray &line)
{
    const QList<QByteArray> parts = line.split(' ');
    if (parts.size() != 3 || !isToken(parts[0]) || parts[0].size() > 32 || parts[1].isEmpty()
        || !std::all_of(parts[1].begin(), parts[1].end(), [](char c) { return c > 0x20 && c < 0x7f; })
        || !(parts[1].startsWith('/') || parts[1].startsWith("http://") || parts[1].startsWith("https://"))) {
        refuse(400, "The request line is not 'METHOD /path HTTP/1.1'.");
        return false;
    }
    if (parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0") {
        if (parts[2].startsWith("HTTP/") && parts[2].size() == 8)
            refuse(505, "Only HTTP/1.0 and HTTP/1.1 are served.");
        else
            refuse(400, "The request line is not 'METHOD /path HTTP/1.1'.");
        return false;
    }
    m_next.method = parts[0];
    m_next.http10 = parts[2] == "HTTP/1.0";
    return true;
}

bool ConnectionGuard::acceptHeaderLine(const QByteArray &line)
{
    if (line.startsWith(' ') || line.startsWith('\t')) {
        refuse(400, "Header lines may not be folded onto continuation lines.");
        return false;
    }
    const qsizetype colon = line.indexOf(':');
    const QByteArray name = colon > 0 ? line.left(colon).toLower() : QByteArray();
    const QByteArray value = colon > 0 ? line.mid(colon + 1).trimmed() : QByteArray();
    if (!isToken(name) || !isFieldValue(value)) {
        refuse(400, "A header line is not 'Name: value'.");
        return false;
    }
    if (++m_next.fields > m_limits.maxHeaderFields) {
        refuse(431, "The request has more than " + std::to_string(m_limits.maxHeaderFields) + " headers.");
        return false;
    }
    if (name == "content-length") {
        const bool digits = !value.isEmpty() && std::all_of(value.begin(), value.end(), [](char c) {
            return c >= '0' && c <= '9';
        });
        // Anything longer than 15 digits is far beyond any limit; it is kept as "too large".
        const qint64 length = !digits             ? -1
                              : value.size() > 15 ? std::numeric_limits<qint64>::max()
                                                  : value.toLongLong();
        if (!digits || (m_next.contentLength >= 0 && m_next.contentLength != length)) {
            refuse(400, "The Content-Length header is not one decimal number.");
            return false;
        }
        m_next.contentLength = length;
    } else if (name == "transfer-encoding") {
        m_next.transferEncoding = true;
    } else if (name == "host") {
        if (m_next.hasHost || !isHostValue(value)) {
            refuse(400, "The Host header is not one host name or address with an optional port.");
            return false;
        }
        m_next.hasHost = true;
    } else if (name == "connection") {
        m_next.wantsClose = m_next.wantsClose || hasToken(value, "close");
        m_next.keepAlive = m_next.keepAlive || hasToken(value, "keep-alive");
    } else if (name == "expect") {
        if (value.compare("100-continue", Qt::CaseInsensitive) != 0) {
            refuse(417, "Only 'Expect: 100-continue' is understood.");
            return false;
        }
        m_next.expectContinue = true;
    } else if (name == "upgrade" && hasToken(value, "websocket")) {
        refuse(400, "WebSocket connections are not served.");
        return false;
    }
    return true;
}

ConnectionGuard::Step ConnectionGuard::headersComplete()
{
    if (m_next.transferEncoding) {
        refuse(411,
               "Send the body with a Content-Length header; Transfer-Encoding (chunked) is not accepted.");
        return Step::Refused;
    }
    if (!m_next.http10 && !m_next.hasHost) {
        refuse(400, "An HTTP/1.1 request needs a Host header.");
        return Step::Refused;
    }
    if (m_next.contentLength > m_limits.maxBodyBytes) {
        refuse(413, "The body is larger than the limit of " + std::to_string(m_limits.maxBodyBytes)
                        + " bytes; it was not read.");
        return Step::Refused;
    }
    if (m_next.http10 && !m_next.keepAlive)
        m_next.wantsClose = true;
    m_line.clear();
    m_bodyLeft = std::max<qint64>(0, m_next.contentLength);
    if (m_bodyLeft == 0)
        return Step::Complete;
    // Qt 6.4 does not answer Expect itself; without this, curl waits a second before each upload.
    if (m_next.expectContinue && !m_next.http10)
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    m_phase = Phase::Body;
    return Step::More;
}

void ConnectionGuard::requestComplete()
{
    // The HTTP server handles this request right after this slot returns, in the same signal.
    m_current = m_next;
    m_next = Head();
    m_phase = Phase::Idle;
    m_headerBytes = 0;
    m_line.clear();
    arm(Timing::Idle, m_limits.idleTimeoutMs);
}

void ConnectionGuard::onTimeout()
{
    switch (m_timing) {
    case Timing::Linger:
        m_socket->abort();
        m_socket->deleteLater();
        return;
    case Timing::Request:
        if (m_phase != Phase::Idle || m_headerBytes > 0) {
            refuse(408, "The request did not arrive completely within " +
                            std::to_string(m_limits.requestTimeoutMs / 1000) + " seconds.");
            return;
        }
        close();
        return;
    case Timing::Idle:
        close();
        return;
    }
}

void ConnectionGuard::refuse(int status, const std::string &detail,
                             const std::vector<std::pair<std::string, std::string>> &headers)
{
    if (m_phase == Phase::Closing)
        return;
    takeOver();
    // Statuses with nothing to add beyond their HTTP meaning get RFC 7807's "about:blank" type;
    // the rest use the Ed-Fi types the engine uses for the same situations.
    const char *type = status == 400   ? problem::kBadRequest
                       : status == 503 ? problem::kServiceUnavailable
                                       : "about:blank";
    const QByteArray reason = reasonPhrase(status);
    const Response response = problem::make(status, type, reason.toStdString(), detail);
    const QByteArray body = QByteArray::fromStdString(dumpJson(response.body));
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason + "\r\n";
    for (const auto &[name, value] : headers)
        out += QByteArray::fromStdString(name) + ": " + QByteArray::fromStdString(value) + "\r\n";
    out += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
           + "\r\nConnection: close\r\n\r\n" + body;
    m_socket->write(out);
    close();
}

void ConnectionGuard::close()
{
    if (m_phase == Phase::Closing)
        return;
    m_phase = Phase::Closing;
    takeOver();
    arm(Timing::Linger, m_limits.lingerMs);
    m_socket->flush();
    if (unsentBytes() == 0) {
        shutdownWrite();
    } else {
        auto whenSent = [this] {
            if (unsentBytes() == 0)
                shutdownWrite();
        };
        connect(m_socket, &QTcpSocket::bytesWritten, this, whenSent);
        if (auto *tls = qobject_cast<QSslSocket *>(m_socket))
            connect(tls, &QSslSocket::encryptedBytesWritten, this, whenSent);
    }
    discardInput();
}

qint64 ConnectionGuard::unsentBytes() const
{
    // Over TLS an answer waits twice: as plaintext not yet encrypted, then as encrypted bytes not yet
    // handed to the system. Shutting the write side before both are out would cut it.
    qint64 unsent = m_socket->bytesToWrite();
    if (const auto *tls = qobject_cast<const QSslSocket *>(m_socket))
        unsent += tls->encryptedBytesToWrite();
    return unsent;
}

void ConnectionGuard::takeOver()
{
    if (m_takenOver)
        return;
    m_takenOver = true;
    // Neither the HTTP server nor onReadyRead reads from here on; input is only discarded.
    QObject::disconnect(m_socket, &QTcpSocket::readyRead, nullptr, nullptr);
    if (m_socket->isTransactionStarted())
        m_socket->commitTransaction();
    connect(m_socket, &QTcpSocket::readyRead, this, &ConnectionGuard::discardInput);
}

void ConnectionGuard::shutdownWrite()
{
    if (m_writeShut || m_socket->state() != QAbstractSocket::ConnectedState)
        return;
    m_writeShut = true;
    // The client reads the answer, then end of stream, and closes; that ends the linger early.
#ifdef Q_OS_WIN
    ::shutdown(static_cast<SOCKET>(m_socket->socketDescriptor()), SD_SEND);
#else
    ::shutdown(static_cast<int>(m_socket->socketDescriptor()), SHUT_WR);
#endif
}

void ConnectionGuard::discardInput()
{
    m_socket->skip(m_socket->bytesAvailable());
}

GuardedTcpServer::GuardedTcpServer(const ServeLimits &limits, QObject *parent)
    : QTcpServer(parent)
    , m_limits(limits)
{
}

void GuardedTcpServer::incomingConnection(qintptr descriptor)
{
    QTcpSocket *socket = nullptr;
    if (m_tls) {
        auto *tls = new QSslSocket(this);
        tls->setSslConfiguration(*m_tls);
        socket = tls;
    } else {
        socket = new QTcpSocket(this);
    }
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    const QString peer = socket->peerAddress().toString();
    if (m_open >= m_limits.maxConnections || m_perPeer.value(peer) >= m_limits.maxConnectionsPerPeer) {
        // Answering costs a little; a flood beyond even that is cut without an answer.
        if (m_refusing >= m_limits.maxConnections) {
            socket->abort();
            socket->deleteLater();
            return;
        }
        ++m_refusing;
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        auto *guard = new ConnectionGuard(socket, this, m_limits, ConnectionGuard::Slot::Refused);
        auto refuse = [guard] {
            guard->refuse(503, "The server has too many connections open; try again shortly.",
                          {{"Retry-After", "1"}});
        };
        // Over TLS the answer goes once the handshake is done (QSslSocket leaves what was written
        // before it unsent); the guard's timeout ends a handshake that never finishes.
        if (auto *tls = qobject_cast<QSslSocket *>(socket)) {
            connect(tls, &QSslSocket::encrypted, guard, refuse);
            startTls(tls, false);
            return;
        }
        refuse();
        return;
    }
    ++m_open;
    ++m_perPeer[peer];
    // Room for one request at its limits and a little more; beyond it TCP makes the client wait.
    socket->setReadBufferSize(m_limits.maxBodyBytes + m_limits.maxHeaderBytes + 64 * 1024);
    new ConnectionGuard(socket, this, m_limits, ConnectionGuard::Slot::Counted);
    if (auto *tls = qobject_cast<QSslSocket *>(socket)) {
        startTls(tls, true);
        return;
    }
    addPendingConnection(socket);
}

void GuardedTcpServer::startTls(QSslSocket *socket, bool handOver)
{
    // Until the HTTP server has it, the socket is this server's to delete (deleting it twice later
    // is safe: deleteLater may be asked more than once).
    connect(socket, &QAbstractSocket::disconnected, socket, &QObject::deleteLater);
    // A failed handshake (plain HTTP on the TLS port, a client refusing the certificate) ends the
    // connection; its guard, a child of the socket, gives its slot back.
    connect(socket, &QAbstractSocket::errorOccurred, socket, [socket] {
        if (!socket->isEncrypted()) {
            socket->abort();
            socket->deleteLater();
        }
    });
    if (handOver)
        connect(socket, &QSslSocket::encrypted, this, [this, socket] {
            const ConnectionGuard *guard = ConnectionGuard::of(socket);
            if (guard && !guard->closing())
                addPendingConnection(socket); // the HTTP server connects to its readyRead now, after the guard
        });
    socket->startServerEncryption();
}

void GuardedTcpServer::release(const QString &peer, ConnectionGuard::Slot slot)
{
    if (slot == ConnectionGuard::Slot::Refused) {
        --m_refusing;
        return;
    }
    --m_open;
    if (--m_perPeer[peer] <= 0)
        m_perPeer.remove(peer);
}

} // namespace steward
