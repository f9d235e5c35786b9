// Rule packs: loading, the rule views, the starter pack's rules (each failing and passing), the
// safety of the rule connection, incremental re-runs, and `steward-cli rules`.
#include "ChangeWatch.h"
#include "CliSupport.h"
#include "ExternalResults.h"
#include "RecordFacts.h"
#include "Rules.h"
#include "TestSupport.h"

#include <SQLiteCpp/Statement.h>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <set>

using namespace steward;
using namespace steward::test;

namespace {

const int kSchool = 255901;

// A small school where every starter rule passes: one session, a course offered in it, one section
// with a teacher and a student enrolled in school and section.
struct World
{
    Fixture fixture;
    std::string studentId;
    std::string enrollmentId;
    std::string sessionId;
    std::string staffId;
    std::string staffSectionId;
    std::string studentSectionId;

    World()
    {
        fixture.seedDescriptors();
        fixture.create("/ed-fi/classroomPositionDescriptors",
                       Json{{"namespace", "uri://ed-fi.org/ClassroomPositionDescriptor"},
                            {"codeValue", "Teacher of Record"},
                            {"shortDescription", "Teacher of Record"}});
        fixture.create("/ed-fi/schools", Fixture::school(kSchool));
        fixture.create("/ed-fi/schoolYearTypes", Fixture::schoolYear(2022));
        sessionId = fixture.create("/ed-fi/sessions", Fixture::session(kSchool, 2022, "Fall"));
        fixture.create("/ed-fi/courses", Fixture::course("ALG-1", kSchool));
        fixture.create("/ed-fi/courseOfferings", offering());
        fixture.create("/ed-fi/sections", section("S-1"));
        studentId = fixture.create("/ed-fi/students", student("604822", "Ada", "Lovelace", "2007-03-01"));
        enrollmentId = fixture.create("/ed-fi/studentSchoolAssociations", enrollment("604822", "2021-08-23"));
        staffId = fixture.create("/ed-fi/staffs", staff("T-1"));
        staffSectionId = fixture.create("/ed-fi/staffSectionAssociations", staffSection("T-1", "S-1"));
        studentSectionId = fixture.create("/ed-fi/studentSectionAssociations", studentSection("604822", "2021-08-23"));
    }

