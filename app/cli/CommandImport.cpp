#include "Cli.h"
#include "CommandLine.h"
#include "Engine.h"
#include "Importer.h"
#include "RowMapping.h"
#include "Spreadsheet.h"
#include "TableExport.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

#include <unistd.h>

using namespace steward;

namespace {

void drawBar(const ImportProgress &p)
{
    const double fraction = p.phase == "scanning" || p.phase == "reading"
                                ? (p.bytesTotal > 0 ? static_cast<double>(p.bytesRead) / p.bytesTotal : 0.0)
                                : (p.itemsTotal > 0 ? static_cast<double>(p.items) / p.itemsTotal : 0.0);
    const int width = 30;
    const int filled = static_cast<int>(fraction * width);
    std::fprintf(stderr, "\r%-8s [%s%s] %3d%%  %lld documents", p.phase.c_str(), std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), static_cast<int>(fraction * 100),
                 static_cast<long long>(p.items));
    std::fflush(stderr);
}

} // namespace

namespace {

// The crosswalk's match rate over each spreadsheet before anything is written: below the minimum the
// import stops; the rows without a student go to a file either way.
bool checkStudentIds(const ImportOptions &options, double minMatch, const std::string &unmatchedPath)
{
    for (const std::string &path : options.paths) {
        if (!isSpreadsheetFile(path))
            continue;
        StudentIdMatch match;
        try {
            match = matchStudentIds(path, *options.mapping);
        } catch (const MappingError &e) {
            std::cerr << "steward-cli: import: " << path << ": " << e.what() << "\n";
            return false;
        }
        std::cerr << "steward-cli: " << path << ": " << match.matched << " of " << match.rows
                  << " rows found their student by " << options.mapping->studentIds->column << " ("
                  << static_cast<int>(match.rate() * 1000) / 10.0 << "%)\n";
        if (!match.unmatched.empty()) {
            const std::string out = unmatchedPath.empty() ? path + ".unmatched.csv" : unmatchedPath;
            try {
                writeCsv(out, unmatchedStudentRows(match));
            } catch (const StorageError &e) {
                std::cerr << "steward-cli: import: " << e.what() << "\n";
                return false;
            }
            std::cerr << "steward-cli: the " << match.unmatched.size() << " rows without a student are in " << out << "\n";
        }
        if (match.rate() < minMatch) {
            std::cerr << "steward-cli: import stopped: " << static_cast<int>(match.rate() * 1000) / 10.0
                      << "% of the rows found their student, under --min-match " << minMatch
                      << "; nothing was imported\n";
            return false;
        }
    }
    return true;
}

} // namespace

