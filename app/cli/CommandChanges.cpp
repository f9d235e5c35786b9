#include "Cli.h"
#include "CommandLine.h"
#include "ChangeWatch.h"
#include "Sync.h"

#include <QThread>

#include <iostream>

using namespace steward;

int commandChanges(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] changes [--since SEQ] [--follow | --summary]\n"
                     "\n"
                     "Prints the change log as NDJSON, one line per change, oldest first:\n"
                     "  {\"seq\":..,\"op\":\"insert|update|key-change|delete\",\"project\":..,\"resource\":..,\"id\":..,\n"
                     "   \"identity\":{..},\"at\":..,\"actor\":..,\"source\":..,\"body\":{..},\"etag\":..}   (no body for a\n"
                     "   delete; source, what made the change, when it was recorded: \"import FILE\", \"pull URL\"...)\n"
                     "--since SEQ   only changes after SEQ (the last seq you saw).\n"
                     "--follow      keep running and print new changes as they are committed (Ctrl-C stops).\n"
                     "--summary     print only what changed after SEQ, per resource, as one JSON object:\n"
                     "              {\"since\":..,\"newest\":..,\"changes\":..,\"resources\":[{\"project\",\"resource\",\"changes\"}]}\n"
                     "\n"
                     "Example: steward-cli changes --since 1200 --follow | my-downstream-tool\n";
        return kExitOk;
    }
    std::int64_t since = 0;
    bool follow = false;
    bool summary = false;
    if (!CommandLine("changes").flag("--follow", follow).flag("--summary", summary).wholeNumber("--since", since).parse(args))
        return kExitUsage;
    if (follow && summary)
        return usageError("changes", "--follow and --summary do not go together");
    std::unique_ptr<Database> database;
    try {
        database = Database::open(context.resolvedDatabasePath(), Database::Access::ReadOnly);
        context.warnIfReadableByOthers();
    } catch (const StorageError &e) {
        std::cerr << "steward-cli: database error: " << e.what() << "\n";
        return kExitUsage;
    }
    SQLite::Database &db = database->connection();
    if (summary) {
        std::cout << summarizeChangesSince(db, since).toJson().dump() << "\n";
        return kExitOk;
    }
    const InterruptGuard interrupt;
    std::int64_t dataVersion = -1;
    while (!interrupt.interrupted()) {
        // PRAGMA data_version changes when another connection commits: poll it, not the table.
        const std::int64_t version = db.execAndGet("PRAGMA data_version").getInt64();
        if (version != dataVersion) {
            dataVersion = version;
            for (;;) {
                const std::vector<ChangeEntry> page = readChanges(db, since, 1000);
                for (const ChangeEntry &entry : page)
                    std::cout << entry.toJson().dump() << "\n";
                std::cout.flush();
                if (!page.empty())
                    since = page.back().seq;
                if (page.size() < 1000)
                    break;
            }
        }
        if (!follow)
            break;
        QThread::msleep(250);
    }
    return kExitOk;
}