    static Json offering()
    {
        return Json{{"localCourseCode", "ALG-1"},
                    {"courseReference", {{"courseCode", "ALG-1"}, {"educationOrganizationId", kSchool}}},
                    {"schoolReference", {{"schoolId", kSchool}}},
                    {"sessionReference", {{"schoolId", kSchool}, {"schoolYear", 2022}, {"sessionName", "Fall"}}}};
    }
    static Json sectionReference(const std::string &section)
    {
        return Json{{"localCourseCode", "ALG-1"},
                    {"schoolId", kSchool},
                    {"schoolYear", 2022},
                    {"sessionName", "Fall"},
                    {"sectionIdentifier", section}};
    }
    static Json section(const std::string &identifier)
    {
        return Json{{"sectionIdentifier", identifier},
                    {"courseOfferingReference",
                     {{"localCourseCode", "ALG-1"}, {"schoolId", kSchool}, {"schoolYear", 2022}, {"sessionName", "Fall"}}}};
    }
    static Json student(const std::string &id, const std::string &first, const std::string &last,
                        const std::string &birthDate)
    {
        return Json{{"studentUniqueId", id}, {"firstName", first}, {"lastSurname", last}, {"birthDate", birthDate}};
    }
    static Json enrollment(const std::string &student, const std::string &entryDate)
    {
        return Json{{"studentReference", {{"studentUniqueId", student}}},
                    {"schoolReference", {{"schoolId", kSchool}}},
                    {"entryDate", entryDate},
                    {"entryGradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}};
    }
    static Json staff(const std::string &id)
    {
        return Json{{"staffUniqueId", id}, {"firstName", "Grace"}, {"lastSurname", "Hopper"}};
    }
    static Json staffSection(const std::string &staffId, const std::string &section)
    {
        return Json{{"staffReference", {{"staffUniqueId", staffId}}},
                    {"sectionReference", sectionReference(section)},
                    {"beginDate", "2021-08-23"},
                    {"classroomPositionDescriptor", "uri://ed-fi.org/ClassroomPositionDescriptor#Teacher of Record"}};
    }
    static Json studentSection(const std::string &student, const std::string &beginDate)
    {
        return Json{{"studentReference", {{"studentUniqueId", student}}},
                    {"sectionReference", sectionReference("S-1")},
                    {"beginDate", beginDate}};
    }

    // PUT the stored document with some fields changed; must answer 204.
    void change(const std::string &endpoint, const std::string &id, const Json &fields)
    {
        Response got = fixture.call("GET", "/ed-fi/" + endpoint + "/" + id);
        QCOMPARE(got.status, 200);
        Json body = got.body;
        body.erase("_etag");
        body.erase("_lastModifiedDate");
        for (auto it = fields.begin(); it != fields.end(); ++it)
            body[it.key()] = it.value();
        Response put = fixture.call("PUT", "/ed-fi/" + endpoint + "/" + id, body);
        QVERIFY2(put.status == 204, put.body.dump().c_str());
    }

    RuleRunReport run(const RulePack &pack, const RuleRunOptions &options = {})
    {
        return runRules(pack, fixture.model(), fixture.database(), options);
    }

    // The stored failing documents of one rule.
    std::set<std::string> failing(const std::string &ruleId)
    {
        RuleResultFilter filter;
        filter.ruleId = ruleId;
        std::set<std::string> ids;
        for (const RuleResult &result : readRuleResults(fixture.database().connection(), filter))
            ids.insert(result.docId);
        return ids;
    }

    std::int64_t scalar(const std::string &sql)
    {
        return fixture.database().connection().execAndGet(sql).getInt64();
    }
};

std::string packText(const std::string &ruleSql, const Json &extraRuleFields = Json::object())
{
    Json rule = {{"id", "EVIL-1"},
                 {"severity", "fatal"},
                 {"resource", "Student"},
                 {"title", "t"},
                 {"message", "m"},
                 {"fix", "f"},
                 {"sql", ruleSql}};
    for (auto it = extraRuleFields.begin(); it != extraRuleFields.end(); ++it)
        rule[it.key()] = it.value();
    return Json{{"pack", {{"id", "test-pack"}, {"title", "Test"}, {"version", "1"}}}, {"rules", Json::array({rule})}}
        .dump();
}

} // namespace

class TestRules : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void starterPackLoads();
    void viewsFollowTheModel();
    void starterRules_data();
    void starterRules();
    void packErrorsNameTheRule_data();
    void packErrorsNameTheRule();
    void invalidSqlNamesTheRule();
    void maliciousRulesRefused_data();
    void maliciousRulesRefused();
    void runawayRuleStopped();
    void strayIdRefused();
    void incrementalChecksOnlyChanged();
    void deletedDocumentLosesResults();
    void dependsOnReRunsInFull();
    void readViewsAreDependencies();
    void resultsFoundAgainTakeTheNewMessage();
    void changedPackReRunsEverything();
    void cancelWritesNothing();
    void cliRulesRunJson();
    void recordFactsGatherEverything();
    void changeSummaryNamesResources();
};

void TestRules::starterPackLoads()
{
    std::unique_ptr<Model> model = Model::loadStarter();
    const RulePack pack = loadStarterRulePack(*model);
    QCOMPARE(pack.id, std::string("steward-starter"));
    QVERIFY(pack.rules.size() >= 10);
    QCOMPARE(pack.hash.size(), std::size_t(64));
    std::set<std::string> severities;
    for (const Rule &rule : pack.rules) {
        QVERIFY(rule.schema);
        QVERIFY(!rule.fix.empty());
        severities.insert(rule.severity);
    }
    QCOMPARE(severities, (std::set<std::string>{"fatal", "warning", "info"}));
}

void TestRules::viewsFollowTheModel()
{
    World world;
    std::unique_ptr<Model> model = Model::loadStarter();
    const std::vector<RuleView> views = ruleViews(*model);
    QCOMPARE(views.size(), model->resources().size());
    const RuleView *enrollments = nullptr;
    for (const RuleView &view : views)
        if (view.name == "studentSchoolAssociations")
            enrollments = &view;
    QVERIFY(enrollments);
    const std::vector<std::string> &columns = enrollments->columns;
    for (const char *expected : {"entryDate", "exitWithdrawDate", "entryGradeLevelDescriptor",
                                 "schoolReference_schoolId", "studentReference_studentUniqueId",
                                 "calendarReference_calendarCode"})
        QVERIFY2(std::find(columns.begin(), columns.end(), expected) != columns.end(), expected);

    // A rule reads identity values, references, descriptors (as URI text) and _body through the view.
    const std::string sql = "SELECT id, natural_key, schoolReference_schoolId AS school, entryGradeLevelDescriptor AS grade,"
                            " json_type(_body) AS kind FROM studentSchoolAssociations";
    const std::string text =
        Json{{"pack", {{"id", "views"}, {"title", "t"}, {"version", "1"}}},
             {"rules", Json::array({{{"id", "V-1"},
                                     {"severity", "info"},
                                     {"resource", "StudentSchoolAssociation"},
                                     {"title", "t"},
                                     {"message", "{school} {grade} {kind} {natural_key}"},
                                     {"fix", "f"},
                                     {"sql", sql}}})}}
            .dump();
    world.run(parseRulePack("views.json", text, world.fixture.model()));
    const std::vector<RuleResult> results = readRuleResults(world.fixture.database().connection());
    QCOMPARE(results.size(), std::size_t(1));
    QCOMPARE(results[0].docId, world.enrollmentId);
    QCOMPARE(results[0].message,
             std::string("255901 uri://ed-fi.org/GradeLevelDescriptor#Ninth grade object ") + results[0].naturalKey);
    QCOMPARE(results[0].resource, std::string("StudentSchoolAssociation"));
    QVERIFY(results[0].naturalKey.find("604822") != std::string::npos);
}

// Each starter rule: the clean world passes it; one change makes it fail for exactly the expected documents.
void TestRules::starterRules_data()
{
    QTest::addColumn<QString>("ruleId");
    QTest::addColumn<std::function<std::set<std::string>(World &)>>("breakIt");
    using Breaker = std::function<std::set<std::string>(World &)>;

    QTest::newRow("ENR-001 entry outside sessions") << "ENR-001" << Breaker([](World &w) {
        w.fixture.create("/ed-fi/students", World::student("S2", "Alan", "Turing", "2007-06-23"));
        return std::set<std::string>{w.fixture.create("/ed-fi/studentSchoolAssociations", World::enrollment("S2", "2022-03-01"))};
    });
    QTest::newRow("ENR-002 exit before entry") << "ENR-002" << Breaker([](World &w) {
        w.change("studentSchoolAssociations", w.enrollmentId, {{"exitWithdrawDate", "2021-08-01"}});
        return std::set<std::string>{w.enrollmentId};
    });
    QTest::newRow("ENR-003 too young for ninth grade") << "ENR-003" << Breaker([](World &w) {
        w.change("students", w.studentId, {{"birthDate", "2015-03-01"}});
        return std::set<std::string>{w.enrollmentId};
    });
    QTest::newRow("STU-001 same name and birth date") << "STU-001" << Breaker([](World &w) {
        const std::string twin = w.fixture.create("/ed-fi/students", World::student("S2", "ADA", "Lovelace", "2007-03-01"));
        return std::set<std::string>{w.studentId, twin};
    });
    QTest::newRow("STU-002 born in the future") << "STU-002" << Breaker([](World &w) {
        w.change("students", w.studentId, {{"birthDate", "2999-01-01"}});
        return std::set<std::string>{w.studentId};
    });
    QTest::newRow("STU-003 no enrollment") << "STU-003" << Breaker([](World &w) {
        return std::set<std::string>{w.fixture.create("/ed-fi/students", World::student("S2", "Alan", "Turing", "2007-06-23"))};
    });
    QTest::newRow("SEC-001 no staff") << "SEC-001" << Breaker([](World &w) {
        return std::set<std::string>{w.fixture.create("/ed-fi/sections", World::section("S-2"))};
    });
    QTest::newRow("SEC-002 no students") << "SEC-002" << Breaker([](World &w) {
        return std::set<std::string>{w.fixture.create("/ed-fi/sections", World::section("S-2"))};
    });
    QTest::newRow("SES-001 ends before it begins") << "SES-001" << Breaker([](World &w) {
        w.change("sessions", w.sessionId, {{"endDate", "2021-08-01"}});
        return std::set<std::string>{w.sessionId};
    });
    QTest::newRow("SES-002 more days than the calendar") << "SES-002" << Breaker([](World &w) {
        w.change("sessions", w.sessionId, {{"totalInstructionalDays", 200}});
        return std::set<std::string>{w.sessionId};
    });
    QTest::newRow("STF-001 staff without section") << "STF-001" << Breaker([](World &w) {
        return std::set<std::string>{w.fixture.create("/ed-fi/staffs", World::staff("T-2"))};
    });
    QTest::newRow("SSA-001 section before school entry") << "SSA-001" << Breaker([](World &w) {
        return std::set<std::string>{
            w.fixture.create("/ed-fi/studentSectionAssociations", World::studentSection("604822", "2021-08-01"))};
    });
    QTest::newRow("SSA-002 section enrollment ends before it begins") << "SSA-002" << Breaker([](World &w) {
        w.change("studentSectionAssociations", w.studentSectionId, {{"endDate", "2021-08-01"}});
        return std::set<std::string>{w.studentSectionId};
    });
    QTest::newRow("STA-001 staff assignment ends before it begins") << "STA-001" << Breaker([](World &w) {
        w.change("staffSectionAssociations", w.staffSectionId, {{"endDate", "2021-08-01"}});
        return std::set<std::string>{w.staffSectionId};
    });
}

void TestRules::starterRules()
{
    QFETCH(QString, ruleId);
    QFETCH(std::function<std::set<std::string>(World &)>, breakIt);
    World world;
    const RulePack pack = loadStarterRulePack(world.fixture.model());
    const RuleRunReport clean = world.run(pack);
    QVERIFY(clean.fullRun);
    QCOMPARE(world.scalar("SELECT count(*) FROM rule_results"), std::int64_t(0)); // passing fixture: every rule passes

    const std::set<std::string> expected = breakIt(world);
    QVERIFY(!expected.empty() && !expected.count(""));
    const RuleRunReport broken = world.run(pack);
    QVERIFY(!broken.fullRun);
    QCOMPARE(world.failing(ruleId.toStdString()), expected);
    RuleResultFilter filter;
    filter.ruleId = ruleId.toStdString();
    for (const RuleResult &result : readRuleResults(world.fixture.database().connection(), filter)) {
        QVERIFY(!result.naturalKey.empty());
        QVERIFY2(result.message.find('{') == std::string::npos, result.message.c_str()); // every placeholder filled
    }
    // Every starter rule's id is covered by this table.
    if (QTest::currentDataTag() == QByteArray("STA-001 staff assignment ends before it begins"))
        QCOMPARE(pack.rules.size(), std::size_t(14));
}

void TestRules::packErrorsNameTheRule_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown rule field") << QString::fromStdString(packText("SELECT id FROM students", {{"colour", "red"}}))
                                        << "rule EVIL-1: the rule has an unknown field \"colour\"";
    QTest::newRow("bad severity") << QString::fromStdString(packText("SELECT id FROM students", {{"severity", "critical"}}))
                                  << "rule EVIL-1: severity \"critical\" is not one of fatal, error, warning, info";
    QTest::newRow("unknown resource")
        << QString::fromStdString(packText("SELECT id FROM students", {{"resource", "Pupil"}}))
        << "rule EVIL-1: resource \"Pupil\" is not a resource of the model";
    QTest::newRow("unknown dependsOn")
        << QString::fromStdString(packText("SELECT id FROM students", {{"dependsOn", Json::array({"Pupil"})}}))
        << "rule EVIL-1: \"dependsOn\" names \"Pupil\"";
    Json missing = parseJson(packText("SELECT id FROM students")).value.value();
    missing["rules"][0].erase("fix");
    QTest::newRow("missing field") << QString::fromStdString(missing.dump()) << "rule EVIL-1: the rule has no \"fix\"";
    Json twice = parseJson(packText("SELECT id FROM students")).value.value();
    twice["rules"].push_back(twice["rules"][0]);
    QTest::newRow("duplicate id") << QString::fromStdString(twice.dump())
                                  << "rule EVIL-1: the id is used by an earlier rule too";
    Json unknownPackField = parseJson(packText("SELECT id FROM students")).value.value();
    unknownPackField["pack"]["author"] = "me";
    QTest::newRow("unknown pack field") << QString::fromStdString(unknownPackField.dump())
                                        << "\"pack\" has an unknown field \"author\"";
    QTest::newRow("not JSON") << "{\"pack\":" << "not valid JSON";
}

