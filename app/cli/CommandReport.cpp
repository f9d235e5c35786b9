#include "Cli.h"
#include "SubmissionReport.h"

#include <iostream>

using namespace steward;

namespace {

const char *const kReportHelp =
    "Usage: steward-cli [--db PATH] report --out FILE.pdf\n"
    "\n"
    "Writes the submission report as a PDF: a summary page (the readiness verdict, the last signed-off\n"
    "submission, every school's documents and results), then one page per school and one for the\n"
    "district-wide records (students, staff, descriptors): documents per resource and how many changed\n"
    "since the last submission, results by severity, and results by rule as a bar chart. Results are\n"
    "Steward's rules' and the imported ones still standing.\n"
    "\n"
    "Exit status: 0 written, 1 the file or database cannot be used, 2 bad arguments.\n"
    "\n"
    "Example: steward-cli report --out fall-2026.pdf\n";

} // namespace

int commandReport(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << kReportHelp;
        return kExitOk;
    }
    std::string out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--out" && i + 1 < args.size() && !args[i + 1].empty())
            out = args[++i];
        else
            return usageError("report", "unknown argument '" + args[i] + "'");
    }
    if (out.empty())
        return usageError("report", "--out FILE.pdf is required");
    std::unique_ptr<Database> database = context.openReadOnlyDatabase();
    if (!database)
        return kExitFailed;
    const SubmissionReportData data = gatherSubmissionReport(database->connection());
    QString error;
    if (!writeSubmissionReportPdf(data, QString::fromStdString(out), &error)) {
        std::cerr << "steward-cli: report: " << error.toStdString() << "\n";
        return kExitFailed;
    }
    std::cout << "Wrote " << out << ": " << data.pages.size() + 1 << " page(s); " << data.verdict << "\n";
    return kExitOk;
}
