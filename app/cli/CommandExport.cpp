#include "Cli.h"
#include "CommandLine.h"
#include "Submissions.h"
#include "Exporter.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <iostream>
#include <optional>

#include <unistd.h>

using namespace steward;

namespace {

const char *const kExportHelp =
    "Usage: steward-cli [--db PATH] [--schema PATH]... export --out DIR [--resource R]...\n"
    "                  [--changed-since BATCH | --all] [--strict] [--sign-off NAME]\n"
    "\n"
    "Writes a validated batch into DIR (new or empty): one NDJSON file per resource in load\n"
    "order (\"schools.ndjson\"; \"tpdm.candidates.ndjson\" for an extension), a document body\n"
    "per line, and manifest.json with the batch id, counts, load order, the SHA-256 of every\n"
    "file, the change-log range covered and \"requires\": documents the batch references but\n"
    "does not contain. Drafts are never exported. The batch is recorded in the database.\n"
    "\n"
    "  --out DIR              the batch directory (created; must not hold anything)\n"
    "  --resource R           only this resource: endpoint (\"schools\"), resource name\n"
    "                         (\"School\") or \"ed-fi/schools\"; repeatable. Default: all\n"
    "  --changed-since BATCH  only documents changed after the batch with this id was made\n"
    "  --all                  every document (the default)\n"
    "  --strict               refuse (exit 1, nothing written) when the resources exported are\n"
    "                         not ready to submit (drafts or fatal rule results; see status).\n"
    "                         Without it, that is a warning on standard error.\n"
    "  --sign-off NAME        record the batch as a submission NAME signed off, with the\n"
    "                         readiness verdict and acknowledged warnings of now (see\n"
    "                         steward-cli submission)\n"
    "\n"
    "Prints the batch id on standard output and a summary on standard error. Exit status:\n"
    "0 written, 1 the export failed or was cancelled midway or --strict refused (nothing is left behind),\n"
    "2 bad arguments, an unknown batch or resource, a non-empty DIR, or a database error.\n"
    "\n"
    "Example:\n"
    "  steward-cli export --out batch-1\n"
    "  steward-cli export --out batch-2 --changed-since \"$(cat batch-1.id)\" --resource courses\n";

struct ExportArgs
{
    ExportOptions options;
    bool all = false;
    bool strict = false;
    std::string signedBy;
};

// The arguments read into `out`; the exit code of a usage error otherwise (said on stderr).
std::optional<int> readExportArgs(const std::vector<std::string> &args, ExportArgs &out)
{
    ExportOptions &options = out.options;
    auto once = [](const char *name, std::string &target) {
        return [name, &target](const std::string &value) {
            if (!target.empty())
                return std::string(name) + " given twice";
            target = value;
            return std::string();
        };
    };
    if (!CommandLine("export")
             .value("--out", once("--out", options.outDir))
             .texts("--resource", options.resources)
             .value("--changed-since", once("--changed-since", options.changedSinceBatch))
             .text("--sign-off", out.signedBy)
             .flag("--all", out.all)
             .flag("--strict", out.strict)
             .parse(args))
        return kExitUsage;
    if (options.outDir.empty())
        return usageError("export", "--out DIR is required");
    if (out.all && !options.changedSinceBatch.empty())
        return usageError("export", "--all and --changed-since exclude each other");
    return std::nullopt;
}

// What the export did, on stdout (the batch id) and stderr; signs it off when asked. The exit code.
int reportExport(const CliContext &context, const ExportResult &result, Database &database, const std::string &signedBy)
{
    switch (result.refused) {
    case ExportResult::Refusal::Options:
        return usageError("export", result.error);
    case ExportResult::Refusal::Database:
        std::cerr << "steward-cli: database error: " << result.error << "\n";
        return kExitUsage;
    case ExportResult::Refusal::None:
        break;
    }
    if (!result.ok) {
        std::cerr << "steward-cli: export: " << result.error << "\n";
        return kExitFailed;
    }
    std::cout << result.batchId << "\n" << std::flush;
    std::cerr << "steward-cli: exported " << result.documents << " documents of " << result.countsByResource.size()
              << " resources to " << result.directory << " (batch " << result.batchId << ", changes "
              << result.seqFrom << ".." << result.seqTo << ", " << result.required << " required documents not in it)\n";
    if (signedBy.empty())
        return kExitOk;
    try {
        const Submission submission = signOffExport(database, result.batchId, signedBy, std::string());
        std::cerr << "steward-cli: submission #" << submission.id << ": " << submission.summary() << "\n";
    } catch (const std::exception &e) {
        // The batch is written and recorded; only the sign-off is missing, and can be made again.
        std::cerr << "steward-cli: the batch is written, but not signed off: " << e.what()
                  << " (" << context.suggestion("submission sign --by NAME --batch " + result.batchId) << ")\n";
        return kExitFailed;
    }
    return kExitOk;
}

} // namespace

