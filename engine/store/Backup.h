#pragma once

#include <functional>
#include <string>

namespace steward {

struct BackupResult
{
    bool ok = false;
    std::string error;
    int pages = 0;
};

// pagesDone/pagesTotal; return false to stop (nothing is left behind at the destination).
using BackupProgress = std::function<bool(int pagesDone, int pagesTotal)>;

// Copies a Steward database with SQLite's online backup API, a few pages per step, so it works
// while the app or steward-cli has it open (a write in between makes SQLite start over). The copy
// is written beside the destination and renamed into place only once it is complete and checked.
BackupResult backupDatabase(const std::string &sourcePath, const std::string &destinationPath,
                            const BackupProgress &progress = {});

// Puts a backup in place of a database. Refuses when the database has changes newer than the
// backup's last one (unless force), or when the backup is not a Steward database this program can
// open; the replacement happens through SQLite (the backup API into the open database), so readers
// of the database see either the old or the restored content.
BackupResult restoreDatabase(const std::string &backupPath, const std::string &databasePath, bool force,
                             const BackupProgress &progress = {});

} // namespace steward
