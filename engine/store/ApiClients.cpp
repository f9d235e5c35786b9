#include "ApiClients.h"

#include "Clock.h"

#include <SQLiteCpp/Statement.h>

#include <QMessageAuthenticationCode>
#include <QRandomGenerator>

namespace steward {

namespace {

QByteArray randomBytes(int count)
{
    QByteArray bytes(count, Qt::Uninitialized);
    QRandomGenerator *random = QRandomGenerator::system();
    for (int i = 0; i < count; ++i)
        bytes[i] = static_cast<char>(random->bounded(256));
    return bytes;
}

bool constantTimeEqual(const QByteArray &a, const QByteArray &b)
{
    if (a.size() != b.size())
        return false;
    unsigned char difference = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a[i] ^ b[i]);
    return difference == 0;
}

QByteArray blobOf(const SQLite::Column &column)
{
    return QByteArray(static_cast<const char *>(column.getBlob()), column.getBytes());
}

} // namespace

QByteArray pbkdf2Sha256(const QByteArray &password, const QByteArray &salt, int iterations, int length)
{
    QMessageAuthenticationCode mac(QCryptographicHash::Sha256, password);
    QByteArray out;
    for (quint32 block = 1; out.size() < length; ++block) {
        QByteArray counter(4, '\0');
        counter[0] = static_cast<char>(block >> 24);
        counter[1] = static_cast<char>(block >> 16);
        counter[2] = static_cast<char>(block >> 8);
        counter[3] = static_cast<char>(block);
        mac.reset();
        mac.addData(salt);
        mac.addData(counter);
        QByteArray u = mac.result();
        QByteArray t = u;
        for (int i = 1; i < iterations; ++i) {
            mac.reset();
            mac.addData(u);
            u = mac.result();
            for (qsizetype k = 0; k < t.size(); ++k)
                t[k] = static_cast<char>(t[k] ^ u[k]);
        }
        out += t;
    }
    return out.left(length);
}

ApiClients::ApiClients(SQLite::Database &db)
    : m_db(db)
{
}

ApiClients::~ApiClients() = default;

bool ApiClients::isValidName(const std::string &name)
{
    if (name.empty() || name.size() > 64)
        return false;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
                        || c == '_' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

NewApiClient ApiClients::add(const std::string &name)
{
    if (!isValidName(name))
        throw ApiClientError(ApiClientError::Kind::BadName,
                             "'" + name +
                                 "' is not a client name: use 1 to 64 letters, digits, '.', '_' or '-'");
    const QByteArray secretBytes = randomBytes(kSecretBytes);
    const QByteArray secret =
        secretBytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    const QByteArray salt = randomBytes(kSaltBytes);
    // Hashed before the transaction so the write lock is held only for the insert.
    const QByteArray hash = pbkdf2Sha256(secret, salt, kIterations, kHashBytes);

    ImmediateTransaction transaction(m_db);
    SQLite::Statement taken(m_db, "SELECT 1 FROM api_clients WHERE name = ?");
    taken.bind(1, name);
    if (taken.executeStep())
        throw ApiClientError(ApiClientError::Kind::Duplicate, "a client named '" + name + "' already exists");
    SQLite::Statement insert(
        m_db,
        "INSERT INTO api_clients (name, salt, secret_hash, iterations, created_at) VALUES (?, ?, ?, ?, ?)");
    insert.bind(1, name);
    insert.bind(2, salt.constData(), static_cast<int>(salt.size()));
    insert.bind(3, hash.constData(), static_cast<int>(hash.size()));
    insert.bind(4, kIterations);
    insert.bind(5, engineNowText());
    insert.exec();
    transaction.commit();
    return NewApiClient{name, secret.toStdString()};
}

std::vector<ApiClient> ApiClients::list()
{
    std::vector<ApiClient> clients;
    SQLite::Statement query(m_db, "SELECT name, created_at FROM api_clients ORDER BY name");
    while (query.executeStep())
        clients.push_back(ApiClient{query.getColumn(0).getString(), query.getColumn(1).getString()});
    return clients;
}

bool ApiClients::remove(const std::string &name)
{
    ImmediateTransaction transaction(m_db);
    SQLite::Statement remove(m_db, "DELETE FROM api_clients WHERE name = ?");
    remove.bind(1, name);
    const int removed = remove.exec();
    transaction.commit();
    return removed > 0;
}

bool ApiClients::exists(const std::string &name)
{
    // serve asks on every request: the statement is prepared once (preparing was a fifth of the
    // serving thread's time under load).
    if (!m_exists)
        m_exists = std::make_unique<SQLite::Statement>(m_db, "SELECT 1 FROM api_clients WHERE name = ?");
    m_exists->reset();
    m_exists->bind(1, name);
    const bool found = m_exists->executeStep();
    m_exists->reset();
    return found;
}

bool ApiClients::verify(const std::string &name, const std::string &secret)
{
    QByteArray salt;
    QByteArray stored;
    int iterations = kIterations;
    bool found = false;
    if (isValidName(name)) {
        SQLite::Statement query(m_db, "SELECT salt, secret_hash, iterations FROM api_clients WHERE name = ?");
        query.bind(1, name);
        if (query.executeStep()) {
            salt = blobOf(query.getColumn(0));
            stored = blobOf(query.getColumn(1));
            iterations = query.getColumn(2).getInt();
            found = true;
        }
    }
    // An unknown name costs the same hashing as a known one, so timing does not tell which names exist.
    if (!found) {
        salt = QByteArray(kSaltBytes, '\0');
        stored = QByteArray(kHashBytes, '\0');
    }
    if (iterations < 1 || iterations > 10'000'000 || stored.isEmpty())
        return false;
    const QByteArray computed =
        pbkdf2Sha256(QByteArray::fromStdString(secret), salt, iterations, static_cast<int>(stored.size()));
    return constantTimeEqual(computed, stored) && found;
}

} // namespace steward
