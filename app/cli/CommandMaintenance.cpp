// check, backup, restore, make-private, tidy: the commands that look after the database file itself.
#include "Backup.h"
#include "Cli.h"
#include "CommandLine.h"
#include "Engine.h"
#include "PrivateFiles.h"
#include "Tidy.h"

#include <QFileInfo>

#include <cstdio>
#include <iostream>

#include <unistd.h>

using namespace steward;

namespace {

BackupProgress pageBar(const char *label)
{
    if (!isatty(STDERR_FILENO))
        return {};
    return [label](int done, int total) {
        std::fprintf(stderr, "\r%s %d/%d pages", label, done, total);
        if (done == total)
            std::fprintf(stderr, "\n");
        std::fflush(stderr);
        return true;
    };
}

} // namespace

int commandCheck(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] [--schema PATH]... check [--full] [--repair-index] [--json]\n"
                     "\n"
                     "Checks the database: SQLite's quick_check and foreign_key_check, then for every\n"
                     "document that its referential id and aliases recompute from its body, that its reference\n"
                     "rows and index entries are exactly what its body makes and all exist, and that the change\n"
                     "log's last entry is its current state. Use the schema the database was made with.\n"
                     "--full runs SQLite's integrity_check instead of quick_check: it also proves that every\n"
                     "index holds exactly its table's rows (each entry's row is looked up).\n"
                     "--repair-index rebuilds every index first (REINDEX).  --json prints the report as JSON.\n"
                     "Exit code 0 when clean, 1 with a line per violation (document, what is wrong).\n"
                     "A database other accounts can read is reported too (JSON: readableByOthers), with the\n"
                     "command that makes it private; that alone does not change the exit code.\n"
                     "\n"
                     "Example: steward-cli --db district.db check\n";
        return kExitOk;
    }
    bool full = false;
    bool repair = false;
    bool json = false;
    if (!CommandLine("check").flag("--full", full).flag("--repair-index", repair).flag("--json", json).parse(args))
        return kExitUsage;
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    Engine engine(*model, *database);
    const bool interactive = isatty(STDERR_FILENO) == 1;
    const IntegrityReport report = engine.check(repair, [interactive](std::int64_t done, std::int64_t total) {
        if (interactive) {
            std::fprintf(stderr, "\rchecking %lld/%lld documents", static_cast<long long>(done), static_cast<long long>(total));
            std::fflush(stderr);
        }
        return true;
    }, full ? CheckDepth::Full : CheckDepth::Routine);
    if (interactive)
        std::fprintf(stderr, "\n");
    if (json) {
        std::cout << report.toJson().dump(2) << "\n";
    } else {
        for (const IntegrityViolation &v : report.violations)
            std::cout << (v.id.empty() ? std::string("database") : v.resource + " " + v.id) << ": " << v.problem << "\n";
        if (!report.readableByOthers.empty())
            std::cout << "privacy: other accounts can read " << describeExposedFiles(report.readableByOthers)
                      << "; " << context.suggestion("make-private") << " makes the database private (0600)\n";
        std::cout << report.documents << " documents checked; "
                  << (report.clean() ? std::string("no problems found")
                                     : std::to_string(report.violations.size()) + " problems")
                  << "\n";
    }
    return report.clean() ? kExitOk : kExitFailed;
}

int commandBackup(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] backup --to FILE\n"
                     "\n"
                     "Copies the database with SQLite's online backup API, page by page, while the app or other\n"
                     "commands may be using it. FILE appears only once the copy is complete and checked.\n"
                     "\n"
                     "Example: steward-cli backup --to ~/backups/steward-2026-11-22.db\n";
        return kExitOk;
    }
    std::string to;
    if (!CommandLine("backup").text("--to", to, "a file").parse(args))
        return kExitUsage;
    if (to.empty())
        return usageError("backup", "backup needs --to FILE");
    context.warnIfReadableByOthers();
    const BackupResult result = backupDatabase(context.resolvedDatabasePath(), to, pageBar("backup"));
    if (!result.ok) {
        std::cerr << "steward-cli: backup failed: " << result.error << "\n";
        return kExitFailed;
    }
    std::cout << "Backed up " << context.resolvedDatabasePath() << " to " << to << " (" << result.pages
              << " pages).\n";
    return kExitOk;
}

