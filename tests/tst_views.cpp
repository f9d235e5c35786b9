// The engine's typed views for front ends: dry-run validation, drafts, references both ways, history.
#include "SampleDistrict.h"
#include "TestSupport.h"

#include <QTest>

#include <SQLiteCpp/Database.h>

using namespace steward;
using namespace steward::test;

namespace {

Json course(int edOrgId)
{
    return Json{{"courseCode", "ALG-1"},
                {"courseTitle", "Algebra I"},
                {"numberOfParts", 1},
                {"identificationCodes", Json::array()},
                {"educationOrganizationReference", {{"educationOrganizationId", edOrgId}}}};
}

Request post(const std::string &path, const Json &body)
{
    Request r;
    r.method = "POST";
    r.path = path;
    r.body = body;
    return r;
}

} // namespace

class TestViews : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void validateWritesNothing()
    {
        Fixture f;
        f.seedDescriptors();
        Response wouldCreate = f.engine().validate(post("/ed-fi/schools", Fixture::school(1)));
        QCOMPARE(wouldCreate.status, 201);
        QCOMPARE(f.call("GET", "/ed-fi/schools").body.size(), std::size_t(0));
        Response missing = f.engine().validate(post("/ed-fi/courses", course(1)));
        QCOMPARE(missing.status, 409);
        f.create("/ed-fi/schools", Fixture::school(1));
        QCOMPARE(f.engine().validate(post("/ed-fi/courses", course(1))).status, 201);
        QCOMPARE(f.engine().validate(post("/ed-fi/schools", Fixture::school(1))).status, 200);
        SQLite::Database db(f.databasePath(), SQLite::OPEN_READONLY);
        QCOMPARE(db.execAndGet("SELECT count(*) FROM changes WHERE resource <> 'GradeLevelDescriptor' AND resource NOT "
                               "LIKE '%Descriptor'")
                     .getInt(),
                 1);
    }

    void draftsKeepAnythingAndRevalidatePromotes()
    {
        Fixture f;
        f.seedDescriptors();
        const ResourceSchema *courses = f.model().findByEndpoint("ed-fi", "courses");
        const std::int64_t broken = f.engine().saveDraft(*courses, "{\"courseCode\": \"ALG", "", 0, "tester");
        const std::int64_t waiting = f.engine().saveDraft(*courses, course(255901).dump(), "", 0, "tester");
        std::vector<Draft> drafts = f.engine().drafts("Ed-Fi", "Course");
        QCOMPARE(drafts.size(), std::size_t(2));
        QCOMPARE(drafts[0].text, std::string("{\"courseCode\": \"ALG"));
        QCOMPARE(drafts[0].problem["type"].get<std::string>(), std::string(problem::kBadRequest));
        QCOMPARE(drafts[1].problem["status"].get<int>(), 409);
        QVERIFY(drafts[1].problem["validationErrors"].contains("$.educationOrganizationReference"));

        f.create("/ed-fi/schools", Fixture::school(255901));
        int calls = 0;
        RevalidateReport report = f.engine().revalidateDrafts([&](int, int) {
            ++calls;
            return true;
        });
        QCOMPARE(report.promoted, 1);
        QCOMPARE(report.remaining, 1);
        QVERIFY(calls > 0);
        QVERIFY(!f.engine().draft(waiting));
        QVERIFY(f.engine().draft(broken));
        QCOMPARE(f.call("GET", "/ed-fi/courses").body.size(), std::size_t(1));
        QVERIFY(f.engine().deleteDraft(broken));
        QVERIFY(f.engine().drafts("Ed-Fi", "Course").empty());
    }

    void referencesBothWays()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string school = f.create("/ed-fi/schools", Fixture::school(255901));
        const std::string courseId = f.create("/ed-fi/courses", course(255901));
        std::vector<OutgoingReference> out = f.engine().outgoingReferences(courseId);
        QCOMPARE(out.size(), std::size_t(1));
        QCOMPARE(out[0].path, std::string("$.educationOrganizationReference"));
        QCOMPARE(out[0].targetResource, std::string("EducationOrganization"));
        QCOMPARE(out[0].storedResource, std::string("School"));
        QCOMPARE(out[0].targetId, school);
        QCOMPARE(out[0].naturalKey, std::string("255901"));

        ReferrerPage page = f.engine().referrers(school, 10, 0);
        QCOMPARE(page.total, 1);
        QCOMPARE(page.items[0].id, courseId);
        QCOMPARE(page.items[0].naturalKey, std::string("ALG-1 / 255901"));
        QCOMPARE(page.items[0].paths, std::vector<std::string>{"$.educationOrganizationReference"});

        std::vector<OutgoingReference> schoolRefs = f.engine().outgoingReferences(school);
        bool sawDescriptor = false;
        for (const OutgoingReference &ref : schoolRefs)
            sawDescriptor = sawDescriptor || (ref.isDescriptor && !ref.targetId.empty());
        QVERIFY(sawDescriptor);
    }

    void historyAndLookup()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string id = f.create("/ed-fi/schools", Fixture::school(7, "First"));
        f.call("PUT", "/ed-fi/schools/" + id, Fixture::school(7, "Second"));
        std::vector<HistoryEntry> history = f.engine().history(id);
        QCOMPARE(history.size(), std::size_t(2));
        QCOMPARE(history[0].op, std::string("update"));
        QCOMPARE((*history[1].body)["nameOfInstitution"].get<std::string>(), std::string("First"));

        f.create("/ed-fi/schools", Fixture::school(71));
        QCOMPARE(f.engine().lookup("Ed-Fi", "School", "7", 10).size(), std::size_t(2));
        QCOMPARE(f.engine().lookup("Ed-Fi", "EducationOrganization", "71", 10).size(), std::size_t(1));
        QCOMPARE(f.engine().lookup("Ed-Fi", "GradeLevelDescriptor", "uri://ed-fi.org/gradelevel", 10).size(),
                 std::size_t(2));
        QCOMPARE(f.engine().lookup("Ed-Fi", "School", "%", 10).size(), std::size_t(0));
    }

    void sampleDistrictLoadsCleanly()
    {
        Fixture f;
        const std::vector<Request> requests = sampleDistrictRequests();
        QVERIFY(requests.size() > 100);
        for (const Request &request : requests) {
            Response r = f.engine().handle(request);
            QVERIFY2(r.status == 201, (request.path + " " + r.body.dump()).c_str());
        }
        std::int64_t documents = 0;
        for (const ResourceCount &c : f.engine().resourceCounts())
            documents += c.documents;
        QCOMPARE(documents, static_cast<std::int64_t>(requests.size()));
    }

    void migratesAVersionOneDatabase()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("v1.db").toStdString();
        {
            // The version 1 layout, with one document, as the first release wrote it.
            SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
            db.exec("PRAGMA application_id=" + std::to_string(Database::kApplicationId));
            db.exec("CREATE TABLE documents (doc_key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, project TEXT NOT NULL,"
                    " resource TEXT NOT NULL, referential_id BLOB NOT NULL UNIQUE, identity TEXT NOT NULL, body TEXT NOT "
                    "NULL, etag TEXT NOT NULL, created_at TEXT NOT NULL, last_modified TEXT NOT NULL);"
                    "CREATE INDEX documents_by_resource ON documents(project, resource, doc_key);"
                    "INSERT INTO documents VALUES (1, 'x', 'Ed-Fi', 'Course', x'00', "
                    "'{\"courseCode\":\"ALG-1\",\"educationOrganizationReference\":{\"educationOrganizationId\":1}}', "
                    "'{}', 'e', 't', 't');"
                    "PRAGMA user_version=1;");
        }
        std::unique_ptr<Database> db = Database::open(path);
        QCOMPARE(db->connection().execAndGet("PRAGMA user_version").getInt(), Database::kSchemaVersion);
        QCOMPARE(db->connection().execAndGet("SELECT natural_key FROM documents").getString(),
                 std::string("ALG-1 / 1"));
        QCOMPARE(db->connection().execAndGet("SELECT count(*) FROM drafts").getInt(), 0);
    }
};

QTEST_GUILESS_MAIN(TestViews)
#include "tst_views.moc"
