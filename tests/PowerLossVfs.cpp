#include "PowerLossVfs.h"

#include <sqlite3.h>

#include <QFile>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

#ifdef __linux__
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace powerloss {

namespace {

constexpr std::int64_t kSector = 512;

// What one write or truncation since the file's last sync replaced.
struct Undo
{
    std::int64_t offset = 0;
    std::vector<char> before; // the bytes that were there (only the part inside the old size)
    std::int64_t sizeBefore = 0;
};

// A directory, by device and inode: a sync of it, through whatever descriptor, makes the changes
// of its names durable.
struct DirectoryKey
{
    std::uint64_t device = 0;
    std::uint64_t inode = 0;

    bool operator==(const DirectoryKey &other) const { return device == other.device && inode == other.inode; }
};

// A name made, moved or removed in the watched folder since its last sync: a power cut undoes it,
// as a file system does when the directory never reached the disk.
struct DirectoryChange
{
    enum class Kind
    {
        Create,
        Rename,
        Delete,
    };
    Kind kind = Kind::Create;
    std::string path; // the name made, renamed to, or removed
    std::string from; // a rename's old name
    // A hard link to the file the change unlinked (the one deleted, or replaced by a rename), so
    // that undoing the change can put it back; empty when it unlinked none.
    std::string keptAside;
    std::vector<Undo> keptAsideUnsynced; // that file's unsynced writes
};

struct State
{
    std::mutex mutex;
    sqlite3_vfs *real = nullptr;
    sqlite3_vfs shim{};
    bool installed = false;
    std::int64_t syncs = 0;
    std::int64_t target = 0; // 0: not armed
    Tear tear = Tear::DropAll;
    std::uint32_t seed = 0;
    bool lost = false;
    std::map<std::string, std::vector<Undo>> unsynced; // by path
    std::string watched; // the folder whose names a power cut can undo
    DirectoryKey watchedKey;
    std::vector<DirectoryChange> directoryChanges; // since its last sync, oldest first
    std::int64_t keptAsideCount = 0;               // names the hard links
};

State &state()
{
    static State s;
    return s;
}

struct ShimFile
{
    sqlite3_file base;
    sqlite3_file *real;
    char *path; // null for temporary files: nothing of them is durable
};

sqlite3_file *realOf(sqlite3_file *file)
{
    return reinterpret_cast<ShimFile *>(file)->real;
}

std::int64_t sizeOf(sqlite3_file *real)
{
    sqlite3_int64 size = 0;
    real->pMethods->xFileSize(real, &size);
    return size;
}

// Reads what is at [offset, offset + amount) now, as far as the file reaches.
std::vector<char> current(sqlite3_file *real, std::int64_t offset, std::int64_t amount)
{
    const std::int64_t size = sizeOf(real);
    std::vector<char> bytes;
    if (offset >= size)
        return bytes;
    bytes.resize(static_cast<std::size_t>(std::min(amount, size - offset)));
    real->pMethods->xRead(real, bytes.data(), static_cast<int>(bytes.size()), offset);
    return bytes;
}

bool isShm(const std::string &path)
{
    return path.size() > 4 && path.compare(path.size() - 4, 4, "-shm") == 0;
}

#ifdef __linux__

// The C library's own functions, which the ones this file defines stand in front of.
struct RealCalls
{
    int (*rename)(const char *, const char *) = nullptr;
    int (*renameat)(int, const char *, int, const char *) = nullptr;
    int (*renameat2)(int, const char *, int, const char *, unsigned int) = nullptr;
    int (*unlink)(const char *) = nullptr;
    int (*unlinkat)(int, const char *, int) = nullptr;
    int (*fsync)(int) = nullptr;
    int (*fdatasync)(int) = nullptr;
};

template <typename Function>
void lookUp(Function &function, const char *name)
{
    function = reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

const RealCalls &real()
{
    static const RealCalls calls = [] {
        RealCalls c;
        lookUp(c.rename, "rename");
        lookUp(c.renameat, "renameat");
        lookUp(c.renameat2, "renameat2");
        lookUp(c.unlink, "unlink");
        lookUp(c.unlinkat, "unlinkat");
        lookUp(c.fsync, "fsync");
        lookUp(c.fdatasync, "fdatasync");
        return c;
    }();
    return calls;
}

std::string absolute(const char *path)
{
    std::error_code error;
    const std::filesystem::path full = std::filesystem::absolute(path, error);
    return error ? std::string(path) : full.lexically_normal().string();
}

DirectoryKey keyOf(const struct stat &info)
{
    return {static_cast<std::uint64_t>(info.st_dev), static_cast<std::uint64_t>(info.st_ino)};
}

bool exists(const char *path)
{
    struct stat info;
    return ::stat(path, &info) == 0;
}

// Changes are recorded while armed and the power is on; once it is off, they fail as the disk would.
bool recording(const State &s)
{
    return s.installed && s.target > 0 && !s.lost;
}

// The workload's files are in one folder, on the disk that loses power. Scratch files elsewhere (an
// import's spool in the system's temporary folder) are not durable state, and the folder that holds
// them must stay removable when the power is off.
bool watched(const State &s, const std::string &path)
{
    const std::string &folder = s.watched;
    return !folder.empty() && path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0
           && path[folder.size()] == '/' && path.find('/', folder.size() + 1) == std::string::npos && !isShm(path);
}

bool powerOff(const State &s)
{
    return s.target > 0 && s.lost;
}

// Keeps the file at `path` reachable under another name, for undoing its unlinking; false when
// there is no such file.
bool keepAside(State &s, const std::string &path, DirectoryChange &change)
{
    const std::string aside = path + ".powerloss-" + std::to_string(++s.keptAsideCount);
    if (::link(path.c_str(), aside.c_str()) != 0)
        return false;
    change.keptAside = aside;
    return true;
}

void dropKeptAside(const DirectoryChange &change)
{
    if (!change.keptAside.empty())
        real().unlink(change.keptAside.c_str());
}

void recordCreation(const char *name)
{
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    const std::string path = absolute(name);
    if (!recording(s) || !watched(s, path))
        return;
    DirectoryChange change;
    change.kind = DirectoryChange::Kind::Create;
    change.path = path;
    s.directoryChanges.push_back(std::move(change));
}

int removeFile(const char *name)
{
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    const std::string path = absolute(name);
    if (powerOff(s) && watched(s, path)) {
        errno = EIO;
        return -1;
    }
    DirectoryChange change;
    if (!recording(s) || !watched(s, path) || !keepAside(s, path, change)) {
        const int rc = real().unlink(name);
        if (rc == 0)
            s.unsynced.erase(path); // a deleted file's unsynced writes go with it
        return rc;
    }
    const int rc = real().unlink(name);
    if (rc != 0) {
        const int error = errno;
        dropKeptAside(change);
        errno = error;
        return rc;
    }
    change.kind = DirectoryChange::Kind::Delete;
    change.path = path;
    if (auto it = s.unsynced.find(path); it != s.unsynced.end()) {
        change.keptAsideUnsynced = std::move(it->second);
        s.unsynced.erase(it);
    }
    s.directoryChanges.push_back(std::move(change));
    return 0;
}

// `rename` makes the call.
template <typename Rename>
int renameFile(const char *fromName, const char *toName, Rename rename)
{
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    const std::string from = absolute(fromName);
    const std::string to = absolute(toName);
    if (powerOff(s) && (watched(s, from) || watched(s, to))) {
        errno = EIO;
        return -1;
    }
    if (!recording(s) || !watched(s, from) || !watched(s, to) || from == to) {
        const int rc = rename();
        if (rc == 0 && from != to) {
            s.unsynced.erase(to);
            if (auto it = s.unsynced.find(from); it != s.unsynced.end()) {
                s.unsynced[to] = std::move(it->second);
                s.unsynced.erase(from);
            }
        }
        return rc;
    }
    DirectoryChange change;
    change.kind = DirectoryChange::Kind::Rename;
    change.path = to;
    change.from = from;
    keepAside(s, to, change); // the file the rename replaces, if there is one
    const int rc = rename();
    if (rc != 0) {
        const int error = errno;
        dropKeptAside(change);
        errno = error;
        return rc;
    }
    if (auto it = s.unsynced.find(to); it != s.unsynced.end()) {
        change.keptAsideUnsynced = std::move(it->second);
        s.unsynced.erase(it);
    }
    if (auto it = s.unsynced.find(from); it != s.unsynced.end()) {
        s.unsynced[to] = std::move(it->second);
        s.unsynced.erase(from);
    }
    s.directoryChanges.push_back(std::move(change));
    return 0;
}

// A sync of the watched folder is a sync point like a file's (whose sync point is the VFS's xSync
// above): the power can go there. Once it is done, the changes of its names are durable. With the
// shim installed, what is durable is what the shim records: flushing the real disk too would only
// make the run wait (a third of its time here), so no sync reaches it.
int syncDescriptor(int descriptor, int (*sync)(int))
{
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.installed)
        return sync(descriptor);
    struct stat info;
    if (::fstat(descriptor, &info) != 0)
        return -1;
    if (!S_ISDIR(info.st_mode) || !(keyOf(info) == s.watchedKey))
        return 0;
    if (powerOff(s)) {
        errno = EIO;
        return -1;
    }
    ++s.syncs;
    if (s.target > 0 && s.syncs >= s.target) {
        s.lost = true; // the power goes before the directory reaches the disk
        errno = EIO;
        return -1;
    }
    for (const DirectoryChange &change : s.directoryChanges)
        dropKeptAside(change); // what it unlinked is gone for good
    s.directoryChanges.clear();
    return 0;
}

// Undoes one change; the newer ones are undone already, so the names are as it left them. Counts
// only what it could put back.
void undoChange(State &s, DirectoryChange &change, Losses &losses)
{
    switch (change.kind) {
    case DirectoryChange::Kind::Create:
        if (real().unlink(change.path.c_str()) == 0)
            ++losses.creationsLost;
        s.unsynced.erase(change.path);
        break;
    case DirectoryChange::Kind::Rename:
        if (real().rename(change.path.c_str(), change.from.c_str()) == 0)
            ++losses.renamesLost;
        if (auto it = s.unsynced.find(change.path); it != s.unsynced.end()) {
            s.unsynced[change.from] = std::move(it->second);
            s.unsynced.erase(change.path);
        }
        if (!change.keptAside.empty() && real().rename(change.keptAside.c_str(), change.path.c_str()) == 0)
            s.unsynced[change.path] = std::move(change.keptAsideUnsynced);
        break;
    case DirectoryChange::Kind::Delete:
        if (real().rename(change.keptAside.c_str(), change.path.c_str()) == 0) {
            s.unsynced[change.path] = std::move(change.keptAsideUnsynced);
            ++losses.deletionsLost;
        }
        break;
    }
}

#else

bool exists(const char *) { return true; }
void recordCreation(const char *) {}

#endif

int shimClose(sqlite3_file *file)
{
    ShimFile *shim = reinterpret_cast<ShimFile *>(file);
    const int rc = shim->real->pMethods ? shim->real->pMethods->xClose(shim->real) : SQLITE_OK;
    sqlite3_free(shim->path);
    return rc;
}

int shimRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset)
{
    if (state().lost)
        return SQLITE_IOERR_READ;
    return realOf(file)->pMethods->xRead(realOf(file), buffer, amount, offset);
}

int shimWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset)
{
    State &s = state();
    ShimFile *shim = reinterpret_cast<ShimFile *>(file);
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.lost)
            return SQLITE_IOERR_WRITE;
        if (shim->path != nullptr)
            s.unsynced[shim->path].push_back({offset, current(shim->real, offset, amount), sizeOf(shim->real)});
    }
    return shim->real->pMethods->xWrite(shim->real, buffer, amount, offset);
}