void TestRules::packErrorsNameTheRule()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    std::unique_ptr<Model> model = Model::loadStarter();
    try {
        parseRulePack("district.json", text.toStdString(), *model);
        QFAIL("the pack was accepted");
    } catch (const RulePackError &e) {
        const std::string message = e.what();
        QVERIFY2(message.rfind("district.json: ", 0) == 0, e.what());
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos, e.what());
    }
}

void TestRules::invalidSqlNamesTheRule()
{
    World world;
    for (const std::string &sql : {std::string("SELEC id FROM students"), std::string("SELECT id FROM pupils"),
                                   std::string("SELECT studentUniqueId FROM students"),
                                   std::string("SELECT id FROM students WHERE nosuchcolumn = 1")}) {
        const RulePack pack = parseRulePack("district.json", packText(sql), world.fixture.model());
        try {
            world.run(pack);
            QFAIL(("accepted: " + sql).c_str());
        } catch (const RulePackError &e) {
            QCOMPARE(e.ruleId(), std::string("EVIL-1"));
            QVERIFY2(std::string(e.what()).find("district.json: rule EVIL-1: ") == 0, e.what());
        }
    }
    // A placeholder the SELECT does not return.
    const RulePack pack = parseRulePack("district.json", packText("SELECT id FROM students", {{"message", "{nope}"}}),
                                        world.fixture.model());
    QVERIFY_THROWS_EXCEPTION(RulePackError, world.run(pack));
    QCOMPARE(world.scalar("SELECT count(*) FROM rule_runs"), std::int64_t(0));
}

