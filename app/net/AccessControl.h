#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>

namespace steward {

// Bearer tokens handed out by POST /oauth/token. They live in memory only: a restart of
// `steward-cli serve` asks every client to fetch a new one, which OAuth2 clients do anyway.
class AccessTokens
{
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::size_t kMaxPerClient = 64;

    explicit AccessTokens(std::chrono::seconds lifetime);

    // 32 random bytes as base64url.
    std::string issue(const std::string &client);
    // The client the token was issued to; empty when unknown or expired.
    std::optional<std::string> clientOf(const std::string &token);
    void revokeClient(const std::string &client);
    std::chrono::seconds lifetime() const { return m_lifetime; }

private:
    struct Entry
    {
        std::string client;
        Clock::time_point expires;
    };
    void dropExpired(Clock::time_point now);

    std::chrono::seconds m_lifetime;
    std::unordered_map<std::string, Entry> m_tokens;
};

// A token bucket per key: `perMinute` requests per minute on average, bursts up to `perMinute`.
class RateLimiter
{
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::size_t kPruneAt = 4096;

    explicit RateLimiter(int perMinute);

    // 0 when the request may go ahead (one token taken); otherwise whole seconds until one is back.
    int take(const std::string &key);

private:
    struct Bucket
    {
        double tokens = 0;
        Clock::time_point at;
    };
    double m_capacity;
    double m_perSecond;
    std::unordered_map<std::string, Bucket> m_buckets;
};

} // namespace steward