int shimTruncate(sqlite3_file *file, sqlite3_int64 size)
{
    State &s = state();
    ShimFile *shim = reinterpret_cast<ShimFile *>(file);
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.lost)
            return SQLITE_IOERR_TRUNCATE;
        const std::int64_t before = sizeOf(shim->real);
        if (shim->path != nullptr && size < before)
            s.unsynced[shim->path].push_back({size, current(shim->real, size, before - size), before});
    }
    return shim->real->pMethods->xTruncate(shim->real, size);
}

int shimSync(sqlite3_file *file, int flags)
{
    State &s = state();
    ShimFile *shim = reinterpret_cast<ShimFile *>(file);
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.lost)
            return SQLITE_IOERR_FSYNC;
        ++s.syncs;
        if (s.target > 0 && s.syncs >= s.target) {
            // The power goes before this flush reaches the disk.
            s.lost = true;
            return SQLITE_IOERR_FSYNC;
        }
    }
    const int rc = shim->real->pMethods->xSync(shim->real, flags);
    std::lock_guard<std::mutex> lock(s.mutex);
    if (rc == SQLITE_OK && shim->path != nullptr)
        s.unsynced.erase(shim->path); // durable now
    // The power went in the sync of the file's directory that the real VFS makes after a new
    // journal's first sync (and whose failure it ignores): the file may be gone, so this sync fails.
    if (rc == SQLITE_OK && s.lost)
        return SQLITE_IOERR_FSYNC;
    return rc;
}