int commandExport(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << kExportHelp;
        return kExitOk;
    }
    ExportArgs read;
    if (const std::optional<int> usage = readExportArgs(args, read))
        return *usage;
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    if (!checkReadinessBeforeSending(context, "export", *database, *model, read.options.resources, read.strict))
        return kExitFailed;

    const bool interactive = isatty(STDERR_FILENO) == 1;
    QElapsedTimer sinceShown;
    sinceShown.start();
    bool shown = false;
    InterruptGuard interrupt;
    auto progress = [&](std::int64_t done, std::int64_t total) {
        if (interactive && sinceShown.elapsed() >= 250) {
            std::cerr << "\rexporting: " << done << " of " << total << " documents" << std::flush;
            sinceShown.restart();
            shown = true;
        }
        return !interrupt.interrupted();
    };
    const ExportResult result = exportBatch(*database, *model, read.options, progress);
    if (shown)
        std::cerr << "\r\033[K" << std::flush;
    return reportExport(context, result, *database, read.signedBy);
}

namespace {

const char *const kVerifyBatchHelp =
    "Usage: steward-cli [--schema PATH]... verify-batch DIR [--batch ID]\n"
    "\n"
    "Checks a batch written by 'export' without any database: every file's SHA-256 and\n"
    "document count against manifest.json, no file missing or unlisted, every line a JSON\n"
    "object with its natural key, and every reference and descriptor resolving to a document\n"
    "of the batch or to one of its \"requires\". Prints each problem as one line\n"
    "(file:line: what), or \"ok:\" with the counts, the batch's id and when it was made.\n"
    "\n"
    "  --batch ID   the batch DIR must hold (the id export printed): a directory left from\n"
    "               another export is then a problem, not \"ok\"\n"
    "\n"
    "Exit status: 0 the batch is sound, 1 problems found, 2 bad arguments.\n"
    "\n"
    "Example: steward-cli export --out batch-1 > batch-1.id\n"
    "         steward-cli verify-batch batch-1 --batch \"$(cat batch-1.id)\"\n";

} // namespace

int commandVerifyBatch(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << kVerifyBatchHelp;
        return kExitOk;
    }
    std::string directory;
    std::string expectedBatch;
    if (!CommandLine("verify-batch")
             .text("--batch", expectedBatch, "a batch id")
             .word(directory, "'verify-batch' takes one DIR")
             .parse(args))
        return kExitUsage;
    if (directory.empty())
        return usageError("verify-batch", "DIR is required");
    if (!QFileInfo(QString::fromStdString(directory)).isDir())
        return usageError("verify-batch", "'" + directory + "' is not a directory");
    std::unique_ptr<Model> model = context.loadModel();
    if (!model)
        return kExitUsage;
    VerifyResult result = verifyBatch(directory, *model);
    if (!expectedBatch.empty() && result.batchId != expectedBatch) {
        result.problems.insert(result.problems.begin(), "manifest.json: batch " + result.batchId + ", not "
                                                            + expectedBatch + " as asked (left from another export?)");
        result.ok = false;
    }
    for (const std::string &problem : result.problems)
        std::cout << problem << "\n";
    if (!result.ok) {
        std::cout << std::flush;
        std::cerr << "steward-cli: " << result.problems.size() << " problem(s) in " << directory << "\n";
        return kExitFailed;
    }
    std::cout << "ok: " << result.documents << " documents in " << result.files << " files of batch " << result.batchId
              << ", made " << result.createdAt << "\n";
    return kExitOk;
}
