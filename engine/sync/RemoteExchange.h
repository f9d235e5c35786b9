#pragma once

// What a sync asks of an Ed-Fi API and what it gets back, as plain data: the decisions of a push or a
// pull (engine/sync) are made on these, and app/net only carries them over HTTP.

#include "Json.h"

#include <QByteArray>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace steward {

// One request to the target's data API; path is relative to it ("/ed-fi/schools?limit=500").
struct RemoteRequest
{
    std::string method;
    std::string path;
    QByteArray body;
    std::string ifMatch; // sent as If-Match, quoted, when not empty (an etag as a document's _etag spells it)
};

struct RemoteResponse
{
    int status = 0;           // 0: no HTTP answer (see networkError)
    std::string networkError; // connection refused, timeout, ...
    // A network failure no retry mends: the server's certificate was refused (unknown authority,
    // expired, another name), or the certificate authority file given cannot be used.
    bool lasting = false;
    QByteArray body;
    std::vector<std::pair<std::string, std::string>> headers; // names lower-cased
    std::string request; // what was sent, as sent: "GET http://host/local/v3.3b/ed-fi/students?limit=500"

    std::string header(const std::string &lowerName) const;
    // Worth retrying: no answer at all, or a server-side failure.
    bool transient() const { return (status == 0 && !lasting) || status >= 500; }
    // The target asks for fewer requests: 429 Too Many Requests, or 503 Service Unavailable with a
    // Retry-After (without one, a 503 is a server that failed: retried with backoff as transient).
    bool pushedBack() const { return status == 429 || (status == 503 && !header("retry-after").empty()); }
    // Retry-After in milliseconds (seconds or an HTTP date), when the answer has one.
    std::optional<int> retryAfterMs() const;
    Json json() const; // the body parsed, or {"detail": <text>} when it is not JSON
    // The status and the server's problem ("HTTP 400: ...", "HTTP 404, no body", a network error).
    std::string describe() const;
    // describe() with the request it answers: "HTTP 404, no body, to GET http://...".
    std::string describeWithRequest() const;
};

// The last path segment of a Location header: the id the API gave the document.
std::string idFromLocation(const std::string &location);

// An ETag header's value as a document's _etag spells it: without a weak marker and quotes.
std::string etagFromHeader(std::string value);

// A document's etag as the target gave it: the body's _etag, else the ETag header of the answer.
std::string etagOf(const Json &body, const RemoteResponse *response = nullptr);

} // namespace steward
