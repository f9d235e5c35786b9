#include "Protocol.h"

namespace steward {

std::string Request::header(const std::string &lowerName) const
{
    auto it = headers.find(lowerName);
    return it == headers.end() ? std::string() : it->second;
}

Request Request::make(std::string method, std::string path, std::string actor, const Json &body)
{
    Request request;
    request.method = std::move(method);
    request.path = std::move(path);
    request.actor = std::move(actor);
    if (!body.is_null())
        request.body = body;
    return request;
}

Request &Request::ifMatch(const std::string &etag)
{
    headers["if-match"] = "\"" + etag + "\"";
    return *this;
}

std::string Response::header(const std::string &name) const
{
    for (const auto &[key, value] : headers)
        if (key == name)
            return value;
    return {};
}

Json Response::toJson() const
{
    Json headersJson = Json::object();
    for (const auto &[key, value] : headers)
        headersJson[key] = value;
    return Json{{"status", status}, {"headers", headersJson}, {"body", body}};
}

namespace problem {

Response make(int status, const std::string &type, const std::string &title, const std::string &detail,
              const ValidationErrors &validationErrors, const std::vector<std::string> &errors)
{
    Response response;
    response.status = status;
    Json validation = Json::object();
    for (const auto &[path, messages] : validationErrors)
        validation[path] = messages;
    response.body = Json{{"detail", detail},           {"type", type},     {"title", title},
                         {"status", status},           {"validationErrors", validation},
                         {"errors", Json(errors)}};
    return response;
}

} // namespace problem

} // namespace steward
