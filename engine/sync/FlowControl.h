#pragma once

#include <chrono>
#include <optional>

namespace steward {

// How many requests a sync keeps in flight and when the next may go. A 429 or 503 slows the whole
// sync down, not only the request that got it: the window of requests in flight halves (once per
// push-back, however many requests in flight were answered so) and nothing new goes until the
// Retry-After the target gave has passed; answers that are not push-backs widen it again, one request
// per window's worth, up to just below the window that was pushed back. Beyond that it probes only
// after a long run of answers, so that a target with a fixed limit is not pushed into a pause again
// and again. A rate, when given, spaces requests evenly.
class FlowControl
{
public:
    using Clock = std::chrono::steady_clock;

    explicit FlowControl(int parallel, double ratePerSecond = 0);

    int window() const { return m_window; }
    int fewestInFlight() const { return m_fewest; }
    int pushedBack() const { return m_pushedBack; }
    // How long to wait before a request may start with `inFlight` running: zero to go now; none when
    // the window is full (the next answer frees a place).
    std::optional<std::chrono::milliseconds> waitBefore(int inFlight, Clock::time_point now) const;
    void started(Clock::time_point now);
    // An answer to a request started at `startedAt`; retryAfterMs as the target gave it.
    void answered(bool pushedBack, std::optional<int> retryAfterMs, Clock::time_point startedAt,
                  Clock::time_point now);

private:
    int m_most = 1;
    int m_window = 1;
    int m_fewest = 1;
    int m_pushedBack = 0;
    int m_goodSinceWidened = 0;
    int m_ceiling = 0; // the window the target last pushed back at; above m_most: none yet
    std::chrono::nanoseconds m_spacing{0};
    Clock::time_point m_nextStart{};
    Clock::time_point m_pausedUntil{};
    Clock::time_point m_lastNarrowed{};
};

} // namespace steward
