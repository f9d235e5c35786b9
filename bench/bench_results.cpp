// A state's results matched against a generated district, beside a baseline measured in the same
// run: the same file only read (CSV parsed, cells taken) without matching or storing.
// Usage: bench_results [--scale STUDENTS] [--results N]
//   STUDENTS: about 10 documents each (default 10000, about 100,000 documents; the run:
//   --scale 100000, about a million); N: results in the file (default 100000): 70% found by natural
//   key (student, campus, entry date), 20% by Ed-Fi id, 10% that match nothing.
#include "BenchSupport.h"
#include "Engine.h"
#include "ExternalResults.h"
#include "Importer.h"
#include "Readiness.h"
#include "Spreadsheet.h"

#include <QCoreApplication>
#include <QTemporaryDir>

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

using namespace steward;

namespace {

std::vector<PortalEnrollment> storedEnrollments(SQLite::Database &db)
{
    SQLite::Statement query(db, "SELECT id, json_extract(b, '$.studentReference.studentUniqueId'),"
                                " json_extract(b, '$.schoolReference.schoolId'), json_extract(b, '$.entryDate')"
                                " FROM (SELECT id, steward_text(body) AS b FROM documents"
                                "       WHERE resource = 'StudentSchoolAssociation')");
    std::vector<PortalEnrollment> out;
    while (query.executeStep())
        out.push_back({query.getColumn(0).getString(), query.getColumn(1).getString(), query.getColumn(2).getString(),
                       query.getColumn(3).getString()});
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    std::int64_t students = 10000;
    std::int64_t results = 100000;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
            students = std::max<std::int64_t>(10, std::atoll(argv[++i]));
        } else if (std::strcmp(argv[i], "--results") == 0 && i + 1 < argc) {
            results = std::max<std::int64_t>(10, std::atoll(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: bench_results [--scale STUDENTS] [--results N]\n");
            return 2;
        }
    }
    QTemporaryDir dir;
    const std::string input = dir.filePath("district.ndjson").toStdString();
    const std::int64_t documents = writeDistrictFile(input, students);
    std::printf("Steward state results benchmark: %lld generated documents (%lld students), %lld results, %u cores\n\n",
                static_cast<long long>(documents), static_cast<long long>(students), static_cast<long long>(results),
                std::thread::hardware_concurrency());

    std::unique_ptr<Model> model = Model::loadStarter();
    std::unique_ptr<Database> database = Database::open(dir.filePath("steward.db").toStdString());
    {
        Engine engine(*model, *database);
        ImportOptions importOptions;
        importOptions.paths = {input};
        const auto t0 = Clock::now();
        const ImportReport imported = importFiles(engine, *model, importOptions, {});
        std::printf("import of the district             %8.1f s  (%lld created)\n", seconds(t0, Clock::now()),
                    static_cast<long long>(imported.totals.created));
    }
    database->connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");

    const std::vector<PortalEnrollment> enrollments = storedEnrollments(database->connection());
    if (enrollments.empty()) {
        std::fprintf(stderr, "bench_results: the district has no enrollments\n");
        return 1;
    }
    const std::string csvPath = dir.filePath("state-results.csv").toStdString();
    {
        std::ofstream csv(csvPath, std::ios::binary);
        writePortalResultsHeader(csv);
        for (std::int64_t i = 0; i < results; ++i)
            writePortalResultsRow(csv, i, enrollments[static_cast<std::size_t>(i * 7919) % enrollments.size()], "2026");
    }
    const ResultsMapping mapping = parseResultsMapping(portalResultsMapping(), *model);

    // Baseline: the file read and split into cells, nothing matched or stored.
    {
        const auto t0 = Clock::now();
        std::string error;
        std::unique_ptr<SheetReader> reader = openSheet(csvPath, 0, "", &error);
        SheetRow row;
        std::int64_t rows = 0;
        std::size_t cells = 0;
        while (reader && reader->next(row)) {
            ++rows;
            cells += row.cells.size();
        }
        const double elapsed = seconds(t0, Clock::now());
        std::printf("baseline: the file only read       %8.2f s  %8lld rows        %10.0f rows/s  (%zu cells)\n", elapsed,
                    static_cast<long long>(rows), rows / elapsed, cells);
    }

    const bool peakReset = resetPeakRss();
    const double beforeMb = procStatusMb("VmRSS:");
    ResultsImportOptions options;
    options.runAt = "2026-11-20";
    options.actor = "bench";
    auto t0 = Clock::now();
    ResultsImportReport report = importExternalResults(*database, *model, csvPath, &mapping, options);
    double elapsed = seconds(t0, Clock::now());
    std::printf("import-results, first file         %8.2f s  %8lld rows        %10.0f rows/s  %lld matched, %zu unmatched\n",
                elapsed, static_cast<long long>(report.rows), report.rows / elapsed,
                static_cast<long long>(report.matched), report.unmatched.size());
    std::printf("    peak memory %s%.0f MB (%.0f MB before)\n", peakReset ? "" : "(process, not reset) ",
                procStatusMb("VmHWM:"), beforeMb);

    t0 = Clock::now();
    report = importExternalResults(*database, *model, csvPath, &mapping, options);
    elapsed = seconds(t0, Clock::now());
    std::printf("import-results, the same again     %8.2f s  %8lld rows        %10.0f rows/s  %lld still, %lld fixed\n",
                elapsed, static_cast<long long>(report.rows), report.rows / elapsed,
                static_cast<long long>(report.still), static_cast<long long>(report.fixed));

    t0 = Clock::now();
    const std::vector<QualityResult> listed = readQualityResults(database->connection());
    std::printf("results listed side by side        %8.2f s  %8zu results\n", seconds(t0, Clock::now()), listed.size());
    t0 = Clock::now();
    const ReadinessReport readiness = computeReadiness(database->connection());
    std::printf("readiness with them                %8.2f s  %s\n", seconds(t0, Clock::now()),
                readiness.verdictText().substr(0, 80).c_str());
    return 0;
}