void TestRules::maliciousRulesRefused_data()
{
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("refused");
    QTest::newRow("insert") << "INSERT INTO documents(id) VALUES ('x') RETURNING id" << "refused";
    QTest::newRow("update") << "UPDATE documents SET body = '{}' RETURNING id" << "refused";
    QTest::newRow("delete") << "DELETE FROM documents RETURNING id" << "refused";
    QTest::newRow("attach") << "ATTACH DATABASE '/tmp/steward-evil.db' AS evil" << "refused: ATTACH";
    QTest::newRow("pragma") << "PRAGMA writable_schema = 1" << "refused: PRAGMA";
    QTest::newRow("pragma function") << "SELECT id FROM students, pragma_table_info('documents')" << "refused";
    QTest::newRow("create temp table") << "CREATE TEMP TABLE evil AS SELECT id FROM students" << "refused";
    QTest::newRow("two statements") << "SELECT id FROM students; DELETE FROM documents" << "more than one statement";
    QTest::newRow("api_clients") << "SELECT name AS id FROM api_clients" << "refused: reading main.api_clients directly";
    QTest::newRow("sync tables") << "SELECT id FROM students WHERE id IN (SELECT id FROM sync_remote_ids)"
                                 << "refused: reading main.sync_remote_ids directly";
    QTest::newRow("base table") << "SELECT id FROM documents" << "refused: reading main.documents directly";
    QTest::newRow("scope table") << "SELECT doc_id AS id FROM steward_rule_scope" << "refused: reading temp.steward_rule_scope";
    QTest::newRow("schema") << "SELECT name AS id FROM sqlite_master" << "refused";
    QTest::newRow("transaction") << "COMMIT" << "refused";
    QTest::newRow("savepoint") << "SAVEPOINT evil" << "refused";
    QTest::newRow("load_extension") << "SELECT load_extension('/tmp/evil.so') AS id" << "refused";
}

void TestRules::maliciousRulesRefused()
{
    QFETCH(QString, sql);
    QFETCH(QString, refused);
    World world;
    world.fixture.database().connection().exec(
        "INSERT INTO api_clients VALUES ('district', x'00', x'00', 1, '2026-01-01')");
    const std::int64_t documents = world.scalar("SELECT count(*) FROM documents");
    const std::int64_t lastChange = world.scalar("SELECT max(seq) FROM changes");
    const RulePack pack = parseRulePack("evil.json", packText(sql.toStdString()), world.fixture.model());
    try {
        world.run(pack);
        QFAIL("the rule ran");
    } catch (const RulePackError &e) {
        QCOMPARE(e.ruleId(), std::string("EVIL-1"));
        QVERIFY2(std::string(e.what()).find("evil.json: rule EVIL-1: ") == 0, e.what());
        QVERIFY2(std::string(e.what()).find(refused.toStdString()) != std::string::npos, e.what());
    }
    QCOMPARE(world.scalar("SELECT count(*) FROM documents"), documents);
    QCOMPARE(world.scalar("SELECT max(seq) FROM changes"), lastChange);
    QCOMPARE(world.scalar("SELECT count(*) FROM rule_results") + world.scalar("SELECT count(*) FROM rule_runs"),
             std::int64_t(0));
    QVERIFY(!QFile::exists("/tmp/steward-evil.db"));
}

