// Root causes of drafts: a generated district missing one School, cycles, unknown descriptor values
// with suggestions, drafts with problems of their own, and `steward-cli causes`.
#include "CliSupport.h"
#include "Generator.h"
#include "ImportSource.h"
#include "Importer.h"
#include "RootCauses.h"
#include "TestSupport.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace steward;
using namespace steward::test;

namespace {

struct Generated
{
    std::string resource; // "ed-fi/schools"
    Json body;
};

std::vector<Generated> generate(std::int64_t students)
{
    GeneratorOptions options;
    options.students = students;
    options.seed = 7;
    std::vector<Generated> out;
    generateDistrict(options, [&out](const std::string &resource, const Json &body) { out.push_back({resource, body}); });
    return out;
}

// Writes the documents as `steward-cli generate` would and imports them.
ImportReport importDocuments(Fixture &fixture, const QTemporaryDir &dir, const std::vector<Generated> &documents)
{
    const QString path = dir.filePath(QStringLiteral("district.ndjson"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    for (const Generated &g : documents) {
        const std::string line = envelopeLine(g.resource, g.body) + "\n";
        file.write(line.data(), static_cast<qint64>(line.size()));
    }
    file.close();
    ImportOptions options;
    options.paths = {path.toStdString()};
    return importFiles(fixture.engine(), fixture.model(), options);
}

const Generated &firstOf(const std::vector<Generated> &documents, const std::string &resource, int skip = 0)
{
    for (const Generated &g : documents)
        if (g.resource == resource && skip-- == 0)
            return g;
    qFatal("no %s in the generated district", resource.c_str());
}

const ResourceSchema &schemaOf(const Model &model, const std::string &endpoint)
{
    const ResourceSchema *resource = model.findByEndpoint("ed-fi", endpoint);
    if (resource == nullptr)
        qFatal("no resource %s", endpoint.c_str());
    return *resource;
}

const RootCause *findCause(const RootCauseReport &report, RootCause::Kind kind, const std::string &naturalKey)
{
    for (const RootCause &cause : report.causes)
        if (cause.kind == kind && cause.naturalKey == naturalKey)
            return &cause;
    return nullptr;
}

std::int64_t draftCount(Fixture &fixture)
{
    SQLite::Statement s(fixture.database().connection(), "SELECT count(*) FROM drafts");
    s.executeStep();
    return s.getColumn(0).getInt64();
}

} // namespace

class TestRootCauses : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void missingSchoolBlocksItsWholeBranch();
    void cycleOfDraftsEnds();
    void unknownDescriptorsAreGroupedWithSuggestions();
    void suggestionsRankCaseBeforeEditDistance();
    void draftsWithTheirOwnProblemsAreCounted();
    void storedSinceMeansPassesNow();
    void cliPrintsRankedCausesAndJson();
};

void TestRootCauses::missingSchoolBlocksItsWholeBranch()
{
    QTemporaryDir dir;
    Fixture fixture;
    const std::vector<Generated> district = generate(1000);
    // The second school: the first keeps the rest of the district valid.
    const Generated removed = firstOf(district, "ed-fi/schools", 1);
    const std::string schoolId = identityValueText(removed.body["schoolId"]);
    std::vector<Generated> withoutSchool;
    for (const Generated &g : district)
        if (!(g.resource == "ed-fi/schools" && g.body["schoolId"] == removed.body["schoolId"]))
            withoutSchool.push_back(g);
    QCOMPARE(withoutSchool.size() + 1, district.size());
    const ImportReport imported = importDocuments(fixture, dir, withoutSchool);
    QVERIFY(imported.completed);
    QVERIFY2(imported.totals.drafts > 100, "removing a school must leave its branch as drafts");

    QElapsedTimer timer;
    timer.start();
    const RootCauseReport report = findRootCauses(fixture.model(), fixture.database().connection());
    qInfo("causes for %lld drafts in %lld ms", static_cast<long long>(report.drafts),
          static_cast<long long>(timer.elapsed()));
    QCOMPARE(report.drafts, draftCount(fixture));
    QVERIFY(!report.causes.empty());
    const RootCause &top = report.causes.front();
    QCOMPARE(top.kind, RootCause::Kind::MissingDocument);
    QCOMPARE(QString::fromStdString(top.resource), QStringLiteral("School"));
    QCOMPARE(top.naturalKey, schoolId);
    JSON_COMPARE(top.identity, Json({{"schoolId", removed.body["schoolId"]}}));
    // References to EducationOrganization <schoolId> (courses) are the same missing thing, not a second cause.
    QCOMPARE(report.causes.size(), std::size_t(1));
    QCOMPARE(top.blocked, report.drafts);
    QVERIFY(top.direct < top.blocked);

    // Spread over the resources the import itself reported as drafts.
    std::map<std::string, std::int64_t> expected;
    for (const auto &[resource, counts] : imported.byResource)
        if (counts.drafts > 0)
            expected[resource.substr(resource.find('/') + 1)] = counts.drafts;
    std::map<std::string, std::int64_t> actual;
    for (const CauseResourceCount &c : top.resources)
        actual[fixture.model().findByName(c.project, c.resource)->endpointName] = c.drafts;
    QCOMPARE(actual.size(), expected.size());
    for (const auto &[endpoint, count] : expected)
        QCOMPARE(actual[endpoint], count);
    QVERIFY(actual.count("sessions") && actual.count("sections") && actual.count("studentSectionAssociations"));

    // Creating the School and revalidating stores exactly the drafts it blocked, and nothing is left.
    fixture.create("/ed-fi/schools", removed.body);
    const RevalidateReport revalidated = fixture.engine().revalidateDrafts();
    QCOMPARE(static_cast<std::int64_t>(revalidated.promoted), top.blocked);
    QCOMPARE(revalidated.remaining, 0);
    const RootCauseReport after = findRootCauses(fixture.model(), fixture.database().connection());
    QCOMPARE(after.drafts, std::int64_t(0));
    QVERIFY(after.causes.empty());
}

void TestRootCauses::cycleOfDraftsEnds()
{
    QTemporaryDir dir;
    Fixture fixture;
    const std::vector<Generated> district = generate(100);
    QVERIFY(importDocuments(fixture, dir, district).completed);
    const ResourceSchema &leas = schemaOf(fixture.model(), "localEducationAgencies");
    // Two districts, each the other's parent: neither can be stored first.
    Json first = firstOf(district, "ed-fi/localEducationAgencies").body;
    first["localEducationAgencyId"] = 880001;
    first["parentLocalEducationAgencyReference"] = {{"localEducationAgencyId", 880002}};
    Json second = first;
    second["localEducationAgencyId"] = 880002;
    second["parentLocalEducationAgencyReference"] = {{"localEducationAgencyId", 880001}};
    const std::int64_t firstDraft = fixture.engine().saveDraft(leas, dumpJson(first), "");
    const std::int64_t secondDraft = fixture.engine().saveDraft(leas, dumpJson(second), "");
    // And a school in one of them, which waits on the cycle.
    Json school = firstOf(district, "ed-fi/schools").body;
    school["schoolId"] = 880001001;
    school["localEducationAgencyReference"] = {{"localEducationAgencyId", 880001}};
    const std::int64_t schoolDraft = fixture.engine().saveDraft(schemaOf(fixture.model(), "schools"), dumpJson(school), "");

    const RootCauseReport report = findRootCauses(fixture.model(), fixture.database().connection());
    QCOMPARE(report.drafts, std::int64_t(3));
    QCOMPARE(report.causes.size(), std::size_t(1));
    const RootCause &cycle = report.causes.front();
    QCOMPARE(cycle.kind, RootCause::Kind::ReferenceCycle);
    QCOMPARE(cycle.blocked, std::int64_t(3));
    QCOMPARE(cycle.direct, std::int64_t(2));
    QCOMPARE(cycle.directDraftIds, (std::vector<std::int64_t>{firstDraft, secondDraft}));
    QVERIFY(cycle.detail.find(std::to_string(firstDraft)) != std::string::npos);
    QCOMPARE(cycle.blockedDraftIds, (std::vector<std::int64_t>{firstDraft, secondDraft, schoolDraft}));
}

void TestRootCauses::unknownDescriptorsAreGroupedWithSuggestions()
{
    QTemporaryDir dir;
    Fixture fixture;
    const std::vector<Generated> district = generate(100);
    QVERIFY(importDocuments(fixture, dir, district).completed);
    const ResourceSchema &enrollments = schemaOf(fixture.model(), "studentSchoolAssociations");
    const Json enrollment = firstOf(district, "ed-fi/studentSchoolAssociations").body;
    const std::string stored = enrollment["entryGradeLevelDescriptor"].get<std::string>();
    const std::string ns = stored.substr(0, stored.find('#'));

    Json spaced = enrollment;
    spaced["entryGradeLevelDescriptor"] = ns + "#" + stored.substr(stored.find('#') + 1) + " ";
    Json typo = enrollment;
    typo["entryGradeLevelDescriptor"] = ns + "#Nineth grade";
    for (int i = 0; i < 3; ++i)
        fixture.engine().saveDraft(enrollments, dumpJson(spaced), "");
    for (int i = 0; i < 2; ++i)
        fixture.engine().saveDraft(enrollments, dumpJson(typo), "");

    const RootCauseReport report = findRootCauses(fixture.model(), fixture.database().connection());
    QCOMPARE(report.drafts, std::int64_t(5));
    QCOMPARE(report.causes.size(), std::size_t(2));
    const RootCause *spacedCause = findCause(report, RootCause::Kind::UnknownDescriptor,
                                             spaced["entryGradeLevelDescriptor"].get<std::string>());
    const RootCause *typoCause = findCause(report, RootCause::Kind::UnknownDescriptor, ns + "#Nineth grade");
    QVERIFY(spacedCause != nullptr && typoCause != nullptr);
    QCOMPARE(&report.causes.front(), spacedCause); // ranked by what they block
    QCOMPARE(spacedCause->direct, std::int64_t(3));
    QCOMPARE(spacedCause->blocked, std::int64_t(3));
    QCOMPARE(QString::fromStdString(spacedCause->resource), QStringLiteral("GradeLevelDescriptor"));
    QVERIFY(!spacedCause->suggestions.empty());
    QCOMPARE(spacedCause->suggestions.front().uri, stored);
    QCOMPARE(spacedCause->suggestions.front().reason, std::string("differs only in spacing"));
    QCOMPARE(typoCause->direct, std::int64_t(2));
    QVERIFY(!typoCause->suggestions.empty());
    QCOMPARE(typoCause->suggestions.front().uri, ns + "#Ninth grade");
    QCOMPARE(typoCause->suggestions.front().reason, std::string("edit distance 1"));
    QVERIFY(typoCause->suggestions.size() <= 3);
    const Json json = typoCause->toJson();
    QCOMPARE(json["suggestions"][0]["codeValue"].get<std::string>(), std::string("Ninth grade"));
    QCOMPARE(json["directDraftIds"].size(), std::size_t(2));
}

void TestRootCauses::suggestionsRankCaseBeforeEditDistance()
{
    const std::string ns = "uri://ed-fi.org/GradeLevelDescriptor#";
    const std::vector<std::string> stored = {ns + "Tenth grade", ns + "Ninth-grade", ns + "ninth grade",
                                             ns + "Kindergarten", ns + "Ninth grade"};
    const std::vector<DescriptorSuggestion> s = suggestDescriptorValues(ns + "Ninth Grade", stored);
    QCOMPARE(s.size(), std::size_t(3));
    QCOMPARE(s[0].reason, std::string("differs only in case")); // "Ninth grade" or "ninth grade"
    QCOMPARE(s[1].reason, std::string("differs only in case"));
    QCOMPARE(s[2].uri, ns + "Ninth-grade");
    QCOMPARE(s[2].reason, std::string("differs only in case and spacing or punctuation"));
    const std::vector<DescriptorSuggestion> typo = suggestDescriptorValues(ns + "Tenht grade", stored);
    QVERIFY(!typo.empty());
    QCOMPARE(typo[0].uri, ns + "Tenth grade");
    QCOMPARE(typo[0].reason, std::string("edit distance 2"));
    for (const DescriptorSuggestion &suggestion : typo)
        QVERIFY(suggestion.uri != ns + "Kindergarten"); // out of reach
    QCOMPARE(editDistance("kitten", "sitting"), 3);
    QCOMPARE(editDistance("", "abc"), 3);
    QVERIFY(suggestDescriptorValues(ns + "Ninth grade", {}).empty());
}

void TestRootCauses::draftsWithTheirOwnProblemsAreCounted()
{
    QTemporaryDir dir;
    Fixture fixture;
    const std::vector<Generated> district = generate(100);
    QVERIFY(importDocuments(fixture, dir, district).completed);
    const ResourceSchema &students = schemaOf(fixture.model(), "students");
    Json student = firstOf(district, "ed-fi/students").body;
    student["studentUniqueId"] = "S-NEW-1";
    student.erase("birthDate");
    fixture.engine().saveDraft(students, dumpJson(student), "");
    student["studentUniqueId"] = "S-NEW-2";
    fixture.engine().saveDraft(students, dumpJson(student), "");
    fixture.engine().saveDraft(students, "{\"studentUniqueId\": ", "");
    // A student school association waiting on the first (schema-failing) student draft.
    Json enrollment = firstOf(district, "ed-fi/studentSchoolAssociations").body;
    enrollment["studentReference"] = {{"studentUniqueId", "S-NEW-1"}};
    fixture.engine().saveDraft(schemaOf(fixture.model(), "studentSchoolAssociations"), dumpJson(enrollment), "");

    const RootCauseReport report = findRootCauses(fixture.model(), fixture.database().connection());
    QCOMPARE(report.drafts, std::int64_t(4));
    QCOMPARE(report.causes.size(), std::size_t(2));
    const RootCause &schema = report.causes[0];
    QCOMPARE(schema.kind, RootCause::Kind::DraftProblem);
    QCOMPARE(schema.problem, std::string("schema"));
    QVERIFY2(schema.detail.find("birthDate") != std::string::npos, schema.detail.c_str());
    QCOMPARE(schema.direct, std::int64_t(2));
    QCOMPARE(schema.blocked, std::int64_t(3)); // the enrollment waits on S-NEW-1
    const RootCause &invalid = report.causes[1];
    QCOMPARE(invalid.problem, std::string("invalid-json"));
    QCOMPARE(invalid.blocked, std::int64_t(1));
    // The fix list puts students (earlier in load order) first whatever the counts.
    const std::vector<const RootCause *> fixList = report.fixList();
    QCOMPARE(fixList.size(), std::size_t(2));
    QVERIFY(fixList[0]->loadRank <= fixList[1]->loadRank);
}

void TestRootCauses::storedSinceMeansPassesNow()
{
    Fixture fixture;
    fixture.seedDescriptors();
    fixture.create("/ed-fi/schoolYearTypes", Fixture::schoolYear(2022));
    const ResourceSchema &sessions = schemaOf(fixture.model(), "sessions");
    // A School and an EducationOrganization reference to the same id are one cause.
    const std::int64_t sessionDraft =
        fixture.engine().saveDraft(sessions, dumpJson(Fixture::session(255901, 2022, "Fall")), "");
    fixture.engine().saveDraft(schemaOf(fixture.model(), "courses"), dumpJson(Fixture::course("ALG-1", 255901)), "");
    RootCauseReport before = findRootCauses(fixture.model(), fixture.database().connection());
    QCOMPARE(before.causes.size(), std::size_t(1));
    QCOMPARE(before.causes[0].kind, RootCause::Kind::MissingDocument);
    QCOMPARE(before.causes[0].resource, std::string("School"));
    QCOMPARE(before.causes[0].naturalKey, std::string("255901"));
    QCOMPARE(before.causes[0].direct, std::int64_t(2));

    // Stored since, not yet revalidated: the drafts would pass now, and say so.
    fixture.create("/ed-fi/schools", Fixture::school(255901));
    RootCauseReport after = findRootCauses(fixture.model(), fixture.database().connection());
    QCOMPARE(after.causes.size(), std::size_t(2)); // one per resource
    for (const RootCause &cause : after.causes) {
        QCOMPARE(cause.kind, RootCause::Kind::DraftProblem);
        QCOMPARE(cause.problem, std::string("passes-now"));
        QCOMPARE(cause.blocked, std::int64_t(1));
    }
    const RootCause *session = after.causes[0].resource == "Session" ? &after.causes[0] : &after.causes[1];
    QCOMPARE(session->directDraftIds, std::vector<std::int64_t>{sessionDraft});
    QCOMPARE(fixture.engine().revalidateDrafts().promoted, 2);
}

void TestRootCauses::cliPrintsRankedCausesAndJson()
{
    QTemporaryDir dir;
    Fixture fixture; // builds the database through the engine; the CLI reads it alongside
    const std::vector<Generated> district = generate(100);
    std::vector<Generated> withoutSchool;
    const Generated removed = firstOf(district, "ed-fi/schools");
    for (const Generated &g : district)
        if (!(g.resource == "ed-fi/schools" && g.body["schoolId"] == removed.body["schoolId"]))
            withoutSchool.push_back(g);
    QVERIFY(importDocuments(fixture, dir, withoutSchool).completed);
    const QString db = QString::fromStdString(fixture.databasePath());
    CliRun text = runCli({"--db", db, "causes"}, "");
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.stdoutText.contains(QRegularExpression(QStringLiteral("School \\d+ missing: blocks [\\d,]+ drafts in \\d+ resources \\("))),
             qPrintable(text.stdoutText));

