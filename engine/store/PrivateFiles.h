#pragma once

#include <string>
#include <vector>

class QFileDevice;

namespace steward {

// Steward's files hold student records (FERPA): each file it writes with records in it is its
// owner's alone, 0600, and each folder 0700, whatever the umask (as password managers and SSH keep
// theirs). Every such mode is decided here; the writers call these instead of chmod.

// Creates the file, empty and owner-only, when it is missing; an existing file is left as it is.
// False with the reason in error when it cannot be created.
bool createPrivateFile(const std::string &path, std::string *error = nullptr);
// Creates the folder owner-only when it is missing (its parents, when missing, as usual); an
// existing folder is left as it is.
bool createPrivateDirectory(const std::string &path, std::string *error = nullptr);
// Opens a file for writing (a QSaveFile: its temporary file) and makes it owner-only before
// anything is written; a QSaveFile's commit() renames that file into place, mode and all. False
// when either fails (errorString() says why).
bool openPrivateForWriting(QFileDevice &file);
// Makes an existing file owner-only (0600), a folder 0700.
bool makePrivate(const std::string &path, std::string *error = nullptr);

// A file that other accounts may read or write: its permission bits have group or other set.
struct ExposedFile
{
    std::string path;
    unsigned mode = 0; // the permission bits, e.g. 0644
};

// The database file, its -wal and its -shm, those of them that exist and are not owner-only.
std::vector<ExposedFile> exposedDatabaseFiles(const std::string &databasePath);
// Makes the database file and its -wal and -shm (those that exist) owner-only.
bool makeDatabasePrivate(const std::string &databasePath, std::string *error = nullptr);
// "0644"
std::string modeText(unsigned mode);
// "district.db (mode 0644) and district.db-wal (mode 0644)"
std::string describeExposedFiles(const std::vector<ExposedFile> &files);

} // namespace steward