void TestRules::runawayRuleStopped()
{
    World world;
    const RulePack pack = parseRulePack(
        "slow.json",
        packText("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT s.id FROM students s, n"
                 " WHERE n.x < 0"),
        world.fixture.model());
    RuleRunOptions options;
    options.ruleTimeLimit = std::chrono::milliseconds(200);
    try {
        world.run(pack, options);
        QFAIL("the runaway rule finished");
    } catch (const RulePackError &e) {
        QVERIFY2(std::string(e.what()).find("slow.json: rule EVIL-1: stopped after 200 ms") == 0, e.what());
    }
}

void TestRules::strayIdRefused()
{
    World world;
    // Ids of another resource would put results on the wrong documents.
    const RulePack pack = parseRulePack("stray.json", packText("SELECT id FROM staffs"), world.fixture.model());
    try {
        world.run(pack);
        QFAIL("the stray id was stored");
    } catch (const RulePackError &e) {
        QVERIFY2(std::string(e.what()).find("returned id \"" + world.staffId + "\", which is not a Student") != std::string::npos,
                 e.what());
    }
}

void TestRules::incrementalChecksOnlyChanged()
{
    World world;
    const RulePack pack = loadStarterRulePack(world.fixture.model());
    const RuleRunReport first = world.run(pack);
    QVERIFY(first.fullRun);
    QCOMPARE(first.rulesRun, int(pack.rules.size()));
    QCOMPARE(first.documentsChecked, world.scalar("SELECT count(*) FROM documents WHERE resource IN ('Student',"
                                                  " 'StudentSchoolAssociation', 'Section', 'Session', 'Staff',"
                                                  " 'StudentSectionAssociation', 'StaffSectionAssociation')"));

    const RuleRunReport idle = world.run(pack);
    QVERIFY(!idle.fullRun);
    QCOMPARE(idle.documentsChecked, std::int64_t(0));
    QCOMPARE(idle.rulesRun, 0);

    // A staff member changes: only staff rules run, over that one document.
    world.change("staffs", world.staffId, {{"firstName", "Amazing Grace"}});
    const RuleRunReport oneStaff = world.run(pack);
    QCOMPARE(oneStaff.documentsChecked, std::int64_t(1));
    QCOMPARE(oneStaff.rulesRun, 1);
    QCOMPARE(oneStaff.seqFrom, idle.seqTo);
    for (const RuleRunStats &stats : oneStaff.rules)
        QCOMPARE(stats.mode, std::string(stats.ruleId == "STF-001" ? "changed" : "skipped"));

    // Five new students without enrollments: five checked by Student rules (duplicates re-check all students).
    for (int i = 0; i < 5; ++i)
        world.fixture.create("/ed-fi/students",
                             World::student("N" + std::to_string(i), "New", "Student" + std::to_string(i), "2007-01-0" + std::to_string(i + 1)));
    const RuleRunReport fiveStudents = world.run(pack);
    // STU-001 depends on Student (all six students), ENR-003 too (the one enrollment).
    QCOMPARE(fiveStudents.documentsChecked, std::int64_t(7));
    for (const RuleRunStats &stats : fiveStudents.rules) {
        if (stats.ruleId == "STU-002" || stats.ruleId == "STU-003")
            QCOMPARE(stats.checked, std::int64_t(5));
        if (stats.ruleId == "STU-001")
            QCOMPARE(stats.checked, std::int64_t(6));
    }
    QCOMPARE(fiveStudents.added, std::int64_t(5)); // STU-003 for each
    QCOMPARE(world.failing("STU-003").size(), std::size_t(5));

    // One enrollment added for one of them: its result goes, the other four are kept.
    world.fixture.create("/ed-fi/studentSchoolAssociations", World::enrollment("N0", "2021-08-23"));
    const RuleRunReport oneEnrollment = world.run(pack);
    QCOMPARE(oneEnrollment.removed, std::int64_t(1));
    QCOMPARE(oneEnrollment.kept, std::int64_t(4));
    QCOMPARE(world.failing("STU-003").size(), std::size_t(4));
    // ENR rules over the new enrollment, STU-003 and SSA-001 in full (they depend on enrollments).
    QCOMPARE(oneEnrollment.documentsChecked,
             1 + world.scalar("SELECT count(*) FROM documents WHERE resource IN ('Student', 'StudentSectionAssociation')"));
}

void TestRules::deletedDocumentLosesResults()
{
    World world;
    const RulePack pack = loadStarterRulePack(world.fixture.model());
    const std::string extra = world.fixture.create("/ed-fi/staffs", World::staff("T-2"));
    world.run(pack);
    QCOMPARE(world.failing("STF-001"), (std::set<std::string>{extra}));
    QCOMPARE(world.fixture.call("DELETE", "/ed-fi/staffs/" + extra).status, 204);
    const RuleRunReport report = world.run(pack);
    QCOMPARE(report.removed, std::int64_t(1));
    QCOMPARE(report.documentsChecked, std::int64_t(0));
    QVERIFY(world.failing("STF-001").empty());
    QCOMPARE(world.scalar("SELECT count(*) FROM rule_results"), std::int64_t(0));
}

