#include "Cli.h"
#include "CommandLine.h"
#include "ModelRecord.h"
#include "Readiness.h"
#include "Submissions.h"

#include <SQLiteCpp/Exception.h>

#include <cstdio>
#include <iostream>

using namespace steward;

namespace {

const char *const kStatusHelp =
    "Usage: steward-cli [--db PATH] [--schema PATH]... status [--resource R]... [--submission] [--json] [--strict]\n"
    "\n"
    "Tells whether the data is ready to submit. For each resource: stored documents, drafts, results of\n"
    "Steward's rules and of imported state results (fatal, error, warning with how many are acknowledged,\n"
    "info, and state results whose record changed since the state's run: resubmit to clear them),\n"
    "documents changed since the newest export, and documents changed since each sync target's last push.\n"
    "The first line names the model the database records (its projects and versions; --json: \"model\").\n"
    "The verdict is \"Ready to submit\" when the scope holds no drafts, no fatal or error results, no\n"
    "unacknowledged warnings and no open sync conflicts; otherwise \"Not ready:\" and why (\"12 drafts in\n"
    "Student\").\n"
    "\n"
    "Options:\n"
    "  --submission   also the last signed-off submission (steward-cli submission) and what changed since.\n"
    "  --resource R   only this resource: endpoint (\"students\"), resource name (\"Student\") or\n"
    "                 \"ed-fi/students\"; repeatable. Default: every resource.\n"
    "  --json         print the report as one JSON object instead of a table.\n"
    "  --strict       exit 1 when not ready (for scripts and CI).\n"
    "\n"
    "export and sync push check the same verdict for what they send: they warn when not ready and,\n"
    "with --strict, refuse. Exit status: 0 the report was printed (ready or not, without --strict),\n"
    "1 not ready with --strict, 2 bad arguments or a database error.\n"
    "\n"
    "Example: steward-cli status --resource students --resource studentSchoolAssociations --strict\n";

std::string padded(const std::string &text, std::size_t width, bool right)
{
    if (text.size() >= width)
        return text;
    const std::string fill(width - text.size(), ' ');
    return right ? fill + text : text + fill;
}

// The model the database records: its files, each with its projects and versions.
Json modelJson(const std::vector<RecordedModelFile> &files)
{
    Json list = Json::array();
    for (const RecordedModelFile &file : files)
        list.push_back(Json{{"name", file.name},
                            {"project", file.project},
                            {"version", file.version},
                            {"sha256", file.sha256},
                            {"starter", file.starter}});
    return Json{{"description", describeRecordedModel(files)}, {"files", list}};
}

void printTable(const CliContext &context, const ReadinessReport &report)
{
    for (std::size_t t = 0; t < report.targets.size(); ++t)
        std::cout << "sync target " << t + 1 << ": " << report.targets[t].url << " (client "
                  << report.targets[t].client << "), pushed up to change " << report.targets[t].pushCursor << "\n";
    std::cout << (report.exported ? "newest export covers changes up to " + std::to_string(report.exportedUpTo)
                                  : std::string("nothing exported yet"))
              << "\n\n";
    std::vector<std::string> header = {"resource", "documents", "drafts",       "fatal",   "error",
                                       "warning",  "ack'd",     "info",   "resubmit", "not exported"};
    for (std::size_t t = 0; t < report.targets.size(); ++t)
        header.push_back("not synced " + std::to_string(t + 1));
    std::vector<std::vector<std::string>> rows;
    for (const ResourceReadiness &r : report.resources) {
        std::vector<std::string> row = {r.project + "/" + r.resource,  std::to_string(r.documents),
                                        std::to_string(r.drafts),      std::to_string(r.fatal),
                                        std::to_string(r.error),       std::to_string(r.warning),
                                        std::to_string(r.acknowledged), std::to_string(r.info),
                                        std::to_string(r.awaitingResubmit), std::to_string(r.changesNotExported)};
        for (std::int64_t count : r.changesNotSynced)
            row.push_back(std::to_string(count));
        rows.push_back(std::move(row));
    }
    std::vector<std::size_t> widths(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
        widths[c] = header[c].size();
        for (const std::vector<std::string> &row : rows)
            widths[c] = std::max(widths[c], row[c].size());
    }
    auto printRow = [&](const std::vector<std::string> &row) {
        for (std::size_t c = 0; c < row.size(); ++c)
            std::cout << (c == 0 ? "" : "  ") << padded(row[c], widths[c], c > 0);
        std::cout << "\n";
    };
    printRow(header);
    for (const std::vector<std::string> &row : rows)
        printRow(row);
    if (rows.empty())
        std::cout << "(no documents, drafts or results)\n";
    if (report.unmatchedImported > 0)
        std::cout << "\n" << report.unmatchedImported
                  << " imported result(s) match no stored record (" << context.suggestion("rules results --unmatched")
                  << ")\n";
    std::cout << "\n" << report.verdictText() << "\n";
}

void printSubmissionStatus(const CliContext &context, const SubmissionStatus &status)
{
    if (!status.last) {
        std::cout << "\nNo submission signed off yet (" << context.suggestion("submission sign --by NAME") << ").\n";
        return;
    }
    std::cout << "\nLast submission: " << status.last->summary() << "\n"
              << "  verdict then: " << status.last->verdict.value("verdict", std::string()) << "\n";
    if (status.changedTotal == 0) {
        std::cout << "  nothing changed since\n";
        return;
    }
    std::cout << "  changed since: " << status.changedTotal << " document(s)\n";
    for (const auto &[name, count] : status.changedSince)
        std::cout << "    " << name << ": " << count << "\n";
}

} // namespace

