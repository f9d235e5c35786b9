#include "FlowControl.h"

#include <algorithm>

namespace steward {

namespace {

constexpr int kDefaultPauseMs = 1000; // a push-back without Retry-After
constexpr int kLongestPauseMs = 60000;
constexpr int kProbeAfterWindows = 50; // windows' worth of answers before trying the window pushed back at

} // namespace

FlowControl::FlowControl(int parallel, double ratePerSecond)
    : m_most(std::max(1, parallel))
    , m_window(m_most)
    , m_fewest(m_most)
    , m_ceiling(m_most + 1)
{
    if (ratePerSecond > 0)
        m_spacing = std::chrono::nanoseconds(static_cast<long long>(1e9 / ratePerSecond));
}

std::optional<std::chrono::milliseconds> FlowControl::waitBefore(int inFlight, Clock::time_point now) const
{
    if (inFlight >= m_window)
        return std::nullopt;
    const Clock::time_point earliest = std::max(m_pausedUntil, m_nextStart);
    if (earliest <= now)
        return std::chrono::milliseconds(0);
    // Rounded up: a timer that fires early would find the wait not over yet.
    return std::chrono::ceil<std::chrono::milliseconds>(earliest - now);
}

void FlowControl::started(Clock::time_point now)
{
    if (m_spacing.count() > 0)
        m_nextStart = std::max(now, m_nextStart) + m_spacing;
}

void FlowControl::answered(bool pushedBack, std::optional<int> retryAfterMs, Clock::time_point startedAt,
                           Clock::time_point now)
{
    if (!pushedBack) {
        // One more in flight after a window's worth of answers that went through.
        if (m_window >= m_most)
            return;
        const bool probing = m_window + 1 >= m_ceiling;
        if (++m_goodSinceWidened >= m_window * (probing ? kProbeAfterWindows : 1)) {
            ++m_window;
            m_goodSinceWidened = 0;
            if (probing)
                m_ceiling = m_window + 1;
        }
        return;
    }
    ++m_pushedBack;
    m_goodSinceWidened = 0;
    const int pause = std::clamp(retryAfterMs.value_or(kDefaultPauseMs), 0, kLongestPauseMs);
    m_pausedUntil = std::max(m_pausedUntil, now + std::chrono::milliseconds(pause));
    // The requests in flight when the window last narrowed were sent at the old pace: their push-backs
    // are the same news, not a reason to narrow again.
    if (startedAt < m_lastNarrowed)
        return;
    m_ceiling = m_window;
    m_window = std::max(1, m_window / 2);
    m_fewest = std::min(m_fewest, m_window);
    m_lastNarrowed = now;
}

} // namespace steward
