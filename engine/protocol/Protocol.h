#pragma once

#include "Json.h"
#include "Validation.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace steward {

// One request as the protocol describes it, whatever carried it (in process, NDJSON, HTTP).
struct Request
{
    std::string method;                         // GET, POST, PUT, DELETE
    std::string path;                           // "/ed-fi/schools/<id>?limit=5"
    std::map<std::string, std::string> headers; // names lower-cased
    std::optional<Json> body;
    std::string actor; // who asks: the OS user, or a serve client

    std::string header(const std::string &lowerName) const;

    // A request as the engine's own operations, the command line, tests and benches send it.
    static Request make(std::string method, std::string path, std::string actor, const Json &body = nullptr);
    // Asks for the write only while the document still has this etag (quoted here, as served).
    Request &ifMatch(const std::string &etag);
};

struct Response
{
    int status = 500;
    std::vector<std::pair<std::string, std::string>> headers; // in the order they are sent
    Json body;                                                // null when there is none

    std::string header(const std::string &name) const;
    // {"status":..,"headers":{..},"body":..}: the NDJSON response line.
    Json toJson() const;
};

// Ed-Fi problem details ("urn:ed-fi:api:..." types).
// An etag as the ETag header carries it.
std::string quotedEtag(const std::string &etag);

namespace problem {

inline constexpr const char *kBadRequest = "urn:ed-fi:api:bad-request";
inline constexpr const char *kDataValidationFailed = "urn:ed-fi:api:bad-request:data-validation-failed";
inline constexpr const char *kKeyChangeNotSupported =
    "urn:ed-fi:api:bad-request:data-validation-failed:key-change-not-supported";
inline constexpr const char *kParameterValidationFailed = "urn:ed-fi:api:bad-request:parameter-validation-failed";
inline constexpr const char *kNotFound = "urn:ed-fi:api:not-found";
inline constexpr const char *kMethodNotAllowed = "urn:ed-fi:api:method-not-allowed";
inline constexpr const char *kDependentItemExists = "urn:ed-fi:api:data-conflict:dependent-item-exists";
inline constexpr const char *kUnresolvedReference = "urn:ed-fi:api:data-conflict:unresolved-reference";
inline constexpr const char *kIdentityConflict = "urn:ed-fi:api:identity-conflict";
inline constexpr const char *kOptimisticLockFailed = "urn:ed-fi:api:optimistic-lock-failed";
inline constexpr const char *kServiceUnavailable = "urn:ed-fi:api:service-unavailable";
inline constexpr const char *kInternalError = "urn:ed-fi:api:internal-server-error";

Response make(int status, const std::string &type, const std::string &title, const std::string &detail,
              const ValidationErrors &validationErrors = {}, const std::vector<std::string> &errors = {});

// The answers the engine gives most, worded as ODS/API words them.
Response notFound(const std::string &detail);
Response dataValidationFailed(const ValidationErrors &errors);
Response parameterFailed(const std::string &message);
Response preconditionFailed();
// detail empty: ODS/API's words for an update that would duplicate a natural key.
Response identityConflict(const std::string &resourceName, const std::string &detail);

} // namespace problem

} // namespace steward
