#pragma once

#include <QFile>
#include <QString>

#include <sys/stat.h>

namespace steward::test {

// A file's or folder's permission bits in octal ("600", "755"), or "missing": what `ls -l` shows,
// without Qt's owner/user distinction, and readable when a comparison fails.
inline QString modeOf(const QString &path)
{
    struct stat status;
    if (::stat(QFile::encodeName(path).constData(), &status) != 0)
        return QStringLiteral("missing");
    return QString::number(status.st_mode & 07777, 8);
}

// Sets umask for a test's scope (022: group and other may read what is created, the usual default)
// and puts the previous one back.
class ScopedUmask
{
public:
    explicit ScopedUmask(mode_t mask) : m_previous(::umask(mask)) {}
    ~ScopedUmask() { ::umask(m_previous); }
    ScopedUmask(const ScopedUmask &) = delete;
    ScopedUmask &operator=(const ScopedUmask &) = delete;

private:
    mode_t m_previous;
};

} // namespace steward::test
