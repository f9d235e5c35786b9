// Root causes of drafts on a generated district with one school left out, beside a baseline
// measured in the same run: reading every draft's text and parsing it (the least any analysis of
// the drafts must do). Usage: bench_causes [students]   (default 10000: about 118,000 documents)
#include "BenchSupport.h"
#include "Engine.h"
#include "Generator.h"
#include "ImportSource.h"
#include "Importer.h"
#include "RootCauses.h"

#include <QCoreApplication>
#include <QTemporaryDir>

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

using namespace steward;

namespace {

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    GeneratorOptions options;
    options.students = argc > 1 ? std::atoll(argv[1]) : 10000;
    if (options.students <= 0) {
        std::fprintf(stderr, "usage: bench_causes [students]\n");
        return 2;
    }
    QTemporaryDir dir;
    const std::string ndjson = dir.filePath(QStringLiteral("district.ndjson")).toStdString();
    std::int64_t written = 0;
    Json removedSchool;
    int schoolsSeen = 0;
    {
        std::ofstream out(ndjson, std::ios::binary);
        generateDistrict(options, [&](const std::string &resource, const Json &body) {
            // The second school (Grand Bend Middle): its branch becomes drafts, the rest imports.
            if (resource == "ed-fi/schools" && schoolsSeen++ == 1) {
                removedSchool = body;
                return;
            }
            out << envelopeLine(resource, body) << "\n";
            ++written;
        });
    }
    std::unique_ptr<Model> model = Model::loadStarter();
    std::unique_ptr<Database> database = Database::open(dir.filePath(QStringLiteral("bench.db")).toStdString());
    Engine engine(*model, *database);
    ImportOptions importOptions;
    importOptions.paths = {ndjson};
    const Clock::time_point importStart = Clock::now();
    const ImportReport imported = importFiles(engine, *model, importOptions);
    const double importSeconds = seconds(importStart, Clock::now());
    std::printf("district: %lld students, %lld documents written without school %s; import %.1f s: %lld stored, "
                "%lld drafts\n",
                static_cast<long long>(options.students), static_cast<long long>(written),
                removedSchool.is_null() ? "(none)" : identityValueText(removedSchool["schoolId"]).c_str(),
                importSeconds, static_cast<long long>(imported.totals.created),
                static_cast<long long>(imported.totals.drafts));

    // Each figure on a fresh read-only connection, as steward-cli causes and the app's worker use.
    const std::string path = database->path();
    std::vector<double> baseline;
    std::vector<double> causes;
    RootCauseReport report;
    for (int run = 0; run < 3; ++run) {
        {
            std::unique_ptr<Database> reader = Database::open(path, Database::Access::ReadOnly);
            const Clock::time_point start = Clock::now();
            DeferredTransaction read(reader->connection());
            SQLite::Statement all(reader->connection(), "SELECT body_text, problem FROM drafts ORDER BY draft_id");
            std::int64_t parsed = 0;
            while (all.executeStep())
                parsed += parseJson(all.getColumn(0).getString()).value.has_value()
                          && parseJson(all.getColumn(1).getString()).value.has_value();
            baseline.push_back(seconds(start, Clock::now()));
            if (parsed != imported.totals.drafts)
                std::fprintf(stderr, "baseline parsed %lld drafts\n", static_cast<long long>(parsed));
        }
        {
            std::unique_ptr<Database> reader = Database::open(path, Database::Access::ReadOnly);
            const Clock::time_point start = Clock::now();
            report = findRootCauses(*model, reader->connection());
            causes.push_back(seconds(start, Clock::now()));
        }
    }
    std::printf("baseline (read + parse every draft and its problem): %.3f s (median of 3)\n", median(baseline));
    std::printf("findRootCauses: %.3f s (median of 3) = %.1fx the baseline, for %lld drafts, %zu cause(s); "
                "peak RSS %.0f MB\n",
                median(causes), median(causes) / std::max(median(baseline), 1e-9),
                static_cast<long long>(report.drafts), report.causes.size(), procStatusMb("VmHWM:"));
    if (!report.causes.empty()) {
        const RootCause &top = report.causes.front();
        std::printf("top cause: %s %s %s: blocks %lld drafts (%lld directly) in %zu resources\n",
                    top.kindName().c_str(), top.resource.c_str(), top.naturalKey.c_str(),
                    static_cast<long long>(top.blocked), static_cast<long long>(top.direct), top.resources.size());
    }
    return 0;
}
