#include "RequestPool.h"

namespace steward {

namespace {

constexpr int kMostPushBacks = 30; // 429/503 answers one request waits out before it is reported

} // namespace

RequestPool::RequestPool(RemoteApi &remote, FlowControl &flow)
    : m_remote(remote)
    , m_flow(flow)
{
    m_wake.setSingleShot(true);
    QObject::connect(&m_wake, &QTimer::timeout, this, [this] { pump(); });
}

RequestPool::~RequestPool() = default;

void RequestPool::submit(RemoteRequest request, Answered answered, bool first)
{
    auto call = std::make_unique<Call>();
    call->request = std::move(request);
    call->answered = std::move(answered);
    if (first)
        m_waiting.push_front(std::move(call));
    else
        m_waiting.push_back(std::move(call));
    pump();
}

bool RequestPool::hasRoom() const
{
    return m_inFlight + m_delayed + static_cast<int>(m_waiting.size()) < m_flow.window();
}

void RequestPool::pump()
{
    while (!m_waiting.empty() && !m_renewing) {
        const FlowControl::Clock::time_point now = FlowControl::Clock::now();
        const std::optional<std::chrono::milliseconds> wait = m_flow.waitBefore(m_inFlight, now);
        if (!wait)
            return; // the window is full: the next answer pumps again
        if (wait->count() > 0) {
            if (!m_wake.isActive() || m_wake.remainingTime() > wait->count())
                m_wake.start(static_cast<int>(wait->count()));
            return;
        }
        std::unique_ptr<Call> call = std::move(m_waiting.front());
        m_waiting.pop_front();
        m_flow.started(now);
        start(std::move(call));
    }
}

void RequestPool::start(std::unique_ptr<Call> call)
{
    ++m_inFlight;
    ++m_sent;
    call->startedAt = FlowControl::Clock::now();
    call->tokenGeneration = m_remote.tokenGeneration();
    // The call travels with its answer back to this thread; one given up with the carrier goes with it.
    auto pending = std::make_shared<std::unique_ptr<Call>>(std::move(call));
    m_remote.start(m_carrier, (*pending)->request, this, [this, pending](RemoteResponse answer) {
        --m_inFlight;
        finished(std::move(answer), std::move(*pending));
    });
}

void RequestPool::finished(RemoteResponse answer, std::unique_ptr<Call> call)
{
    const FlowControl::Clock::time_point now = FlowControl::Clock::now();
    m_flow.answered(answer.pushedBack(), answer.retryAfterMs(), call->startedAt, now);
    const RemoteOptions &options = m_remote.options();
    if (answer.status == 401 && !call->renewedToken) {
        // One new token for all the requests in flight that went with the old one: those answered while
        // it is fetched (its wait runs events) or after wait for it and go again with it.
        call->renewedToken = true;
        const bool renewed = m_renewing || call->tokenGeneration != m_remote.tokenGeneration();
        m_waiting.push_front(std::move(call));
        if (renewed)
            return pump();
        m_renewing = true;
        const bool got = m_remote.renewToken();
        m_renewing = false;
        if (!got) {
            // Answered as they were: the 401 is what the caller reports.
            std::unique_ptr<Call> failed = std::move(m_waiting.front());
            m_waiting.pop_front();
            failed->answered(answer);
        }
        return pump();
    }
    if (answer.pushedBack() && call->pushedBack < kMostPushBacks) {
        // Held back with everything else until the Retry-After has passed (FlowControl), not counted
        // as a failure.
        ++call->pushedBack;
        m_waiting.push_front(std::move(call));
        pump();
        return;
    }
    if (answer.transient() && call->attempt < options.retries) {
        const int delay = options.firstBackoffMs << call->attempt;
        ++call->attempt;
        retryLater(std::move(call), delay);
        pump();
        return;
    }
    const Answered answered = std::move(call->answered);
    call.reset();
    answered(answer);
    pump();
}

void RequestPool::retryLater(std::unique_ptr<Call> call, int delayMs)
{
    ++m_delayed;
    Call *raw = call.release();
    QTimer::singleShot(delayMs, this, [this, raw] {
        --m_delayed;
        m_waiting.push_front(std::unique_ptr<Call>(raw));
        pump();
    });
}

} // namespace steward
