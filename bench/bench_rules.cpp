// The starter rule pack over a generated district, beside a baseline measured in the same run: one
// full scan of the documents' bodies. Usage: bench_rules [--scale N]   (N students, about 10
// documents each; default 10000, about 100,000 documents; the large run: --scale 100000)
#include "BenchSupport.h"
#include "Engine.h"
#include "Generator.h"
#include "Importer.h"
#include "Rules.h"

#include <QCoreApplication>
#include <QTemporaryDir>

#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

using namespace steward;

namespace {

void printRun(const char *label, const RuleRunReport &report, double elapsed)
{
    std::printf("%-34s %8.2f s  %8lld documents checked  %10.0f docs/s  %d rules run\n", label, elapsed,
                static_cast<long long>(report.documentsChecked),
                elapsed > 0 ? report.documentsChecked / elapsed : 0.0, report.rulesRun);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    sqlite3_int64 sqliteNow = 0;
    sqlite3_int64 sqlitePeak = 0;
    std::int64_t students = 10000;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
            students = std::max<std::int64_t>(10, std::atoll(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: bench_rules [--scale STUDENTS]\n");
            return 2;
        }
    }
    QTemporaryDir dir;
    const std::string input = dir.filePath("district.ndjson").toStdString();
    const std::int64_t documents = writeDistrictFile(input, students);
    std::printf("Steward rules benchmark: %lld generated documents (%lld students), %u cores\n\n",
                static_cast<long long>(documents), static_cast<long long>(students),
                std::thread::hardware_concurrency());

    std::unique_ptr<Model> model = Model::loadStarter();
    Database::keepMemoryStatistics(); // the rules run's SQLite memory is one of the figures
    std::unique_ptr<Database> database = Database::open(dir.filePath("steward.db").toStdString());
    Engine engine(*model, *database);
    ImportOptions importOptions;
    importOptions.paths = {input};
    auto t0 = Clock::now();
    const ImportReport imported = importFiles(engine, *model, importOptions, {});
    std::printf("import                             %8.1f s  (%lld created, %lld drafts)\n",
                seconds(t0, Clock::now()), static_cast<long long>(imported.totals.created),
                static_cast<long long>(imported.totals.drafts));
    database->connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");

    // Baseline: every document's body read once, on a read-only connection like the rules'.
    {
        std::unique_ptr<Database> reader = Database::open(database->path(), Database::Access::ReadOnly);
        t0 = Clock::now();
        SQLite::Statement scan(reader->connection(), "SELECT count(*), sum(length(steward_text(body))) FROM documents");
        scan.executeStep();
        const double elapsed = seconds(t0, Clock::now());
        const std::int64_t scanned = scan.getColumn(0).getInt64();
        std::printf("baseline: one full scan            %8.2f s  %8lld documents          %10.0f docs/s  (%.0f MB)\n",
                    elapsed, static_cast<long long>(scanned), scanned / elapsed,
                    scan.getColumn(1).getDouble() / 1e6);
    }

    // A second baseline: every body parsed once as JSON, the least any rule over the bodies pays.
    {
        std::unique_ptr<Database> reader = Database::open(database->path(), Database::Access::ReadOnly);
        t0 = Clock::now();
        SQLite::Statement parse(reader->connection(), "SELECT count(*), sum(json_valid(body)) FROM documents");
        parse.executeStep();
        const double elapsed = seconds(t0, Clock::now());
        std::printf("baseline: every body parsed once   %8.2f s  %8lld documents          %10.0f docs/s\n", elapsed,
                    static_cast<long long>(parse.getColumn(0).getInt64()), parse.getColumn(0).getInt64() / elapsed);
    }

    const RulePack pack = loadStarterRulePack(*model);
    // The import's peak and the rules run's own, told apart: the high-water mark starts again here.
    const double importPeakMb = procStatusMb("VmHWM:");
    const double beforeRunMb = procStatusMb("VmRSS:");
    const bool peakReset = resetPeakRss();
    sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &sqliteNow, &sqlitePeak, 1);
    t0 = Clock::now();
    const RuleRunReport full = runRules(pack, *model, *database);
    printRun("starter pack, full run", full, seconds(t0, Clock::now()));
    const double fullRunPeakMb = procStatusMb("VmHWM:");
    sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &sqliteNow, &sqlitePeak, 0);
    const double fullRunSqlitePeakMb = sqlitePeak / 1048576.0;
    for (const RuleRunStats &stats : full.rules)
        std::printf("    %-10s %8.1f ms  %8lld checked  %8lld failing\n", stats.ruleId.c_str(), stats.milliseconds,
                    static_cast<long long>(stats.checked), static_cast<long long>(stats.failing));
    std::printf("    results: %lld fatal, %lld warning, %lld info\n",
                static_cast<long long>(full.totalsBySeverity.count("fatal") ? full.totalsBySeverity.at("fatal") : 0),
                static_cast<long long>(full.totalsBySeverity.count("warning") ? full.totalsBySeverity.at("warning") : 0),
                static_cast<long long>(full.totalsBySeverity.count("info") ? full.totalsBySeverity.at("info") : 0));

    // 100 changed documents: section enrollments (only their own rules re-check them), then
    // students (the duplicate and age rules depend on Student, so they re-check in full).
    for (const char *resource : {"StudentSectionAssociation", "Student"}) {
        SQLite::Statement pick(database->connection(),
                               "SELECT id, body FROM documents WHERE resource = ? ORDER BY doc_key LIMIT 100");
        pick.bind(1, resource);
        const std::string endpoint = std::strcmp(resource, "Student") == 0 ? "students" : "studentSectionAssociations";
        std::vector<std::pair<std::string, Json>> changes;
        while (pick.executeStep())
            changes.emplace_back(pick.getColumn(0).getString(), Json::parse(pick.getColumn(1).getString()));
        pick.reset();
        int changed = 0;
        for (auto &[id, body] : changes) {
            body["id"] = id;
            if (endpoint == "students")
                body["middleName"] = "Changed";
            else
                body["homeroomIndicator"] = !body.value("homeroomIndicator", false);
            Request put;
            put.method = "PUT";
            put.path = "/ed-fi/" + endpoint + "/" + id;
            put.body = body;
            put.actor = "bench";
            changed += engine.handle(put).status == 204 ? 1 : 0;
        }
        t0 = Clock::now();
        const RuleRunReport incremental = runRules(pack, *model, *database);
        const std::string label = "re-run after " + std::to_string(changed) + " " + endpoint;
        printRun(label.c_str(), incremental, seconds(t0, Clock::now()));
    }
    std::printf("\nRSS before the rules %.0f MB (the import's peak %.0f MB)\n", beforeRunMb, importPeakMb);
    if (peakReset)
        std::printf("peak RSS during the full rules run %.0f MB (SQLite's own allocations peaked at %.0f MB)\n",
                    fullRunPeakMb, fullRunSqlitePeakMb);
    else
        std::printf("peak RSS during the full rules run: unknown (/proc/self/clear_refs not writable); SQLite's"
                    " own allocations peaked at %.0f MB\n", fullRunSqlitePeakMb);
    std::printf("peak RSS of the whole run %.0f MB\n", std::max(importPeakMb, procStatusMb("VmHWM:")));
    return 0;
}
