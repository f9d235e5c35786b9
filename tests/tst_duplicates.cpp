// Duplicate candidates, merge and identity change: referrers follow, nothing dangles, previews match.
#include "CliSupport.h"
#include "Duplicates.h"
#include "IdentityChange.h"
#include "SampleDistrict.h"
#include "TestSupport.h"

#include <SQLiteCpp/Statement.h>

#include <QFile>
#include <QtTest>

using namespace steward;
using namespace steward::test;

namespace {

Json bodyOf(Fixture &f, const std::string &endpoint, const std::string &id)
{
    Json body = f.call("GET", "/ed-fi/" + endpoint + "/" + id).body;
    for (const char *field : {"id", "_etag", "_lastModifiedDate"})
        body.erase(field);
    return body;
}

std::vector<Json> all(Fixture &f, const std::string &endpoint)
{
    std::vector<Json> out;
    for (const Json &doc : f.call("GET", "/ed-fi/" + endpoint + "?limit=500").body)
        out.push_back(doc);
    return out;
}

// Documents of an endpoint whose reference field (e.g. "studentReference") names the unique id.
std::vector<Json> referencing(Fixture &f, const std::string &endpoint, const std::string &reference,
                              const std::string &field, const std::string &value)
{
    std::vector<Json> out;
    for (const Json &doc : all(f, endpoint))
        if (doc[reference][field] == value)
            out.push_back(doc);
    return out;
}

std::int64_t changeCount(Fixture &f)
{
    return f.database().connection().execAndGet("SELECT COUNT(*) FROM changes").getInt64();
}

std::string documentsDigest(Fixture &f)
{
    return f.database()
        .connection()
        .execAndGet("SELECT COALESCE(group_concat(id || ':' || etag, ','), '') FROM (SELECT id, etag FROM documents "
                    "ORDER BY id)")
        .getString();
}

void verifyClean(Fixture &f)
{
    const IntegrityReport report = f.engine().check();
    QVERIFY2(report.clean(), qPrintable(QString::fromStdString(report.toJson().dump())));
}

std::string person(Fixture &f, const std::string &endpoint, const std::string &uniqueField, const std::string &uniqueId,
                   const std::string &first, const std::string &last, const std::string &born)
{
    return f.create("/ed-fi/" + endpoint,
                    {{uniqueField, uniqueId}, {"firstName", first}, {"lastSurname", last}, {"birthDate", born}});
}

bool hasPair(const std::vector<DuplicateCandidate> &candidates, const std::string &a, const std::string &b)
{
    for (const DuplicateCandidate &c : candidates)
        if ((c.leftId == a && c.rightId == b) || (c.leftId == b && c.rightId == a))
            return true;
    return false;
}

} // namespace

