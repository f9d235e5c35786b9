#include "ApiClients.h"
#include "Cli.h"
#include "CommandLine.h"
#include "Engine.h"
#include "HttpFront.h"

#include <QCoreApplication>
#include <QSocketNotifier>

#include <csignal>
#include <iostream>
#include <optional>

#include <fcntl.h>
#include <unistd.h>

using namespace steward;

namespace {

int g_signalPipe[2] = {-1, -1};

// Only async-signal-safe work here: the event loop picks the byte up and quits.
void onStopSignal(int)
{
    const char byte = 's';
    [[maybe_unused]] const ssize_t written = ::write(g_signalPipe[1], &byte, 1);
}

bool installStopSignals()
{
    if (::pipe(g_signalPipe) != 0)
        return false;
    for (int fd : g_signalPipe)
        ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    struct sigaction action = {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return ::sigaction(SIGINT, &action, nullptr) == 0 && ::sigaction(SIGTERM, &action, nullptr) == 0;
}

bool parseNumber(const std::string &text, long long low, long long high, long long &out)
{
    try {
        std::size_t used = 0;
        out = std::stoll(text, &used);
        return used == text.size() && out >= low && out <= high;
    } catch (const std::exception &) {
        return false;
    }
}

} // namespace

namespace {

const char *const kServeHelp =
    "Usage: steward-cli [--db PATH] [--schema PATH]... serve [--port N] [--host ADDRESS]\n"
    "                  [--rate N] [--max-connections N] [--max-connections-per-peer N]\n"
    "                  [--token-lifetime SECONDS] [--request-timeout SECONDS]\n"
    "\n"
    "Answers Ed-Fi API requests over HTTP with the same semantics as 'requests', laid out as an\n"
    "Ed-Fi ODS/API 7.x sandbox, so its clients work with the base URL alone:\n"
    "  GET  /                         discovery document (versions, data models, URLs)\n"
    "  POST /oauth/token              OAuth2 client credentials (HTTP Basic, form or JSON "
    "fields)\n"
    "  GET  /metadata/                the OpenAPI documents, generated from the model\n"
    "  GET  /metadata/data/v3/dependencies   the load order\n"
    "  GET|POST|PUT|DELETE /data/v3/{project}/{resource}[/{id}]   with 'Authorization: Bearer "
    "<token>'\n"
    "  GET  /data/v3/{project}/{resource}/deletes|keyChanges, "
    "/changeQueries/v1/availableChangeVersions\n"
    "Clients come from 'steward-cli clients add NAME'. Prints 'Serving http://HOST:PORT (Ctrl-C "
    "stops)'\n"
    "once listening; Ctrl-C or SIGTERM stops it.\n"
    "\n"
    "  --port N                     TCP port (default 8080; 0 picks a free one)\n"
    "  --host ADDRESS               address to listen on (default 127.0.0.1: this machine only)\n"
    "  --rate N                     data requests per minute per client, bursts as large (default "
    "6000,\n"
    "                               for clients on other machines only; given, for every client)\n"
    "  --max-connections N          open connections in all (default 128)\n"
    "  --max-connections-per-peer N open connections per client address (default 32)\n"
    "  --token-lifetime SECONDS     how long a bearer token stays valid (default 1800)\n"
    "  --request-timeout SECONDS    how long a request may take to arrive, from its first byte "
    "(default 15;\n"
    "                               a slower one is answered 408)\n"
    "Requests over 8 MB, headers over 16 KB and chunked bodies are refused (413, 431, 411); idle\n"
    "connections close after 60 s.\n"
    "Exit code 0 when stopped by a signal, 1 when the address cannot be used, 2 on usage errors.\n"
    "\n"
    "Example:\n"
    "  steward-cli --db district.db clients add sis-sync\n"
    "  steward-cli --db district.db serve --port 8080\n"
    "  curl -u sis-sync:SECRET -d grant_type=client_credentials "
    "http://127.0.0.1:8080/oauth/token\n"
    "  curl -H 'Authorization: Bearer TOKEN' http://127.0.0.1:8080/data/v3/ed-fi/schools\n";

struct ServeArgs
{
    ServeLimits limits;
    long long port = 8080;
    QHostAddress address;
};

// The arguments read into `out`; the exit code of a usage error otherwise (said on stderr).
std::optional<int> readServeArgs(const std::vector<std::string> &args, ServeArgs &out)
{
    std::string host = "127.0.0.1";
    ServeLimits &limits = out.limits;
    auto port = [&out](const std::string &value) {
        return parseNumber(value, 0, 65535, out.port) ? std::string() : "--port takes a number from 0 to 65535";
    };
    auto tokenLifetime = [&limits](const std::string &value) {
        long long seconds = 0;
        if (!parseNumber(value, 1, 86400, seconds))
            return std::string("--token-lifetime takes seconds from 1 to 86400");
        limits.tokenLifetimeSeconds = static_cast<int>(seconds);
        return std::string();
    };
    auto requestTimeout = [&limits](const std::string &value) {
        long long seconds = 0;
        if (!parseNumber(value, 1, 3600, seconds))
            return std::string("--request-timeout takes seconds from 1 to 3600");
        limits.requestTimeoutMs = static_cast<int>(seconds * 1000);
        return std::string();
    };
    auto limit = [](const char *name, int &target, std::function<void()> then = {}) {
        return [name, &target, then](const std::string &value) {
            long long number = 0;
            if (!parseNumber(value, 1, 1000000, number))
                return std::string(name) + " takes a number from 1 to 1000000";
            target = static_cast<int>(number);
            if (then)
                then();
            return std::string();
        };
    };
    // A rate asked for by name holds for every client, this machine's too.
    auto rateForEveryone = [&limits] { limits.limitLoopback = true; };
    if (!CommandLine("serve")
             .text("--host", host)
             .value("--port", port)
             .value("--token-lifetime", tokenLifetime)
             .value("--request-timeout", requestTimeout)
             .value("--rate", limit("--rate", limits.requestsPerMinute, rateForEveryone))
             .value("--max-connections", limit("--max-connections", limits.maxConnections))
             .value("--max-connections-per-peer", limit("--max-connections-per-peer", limits.maxConnectionsPerPeer))
             .parse(args))
        return kExitUsage;
    if (host == "localhost")
        out.address = QHostAddress(QHostAddress::LocalHost);
    else if (!out.address.setAddress(QString::fromStdString(host)))
        return usageError("serve",
                          "--host takes an IP address such as 127.0.0.1, ::1 or 0.0.0.0, not '" + host + "'");
    return std::nullopt;
}

} // namespace

int commandServe(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << kServeHelp;
        return kExitOk;
    }
    ServeArgs read;
    if (const std::optional<int> usage = readServeArgs(args, read))
        return *usage;
    const QHostAddress &address = read.address;
    const long long port = read.port;

    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    Engine engine(*model, *database);
    ApiClients clients(database->connection());
    HttpFront front(engine, clients, read.limits);

