// The submission report for a generated district with a state's results and Steward's own, beside a
// baseline measured in the same run: every document's text read once (what any whole-district page
// costs at least).
// Usage: bench_report [--scale STUDENTS] [--results N]
//   STUDENTS: about 11 documents each (default 1000); N: state results on students and their
//   enrollments (default one for every fourth student).
#include "BenchSupport.h"
#include "Engine.h"
#include "ExternalResults.h"
#include "Importer.h"
#include "Rules.h"
#include "SubmissionReport.h"

#include <QGuiApplication>
#include <QTemporaryDir>

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

using namespace steward;

int main(int argc, char **argv)
{
    // Fonts: the PDF is drawn as the app and steward-cli draw it.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    std::int64_t students = 1000;
    std::int64_t results = -1;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
            students = std::max<std::int64_t>(10, std::atoll(argv[++i]));
        } else if (std::strcmp(argv[i], "--results") == 0 && i + 1 < argc) {
            results = std::max<std::int64_t>(0, std::atoll(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: bench_report [--scale STUDENTS] [--results N]\n");
            return 2;
        }
    }
    if (results < 0)
        results = students / 4;
    QTemporaryDir dir;
    const std::string input = dir.filePath("district.ndjson").toStdString();
    const std::int64_t documents = writeDistrictFile(input, students);
    std::printf("Steward report benchmark: %lld generated documents (%lld students), %lld state results, %u cores\n\n",
                static_cast<long long>(documents), static_cast<long long>(students), static_cast<long long>(results),
                std::thread::hardware_concurrency());

    std::unique_ptr<Model> model = Model::loadStarter();
    std::unique_ptr<Database> database = Database::open(dir.filePath("steward.db").toStdString());
    {
        Engine engine(*model, *database);
        ImportOptions importOptions;
        importOptions.paths = {input};
        importFiles(engine, *model, importOptions, {});
        runRules(loadStarterRulePack(*model), *model, *database);
    }
    // The state's results: students (whose bodies name no school) and their enrollments.
    const std::string csvPath = dir.filePath("state.csv").toStdString();
    {
        SQLite::Statement enrolled(database->connection(),
                                   "SELECT json_extract(b, '$.studentReference.studentUniqueId'),"
                                   " json_extract(b, '$.schoolReference.schoolId')"
                                   " FROM (SELECT steward_text(body) AS b FROM documents"
                                   "       WHERE resource = 'StudentSchoolAssociation')");
        std::vector<std::pair<std::string, std::string>> pairs;
        while (enrolled.executeStep())
            pairs.emplace_back(enrolled.getColumn(0).getString(), enrolled.getColumn(1).getString());
        std::ofstream csv(csvPath, std::ios::binary);
        csv << "Campus,Record Type,Student ID,Rule Number,Error Level,Error Message\n";
        for (std::int64_t i = 0; i < results && !pairs.empty(); ++i) {
            const auto &[student, school] = pairs[static_cast<std::size_t>(i * 7919) % pairs.size()];
            csv << school << ",STUDENT," << student << ",10010-00" << (10 + i % 17) << "," << (i % 3 == 0 ? "F" : "W")
                << ",Missing home language for this student; the campus must enter it\n";
        }
    }
    const ResultsMapping mapping = parseResultsMapping(
        Json{{"columns",
              {{"rule", "Rule Number"}, {"severity", "Error Level"}, {"message", "Error Message"},
               {"school", "Campus"}, {"resource", "Record Type"}}},
             {"severities", {{"F", "fatal"}, {"W", "warning"}}},
             {"resources", {{"STUDENT", "Student"}}},
             {"keys", {{"Student", {{"studentUniqueId", {{"column", "Student ID"}}}}}}}},
        *model);
    importExternalResults(*database, *model, csvPath, &mapping, ResultsImportOptions{});
    database->connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");

    // Baseline: every document's text read once.
    double baseline = 0;
    {
        const auto t0 = Clock::now();
        SQLite::Statement all(database->connection(), "SELECT length(steward_text(body)) FROM document_rows");
        std::int64_t bytes = 0;
        while (all.executeStep())
            bytes += all.getColumn(0).getInt64();
        baseline = seconds(t0, Clock::now());
        std::printf("baseline: every document's text read    %8.3f s  (%.1f MB of JSON)\n", baseline,
                    static_cast<double>(bytes) / 1e6);
    }
    resetPeakRss();
    const auto t0 = Clock::now();
    const SubmissionReportData data = gatherSubmissionReport(database->connection());
    const double gathered = seconds(t0, Clock::now());
    const auto t1 = Clock::now();
    int pages = 0;
    QString error;
    if (!writeSubmissionReportPdf(data, dir.filePath("report.pdf"), &error, &pages)) {
        std::fprintf(stderr, "bench_report: %s\n", qPrintable(error));
        return 1;
    }
    const double drawn = seconds(t1, Clock::now());
    std::size_t fixes = 0;
    for (const ReportPage &page : data.pages)
        fixes += page.fixes.size();
    std::printf("report: read (one transaction)          %8.3f s  (%.1f x the baseline)\n", gathered,
                baseline > 0 ? gathered / baseline : 0.0);
    std::printf("report: drawn as PDF                    %8.3f s  (%d pages, %zu sections, %zu lines to fix)\n",
                drawn, pages, data.pages.size(), fixes);
    std::printf("report: in all                          %8.3f s; peak resident set %.0f MB\n", gathered + drawn,
                procStatusMb("VmHWM:"));
    return 0;
}
