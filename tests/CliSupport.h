#pragma once

#include "Json.h"

#include <QByteArray>
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

} // namespace steward::test
