#pragma once

#include "FlowControl.h"
#include "HttpCarrier.h"
#include "RemoteApi.h"
#include "RemoteExchange.h"

#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>

namespace steward {

// Carries many requests to an Ed-Fi API at once, as the FlowControl allows: up to its window in flight,
// each on a connection of its own (kept alive by the HttpCarrier for the next). A
// request is sent again with backoff while its answer is transient, and after the target's Retry-After
// when it pushed back (429, 503), which also holds every other request back (FlowControl). A 401 gets
// one new token. Answers are handed to the caller on this thread, in the order they come.
class RequestPool : public QObject
{
public:
    using Answered = std::function<void(const RemoteResponse &)>;

    RequestPool(RemoteApi &remote, FlowControl &flow);
    ~RequestPool() override;

    // first: ahead of what waits (the next request of a document under way).
    void submit(RemoteRequest request, Answered answered, bool first = false);
    // Room for one more: in flight and waiting together below the window.
    bool hasRoom() const;
    bool idle() const { return m_inFlight == 0 && m_delayed == 0 && m_waiting.empty(); }
    // Requests sent, retries included.
    int sent() const { return m_sent; }

private:
    struct Call
    {
        RemoteRequest request;
        Answered answered;
        int attempt = 0;
        int pushedBack = 0;
        bool renewedToken = false;
        int tokenGeneration = 0; // the token it went with
        FlowControl::Clock::time_point startedAt;
    };
    void pump();
    void start(std::unique_ptr<Call> call);
    void finished(RemoteResponse answer, std::unique_ptr<Call> call);
    void retryLater(std::unique_ptr<Call> call, int delayMs);

    RemoteApi &m_remote;
    FlowControl &m_flow;
    std::deque<std::unique_ptr<Call>> m_waiting;
    int m_inFlight = 0;
    int m_delayed = 0; // retries waiting for their backoff
    int m_sent = 0;
    bool m_renewing = false; // a new token is being fetched: nothing starts with the old one
    QTimer m_wake;
    // Last: destroyed first, so no answer arrives for a pool that is going (those posted and not yet
    // taken go with the pool's QObject).
    HttpCarrier m_carrier;
};

} // namespace steward
