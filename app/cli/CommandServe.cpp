#include "ApiClients.h"
#include "Cli.h"
#include "CommandLine.h"
#include "Engine.h"
#include "HttpFront.h"
#include "ServeTls.h"

#include <QCoreApplication>
#include <QLoggingCategory>
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

// Qt's HTTP server logs each request with its headers (Authorization too: a client's secret or a
// bearer token) at debug level; no logging rule may turn that on in serve.
QLoggingCategory::CategoryFilter g_previousLogFilter = nullptr;

void keepRequestsOutOfLogs(QLoggingCategory *category)
{
    if (g_previousLogFilter)
        g_previousLogFilter(category);
    if (qstrncmp(category->categoryName(), "qt.httpserver", 13) == 0) {
        category->setEnabled(QtDebugMsg, false);
        category->setEnabled(QtInfoMsg, false);
    }
}

} // namespace

namespace {

const char *const kServeHelp =
    "Usage: steward-cli [--db PATH] [--schema PATH]... serve [--port N] [--host ADDRESS]\n"
    "                  [--tls-cert FILE --tls-key FILE | --plain-http]\n"
    "                  [--rate N] [--max-connections N] [--max-connections-per-peer N]\n"
    "                  [--token-lifetime SECONDS] [--request-timeout SECONDS]\n"
    "\n"
    "Answers Ed-Fi API requests over HTTPS (or plain HTTP on this machine) with the same semantics as\n"
    "'requests', laid out as an Ed-Fi ODS/API 7.x sandbox, so its clients work with the base URL alone:\n"
    "  GET  /                         discovery document (versions, data models, URLs)\n"
    "  POST /oauth/token              OAuth2 client credentials (HTTP Basic, form or JSON "
    "fields)\n"
    "  GET  /metadata/                the OpenAPI documents, generated from the model\n"
    "  GET  /metadata/data/v3/dependencies   the load order\n"
    "  GET|POST|PUT|DELETE /data/v3/{project}/{resource}[/{id}]   with 'Authorization: Bearer "
    "<token>'\n"
    "  GET  /data/v3/{project}/{resource}/deletes|keyChanges, "
    "/changeQueries/v1/availableChangeVersions\n"
    "Clients come from 'steward-cli clients add NAME'. Prints 'Serving https://HOST:PORT (Ctrl-C "
    "stops)'\n"
    "(http:// without TLS) once listening; Ctrl-C or SIGTERM stops it.\n"
    "\n"
    "Client secrets, bearer tokens and student records travel in every exchange, so only HTTPS leaves\n"
    "this machine: without --tls-cert, serve listens on a loopback address only.\n"
    "\n"
    "  --port N                     TCP port (default 8080; 0 picks a free one)\n"
    "  --host ADDRESS               address to listen on (default 127.0.0.1: this machine only); any\n"
    "                               other address needs --tls-cert and --tls-key (or --plain-http)\n"
    "  --tls-cert FILE              serve HTTPS (TLS 1.2 or later) with this certificate (PEM; the\n"
    "                               server's first, then any intermediate ones)\n"
    "  --tls-key FILE               the certificate's private key (PEM, RSA or EC, not encrypted)\n"
    "  --plain-http                 serve plain HTTP on an address other machines reach, on purpose\n"
    "                               (secrets and records then cross the network unencrypted; said on\n"
    "                               stderr at every start)\n"
    "  --rate N                     data requests per minute per client, bursts as large (default "
    "6000,\n"
    "                               for clients on other machines only; given, for every client)\n"
    "  --max-connections N          open connections in all (default 128)\n"
    "  --max-connections-per-peer N open connections per client address (default 32)\n"
    "  --token-lifetime SECONDS     how long a bearer token stays valid (default 1800)\n"
    "  --request-timeout SECONDS    how long a request may take to arrive, from its first byte "
    "(default 15;\n"
    "                               a slower one is answered 408; over TLS the handshake counts)\n"
    "Requests over 8 MB, headers over 16 KB and chunked bodies are refused (413, 431, 411); idle\n"
    "connections close after 60 s.\n"
    "Exit code 0 when stopped by a signal, 1 when the address cannot be used, 2 on usage errors\n"
    "(among them a certificate or key that cannot be read, or that do not belong together).\n"
    "\n"
    "Example:\n"
    "  steward-cli --db district.db clients add sis-sync\n"
    "  steward-cli --db district.db serve --host 0.0.0.0 --port 8443 --tls-cert server.crt --tls-key "
    "server.key\n"
    "  curl --cacert district-ca.crt -u sis-sync:SECRET -d grant_type=client_credentials "
    "https://steward.district.example:8443/oauth/token\n"
    "  curl --cacert district-ca.crt -H 'Authorization: Bearer TOKEN' "
    "https://steward.district.example:8443/data/v3/ed-fi/schools\n";

struct ServeArgs
{
    ServeLimits limits;
    long long port = 8080;
    QHostAddress address;
    std::optional<QSslConfiguration> tls; // --tls-cert and --tls-key, read and checked
    bool plainHttp = false;               // --plain-http: plain HTTP beyond this machine, on purpose
};

// TLS read and the plain-HTTP rule applied, once the address is known; the exit code of a usage error.
std::optional<int> readServeTls(const std::string &certificate, const std::string &key, ServeArgs &out)
{
    if (certificate.empty() != key.empty())
        return usageError("serve", "--tls-cert and --tls-key go together: the certificate and its private key");
    if (!certificate.empty() && out.plainHttp)
        return usageError("serve", "--plain-http and --tls-cert contradict each other: choose HTTPS or plain HTTP");
    if (!certificate.empty()) {
        QSslConfiguration configuration;
        const std::string problem = loadServeTls(certificate, key, configuration);
        if (!problem.empty())
            return usageError("serve", problem);
        out.tls = configuration;
        return std::nullopt;
    }
    if (!out.address.isLoopback() && !out.plainHttp)
        return usageError("serve", "--host " + out.address.toString().toStdString()
                                       + " would let other machines reach plain HTTP, where client secrets, "
                                         "tokens and student records cross the network unencrypted: give "
                                         "--tls-cert FILE and --tls-key FILE to serve HTTPS (or --plain-http "
                                         "to serve plain HTTP on purpose)");
    return std::nullopt;
}

// The arguments read into `out`; the exit code of a usage error otherwise (said on stderr).
std::optional<int> readServeArgs(const std::vector<std::string> &args, ServeArgs &out)
{
    std::string host = "127.0.0.1";
    std::string certificate;
    std::string key;
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
             .text("--tls-cert", certificate, "a certificate file (PEM)")
             .text("--tls-key", key, "a private key file (PEM)")
             .flag("--plain-http", out.plainHttp)
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
    return readServeTls(certificate, key, out);
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
    g_previousLogFilter = QLoggingCategory::installFilter(keepRequestsOutOfLogs);

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
    if (!front.start(address, static_cast<quint16>(port), &error, read.tls)) {
        std::cerr << "steward-cli: cannot listen on " << shownHost << ":" << port << ": "
                  << error.toStdString() << "\n";
        return kExitFailed;
    }
    std::cerr << "steward-cli: " << model->describe() << " on " << context.resolvedDatabasePath() << "\n";
    if (!read.tls && !address.isLoopback())
        std::cerr << "steward-cli: warning: serving plain HTTP on " << shownHost << ":" << front.port()
                  << " (--plain-http): client secrets, tokens and student records cross the network "
                     "unencrypted\n";
    if (clients.list().empty())
        std::cerr << "steward-cli: no clients yet; add one with: " << context.suggestion("clients add NAME") << "\n";
    std::cout << "Serving " << (read.tls ? "https://" : "http://") << shownHost << ":" << front.port() << " (Ctrl-C stops)" << std::endl;

    QCoreApplication::exec();
    std::cerr << "steward-cli: stopped\n";
    return kExitOk;
}
