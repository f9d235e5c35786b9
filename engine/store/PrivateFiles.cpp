#include "PrivateFiles.h"

#include <QDir>
#include <QFile>
#include <QFileDevice>
#include <QFileInfo>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace steward {

namespace {

namespace fs = std::filesystem;

constexpr unsigned kFileMode = 0600;
constexpr unsigned kFolderMode = 0700;
// Group and other: any of their bits lets another account at the file.
constexpr unsigned kOthersBits = 0077;

bool failed(std::string *error, const std::string &why)
{
    if (error)
        *error = why;
    return false;
}

} // namespace

bool createPrivateFile(const std::string &path, std::string *error)
{
#ifdef Q_OS_UNIX
    // O_EXCL: only a file made here gets the mode; one that appeared meanwhile is not ours to change.
    const int descriptor = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kFileMode);
    if (descriptor < 0)
        return errno == EEXIST || failed(error, std::strerror(errno));
    // The umask may take more than group and other away (0277 would leave it read-only): set it exactly.
    const bool set = ::fchmod(descriptor, kFileMode) == 0;
    const int savedErrno = errno;
    ::close(descriptor);
    return set || failed(error, std::strerror(savedErrno));
#else
    QFile file(QString::fromStdString(path));
    if (file.exists())
        return true;
    if (!file.open(QIODevice::WriteOnly) ||
        !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner))
        return failed(error, file.errorString().toStdString());
    return true;
#endif
}

bool createPrivateDirectory(const std::string &path, std::string *error)
{
    const QString folder = QString::fromStdString(path);
    if (QFileInfo(folder).isDir())
        return true;
    const QString parent = QFileInfo(folder).absolutePath();
    if (!QDir().mkpath(parent))
        return failed(error, parent.toStdString() + ": cannot be created");
#ifdef Q_OS_UNIX
    if (::mkdir(path.c_str(), kFolderMode) != 0)
        return (errno == EEXIST && QFileInfo(folder).isDir()) || failed(error, std::strerror(errno));
    return ::chmod(path.c_str(), kFolderMode) == 0 || failed(error, std::strerror(errno));
#else
    return QDir().mkdir(folder) || failed(error, "cannot be created");
#endif
}

bool openPrivateForWriting(QFileDevice &file)
{
    // QSaveFile gives its temporary file the mode of the file it replaces; nothing is in it yet.
    return file.open(QIODevice::WriteOnly) &&
           file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

bool makePrivate(const std::string &path, std::string *error)
{
    std::error_code ec;
    const bool folder = fs::is_directory(path, ec);
    fs::permissions(path, fs::perms(folder ? kFolderMode : kFileMode), fs::perm_options::replace, ec);
    return !ec || failed(error, path + ": " + ec.message());
}

std::vector<ExposedFile> exposedDatabaseFiles(const std::string &databasePath)
{
    std::vector<ExposedFile> exposed;
    for (const char *suffix : {"", "-wal", "-shm"}) {
        const std::string path = databasePath + suffix;
        std::error_code ec;
        const fs::file_status status = fs::status(path, ec);
        if (ec || !fs::exists(status))
            continue;
        const unsigned mode = static_cast<unsigned>(status.permissions()) & 0777;
        if ((mode & kOthersBits) != 0)
            exposed.push_back({path, mode});
    }
    return exposed;
}

bool makeDatabasePrivate(const std::string &databasePath, std::string *error)
{
    for (const char *suffix : {"", "-wal", "-shm"}) {
        const std::string path = databasePath + suffix;
        std::error_code ec;
        // -wal and -shm come and go with connections; one missing now needs nothing.
        if (*suffix != '\0' && !fs::exists(path, ec))
            continue;
        if (!makePrivate(path, error))
            return false;
    }
    return true;
}

std::string modeText(unsigned mode)
{
    char text[8];
    std::snprintf(text, sizeof text, "%04o", mode & 07777);
    return text;
}

std::string describeExposedFiles(const std::vector<ExposedFile> &files)
{
    std::string text;
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (i > 0)
            text += i + 1 == files.size() ? " and " : ", ";
        text += files[i].path + " (mode " + modeText(files[i].mode) + ")";
    }
    return text;
}

} // namespace steward