int shimFileSize(sqlite3_file *file, sqlite3_int64 *size)
{
    if (state().lost)
        return SQLITE_IOERR_FSTAT;
    return realOf(file)->pMethods->xFileSize(realOf(file), size);
}

int shimLock(sqlite3_file *file, int level)
{
    if (state().lost)
        return SQLITE_IOERR_LOCK;
    return realOf(file)->pMethods->xLock(realOf(file), level);
}

int shimUnlock(sqlite3_file *file, int level)
{
    return realOf(file)->pMethods->xUnlock(realOf(file), level);
}

int shimCheckReservedLock(sqlite3_file *file, int *out)
{
    return realOf(file)->pMethods->xCheckReservedLock(realOf(file), out);
}

int shimFileControl(sqlite3_file *file, int op, void *arg)
{
    return realOf(file)->pMethods->xFileControl(realOf(file), op, arg);
}

int shimSectorSize(sqlite3_file *file)
{
    return realOf(file)->pMethods->xSectorSize(realOf(file));
}

int shimDeviceCharacteristics(sqlite3_file *file)
{
    return realOf(file)->pMethods->xDeviceCharacteristics(realOf(file));
}

int shimShmMap(sqlite3_file *file, int page, int pageSize, int extend, void volatile **out)
{
    if (state().lost)
        return SQLITE_IOERR_SHMMAP;
    return realOf(file)->pMethods->xShmMap(realOf(file), page, pageSize, extend, out);
}

