// Sync bookkeeping without a network: push plans (order, folding, what is left out), the cursor
// rule, natural-key queries, remote ids, failures, and the change feed.
#include "Sync.h"
#include "TestSupport.h"

#include <QTest>

using namespace steward;
using namespace steward::test;

namespace {

const std::string kTarget = "http://127.0.0.1:9/api";

std::vector<std::string> describe(const PushPlan &plan)
{
    std::vector<std::string> out;
    for (const PushItem &item : plan.items)
        out.push_back(std::string(operationName(item.operation)) + " " + item.resource->resourceName);
    return out;
}

std::int64_t lastSeq(Fixture &f)
{
    return f.database().connection().execAndGet("SELECT max(seq) FROM changes").getInt64();
}

} // namespace

class TestSync : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void planPutsUpsertsInLoadOrder()
    {
        Fixture f;
        // Descriptors, then the School, then the Course that references it.
        f.seedDescriptors();
        f.create("/ed-fi/schools", Fixture::school(100));
        f.create("/ed-fi/courses", Fixture::course("ALG-1", 100));
        const PushPlan plan = planPush(f.database().connection(), f.model(), 0, kTarget);
        QCOMPARE(plan.fromSeq, 0);
        QCOMPARE(plan.toSeq, lastSeq(f));
        const std::vector<std::string> steps = describe(plan);
        const auto school = std::find(steps.begin(), steps.end(), "upsert School");
        const auto course = std::find(steps.begin(), steps.end(), "upsert Course");
        QVERIFY(school != steps.end() && course != steps.end());
        QVERIFY(school < course);
        // Descriptors come before the School that uses them.
        QCOMPARE(steps.front().rfind("upsert ", 0), 0u);
        QVERIFY(steps.front().find("Descriptor") != std::string::npos);
        JSON_COMPARE(plan.counts().at("ed-fi/schools"), (std::map<std::string, int>{{"upsert", 1}}));

        // Nothing new after the cursor: nothing to do.
        const PushPlan none = planPush(f.database().connection(), f.model(), plan.toSeq, kTarget);
        QVERIFY(none.items.empty());
    }

    void planFoldsEachDocumentAndOrdersOperations()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string schoolId = f.create("/ed-fi/schools", Fixture::school(100));
        f.create("/ed-fi/schoolYearTypes", Fixture::schoolYear(2022));
        const std::string courseId = f.create("/ed-fi/courses", Fixture::course("ALG-1", 100));
        const std::string sessionId = f.create("/ed-fi/sessions", Fixture::session(100, 2022, "Fall"));
        const std::string oldSchool = f.create("/ed-fi/schools", Fixture::school(200, "Old"));
        const std::int64_t cursor = lastSeq(f);

        // After the cursor: a School updated twice, a Course deleted, a Session renamed (key change),
        // a School created and deleted again, the old School deleted.
        QCOMPARE(f.call("PUT", "/ed-fi/schools/" + schoolId, Fixture::school(100, "Renamed once")).status, 204);
        QCOMPARE(f.call("PUT", "/ed-fi/schools/" + schoolId, Fixture::school(100, "Renamed twice")).status, 204);
        QCOMPARE(f.call("DELETE", "/ed-fi/courses/" + courseId).status, 204);
        QCOMPARE(f.call("PUT", "/ed-fi/sessions/" + sessionId, Fixture::session(100, 2022, "Fall Semester")).status, 204);
        const std::string shortLived = f.create("/ed-fi/schools", Fixture::school(300, "Short-lived"));
        QCOMPARE(f.call("DELETE", "/ed-fi/schools/" + shortLived).status, 204);
        QCOMPARE(f.call("DELETE", "/ed-fi/schools/" + oldSchool).status, 204);

        const PushPlan plan = planPush(f.database().connection(), f.model(), cursor, kTarget);
        const std::vector<std::string> steps = describe(plan);
        // Key changes, then upserts, then deletes in reverse load order (Course before School).
        const std::vector<std::string> expected{"key-change Session", "upsert School", "delete Course",
                                                "delete School"};
        JSON_COMPARE(Json(steps), Json(expected));
        const PushItem &rename = plan.items[0];
        QCOMPARE(rename.id, sessionId);
        QCOMPARE(rename.targetIdentity["sessionName"].get<std::string>(), std::string("Fall"));
        QCOMPARE(rename.identity["sessionName"].get<std::string>(), std::string("Fall Semester"));
        QCOMPARE(rename.body["sessionName"].get<std::string>(), std::string("Fall Semester"));
        QCOMPARE(plan.items[1].body["nameOfInstitution"].get<std::string>(), std::string("Renamed twice"));
        QCOMPARE(plan.items[3].identity["schoolId"].get<int>(), 200);
        QVERIFY(plan.items[3].body.is_null());

        // The cursor passes everything when all is accepted, and stops before a refused document.
        QCOMPARE(cursorAfter(plan, {true, true, true, true}), plan.toSeq);
        QCOMPARE(cursorAfter(plan, {true, false, true, true}), plan.items[1].firstSeq - 1);
        QCOMPARE(cursorAfter(plan, {true}), std::min(plan.items[1].firstSeq, std::min(plan.items[2].firstSeq, plan.items[3].firstSeq)) - 1);
        QCOMPARE(cursorAfter(plan, {false, false, false, false}) >= cursor, true);
    }

    void pulledChangesAreNotPushedBack()
    {
        Fixture f;
        f.seedDescriptors();
        const std::int64_t cursor = lastSeq(f);
        Response pulled = f.call("POST", "/ed-fi/schools", Fixture::school(100)); // actor: the OS user
        QCOMPARE(pulled.status, 201);
        Request fromTarget;
        fromTarget.method = "POST";
        fromTarget.path = "/ed-fi/schools";
        fromTarget.body = Fixture::school(101);
        fromTarget.actor = pullActor(kTarget);
        QCOMPARE(f.engine().handle(fromTarget).status, 201);
        const PushPlan plan = planPush(f.database().connection(), f.model(), cursor, kTarget);
        QCOMPARE(plan.items.size(), std::size_t(1));
        QCOMPARE(plan.items[0].identity["schoolId"].get<int>(), 100);
        QCOMPARE(plan.toSeq, lastSeq(f)); // covered, even though not sent
        // Another target does get it.
        QCOMPARE(planPush(f.database().connection(), f.model(), cursor, "http://elsewhere").items.size(), std::size_t(2));
    }

    void identityQueriesUseTheResourcesQueryFields()
    {
        Fixture f;
        const ResourceSchema *school = f.model().findByEndpoint("ed-fi", "schools");
        const ResourceSchema *course = f.model().findByEndpoint("ed-fi", "courses");
        const ResourceSchema *grade = f.model().findByEndpoint("ed-fi", "gradeLevelDescriptors");
        QVERIFY(school && course && grade);
        QCOMPARE(identityQuery(*school, Json{{"schoolId", 255901}}), std::string("schoolId=255901"));
        const std::string courseQuery = identityQuery(
            *course, Json{{"courseCode", "ALG 1"}, {"educationOrganizationReference", {{"educationOrganizationId", 255901}}}});
        QVERIFY2(courseQuery.find("courseCode=ALG%201") != std::string::npos, courseQuery.c_str());
        QVERIFY2(courseQuery.find("educationOrganizationId=255901") != std::string::npos, courseQuery.c_str());
        QCOMPARE(identityQuery(*grade, Json{{"namespace", "uri://ed-fi.org/GradeLevelDescriptor"}, {"codeValue", "Ninth grade"}}),
                 std::string("namespace=uri%3A%2F%2Fed-fi.org%2FGradeLevelDescriptor&codeValue=Ninth%20grade"));
        QCOMPARE(identityQuery(*school, Json::object()), std::string());
    }

    void targetsRemoteIdsAndFailuresPersist()
    {
        Fixture f;
        SyncState state(f.database().connection());
        const SyncTarget target = state.ensureTarget(kTarget, "district");
        QCOMPARE(state.ensureTarget(kTarget, "district").targetId, target.targetId);
        QCOMPARE(target.pushCursor, 0);
        state.setPushCursor(target.targetId, 42);
        state.setPushCursor(target.targetId, 40); // never moves back
        QCOMPARE(state.targets().at(0).pushCursor, 42);
        QVERIFY(!state.targets().at(0).lastPushAt.empty());

        QVERIFY(!state.remoteId(target.targetId, "local-1"));
        state.setRemoteIds(target.targetId, {{"local-1", "remote-1"}, {"local-2", "remote-2"}});
        state.setRemoteId(target.targetId, "local-1", "remote-1b");
        QCOMPARE(*state.remoteId(target.targetId, "local-1"), std::string("remote-1b"));
        state.forgetRemoteId(target.targetId, "local-1");
        QVERIFY(!state.remoteId(target.targetId, "local-1"));

        state.recordFailure(target.targetId, {"local-2", 7, "Ed-Fi", "School", "upsert", 409, Json{{"detail", "no"}}, {}});
        state.recordFailure(target.targetId, {"local-2", 8, "Ed-Fi", "School", "upsert", 400, Json{{"detail", "again"}}, {}});
        std::vector<SyncFailure> failures = state.failures(target.targetId);
        QCOMPARE(failures.size(), std::size_t(1));
        QCOMPARE(failures[0].status, 400);
        QCOMPARE(failures[0].problem["detail"].get<std::string>(), std::string("again"));
        state.clearFailure(target.targetId, "local-2");
        QVERIFY(state.failures(target.targetId).empty());
    }

    void changeFeedReadsInOrder()
    {
        Fixture f;
        f.seedDescriptors();
        const std::int64_t before = lastSeq(f);
        const std::string id = f.create("/ed-fi/schools", Fixture::school(100));
        QCOMPARE(f.call("DELETE", "/ed-fi/schools/" + id).status, 204);
        const std::vector<ChangeEntry> entries = readChanges(f.database().connection(), before, 10);
        QCOMPARE(entries.size(), std::size_t(2));
        QCOMPARE(entries[0].op, std::string("insert"));
        QCOMPARE(entries[0].id, id);
        QVERIFY(entries[0].body.has_value());
        QCOMPARE(entries[1].op, std::string("delete"));
        QVERIFY(!entries[1].body.has_value());
        const Json line = entries[1].toJson();
        QVERIFY(!line.contains("body"));
        QCOMPARE(line["identity"]["schoolId"].get<int>(), 100);
        QCOMPARE(line["seq"].get<std::int64_t>(), before + 2);
    }

    // Inserts and updates do not store their identity (schema version 15); the feed and the
    // Change Queries still give every entry the identity its document had at that point.
    void everyEntryKeepsTheIdentityItWasWrittenWith()
    {
        Fixture f;
        f.seedDescriptors();
        f.create("/ed-fi/schools", Fixture::school(100));
        f.create("/ed-fi/schoolYearTypes", Fixture::schoolYear(2022));
        const std::int64_t before = lastSeq(f);
        const std::string id = f.create("/ed-fi/sessions", Fixture::session(100, 2022, "Fall"));
        Json body = Fixture::session(100, 2022, "Fall");
        body["totalInstructionalDays"] = 81;
        QCOMPARE(f.call("PUT", "/ed-fi/sessions/" + id, body).status, 204);
        QCOMPARE(f.call("PUT", "/ed-fi/sessions/" + id, Fixture::session(100, 2022, "Autumn")).status, 204);
        QCOMPARE(f.call("PUT", "/ed-fi/sessions/" + id, Fixture::session(100, 2022, "Winter")).status, 204);
        QCOMPARE(f.call("PUT", "/ed-fi/sessions/" + id, Fixture::session(100, 2022, "Winter")).status, 204);
        const std::vector<ChangeEntry> entries = readChanges(f.database().connection(), before, 10);
        std::string seen;
        for (const ChangeEntry &entry : entries)
            seen += entry.op + " " + entry.identity.value("sessionName", std::string("?")) + "; ";
        QCOMPARE(QString::fromStdString(seen), QStringLiteral("insert Fall; update Fall; key-change Autumn; key-change Winter; "));
        QCOMPARE(f.call("DELETE", "/ed-fi/sessions/" + id).status, 204);
        QCOMPARE(readChanges(f.database().connection(), before, 10).back().identity.value("sessionName", ""),
                 std::string("Winter"));
        QCOMPARE(readChanges(f.database().connection(), before, 10).front().identity.value("sessionName", ""),
                 std::string("Fall"));

        const Response keyChanges = f.call("GET", "/ed-fi/sessions/keyChanges");
        QCOMPARE(keyChanges.status, 200);
        QCOMPARE(keyChanges.body.size(), std::size_t(2));
        QCOMPARE(keyChanges.body[0]["oldKeyValues"]["sessionName"].get<std::string>(), std::string("Fall"));
        QCOMPARE(keyChanges.body[0]["newKeyValues"]["sessionName"].get<std::string>(), std::string("Autumn"));
        QCOMPARE(keyChanges.body[1]["oldKeyValues"]["sessionName"].get<std::string>(), std::string("Autumn"));
        const Response deletes = f.call("GET", "/ed-fi/sessions/deletes");
        QCOMPARE(deletes.body.size(), std::size_t(1));
        QCOMPARE(deletes.body[0]["keyValues"]["sessionName"].get<std::string>(), std::string("Winter"));
    }
};

QTEST_GUILESS_MAIN(TestSync)
#include "tst_sync.moc"
