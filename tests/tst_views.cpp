// The engine's typed views for front ends: dry-run validation, drafts, references both ways, history.
#include "DocumentStore.h"
#include "SampleDistrict.h"
#include "StoredForms.h"
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
    return Request::make("POST", path, "", body);
}

} // namespace

class TestViews : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // documents, aliases and changes are views over the rows and resources (schema 19). SQLite
    // flattens them into a query, except as the right side of a LEFT JOIN, where it would copy
    // every document first: the change log's join to the documents must read the rows.
    void changeLogJoinsReadNoCopyOfTheDocuments()
    {
        Fixture f;
        f.seedDescriptors();
        f.create("/ed-fi/schools", Fixture::school(255901));
        SQLite::Database &db = f.database().connection();
        const std::vector<std::string> queries = {
            std::string("SELECT c.seq, ") + kChangeAt + ", " + kChangeBody + " FROM " + kChangesWithBodies
                + " WHERE c.id = 'x' ORDER BY c.seq DESC",
            std::string("SELECT c.project, c.resource, ") + kChangeIdentity + ", " + kChangeEtag + " FROM "
                + kChangesWithBodies + " WHERE c.seq > 0 ORDER BY c.seq LIMIT 10",
        };
        for (const std::string &sql : queries) {
            SQLite::Statement plan(db, "EXPLAIN QUERY PLAN " + sql);
            std::string steps;
            while (plan.executeStep())
                steps += plan.getColumn(3).getString() + "\n";
            QVERIFY2(steps.find("MATERIALIZE") == std::string::npos, (sql + "\n" + steps).c_str());
            QVERIFY2(steps.find("SCAN d") == std::string::npos, (sql + "\n" + steps).c_str());
        }
    }

    // A first pull asks for everything up to the newest change version: its pages read the resource
    // in key order, not every change of the history and a sort for each page (which made a page cost
    // the whole history, so the pages of a pull grew slower with their offset). Only a window that
    // is a small part of the history is read through the change-version index.
    void aChangeWindowIsReadTheCheapWay()
    {
        Fixture f;
        f.seedDescriptors();
        for (int school = 1; school <= 12; ++school)
            f.create("/ed-fi/schools", Fixture::school(255900 + school));
        DocumentStore store(f.database().connection());
        const std::int64_t newest = store.newestChangeVersion();
        QVERIFY(newest >= 12);
        CollectionQuery everything;
        everything.project = "Ed-Fi";
        everything.resource = "School";
        everything.offset = 1;
        everything.maxChangeVersion = newest;
        const std::string wide = store.queryPlan(everything);
        QVERIFY2(wide.find("documents_by_resource") != std::string::npos, wide.c_str());
        QVERIFY2(wide.find("TEMP B-TREE") == std::string::npos, wide.c_str());
        everything.minChangeVersion = 1;
        QCOMPARE(store.queryPlan(everything), wide);

        CollectionQuery lately = everything;
        lately.minChangeVersion = newest - 2;
        const std::string narrow = store.queryPlan(lately);
        QVERIFY2(narrow.find("documents_by_change") != std::string::npos, narrow.c_str());
        // Both ways give the same documents.
        lately.offset = 0;
        QCOMPARE(store.query(lately, false).size(), std::size_t(3));
        everything.minChangeVersion = newest - 2;
        everything.maxChangeVersion = newest;
        everything.offset = 0;
        QCOMPARE(store.count(everything), std::int64_t(3));
    }

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
        Database::registerFunctions(db);
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

    // Ids are kept as their 16 bytes (schema 22); the views give their text, and a lookup by id
    // compares the stored form through the id indexes.
    void idsAreStoredAsBytesAndFoundThroughTheirIndexes()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string id = f.create("/ed-fi/schools", Fixture::school(255901));
        f.call("PUT", "/ed-fi/schools/" + id, Fixture::school(255901, "Renamed"));
        SQLite::Database &db = f.database().connection();
        SQLite::Statement stored(db, "SELECT typeof(id), length(id) FROM document_rows WHERE id = steward_id_key(?)");
        stored.bind(1, id);
        QVERIFY(stored.executeStep());
        QCOMPARE(stored.getColumn(0).getString(), std::string("blob"));
        QCOMPARE(stored.getColumn(1).getInt(), 16);
        SQLite::Statement text(db, "SELECT id FROM documents WHERE id_key = steward_id_key(?)");
        text.bind(1, id);
        QVERIFY(text.executeStep());
        QCOMPARE(text.getColumn(0).getString(), id);
        QCOMPARE(f.engine().history(id).size(), std::size_t(2));
        QCOMPARE(f.call("GET", "/ed-fi/schools/" + id).status, 200);
        const std::vector<std::pair<std::string, std::string>> lookups = {
            {"SELECT * FROM documents WHERE id_key = steward_id_key('x')", "documents_by_id"},
            {std::string("SELECT * FROM changes c WHERE ") + kEntryOfDocument + " ORDER BY c.seq DESC",
             "changes_by_document"},
            {std::string("SELECT c.seq FROM changes c WHERE ") + kEntryOfDocument, "documents_by_id"},
            {std::string("SELECT c.seq FROM ") + kChangesWithBodies + " WHERE " + kEntryOfDocument, "documents_by_change"},
        };
        for (const auto &[sql, index] : lookups) {
            SQLite::Statement plan(db, "EXPLAIN QUERY PLAN " + sql);
            std::string steps;
            while (plan.executeStep())
                steps += plan.getColumn(3).getString() + "\n";
            QVERIFY2(steps.find(index) != std::string::npos, (sql + "\n" + steps).c_str());
        }
    }

    // Times, etags and ids in the forms document_rows keeps them in give their text back exactly;
    // anything else is kept as the text it is.
    void storedFormsGiveTheirTextBack()
    {
        for (const char *time : {"2026-11-27T10:42:53Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
                                 "2024-02-29T23:59:59Z", "2000-03-01T00:00:00Z", "9999-12-31T23:59:59Z"}) {
            const std::optional<std::int64_t> seconds = secondsOfUtcText(time);
            QVERIFY2(seconds.has_value(), time);
            QCOMPARE(utcTextOfSeconds(*seconds), std::string(time));
        }
        // Every day of four years (a leap year and a century among them) reads back as itself.
        for (std::int64_t seconds : {std::int64_t(-86400) * 366, std::int64_t(951696000), std::int64_t(4107456000)})
            for (int day = 0; day < 4 * 366; ++day) {
                const std::string text = utcTextOfSeconds(seconds + day * 86400 + 3723);
                QCOMPARE(secondsOfUtcText(text), std::optional<std::int64_t>(seconds + day * 86400 + 3723));
            }
        for (const char *other : {"2023-04-31T00:00:00Z", "1900-02-29T00:00:00Z", "2026-00-10T00:00:00Z",
                                  "2026-01-00T00:00:00Z", "2026-01-32T00:00:00Z", "2026-01-01T24:00:00Z",
                                  "2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z"})
            QVERIFY2(!secondsOfUtcText(other).has_value(), other);
        QCOMPARE(*secondsOfUtcText("1970-01-02T00:00:01Z"), std::int64_t(86401));
        QCOMPARE(*secondsOfUtcText("1969-12-31T23:59:59Z"), std::int64_t(-1));
        for (const char *other : {"2023-02-29T00:00:00Z", "2026-11-27T10:42:53.123Z", "2026-11-27T10:42:53+01:00",
                                  "2026-13-01T00:00:00Z", "2026-11-27 10:42:53Z", "t", ""})
            QVERIFY2(!secondsOfUtcText(other).has_value(), other);
        QCOMPARE(*bytesOfLowerHex("00ff10"), std::string("\x00\xff\x10", 3));
        for (const char *other : {"00FF", "abc", "", "0g"})
            QVERIFY2(!bytesOfLowerHex(other).has_value(), other);

        Fixture f;
        f.seedDescriptors();
        const std::string id = f.create("/ed-fi/schools", Fixture::school(255901));
        SQLite::Database &db = f.database().connection();
        SQLite::Statement stored(db, "SELECT typeof(etag), length(etag), typeof(last_modified), created_at IS NULL "
                                     "FROM document_rows WHERE id = steward_id_key(?)");
        stored.bind(1, id);
        QVERIFY(stored.executeStep());
        QCOMPARE(stored.getColumn(0).getString() + std::to_string(stored.getColumn(1).getInt()), std::string("blob8"));
        QCOMPARE(stored.getColumn(2).getString(), std::string("integer"));
        QCOMPARE(stored.getColumn(3).getInt(), 1);
        const Response got = f.call("GET", "/ed-fi/schools/" + id);
        const std::string etag = got.body["_etag"].get<std::string>();
        const std::string modified = got.body["_lastModifiedDate"].get<std::string>();
        QCOMPARE(etag.size(), std::size_t(16));
        QVERIFY2(secondsOfUtcText(modified).has_value(), modified.c_str());
        SQLite::Statement text(db, "SELECT etag, last_modified, created_at FROM documents WHERE id_key = steward_id_key(?)");
        text.bind(1, id);
        QVERIFY(text.executeStep());
        QCOMPARE(text.getColumn(0).getString(), etag);
        QCOMPARE(text.getColumn(1).getString(), modified);
        QCOMPARE(text.getColumn(2).getString(), modified);
    }

    void migratesAVersionOneDatabase()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("v1.db").toStdString();
        {
            // The version 1 layout as the first release wrote it: a Course referencing a School,
            // with their aliases, the reference row and the change log.
            SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
            Database::registerFunctions(db);
            db.exec("PRAGMA application_id=" + std::to_string(Database::kApplicationId));
            db.exec("CREATE TABLE documents (doc_key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, project TEXT NOT NULL,"
                    " resource TEXT NOT NULL, referential_id BLOB NOT NULL UNIQUE, identity TEXT NOT NULL, body TEXT NOT "
                    "NULL, etag TEXT NOT NULL, created_at TEXT NOT NULL, last_modified TEXT NOT NULL);"
                    "CREATE INDEX documents_by_resource ON documents(project, resource, doc_key);"
                    "CREATE TABLE aliases (alias_key INTEGER PRIMARY KEY, referential_id BLOB NOT NULL UNIQUE, doc_key "
                    "INTEGER NOT NULL REFERENCES documents(doc_key) ON DELETE CASCADE, project TEXT NOT NULL, resource "
                    "TEXT NOT NULL);"
                    "CREATE INDEX aliases_by_document ON aliases(doc_key);"
                    "CREATE TABLE refs (from_doc INTEGER NOT NULL REFERENCES documents(doc_key) ON DELETE CASCADE, "
                    "to_alias INTEGER NOT NULL REFERENCES aliases(alias_key) ON DELETE RESTRICT, PRIMARY KEY (from_doc, "
                    "to_alias)) WITHOUT ROWID;"
                    "CREATE INDEX refs_by_target ON refs(to_alias, from_doc);"
                    "CREATE TABLE changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL CHECK (op IN "
                    "('insert', 'update', 'delete', 'key-change')), project TEXT NOT NULL, resource TEXT NOT NULL, id "
                    "TEXT NOT NULL, referential_id BLOB NOT NULL, previous_referential_id BLOB, identity TEXT NOT NULL, "
                    "body TEXT, etag TEXT, at TEXT NOT NULL, actor TEXT NOT NULL);"
                    "CREATE INDEX changes_by_document ON changes(id, seq);"
                    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                    "INSERT INTO documents VALUES (1, 's', 'Ed-Fi', 'School', x'01', '{\"schoolId\":1}', '{}', 'e', "
                    "'t', 't');"
                    "INSERT INTO documents VALUES (2, '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', 'Ed-Fi', 'Course', x'02', "
                    "'{\"courseCode\":\"ALG-1\",\"educationOrganizationReference\":{\"educationOrganizationId\":1}}', "
                    "'{}', 'e', 't', 't');"
                    "INSERT INTO aliases VALUES (1, x'01', 1, 'Ed-Fi', 'School'), (2, x'03', 1, 'Ed-Fi', "
                    "'EducationOrganization'), (3, x'02', 2, 'Ed-Fi', 'Course');"
                    "INSERT INTO refs VALUES (2, 2);"
                    "INSERT INTO changes (op, project, resource, id, referential_id, identity, body, etag, at, actor) "
                    "VALUES ('insert', 'Ed-Fi', 'School', 's', x'01', '{}', '{}', 'e', 't', 'a');"
                    // A change given and then removed: its number must never be given again.
                    "INSERT INTO changes (op, project, resource, id, referential_id, identity, body, etag, at, actor) "
                    "VALUES ('insert', 'Ed-Fi', 'School', 'gone', x'09', '{}', '{}', 'e', 't', 'a');"
                    "DELETE FROM changes WHERE id = 'gone';"
                    "PRAGMA user_version=1;");
        }
        std::unique_ptr<Database> db = Database::open(path);
        SQLite::Database &c = db->connection();
        QCOMPARE(c.execAndGet("PRAGMA user_version").getInt(), Database::schemaVersion());
        QCOMPARE(c.execAndGet("SELECT natural_key FROM documents WHERE doc_key = 2").getString(),
                 std::string("ALG-1 / 1"));
        QCOMPARE(c.execAndGet("SELECT count(*) FROM drafts").getInt(), 0);
        // Version 8 rebuilt documents: nothing the other tables point at went with the old table.
        QCOMPARE(c.execAndGet("SELECT count(*) FROM documents").getInt(), 2);
        QCOMPARE(c.execAndGet("SELECT count(*) FROM aliases").getInt(), 3);
        QCOMPARE(c.execAndGet("SELECT count(*) FROM refs").getInt(), 1);
        QCOMPARE(c.execAndGet("SELECT count(*) FROM changes").getInt(), 1);
        // Version 21 named who and what made each change once: the first release recorded no source.
        QCOMPARE(c.execAndGet("SELECT actor || '/' || coalesce(source, 'none') FROM changes").getString(),
                 std::string("a/none"));
        QCOMPARE(c.execAndGet("SELECT count(*) FROM change_origins").getInt(), 1);
        // Version 19 named each resource once; the views give the names back.
        QCOMPARE(c.execAndGet("SELECT count(*) FROM resources").getInt(), 3);
        QCOMPARE(c.execAndGet("SELECT project || '/' || resource FROM documents WHERE doc_key = 2").getString(),
                 std::string("Ed-Fi/Course"));
        QCOMPARE(c.execAndGet("SELECT group_concat(resource, ',') FROM (SELECT resource FROM aliases ORDER BY alias_key)")
                     .getString(),
                 std::string("School,EducationOrganization,Course"));
        // Version 9 left documents written before it pointing at no change-log entry; version 10 points
        // each at its last entry (its change version), which keeps its body. One without an entry stays NULL.
        QCOMPARE(c.execAndGet("SELECT count(*) FROM documents WHERE change_seq IS NULL").getInt(), 1);
        QCOMPARE(c.execAndGet("SELECT change_seq FROM documents WHERE id = 's'").getInt(), 1);
        // Version 22 keeps an id in the form Steward makes as its 16 bytes, any other as its text.
        QCOMPARE(c.execAndGet("SELECT group_concat(typeof(id) || length(id), ',') FROM (SELECT id FROM document_rows "
                              "ORDER BY doc_key)")
                     .getString(),
                 std::string("text1,blob16"));
        QCOMPARE(c.execAndGet("SELECT id FROM documents WHERE id_key = steward_id_key("
                              "'0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d')")
                     .getString(),
                 std::string("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"));
        QCOMPARE(c.execAndGet("SELECT count(*) FROM documents WHERE id_key = steward_id_key("
                              "'0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D')")
                     .getInt(),
                 0);
        // Version 23: the referential id is the own alias's; a time or etag not in the form Steward
        // writes stays the text it was.
        QCOMPARE(c.execAndGet("SELECT group_concat(hex(referential_id), ',') FROM (SELECT referential_id FROM "
                              "documents ORDER BY doc_key)")
                     .getString(),
                 std::string("01,02"));
        QCOMPARE(c.execAndGet("SELECT etag || last_modified || created_at FROM documents WHERE doc_key = 1").getString(),
                 std::string("ett"));
        QCOMPARE(c.execAndGet("SELECT body FROM changes").getString(), std::string("{}"));
        // Version 16 copied the change log: the next change version follows the highest ever given,
        // and an unknown op is still refused.
        const std::string school = "(SELECT resource_key FROM resources WHERE resource = 'School')";
        c.exec("INSERT INTO change_rows (op, resource_key, id, referential_id, identity, at, origin_key) VALUES ('update', "
               + school + ", 's', x'01', '', 't', 1)");
        QCOMPARE(c.getLastInsertRowid(), 3);
        QVERIFY_THROWS_EXCEPTION(SQLite::Exception,
                                 c.exec("INSERT INTO change_rows (op, resource_key, id, referential_id, identity, at, "
                                        "origin_key) VALUES ('bogus', " + school + ", 's', x'01', '', 't', 1)"));
        QCOMPARE(c.execAndGet("SELECT count(*) FROM sqlite_master WHERE name IN ('changes_deletes', "
                              "'changes_key_changes')")
                     .getInt(),
                 2);
        c.exec("DELETE FROM change_rows WHERE seq = 3");
        SQLite::Statement violations(c, "PRAGMA foreign_key_check");
        QVERIFY(!violations.executeStep());
        QCOMPARE(c.execAndGet("PRAGMA foreign_keys").getInt(), 1);
        QCOMPARE(c.execAndGet("SELECT count(*) FROM sqlite_master WHERE name IN ('documents_by_id', "
                              "'documents_by_resource', 'documents_by_natural_key', 'changes_by_document', "
                              "'refs_by_target')")
                     .getInt(),
                 5);
        // The id stays unique; the referential id's uniqueness is the aliases' (no index of its own).
        QVERIFY_THROWS_EXCEPTION(SQLite::Exception, c.exec("INSERT INTO document_rows (id, resource_key, identity, "
                                                           "body, etag, last_modified) VALUES ('s', " + school
                                                           + ", '{}', '{}', 'e', 't')"));
        QCOMPARE(c.execAndGet("SELECT count(*) FROM document_rows").getInt(), 2);
        // No automatic indexes (UNIQUE column constraints) are left on documents.
        QCOMPARE(c.execAndGet("SELECT count(*) FROM sqlite_master WHERE tbl_name = 'document_rows' AND sql IS NULL")
                     .getInt(),
                 0);
        // Deleting through the new table still cascades and restricts as before.
        QVERIFY_THROWS_EXCEPTION(SQLite::Exception, c.exec("DELETE FROM document_rows WHERE doc_key = 1"));
        c.exec("DELETE FROM document_rows WHERE doc_key = 2");
        QCOMPARE(c.execAndGet("SELECT count(*) FROM refs").getInt(), 0);
        QCOMPARE(c.execAndGet("SELECT count(*) FROM aliases WHERE doc_key = 2").getInt(), 0);
    }

    void opensWithIndexesAKilledImportLeftDropped()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("deferred.db").toStdString();
        {
            std::unique_ptr<Database> db = Database::open(path);
            db->deferIndexes();
            QVERIFY(db->indexesDeferred());
            QCOMPARE(db->connection().execAndGet("SELECT count(*) FROM sqlite_master WHERE name = 'documents_by_id'")
                         .getInt(),
                     0);
        }
        std::unique_ptr<Database> db = Database::open(path);
        QVERIFY(!db->indexesDeferred());
        QCOMPARE(db->connection().execAndGet("SELECT count(*) FROM sqlite_master WHERE name IN ('documents_by_id', "
                                             "'changes_by_document', 'refs_by_target')")
                     .getInt(),
                 3);
    }
};

QTEST_GUILESS_MAIN(TestViews)
#include "tst_views.moc"
