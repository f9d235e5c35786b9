// The HTTP carrier (`steward-cli serve`): the input is sent as raw bytes over a loopback
// connection to an in-process HttpFront (with its connection guard) on a temporary database,
// then the server must still answer a well-formed request from another connection.
//
// Findings: a crash or sanitizer report; any exception; a server that no longer answers GET /
// after an input (a wedged event loop, a guard that lost count of its connections).
#include "FuzzSupport.h"

#include "ApiClients.h"
#include "Engine.h"
#include "HttpFront.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QHostAddress>
#include <QTcpSocket>
#include <QTimer>

using namespace steward;

namespace {

struct Front
{
    std::unique_ptr<Database> database;
    std::unique_ptr<Engine> engine;
    std::unique_ptr<ApiClients> clients;
    std::unique_ptr<HttpFront> front;
};

Front &front()
{
    static int argc = 1;
    static char name[] = "fuzz_http_front";
    static char *argv[] = {name, nullptr};
    static QCoreApplication *app = QCoreApplication::instance() ? nullptr : new QCoreApplication(argc, argv);
    (void)app;
    static Front instance = [] {
        Front f;
        f.database = Database::open(fuzz::scratchDir() + "/serve.db");
        f.engine = std::make_unique<Engine>(fuzz::starterModel(), *f.database);
        f.clients = std::make_unique<ApiClients>(f.database->connection());
        ServeLimits limits;
        limits.requestTimeoutMs = 200; // a half-sent input must not hold a connection slot long
        limits.lingerMs = 20;
        f.front = std::make_unique<HttpFront>(*f.engine, *f.clients, limits);
        QString error;
        if (!f.front->start(QHostAddress::LocalHost, 0, &error))
            fuzz::fail("cannot listen: " + error.toStdString());
        return f;
    }();
    return instance;
}

// Sends bytes on a new connection and runs the event loop (server and client share this thread)
// until the server closes it or waitMs pass; returns what came back.
QByteArray exchange(quint16 port, const QByteArray &bytes, int waitMs)
{
    QTcpSocket socket;
    QEventLoop loop;
    QByteArray answer;
    QObject::connect(&socket, &QTcpSocket::connected, &socket, [&] { socket.write(bytes); });
    QObject::connect(&socket, &QTcpSocket::readyRead, &socket, [&] { answer += socket.readAll(); });
    QObject::connect(&socket, &QTcpSocket::disconnected, &loop, &QEventLoop::quit);
    QObject::connect(&socket, &QTcpSocket::errorOccurred, &loop, &QEventLoop::quit);
    QTimer::singleShot(waitMs, &loop, &QEventLoop::quit);
    socket.connectToHost(QHostAddress::LocalHost, port);
    loop.exec();
    answer += socket.readAll();
    socket.abort();
    return answer;
}

} // namespace

STEWARD_FUZZ_TARGET(fuzz_http_front, data, size)
{
    Front &f = front();
    const quint16 port = f.front->port();
    exchange(port, QByteArray(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size)), 30);
    static int inputs = 0;
    if (++inputs % 50 == 1) {
        // Let refused connections finish lingering, then the server must still serve.
        const QByteArray answer = exchange(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 5000);
        if (!answer.startsWith("HTTP/1.1 200"))
            fuzz::fail("after an input the server no longer answers GET /: '" + answer.left(200).toStdString() + "'");
    }
    return 0;
}
