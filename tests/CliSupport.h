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
    QUrl url(const QString &pathAndQuery) const;

private:
    QProcess m_process;
    QString m_firstLine;
    quint16 m_port = 0;
};

struct Credentials
{
    QByteArray key;
    QByteArray secret;
};

// `steward-cli clients add NAME` on the database; its key and secret.
Credentials addClient(const QString &dbPath, const QString &name);

} // namespace steward::test
