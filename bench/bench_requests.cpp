// Single-request write and read latency through the engine, beside raw SQLite inserts of the same
// documents with the same durability settings (WAL, synchronous=FULL, one transaction per row).
// Usage: bench_requests [documents]   (default 3000)
#include "BenchSupport.h"
#include "Engine.h"

#include <QTemporaryDir>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace steward;

namespace {

struct Figures
{
    double perSecond = 0;
    double p50 = 0;
    double p99 = 0;
};

Figures measure(int count, const std::function<void(int)> &operation)
{
    std::vector<double> ms;
    ms.reserve(count);
    const auto start = Clock::now();
    for (int i = 0; i < count; ++i) {
        const auto t0 = Clock::now();
        operation(i);
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::sort(ms.begin(), ms.end());
    return {count / seconds, ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)]};
}

void print(const char *what, const Figures &f)
{
    std::printf("%-44s %9.0f docs/s   p50 %7.3f ms   p99 %7.3f ms\n", what, f.perSecond, f.p50, f.p99);
}

Json school(int id)
{
    return Json{{"schoolId", id},
                {"nameOfInstitution", "School " + std::to_string(id)},
                {"educationOrganizationCategories",
                 Json::array({{{"educationOrganizationCategoryDescriptor",
                                "uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}}})},
                {"gradeLevels",
                 Json::array({{{"gradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}}})}};
}

Json course(int id)
{
    return Json{{"courseCode", "C" + std::to_string(id)},
                {"courseTitle", "Course"},
                {"numberOfParts", 1},
                {"identificationCodes", Json::array()},
                {"educationOrganizationReference", {{"educationOrganizationId", 100000 + id}}}};
}

Response send(Engine &engine, const std::string &method, const std::string &path, const Json &body = nullptr)
{
    return engine.handle(Request::make(method, path, "bench", body));
}

} // namespace

int main(int argc, char **argv)
{
    const int count = argc > 1 ? std::max(100, std::atoi(argv[1])) : 3000;
    QTemporaryDir dir;
    std::printf("Steward request benchmark: %d documents per figure, starter model, WAL + synchronous=FULL\n\n", count);

    // Baseline: the same document text inserted by plain SQLite, one transaction per row.
    {
        SQLite::Database db(dir.filePath("baseline.db").toStdString(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                "CREATE TABLE docs (k INTEGER PRIMARY KEY, id TEXT UNIQUE, body TEXT)");
        SQLite::Statement insert(db, "INSERT INTO docs (id, body) VALUES (?, ?)");
        Figures raw = measure(count, [&](int i) {
            db.exec("BEGIN IMMEDIATE");
            insert.reset();
            insert.bind(1, Uuid::random().toString());
            insert.bind(2, dumpJson(school(100000 + i)));
            insert.exec();
            db.exec("COMMIT");
        });
        print("baseline: raw SQLite insert, 1 txn/row", raw);
    }

    std::unique_ptr<Model> model = Model::loadStarter();
    std::unique_ptr<Database> database = Database::open(dir.filePath("steward.db").toStdString());
    Engine engine(*model, *database);
    send(engine, "POST", "/ed-fi/gradeLevelDescriptors",
         Json{{"namespace", "uri://ed-fi.org/GradeLevelDescriptor"}, {"codeValue", "Ninth grade"}, {"shortDescription", "9"}});
    send(engine, "POST", "/ed-fi/educationOrganizationCategoryDescriptors",
         Json{{"namespace", "uri://ed-fi.org/EducationOrganizationCategoryDescriptor"}, {"codeValue", "School"},
              {"shortDescription", "School"}});

    std::vector<std::string> ids;
    print("POST School (validate, 2 descriptors, insert)", measure(count, [&](int i) {
              Response r = send(engine, "POST", "/ed-fi/schools", school(100000 + i));
              ids.push_back(r.header("Location"));
          }));
    print("POST Course (validate, 1 reference, insert)", measure(count, [&](int i) {
              send(engine, "POST", "/ed-fi/courses", course(i));
          }));
    print("POST School again, identical (no write)", measure(count, [&](int i) {
              send(engine, "POST", "/ed-fi/schools", school(100000 + i));
          }));
    print("GET School by id", measure(count, [&](int i) { send(engine, "GET", ids[i]); }));
    print("GET /schools?limit=25 (first page)", measure(std::min(count, 500), [&](int) {
              send(engine, "GET", "/ed-fi/schools?limit=25");
          }));
    print("DELETE School blocked by a Course (409)", measure(std::min(count, 1000), [&](int i) {
              send(engine, "DELETE", ids[i]);
          }));
    std::printf("\npeak RSS %.1f MB\n", procStatusMb("VmHWM:"));
    return 0;
}
