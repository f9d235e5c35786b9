#include "RemoteApi.h"

#include <QFile>
#include <QHostAddress>
#include <QSslCertificate>
#include <QThread>
#include <QUrlQuery>

#include <algorithm>
#include <cstdlib>

namespace steward {

bool apiModeNeedsRoute(const std::string &apiMode)
{
    // ODS/API spells its modes with and without spaces ("Year Specific", "YearSpecific"); only the
    // shared instance and the sandbox serve their data at /data/v3 itself.
    std::string mode;
    for (char c : apiMode)
        if (c != ' ' && c != '_' && c != '-')
            mode += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (mode.empty() || mode == "sharedinstance" || mode == "sandbox")
        return false;
    return mode.find("specific") != std::string::npos || mode.find("instance") != std::string::npos
           || mode.find("district") != std::string::npos || mode.find("year") != std::string::npos;
}

std::string addressProblem(const std::string &url, bool plainHttp)
{
    const QUrl address(QString::fromStdString(url));
    if (!address.userInfo().isEmpty())
        return "'" + address.toString(QUrl::RemoveUserInfo).toStdString()
               + "' was given with credentials in the address; give the client with --client and its secret "
                 "in STEWARD_CLIENT_SECRET (or --secret-env) instead";
    if (address.scheme() != QLatin1String("http") || plainHttp)
        return {};
    const QString host = address.host();
    const bool thisMachine = host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0
                             || QHostAddress(host).isLoopback();
    if (thisMachine)
        return {};
    return "'" + url + "' is plain HTTP to another machine: the client secret, the bearer token and student "
           "records would cross the network unencrypted. Use its https:// address, or --plain-http to send them "
           "in the clear on purpose";
}

std::string caCertificateProblem(const std::string &path)
{
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        return "the certificate authority file '" + path + "' cannot be read: " + file.errorString().toStdString();
    if (QSslCertificate::fromData(file.readAll(), QSsl::Pem).isEmpty())
        return "the certificate authority file '" + path
               + "' holds no PEM certificate (-----BEGIN CERTIFICATE-----)";
    return {};
}

RemoteApi::RemoteApi(RemoteOptions options)
    : m_options(std::move(options))
    , m_sleep([](int ms) { QThread::msleep(static_cast<unsigned long>(ms)); })
{
    QString base = QString::fromStdString(m_options.url);
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    m_options.url = base.toStdString();
    // An ODS/API data address (".../data/v3", ".../data/v3/2026", ".../data/v3/district/2026") is
    // taken as given; its API describes itself above it.
    const qsizetype data = base.indexOf(QLatin1String("/data/v3"), 0, Qt::CaseInsensitive);
    if (data >= 0 && (base.size() == data + 8 || base.at(data + 8) == QLatin1Char('/'))) {
        m_root = QUrl(base.left(data));
        m_route = base.mid(data + 8);
        m_dataAddressGiven = true;
    } else {
        m_root = QUrl(base);
    }
    m_dataBase = QUrl(base);
    m_tokenUrl = QUrl(m_root.toString() + QStringLiteral("/oauth/token"));
}

namespace {

QString withoutTrailingSlash(QString text)
{
    while (text.endsWith(QLatin1Char('/')))
        text.chop(1);
    return text;
}

} // namespace

bool RemoteApi::connect(std::string *error)
{
    if (!m_dataBase.isValid() || (m_dataBase.scheme() != QLatin1String("http") && m_dataBase.scheme() != QLatin1String("https"))) {
        *error = "'" + m_options.url + "' is not an http(s) address";
        return false;
    }
    // Before anything is looked up or sent.
    if (std::string problem = addressProblem(m_options.url, m_options.plainHttp); !problem.empty()) {
        *error = problem;
        return false;
    }
    if (!m_options.caCertFile.empty())
        if (std::string problem = caCertificateProblem(m_options.caCertFile); !problem.empty()) {
            *error = problem;
            return false;
        }
    // Ed-Fi APIs describe themselves at their root; use the addresses they give when they do.
    QUrl root;
    const RemoteResponse discovery = discover(m_root, &root);
    if (discovery.status == 0) {
        *error = m_options.url + ": " + discovery.describe();
        return false;
    }
    const Json document = discovery.json();
    if (discovery.status == 200 && document.is_object() && document.contains("urls") && document["urls"].is_object()) {
        const Json &urls = document["urls"];
        auto url = [&urls](const char *name) {
            return urls.contains(name) && urls[name].is_string()
                       ? withoutTrailingSlash(QString::fromStdString(urls[name].get<std::string>()))
                       : QString();
        };
        if (!url("oauth").isEmpty())
            m_tokenUrl = QUrl(url("oauth"));
        const std::string mode = document.value("apiMode", std::string());
        if (!m_dataAddressGiven && !url("dataManagementApi").isEmpty()) {
            if (root != m_root) {
                // The address given is below the API's root: a data address of its own (Meadowlark's
                // "/local/v3.3b"), taken as given, with the token address the root names.
                m_dataAddressGiven = true;
            } else if (apiModeNeedsRoute(mode)) {
                *error = m_options.url + " is an Ed-Fi API in '" + mode + "' mode: give its data address with "
                         + "the route, e.g. " + url("dataManagementApi").toStdString() + "/2026";
                return false;
            } else {
                m_dataBase = QUrl(url("dataManagementApi"));
            }
        }
        if (!url("changeQueries").isEmpty())
            m_changeQueries = QUrl(url("changeQueries") + m_route);
        // The addresses it names carry the secret, the token and the records: the same rule as the one given.
        for (const QUrl &named : {m_tokenUrl, m_dataBase, m_changeQueries}) {
            const std::string problem = named.isEmpty() ? std::string()
                                                        : addressProblem(named.toString().toStdString(),
                                                                         m_options.plainHttp);
            if (!problem.empty()) {
                *error = "the discovery document of " + m_options.url + " names " + problem;
                return false;
            }
        }
    }
    if (discovery.status == 200 && document.is_object()) {
        auto text = [&document](const char *name, const char *fallback) {
            return document.contains(name) && document[name].is_string() ? document[name].get<std::string>()
                                                                          : std::string(fallback);
        };
        const std::string version = text("version", "");
        const std::string suite = text("suite", "");
        const std::string application = text("applicationName", "ODS/API");
        if (!version.empty())
            m_serverName = application + " " + version + (suite.empty() ? "" : " (suite " + suite + ")");
        const int major = std::atoi(version.c_str());
        m_promisesIfMatchOnCreate = suite == "3" && major >= 7;
    }
    return fetchToken(error);
}

RemoteResponse RemoteApi::discover(const QUrl &address, QUrl *root)
{
    RemoteResponse first = sendWithRetries("GET", address, {}, {}, false);
    *root = address;
    auto describesItself = [](const RemoteResponse &answer) {
        if (answer.status != 200)
            return false;
        const Json document = answer.json();
        return document.is_object() && document.contains("urls") && document["urls"].is_object();
    };
    if (first.status == 0 || describesItself(first) || m_dataAddressGiven)
        return first;
    // A data address that is not under /data/v3 (Meadowlark, a proxy): its API may describe itself
    // further up. The nearest address above it that does is taken; the given one otherwise.
    QString path = withoutTrailingSlash(address.path());
    while (!path.isEmpty()) {
        path = path.left(std::max<qsizetype>(path.lastIndexOf(QLatin1Char('/')), 0));
        QUrl parent = address;
        parent.setPath(path.isEmpty() ? QStringLiteral("/") : path);
        const RemoteResponse answer = sendWithRetries("GET", parent, {}, {}, false);
        if (describesItself(answer)) {
            *root = parent;
            return answer;
        }
    }
    return first;
}

bool RemoteApi::fetchToken(std::string *error)
{
    // HTTP Basic with the grant in the form, as Ed-Fi's own clients ask: ODS/API takes it, and the
    // Data Management Service takes nothing else. Credentials in the form are the fallback.
    const QByteArray basic = "Basic "
                             + (QUrl::toPercentEncoding(QString::fromStdString(m_options.client)) + ':'
                                + QUrl::toPercentEncoding(QString::fromStdString(m_options.secret)))
                                   .toBase64();
    RemoteResponse answer = sendWithRetries("POST", m_tokenUrl, "grant_type=client_credentials",
                                            "application/x-www-form-urlencoded", false, basic);
    if (answer.status == 400 || answer.status == 401) {
        QUrlQuery form;
        form.addQueryItem(QStringLiteral("grant_type"), QStringLiteral("client_credentials"));
        form.addQueryItem(QStringLiteral("client_id"), QString::fromStdString(m_options.client));
        form.addQueryItem(QStringLiteral("client_secret"), QString::fromStdString(m_options.secret));
        answer = sendWithRetries("POST", m_tokenUrl, form.toString(QUrl::FullyEncoded).toUtf8(),
                                 "application/x-www-form-urlencoded", false);
    }
    const Json token = answer.json();
    if (answer.status != 200 || !token.is_object() || !token.contains("access_token")
        || !token["access_token"].is_string()) {
        *error = "no token from " + m_tokenUrl.toString().toStdString() + " for client '" + m_options.client
                 + "': " + answer.describe();
        return false;
    }
    m_token = QByteArray::fromStdString(token["access_token"].get<std::string>());
    ++m_tokenGeneration;
    return true;
}

RemoteResponse RemoteApi::sendWithRetries(const std::string &method, const QUrl &url, const QByteArray &body,
                                          const QByteArray &contentType, bool withToken,
                                          const QByteArray &authorization)
{
    for (int attempt = 0;; ++attempt) {
        RemoteResponse response = sendOnce(method, url, body, contentType, withToken, authorization);
        if (!response.transient() || attempt >= m_options.retries)
            return response;
        m_sleep(m_options.firstBackoffMs << attempt);
    }
}

RemoteResponse RemoteApi::send(const std::string &method, const std::string &pathAndQuery, const QByteArray &body,
                               const std::string &ifMatch)
{
    return sendAuthorized(method, QUrl(m_dataBase.toString() + QString::fromStdString(pathAndQuery)), body, ifMatch);
}

RemoteResponse RemoteApi::sendChangeQueries(const std::string &pathAndQuery)
{
    return sendAuthorized("GET", QUrl(m_changeQueries.toString() + QString::fromStdString(pathAndQuery)), {});
}

RemoteResponse RemoteApi::sendAuthorized(const std::string &method, const QUrl &url, const QByteArray &body,
                                         const std::string &ifMatch)
{
    const QByteArray contentType = body.isEmpty() ? QByteArray() : QByteArray("application/json");
    bool refreshed = false;
    int delay = m_options.firstBackoffMs;
    for (int attempt = 0;; ++attempt) {
        RemoteResponse response = sendOnce(method, url, body, contentType, true, {}, ifMatch);
        if (response.status == 401 && !refreshed) {
            refreshed = true;
            std::string ignored;
            if (fetchToken(&ignored))
                continue;
        }
        if (response.status == 429 && attempt < m_options.retries + 20) {
            // Rate-limited: wait as long as the API asks (within reason), then try again.
            const std::optional<int> asked = response.retryAfterMs();
            m_sleep(std::clamp(asked && *asked > 0 ? *asked : delay, 100, 30000));
            continue;
        }
        if (!response.transient() || attempt >= m_options.retries)
            return response;
        m_sleep(delay);
        delay *= 2;
    }
}

HttpCall RemoteApi::prepare(const std::string &method, const QUrl &url, const QByteArray &body,
                            const QByteArray &contentType, bool withToken, const QByteArray &authorization,
                            const std::string &ifMatch) const
{
    HttpCall call;
    call.method = method;
    call.url = url.toEncoded().toStdString();
    call.label = method + " " + url.toString(QUrl::RemoveUserInfo).toStdString();
    call.headers.emplace_back("Accept: application/json");
    if (!contentType.isEmpty())
        call.headers.push_back("Content-Type: " + contentType.toStdString());
    if (withToken)
        call.headers.push_back("Authorization: Bearer " + m_token.toStdString());
    else if (!authorization.isEmpty())
        call.headers.push_back("Authorization: " + authorization.toStdString());
    if (!ifMatch.empty())
        call.headers.push_back("If-Match: \"" + ifMatch + "\"");
    call.body = body;
    call.idleTimeoutMs = m_options.timeoutMs;
    call.caFile = m_options.caCertFile;
    call.plainRedirects = m_options.plainHttp;
    return call;
}

void RemoteApi::start(HttpCarrier &carrier, const RemoteRequest &request, QObject *receiver,
                      HttpCarrier::Answered answered) const
{
    const QUrl url(m_dataBase.toString() + QString::fromStdString(request.path));
    const QByteArray contentType = request.body.isEmpty() ? QByteArray() : QByteArray("application/json");
    carrier.send(prepare(request.method, url, request.body, contentType, true, {}, request.ifMatch), receiver,
                 std::move(answered));
}

bool RemoteApi::renewToken()
{
    std::string ignored;
    return fetchToken(&ignored);
}

RemoteResponse RemoteApi::sendOnce(const std::string &method, const QUrl &url, const QByteArray &body,
                                   const QByteArray &contentType, bool withToken, const QByteArray &authorization,
                                   const std::string &ifMatch)
{
    return m_carrier.exchange(prepare(method, url, body, contentType, withToken, authorization, ifMatch));
}

} // namespace steward
