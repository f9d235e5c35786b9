// `steward-cli serve` under load the way a district's client loads it: 8 keep-alive connections from
// this machine driven by one thread, each sending its next request when the last is answered. Prints requests a second
// and p50/p99 for GET by id, GET by identity and POST, beside a baseline in the same run (GET of a
// path that answers without the database: what the HTTP stack costs).
// Usage: bench_serve [students] [seconds per figure]   (defaults 20000 and 5)
#include "ApiClients.h"
#include "BenchSupport.h"
#include "Database.h"
#include "Engine.h"
#include "Importer.h"

#include <QCoreApplication>
#include <QProcess>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <SQLiteCpp/Statement.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace steward;

namespace {

constexpr int kConnections = 8;

std::string requestText(const std::string &method, const std::string &path, const std::string &token,
                        const std::string &body)
{
    std::string request = method + " " + path + " HTTP/1.1\r\nHost: localhost\r\n";
    if (!token.empty())
        request += "Authorization: Bearer " + token + "\r\n";
    if (!body.empty())
        request += "Content-Type: application/json\r\n";
    return request + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// One blocking HTTP/1.1 keep-alive connection (its own thread; no event loop needed).
class Connection
{
public:
    bool open(quint16 port)
    {
        m_socket.connectToHost("127.0.0.1", port);
        return m_socket.waitForConnected(5000);
    }

    // The status, or 0 when the connection failed.
    int call(const std::string &method, const std::string &path, const std::string &token, const std::string &body)
    {
        const std::string request = requestText(method, path, token, body);
        m_socket.write(request.data(), static_cast<qint64>(request.size()));
        m_socket.flush();
        QByteArray head;
        while (!head.contains("\r\n\r\n")) {
            if (m_socket.bytesAvailable() == 0 && !m_socket.waitForReadyRead(30000))
                return 0;
            head += m_socket.readAll();
        }
        const qsizetype end = head.indexOf("\r\n\r\n") + 4;
        QByteArray rest = head.mid(end);
        head.truncate(end);
        qsizetype length = 0;
        for (const QByteArray &line : head.split('\n'))
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        while (rest.size() < length) {
            if (m_socket.bytesAvailable() == 0 && !m_socket.waitForReadyRead(30000))
                return 0;
            rest += m_socket.readAll();
        }
        m_lastBody = rest.left(length).toStdString();
        return head.mid(9, 3).toInt();
    }
    const std::string &lastBody() const { return m_lastBody; }

private:
    QTcpSocket m_socket;
    std::string m_lastBody;
};

struct Figures
{
    double perSecond = 0;
    double p50 = 0;
    double p99 = 0;
    int failures = 0;
};

// The connections are driven by one thread, as an asynchronous client drives them (lightbeam's
// aiohttp, for one): each sends its next request made by `next` (connection, sequence number) as
// soon as its last is answered, for `seconds`.
Figures load(quint16 port, const std::string &token, double seconds,
             const std::function<std::pair<std::string, std::string>(int, int)> &next, const std::string &method,
             int expected)
{
    struct Client
    {
        int fd = -1;
        int sequence = 0;
        std::string received;
        Clock::time_point sentAt;
        std::string path;
        bool done = false;
    };
    std::vector<Client> clients(kConnections);
    std::vector<pollfd> fds(kConnections);
    std::vector<double> latencies;
    int failures = 0;
    const Clock::time_point start = Clock::now();
    auto send = [&](int c) {
        Client &client = clients[static_cast<std::size_t>(c)];
        const auto [path, body] = next(c, client.sequence++);
        client.path = path;
        const std::string request = requestText(method, path, token, body);
        client.sentAt = Clock::now();
        for (std::size_t sent = 0; sent < request.size();) {
            const ssize_t n = ::send(client.fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) {
                client.done = true;
                ++failures;
                return;
            }
            sent += static_cast<std::size_t>(n);
        }
    };
    for (int c = 0; c < kConnections; ++c) {
        Client &client = clients[static_cast<std::size_t>(c)];
        client.fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        const int one = 1;
        ::setsockopt(client.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (::connect(client.fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
            client.done = true;
            ++failures;
            continue;
        }
        fds[static_cast<std::size_t>(c)] = pollfd{client.fd, POLLIN, 0};
        send(c);
    }
    char buffer[65536];
    for (;;) {
        const bool running = std::any_of(clients.begin(), clients.end(), [](const Client &c) { return !c.done; });
        if (!running)
            break;
        for (std::size_t c = 0; c < clients.size(); ++c)
            fds[c].fd = clients[c].done ? -1 : clients[c].fd;
        if (::poll(fds.data(), fds.size(), 30000) <= 0)
            break;
        for (std::size_t c = 0; c < clients.size(); ++c) {
            Client &client = clients[c];
            if (client.done || (fds[c].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
                continue;
            const ssize_t n = ::recv(client.fd, buffer, sizeof buffer, 0);
            if (n <= 0) {
                client.done = true;
                ++failures;
                continue;
            }
            client.received.append(buffer, static_cast<std::size_t>(n));
            const std::size_t headEnd = client.received.find("\r\n\r\n");
            if (headEnd == std::string::npos)
                continue;
            std::size_t length = 0;
            const std::string head = client.received.substr(0, headEnd);
            for (const char *name : {"Content-Length: ", "content-length: "})
                if (const std::size_t at = head.find(name); at != std::string::npos)
                    length = static_cast<std::size_t>(std::atoll(head.c_str() + at + std::strlen(name)));
            if (client.received.size() < headEnd + 4 + length)
                continue;
            latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - client.sentAt).count());
            const int status = std::atoi(client.received.c_str() + 9);
            if (status != expected && ++failures == 1)
                std::fprintf(stderr, "%s %s: %d %s\n", method.c_str(), client.path.c_str(), status,
                             client.received.substr(headEnd + 4, 300).c_str());
            client.received.erase(0, headEnd + 4 + length);
            if (std::chrono::duration<double>(Clock::now() - start).count() < seconds)
                send(static_cast<int>(c));
            else
                client.done = true;
        }
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    for (Client &client : clients)
        if (client.fd >= 0)
            ::close(client.fd);
    std::sort(latencies.begin(), latencies.end());
    Figures f;
    f.perSecond = static_cast<double>(latencies.size()) / elapsed;
    if (!latencies.empty()) {
        f.p50 = latencies[latencies.size() / 2];
        f.p99 = latencies[std::min(latencies.size() - 1, latencies.size() * 99 / 100)];
    }
    f.failures = failures;
    return f;
}

void print(const char *what, const Figures &f)
{
    std::printf("%-44s %8.0f req/s   p50 %7.3f ms   p99 %7.3f ms   %d unexpected\n", what, f.perSecond, f.p50, f.p99,
                f.failures);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const std::int64_t students = argc > 1 ? std::max(10LL, std::atoll(argv[1])) : 20000;
    const double seconds = argc > 2 ? std::max(1.0, std::atof(argv[2])) : 5.0;
    QTemporaryDir dir;
    const std::string databasePath = dir.filePath("steward.db").toStdString();
    const std::string input = dir.filePath("district.ndjson").toStdString();
    const std::int64_t documents = writeDistrictFile(input, students);
    std::string secret;
    std::vector<std::string> studentIds;
    std::vector<std::string> uniqueIds;
    {
        std::unique_ptr<Model> model = Model::loadStarter();
        std::unique_ptr<Database> database = Database::open(databasePath);
        Engine engine(*model, *database);
        ImportOptions options;
        options.paths = {input};
        importFiles(engine, *model, options);
        ApiClients clients(database->connection());
        secret = clients.add("bench").secret;
        SQLite::Statement s(database->connection(), "SELECT id, json_extract(body, '$.studentUniqueId') FROM "
                                                    "documents WHERE resource = 'Student' ORDER BY random() LIMIT 2000");
        while (s.executeStep()) {
            studentIds.push_back(s.getColumn(0).getString());
            uniqueIds.push_back(s.getColumn(1).getString());
        }
    }

    QProcess serve;
    const quint16 port = startServe(serve, QStringLiteral(STEWARD_CLI_PATH), databasePath);
    if (port == 0)
        return 1;
    Connection tokenConnection;
    tokenConnection.open(port);
    tokenConnection.call("POST", "/oauth/token", {},
                         "{\"grant_type\":\"client_credentials\",\"client_id\":\"bench\",\"client_secret\":\"" + secret
                             + "\"}");
    const std::string token = Json::parse(tokenConnection.lastBody()).value("access_token", std::string());

    std::printf("Steward serve benchmark: %lld documents (%lld students), %d connections from this machine, %.0f s "
                "per figure\n\n",
                static_cast<long long>(documents), static_cast<long long>(students), kConnections, seconds);
    print("baseline: GET / (no database)", load(port, token, seconds, [](int, int) {
              return std::pair<std::string, std::string>{"/", {}};
          }, "GET", 200));
    print("GET a Student by id", load(port, token, seconds, [&](int c, int i) {
              return std::pair<std::string, std::string>{
                  "/data/v3/ed-fi/students/" + studentIds[(c * 997 + i) % studentIds.size()], {}};
          }, "GET", 200));
    print("GET students?studentUniqueId (identity)", load(port, token, seconds, [&](int c, int i) {
              return std::pair<std::string, std::string>{
                  "/data/v3/ed-fi/students?studentUniqueId=" + uniqueIds[(c * 997 + i) % uniqueIds.size()], {}};
          }, "GET", 200));
    print("POST a new Student", load(port, token, seconds, [](int c, int i) {
              const std::string id = "B" + std::to_string(c) + "-" + std::to_string(i);
              return std::pair<std::string, std::string>{
                  "/data/v3/ed-fi/students",
                  "{\"studentUniqueId\":\"" + id + "\",\"firstName\":\"Bench\",\"lastSurname\":\"Load" + id
                      + "\",\"birthDate\":\"2010-01-01\"}"};
          }, "POST", 201));
    serve.terminate();
    serve.waitForFinished(10000);
    return 0;
}
