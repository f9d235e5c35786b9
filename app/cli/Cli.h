#pragma once

#include "ApiSchema.h"
#include "Database.h"
#include "IdentityChange.h"

#include <memory>
#include <string>
#include <vector>

// What every steward-cli command shares: the global options and how to report problems.
struct CliContext
{
    std::string databasePath; // empty: the per-user default
    std::vector<std::string> schemaPaths;

    // Both print one clear line on stderr and return null on failure. loadModel: the --schema files,
    // else the model the database records (read-only; the starter model when there is no database).
    std::unique_ptr<steward::Model> loadModel() const;
    std::unique_ptr<steward::Database> openDatabase() const;
    // For commands that only read: another program may be writing meanwhile.
    std::unique_ptr<steward::Database> openReadOnlyDatabase() const;
    std::string resolvedDatabasePath() const;
    // "steward-cli --db PATH --schema FILE... REST": a command this run suggests, with the database and
    // model it was given, so that pasting it acts on the same ones (REST is already a command line).
    std::string suggestion(const std::string &rest) const;
    // Both of the above, for the commands that need a model and a writer database: the model the
    // database records, or the --schema files, recorded then unless stored documents would fall
    // outside them (refused, naming those resources and their counts).
    bool openModelAndDatabase(std::unique_ptr<steward::Model> &model, std::unique_ptr<steward::Database> &database) const;
    // One line on stderr, once a run, when other accounts can read the database (or its -wal or
    // -shm): which files, their modes and the command that makes them private. Every command that
    // opens the database calls it (the ones above do); the exit code stays what the command makes it.
    void warnIfReadableByOthers() const;

    mutable bool readableByOthersChecked = false;
};

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1; // the command ran but did not complete (input unreadable, cut off, check failed)
constexpr int kExitUsage = 2;

// "steward-cli: <message> (see steward-cli <command> --help)" on stderr; returns kExitUsage.
int usageError(const std::string &command, const std::string &message);
bool wantsHelp(const std::vector<std::string> &args);
// A whole number from min to max, all of the text ("12abc" is not one); false leaves out alone.
bool parseCount(const std::string &text, int min, int max, int &out);
// Writes the JSON (indented) to path atomically; on failure says why on stderr and returns false.
bool writeReportFile(const std::string &path, const steward::Json &report);

// Ctrl-C (SIGINT) or SIGTERM while alive asks the running command to stop at a clean point (no half
// batch, no half import) instead of killing it midway; the previous handlers come back at the end.
class InterruptGuard
{
public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard &) = delete;
    InterruptGuard &operator=(const InterruptGuard &) = delete;
    bool interrupted() const;

private:
    void (*m_previousInt)(int);
    void (*m_previousTerm)(int);
};

// One function per command; each parses its own arguments and prints its own --help.
int commandRequests(const CliContext &context, const std::vector<std::string> &args);
int commandOrder(const CliContext &context, const std::vector<std::string> &args);
int commandImport(const CliContext &context, const std::vector<std::string> &args);
int commandExport(const CliContext &context, const std::vector<std::string> &args);
int commandVerifyBatch(const CliContext &context, const std::vector<std::string> &args);
int commandGenerate(const CliContext &context, const std::vector<std::string> &args);
int commandSync(const CliContext &context, const std::vector<std::string> &args);
int commandChanges(const CliContext &context, const std::vector<std::string> &args);
int commandCheck(const CliContext &context, const std::vector<std::string> &args);
int commandBackup(const CliContext &context, const std::vector<std::string> &args);
int commandRestore(const CliContext &context, const std::vector<std::string> &args);
int commandMakePrivate(const CliContext &context, const std::vector<std::string> &args);
int commandTidy(const CliContext &context, const std::vector<std::string> &args);
int commandClients(const CliContext &context, const std::vector<std::string> &args);
int commandServe(const CliContext &context, const std::vector<std::string> &args);
int commandRules(const CliContext &context, const std::vector<std::string> &args);
int commandStatus(const CliContext &context, const std::vector<std::string> &args);
int commandSubmission(const CliContext &context, const std::vector<std::string> &args);
int commandReport(const CliContext &context, const std::vector<std::string> &args);

// Readiness of what export / sync push is about to send (resources: its --resource names, empty for
// all): ready → true; not ready → a warning on stderr and true, or with strict the refusal on stderr
// and false (the caller then sends nothing and exits 1).
bool checkReadinessBeforeSending(const CliContext &context, const std::string &command, steward::Database &database,
                                 const steward::Model &model, const std::vector<std::string> &resources, bool strict);
int commandDuplicates(const CliContext &context, const std::vector<std::string> &args);
int commandMerge(const CliContext &context, const std::vector<std::string> &args);
int commandChangeIdentity(const CliContext &context, const std::vector<std::string> &args);
// Prints the steps (or JSON) and the outcome of a merge, identity change or re-point; the exit status.
int reportIdentityResult(const CliContext &context, const std::string &command,
                         const steward::IdentityChangeResult &result, bool dryRun, bool json);
int commandDelete(const CliContext &context, const std::vector<std::string> &args);
int commandRepoint(const CliContext &context, const std::vector<std::string> &args);
int commandFind(const CliContext &context, const std::vector<std::string> &args);
int commandShow(const CliContext &context, const std::vector<std::string> &args);
int commandMapping(const CliContext &context, const std::vector<std::string> &args);
int commandCauses(const CliContext &context, const std::vector<std::string> &args);
int commandFix(const CliContext &context, const std::vector<std::string> &args);
