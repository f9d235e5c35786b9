// Collection queries the way Ed-Fi clients make them (a record found by its identity before it is
// updated or deleted, a student's section enrollments, a school's sections, any other field, a
// count), through Engine::handle as `steward-cli requests` and `serve` carry them, and find-anything
// searches, on a generated district; p50/p99 beside a raw SQLite lookup by an indexed key in the same run.
// Usage: bench_queries [students]   (default 10000, about 107,000 documents; 100000: about 1M)
#include "BenchSupport.h"
#include "Engine.h"
#include "Importer.h"
#include "Search.h"

#include <QTemporaryDir>
#include <QUrl>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace steward;

namespace {

constexpr int kLookups = 200;

struct Latency
{
    double p50 = 0;
    double p99 = 0;
    double meanResults = 0;
};

Latency measure(const std::vector<std::string> &paths, const std::function<std::size_t(const std::string &)> &run)
{
    std::vector<double> ms;
    double results = 0;
    for (const std::string &path : paths) {
        const Clock::time_point t0 = Clock::now();
        results += static_cast<double>(run(path));
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)],
            results / static_cast<double>(paths.size())};
}

void print(const char *what, const Latency &latency)
{
    std::printf("%-58s p50 %8.3f ms   p99 %8.3f ms   %6.1f results\n", what, latency.p50, latency.p99,
                latency.meanResults);
}

// kLookups values of a JSON path from documents of a resource, spread over the whole table.
std::vector<Json> sampleValues(SQLite::Database &db, const std::string &resource, const std::vector<std::string> &paths)
{
    std::vector<Json> out;
    SQLite::Statement count(db, "SELECT count(*) FROM documents WHERE resource = ?");
    count.bind(1, resource);
    count.executeStep();
    const std::int64_t total = count.getColumn(0).getInt64();
    std::mt19937 random(7);
    std::string select = "SELECT ";
    for (std::size_t i = 0; i < paths.size(); ++i)
        select += (i ? ", " : "") + std::string("json_extract(steward_text(body), '") + paths[i] + "')";
    SQLite::Statement row(db, select + " FROM documents WHERE resource = ? ORDER BY doc_key LIMIT 1 OFFSET ?");
    for (int i = 0; i < kLookups && total > 0; ++i) {
        row.bind(1, resource);
        row.bind(2, static_cast<std::int64_t>(random() % static_cast<std::uint32_t>(total)));
        if (row.executeStep()) {
            Json values = Json::array();
            for (int c = 0; c < static_cast<int>(paths.size()); ++c)
                values.push_back(row.getColumn(c).isInteger() ? Json(row.getColumn(c).getInt64())
                                                              : Json(row.getColumn(c).getString()));
            out.push_back(values);
        }
        row.reset();
    }
    return out;
}

std::string text(const Json &value)
{
    return value.is_string() ? QUrl::toPercentEncoding(QString::fromStdString(value.get<std::string>())).toStdString()
                             : value.dump();
}

} // namespace

