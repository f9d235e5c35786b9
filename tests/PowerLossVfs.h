#pragma once

#include <cstdint>
#include <string>

// A SQLite VFS shim for tests that simulates losing power: it passes every call to the real VFS
// but remembers, per file, what each write overwrote since that file's last sync. At a chosen sync
// (counted over all files) "the power goes": that sync fails, every later call fails, and what was
// written since each file's last sync is undone (all of it, or torn: some sectors kept), as a disk
// that never got the flush would leave it. The WAL index (-shm) is memory that a power cut loses.
// On Linux it also stands in front of the C library's rename, unlink and fsync for the whole
// program: in the folder it watches, a file SQLite made, or any file renamed or deleted, since its
// directory's last sync is put back as it was, as a file system does without that sync, and a
// directory's sync is a sync point too. Once installed, no sync reaches the real disk: what is
// durable is what the shim records.
namespace powerloss {

enum class Tear
{
    DropAll,   // nothing written since the last sync reaches the disk
    KeepSome,  // each unsynced 512-byte sector reaches the disk or not, at random (seeded)
    KeepFirst, // the unsynced writes in the order made, up to a random point
};

// What settling after a power loss changed on the disk.
struct Losses
{
    std::int64_t writesLost = 0; // unsynced writes put back whole
    std::int64_t writesTorn = 0; // unsynced writes some changed sectors of which reached the disk, some not
    // Names changed since their directory's last sync, undone.
    std::int64_t creationsLost = 0;
    std::int64_t renamesLost = 0;
    std::int64_t deletionsLost = 0;

    Losses &operator+=(const Losses &other)
    {
        writesLost += other.writesLost;
        writesTorn += other.writesTorn;
        creationsLost += other.creationsLost;
        renamesLost += other.renamesLost;
        deletionsLost += other.deletionsLost;
        return *this;
    }
};

// Installs the shim as the default VFS (once per process) and resets its counters. Files are made,
// renamed and deleted for good outside `directory`.
void install(const std::string &directory);
// Whether files made, renamed and deleted since their directory's last sync are lost too (Linux,
// where the shim stands in front of the C library's rename, unlink and fsync).
bool losesDirectoryChanges();
// Counts syncs only (no power loss) until armAt() is called.
void disarm();
// The power goes at the n-th sync from now (1: the next one).
void armAt(std::int64_t n, Tear tear, std::uint32_t seed);
std::int64_t syncsSeen();
bool powerLost();
// After the connections are closed: undoes (or tears) the unsynced writes of every file, then
// disarms. Returns what that changed on the disk.
Losses settleAfterPowerLoss();

} // namespace powerloss