void TestRules::dependsOnReRunsInFull()
{
    World world;
    const RulePack pack = loadStarterRulePack(world.fixture.model());
    world.run(pack);
    // The session shrinks: ENR-001 (which depends on Session) re-checks every enrollment.
    world.change("sessions", world.sessionId, {{"beginDate", "2021-09-01"}});
    const RuleRunReport report = world.run(pack);
    for (const RuleRunStats &stats : report.rules) {
        if (stats.ruleId == "ENR-001")
            QCOMPARE(stats.mode, std::string("full"));
        if (stats.ruleId == "SES-001")
            QCOMPARE(stats.mode, std::string("changed"));
        if (stats.ruleId == "STU-001")
            QCOMPARE(stats.mode, std::string("skipped"));
    }
    QCOMPARE(world.failing("ENR-001"), (std::set<std::string>{world.enrollmentId}));
    QCOMPARE(report.documentsChecked, std::int64_t(2)); // the session and the one enrollment
}

// A rule that reads another resource's view without declaring it still re-checks in full when that
// resource changes: the authorizer saw it read the view.
void TestRules::readViewsAreDependencies()
{
    World world;
    const std::string sql = "SELECT id, studentUniqueId FROM students WHERE studentUniqueId NOT IN"
                            " (SELECT studentReference_studentUniqueId FROM studentSchoolAssociations)";
    const RulePack pack = parseRulePack("district.json", packText(sql, {{"message", "{studentUniqueId}"}}),
                                        world.fixture.model());
    QVERIFY(pack.rules[0].dependsOn.empty());
    world.run(pack);
    QVERIFY(world.failing("EVIL-1").empty());
    QCOMPARE(world.fixture.call("DELETE", "/ed-fi/studentSectionAssociations/" + world.studentSectionId).status, 204);
    QCOMPARE(world.fixture.call("DELETE", "/ed-fi/studentSchoolAssociations/" + world.enrollmentId).status, 204);
    const RuleRunReport report = world.run(pack);
    QCOMPARE(report.rules[0].mode, std::string("full"));
    QCOMPARE(world.failing("EVIL-1"), (std::set<std::string>{world.studentId}));
}

// A result found again keeps the time it was first found and takes the rule's message as it is now;
// found again unchanged, it is not written at all.
void TestRules::resultsFoundAgainTakeTheNewMessage()
{
    World world;
    world.fixture.create("/ed-fi/staffs", World::staff("T-9"));
    const RulePack pack = loadStarterRulePack(world.fixture.model());
    world.run(pack);
    QCOMPARE(world.failing("STF-001").size(), std::size_t(1));
    const std::string foundAt = world.fixture.database().connection()
                                    .execAndGet("SELECT found_at FROM rule_results WHERE rule_id = 'STF-001'")
                                    .getString();
    QFile file(":/steward/rules/starter-pack.json");
    QVERIFY(file.open(QIODevice::ReadOnly));
    Json changed = parseJson(file.readAll().toStdString()).value.value();
    for (Json &rule : changed["rules"])
        if (rule["id"] == "STF-001")
            rule["message"] = "Changed: " + rule["message"].get<std::string>();
    const RulePack edited = parseRulePack("edited.json", changed.dump(), world.fixture.model());
    const RuleRunReport report = world.run(edited);
    QVERIFY(report.fullRun);
    QCOMPARE(report.added, std::int64_t(0));
    QVERIFY(report.kept >= 1);
    QCOMPARE(world.scalar("SELECT count(*) FROM rule_results WHERE rule_id = 'STF-001' AND message LIKE 'Changed: %'"),
             std::int64_t(1));
    QCOMPARE(world.fixture.database().connection()
                 .execAndGet("SELECT found_at FROM rule_results WHERE rule_id = 'STF-001'").getString(),
             foundAt);
    SQLite::Database &writer = world.fixture.database().connection();
    writer.exec("CREATE TEMP TABLE rewrites (n); CREATE TEMP TRIGGER rewritten AFTER UPDATE ON main.rule_results"
                " BEGIN INSERT INTO rewrites VALUES (1); END");
    // The staff member edited (not what the rule reads), so the rule runs over it again.
    Json staff = World::staff("T-9");
    staff["middleName"] = "Quinn";
    const std::string staffId = world.fixture.call("GET", "/ed-fi/staffs?staffUniqueId=T-9").body[0]["id"].get<std::string>();
    QCOMPARE(world.fixture.call("PUT", "/ed-fi/staffs/" + staffId, staff).status, 204);
    const RuleRunReport again = world.run(edited);
    QCOMPARE(again.added + again.removed, std::int64_t(0));
    QVERIFY(again.kept >= 1);
    QCOMPARE(writer.execAndGet("SELECT count(*) FROM temp.rewrites").getInt(), 0);
    QCOMPARE(world.failing("STF-001").size(), std::size_t(1));
}

void TestRules::changedPackReRunsEverything()
{
    World world;
    const RulePack pack = loadStarterRulePack(world.fixture.model());
    world.run(pack);
    QFile file(":/steward/rules/starter-pack.json");
    QVERIFY(file.open(QIODevice::ReadOnly));
    Json changed = parseJson(file.readAll().toStdString()).value.value();
    changed["rules"][0]["message"] = "Changed: {entryDate} {schoolId} {firstDay} {lastDay}";
    const RulePack edited = parseRulePack("edited.json", changed.dump(), world.fixture.model());
    QVERIFY(edited.hash != pack.hash);
    const RuleRunReport report = world.run(edited);
    QVERIFY(report.fullRun);
    QCOMPARE(report.rulesRun, int(edited.rules.size()));

    // Rules that leave the pack leave no results behind.
    world.fixture.create("/ed-fi/staffs", World::staff("T-2"));
    world.run(edited);
    QCOMPARE(world.failing("STF-001").size(), std::size_t(1));
    Json without = changed;
    Json kept = Json::array();
    for (const Json &rule : changed["rules"])
        if (rule["id"] != "STF-001")
            kept.push_back(rule);
    without["rules"] = kept;
    world.run(parseRulePack("without.json", without.dump(), world.fixture.model()));
    QVERIFY(world.failing("STF-001").empty());
}

