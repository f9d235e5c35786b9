#pragma once

#include "Json.h"

#include <QByteArray>
#include <QProcess>
#include <QUrl>
#include <QString>
#include <QStringList>

#include <vector>

namespace steward::test {

struct CliRun
{
    int exitCode = -1;
    std::vector<Json> responses; // stdout lines parsed as JSON
    QString stdoutText;
    QString stderrText;
};

// Runs the steward-cli binary with the given arguments and standard input.
CliRun runCli(const QStringList &args, const QByteArray &input);
QByteArray fileHash(const QString &path);
// The protocol's example session (the descriptor, two schools, a course, then a blocked delete).
void checkExampleSession(const QStringList &schemaArgs, const QString &dbPath);

// `steward-cli serve --port 0` on a database; stopped with SIGTERM when destroyed.
class Server
{
public:
    explicit Server(const QString &dbPath, const QStringList &extra = {});
    ~Server();
    // SIGTERM; the exit code, or -1 when it did not exit normally.
    int stop();
    quint16 port() const { return m_port; }
    const QString &firstLine() const { return m_firstLine; }
    // On 127.0.0.1 whatever address it listens on (tests reach nothing beyond this machine); https when
    // it serves TLS.
    QUrl url(const QString &pathAndQuery) const;
    // Everything it wrote on stdout and stderr; complete once stopped.
    QString output();

private:
    QProcess m_process;
    QString m_firstLine;
    QString m_scheme = QStringLiteral("http");
    QString m_output;
    quint16 m_port = 0;
};

// A certificate authority and a server certificate signed by it for 127.0.0.1 and localhost, made
// with openssl in a folder (EC P-256 keys, valid two days).
struct TlsFiles
{
    QString caCert;
    QString caKey;
    QString cert;
    QString key;
    QString request; // the server's certificate request, to sign again (signAgain)
    QString problem; // why they could not be made; empty when they were
};

// Whether openssl is there to make them; tests that need TLS skip visibly without it.
bool hasOpenssl();
TlsFiles makeTlsFiles(const QString &dir, const QString &prefix);
// The server's certificate request of `files` signed by `authority`'s CA for `days` (-1: expired since
// yesterday) into `out`, for the names given (subjectAltName); false when openssl failed.
bool signAgain(const TlsFiles &files, const TlsFiles &authority, int days, const QString &out,
               const QString &names = QStringLiteral("IP:127.0.0.1,DNS:localhost"));

struct Credentials
{
    QByteArray key;
    QByteArray secret;
};

// `steward-cli clients add NAME` on the database; its key and secret.
Credentials addClient(const QString &dbPath, const QString &name);

} // namespace steward::test