int shimShmLock(sqlite3_file *file, int offset, int n, int flags)
{
    return realOf(file)->pMethods->xShmLock(realOf(file), offset, n, flags);
}

void shimShmBarrier(sqlite3_file *file)
{
    realOf(file)->pMethods->xShmBarrier(realOf(file));
}

int shimShmUnmap(sqlite3_file *file, int deleteFlag)
{
    return realOf(file)->pMethods->xShmUnmap(realOf(file), deleteFlag);
}

// Version 2: no xFetch/xUnfetch, so no memory-mapped I/O goes around the writes recorded here.
const sqlite3_io_methods kMethods = {2,
                                     shimClose,
                                     shimRead,
                                     shimWrite,
                                     shimTruncate,
                                     shimSync,
                                     shimFileSize,
                                     shimLock,
                                     shimUnlock,
                                     shimCheckReservedLock,
                                     shimFileControl,
                                     shimSectorSize,
                                     shimDeviceCharacteristics,
                                     shimShmMap,
                                     shimShmLock,
                                     shimShmBarrier,
                                     shimShmUnmap,
                                     nullptr,
                                     nullptr};

int shimOpen(sqlite3_vfs *, const char *name, sqlite3_file *file, int flags, int *outFlags)
{
    State &s = state();
    ShimFile *shim = reinterpret_cast<ShimFile *>(file);
    shim->real = reinterpret_cast<sqlite3_file *>(shim + 1);
    shim->path = name != nullptr ? sqlite3_mprintf("%s", name) : nullptr;
    shim->base.pMethods = nullptr;
    if (s.lost) {
        sqlite3_free(shim->path);
        return SQLITE_CANTOPEN;
    }
    const bool creates = name != nullptr && (flags & SQLITE_OPEN_CREATE) != 0 && !exists(name);
    const int rc = s.real->xOpen(s.real, name, shim->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        sqlite3_free(shim->path);
        shim->path = nullptr;
        return rc;
    }
    shim->base.pMethods = &kMethods;
    if (creates)
        recordCreation(name);
    return SQLITE_OK;
}