void TestRules::cancelWritesNothing()
{
    World world;
    world.fixture.create("/ed-fi/staffs", World::staff("T-2"));
    const RulePack pack = loadStarterRulePack(world.fixture.model());
    RuleRunOptions options;
    options.progress = [](int done, int) { return done < 3; };
    const RuleRunReport report = world.run(pack, options);
    QVERIFY(report.cancelled);
    QCOMPARE(world.scalar("SELECT count(*) FROM rule_results") + world.scalar("SELECT count(*) FROM rule_runs"),
             std::int64_t(0));

    // Cancel reaches into a rule that would otherwise run to its time limit.
    const RulePack slow = parseRulePack(
        "slow.json",
        packText("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT s.id FROM students s, n"
                 " WHERE n.x < 0"),
        world.fixture.model());
    int asked = 0;
    RuleRunOptions stopInside;
    stopInside.progress = [&asked](int, int) { return ++asked < 5; };
    const auto started = std::chrono::steady_clock::now();
    QVERIFY(world.run(slow, stopInside).cancelled);
    QVERIFY(std::chrono::steady_clock::now() - started < std::chrono::seconds(30));
    QCOMPARE(asked, 5);
    QCOMPARE(world.scalar("SELECT count(*) FROM rule_runs"), std::int64_t(0));
}

void TestRules::cliRulesRunJson()
{
    // The fixture's folder goes with it, so the CLI works on a copy with the WAL folded in.
    QTemporaryDir dir;
    const QString dbPath = dir.filePath("copy.db");
    std::string staffId;
    {
        World world;
        staffId = world.fixture.create("/ed-fi/staffs", World::staff("T-2"));
        world.fixture.database().connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        QVERIFY(QFile::copy(QString::fromStdString(world.fixture.databasePath()), dbPath));
    }

    CliRun run = runCli({"--db", dbPath, "rules", "run", "--json"}, {});
    QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
    JsonParseResult parsed = parseJson(run.stdoutText.toStdString());
    QVERIFY2(parsed.value, qPrintable(run.stdoutText));
    const Json &report = *parsed.value;
    QCOMPARE(report["pack"].get<std::string>(), std::string("steward-starter"));
    QCOMPARE(report["fullRun"].get<bool>(), true);
    QCOMPARE(report["totals"]["info"].get<int>(), 1);
    QCOMPARE(report["totals"]["fatal"].get<int>(), 0);
    QCOMPARE(report["results"].size(), std::size_t(1));
    QCOMPARE(report["results"][0]["rule"].get<std::string>(), std::string("STF-001"));
    QCOMPARE(report["results"][0]["id"].get<std::string>(), staffId);
    QCOMPARE(report["results"][0]["naturalKey"].get<std::string>(), std::string("T-2"));

    CliRun again = runCli({"--db", dbPath, "rules", "run", "--json"}, {});
    QCOMPARE(again.exitCode, 0);
    QCOMPARE(parseJson(again.stdoutText.toStdString()).value.value()["documentsChecked"].get<int>(), 0);

    CliRun results = runCli({"--db", dbPath, "rules", "results", "--severity", "info", "--json"}, {});
    QCOMPARE(results.exitCode, 0);
    QCOMPARE(results.responses.size(), std::size_t(1));
    QCOMPARE(results.responses[0]["rule"].get<std::string>(), std::string("STF-001"));

    // The record's facts, as the app's editor shows them: the rule's title, its advice, its source.
    CliRun show = runCli({"--db", dbPath, "show", QString::fromStdString(staffId)}, {});
    QCOMPARE(show.exitCode, 0);
    QVERIFY2(show.stdoutText.contains("info\tStaff without a section (STF-001)")
                 && show.stdoutText.contains("what to do: ") && show.stdoutText.contains("pack steward-starter"),
             qPrintable(show.stdoutText));
    CliRun showJson = runCli({"--db", dbPath, "show", QString::fromStdString(staffId), "--json"}, {});
    QCOMPARE(parseJson(showJson.stdoutText.toStdString()).value.value()["worstSeverity"].get<std::string>(),
             std::string("info"));
    CliRun missing = runCli({"--db", dbPath, "show", "00000000000000000000000000000000"}, {});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.stderrText.contains("no stored document"), qPrintable(missing.stderrText));

    CliRun human = runCli({"--db", dbPath, "rules", "run", "--full"}, {});
    QCOMPARE(human.exitCode, 0);
    QVERIFY2(human.stdoutText.contains("STF-001"), qPrintable(human.stdoutText));

    QFile bad(dir.filePath("bad.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(QByteArray::fromStdString(packText("DELETE FROM documents RETURNING id")));
    bad.close();
    CliRun refused = runCli({"--db", dbPath, "rules", "run", "--pack", dir.filePath("bad.json")}, {});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.stderrText.contains("rule EVIL-1: refused"), qPrintable(refused.stderrText));

    CliRun list = runCli({"rules", "list"}, {});
    QCOMPARE(list.exitCode, 0);
    QVERIFY(list.stdoutText.contains("ENR-001") && list.stdoutText.contains("fatal"));
}