bool checkReadinessBeforeSending(const CliContext &context, const std::string &command, Database &database,
                                 const Model &model, const std::vector<std::string> &resources, bool strict)
{
    std::vector<const ResourceSchema *> scope;
    std::string error;
    // An unknown resource is the sending command's own usage error; it reports it itself.
    if (!readinessScope(model, resources, scope, error))
        return true;
    ReadinessReport report;
    try {
        report = computeReadiness(database.connection(), scope);
    } catch (const SQLite::Exception &e) {
        std::cerr << "steward-cli: " << command << ": cannot read readiness from " << database.path() << ": "
                  << e.what() << "\n";
        return !strict;
    }
    if (report.ready)
        return true;
    if (strict) {
        std::cerr << "steward-cli: " << command << " refused (--strict): " << report.verdictText()
                  << " (see " << context.suggestion("status") << ")\n";
        return false;
    }
    std::cerr << "steward-cli: warning: " << report.verdictText() << "; " << command
              << " goes on (--strict refuses; see " << context.suggestion("status") << ")\n";
    return true;
}

int commandStatus(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << kStatusHelp;
        return kExitOk;
    }
    std::vector<std::string> resources;
    bool json = false;
    bool strict = false;
    bool submission = false;
    if (!CommandLine("status")
             .flag("--json", json)
             .flag("--strict", strict)
             .flag("--submission", submission)
             .texts("--resource", resources)
             .parse(args))
        return kExitUsage;
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    std::vector<const ResourceSchema *> scope;
    std::string error;
    if (!readinessScope(*model, resources, scope, error))
        return usageError("status", error);
    ReadinessReport report;
    try {
        report = computeReadiness(database->connection(), scope);
    } catch (const SQLite::Exception &e) {
        std::cerr << "steward-cli: database error: " << database->path() << ": " << e.what() << "\n";
        return kExitUsage;
    }
    SubmissionStatus last;
    if (submission)
        last = submissionStatus(database->connection());
    const std::vector<RecordedModelFile> modelFiles = readRecordedModelFiles(database->connection());
    if (json) {
        Json out = report.toJson();
        out["model"] = modelJson(modelFiles);
        if (submission)
            out["submission"] = last.toJson();
        std::cout << out.dump(2) << "\n";
    } else {
        std::cout << "model: " << describeRecordedModel(modelFiles) << "\n";
        printTable(context, report);
        if (submission)
            printSubmissionStatus(context, last);
    }
    std::cout << std::flush;
    return strict && !report.ready ? kExitFailed : kExitOk;
}