int commandRestore(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] restore --from FILE [--force]\n"
                     "\n"
                     "Replaces the database's content with a backup made by 'steward-cli backup'. Refuses when\n"
                     "the database has changes newer than the backup's last one, unless --force.\n"
                     "\n"
                     "Example: steward-cli restore --from ~/backups/steward-2026-11-22.db\n";
        return kExitOk;
    }
    std::string from;
    bool force = false;
    if (!CommandLine("restore").text("--from", from, "a file").flag("--force", force).parse(args))
        return kExitUsage;
    if (from.empty())
        return usageError("restore", "restore needs --from FILE");
    context.warnIfReadableByOthers();
    const BackupResult result = restoreDatabase(from, context.resolvedDatabasePath(), force, pageBar("restore"));
    if (!result.ok) {
        std::cerr << "steward-cli: restore refused: " << result.error << "\n";
        return kExitFailed;
    }
    std::cout << "Restored " << context.resolvedDatabasePath() << " from " << from << ".\n";
    return kExitOk;
}

int commandMakePrivate(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] make-private\n"
                     "\n"
                     "Makes the database file and its -wal and -shm files (those there are) readable and\n"
                     "writable by their owner alone (mode 0600): the database holds student records. Steward\n"
                     "creates its files that way and warns when it opens a database other accounts can read.\n"
                     "Nothing in the database changes; the app or other commands may have it open meanwhile.\n"
                     "\n"
                     "Example: steward-cli --db district.db make-private\n";
        return kExitOk;
    }
    if (!CommandLine("make-private").parse(args))
        return kExitUsage;
    const std::string path = context.resolvedDatabasePath();
    if (!QFileInfo::exists(QString::fromStdString(path))) {
        std::cerr << "steward-cli: " << path << ": no such database\n";
        return kExitFailed;
    }
    const std::vector<ExposedFile> exposed = exposedDatabaseFiles(path);
    std::string error;
    if (!makeDatabasePrivate(path, &error)) {
        std::cerr << "steward-cli: make-private: " << error << "\n";
        return kExitFailed;
    }
    if (exposed.empty())
        std::cout << path << " is already private: no other account can read it.\n";
    else
        std::cout << "Made private: " << describeExposedFiles(exposed) << (exposed.size() == 1 ? " is" : " are")
                  << " now 0600.\n";
    return kExitOk;
}

int commandTidy(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] tidy [--now] [--json]\n"
                     "\n"
                     "The upkeep the app does when idle: gives back pages deletes freed, merges the text indexes\n"
                     "(updates leave a document's old words behind until then) once a day, and once in 30 days\n"
                     "rewrites the file with a VACUUM when over 10% of its pages' bytes are unused (updates split\n"
                     "pages, which stay partly empty). Steps not due are skipped; --now runs them all (the VACUUM\n"
                     "still only above 10%). Nothing a document holds changes. A VACUUM holds the database for its\n"
                     "length (about a second for 100,000 documents); other writers wait. A nightly cron job\n"
                     "may run it. --json prints what was done as JSON (freePagesGivenBack, mergedTextIndexes,\n"
                     "unusedShare, vacuumed, fileBytesBefore, fileBytesAfter, busy).\n"
                     "\n"
                     "Example: steward-cli --db district.db tidy\n";
        return kExitOk;
    }
    bool now = false;
    bool json = false;
    if (!CommandLine("tidy").flag("--now", now).flag("--json", json).parse(args))
        return kExitUsage;
    if (!QFileInfo::exists(QString::fromStdString(context.resolvedDatabasePath()))) {
        std::cerr << "steward-cli: " << context.resolvedDatabasePath() << ": no such database\n";
        return kExitFailed;
    }
    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitFailed;
    TidyPolicy policy;
    policy.now = now;
    const TidyReport report = tidyUp(*database, policy);
    if (json) {
        std::cout << Json{{"freePagesGivenBack", report.freePagesGivenBack},
                          {"mergedTextIndexes", report.mergedTextIndexes},
                          {"unusedShare", report.measured ? Json(report.unusedShare) : Json()},
                          {"vacuumed", report.vacuumed},
                          {"fileBytesBefore", report.fileBytesBefore},
                          {"fileBytesAfter", report.fileBytesAfter},
                          {"busy", report.busy}}
                         .dump(2)
                  << "\n";
        return report.busy ? kExitFailed : kExitOk;
    }
    if (report.busy) {
        std::cerr << "steward-cli: tidy: another program is writing to the database; try again when it is done\n";
        return kExitFailed;
    }
    std::cout << "Free pages given back: " << report.freePagesGivenBack << ".\n";
    std::cout << (report.mergedTextIndexes ? "Text indexes merged.\n" : "Text indexes: merged within the last day.\n");
    if (!report.measured)
        std::cout << "VACUUM: not due (the file is measured once in 30 days; --now measures it).\n";
    else
        std::cout << "Unused: " << static_cast<int>(report.unusedShare * 100 + 0.5) << "% of the pages' bytes; "
                  << (report.vacuumed ? "the file was rewritten (VACUUM).\n" : "no VACUUM (it runs above 10%).\n");
    std::cout << "File: " << report.fileBytesBefore << " bytes before, " << report.fileBytesAfter << " after.\n";
    return kExitOk;
}