int shimDelete(sqlite3_vfs *, const char *name, int syncDir)
{
    State &s = state();
    if (s.lost)
        return SQLITE_IOERR_DELETE;
#ifndef __linux__
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.unsynced.erase(name); // a deleted file's unsynced writes go with it
    }
#endif
    // On Linux the real VFS's unlink() and directory sync come through the functions below.
    return s.real->xDelete(s.real, name, syncDir);
}

int shimAccess(sqlite3_vfs *, const char *name, int flags, int *out)
{
    return state().real->xAccess(state().real, name, flags, out);
}

int shimFullPathname(sqlite3_vfs *, const char *name, int size, char *out)
{
    return state().real->xFullPathname(state().real, name, size, out);
}

// Puts back what the entries replaced, newest first (a torn write keeps some of its sectors). A
// write counts only when putting back changed bytes on the disk: rewriting what was there anyway
// loses nothing, and a shim that recorded nothing counts nothing.
void undo(const std::string &path, const std::vector<Undo> &entries, Tear tear, std::mt19937 &random,
          Losses &losses)
{
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadWrite | QIODevice::ExistingOnly))
        return;
    std::size_t keep = 0; // KeepFirst: entries [0, keep) reach the disk
    if (tear == Tear::KeepFirst && !entries.empty())
        keep = static_cast<std::size_t>(random() % (entries.size() + 1));
    for (std::size_t i = entries.size(); i-- > 0;) {
        const Undo &entry = entries[i];
        if (tear == Tear::KeepFirst && i < keep)
            continue;
        if (tear == Tear::KeepSome && random() % 4 == 0)
            continue; // this one reached the disk whole
        bool putBack = false; // some bytes of it did not reach the disk
        bool kept = false;    // some changed bytes of it did
        for (std::size_t at = 0; at < entry.before.size(); at += static_cast<std::size_t>(kSector)) {
            const std::size_t length = std::min<std::size_t>(static_cast<std::size_t>(kSector), entry.before.size() - at);
            file.seek(entry.offset + static_cast<qint64>(at));
            const QByteArray now = file.read(static_cast<qint64>(length));
            const bool changed = now.size() != static_cast<qsizetype>(length)
                                 || std::memcmp(now.constData(), entry.before.data() + at, length) != 0;
            if (tear == Tear::KeepSome && random() % 2 == 0) {
                kept = kept || changed; // this sector of it reached the disk
                continue;
            }
            if (!changed)
                continue;
            file.seek(entry.offset + static_cast<qint64>(at));
            file.write(entry.before.data() + at, static_cast<qint64>(length));
            putBack = true;
        }
        if (file.size() > entry.sizeBefore) {
            file.resize(entry.sizeBefore);
            putBack = true;
        }
        if (putBack && kept)
            ++losses.writesTorn;
        else if (putBack)
            ++losses.writesLost;
    }
}

// What happened before arming is on the disk: the harness prepared those files.
void forgetUnsynced(State &s)
{
#ifdef __linux__
    for (const DirectoryChange &change : s.directoryChanges)
        dropKeptAside(change);
#endif
    s.directoryChanges.clear();
    s.unsynced.clear();
}

} // namespace

void install(const std::string &directory)
{
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
#ifdef __linux__
    s.watched = absolute(directory.c_str());
    struct stat info;
    if (::stat(s.watched.c_str(), &info) == 0)
        s.watchedKey = keyOf(info);
#else
    s.watched = directory;
#endif
    if (!s.installed) {
        s.real = sqlite3_vfs_find(nullptr);
        s.shim = *s.real;
        s.shim.iVersion = std::min(s.real->iVersion, 3);
        s.shim.szOsFile = static_cast<int>(sizeof(ShimFile)) + s.real->szOsFile;
        s.shim.zName = "powerloss";
        s.shim.pNext = nullptr;
        s.shim.xOpen = shimOpen;
        s.shim.xDelete = shimDelete;
        s.shim.xAccess = shimAccess;
        s.shim.xFullPathname = shimFullPathname;
        sqlite3_vfs_register(&s.shim, 1);
        s.installed = true;
    }
    s.syncs = 0;
    s.target = 0;
    s.lost = false;
    forgetUnsynced(s);
}