    CliRun json = runCli({"--db", db, "causes", "--json", "--limit", "1"}, "");
    QCOMPARE(json.exitCode, 0);
    const JsonParseResult parsed = parseJson(json.stdoutText.toStdString());
    QVERIFY2(parsed.value.has_value(), qPrintable(json.stdoutText));
    const Json &out = *parsed.value;
    QVERIFY(out["drafts"].get<std::int64_t>() > 0);
    QCOMPARE(out["causeCount"].get<std::int64_t>(), std::int64_t(1));
    QCOMPARE(out["causes"].size(), std::size_t(1));
    const Json &cause = out["causes"][0];
    QCOMPARE(cause["kind"].get<std::string>(), std::string("missing-document"));
    QCOMPARE(cause["resource"].get<std::string>(), std::string("School"));
    QVERIFY(cause["identity"].contains("schoolId"));
    JSON_COMPARE(cause["blocked"], out["drafts"]);
    QVERIFY(cause["resources"].is_array() && !cause["resources"].empty());
    QVERIFY(cause["resources"][0].contains("drafts"));
    QVERIFY(cause["directDraftIds"].is_array());
    QCOMPARE(cause["blockedDraftIds"].size(), out["drafts"].get<std::size_t>());

    CliRun filtered = runCli({"--db", db, "causes", "--resource", "ed-fi/calendars"}, "");
    QCOMPARE(filtered.exitCode, 0);
    QVERIFY(filtered.stdoutText.contains(QStringLiteral("involving ed-fi/calendars")));
    QVERIFY(filtered.stdoutText.contains(QStringLiteral("missing: blocks")));
    CliRun badLimit = runCli({"--db", db, "causes", "--limit", "many"}, "");
    QCOMPARE(badLimit.exitCode, 2);
    QVERIFY(badLimit.stderrText.contains(QStringLiteral("--limit")));
    CliRun badResource = runCli({"--db", db, "causes", "--resource", "Spaceships"}, "");
    QCOMPARE(badResource.exitCode, 2);
    QVERIFY(badResource.stderrText.contains(QStringLiteral("Spaceships")));
    CliRun missingDb = runCli({"--db", dir.filePath(QStringLiteral("nope.db")), "causes"}, "");
    QCOMPARE(missingDb.exitCode, 1);
}

QTEST_GUILESS_MAIN(TestRootCauses)
#include "tst_rootcauses.moc"
