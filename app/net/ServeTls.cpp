#include "ServeTls.h"

#include <QFile>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslSocket>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace steward {

namespace {

struct BioFree
{
    void operator()(BIO *bio) const { BIO_free(bio); }
};
struct X509Free
{
    void operator()(X509 *certificate) const { X509_free(certificate); }
};
struct KeyFree
{
    void operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); }
};

// The file's bytes, or the reason it cannot be read (option: the option that named it).
bool readWhole(const char *option, const std::string &path, QByteArray &bytes, std::string &problem)
{
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) {
        problem = std::string(option) + " '" + path + "' cannot be read: " + file.errorString().toStdString();
        return false;
    }
    bytes = file.readAll();
    return true;
}

std::unique_ptr<BIO, BioFree> memoryOf(const QByteArray &bytes)
{
    return std::unique_ptr<BIO, BioFree>(BIO_new_mem_buf(bytes.constData(), static_cast<int>(bytes.size())));
}

} // namespace

std::string loadServeTls(const std::string &certificatePath, const std::string &keyPath, QSslConfiguration &out)
{
    if (!QSslSocket::supportsSsl())
        return "this build has no TLS library to serve HTTPS with (Qt found no OpenSSL backend)";
    QByteArray certificateBytes;
    QByteArray keyBytes;
    std::string problem;
    if (!readWhole("--tls-cert", certificatePath, certificateBytes, problem)
        || !readWhole("--tls-key", keyPath, keyBytes, problem))
        return problem;
    const QList<QSslCertificate> chain = QSslCertificate::fromData(certificateBytes, QSsl::Pem);
    if (chain.isEmpty())
        return "--tls-cert '" + certificatePath + "' holds no PEM certificate (-----BEGIN CERTIFICATE-----)";
    // Qt reads a key only when told its algorithm, and cannot say whether it belongs to a certificate:
    // OpenSSL, which carries the connections anyway, answers both.
    std::unique_ptr<BIO, BioFree> certificateBio = memoryOf(certificateBytes);
    std::unique_ptr<X509, X509Free> certificate(PEM_read_bio_X509(certificateBio.get(), nullptr, nullptr, nullptr));
    std::unique_ptr<BIO, BioFree> keyBio = memoryOf(keyBytes);
    // An empty pass phrase: an encrypted key is refused here rather than asked for on a terminal.
    char noPassphrase[] = "";
    std::unique_ptr<EVP_PKEY, KeyFree> key(PEM_read_bio_PrivateKey(keyBio.get(), nullptr, nullptr, noPassphrase));
    if (!key)
        return "--tls-key '" + keyPath + "' holds no private key that can be read (PEM, not encrypted)";
    const int algorithm = EVP_PKEY_base_id(key.get());
    if (algorithm != EVP_PKEY_RSA && algorithm != EVP_PKEY_EC)
        return "--tls-key '" + keyPath + "' is neither an RSA nor an EC key";
    if (!certificate || X509_check_private_key(certificate.get(), key.get()) != 1)
        return "--tls-key '" + keyPath + "' is not the private key of the certificate in --tls-cert '"
               + certificatePath + "'";
    const QSslKey qtKey(keyBytes, algorithm == EVP_PKEY_RSA ? QSsl::Rsa : QSsl::Ec, QSsl::Pem, QSsl::PrivateKey);
    if (qtKey.isNull())
        return "--tls-key '" + keyPath + "' could not be read as a PEM private key";
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setLocalCertificateChain(chain);
    configuration.setPrivateKey(qtKey);
    configuration.setProtocol(QSsl::TlsV1_2OrLater);
    configuration.setPeerVerifyMode(QSslSocket::VerifyNone);
    out = configuration;
    return {};
}

} // namespace steward