bool losesDirectoryChanges()
{
#ifdef __linux__
    return true;
#else
    return false;
#endif
}

void disarm()
{
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.syncs = 0;
    s.target = 0;
    forgetUnsynced(s);
}

void armAt(std::int64_t n, Tear tear, std::uint32_t seed)
{
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.syncs = 0;
    s.target = n;
    s.tear = tear;
    s.seed = seed;
    s.lost = false;
    forgetUnsynced(s);
}

std::int64_t syncsSeen()
{
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().syncs;
}

bool powerLost()
{
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().lost;
}

Losses settleAfterPowerLoss()
{
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    std::mt19937 random(s.seed);
    Losses losses;
#ifdef __linux__
    // Names first, newest change first. File systems that journal their metadata keep it in order,
    // so the torn variants keep the oldest few changes; dropping every write keeps none.
    std::size_t keptChanges = 0;
    if (s.tear != Tear::DropAll && !s.directoryChanges.empty())
        keptChanges = static_cast<std::size_t>(random() % (s.directoryChanges.size() + 1));
    for (std::size_t i = s.directoryChanges.size(); i-- > keptChanges;)
        undoChange(s, s.directoryChanges[i], losses);
    s.directoryChanges.resize(keptChanges);
#endif
    for (const auto &[path, entries] : s.unsynced) {
        if (isShm(path))
            continue;
        undo(path, entries, s.tear, random, losses);
    }
    forgetUnsynced(s);
    s.target = 0;
    s.syncs = 0;
    s.lost = false;
    return losses;
}

} // namespace powerloss

#ifdef __linux__

// In front of the C library's, for the whole test program: the renames and deletes of files that
// SQLite, Qt and the engine make, and the syncs of directories that make them durable. Outside an
// armed run they only pass the call on.
extern "C" int rename(const char *from, const char *to) noexcept
{
    return powerloss::renameFile(from, to, [&] { return powerloss::real().rename(from, to); });
}

extern "C" int renameat(int fromDirectory, const char *from, int toDirectory, const char *to) noexcept
{
    if (fromDirectory != AT_FDCWD || toDirectory != AT_FDCWD)
        return powerloss::real().renameat(fromDirectory, from, toDirectory, to);
    return powerloss::renameFile(from, to, [&] { return powerloss::real().renameat(AT_FDCWD, from, AT_FDCWD, to); });
}

extern "C" int renameat2(int fromDirectory, const char *from, int toDirectory, const char *to,
                         unsigned int flags) noexcept
{
    // Qt renames with RENAME_NOREPLACE; an exchange is not a rename this shim can undo.
    const unsigned int exchangeOrWhiteout = flags & ~static_cast<unsigned int>(RENAME_NOREPLACE);
    if (fromDirectory != AT_FDCWD || toDirectory != AT_FDCWD || exchangeOrWhiteout != 0)
        return powerloss::real().renameat2(fromDirectory, from, toDirectory, to, flags);
    return powerloss::renameFile(
        from, to, [&] { return powerloss::real().renameat2(AT_FDCWD, from, AT_FDCWD, to, flags); });
}

extern "C" int unlink(const char *path) noexcept
{
    return powerloss::removeFile(path);
}

extern "C" int unlinkat(int directory, const char *path, int flags) noexcept
{
    if (directory != AT_FDCWD || flags != 0)
        return powerloss::real().unlinkat(directory, path, flags);
    return powerloss::removeFile(path);
}

extern "C" int fsync(int descriptor)
{
    return powerloss::syncDescriptor(descriptor, powerloss::real().fsync);
}

extern "C" int fdatasync(int descriptor)
{
    return powerloss::syncDescriptor(descriptor, powerloss::real().fdatasync);
}

#endif