class TestDuplicates : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void namesNormalize()
    {
        QCOMPARE(QString::fromStdString(normalizedName("  José  Pérez-Núñez ")), QStringLiteral("jose pereznunez"));
        QCOMPARE(QString::fromStdString(normalizedName("O'Brien")), QStringLiteral("obrien"));
        QCOMPARE(editDistance("jon smith", "john smith", 2), 1);
        QCOMPARE(editDistance("ana", "ana", 2), 0);
        QCOMPARE(editDistance("abcdef", "uvwxyz", 2), 3); // stops counting past the limit
        QCOMPARE(editDistance("zoë", "zoe", 2), 1);        // letters, not bytes
    }

    void candidatesShareABirthDateAndNearNames()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const std::string jose = person(f, "students", "studentUniqueId", "D-1", "José", "Pérez", "1990-05-05");
        const std::string jose2 = person(f, "students", "studentUniqueId", "D-2", "Jose", "Perez", "1990-05-05");
        const std::string swapped = person(f, "students", "studentUniqueId", "D-3", "Perez", "Jose", "1990-05-05");
        const std::string typo = person(f, "students", "studentUniqueId", "D-4", "Josee", "Peres", "1990-05-05");
        const std::string otherDay = person(f, "students", "studentUniqueId", "D-5", "Jose", "Perez", "1990-05-06");
        const std::string otherName = person(f, "students", "studentUniqueId", "D-6", "Maria", "Lopez", "1990-05-05");
        const std::string staffA = person(f, "staffs", "staffUniqueId", "T-1", "Lee", "Chan", "1970-01-01");
        const std::string staffB = person(f, "staffs", "staffUniqueId", "T-2", "Lee", "Chan.", "1970-01-01");

        std::vector<DuplicateCandidate> candidates = findDuplicateCandidates(f.database().connection(), f.model());
        QVERIFY(hasPair(candidates, jose, jose2));
        QVERIFY(hasPair(candidates, jose, swapped));
        QVERIFY(hasPair(candidates, jose2, typo)); // "josee peres" is two edits from "jose perez"
        QVERIFY(!hasPair(candidates, jose, otherDay));
        QVERIFY(!hasPair(candidates, jose2, otherDay));
        QVERIFY(!hasPair(candidates, jose, otherName));
        QVERIFY(hasPair(candidates, staffA, staffB));
        for (const DuplicateCandidate &c : candidates) {
            if ((c.leftId == jose && c.rightId == swapped) || (c.leftId == swapped && c.rightId == jose))
                QVERIFY(c.swapped);
            if (c.leftId == jose && c.rightId == jose2) {
                QCOMPARE(c.distance, 0);
                QCOMPARE(QString::fromStdString(c.birthDate), QStringLiteral("1990-05-05"));
                QCOMPARE(QString::fromStdString(c.leftName), QStringLiteral("José Pérez"));
            }
        }
        const std::vector<DuplicateCandidate> staffOnly =
            findDuplicateCandidates(f.database().connection(), f.model(), {"Staff"});
        QVERIFY(hasPair(staffOnly, staffA, staffB));
        QVERIFY(!hasPair(staffOnly, jose, jose2));

        // Marked distinct: gone, also for a new connection (persisted), in either order.
        markDistinct(f.database(), jose2, jose, "tester");
        std::unique_ptr<Database> reader = Database::open(f.databasePath(), Database::Access::ReadOnly);
        candidates = findDuplicateCandidates(reader->connection(), f.model());
        QVERIFY(!hasPair(candidates, jose, jose2));
        QVERIFY(hasPair(candidates, jose, swapped));
        QVERIFY_THROWS_EXCEPTION(StorageError, markDistinct(f.database(), jose, staffA, "tester"));
        QVERIFY_THROWS_EXCEPTION(StorageError, markDistinct(f.database(), jose, "no-such-id", "tester"));
        QVERIFY_THROWS_EXCEPTION(StorageError, markDistinct(f.database(), jose, jose, "tester"));
    }

    void mergeMovesEveryReferrerAndMergesConflicts()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const Json keepDoc = all(f, "students").at(0);
        const std::string keepId = keepDoc["id"];
        const std::string keepUid = keepDoc["studentUniqueId"];
        const std::string dropId = person(f, "students", "studentUniqueId", "DUP-1", keepDoc["firstName"],
                                          keepDoc["lastSurname"], keepDoc["birthDate"]);

        // The duplicate's enrollments: one equal to the kept student's (same school, same day), one
        // on another day; section enrollments likewise.
        const std::vector<Json> keepSchool = referencing(f, "studentSchoolAssociations", "studentReference",
                                                         "studentUniqueId", keepUid);
        const std::vector<Json> keepSections = referencing(f, "studentSectionAssociations", "studentReference",
                                                           "studentUniqueId", keepUid);
        QVERIFY(!keepSchool.empty());
        QVERIFY(keepSections.size() >= 2);
        auto forDrop = [](Json body) {
            for (const char *field : {"id", "_etag", "_lastModifiedDate"})
                body.erase(field);
            body["studentReference"]["studentUniqueId"] = "DUP-1";
            return body;
        };
        f.create("/ed-fi/studentSchoolAssociations", forDrop(keepSchool[0]));
        Json laterEnrollment = forDrop(keepSchool[0]);
        laterEnrollment["entryDate"] = "2025-02-03";
        f.create("/ed-fi/studentSchoolAssociations", laterEnrollment);
        f.create("/ed-fi/studentSectionAssociations", forDrop(keepSections[0]));
        Json laterSection = forDrop(keepSections[1]);
        laterSection["beginDate"] = "2025-02-03";
        f.create("/ed-fi/studentSectionAssociations", laterSection);
        const std::size_t keepSchoolBefore = keepSchool.size();
        const std::size_t keepSectionsBefore = keepSections.size();

        const std::int64_t changesBefore = changeCount(f);
        const std::string digestBefore = documentsDigest(f);
        const IdentityChangeResult preview = mergeDocuments(f.engine(), keepId, dropId, false);
        QVERIFY2(preview.ok, preview.error.c_str());
        QVERIFY(!preview.applied);
        QCOMPARE(changeCount(f), changesBefore); // a preview writes nothing
        QCOMPARE(documentsDigest(f), digestBefore);
        int deletes = 0;
        int updates = 0;
        for (const IdentityStep &step : preview.steps) {
            QVERIFY(step.op != "create"); // everything lands on what exists
            deletes += step.op == "delete";
            updates += step.op == "update";
            QVERIFY(!step.naturalKey.empty());
        }
        // The conflicting enrollment and section enrollment merge (deleted), the other two move, the student goes.
        QCOMPARE(deletes, 3);
        QCOMPARE(updates, 2);
        QCOMPARE(QString::fromStdString(preview.steps.back().op), QStringLiteral("delete"));
        QCOMPARE(QString::fromStdString(preview.steps.back().id), QString::fromStdString(dropId));
        bool fieldsNamed = false;
        for (const IdentityStep &step : preview.steps)
            for (const std::string &field : step.fields)
                fieldsNamed = fieldsNamed || field == "studentReference.studentUniqueId";
        QVERIFY(fieldsNamed);

        const IdentityChangeResult applied = mergeDocuments(f.engine(), keepId, dropId, true, &preview.steps);
        QVERIFY2(applied.ok, applied.error.c_str());
        QVERIFY(applied.applied);
        QVERIFY(applied.steps == preview.steps);
        QCOMPARE(f.call("GET", "/ed-fi/students/" + dropId).status, 404);
        QVERIFY(referencing(f, "studentSchoolAssociations", "studentReference", "studentUniqueId", "DUP-1").empty());
        QVERIFY(referencing(f, "studentSectionAssociations", "studentReference", "studentUniqueId", "DUP-1").empty());
        QCOMPARE(referencing(f, "studentSchoolAssociations", "studentReference", "studentUniqueId", keepUid).size(),
                 keepSchoolBefore + 1);
        QCOMPARE(referencing(f, "studentSectionAssociations", "studentReference", "studentUniqueId", keepUid).size(),
                 keepSectionsBefore + 1);
        verifyClean(f);
        QVERIFY(!mergeDocuments(f.engine(), keepId, dropId, true).ok); // drop is gone now
        QVERIFY(!mergeDocuments(f.engine(), keepId, keepId, true).ok);
    }

    void applyRefusesWhenTheDataChangedSinceThePreview()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const Json keepDoc = all(f, "students").at(0);
        const std::string dropId = person(f, "students", "studentUniqueId", "DUP-2", "A", "B", "2001-01-01");
        const IdentityChangeResult preview = mergeDocuments(f.engine(), keepDoc["id"], dropId, false);
        QVERIFY(preview.ok);
        Json enrollment = referencing(f, "studentSchoolAssociations", "studentReference", "studentUniqueId",
                                      keepDoc["studentUniqueId"])
                              .at(0);
        for (const char *field : {"id", "_etag", "_lastModifiedDate"})
            enrollment.erase(field);
        enrollment["studentReference"]["studentUniqueId"] = "DUP-2";
        f.create("/ed-fi/studentSchoolAssociations", enrollment);
        const std::int64_t changesBefore = changeCount(f);
        const IdentityChangeResult applied = mergeDocuments(f.engine(), keepDoc["id"], dropId, true, &preview.steps);
        QVERIFY(!applied.ok);
        QVERIFY(applied.error.find("preview") != std::string::npos);
        QCOMPARE(changeCount(f), changesBefore);
        QCOMPARE(f.call("GET", "/ed-fi/students/" + dropId).status, 200);
        verifyClean(f);
    }

    void studentIdentityChangeMovesReferrers()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const Json student = all(f, "students").at(0);
        const std::string id = student["id"];
        const std::string oldUid = student["studentUniqueId"];
        const std::size_t school = referencing(f, "studentSchoolAssociations", "studentReference", "studentUniqueId", oldUid).size();
        const std::size_t sections = referencing(f, "studentSectionAssociations", "studentReference", "studentUniqueId", oldUid).size();
        QVERIFY(school > 0 && sections > 0);

        const IdentityChangeResult preview = changeIdentity(f.engine(), id, {{"studentUniqueId", "604900"}}, false);
        QVERIFY2(preview.ok, preview.error.c_str());
        QCOMPARE(QString::fromStdString(preview.steps.front().op), QStringLiteral("create"));
        QCOMPARE(QString::fromStdString(preview.steps.front().naturalKey), QStringLiteral("604900"));
        QCOMPARE(preview.steps.size(), school + sections + 2);
        QCOMPARE(f.call("GET", "/ed-fi/students/" + id).status, 200);

        const IdentityChangeResult applied =
            changeIdentity(f.engine(), id, {{"studentUniqueId", "604900"}}, true, &preview.steps);
        QVERIFY2(applied.ok, applied.error.c_str());
        QVERIFY(applied.steps == preview.steps);
        QCOMPARE(f.call("GET", "/ed-fi/students/" + id).status, 404);
        const Json moved = bodyOf(f, "students", applied.resultId);
        QCOMPARE(QString::fromStdString(moved["studentUniqueId"]), QStringLiteral("604900"));
        QCOMPARE(moved["firstName"], student["firstName"]); // the same body, new identity
        QVERIFY(referencing(f, "studentSchoolAssociations", "studentReference", "studentUniqueId", oldUid).empty());
        QCOMPARE(referencing(f, "studentSchoolAssociations", "studentReference", "studentUniqueId", "604900").size(), school);
        QCOMPARE(referencing(f, "studentSectionAssociations", "studentReference", "studentUniqueId", "604900").size(), sections);
        verifyClean(f);
    }

    void enrollmentEntryDateChangeIsAnUpdate()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const Json enrollment = all(f, "studentSchoolAssociations").at(0);
        const std::string id = enrollment["id"];
        const IdentityChangeResult preview = changeIdentity(f.engine(), id, {{"entryDate", "2024-08-20"}}, false);
        QVERIFY2(preview.ok, preview.error.c_str());
        QCOMPARE(preview.steps.size(), std::size_t(1)); // the resource allows identity updates: one PUT
        QCOMPARE(QString::fromStdString(preview.steps[0].op), QStringLiteral("update"));
        QCOMPARE(preview.steps[0].fields, std::vector<std::string>{"entryDate"});
        const IdentityChangeResult applied =
            changeIdentity(f.engine(), id, {{"entryDate", "2024-08-20"}}, true, &preview.steps);
        QVERIFY2(applied.ok, applied.error.c_str());
        QCOMPARE(QString::fromStdString(bodyOf(f, "studentSchoolAssociations", id)["entryDate"]),
                 QStringLiteral("2024-08-20"));
        verifyClean(f);
    }

    void staffIdentityChangeRecreatesIdentifyingReferrers()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        Json staff;
        for (const Json &candidate : all(f, "staffs"))
            if (!referencing(f, "staffSectionAssociations", "staffReference", "staffUniqueId",
                             candidate["staffUniqueId"])
                     .empty())
                staff = candidate;
        QVERIFY(!staff.is_null());
        const std::string oldUid = staff["staffUniqueId"];
        const std::size_t sections =
            referencing(f, "staffSectionAssociations", "staffReference", "staffUniqueId", oldUid).size();
        // StaffSectionAssociation does not allow identity updates, and staffReference is in its
        // identity: each is recreated for the new staff member and the old one deleted.
        const IdentityChangeResult applied = changeIdentity(f.engine(), staff["id"], {{"staffUniqueId", "S-NEW"}}, true);
        QVERIFY2(applied.ok, applied.error.c_str());
        int creates = 0;
        int deletes = 0;
        for (const IdentityStep &step : applied.steps) {
            creates += step.op == "create";
            deletes += step.op == "delete";
        }
        QCOMPARE(creates, static_cast<int>(sections) + 1);
        QCOMPARE(deletes, static_cast<int>(sections) + 1);
        QVERIFY(referencing(f, "staffSectionAssociations", "staffReference", "staffUniqueId", oldUid).empty());
        QCOMPARE(referencing(f, "staffSectionAssociations", "staffReference", "staffUniqueId", "S-NEW").size(), sections);
        verifyClean(f);
    }

    void schoolIdentityChangeReachesEveryPath()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const Json school = all(f, "schools").at(0);
        const int oldId = school["schoolId"];
        const std::int64_t documentsBefore =
            f.database().connection().execAndGet("SELECT COUNT(*) FROM documents").getInt64();
        // Sessions reference their School directly and through GradingPeriods, CourseOfferings through
        // Course, School and Session, Sections through all of those: each is rewritten once, for all.
        const IdentityChangeResult preview = changeIdentity(f.engine(), school["id"], {{"schoolId", "255909999"}}, false);
        QVERIFY2(preview.ok, preview.error.c_str());
        const IdentityChangeResult applied =
            changeIdentity(f.engine(), school["id"], {{"schoolId", "255909999"}}, true, &preview.steps);
        QVERIFY2(applied.ok, applied.error.c_str());
        QVERIFY(applied.steps == preview.steps);
        QCOMPARE(f.database().connection().execAndGet("SELECT COUNT(*) FROM documents").getInt64(), documentsBefore);
        // No identity value or reference names the old school id any more (calendar codes may still
        // contain it as text: they are names, not references).
        SQLite::Statement stale(f.database().connection(),
                                "SELECT COUNT(*) FROM documents WHERE body LIKE ? OR body LIKE ?");
        stale.bind(1, "%\"schoolId\":" + std::to_string(oldId) + "%");
        stale.bind(2, "%\"educationOrganizationId\":" + std::to_string(oldId) + "%");
        QVERIFY(stale.executeStep());
        QCOMPARE(stale.getColumn(0).getInt64(), 0);
        QCOMPARE(bodyOf(f, "schools", applied.resultId)["schoolId"].get<int>(), 255909999);
        verifyClean(f);
    }

    void identityChangeRefusals()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const std::vector<Json> students = all(f, "students");
        const std::string id = students.at(0)["id"];
        const std::int64_t changesBefore = changeCount(f);
        IdentityChangeResult taken =
            changeIdentity(f.engine(), id, {{"studentUniqueId", students.at(1)["studentUniqueId"]}}, true);
        QVERIFY(!taken.ok);
        QVERIFY2(taken.error.find("already exists") != std::string::npos
                     && taken.error.find(students.at(1)["id"].get<std::string>()) != std::string::npos,
                 taken.error.c_str());
        QVERIFY(!changeIdentity(f.engine(), id, {{"firstName", "X"}}, true).ok); // not an identity field
        QVERIFY(!changeIdentity(f.engine(), "no-such-id", {{"studentUniqueId", "1"}}, true).ok);
        QVERIFY(!changeIdentity(f.engine(), id, {{"studentUniqueId", students.at(0)["studentUniqueId"]}}, true).ok);
        // An integer identity value out of range is refused, not clamped to the largest one.
        const std::string schoolId = all(f, "schools").at(0)["id"];
        const IdentityChangeResult huge =
            changeIdentity(f.engine(), schoolId, {{"schoolId", "99999999999999999999999"}}, true);
        QVERIFY(!huge.ok);
        QVERIFY2(huge.error.find("99999999999999999999999") != std::string::npos, huge.error.c_str());
        QCOMPARE(changeCount(f), changesBefore);
        verifyClean(f);
    }

    void aFailureMidwayRollsEverythingBack()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        // The same database under a stricter model: StudentSectionAssociation now requires a property
        // the stored ones lack, so moving them fails after the student and enrollments were written.
        QFile file(QStringLiteral(":/steward/starter-model/ApiSchema-Starter.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        Json schema = Json::parse(file.readAll().toStdString());
        Json &project = schema.contains("projectSchema") ? schema["projectSchema"] : schema;
        Json &insert = project["resourceSchemas"]["studentSectionAssociations"]["jsonSchemaForInsert"];
        insert["required"].push_back("teacherStudentDataLinkExclusion");
        QVERIFY(insert["properties"].contains("teacherStudentDataLinkExclusion"));
        std::unique_ptr<Model> stricter = Model::loadDocuments({{"strict.json", schema}});
        Engine strictEngine(*stricter, f.database());

        const Json student = all(f, "students").at(0);
        const std::string digestBefore = documentsDigest(f);
        const std::int64_t changesBefore = changeCount(f);
        const IdentityChangeResult result =
            changeIdentity(strictEngine, student["id"], {{"studentUniqueId", "604999"}}, true);
        QVERIFY(!result.ok);
        QVERIFY(!result.applied);
        QVERIFY2(result.error.find("StudentSectionAssociation") != std::string::npos, result.error.c_str());
        QVERIFY(result.steps.size() >= 2); // the student and its enrollment were written before the refusal
        QCOMPARE(documentsDigest(f), digestBefore);
        QCOMPARE(changeCount(f), changesBefore);
        QVERIFY(!f.engine().inBatch() && !strictEngine.inBatch());
        verifyClean(f);
    }

    void commandLine()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const QString db = QString::fromStdString(f.databasePath());
        const std::string a = person(f, "students", "studentUniqueId", "C-1", "Ana", "Silva", "1995-03-03");
        const std::string b = person(f, "students", "studentUniqueId", "C-2", "Anna", "Silva", "1995-03-03");
        CliRun listed = runCli({"--db", db, "duplicates", "--resource", "students", "--json"}, {});
        QCOMPARE(listed.exitCode, 0);
        const Json pairs = Json::parse(listed.stdoutText.toStdString());
        QCOMPARE(pairs.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(pairs[0]["left"]["id"]), QString::fromStdString(a));

        CliRun preview = runCli({"--db", db, "merge", "--keep", QString::fromStdString(a), "--drop",
                                 QString::fromStdString(b), "--dry-run"}, {});
        QCOMPARE(preview.exitCode, 0);
        QVERIFY2(preview.stdoutText.contains("delete Student C-2"), qPrintable(preview.stdoutText));
        QCOMPARE(f.call("GET", "/ed-fi/students/" + b).status, 200);

        QCOMPARE(runCli({"--db", db, "duplicates", "distinct", QString::fromStdString(a), QString::fromStdString(b)}, {})
                     .exitCode,
                 0);
        CliRun none = runCli({"--db", db, "duplicates", "--json"}, {});
        QCOMPARE(Json::parse(none.stdoutText.toStdString()).size(), std::size_t(0));

        CliRun merged = runCli({"--db", db, "merge", "--keep", QString::fromStdString(a), "--drop",
                                QString::fromStdString(b), "--json"}, {});
        QCOMPARE(merged.exitCode, 0);
        QCOMPARE(Json::parse(merged.stdoutText.toStdString())["applied"].get<bool>(), true);
        QCOMPARE(f.call("GET", "/ed-fi/students/" + b).status, 404);

        CliRun changed = runCli({"--db", db, "change-identity", QString::fromStdString(a), "--set",
                                 "studentUniqueId=C-9", "--json"}, {});
        QCOMPARE(changed.exitCode, 0);
        const Json change = Json::parse(changed.stdoutText.toStdString());
        QCOMPARE(QString::fromStdString(change["steps"][0]["op"]), QStringLiteral("create"));
        QCOMPARE(QString::fromStdString(change["steps"][0]["naturalKey"]), QStringLiteral("C-9"));
        const QString renamed = QString::fromStdString(change["id"]);
        QCOMPARE(QString::fromStdString(bodyOf(f, "students", renamed.toStdString())["studentUniqueId"]),
                 QStringLiteral("C-9"));
        CliRun refused = runCli({"--db", db, "change-identity", renamed, "--set", "bogus=1"}, {});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY(refused.stderrText.contains("not an identity field of Student"));
        QCOMPARE(runCli({"--db", db, "change-identity", QString::fromStdString(a)}, {}).exitCode, 2);
        QCOMPARE(runCli({"--db", db, "merge", "--keep", "x"}, {}).exitCode, 2);
        QCOMPARE(runCli({"--db", db, "duplicates", "--resource", "schools"}, {}).exitCode, 2);
        for (const char *command : {"duplicates", "merge", "change-identity"})
            QCOMPARE(runCli({command, "--help"}, {}).exitCode, 0);
        verifyClean(f);
    }
};

QTEST_GUILESS_MAIN(TestDuplicates)
#include "tst_duplicates.moc"
