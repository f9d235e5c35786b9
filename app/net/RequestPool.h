#pragma once

#include "FlowControl.h"
#include "RemoteApi.h"
#include "RemoteExchange.h"

#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>
#include <vector>

class QNetworkAccessManager;
class QNetworkReply;

namespace steward {

// Carries many requests to an Ed-Fi API at once, as the FlowControl allows: up to its window in flight,
// spread over enough network managers for that many connections (one opens at most six to a host). A
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
    void finished(QNetworkReply *reply, std::unique_ptr<Call> call);
    void retryLater(std::unique_ptr<Call> call, int delayMs);

    RemoteApi &m_remote;
    FlowControl &m_flow;
    std::vector<std::unique_ptr<QNetworkAccessManager>> m_networks;
    std::vector<int> m_inFlightOn; // per manager
    std::deque<std::unique_ptr<Call>> m_waiting;
    int m_inFlight = 0;
    int m_delayed = 0; // retries waiting for their backoff
    int m_sent = 0;
    bool m_renewing = false; // a new token is being fetched: nothing starts with the old one
    QTimer m_wake;
};

} // namespace steward
