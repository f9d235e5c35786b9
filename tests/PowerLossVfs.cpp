#include "PowerLossVfs.h"

#include <sqlite3.h>

#include <QFile>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <vector>

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
    if (rc == SQLITE_OK && shim->path != nullptr) {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.unsynced.erase(shim->path); // durable now
    }
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
    const int rc = s.real->xOpen(s.real, name, shim->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        sqlite3_free(shim->path);
        shim->path = nullptr;
        return rc;
    }
    shim->base.pMethods = &kMethods;
    return SQLITE_OK;
}

int shimDelete(sqlite3_vfs *, const char *name, int syncDir)
{
    State &s = state();
    if (s.lost)
        return SQLITE_IOERR_DELETE;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.unsynced.erase(name); // a deleted file's unsynced writes go with it
    }
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

} // namespace

void install()
{
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
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
    s.unsynced.clear();
}

void disarm()
{
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.syncs = 0;
    s.target = 0;
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
    for (const auto &[path, entries] : s.unsynced) {
        if (path.size() > 4 && path.compare(path.size() - 4, 4, "-shm") == 0)
            continue;
        undo(path, entries, s.tear, random, losses);
    }
    s.unsynced.clear();
    s.target = 0;
    s.syncs = 0;
    s.lost = false;
    return losses;
}

} // namespace powerloss
