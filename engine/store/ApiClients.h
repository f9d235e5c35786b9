#pragma once

#include "Database.h"

#include <QByteArray>

#include <SQLiteCpp/Statement.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace steward {

class ApiClientError : public std::runtime_error
{
public:
    enum class Kind
    {
        BadName,
        Duplicate,
    };
    ApiClientError(Kind kind, const std::string &message)
        : std::runtime_error(message)
        , m_kind(kind)
    {
    }
    Kind kind() const { return m_kind; }

private:
    Kind m_kind;
};

struct ApiClient
{
    std::string name;
    std::string createdAt;
};

struct NewApiClient
{
    std::string name;
    std::string secret; // base64url; shown once, never stored
};

// Who may call `steward-cli serve` (the api_clients table). A secret is 32 random bytes shown once
// as base64url; the database keeps only PBKDF2-HMAC-SHA256 of it with a per-client random salt and
// the iteration count used, so the count can rise later without invalidating older secrets.
class ApiClients
{
public:
    static constexpr int kIterations = 60000;
    static constexpr int kSaltBytes = 16;
    static constexpr int kSecretBytes = 32;
    static constexpr int kHashBytes = 32;

    explicit ApiClients(SQLite::Database &db);
    ~ApiClients();

    // Throws ApiClientError for a bad or taken name.
    NewApiClient add(const std::string &name);
    std::vector<ApiClient> list();
    // False when there is no such client.
    bool remove(const std::string &name);
    bool exists(const std::string &name);
    // Whether the secret belongs to the client; the hash comparison takes the same time whatever matches.
    bool verify(const std::string &name, const std::string &secret);

    // 1..64 characters of [A-Za-z0-9._-].
    static bool isValidName(const std::string &name);

private:
    SQLite::Database &m_db;
    std::unique_ptr<SQLite::Statement> m_exists;
};

// PBKDF2 (RFC 8018) with HMAC-SHA256, built on QtCore's QMessageAuthenticationCode.
QByteArray pbkdf2Sha256(const QByteArray &password, const QByteArray &salt, int iterations, int length);

} // namespace steward