namespace {

const char *const kImportHelp =
    "Usage: steward-cli [--db PATH] [--schema PATH]... import FILE|DIR... [--mapping FILE] [--report FILE]\n"
    "                  [--progress bar|json|none] [--chunk N] [--jobs N]\n"
    "\n"
    "Imports documents, applying them in load order whatever order they come in. Formats:\n"
    "  *.ndjson   lines {\"resource\":\"ed-fi/schools\",\"body\":{...}}\n"
    "  *.json     an array of such objects\n"
    "  schools.ndjson / schools.json   per-resource files named by endpoint (bodies only)\n"
    "  *.xml      Ed-Fi interchange XML: descriptors, or any other interchange (Interchange-*.xsd),\n"
    "             each element mapped to its resource by the loaded ApiSchema\n"
    "  DIR        every such file in it (an exported batch directory is one)\n"
    "  *.csv, *.tsv, *.txt, *.xlsx   spreadsheets, each row made into documents by --mapping\n"
    "             (steward-cli mapping suggest writes a first mapping); a row's draft names the\n"
    "             row and the column, and the report's \"line\" is the row\n"
    "Each document is stored (created, updated, unchanged) or kept as a draft with the reason.\n"
    "Work is committed in chunks (default 50000 documents); Ctrl-C stops at the next thousand\n"
    "documents and keeps those counted so far. An import large against what is stored drops the\n"
    "indexes it does not read and builds them again at the end (shown as \"indexing\").\n"
    "\n"
    "  --mapping FILE            how spreadsheet rows become documents (see steward-cli mapping --help)\n"
    "  --min-match RATE          with a mapping's studentIds (students found by another system's ids\n"
    "                            through StudentEducationOrganizationAssociation.studentIdentificationCodes):\n"
    "                            import nothing when fewer than RATE of the rows (0 to 1, e.g. 0.95) find\n"
    "                            their student. Default 0: any rate; unmatched rows become drafts.\n"
    "  --unmatched-out FILE      the rows whose student was not found, with their row numbers and why\n"
    "                            (CSV; default: FILE.unmatched.csv beside the spreadsheet)\n"
    "  --report FILE             write the totals, counts per resource and the drafts as JSON\n"
    "  --progress bar|json|none  progress on stderr (default: bar on a terminal, else none)\n"
    "  --chunk N                 documents per transaction (default 50000)\n"
    "  --jobs N                  threads that parse and validate while the writer stores (input\n"
    "                            in load order; default: every core but the writer's)\n"
    "\n"
    "Exit code 0 when all input was read and applied (drafts included), 1 when not.\n"
    "\n"
    "Example: steward-cli --db district.db import descriptors/ students.ndjson --report report.json\n"
    "         steward-cli --db district.db import vendor-scores.csv --mapping scores.json --min-match 0.95\n";

struct ImportArgs
{
    ImportOptions options;
    std::string reportPath;
    std::string mappingPath;
    std::string unmatchedPath;
    double minMatch = 0.0;
    std::string progressMode = isatty(STDERR_FILENO) ? "bar" : "none";
};

// The arguments read into `out`; the exit code of a usage error otherwise (said on stderr).
std::optional<int> readImportArgs(const std::vector<std::string> &args, ImportArgs &out)
{
    auto minMatch = [&out](const std::string &value) {
        char *end = nullptr;
        out.minMatch = std::strtod(value.c_str(), &end);
        if (*end != '\0' || !(out.minMatch >= 0.0 && out.minMatch <= 1.0))
            return std::string("--min-match takes a rate from 0 to 1, such as 0.95");
        return std::string();
    };
    if (!CommandLine("import")
             .text("--report", out.reportPath)
             .text("--unmatched-out", out.unmatchedPath)
             .value("--min-match", minMatch)
             .text("--mapping", out.mappingPath)
             .count("--jobs", 1, 256, out.options.jobs)
             .choice("--progress", out.progressMode, {"bar", "json", "none"})
             .count("--chunk", 1, 1000000, out.options.chunkSize)
             .words(out.options.paths)
             .parse(args))
        return kExitUsage;
    if (out.options.paths.empty())
        return usageError("import", "no FILE or DIR to import");
    return std::nullopt;
}

// The spreadsheet mapping, with the student ids it finds students by; an exit code when it cannot
// be used or too few rows find their student.
std::optional<int> loadMapping(ImportArgs &read, Database &database, const Model &model)
{
    if (read.mappingPath.empty()) {
        if (read.minMatch > 0.0 || !read.unmatchedPath.empty())
            return usageError("import", "--min-match and --unmatched-out need a --mapping with studentIds");
        return std::nullopt;
    }
    try {
        auto mapping = std::make_shared<RowMapping>(loadRowMapping(read.mappingPath, model));
        loadStudentIdCodes(database.connection(), model, *mapping);
        read.options.mapping = mapping;
    } catch (const MappingError &e) {
        std::cerr << "steward-cli: import: the mapping cannot be used: " << e.what() << "\n";
        return kExitUsage;
    }
    if (read.options.mapping->studentIds && !checkStudentIds(read.options, read.minMatch, read.unmatchedPath))
        return kExitFailed;
    return std::nullopt;
}

void showImportProgress(const std::string &mode, const ImportProgress &p)
{
    if (mode == "bar")
        drawBar(p);
    else if (mode == "json")
        std::cerr << Json{{"phase", p.phase},
                          {"documents", p.items},
                          {"documentsTotal", p.itemsTotal},
                          {"bytesRead", p.bytesRead},
                          {"bytesTotal", p.bytesTotal}}
                         .dump()
                  << "\n";
}

} // namespace

int commandImport(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << kImportHelp;
        return kExitOk;
    }
    ImportArgs read;
    if (const std::optional<int> usage = readImportArgs(args, read))
        return *usage;
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    if (const std::optional<int> refused = loadMapping(read, *database, *model))
        return *refused;
    Engine engine(*model, *database);
    read.options.actor = currentOsUser();

    const InterruptGuard interrupt;
    const ImportReport report = importFiles(engine, *model, read.options, [&](const ImportProgress &p) {
        showImportProgress(read.progressMode, p);
        return !interrupt.interrupted();
    });
    if (read.progressMode == "bar")
        std::fprintf(stderr, "\n");

    if (!read.reportPath.empty())
        writeReportFile(read.reportPath, report.toJson());
    const ImportCounts &t = report.totals;
    std::cerr << "steward-cli: " << t.created << " created, " << t.updated << " updated, " << t.unchanged
              << " unchanged, " << t.drafts << " kept as drafts";
    if (report.cancelled)
        std::cerr << "; stopped: committed chunks stay, the rest was not applied";
    if (!report.error.empty())
        std::cerr << "; " << report.error;
    std::cerr << "\n";
    return report.completed ? kExitOk : kExitFailed;
}
