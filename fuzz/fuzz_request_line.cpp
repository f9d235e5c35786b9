// Request lines through the NDJSON carrier's parser and the engine, on the starter model.
//
// An input is up to kMaxLines lines, each one request line. In a path, "{id}" stands for the id of
// the last document a response named in its Location (at first, the stored school's) and
// "{school}" for the stored school's, so inputs can reach PUT and DELETE of real documents. Every
// input starts from the same database: a few descriptors and a school, restored whenever an input
// changed anything.
//
// Findings: a crash or sanitizer report; a 500 (the engine met an exception it did not expect);
// a line the parser refused with anything but a 400; a refused request that wrote anything; a dry
// run (Engine::validate) that wrote anything or answered differently from the request itself; a
// response that cannot be written as a response line.
#include "FuzzSupport.h"

#include "Database.h"
#include "Engine.h"
#include "RequestLines.h"

#include <SQLiteCpp/Backup.h>
#include <SQLiteCpp/Database.h>

#include <memory>
#include <string>
#include <variant>

using namespace steward;

namespace {

constexpr int kMaxLines = 8;

const char *const kSetupLines[] = {
    R"({"method":"POST","path":"/ed-fi/gradeLevelDescriptors","body":{"namespace":"uri://ed-fi.org/GradeLevelDescriptor","codeValue":"Ninth grade","shortDescription":"Ninth grade"}})",
    R"({"method":"POST","path":"/ed-fi/educationOrganizationCategoryDescriptors","body":{"namespace":"uri://ed-fi.org/EducationOrganizationCategoryDescriptor","codeValue":"School","shortDescription":"School"}})",
    R"({"method":"POST","path":"/ed-fi/courseIdentificationSystemDescriptors","body":{"namespace":"uri://ed-fi.org/CourseIdentificationSystemDescriptor","codeValue":"LEA course code","shortDescription":"LEA course code"}})",
    R"({"method":"POST","path":"/ed-fi/termDescriptors","body":{"namespace":"uri://ed-fi.org/TermDescriptor","codeValue":"Fall Semester","shortDescription":"Fall Semester"}})",
    R"({"method":"POST","path":"/ed-fi/schoolYearTypes","body":{"schoolYear":2025,"currentSchoolYear":true,"schoolYearDescription":"2024-2025"}})",
    R"({"method":"POST","path":"/ed-fi/schools","body":{"schoolId":255901,"nameOfInstitution":"Grand Bend High School","educationOrganizationCategories":[{"educationOrganizationCategoryDescriptor":"uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}],"gradeLevels":[{"gradeLevelDescriptor":"uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}]}})",
};

std::string idFromLocation(const Response &response)
{
    const std::string location = response.header("Location");
    const std::size_t slash = location.find_last_of('/');
    return slash == std::string::npos ? std::string() : location.substr(slash + 1);
}

void substitute(std::string &text, const std::string &token, const std::string &value)
{
    for (std::size_t at = text.find(token); at != std::string::npos; at = text.find(token, at + value.size()))
        text.replace(at, token.size(), value);
}

std::string describe(const Request &request, const Response &response)
{
    return request.method + " " + request.path + " -> " + dumpJson(response.toJson());
}

class Harness
{
public:
    Harness()
    {
        m_database = Database::open(fuzz::scratchDir() + "/request-line.db");
        // Durability means nothing here and an fsync per write would dominate the run time.
        m_database->connection().exec("PRAGMA synchronous=OFF");
        m_engine = std::make_unique<Engine>(fuzz::starterModel(), *m_database);
        for (const char *line : kSetupLines) {
            std::variant<Request, Response> parsed = parseRequestLine(line);
            const Request *request = std::get_if<Request>(&parsed);
            if (request == nullptr)
                fuzz::fail(std::string("setup line refused: ") + line);
            const Response response = m_engine->handle(*request);
            if (response.status != 201)
                fuzz::fail("setup: " + describe(*request, response));
            m_schoolId = idFromLocation(response); // the school is the last setup line
        }
        m_snapshot = std::make_unique<SQLite::Database>(":memory:", SQLite::OPEN_READWRITE);
        SQLite::Backup(*m_snapshot, m_database->connection()).executeStep();
        m_baseline = m_database->connection().getTotalChanges();
    }

    int run(std::string_view input)
    {
        std::string lastId = m_schoolId;
        std::size_t start = 0;
        for (int lines = 0; lines < kMaxLines && start <= input.size(); ++lines) {
            std::size_t end = input.find('\n', start);
            if (end == std::string_view::npos)
                end = input.size();
            const std::string line(input.substr(start, end - start));
            start = end + 1;
            if (const std::string id = runLine(line, lastId); !id.empty())
                lastId = id;
        }
        restore();
        return 0;
    }

private:
    // Returns the id a response's Location names, if any.
    std::string runLine(const std::string &line, const std::string &lastId)
    {
        std::variant<Request, Response> parsed = parseRequestLine(line);
        if (const Response *refused = std::get_if<Response>(&parsed)) {
            if (refused->status != 400)
                fuzz::fail("the parser refused a line with " + dumpJson(refused->toJson()));
            (void)dumpJson(refused->toJson());
            return {};
        }
        Request &request = std::get<Request>(parsed);
        request.actor = "fuzz";
        substitute(request.path, "{id}", lastId);
        substitute(request.path, "{school}", m_schoolId);

        SQLite::Database &db = m_database->connection();
        std::optional<Response> dryRun;
        if (request.method != "GET") {
            const int before = db.getTotalChanges();
            dryRun = m_engine->validate(request);
            if (dryRun->status == 500)
                fuzz::fail("dry run: " + describe(request, *dryRun));
            if (db.getTotalChanges() != before)
                fuzz::fail("a dry run wrote to the database: " + describe(request, *dryRun));
        }
        const int before = db.getTotalChanges();
        const Response response = m_engine->handle(request);
        if (response.status == 500)
            fuzz::fail(describe(request, response));
        // POST, PUT and DELETE refuse before their first write (or roll back to before it).
        if (response.status >= 400 && db.getTotalChanges() != before && request.method == "POST")
            fuzz::fail("a refused POST wrote to the database: " + describe(request, response));
        if (dryRun && dryRun->status != response.status)
            fuzz::fail("the dry run answered " + std::to_string(dryRun->status) + " but the request "
                       + describe(request, response));
        (void)dumpJson(response.toJson());
        return idFromLocation(response);
    }

    // Puts the database back as setup left it, if the input changed it.
    void restore()
    {
        SQLite::Database &db = m_database->connection();
        if (db.getTotalChanges() == m_baseline)
            return;
        SQLite::Backup(db, *m_snapshot).executeStep();
        m_baseline = db.getTotalChanges();
    }

    std::unique_ptr<Database> m_database;
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<SQLite::Database> m_snapshot;
    std::string m_schoolId;
    int m_baseline = 0;
};

} // namespace

STEWARD_FUZZ_TARGET(fuzz_request_line, data, size)
{
    static Harness harness;
    return harness.run(fuzz::bytesOf(data, size));
}