int main(int argc, char **argv)
{
    const std::int64_t students = argc > 1 ? std::max(10LL, std::atoll(argv[1])) : 10000;
    QTemporaryDir dir;
    const std::string input = dir.filePath("district.ndjson").toStdString();
    const std::int64_t documents = writeDistrictFile(input, students);
    std::unique_ptr<Model> model = Model::loadStarter();
    std::unique_ptr<Database> database = Database::open(dir.filePath("steward.db").toStdString());
    database->startBackgroundCheckpoints();
    Engine engine(*model, *database);
    ImportOptions options;
    options.paths = {input};
    const Clock::time_point t0 = Clock::now();
    importFiles(engine, *model, options);
    std::printf("Steward query benchmark: %lld documents (%lld students), imported in %.1f s; %d lookups each\n\n",
                static_cast<long long>(documents), static_cast<long long>(students),
                std::chrono::duration<double>(Clock::now() - t0).count(), kLookups);

    // A reader as the app's loaders open one: it reads stored text through steward_text().
    std::unique_ptr<Database> readOnly = Database::open(dir.filePath("steward.db").toStdString(), Database::Access::ReadOnly);
    SQLite::Database &reader = readOnly->connection();
    auto engineGet = [&engine](const std::string &path) {
        const Response response = engine.handle(Request::make("GET", path, "bench"));
        return response.body.is_array() ? response.body.size() : std::size_t(0);
    };
    auto paths = [](const std::string &prefix, const std::vector<Json> &values, const std::vector<std::string> &names,
                    const std::string &suffix = {}) {
        std::vector<std::string> out;
        for (const Json &row : values) {
            std::string path = prefix;
            for (std::size_t i = 0; i < names.size(); ++i)
                path += (i ? "&" : "") + names[i] + "=" + text(row[i]);
            out.push_back(path + suffix);
        }
        return out;
    };

    // Baseline: the same number of lookups by an indexed key, straight from SQLite.
    std::vector<std::string> ids;
    {
        SQLite::Statement s(reader, "SELECT id FROM documents WHERE resource = 'Student' ORDER BY random() LIMIT ?");
        s.bind(1, kLookups);
        while (s.executeStep())
            ids.push_back(s.getColumn(0).getString());
    }
    SQLite::Statement byId(reader, "SELECT body FROM documents WHERE id_key = steward_id_key(?)");
    print("baseline: raw SQLite, a document by its indexed id", measure(ids, [&byId](const std::string &id) {
              byId.bind(1, id);
              std::size_t n = byId.executeStep() ? 1 : 0;
              byId.reset();
              return n;
          }));

    const std::vector<Json> student = sampleValues(reader, "Student", {"$.studentUniqueId", "$.lastSurname", "$.birthDate"});
    const std::vector<Json> enrollment = sampleValues(
        reader, "StudentSchoolAssociation",
        {"$.studentReference.studentUniqueId", "$.schoolReference.schoolId", "$.entryDate"});
    const std::vector<Json> school = sampleValues(reader, "School", {"$.schoolId"});

    print("students?studentUniqueId (whole identity)",
          measure(paths("/ed-fi/students?", student, {"studentUniqueId"}), engineGet));
    print("studentSchoolAssociations?studentUniqueId&schoolId&entryDate",
          measure(paths("/ed-fi/studentSchoolAssociations?", enrollment, {"studentUniqueId", "schoolId", "entryDate"}),
                  engineGet));
    print("studentSectionAssociations?studentUniqueId (one reference)",
          measure(paths("/ed-fi/studentSectionAssociations?", student, {"studentUniqueId"}), engineGet));
    print("sections?schoolId&limit=25 (first page)",
          measure(paths("/ed-fi/sections?", school, {"schoolId"}, "&limit=25"), engineGet));
    std::vector<Json> surnames;
    std::vector<Json> birthDates;
    for (const Json &row : student) {
        surnames.push_back(Json::array({row[1]}));
        birthDates.push_back(Json::array({row[2]}));
    }
    print("students?lastSurname (any other field)", measure(paths("/ed-fi/students?", surnames, {"lastSurname"}), engineGet));
    print("students?birthDate (any other field)", measure(paths("/ed-fi/students?", birthDates, {"birthDate"}), engineGet));
    print("studentSectionAssociations?studentUniqueId&totalCount=true",
          measure(paths("/ed-fi/studentSectionAssociations?", student, {"studentUniqueId"}, "&totalCount=true"),
                  engineGet));
    print("sections?schoolId&totalCount=true (a school's sections)",
          measure(paths("/ed-fi/sections?", school, {"schoolId"}, "&limit=1&totalCount=true"), engineGet));

    // Find anything: what a steward types, as the Ctrl+K dialog sends it (50 hits at most): the first
    // letters of a last name (many matches: the first page is the cost), a whole last name, a student's
    // id, part of a last name with a first name.
    std::vector<std::string> typed2;
    std::vector<std::string> typed4;
    std::vector<std::string> typedName;
    std::vector<std::string> typedId;
    std::vector<std::string> typedTwoWords;
    const std::vector<Json> names = sampleValues(reader, "Student", {"$.lastSurname", "$.firstName", "$.studentUniqueId"});
    for (const Json &row : names) {
        const std::string last = row[0].get<std::string>();
        typed2.push_back(last.substr(0, 2));
        typed4.push_back(last.substr(0, 4));
        typedName.push_back(last);
        typedId.push_back(row[2].is_string() ? row[2].get<std::string>() : row[2].dump());
        typedTwoWords.push_back(row[1].get<std::string>() + " " + last.substr(0, 3));
    }
    auto find = [&reader](const std::string &typed) { return searchDocuments(reader, typed, 50).size(); };
    print("find anything: 2 letters of a last name", measure(typed2, find));
    print("find anything: 4 letters of a last name", measure(typed4, find));
    print("find anything: a whole last name", measure(typedName, find));
    print("find anything: a studentUniqueId", measure(typedId, find));
    print("find anything: first name + 3 letters of the last", measure(typedTwoWords, find));

    // What the query index costs in storage, beside the documents' own bytes.
    auto megabytes = [&reader](const std::string &sql) {
        return static_cast<double>(reader.execAndGet(sql).getInt64()) / 1e6;
    };
    std::printf("\ndocument bodies %.1f MB; query index %.1f MB; find-anything index %.1f MB; database %.1f MB\n",
                megabytes("SELECT sum(length(steward_text(body))) FROM documents"),
                megabytes("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE 'query_index%'"),
                megabytes("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE 'search_index%'"),
                megabytes("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size"));
    std::printf("peak RSS %.1f MB\n", procStatusMb("VmHWM:"));
    return 0;
}
