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

std::string quotedEtag(const std::string &etag)
{
    return "\"" + etag + "\"";
}

namespace problem {

Response notFound(const std::string &detail)
{
    return make(404, kNotFound, "Resource Not Found", detail);
}

Response dataValidationFailed(const ValidationErrors &errors)
{
    return make(400, kDataValidationFailed, "Data Validation Failed",
                "Data validation failed. See 'validationErrors' for details.", errors);
}

Response parameterFailed(const std::string &message)
{
    return make(400, kParameterValidationFailed, "Parameter Validation Failed",
                "The request could not be processed. See 'errors' for details.", {}, {message});
}

Response preconditionFailed()
{
    return make(412, kOptimisticLockFailed, "Optimistic Lock Failed", "The item has been modified by another user.",
                {},
                {"The resource item's etag value does not match what was specified in the 'If-Match' "
                 "request header indicating that it has been modified by another client since it was "
                 "last retrieved."});
}

Response identityConflict(const std::string &resourceName, const std::string &detail)
{
    return make(409, kIdentityConflict, "Identifying Values Are Not Unique",
                "The identifying value(s) of the item are the same as another item that already exists.", {},
                {detail.empty() ? "A natural key conflict occurred when attempting to update a " + resourceName + "."
                                : detail});
}

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
