#include "Cli.h"
#include "CommandLine.h"
#include "SubmissionReport.h"
#include "TableExport.h"

#include <iostream>

using namespace steward;

namespace {

const char *const kReportHelp =
    "Usage: steward-cli [--db PATH] report --out FILE.pdf [--fix-list FILE.xlsx|FILE.csv]\n"
    "\n"
    "Writes the submission report as a PDF: a summary (the readiness verdict, the last signed-off\n"
    "submission, every school's documents and results), then each school and the district-wide records\n"
    "(what belongs to no school), each from a new page: documents per resource and how many changed since\n"
    "the last submission, reference data in one line, results by severity and by rule, and the fix list:\n"
    "every draft (input that could not be stored) and failing record, drafts first, then most severe\n"
    "first, with its name, id, rule, message and source (Steward's rule or the state's file and row),\n"
    "acknowledged warnings apart. An id is short: an enrollment as \"student 604822 · school 255901001 ·\n"
    "2024-08-23\". A draft is on the page of the school it names (district-wide when none); a student or\n"
    "staff member on the page of every school they are enrolled or assigned at; a state's result on the\n"
    "page of the school its row names (and the report says so where the enrollments disagree). Tables\n"
    "continue on the next page, named \"SCHOOL (continued)\"; every page says \"page N of M\".\n"
    "--fix-list writes every school's fix list as one table too (.xlsx, else CSV).\n"
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
    std::string fixList;
    if (!CommandLine("report").text("--out", out).text("--fix-list", fixList).parse(args))
        return kExitUsage;
    if (out.empty())
        return usageError("report", "--out FILE.pdf is required");
    std::unique_ptr<Database> database = context.openReadOnlyDatabase();
    if (!database)
        return kExitFailed;
    const SubmissionReportData data = gatherSubmissionReport(database->connection());
    QString error;
    int pages = 0;
    if (!writeSubmissionReportPdf(data, QString::fromStdString(out), &error, &pages)) {
        std::cerr << "steward-cli: report: " << error.toStdString() << "\n";
        return kExitFailed;
    }
    std::size_t fixes = 0;
    std::size_t schools = 0;
    bool districtWide = false;
    for (const ReportPage &page : data.pages) {
        fixes += page.fixes.size();
        // Schools, not sections: the district-wide records are a section of their own.
        if (page.schoolId.empty())
            districtWide = true;
        else
            ++schools;
    }
    std::cout << "Wrote " << out << ": " << pages << " page(s), " << schools << " school(s)"
              << (districtWide ? " and the district-wide records" : "") << ", " << fixes << " line(s) to fix; "
              << data.verdict << "\n";
    if (!fixList.empty()) {
        const FixListTable list = fixListTable(data);
        try {
            if (QString::fromStdString(fixList).endsWith(QLatin1String(".xlsx"), Qt::CaseInsensitive))
                writeXlsx(fixList, {list.headers, list.rows}, "Fix list");
            else
                writeCsv(fixList, {list.headers, list.rows});
        } catch (const std::exception &e) {
            std::cerr << "steward-cli: report: " << e.what() << "\n";
            return kExitFailed;
        }
        std::cout << "Wrote " << fixList << ": " << list.rows.size() << " line(s)\n";
    }
    return kExitOk;
}