// Everything about one record in one call: a fatal rule result by its title, a state's result with its
// file and row, an acknowledgement with who and why, a draft that would replace it; nothing for a
// record without facts; the table's worst severity per record.
void TestRules::recordFactsGatherEverything()
{
    World world;
    Engine &engine = world.fixture.engine();
    const RecordFacts clean = readRecordFacts(engine, world.studentId);
    QVERIFY(clean.stored);
    QVERIFY2(clean.facts.empty(), clean.toJson().dump().c_str());
    QCOMPARE(clean.worstSeverity(), std::string());

    world.change("students", world.studentId, {{"birthDate", "2999-01-01"}});
    world.run(loadStarterRulePack(world.fixture.model()));
    QTemporaryDir dir;
    QFile lines(dir.filePath("fall.jsonl"));
    QVERIFY(lines.open(QIODevice::WriteOnly));
    lines.write(QByteArray::fromStdString(
        Json{{"rule", "10010-0033"}, {"severity", "warning"}, {"message", "Missing home language"},
             {"id", world.studentId}}.dump() + "\n"));
    lines.close();
    ResultsImportOptions options;
    options.actor = "tester";
    options.runAt = "2999-01-02";
    importExternalResults(world.fixture.database(), world.fixture.model(), lines.fileName().toStdString(), nullptr,
                          options);
    acknowledgeResult(world.fixture.database(), "state", "10010-0033", world.studentId, "the family declined",
                      "ana");
    const ResourceSchema *students = world.fixture.model().findByName("Ed-Fi", "Student");
    QVERIFY(students != nullptr);
    const std::int64_t draftId =
        engine.saveDraft(*students, R"({"studentUniqueId":"604822","firstName":"Ada"})", world.studentId);

    const RecordFacts facts = readRecordFacts(engine, world.studentId);
    QCOMPARE(facts.worstSeverity(), std::string("fatal"));
    QCOMPARE(facts.naturalKey, std::string("604822"));
    const RecordFact *rule = nullptr;
    const RecordFact *state = nullptr;
    const RecordFact *draft = nullptr;
    for (const RecordFact &fact : facts.facts) {
        if (fact.kind == RecordFact::Kind::Rule && fact.code == "STU-002")
            rule = &fact;
        if (fact.kind == RecordFact::Kind::Imported)
            state = &fact;
        if (fact.kind == RecordFact::Kind::Draft)
            draft = &fact;
    }
    QVERIFY2(rule && state && draft, facts.toJson().dump(2).c_str());
    QCOMPARE(rule->severity, std::string("fatal"));
    QCOMPARE(rule->title, std::string("Birth date not in the future"));
    QCOMPARE(rule->fix, std::string("Correct the student's birth date."));
    QVERIFY2(rule->message.find("2999-01-01") != std::string::npos, rule->message.c_str());
    QVERIFY2(state->source.find("fall.jsonl") != std::string::npos && state->source.find("row 1") != std::string::npos,
             state->source.c_str());
    QVERIFY(state->acknowledged);
    QCOMPARE(state->ackActor, std::string("ana"));
    QCOMPARE(state->ackReason, std::string("the family declined"));
    QCOMPARE(draft->draftId, draftId);
    QCOMPARE(facts.facts.back().kind, RecordFact::Kind::Imported); // acknowledged last
    QCOMPARE(facts.facts.front().severity, std::string("fatal"));

    const auto worst = worstSeverityByRecord(world.fixture.database().connection(), "Ed-Fi", "Student");
    QCOMPARE(worst.size(), std::size_t(1));
    QCOMPARE(worst.at(world.studentId), std::string("fatal"));

    const RecordFacts unknown = readRecordFacts(engine, "00000000-0000-0000-0000-000000000000");
    QVERIFY(!unknown.stored);
    QVERIFY(unknown.facts.empty());
}

// What changed after a change-log position, per resource, without reading the entries' bodies.
void TestRules::changeSummaryNamesResources()
{
    World world;
    SQLite::Database &db = world.fixture.database().connection();
    const std::int64_t before = newestChangeSeq(db);
    QVERIFY(before > 0);
    QCOMPARE(summarizeChangesSince(db, before).changes, std::int64_t(0));
    QCOMPARE(summarizeChangesSince(db, before).newest, before);
    world.fixture.create("/ed-fi/staffs", World::staff("T-9"));
    world.change("students", world.studentId, {{"firstName", "Augusta"}});
    const ChangeSummary summary = summarizeChangesSince(db, before);
    QCOMPARE(summary.changes, std::int64_t(2));
    QCOMPARE(summary.newest, newestChangeSeq(db));
    QCOMPARE(summary.resources.size(), std::size_t(2));
    QCOMPARE(summary.resources[0].resource, std::string("Staff"));
    QCOMPARE(summary.resources[1].resource, std::string("Student"));

    // Another connection's commit moves data_version; this connection's own does not.
    const std::int64_t version = dataVersion(db);
    world.fixture.create("/ed-fi/staffs", World::staff("T-10"));
    QCOMPARE(dataVersion(db), version);
    {
        SQLite::Database other(world.fixture.databasePath(), SQLite::OPEN_READWRITE);
        other.exec("PRAGMA busy_timeout = 2000");
        other.exec("CREATE TABLE IF NOT EXISTS scratch (x)");
    }
    QVERIFY(dataVersion(db) != version);
}

QTEST_GUILESS_MAIN(TestRules)
#include "tst_rules.moc"
