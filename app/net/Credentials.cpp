#include "Credentials.h"

#include <QEventLoop>
#include <QTimer>

#include <qt6keychain/keychain.h>

#include <cstdlib>

namespace steward {

namespace {

const QString kService = QStringLiteral("steward-sync");

QString keychainKey(const std::string &url, const std::string &client)
{
    return QString::fromStdString(client + "@" + url);
}

// Keychain jobs answer asynchronously (over D-Bus on Linux); wait for one with a limit, since a
// desktop without a keychain service may never answer.
bool finishJob(QKeychain::Job &job)
{
    QEventLoop wait;
    QTimer limit;
    limit.setSingleShot(true);
    bool finished = false;
    QObject::connect(&job, &QKeychain::Job::finished, &wait, [&finished, &wait] {
        finished = true;
        wait.quit();
    });
    QObject::connect(&limit, &QTimer::timeout, &wait, &QEventLoop::quit);
    job.setAutoDelete(false);
    job.start();
    limit.start(5000);
    if (!finished)
        wait.exec();
    return finished;
}

} // namespace

SecretLookup findClientSecret(const std::string &url, const std::string &client, const std::string &environmentName)
{
    SecretLookup lookup;
    if (const char *value = std::getenv(environmentName.c_str()); value != nullptr && *value != '\0') {
        lookup.secret = value;
        lookup.source = "environment variable " + environmentName;
        return lookup;
    }
    QKeychain::ReadPasswordJob job(kService);
    job.setKey(keychainKey(url, client));
    const bool answered = finishJob(job);
    if (answered && job.error() == QKeychain::NoError) {
        lookup.secret = job.textData().toStdString();
        lookup.source = "system keychain";
        return lookup;
    }
    const std::string keychain = !answered ? "the system keychain did not answer"
                                 : job.error() == QKeychain::EntryNotFound
                                     ? "the system keychain has none for " + client + " at " + url
                                     : "no system keychain (" + job.errorString().toStdString() + ")";
    lookup.problem = "no client secret: " + environmentName + " is not set and " + keychain
                     + "; set " + environmentName + " (or name another variable with --secret-env), "
                       "or store it with 'steward-cli sync remember'";
    return lookup;
}

bool storeClientSecret(const std::string &url, const std::string &client, const std::string &secret,
                       std::string *error)
{
    QKeychain::WritePasswordJob job(kService);
    job.setKey(keychainKey(url, client));
    job.setTextData(QString::fromStdString(secret));
    if (!finishJob(job)) {
        *error = "the system keychain did not answer";
        return false;
    }
    if (job.error() != QKeychain::NoError) {
        *error = "the system keychain refused it: " + job.errorString().toStdString();
        return false;
    }
    return true;
}

} // namespace steward
