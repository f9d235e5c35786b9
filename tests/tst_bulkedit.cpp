// Bulk edits, descriptor mappings and their undo: previews, one transaction, the edit journal.
#include "BulkEdit.h"
#include "Clock.h"
#include "CliSupport.h"
#include "Database.h"
#include "EditJournal.h"
#include "TestSupport.h"
#include "Tidy.h"

#include <QDateTime>
#include <QTest>

#include <SQLiteCpp/Database.h>

using namespace steward;
using namespace steward::test;

namespace {

const std::string kNinth = "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade";

Json schoolWithAddress(int schoolId, const std::string &city)
{
    Json school = Fixture::school(schoolId, "School " + std::to_string(schoolId));
    school["addresses"] = Json::array({{{"addressTypeDescriptor", "uri://ed-fi.org/AddressTypeDescriptor#Physical"},
                                        {"streetNumberName", "1 Main St"},
                                        {"city", city},
                                        {"stateAbbreviationDescriptor", "uri://ed-fi.org/StateAbbreviationDescriptor#TX"},
                                        {"postalCode", "78701"}}});
    return school;
}

std::string storedBody(Fixture &f, const std::string &id)
{
    return f.engine().document(id)->body;
}

// The engine's clock moved by whole days for a scope, as a simulation with a calendar of its own does.
struct ShiftedClock
{
    explicit ShiftedClock(int days) { setEngineClockShift(std::chrono::hours(24 * days)); }
    ~ShiftedClock() { setEngineClockShift(std::chrono::seconds(0)); }
    ShiftedClock(const ShiftedClock &) = delete;
    ShiftedClock &operator=(const ShiftedClock &) = delete;
};

std::int64_t count(Fixture &f, const std::string &sql)
{
    SQLite::Database db(f.databasePath(), SQLite::OPEN_READONLY);
    Database::registerFunctions(db);
    return db.execAndGet(sql).getInt64();
}

// A School draft whose grade level is a value no stored descriptor has.
std::int64_t unknownGradeDraft(Fixture &f, int schoolId, const std::string &grade)
{
    Json school = Fixture::school(schoolId, "Draft " + std::to_string(schoolId));
    school["gradeLevels"][0]["gradeLevelDescriptor"] = grade;
    const ResourceSchema *schools = f.model().findByEndpoint("ed-fi", "schools");
    return f.engine().saveDraft(*schools, school.dump(2), "");
}

} // namespace

