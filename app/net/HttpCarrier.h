#pragma once

#include "RemoteExchange.h"

#include <QByteArray>

#include <functional>
#include <memory>
#include <string>
#include <vector>

class QObject;

namespace steward {

// One HTTP request as it goes on the wire.
struct HttpCall
{
    std::string method;
    std::string url;                  // absolute and percent-encoded
    std::string label;                // how answers name it: "GET http://host/ed-fi/schools"
    std::vector<std::string> headers; // "Name: value"
    QByteArray body;
    int idleTimeoutMs = 30000; // given up when nothing moves for this long (no answer within ...)
    // The certificate authorities (PEM) trusted in place of the system's: a district's own (curl's
    // --cacert). Empty: the system's. Certificates are verified either way; nothing turns that off.
    std::string caFile;
    // Whether a redirect may lead to plain HTTP; otherwise only https is followed.
    bool plainRedirects = false;
};

// Carries HTTP requests for a sync: many at once over kept-alive connections, on a thread of its own
// (libcurl's multi interface). A request costs a few system calls there; QNetworkAccessManager spent
// about 200 µs of CPU on each, more than the rest of a pushed document's work together.
// Answers are handed to `answered` on `receiver`'s thread, by its event loop, so the caller's state is
// touched on its own thread only. The receiver must outlive the carrier or the answer (RequestPool
// keeps its carrier as its last member; exchange() waits). Destroying the carrier gives up what is in
// flight; those answers are never handed over.
class HttpCarrier
{
public:
    using Answered = std::function<void(RemoteResponse)>;

    HttpCarrier();
    ~HttpCarrier();
    HttpCarrier(const HttpCarrier &) = delete;
    HttpCarrier &operator=(const HttpCarrier &) = delete;

    void send(HttpCall call, QObject *receiver, Answered answered);
    // send(), waiting on this thread for the answer; the thread's events run meanwhile.
    RemoteResponse exchange(HttpCall call);

private:
    class Loop;
    std::unique_ptr<Loop> m_loop;
};

} // namespace steward