    if (!installStopSignals()) {
        std::cerr << "steward-cli: cannot install the Ctrl-C handler\n";
        return kExitFailed;
    }
    QSocketNotifier stopNotifier(g_signalPipe[0], QSocketNotifier::Read);
    QObject::connect(&stopNotifier, &QSocketNotifier::activated, [] { QCoreApplication::quit(); });

    QString error;
    const std::string shownHost = address.protocol() == QAbstractSocket::IPv6Protocol
                                      ? "[" + address.toString().toStdString() + "]"
                                      : address.toString().toStdString();
    if (!front.start(address, static_cast<quint16>(port), &error)) {
        std::cerr << "steward-cli: cannot listen on " << shownHost << ":" << port << ": "
                  << error.toStdString() << "\n";
        return kExitFailed;
    }
    std::cerr << "steward-cli: " << model->describe() << " on " << context.resolvedDatabasePath() << "\n";
    if (clients.list().empty())
        std::cerr << "steward-cli: no clients yet; add one with: " << context.suggestion("clients add NAME") << "\n";
    std::cout << "Serving http://" << shownHost << ":" << front.port() << " (Ctrl-C stops)" << std::endl;

    QCoreApplication::exec();
    std::cerr << "steward-cli: stopped\n";
    return kExitOk;
}