class TestBulkEdit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void previewShowsEveryRowAndWritesNothing()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string a = f.create("/ed-fi/schools", Fixture::school(1, "Alpha"));
        const std::string b = f.create("/ed-fi/schools", Fixture::school(2, "Beta"));
        const std::int64_t draft = unknownGradeDraft(f, 3, "uri://ed-fi.org/GradeLevelDescriptor#9th");
        const std::string bodyA = storedBody(f, a);
        const std::int64_t changes = count(f, "SELECT count(*) FROM changes");

        BulkEditor editor(f.engine(), f.database());
        const EditPreview preview =
            editor.preview({{a, b}, {draft}}, FieldEdit{"$.nameOfInstitution", Json("Renamed")});
        QCOMPARE(preview.rows.size(), std::size_t(3));
        JSON_COMPARE(preview.rows[0].before, "Alpha");
        JSON_COMPARE(preview.rows[0].after, "Renamed");
        QCOMPARE(preview.rows[0].outcome, EditOutcome::Valid);
        QCOMPARE(preview.rows[0].label, std::string("1"));
        JSON_COMPARE(preview.rows[1].before, "Beta");
        QCOMPARE(preview.rows[1].outcome, EditOutcome::Valid);
        QCOMPARE(preview.rows[2].target, EditTarget::Draft);
        JSON_COMPARE(preview.rows[2].before, "Draft 3");
        QCOMPARE(preview.rows[2].outcome, EditOutcome::StillDraft);
        QVERIFY2(preview.rows[2].reason.find("9th") != std::string::npos, preview.rows[2].reason.c_str());
        QVERIFY(preview.refusals().empty());

        QCOMPARE(storedBody(f, a), bodyA);
        QCOMPARE(count(f, "SELECT count(*) FROM changes"), changes);
        QCOMPARE(count(f, "SELECT count(*) FROM edit_operations"), std::int64_t(0));

        // Paths through arrays show every value and every concrete path that changes.
        f.create("/ed-fi/addressTypeDescriptors", Json{{"namespace", "uri://ed-fi.org/AddressTypeDescriptor"},
                                                       {"codeValue", "Physical"},
                                                       {"shortDescription", "Physical"}});
        f.create("/ed-fi/stateAbbreviationDescriptors",
                 Json{{"namespace", "uri://ed-fi.org/StateAbbreviationDescriptor"},
                      {"codeValue", "TX"},
                      {"shortDescription", "TX"}});
        const std::string c = f.create("/ed-fi/schools", schoolWithAddress(4, "Austin"));
        const EditPreview cities = editor.preview({{c, a}, {}}, FieldEdit{"$.addresses[*].city", Json("Dallas")});
        JSON_COMPARE(cities.rows[0].before, Json::array({"Austin"}));
        JSON_COMPARE(cities.rows[0].after, Json::array({"Dallas"}));
        QCOMPARE(cities.rows[0].paths, std::vector<std::string>{"$.addresses[0].city"});
        QCOMPARE(cities.rows[1].outcome, EditOutcome::Unchanged); // no addresses to change
    }

    void applyThenUndoRestoresBodiesAndDrafts()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string a = f.create("/ed-fi/schools", Fixture::school(1, "Alpha"));
        const std::string b = f.create("/ed-fi/schools", Fixture::school(2, "Beta"));
        // A draft the edit fixes: its only problem is the missing name.
        Json nameless = Fixture::school(3);
        nameless.erase("nameOfInstitution");
        const ResourceSchema *schools = f.model().findByEndpoint("ed-fi", "schools");
        const std::int64_t fixed = f.engine().saveDraft(*schools, nameless.dump(), "", 0, "importer");
        const std::string fixedText = f.engine().draft(fixed)->text;
        const Json fixedProblem = f.engine().draft(fixed)->problem;
        // A draft the edit changes but cannot fix.
        const std::int64_t stuck = unknownGradeDraft(f, 4, "uri://ed-fi.org/GradeLevelDescriptor#9th");
        const std::string stuckText = f.engine().draft(stuck)->text;
        const std::string bodyA = storedBody(f, a);
        const std::string bodyB = storedBody(f, b);

        BulkEditor editor(f.engine(), f.database());
        const EditResult result =
            editor.apply({{a, b}, {fixed, stuck}}, FieldEdit{"$.nameOfInstitution", Json("Renamed")}, "steward");
        QVERIFY(result.opId > 0);
        QCOMPARE(result.documentsChanged, 2);
        QCOMPARE(result.draftsStored, 1);
        QCOMPARE(result.draftsStillFailing, 1);
        QCOMPARE(f.call("GET", "/ed-fi/schools/" + a).body["nameOfInstitution"].get<std::string>(),
                 std::string("Renamed"));
        QVERIFY(!f.engine().draft(fixed));
        QCOMPARE(f.call("GET", "/ed-fi/schools?schoolId=3").body.size(), std::size_t(1));
        QVERIFY(f.engine().draft(stuck)->text.find("Renamed") != std::string::npos);
        QCOMPARE(count(f, "SELECT count(*) FROM changes WHERE actor = 'steward'"), std::int64_t(3));
        // Queries by the edited field see the edit (the query index follows it).
        QCOMPARE(f.call("GET", "/ed-fi/schools?nameOfInstitution=renamed").body.size(), std::size_t(3));
        QVERIFY(compareIndexWithScan(f).differences.empty());

        const std::optional<EditOperation> op = editor.journal().operation(result.opId);
        QVERIFY(op);
        QCOMPARE(op->kind, std::string("bulk-edit"));
        QCOMPARE(op->itemCount, std::int64_t(4));
        QCOMPARE(op->actor, std::string("steward"));
        QCOMPARE(editor.journal().lastUndoable()->opId, result.opId);

        const UndoResult undone = editor.undo(result.opId, "steward");
        QCOMPARE(undone.documentsRestored, 2);
        QCOMPARE(undone.draftsRestored, 2);
        QCOMPARE(storedBody(f, a), bodyA);
        QCOMPARE(storedBody(f, b), bodyB);
        // The stored draft is a draft again, under its own id, with its text, problem and author.
        const std::optional<Draft> back = f.engine().draft(fixed);
        QVERIFY(back);
        QCOMPARE(back->text, fixedText);
        JSON_COMPARE(back->problem, fixedProblem);
        QCOMPARE(back->actor, std::string("importer"));
        QCOMPARE(f.call("GET", "/ed-fi/schools?schoolId=3").body.size(), std::size_t(0));
        QCOMPARE(f.engine().draft(stuck)->text, stuckText);
        QCOMPARE(f.call("GET", "/ed-fi/schools?nameOfInstitution=renamed").body.size(), std::size_t(0));
        QCOMPARE(f.call("GET", "/ed-fi/schools?nameOfInstitution=ALPHA").body.size(), std::size_t(1));
        QVERIFY(compareIndexWithScan(f).differences.empty());
        QVERIFY2(f.engine().check().clean(), f.engine().check().toJson().dump().c_str());
        QVERIFY(editor.journal().operation(result.opId)->undone());
        QVERIFY(!editor.journal().lastUndoable());

        // Undone once is undone for good.
        try {
            editor.undo(result.opId);
            QFAIL("a second undo was accepted");
        } catch (const EditRefused &e) {
            QVERIFY2(std::string(e.what()).find("already undone") != std::string::npos, e.what());
        }
        try {
            editor.undo(999);
            QFAIL("an unknown operation was undone");
        } catch (const EditRefused &e) {
            QVERIFY2(std::string(e.what()).find("no edit operation 999") != std::string::npos, e.what());
        }
    }

    void removeAField()
    {
        Fixture f;
        f.seedDescriptors();
        Json school = Fixture::school(1);
        school["shortNameOfInstitution"] = "GBHS";
        const std::string a = f.create("/ed-fi/schools", school);
        BulkEditor editor(f.engine(), f.database());
        const EditResult result = editor.apply({{a}, {}}, FieldEdit{"$.shortNameOfInstitution", std::nullopt});
        QCOMPARE(result.documentsChanged, 1);
        QVERIFY(!f.call("GET", "/ed-fi/schools/" + a).body.contains("shortNameOfInstitution"));
        editor.undo(result.opId);
        QCOMPARE(f.call("GET", "/ed-fi/schools/" + a).body["shortNameOfInstitution"].get<std::string>(),
                 std::string("GBHS"));
        // Removing what is not there changes nothing and journals nothing.
        const EditResult nothing = editor.apply({{a}, {}}, FieldEdit{"$.webSite", std::nullopt});
        QCOMPARE(nothing.opId, std::int64_t(0));
        QCOMPARE(nothing.unchanged, 1);
        QCOMPARE(count(f, "SELECT count(*) FROM edit_operations"), std::int64_t(1));
    }

    void aFailureMidwayLeavesNothingChanged()
    {
        Fixture f;
        f.seedDescriptors();
        f.create("/ed-fi/schools", Fixture::school(1));
        f.create("/ed-fi/schoolYearTypes", Fixture::schoolYear(2022));
        // Session allows identity updates: the first rename goes through, the second collides with it.
        const std::string fall = f.create("/ed-fi/sessions", Fixture::session(1, 2022, "Fall"));
        const std::string spring = f.create("/ed-fi/sessions", Fixture::session(1, 2022, "Spring"));
        const std::string fallBody = storedBody(f, fall);
        const std::string springBody = storedBody(f, spring);
        const std::int64_t changes = count(f, "SELECT count(*) FROM changes");

        BulkEditor editor(f.engine(), f.database());
        const EditPreview preview = editor.preview({{fall, spring}, {}}, FieldEdit{"$.sessionName", Json("Winter")});
        // Each row alone would pass: only applying them together collides.
        QCOMPARE(preview.count(EditOutcome::Valid), 2);
        try {
            editor.apply({{fall, spring}, {}}, FieldEdit{"$.sessionName", Json("Winter")});
            QFAIL("an edit giving two sessions one identity was applied");
        } catch (const EditRefused &e) {
            QVERIFY2(std::string(e.what()).find(spring) != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("nothing was changed") != std::string::npos, e.what());
        }
        QCOMPARE(storedBody(f, fall), fallBody);
        QCOMPARE(storedBody(f, spring), springBody);
        QCOMPARE(count(f, "SELECT count(*) FROM changes"), changes);
        QCOMPARE(count(f, "SELECT count(*) FROM edit_operations"), std::int64_t(0));
        QCOMPARE(count(f, "SELECT count(*) FROM edit_items"), std::int64_t(0));

        // An identity change the resource allows cascades, and the undo cascades back.
        const EditResult renamed = editor.apply({{fall}, {}}, FieldEdit{"$.sessionName", Json("Autumn")});
        QCOMPARE(renamed.documentsChanged, 1);
        editor.undo(renamed.opId);
        QCOMPARE(storedBody(f, fall), fallBody);
    }

    void undoRefusedAfterALaterChange()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string a = f.create("/ed-fi/schools", Fixture::school(1, "Alpha"));
        const std::string b = f.create("/ed-fi/schools", Fixture::school(2, "Beta"));
        BulkEditor editor(f.engine(), f.database());
        const EditResult result = editor.apply({{a, b}, {}}, FieldEdit{"$.nameOfInstitution", Json("Renamed")});
        QCOMPARE(f.call("PUT", "/ed-fi/schools/" + b, Fixture::school(2, "Changed later")).status, 204);
        const std::string bodyA = storedBody(f, a);
        try {
            editor.undo(result.opId);
            QFAIL("an undo over a later change was accepted");
        } catch (const EditRefused &e) {
            const std::string text = e.what();
            QVERIFY2(text.find(b) != std::string::npos, e.what());
            QVERIFY2(text.find("changed since") != std::string::npos, e.what());
            QVERIFY2(text.find(a) == std::string::npos, e.what()); // only the one in the way is named
        }
        // Nothing was put back, not even the document that did not change.
        QCOMPARE(storedBody(f, a), bodyA);
        QCOMPARE(f.call("GET", "/ed-fi/schools/" + b).body["nameOfInstitution"].get<std::string>(),
                 std::string("Changed later"));
        QVERIFY(!editor.journal().operation(result.opId)->undone());
    }

    // A draft of School 1 that the edit fixes lands on School 1, which the same edit renamed first:
    // one operation, two writes to one document, and the undo must still put both back.
    void undoOfAnOperationThatWroteADocumentTwice()
    {
        Fixture f;
        f.seedDescriptors();
        Json original = Fixture::school(1, "Alpha");
        original["shortNameOfInstitution"] = "ALP";
        const std::string a = f.create("/ed-fi/schools", original);
        const std::string bodyA = storedBody(f, a);
        Json nameless = Fixture::school(1);
        nameless.erase("nameOfInstitution");
        const ResourceSchema *schools = f.model().findByEndpoint("ed-fi", "schools");
        const std::int64_t draft = f.engine().saveDraft(*schools, nameless.dump(), "", 0, "importer");
        const Draft draftBefore = *f.engine().draft(draft);
        // A draft the edit leaves a draft: its updated_at must come back as it was.
        const std::int64_t stuck = unknownGradeDraft(f, 4, "uri://ed-fi.org/GradeLevelDescriptor#9th");
        const Draft stuckBefore = *f.engine().draft(stuck);
        QTest::qWait(1100); // updated_at has whole seconds

        BulkEditor editor(f.engine(), f.database());
        const EditResult result =
            editor.apply({{a}, {draft, stuck}}, FieldEdit{"$.nameOfInstitution", Json("Renamed")}, "steward");
        QCOMPARE(result.documentsChanged, 1);
        QCOMPARE(result.draftsStored, 1);
        QCOMPARE(f.call("GET", "/ed-fi/schools?schoolId=1").body.size(), std::size_t(1));
        QVERIFY(!f.call("GET", "/ed-fi/schools/" + a).body.contains("shortNameOfInstitution"));

        const UndoResult undone = editor.undo(result.opId, "steward");
        QCOMPARE(undone.documentsRestored, 1);
        QCOMPARE(undone.draftsRestored, 2);
        QCOMPARE(storedBody(f, a), bodyA);
        const std::optional<Draft> back = f.engine().draft(draft);
        QVERIFY(back);
        QCOMPARE(back->text, draftBefore.text);
        const std::optional<Draft> stuckBack = f.engine().draft(stuck);
        QCOMPARE(stuckBack->text, stuckBefore.text);
        QCOMPARE(stuckBack->updatedAt, stuckBefore.updatedAt);
        QVERIFY(editor.journal().operation(result.opId)->undone());
    }

    void identityFieldRefusedInPreviewAndApply()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string a = f.create("/ed-fi/schools", Fixture::school(1));
        const std::string before = storedBody(f, a);
        BulkEditor editor(f.engine(), f.database());
        const EditPreview preview = editor.preview({{a}, {}}, FieldEdit{"$.schoolId", Json(99)});
        QCOMPARE(preview.rows[0].outcome, EditOutcome::Refused);
        QVERIFY2(preview.rows[0].reason.find("identity of School") != std::string::npos,
                 preview.rows[0].reason.c_str());
        QVERIFY(preview.refusals().find(a) != std::string::npos);
        QVERIFY_THROWS_EXCEPTION(EditRefused, editor.apply({{a}, {}}, FieldEdit{"$.schoolId", Json(99)}));
        QCOMPARE(storedBody(f, a), before);

        // A path the engine cannot read is refused with the path named.
        try {
            editor.preview({{a}, {}}, FieldEdit{"nameOfInstitution", Json("x")});
            QFAIL("a path without $ was accepted");
        } catch (const EditRefused &e) {
            QVERIFY2(std::string(e.what()).find("'nameOfInstitution'") != std::string::npos, e.what());
        }
        // An unknown document is a refused row, so apply refuses the whole edit.
        const EditPreview unknown = editor.preview({{"no-such-id"}, {}}, FieldEdit{"$.webSite", Json("x")});
        QCOMPARE(unknown.rows[0].outcome, EditOutcome::Refused);
    }

    void descriptorMappingFixesDraftsAndUndoPutsThemBack()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string unknown = "uri://ed-fi.org/GradeLevelDescriptor#9th";
        const std::int64_t d1 = unknownGradeDraft(f, 11, unknown);
        const std::int64_t d2 = unknownGradeDraft(f, 12, "URI://ED-FI.ORG/GradeLevelDescriptor#9TH");
        // The value twice in one draft: both places are mapped, and then the two grade levels are
        // the same one, so the draft stays a draft (with its new text and problem).
        Json twice = Fixture::school(13);
        twice["gradeLevels"] = Json::array({{{"gradeLevelDescriptor", unknown}}, {{"gradeLevelDescriptor", "URI://ed-fi.org/GradeLevelDescriptor#9th"}}});
        const ResourceSchema *schools = f.model().findByEndpoint("ed-fi", "schools");
        const std::int64_t d3 = f.engine().saveDraft(*schools, twice.dump(), "");
        const std::int64_t other = unknownGradeDraft(f, 14, "uri://ed-fi.org/GradeLevelDescriptor#Eleventh");
        std::map<std::int64_t, std::string> texts;
        for (std::int64_t id : {d1, d2, d3, other})
            texts[id] = f.engine().draft(id)->text;

        BulkEditor editor(f.engine(), f.database());
        const EditPreview preview = editor.previewDescriptorMapping("GradeLevelDescriptor", unknown, kNinth);
        QCOMPARE(preview.count(EditOutcome::Valid), 2);
        QCOMPARE(preview.count(EditOutcome::StillDraft), 1);
        QCOMPARE(preview.count(EditOutcome::Unchanged), 1);
        QCOMPARE(preview.rows[2].paths, (std::vector<std::string>{"$.gradeLevels[0].gradeLevelDescriptor",
                                                                  "$.gradeLevels[1].gradeLevelDescriptor"}));
        JSON_COMPARE(preview.rows[2].after, Json::array({kNinth, kNinth}));

        const EditResult result = editor.mapDescriptorValue("gradeLevelDescriptors", unknown, kNinth);
        QCOMPARE(result.draftsStored, 2);
        QCOMPARE(result.draftsStillFailing, 1);
        QCOMPARE(result.unchanged, 1);
        QCOMPARE(editor.journal().operation(result.opId)->kind, std::string("map-descriptor"));
        QCOMPARE(f.call("GET", "/ed-fi/schools").body.size(), std::size_t(2));
        QVERIFY(f.engine().draft(other));
        QVERIFY(!f.engine().draft(d1) && !f.engine().draft(d2));
        QVERIFY(f.engine().draft(d3)->text.find(kNinth) != std::string::npos);

        editor.undo(result.opId);
        QCOMPARE(f.call("GET", "/ed-fi/schools").body.size(), std::size_t(0));
        for (const auto &[id, text] : texts)
            QCOMPARE(f.engine().draft(id)->text, text);
    }

    void mappingToANonStoredDescriptorIsRefused()
    {
        Fixture f;
        f.seedDescriptors();
        const std::int64_t draft = unknownGradeDraft(f, 11, "uri://ed-fi.org/GradeLevelDescriptor#9th");
        const std::string text = f.engine().draft(draft)->text;
        BulkEditor editor(f.engine(), f.database());
        try {
            editor.mapDescriptorValue("GradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#9th",
                                      "uri://ed-fi.org/GradeLevelDescriptor#Twelfth grade");
            QFAIL("a mapping to a descriptor nobody stored was applied");
        } catch (const EditRefused &e) {
            QVERIFY2(std::string(e.what()).find("is not a stored GradeLevelDescriptor") != std::string::npos,
                     e.what());
        }
        QVERIFY_THROWS_EXCEPTION(EditRefused, editor.mapDescriptorValue("School", "a#b", kNinth));
        QVERIFY_THROWS_EXCEPTION(EditRefused, editor.mapDescriptorValue("GradeLevelDescriptor", "a#b", "Ninth grade"));
        QCOMPARE(f.engine().draft(draft)->text, text);
        QCOMPARE(count(f, "SELECT count(*) FROM edit_operations"), std::int64_t(0));
    }

    void selectionsFromResourcesAndRules()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string a = f.create("/ed-fi/schools", Fixture::school(1));
        f.create("/ed-fi/schools", Fixture::school(2));
        const std::int64_t draft = unknownGradeDraft(f, 3, "x#y");
        {
            SQLite::Database db(f.databasePath(), SQLite::OPEN_READWRITE);
            Database::registerFunctions(db);
            db.exec("INSERT INTO rule_results (pack_id, rule_id, severity, project, resource, doc_id, natural_key, "
                    "message, found_at) VALUES ('p', 'school-web', 'warning', 'Ed-Fi', 'School', '" + a
                    + "', '1', 'no website', '2026-01-01T00:00:00Z'), ('p', 'school-web', 'warning', 'Ed-Fi', "
                      "'School', 'gone', '9', 'no website', '2026-01-01T00:00:00Z')");
        }
        BulkEditor editor(f.engine(), f.database());
        const EditSelection both = editor.selectResource("schools", true, true);
        QCOMPARE(both.documentIds.size(), std::size_t(2));
        QCOMPARE(both.draftIds, std::vector<std::int64_t>{draft});
        QCOMPARE(editor.selectResource("School", false, true).documentIds.size(), std::size_t(0));
        QCOMPARE(editor.selectRule("school-web").documentIds, std::vector<std::string>{a});
        QVERIFY_THROWS_EXCEPTION(EditRefused, editor.selectResource("Nope", true, true));
    }

    void cliFixSetUndoAndHistory()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string a = f.create("/ed-fi/schools", Fixture::school(1, "Alpha"));
        const std::int64_t draft = unknownGradeDraft(f, 2, "uri://ed-fi.org/GradeLevelDescriptor#9th");
        const QString db = QString::fromStdString(f.databasePath());
        const std::string before = storedBody(f, a);

        CliRun dry = runCli({"--db", db, "fix", "set", "--resource", "School", "--field", "$.webSite", "--value",
                             "\"https://alpha.example\"", "--dry-run", "--json"},
                            {});
        QCOMPARE(dry.exitCode, 0);
        QCOMPARE(dry.responses.size(), std::size_t(1));
        const Json rows = dry.responses[0]["preview"];
        QCOMPARE(rows.size(), std::size_t(2));
        JSON_COMPARE(rows[0]["after"], "https://alpha.example");
        JSON_COMPARE(rows[0]["outcome"], "valid");
        JSON_COMPARE(rows[1]["outcome"], "still a draft");
        QCOMPARE(storedBody(f, a), before);

        CliRun applied = runCli({"--db", db, "fix", "set", "--id", QString::fromStdString(a), "--draft",
                                 QString::number(draft), "--field", "$.webSite", "--value", "\"https://alpha.example\""},
                                {});
        QCOMPARE(applied.exitCode, 0);
        QVERIFY2(applied.stdoutText.contains("Applied as operation 1:"), qPrintable(applied.stdoutText));
        QVERIFY(applied.stdoutText.contains("1 document(s) changed"));
        QVERIFY(storedBody(f, a).find("alpha.example") != std::string::npos);

        CliRun history = runCli({"--db", db, "fix", "history", "--json"}, {});
        QCOMPARE(history.exitCode, 0);
        JSON_COMPARE(history.responses.at(0)[0]["opId"], 1);
        JSON_COMPARE(history.responses.at(0)[0]["items"], 2);
        JSON_COMPARE(history.responses.at(0)[0]["undoneAt"], nullptr);

        CliRun undo = runCli({"--db", db, "fix", "undo", "1"}, {});
        QCOMPARE(undo.exitCode, 0);
        QVERIFY2(undo.stdoutText.contains("1 document(s) and 1 draft(s) restored"), qPrintable(undo.stdoutText));
        QCOMPARE(storedBody(f, a), before);
        CliRun again = runCli({"--db", db, "fix", "undo", "1"}, {});
        QCOMPARE(again.exitCode, 1);
        QVERIFY2(again.stderrText.contains("already undone"), qPrintable(again.stderrText));

        // Refusals: an identity field, a descriptor nobody stored, bad arguments.
        CliRun identity = runCli({"--db", db, "fix", "set", "--id", QString::fromStdString(a), "--field",
                                  "$.schoolId", "--value", "7"},
                                 {});
        QCOMPARE(identity.exitCode, 1);
        QVERIFY2(identity.stderrText.contains("does not allow identity updates"), qPrintable(identity.stderrText));
        CliRun mapping = runCli({"--db", db, "fix", "map-descriptor", "--descriptor", "GradeLevelDescriptor", "--from",
                                 "uri://ed-fi.org/GradeLevelDescriptor#9th", "--to",
                                 "uri://ed-fi.org/GradeLevelDescriptor#Ninth Grade"},
                                {});
        QCOMPARE(mapping.exitCode, 0); // stored descriptors match without case
        QVERIFY2(mapping.stdoutText.contains("1 draft(s) stored"), qPrintable(mapping.stdoutText));
        CliRun missing = runCli({"--db", db, "fix", "map-descriptor", "--descriptor", "GradeLevelDescriptor",
                                 "--from", "a#b", "--to", "uri://ed-fi.org/GradeLevelDescriptor#Twelfth grade"},
                                {});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.stderrText.contains("is not a stored GradeLevelDescriptor"), qPrintable(missing.stderrText));
        QCOMPARE(runCli({"--db", db, "fix", "set", "--field", "$.webSite", "--remove"}, {}).exitCode, 2);
        QCOMPARE(runCli({"--db", db, "fix", "set", "--id", "x", "--field", "$.webSite", "--value", "not json"}, {})
                     .exitCode,
                 2);
        QCOMPARE(runCli({"--db", db, "fix", "undo", "one"}, {}).exitCode, 2);
        CliRun help = runCli({"fix", "--help"}, {});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.stdoutText.contains("fix map-descriptor"));
        QVERIFY(help.stdoutText.contains("Defaults: 100 operations,\n      30 days."));

        // How long undo lasts: shown, set, refused when not a number.
        CliRun shown = runCli({"--db", db, "fix", "keep"}, {});
        QCOMPARE(shown.exitCode, 0);
        QCOMPARE(shown.stdoutText, QStringLiteral("Undo lasts for the newest 100 operations and 30 days.\n"));
        CliRun set = runCli({"--db", db, "fix", "keep", "--operations", "0", "--days", "7", "--json"}, {});
        QCOMPARE(set.exitCode, 0);
        JSON_COMPARE(set.responses.at(0), (Json{{"operations", 0}, {"days", 7}}));
        QCOMPARE(runCli({"--db", db, "fix", "keep"}, {}).stdoutText,
                 QStringLiteral("Undo lasts for the newest no limit of operations and 7 days.\n"));
        CliRun bad = runCli({"--db", db, "fix", "keep", "--days", "a week"}, {});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.stderrText.contains("--days takes a whole number from 0 (no limit) to 1000000, not 'a week'"),
                 qPrintable(bad.stderrText));
    }

    // History costs about what an edit changed: the journal keeps the text before an edit as a delta
    // against the text after it, the change log each rewritten version as a delta against the one
    // after it. Every version reads back byte for byte, and undo puts the texts back.
    void historyIsKeptAsDeltasAndReadsBackExactly()
    {
        Fixture f;
        f.seedDescriptors();
        std::vector<std::string> ids;
        std::vector<std::string> originals;
        for (int i = 1; i <= 20; ++i) {
            Json school = Fixture::school(100 + i, "School number " + std::to_string(i) + " of the district");
            school["webSite"] = "https://school-" + std::to_string(i) + ".example.org/about/us";
            ids.push_back(f.create("/ed-fi/schools", school));
            originals.push_back(storedBody(f, ids.back()));
        }
        BulkEditor editor(f.engine(), f.database());
        const EditResult first = editor.apply({ids, {}}, FieldEdit{"$.shortNameOfInstitution", Json("Renamed")});
        editor.apply({{ids.front()}, {}}, FieldEdit{"$.shortNameOfInstitution", Json("Renamed again")});
        const std::string twiceEdited = storedBody(f, ids.front());

        // The journal: 20 texts before the edit, each a delta much smaller than the text.
        std::int64_t plain = 0;
        for (const std::string &body : originals)
            plain += static_cast<std::int64_t>(body.size());
        QCOMPARE(count(f, "SELECT count(*) FROM edit_items WHERE op_id = " + std::to_string(first.opId)
                              + " AND hex(substr(before_text, 1, 4)) = '28B52FFD'"),
                 std::int64_t(20));
        const std::int64_t kept = count(f, "SELECT sum(length(before_text)) FROM edit_items WHERE op_id = "
                                               + std::to_string(first.opId));
        QVERIFY2(kept * 4 < plain, qPrintable(QStringLiteral("%1 bytes kept for %2 of text").arg(kept).arg(plain)));
        // The change log: every version that has one after it is a delta (the first school's two).
        QCOMPARE(count(f, "SELECT count(*) FROM change_rows WHERE hex(substr(body, 1, 4)) = '28B52FFD'"),
                 std::int64_t(21));
        const std::vector<HistoryEntry> history = f.engine().history(ids.front());
        QCOMPARE(history.size(), std::size_t(3));
        QCOMPARE(dumpJson(*history[2].body), dumpJson(Json::parse(originals.front())));
        QCOMPARE(dumpJson(*history[0].body), dumpJson(Json::parse(twiceEdited)));
        QVERIFY(history[1].body->at("shortNameOfInstitution") == "Renamed");
        QCOMPARE(checkProblems(f), std::string());

        // Undo of the first edit is refused for the school edited since; the others come back exactly.
        QVERIFY_THROWS_EXCEPTION(EditRefused, editor.undo(first.opId));
        editor.undo(editor.journal().lastUndoable()->opId);
        const UndoResult undone = editor.undo(first.opId);
        QCOMPARE(undone.documentsRestored, 20);
        for (std::size_t i = 0; i < ids.size(); ++i)
            QCOMPARE(storedBody(f, ids[i]), originals[i]);
        QCOMPARE(f.engine().history(ids.back()).size(), std::size_t(3));
        QCOMPARE(checkProblems(f), std::string());
    }

    // Undo lasts for the newest operations and days the database keeps; older ones are let go as
    // new ones are made (their changes stay in history) and undoing one says why it cannot.
    void undoLastsAsTheRetentionSays()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string a = f.create("/ed-fi/schools", Fixture::school(1, "Alpha"));
        {
            UndoRetention keep;
            keep.operations = 2;
            keep.days = 0;
            ImmediateTransaction transaction(f.database().connection());
            keep.write(f.database().connection());
            transaction.commit();
        }
        QCOMPARE(UndoRetention::read(f.database().connection()).operations, 2);
        BulkEditor editor(f.engine(), f.database());
        const EditResult one = editor.apply({{a}, {}}, FieldEdit{"$.nameOfInstitution", Json("One")});
        const EditResult two = editor.apply({{a}, {}}, FieldEdit{"$.nameOfInstitution", Json("Two")});
        QVERIFY(editor.journal().operation(one.opId));
        const EditResult three = editor.apply({{a}, {}}, FieldEdit{"$.nameOfInstitution", Json("Three")});
        QVERIFY(!editor.journal().operation(one.opId));
        QVERIFY(editor.journal().operation(two.opId));
        QVERIFY(editor.journal().operation(three.opId));
        QCOMPARE(count(f, "SELECT count(*) FROM edit_items WHERE op_id = " + std::to_string(one.opId)),
                 std::int64_t(0));
        try {
            editor.undo(one.opId);
            QFAIL("an operation the retention let go was undone");
        } catch (const EditRefused &e) {
            QVERIFY2(std::string(e.what()).find("is no longer kept for undo") != std::string::npos, e.what());
        }
        QCOMPARE(f.engine().history(a).size(), std::size_t(4)); // every version stays in history

        // Days: with no limit on the count, an operation older than the days goes when the next is made.
        {
            UndoRetention keep;
            keep.operations = 0;
            keep.days = 30;
            ImmediateTransaction transaction(f.database().connection());
            keep.write(f.database().connection());
            EditJournal(f.database().connection()).beginOperation("bulk-edit", "long ago", Json::object(), "a",
                                                                   "2020-01-01T00:00:00Z");
            transaction.commit();
        }
        QCOMPARE(count(f, "SELECT count(*) FROM edit_operations WHERE summary = 'long ago'"), std::int64_t(1));
        editor.apply({{a}, {}}, FieldEdit{"$.nameOfInstitution", Json("Four")});
        QCOMPARE(count(f, "SELECT count(*) FROM edit_operations WHERE summary = 'long ago'"), std::int64_t(0));
        QVERIFY(editor.journal().operation(two.opId)); // recent: kept, now that the count has no limit

        // The days are the engine's clock's, so a simulation running a calendar of its own (the school
        // year's bench) sees them pass: an operation made 40 days back on that clock goes when one is
        // made today.
        std::int64_t earlyOp = 0;
        {
            ShiftedClock back(-40);
            earlyOp = editor.apply({{a}, {}}, FieldEdit{"$.nameOfInstitution", Json("Five")}).opId;
        }
        const std::optional<EditOperation> early = editor.journal().operation(earlyOp);
        QVERIFY(early);
        const QDateTime madeAt = QDateTime::fromString(QString::fromStdString(early->createdAt), Qt::ISODate);
        QVERIFY2(qAbs(madeAt.daysTo(QDateTime::currentDateTimeUtc()) - 40) <= 1, early->createdAt.c_str());
        QVERIFY(editor.journal().operation(two.opId)); // made today: not older than 30 days on any clock
        editor.apply({{a}, {}}, FieldEdit{"$.nameOfInstitution", Json("Six")});
        QVERIFY(!editor.journal().operation(earlyOp));
        QVERIFY(editor.journal().operation(two.opId));
    }

    // A database written before history was compact (version 29: the journal's texts and every
    // rewritten version kept whole, no incremental vacuum) is converted when opened: the same texts
    // read back, undo works, and free pages are given back from then on.
    void aVersion29DatabaseIsConverted()
    {
        Fixture f;
        f.seedDescriptors();
        std::vector<std::string> ids;
        std::vector<std::string> originals;
        for (int i = 1; i <= 5; ++i) {
            ids.push_back(f.create("/ed-fi/schools", Fixture::school(200 + i, "Converted school " + std::to_string(i))));
            originals.push_back(storedBody(f, ids.back()));
        }
        const std::int64_t opId =
            BulkEditor(f.engine(), f.database())
                .apply({ids, {}}, FieldEdit{"$.shortNameOfInstitution", Json("Before the upgrade")})
                .opId;
        const std::string path = f.databasePath();
        {
            // Back to version 29's forms.
            SQLite::Database db(path, SQLite::OPEN_READWRITE);
            Database::registerFunctions(db);
            db.exec("CREATE TEMP TABLE whole AS SELECT seq, steward_version_text(body, seq, id) AS text "
                    "FROM change_rows WHERE body IS NOT NULL;"
                    "UPDATE change_rows SET body = (SELECT text FROM temp.whole w WHERE w.seq = change_rows.seq) "
                    "WHERE body IS NOT NULL;");
            SQLite::Statement whole(db, "UPDATE edit_items SET before_text = ?, after_text = ? WHERE op_id = ? "
                                        "AND item = ?");
            for (const EditItem &item : EditJournal(db).items(opId)) {
                whole.bind(1, item.beforeText);
                whole.bind(2, item.afterText);
                whole.bind(3, opId);
                whole.bind(4, item.item);
                whole.exec();
                whole.reset();
            }
            db.exec("PRAGMA user_version=29; PRAGMA auto_vacuum=NONE; VACUUM;");
            QCOMPARE(db.execAndGet("PRAGMA auto_vacuum").getInt(), 0);
            QCOMPARE(db.execAndGet("SELECT count(*) FROM change_rows WHERE typeof(body) = 'blob'").getInt(), 0);
            QCOMPARE(db.execAndGet("SELECT count(*) FROM edit_items WHERE typeof(before_text) = 'blob'").getInt(), 0);
        }
        std::unique_ptr<Database> upgraded = Database::open(path);
        SQLite::Database &db = upgraded->connection();
        QCOMPARE(db.execAndGet("PRAGMA user_version").getInt(), Database::schemaVersion());
        QCOMPARE(db.execAndGet("PRAGMA auto_vacuum").getInt(), 2);
        QCOMPARE(db.execAndGet("SELECT count(*) FROM change_rows WHERE hex(substr(body, 1, 4)) = '28B52FFD'").getInt(),
                 5);
        QCOMPARE(db.execAndGet("SELECT count(*) FROM edit_items WHERE hex(substr(before_text, 1, 4)) = '28B52FFD'")
                     .getInt(),
                 5);
        Engine engine(f.model(), *upgraded);
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const std::vector<HistoryEntry> history = engine.history(ids[i]);
            QCOMPARE(history.size(), std::size_t(2));
            QCOMPARE(dumpJson(*history[1].body), dumpJson(Json::parse(originals[i])));
        }
        BulkEditor editor(engine, *upgraded);
        QCOMPARE(editor.undo(opId).documentsRestored, 5);
        for (std::size_t i = 0; i < ids.size(); ++i)
            QCOMPARE(engine.document(ids[i])->body, originals[i]);
    }

    // Under a steady load of fixes the file grows by what history keeps (the deltas), not by the
    // undo it lets go: forty rounds of a fix of every school, the newest five kept for undo, free
    // pages given back between rounds as an idle app does.
    void theFileStopsGrowingUnderSteadyFixes()
    {
        Fixture f;
        f.seedDescriptors();
        std::vector<std::string> ids;
        for (int i = 1; i <= 100; ++i)
            ids.push_back(f.create("/ed-fi/schools", Fixture::school(3000 + i, "Steady school " + std::to_string(i))));
        SQLite::Database &db = f.database().connection();
        {
            UndoRetention keep;
            keep.operations = 5;
            ImmediateTransaction transaction(db);
            keep.write(db);
            transaction.commit();
        }
        auto fileBytes = [&db] {
            return db.execAndGet("PRAGMA page_count").getInt64() * db.execAndGet("PRAGMA page_size").getInt64();
        };
        BulkEditor editor(f.engine(), f.database());
        std::int64_t afterTen = 0;
        for (int round = 1; round <= 40; ++round) {
            editor.apply({ids, {}}, FieldEdit{"$.shortNameOfInstitution", Json("Round " + std::to_string(round))});
            f.database().giveBackFreePages(100000);
            if (round == 10)
                afterTen = fileBytes();
        }
        QCOMPARE(db.execAndGet("SELECT count(*) FROM edit_operations").getInt(), 5);
        // Before, each changed document cost the file about 4,500 bytes a fix (its texts before and
        // after, and its old version, whole); history's delta is tens of bytes.
        const double perDocumentAndRound = static_cast<double>(fileBytes() - afterTen) / (30.0 * 100.0);
        QVERIFY2(perDocumentAndRound < 300,
                 qPrintable(QStringLiteral("%1 bytes a document and round").arg(perDocumentAndRound)));
        QCOMPARE(f.engine().history(ids.front()).size(), std::size_t(41));
        QCOMPARE(checkProblems(f), std::string());
    }

    // What forgotten undo and deleted documents free is given back to the file system: the file
    // stops growing when the work does.
    void freedPagesAreGivenBack()
    {
        Fixture f;
        f.seedDescriptors();
        QCOMPARE(f.database().connection().execAndGet("PRAGMA auto_vacuum").getInt(), 2); // incremental
        // Text zstd cannot shrink much: every school's name and web site differ throughout.
        auto scrambled = [](int seed, std::size_t length) {
            std::string text;
            std::uint32_t state = static_cast<std::uint32_t>(seed) * 2654435761u + 1;
            while (text.size() < length) {
                state = state * 1664525u + 1013904223u;
                text += "abcdefghijklmnopqrstuvwxyz0123456789"[(state >> 16) % 36];
            }
            return text;
        };
        std::vector<std::string> ids;
        for (int i = 1; i <= 400; ++i) {
            Json school = Fixture::school(1000 + i, "School " + scrambled(i, 60));
            school["webSite"] = "https://example.org/" + scrambled(-i, 200);
            ids.push_back(f.create("/ed-fi/schools", school));
        }
        BulkEditor editor(f.engine(), f.database());
        for (int round = 1; round <= 3; ++round)
            for (std::size_t i = 0; i < ids.size(); i += 100)
                editor.apply({std::vector<std::string>(ids.begin() + static_cast<std::ptrdiff_t>(i),
                                                       ids.begin() + static_cast<std::ptrdiff_t>(i + 100)),
                              {}},
                             FieldEdit{"$.webSite", Json("https://example.org/" + scrambled(round * 1000 + static_cast<int>(i), 200))});
        SQLite::Database &db = f.database().connection();
        {
            UndoRetention keep;
            keep.operations = 1;
            ImmediateTransaction transaction(db);
            keep.write(db);
            EditJournal(db).forgetBeyond(keep, "2030-01-01T00:00:00Z");
            transaction.commit();
        }
        const int pagesBefore = db.execAndGet("PRAGMA page_count").getInt();
        const int freeBefore = db.execAndGet("PRAGMA freelist_count").getInt();
        QVERIFY2(freeBefore > 0, "forgetting an operation freed no page");
        const int givenBack = f.database().giveBackFreePages(100000);
        QCOMPARE(givenBack, freeBefore);
        QCOMPARE(db.execAndGet("PRAGMA freelist_count").getInt(), 0);
        QCOMPARE(db.execAndGet("PRAGMA page_count").getInt(), pagesBefore - freeBefore);
        QCOMPARE(f.database().giveBackFreePages(), 0); // nothing left to give
        QCOMPARE(checkProblems(f), std::string());
    }

    // Idle-time upkeep: the text indexes merged once a day, a VACUUM considered once in 30 days (on
    // the engine's clock) and done only above the unused share; everything reads back the same.
    void tidyingUpMergesTheTextIndexesAndVacuumsWhenDue()
    {
        Fixture f;
        f.seedDescriptors();
        std::vector<std::string> ids;
        for (int i = 1; i <= 300; ++i)
            ids.push_back(f.create("/ed-fi/schools", Fixture::school(5000 + i, "Tidy school " + std::to_string(i))));
        BulkEditor editor(f.engine(), f.database());
        // Names that grow, a few schools at a time: rows outgrow their pages, which split half full.
        auto grown = [](int round, std::size_t at) {
            std::string name;
            for (int k = 0; k < round * 9; ++k)
                name += "abcdefghijklmnopqrstuvwxyz"[(at * 31 + static_cast<std::size_t>(k) * 7 + static_cast<std::size_t>(round)) % 26];
            return name;
        };
        for (int round = 1; round <= 6; ++round)
            for (std::size_t i = 0; i < ids.size(); i += 50)
                editor.apply({std::vector<std::string>(ids.begin() + static_cast<std::ptrdiff_t>(i),
                                                       ids.begin() + static_cast<std::ptrdiff_t>(i + 50)),
                              {}},
                             FieldEdit{"$.shortNameOfInstitution", Json(grown(round, i))});
        std::vector<std::string> bodies;
        for (const std::string &id : ids)
            bodies.push_back(storedBody(f, id));
        SQLite::Database &db = f.database().connection();
        const std::int64_t segmentRowsBefore = db.execAndGet("SELECT count(*) FROM query_index_data").getInt64();

        TidyPolicy policy;
        policy.vacuumAboveUnused = 0.05;
        const TidyReport first = tidyUp(f.database(), policy);
        QVERIFY(!first.busy);
        QVERIFY(first.mergedTextIndexes);
        QVERIFY2(db.execAndGet("SELECT count(*) FROM query_index_data").getInt64() < segmentRowsBefore,
                 "merging left the query index's segments as they were");
        QVERIFY(first.measured);
        QVERIFY2(first.unusedShare > 0.05, qPrintable(QString::number(first.unusedShare)));
        QVERIFY(first.vacuumed);
        QVERIFY(first.fileBytesAfter < first.fileBytesBefore);
        QCOMPARE(db.execAndGet("PRAGMA auto_vacuum").getInt(), 2); // still incremental

        // Nothing is due again the same day.
        const TidyReport again = tidyUp(f.database(), policy);
        QVERIFY(!again.mergedTextIndexes && !again.measured && !again.vacuumed);
        {
            ShiftedClock ahead(2);
            const TidyReport nextDay = tidyUp(f.database(), policy);
            QVERIFY(nextDay.mergedTextIndexes && !nextDay.measured);
        }
        {
            ShiftedClock ahead(31);
            const TidyReport nextMonth = tidyUp(f.database(), policy);
            QVERIFY(nextMonth.measured);
            QVERIFY2(nextMonth.unusedShare < first.unusedShare,
                     qPrintable(QStringLiteral("%1 unused after the VACUUM, %2 before").arg(nextMonth.unusedShare)
                                    .arg(first.unusedShare)));
        }
        for (std::size_t i = 0; i < ids.size(); ++i)
            QCOMPARE(storedBody(f, ids[i]), bodies[i]);
        const Response found = f.call("GET", "/ed-fi/schools?schoolId=5007");
        QCOMPARE(found.body.size(), std::size_t(1));
        const IndexScanComparison compared = compareIndexWithScan(f);
        QVERIFY(compared.queries > 0);
        QVERIFY2(compared.differences.empty(),
                 compared.differences.empty() ? "" : compared.differences.front().c_str());
        QCOMPARE(checkProblems(f), std::string());
    }
};

QTEST_GUILESS_MAIN(TestBulkEdit)
#include "tst_bulkedit.moc"
