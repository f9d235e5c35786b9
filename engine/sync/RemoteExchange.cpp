#include "RemoteExchange.h"

#include <QDateTime>
#include <QString>

#include <algorithm>
#include <cstdlib>

namespace steward {

std::string RemoteResponse::header(const std::string &lowerName) const
{
    for (const auto &[name, value] : headers)
        if (name == lowerName)
            return value;
    return {};
}

std::optional<int> RemoteResponse::retryAfterMs() const
{
    const std::string value = header("retry-after");
    if (value.empty())
        return std::nullopt;
    if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return static_cast<int>(std::min<long long>(std::atoll(value.c_str()), 3600) * 1000);
    // An HTTP date ("Wed, 21 Oct 2026 07:28:00 GMT"): the time until then.
    const QDateTime until = QDateTime::fromString(QString::fromStdString(value), Qt::RFC2822Date);
    if (!until.isValid())
        return std::nullopt;
    return static_cast<int>(std::clamp<qint64>(QDateTime::currentDateTimeUtc().msecsTo(until), 0, 3600 * 1000));
}

Json RemoteResponse::json() const
{
    if (body.isEmpty())
        return nullptr;
    // A target's answer is read with the limits of any untrusted text, but a page of documents may
    // be larger than a request's body.
    JsonParseLimits limits;
    limits.maxBytes = 256u * 1024 * 1024;
    JsonParseResult parsed = parseJson(std::string_view(body.constData(), static_cast<std::size_t>(body.size())), limits);
    if (!parsed.value)
        return Json{{"detail", body.left(2000).toStdString()}};
    return std::move(*parsed.value);
}

std::string RemoteResponse::describe() const
{
    if (status == 0)
        return networkError.empty() ? std::string("no answer") : networkError;
    std::string text = "HTTP " + std::to_string(status);
    if (body.isEmpty())
        return text + ", no body";
    const Json parsed = json();
    if (parsed.is_object()) {
        for (const char *field : {"detail", "error_description", "error", "title"})
            if (parsed.contains(field) && parsed[field].is_string())
                return text + ": " + parsed[field].get<std::string>();
    }
    return text;
}

std::string RemoteResponse::describeWithRequest() const
{
    return request.empty() ? describe() : describe() + ", to " + request;
}

std::string idFromLocation(const std::string &location)
{
    const std::size_t slash = location.find_last_of('/');
    return slash == std::string::npos ? location : location.substr(slash + 1);
}

std::string etagFromHeader(std::string value)
{
    if (value.rfind("W/", 0) == 0)
        value.erase(0, 2);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
        value = value.substr(1, value.size() - 2);
    return value;
}

std::string etagOf(const Json &body, const RemoteResponse *response)
{
    if (body.is_object())
        if (auto etag = body.find("_etag"); etag != body.end() && etag->is_string())
            return etag->get<std::string>();
    return response != nullptr ? etagFromHeader(response->header("etag")) : std::string();
}

} // namespace steward
