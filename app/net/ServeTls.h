#pragma once

#include <QSslConfiguration>

#include <string>

namespace steward {

// The TLS side of `steward-cli serve --tls-cert FILE --tls-key FILE`: the certificate (PEM, the
// server's first, then any intermediates) and its private key (PEM, RSA or EC, not encrypted), read
// and checked against each other before anything listens, so that a wrong file is a usage error
// naming it rather than every handshake failing later. TLS 1.2 or later; clients are not asked for
// certificates (they authenticate with OAuth2 client credentials inside the connection).
// An empty text and `out` set, or what is wrong, naming the file.
std::string loadServeTls(const std::string &certificatePath, const std::string &keyPath, QSslConfiguration &out);

} // namespace steward
