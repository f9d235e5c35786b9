#include "AccessControl.h"

#include <QByteArray>
#include <QRandomGenerator>

#include <algorithm>
#include <cmath>
#include <vector>

namespace steward {

AccessTokens::AccessTokens(std::chrono::seconds lifetime)
    : m_lifetime(lifetime)
{
}

void AccessTokens::dropExpired(Clock::time_point now)
{
    for (auto it = m_tokens.begin(); it != m_tokens.end();) {
        if (it->second.expires <= now)
            it = m_tokens.erase(it);
        else
            ++it;
    }
}

std::string AccessTokens::issue(const std::string &client)
{
    const Clock::time_point now = Clock::now();
    dropExpired(now);
    // A client that keeps asking for tokens loses its oldest ones instead of growing the table.
    std::vector<std::unordered_map<std::string, Entry>::iterator> own;
    for (auto it = m_tokens.begin(); it != m_tokens.end(); ++it)
        if (it->second.client == client)
            own.push_back(it);
    if (own.size() >= kMaxPerClient) {
        std::sort(own.begin(), own.end(),
                  [](auto a, auto b) { return a->second.expires < b->second.expires; });
        for (std::size_t i = 0; i + kMaxPerClient <= own.size(); ++i)
            m_tokens.erase(own[i]);
    }

    QByteArray bytes(32, Qt::Uninitialized);
    QRandomGenerator *random = QRandomGenerator::system();
    for (char &b : bytes)
        b = static_cast<char>(random->bounded(256));
    const std::string token =
        bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals).toStdString();
    m_tokens[token] = Entry{client, now + m_lifetime};
    return token;
}

std::optional<std::string> AccessTokens::clientOf(const std::string &token)
{
    auto it = m_tokens.find(token);
    if (it == m_tokens.end())
        return std::nullopt;
    if (it->second.expires <= Clock::now()) {
        m_tokens.erase(it);
        return std::nullopt;
    }
    return it->second.client;
}

void AccessTokens::revokeClient(const std::string &client)
{
    for (auto it = m_tokens.begin(); it != m_tokens.end();) {
        if (it->second.client == client)
            it = m_tokens.erase(it);
        else
            ++it;
    }
}

RateLimiter::RateLimiter(int perMinute)
    : m_capacity(std::max(1, perMinute))
    , m_perSecond(std::max(1, perMinute) / 60.0)
{
}

int RateLimiter::take(const std::string &key)
{
    const Clock::time_point now = Clock::now();
    // A full bucket is the same as none, so forgetting those keeps the table small whatever the keys.
    if (m_buckets.size() >= kPruneAt) {
        for (auto it = m_buckets.begin(); it != m_buckets.end();) {
            const double elapsed = std::chrono::duration<double>(now - it->second.at).count();
            if (it->second.tokens + elapsed * m_perSecond >= m_capacity)
                it = m_buckets.erase(it);
            else
                ++it;
        }
    }
    auto [it, inserted] = m_buckets.try_emplace(key, Bucket{m_capacity, now});
    Bucket &bucket = it->second;
    if (!inserted) {
        const double elapsed = std::chrono::duration<double>(now - bucket.at).count();
        bucket.tokens = std::min(m_capacity, bucket.tokens + elapsed * m_perSecond);
        bucket.at = now;
    }
    if (bucket.tokens >= 1.0) {
        bucket.tokens -= 1.0;
        return 0;
    }
    return std::max(1, static_cast<int>(std::ceil((1.0 - bucket.tokens) / m_perSecond)));
}

} // namespace steward
