// Sync bookkeeping without a network: push plans (order, folding, what is left out), the cursor
// rule, natural-key queries, remote ids, failures, the change feed, and the three-way merge of
// documents that sync does when both sides changed one.
#include "FlowControl.h"
#include "JsonMerge.h"
#include "PushScheduler.h"
#include "PullSession.h"
#include "PushSession.h"
#include "Sync.h"
#include "TestSupport.h"

#include <QTest>

#include <algorithm>
#include <functional>
#include <future>
#include <set>

#include <SQLiteCpp/Database.h>

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

Json address(const std::string &type, const std::string &street, const std::string &city)
{
    return Json{{"addressTypeDescriptor", "uri://ed-fi.org/AddressTypeDescriptor#" + type},
                {"streetNumberName", street},
                {"city", city},
                {"stateAbbreviationDescriptor", "uri://ed-fi.org/StateAbbreviationDescriptor#TX"},
                {"postalCode", "78701"}};
}

std::vector<std::string> conflictPaths(const MergeResult &result)
{
    std::vector<std::string> out;
    for (const MergeConflict &conflict : result.conflicts)
        out.push_back(conflict.path);
    return out;
}

std::int64_t lastSeq(Fixture &f)
{
    return f.database().connection().execAndGet("SELECT max(seq) FROM changes").getInt64();
}

RemoteResponse answer(int status, const Json &body = nullptr,
                      std::vector<std::pair<std::string, std::string>> headers = {})
{
    RemoteResponse response;
    response.status = status;
    if (!body.is_null())
        response.body = QByteArray::fromStdString(body.dump());
    response.headers = std::move(headers);
    response.request = "a scripted request";
    return response;
}

using Script = std::function<RemoteResponse(const RemoteRequest &)>;

// Runs a push session with a script for the target: every document that may go is started at once, and
// the request sent last is answered first (answers out of order, as many requests in flight give them).
PushReport drive(PushSession &session, const Script &script, std::vector<RemoteRequest> *seen = nullptr,
                 std::size_t *mostAtOnce = nullptr)
{
    std::vector<std::pair<std::size_t, RemoteRequest>> inFlight;
    for (;;) {
        while (std::optional<PushSession::Step> step = session.next())
            inFlight.emplace_back(step->item, step->request);
        if (mostAtOnce != nullptr)
            *mostAtOnce = std::max(*mostAtOnce, inFlight.size());
        if (inFlight.empty())
            break;
        const auto [item, request] = inFlight.back();
        inFlight.pop_back();
        if (seen != nullptr)
            seen->push_back(request);
        if (std::optional<RemoteRequest> following = session.take(item, script(request)))
            inFlight.emplace_back(item, *following);
    }
    return session.finish();
}

// A target that creates whatever is posted: 201, a Location with a new id, etag "1".
RemoteResponse created(const RemoteRequest &request, int &counter)
{
    const std::string id = "ffff" + std::to_string(++counter);
    return answer(201, nullptr, {{"location", "http://target" + request.path + "/" + id}, {"etag", "\"1\""}});
}

} // namespace

class TestSync : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Three-way merge: what one side changed merges, different changes to one value conflict.
    void mergeTakesEachSidesOwnChanges()
    {
        const Json base{{"studentUniqueId", "S1"}, {"firstName", "Ann"}, {"lastSurname", "Lee"}, {"middleName", "Q"}};
        Json mine = base;
        mine["lastSurname"] = "Leigh";
        mine.erase("middleName");
        Json theirs = base;
        theirs["firstName"] = "Anne";
        theirs["birthCity"] = "Austin";
        const MergeResult result = DocumentMerger(nullptr).merge(&base, mine, theirs);
        QVERIFY(result.clean());
        JSON_COMPARE(result.merged, (Json{{"studentUniqueId", "S1"}, {"firstName", "Anne"}, {"lastSurname", "Leigh"},
                                          {"birthCity", "Austin"}}));

        // The same change on both sides is no conflict.
        Json both = base;
        both["firstName"] = "Anne";
        QVERIFY(DocumentMerger(nullptr).merge(&base, both, theirs).clean());
    }

    void mergeKeepsMineWhereBothChangedOneValue()
    {
        const Json base{{"studentUniqueId", "S1"}, {"middleName", "Q"}, {"birthCity", "Austin"}};
        Json mine = base;
        mine["middleName"] = "Y";
        mine.erase("birthCity");
        Json theirs = base;
        theirs["middleName"] = "X";
        theirs["birthCity"] = "Dallas";
        const MergeResult result = DocumentMerger(nullptr).merge(&base, mine, theirs);
        QCOMPARE(conflictPaths(result), (std::vector<std::string>{"$.middleName", "$.birthCity"}));
        const MergeConflict &middle = result.conflicts[0];
        JSON_COMPARE(*middle.base, "Q");
        JSON_COMPARE(*middle.mine, "Y");
        JSON_COMPARE(*middle.theirs, "X");
        // Removed here, changed there: a conflict too, with mine absent.
        QVERIFY(!result.conflicts[1].mine.has_value());
        JSON_COMPARE(*result.conflicts[1].theirs, "Dallas");
        // Undecided, mine stands.
        JSON_COMPARE(result.merged, (Json{{"studentUniqueId", "S1"}, {"middleName", "Y"}}));

        // Decided per path, or all one way.
        const std::map<std::string, MergeChoice> choices{{"$.middleName", MergeChoice::theirs()},
                                                         {"$.birthCity", {MergeChoice::Kind::Value, "Houston"}}};
        const MergeResult decided = DocumentMerger(nullptr).merge(&base, mine, theirs, choices);
        QVERIFY(decided.clean());
        JSON_COMPARE(decided.merged, (Json{{"studentUniqueId", "S1"}, {"middleName", "X"}, {"birthCity", "Houston"}}));
        const MergeResult allTheirs = DocumentMerger(nullptr).merge(&base, mine, theirs, {}, MergeChoice::theirs());
        QVERIFY(allTheirs.clean());
        JSON_COMPARE(allTheirs.merged, theirs);
    }

    void mergeWithoutABaseConflictsOnlyWhereTheSidesDiffer()
    {
        const Json mine{{"schoolId", 1}, {"nameOfInstitution", "North"}, {"shortNameOfInstitution", "N"}};
        const Json theirs{{"schoolId", 1}, {"nameOfInstitution", "North High"}, {"webSite", "http://n.example"}};
        const MergeResult result = DocumentMerger(nullptr).merge(nullptr, mine, theirs);
        QCOMPARE(conflictPaths(result), (std::vector<std::string>{"$.nameOfInstitution"}));
        QVERIFY(!result.conflicts[0].base.has_value());
        // What only one side holds is kept: nothing is dropped for lack of a base.
        QCOMPARE(result.merged["shortNameOfInstitution"].get<std::string>(), std::string("N"));
        QCOMPARE(result.merged["webSite"].get<std::string>(), std::string("http://n.example"));
    }

    void mergePairsCollectionItemsByTheirKeyNotTheirPlace()
    {
        Fixture f;
        const ResourceSchema *school = f.model().findByEndpoint("ed-fi", "schools");
        const DocumentMerger merger(school);
        // The School's address items are identified as ODS/API's EducationOrganizationAddress rows are; a
        // grade level is its descriptor.
        QCOMPARE(merger.itemKeyFields("$.addresses[*]"),
                 (std::vector<std::string>{"addressTypeDescriptor", "city", "postalCode",
                                           "stateAbbreviationDescriptor", "streetNumberName"}));
        QCOMPARE(merger.itemKey("$.addresses[*]").stable, (std::vector<std::string>{"addressTypeDescriptor"}));
        QCOMPARE(merger.itemKey("$.addresses[*]").source, ItemKey::Source::EdFiTable);
        QCOMPARE(merger.itemKeyFields("$.gradeLevels[*]"), (std::vector<std::string>{"gradeLevelDescriptor"}));
        QCOMPARE(merger.itemKey("$.gradeLevels[*]").source, ItemKey::Source::SingleMember);
        QVERIFY(merger.itemKey("$.gradeLevels[*]").stable.empty());

        Json base = Fixture::school(1);
        base["addresses"] = Json::array({address("Physical", "1 Main St", "Austin"), address("Mailing", "PO Box 9", "Austin")});
        // Mine inserts a grade level before the existing one; theirs changes the second address.
        Json mine = base;
        mine["gradeLevels"].insert(mine["gradeLevels"].begin(),
                                   Json{{"gradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Tenth grade"}});
        Json theirs = base;
        theirs["addresses"][1]["city"] = "Round Rock";
        MergeResult result = merger.merge(&base, mine, theirs);
        QVERIFY2(result.clean(), result.clean() ? "" : result.conflicts[0].toJson().dump().c_str());
        QCOMPARE(result.merged["gradeLevels"].size(), std::size_t(2));
        QCOMPARE(result.merged["addresses"][1]["city"].get<std::string>(), std::string("Round Rock"));

        // Items in another order on one side: still the same items, nothing changed.
        Json reordered = base;
        std::swap(reordered["addresses"][0], reordered["addresses"][1]);
        result = merger.merge(&base, reordered, theirs);
        QVERIFY(result.clean());
        QCOMPARE(result.merged["addresses"][0]["city"].get<std::string>(), std::string("Round Rock"));

        // A part of the key corrected on one side (the street), another field edited on the other: the
        // address's type names one item in the base and in each side, so they are one item and merge.
        Json edited = base;
        edited["addresses"][0]["streetNumberName"] = "3 Main St";
        Json county = base;
        county["addresses"][0]["nameOfCounty"] = "Travis";
        result = merger.merge(&base, edited, county);
        QVERIFY2(result.clean(), result.clean() ? "" : result.conflicts[0].toJson().dump().c_str());
        QCOMPARE(result.merged["addresses"].size(), std::size_t(2));
        QCOMPARE(result.merged["addresses"][0]["streetNumberName"].get<std::string>(), std::string("3 Main St"));
        QCOMPARE(result.merged["addresses"][0]["nameOfCounty"].get<std::string>(), std::string("Travis"));

        // The same field of one item changed both ways: one conflict at that item's field.
        Json other = base;
        other["addresses"][0]["streetNumberName"] = "5 Main St";
        result = merger.merge(&base, edited, other);
        QCOMPARE(conflictPaths(result), (std::vector<std::string>{"$.addresses[0].streetNumberName"}));
        QVERIFY(!result.conflicts[0].item);

        // Removed here, edited there: a conflict over the whole item; mine (removed) stands.
        Json removed = base;
        removed["addresses"].erase(0);
        result = merger.merge(&base, removed, edited);
        QCOMPARE(conflictPaths(result), (std::vector<std::string>{"$.addresses[1]"}));
        QVERIFY(result.conflicts[0].item);
        QVERIFY(!result.conflicts[0].mine.has_value());
        QCOMPARE(result.merged["addresses"].size(), std::size_t(1));
        // Removed here, untouched there: removed.
        result = merger.merge(&base, removed, theirs);
        QVERIFY(result.clean());
        QCOMPARE(result.merged["addresses"].size(), std::size_t(1));
        QCOMPARE(result.merged["addresses"][0]["city"].get<std::string>(), std::string("Round Rock"));

        // The same item added on both sides is one item; added with different values, a conflict.
        Json addedHere = base;
        addedHere["addresses"].push_back(address("Temporary", "7 Elm St", "Austin"));
        Json addedThere = base;
        addedThere["addresses"].push_back(address("Temporary", "7 Elm St", "Austin"));
        result = merger.merge(&base, addedHere, addedThere);
        QVERIFY(result.clean());
        QCOMPARE(result.merged["addresses"].size(), std::size_t(3));
        addedThere["addresses"][2]["streetNumberName"] = "9 Elm St";
        result = merger.merge(&base, addedHere, addedThere);
        QCOMPARE(conflictPaths(result), (std::vector<std::string>{"$.addresses[2].streetNumberName"}));
        QVERIFY(!result.conflicts[0].base.has_value());
    }

    // The merge never guesses: an item is the same item only by its key (or its key's stable part).
    void aReplacedItemIsNeverMergedWithAnEditOfTheOneItReplaced()
    {
        Fixture f;
        const DocumentMerger merger(f.model().findByEndpoint("ed-fi", "schools"));
        Json base = Fixture::school(1);
        base["addresses"] = Json::array({address("Physical", "1 Main St", "Austin")});

        // A replaces the Physical address by a Mailing one in the same town; B moves the Physical
        // address to another city. B's city never lands on A's Mailing address: one item conflict,
        // the base's Physical address, A's Mailing and B's Physical side by side.
        Json mine = base;
        mine["addresses"] = Json::array({address("Mailing", "PO Box 4410", "Austin")});
        Json theirs = base;
        theirs["addresses"][0]["city"] = "Lakeside";
        MergeResult result = merger.merge(&base, mine, theirs);
        QCOMPARE(conflictPaths(result), (std::vector<std::string>{"$.addresses[0]"}));
        const MergeConflict &replaced = result.conflicts[0];
        QVERIFY(replaced.item);
        JSON_COMPARE(*replaced.base, base["addresses"][0]);
        JSON_COMPARE(*replaced.mine, mine["addresses"][0]);
        JSON_COMPARE(*replaced.theirs, theirs["addresses"][0]);
        QCOMPARE(replaced.differingFields(),
                 (std::vector<std::string>{"addressTypeDescriptor", "city", "streetNumberName"}));
        // Decided: mine, theirs, or both items kept as typed.
        const std::string path = replaced.path;
        result = merger.merge(&base, mine, theirs, {{path, MergeChoice::mine()}});
        QVERIFY(result.clean());
        JSON_COMPARE(result.merged["addresses"], mine["addresses"]);
        result = merger.merge(&base, mine, theirs, {{path, MergeChoice::theirs()}});
        QVERIFY(result.clean());
        JSON_COMPARE(result.merged["addresses"], theirs["addresses"]);
        result = merger.merge(&base, mine, theirs, {{path, MergeChoice::both()}});
        QVERIFY(result.clean());
        JSON_COMPARE(result.merged["addresses"], (Json::array({mine["addresses"][0], theirs["addresses"][0]})));
        // The same the other way round.
        result = merger.merge(&base, theirs, mine);
        QCOMPARE(conflictPaths(result), (std::vector<std::string>{"$.addresses[0]"}));
        JSON_COMPARE(*result.conflicts[0].theirs, mine["addresses"][0]);

        // A key field edited in place: A turns the Home address into a Temporary one, B corrects the
        // Home postal code. No Temporary address with B's postal code, no Home address lost: a conflict.
        Json home = base;
        home["addresses"] = Json::array({address("Home", "4 Oak St", "Austin")});
        Json temporary = home;
        temporary["addresses"][0]["addressTypeDescriptor"] = "uri://ed-fi.org/AddressTypeDescriptor#Temporary";
        Json postal = home;
        postal["addresses"][0]["postalCode"] = "78702";
        result = merger.merge(&home, temporary, postal);
        QCOMPARE(conflictPaths(result), (std::vector<std::string>{"$.addresses[0]"}));
        JSON_COMPARE(*result.conflicts[0].mine, temporary["addresses"][0]);
        JSON_COMPARE(*result.conflicts[0].theirs, postal["addresses"][0]);
        QCOMPARE(result.conflicts[0].differingFields(),
                 (std::vector<std::string>{"addressTypeDescriptor", "postalCode"}));

        // Both sides replace the same item by different ones: a conflict, decided whole.
        Json mailing = base;
        mailing["addresses"] = Json::array({address("Mailing", "PO Box 1", "Austin")});
        Json shipping = base;
        shipping["addresses"] = Json::array({address("Shipping", "9 Dock Rd", "Austin")});
        result = merger.merge(&base, mailing, shipping);
        QCOMPARE(conflictPaths(result), (std::vector<std::string>{"$.addresses[0]"}));
        JSON_COMPARE(*result.conflicts[0].base, base["addresses"][0]);
        JSON_COMPARE(*result.conflicts[0].mine, mailing["addresses"][0]);
        JSON_COMPARE(*result.conflicts[0].theirs, shipping["addresses"][0]);
        // Replaced by the same one on both sides: no conflict.
        QVERIFY(merger.merge(&base, mailing, mailing).clean());

        // One side replaces an item, the other leaves it alone: the replacement stands, no conflict.
        result = merger.merge(&base, mine, base);
        QVERIFY(result.clean());
        JSON_COMPARE(result.merged, mine);

        // A city corrected here (part of the key) and the county edited there: one item, merged.
        Json city = base;
        city["addresses"][0]["city"] = "Lakeside";
        Json county = base;
        county["addresses"][0]["nameOfCounty"] = "Travis";
        result = merger.merge(&base, city, county);
        QVERIFY(result.clean());
        QCOMPARE(result.merged["addresses"].size(), std::size_t(1));
        QCOMPARE(result.merged["addresses"][0]["city"].get<std::string>(), std::string("Lakeside"));
        QCOMPARE(result.merged["addresses"][0]["nameOfCounty"].get<std::string>(), std::string("Travis"));

        // The stable part must name one item: with two Physical addresses in the base, a corrected
        // city is another item, and an edit of the old one there is a conflict, not a guess.
        Json two = base;
        two["addresses"].push_back(address("Physical", "2 Side St", "Austin"));
        Json twoCity = two;
        twoCity["addresses"][0]["city"] = "Lakeside";
        Json twoCounty = two;
        twoCounty["addresses"][0]["nameOfCounty"] = "Travis";
        result = merger.merge(&two, twoCity, twoCounty);
        QCOMPARE(result.conflicts.size(), std::size_t(1));
        QVERIFY(result.conflicts[0].item);

        // A grade level replaced by another on one side while the other side left it: replaced.
        Json tenth = base;
        tenth["gradeLevels"] = Json::array({{{"gradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Tenth grade"}}});
        result = merger.merge(&base, tenth, base);
        QVERIFY(result.clean());
        JSON_COMPARE(result.merged["gradeLevels"], tenth["gradeLevels"]);

        // The old pairing, kept for mutation checks, carries B's city onto A's Mailing address.
        const DocumentMerger guessing(f.model().findByEndpoint("ed-fi", "schools"),
                                      DocumentMerger::Pairing::ByResemblance);
        result = guessing.merge(&base, mine, theirs);
        QVERIFY(result.clean());
        QCOMPARE(result.merged["addresses"][0]["city"].get<std::string>(), std::string("Lakeside"));
    }

    // Keys of the data standard's collections (where the file gives none, Steward's table of them).
    void itemKeysOfTheDataStandard()
    {
        const QString shared = sharedEdfiDir();
        if (shared.isEmpty())
            QSKIP("../shared/edfi is not here (a fresh clone): the DS 5.1 keys are not checked");
        const std::unique_ptr<Model> model = Model::loadFiles({(shared + "/ds-5.1/ApiSchema.json").toStdString()});
        auto keyOf = [&model](const char *resource, const char *path) {
            return itemKeyOf(model->findByEndpoint("ed-fi", resource), path);
        };
        const ItemKey seoa = keyOf("studentEducationOrganizationAssociations", "$.addresses[*]");
        QCOMPARE(seoa.fields, (std::vector<std::string>{"addressTypeDescriptor", "city", "postalCode",
                                                         "stateAbbreviationDescriptor", "streetNumberName"}));
        QCOMPARE(seoa.stable, (std::vector<std::string>{"addressTypeDescriptor"}));
        QCOMPARE(keyOf("studentEducationOrganizationAssociations", "$.addresses[*].periods[*]").fields,
                 (std::vector<std::string>{"beginDate"}));
        QCOMPARE(keyOf("studentEducationOrganizationAssociations", "$.studentIdentificationCodes[*]").fields,
                 (std::vector<std::string>{"assigningOrganizationIdentificationCode",
                                           "studentIdentificationSystemDescriptor"}));
        QCOMPARE(keyOf("studentEducationOrganizationAssociations", "$.telephones[*]").stable,
                 (std::vector<std::string>{"telephoneNumberTypeDescriptor"}));
        QCOMPARE(keyOf("schools", "$.identificationCodes[*]").fields,
                 (std::vector<std::string>{"educationOrganizationIdentificationSystemDescriptor"}));
        QCOMPARE(keyOf("staffs", "$.identificationCodes[*]").fields,
                 (std::vector<std::string>{"staffIdentificationSystemDescriptor"}));
        QCOMPARE(keyOf("studentEducationOrganizationAssociations", "$.cohortYears[*]").fields,
                 (std::vector<std::string>{"cohortYearTypeDescriptor", "schoolYearTypeReference"}));
        QCOMPARE(keyOf("sections", "$.classPeriods[*]").fields, (std::vector<std::string>{"classPeriodReference"}));
        // Every collection of DS 5.1 has a key from the table or is one descriptor or reference.
        int collections = 0;
        std::vector<std::string> unkeyed;
        for (const ResourceSchema *resource : model->resources()) {
            std::function<void(const Json &, const std::string &)> walk = [&](const Json &schema,
                                                                               const std::string &path) {
                if (!schema.is_object() || !schema.contains("properties"))
                    return;
                for (auto it = schema["properties"].begin(); it != schema["properties"].end(); ++it) {
                    if (it.value().value("type", std::string()) != "array")
                        continue;
                    const std::string itemPath = path + "." + it.key() + "[*]";
                    ++collections;
                    if (itemKeyOf(resource, itemPath).source == ItemKey::Source::RequiredFields)
                        unkeyed.push_back(resource->resourceName + " " + itemPath);
                    walk(it.value()["items"], itemPath);
                }
            };
            walk(resource->jsonSchema, "$");
        }
        QVERIFY(collections > 300);
        QVERIFY2(unkeyed.empty(), unkeyed.empty() ? "" : unkeyed.front().c_str());
    }

    void mergeFollowsArrayUniquenessConstraintsWhereTheSchemaGivesThem()
    {
        ResourceSchema resource;
        resource.arrayUniquenessConstraints = {{JsonPath("$.periods[*].beginDate")}};
        const DocumentMerger merger(&resource);
        QCOMPARE(merger.itemKeyFields("$.periods[*]"), (std::vector<std::string>{"beginDate"}));
        const Json base{{"periods", Json::array({{{"beginDate", "2024-01-01"}, {"endDate", "2024-02-01"}},
                                                  {{"beginDate", "2024-03-01"}, {"endDate", "2024-04-01"}}})}};
        Json mine = base;
        mine["periods"][1]["endDate"] = "2024-05-01";
        Json theirs = base;
        theirs["periods"].erase(0);
        const MergeResult result = merger.merge(&base, mine, theirs);
        QVERIFY(result.clean());
        JSON_COMPARE(result.merged, (Json{{"periods", Json::array({{{"beginDate", "2024-03-01"}, {"endDate", "2024-05-01"}}})}}));
    }

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

    // check verifies every merge base and conflict: a base is a body of that document the log still
    // holds (or JSON of its own), and a conflict keeps the target's copy it is about.
    void checkFindsABrokenBaseOrConflict()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string school = f.create("/ed-fi/schools", Fixture::school(100));
        const std::string other = f.create("/ed-fi/schools", Fixture::school(200, "Other"));
        SQLite::Database &db = f.database().connection();
        SyncState state(db);
        const SyncTarget target = state.ensureTarget(kTarget, "district");
        const std::int64_t schoolSeq = f.engine().document(school)->changeSeq;
        state.setBase(target.targetId, school, SyncBase{"r1", "1", schoolSeq, std::nullopt});
        SyncConflict conflict;
        conflict.targetId = target.targetId;
        conflict.id = school;
        conflict.project = "Ed-Fi";
        conflict.resource = "School";
        conflict.base = SyncBase{"r1", "1", schoolSeq, std::nullopt};
        conflict.theirsText = dumpJson(Fixture::school(100, "Theirs"));
        conflict.theirsEtag = "2";
        conflict.reason = "changed on both sides: $.nameOfInstitution";
        state.recordConflict(conflict);
        QCOMPARE(checkProblems(f), std::string());

        // A base pointing at another document's entry, a text that is not JSON, a conflict without
        // the target's copy, a resolution the journal does not have.
        db.exec("UPDATE sync_remote_ids SET base_seq = " + std::to_string(f.engine().document(other)->changeSeq));
        QVERIFY2(checkProblems(f).find("of another document") != std::string::npos, checkProblems(f).c_str());
        db.exec("UPDATE sync_remote_ids SET base_seq = NULL, base_text = '{not json'");
        QVERIFY2(checkProblems(f).find("is not JSON") != std::string::npos, checkProblems(f).c_str());
        db.exec("UPDATE sync_remote_ids SET base_text = NULL, base_seq = " + std::to_string(schoolSeq));
        db.exec("UPDATE sync_conflicts SET theirs_text = NULL");
        QVERIFY2(checkProblems(f).find("has lost the target's copy") != std::string::npos, checkProblems(f).c_str());
        db.exec("UPDATE sync_conflicts SET theirs_text = '{}', resolved_op = 999");
        QVERIFY2(checkProblems(f).find("the journal does not have") != std::string::npos, checkProblems(f).c_str());
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

    // Many documents in flight, answered in any order: a document starts only once every document of
    // the plan it references is accepted; one whose reference was not accepted is not sent at all; a
    // resource's deletes wait for the deletes of what may reference it.
    void theSchedulerKeepsTheOrderWithManyInFlight()
    {
        Fixture f;
        f.seedDescriptors();
        f.create("/ed-fi/schoolYearTypes", Fixture::schoolYear(2022));
        for (int school = 100; school < 104; ++school) {
            f.create("/ed-fi/schools", Fixture::school(school));
            f.create("/ed-fi/courses", Fixture::course("ALG-" + std::to_string(school), school));
            f.create("/ed-fi/sessions", Fixture::session(school, 2022, "Fall"));
        }
        const PushPlan plan = planPush(f.database().connection(), f.model(), 0, kTarget);
        const std::vector<std::vector<std::size_t>> references = referencedPlanItems(f.database().connection(), plan);
        PushScheduler scheduler(plan, LoadOrder(f.model()), references);
        std::vector<bool> finished(plan.items.size(), false);
        std::vector<std::size_t> running;
        std::size_t mostAtOnce = 0;
        int checkedReferences = 0;
        while (!scheduler.allFinished()) {
            while (std::optional<std::size_t> next = scheduler.next()) {
                // What it references (read from the engine, not from the scheduler's own list) is finished.
                for (const OutgoingReference &reference : f.engine().outgoingReferences(plan.items[*next].id))
                    for (std::size_t i = 0; i < plan.items.size(); ++i)
                        if (plan.items[i].id == reference.targetId) {
                            QVERIFY2(finished[i], (plan.items[*next].resource->resourceName + " went before " +
                                                   plan.items[i].resource->resourceName + " it references")
                                                      .c_str());
                            ++checkedReferences;
                        }
                running.push_back(*next);
            }
            mostAtOnce = std::max(mostAtOnce, running.size());
            QVERIFY(!running.empty());
            // The one started last finishes first.
            const std::size_t done = running.back();
            running.pop_back();
            finished[done] = true;
            scheduler.finished(done, true);
        }
        QVERIFY(checkedReferences >= 12);
        QVERIFY2(mostAtOnce >= 8, std::to_string(mostAtOnce).c_str());

        // A school not accepted: its course and session are not sent, they wait for it.
        PushScheduler refusing(plan, LoadOrder(f.model()), references);
        std::size_t refusedSchool = plan.items.size();
        std::set<std::size_t> blocked;
        while (!refusing.allFinished()) {
            std::optional<std::size_t> next = refusing.next();
            QVERIFY(next.has_value());
            if (std::optional<std::size_t> by = refusing.blockedBy(*next)) {
                QCOMPARE(*by, refusedSchool);
                blocked.insert(*next);
                refusing.finished(*next, false);
                continue;
            }
            const bool refuse = plan.items[*next].resource->resourceName == "School" && refusedSchool == plan.items.size();
            if (refuse)
                refusedSchool = *next;
            refusing.finished(*next, !refuse);
        }
        QCOMPARE(blocked.size(), std::size_t(2)); // its course and its session

        // Deletes: the courses' before the schools' (a course references its school).
        const std::int64_t cursor = lastSeq(f);
        for (const char *endpoint : {"courses", "sessions", "schools"})
            for (const Json &document : f.call("GET", std::string("/ed-fi/") + endpoint).body)
                QCOMPARE(f.call("DELETE", std::string("/ed-fi/") + endpoint + "/" + document["id"].get<std::string>()).status, 204);
        const PushPlan deletes = planPush(f.database().connection(), f.model(), cursor, kTarget);
        PushScheduler deleting(deletes, LoadOrder(f.model()), referencedPlanItems(f.database().connection(), deletes));
        std::vector<std::size_t> first;
        while (std::optional<std::size_t> next = deleting.next())
            first.push_back(*next);
        for (std::size_t i : first)
            QVERIFY2(deletes.items[i].resource->resourceName != "School", "a school's delete went with its courses");
        QCOMPARE(first.size(), std::size_t(8)); // the courses and the sessions, all at once
        for (std::size_t i : first)
            deleting.finished(i, true);
        std::size_t schools = 0;
        while (std::optional<std::size_t> next = deleting.next()) {
            QCOMPARE(deletes.items[*next].resource->resourceName, std::string("School"));
            ++schools;
        }
        QCOMPARE(schools, std::size_t(4));
    }

    // The push's rules, decided on answers alone (no HTTP): a new document goes with If-Match that
    // matches nothing; a 412 to an update has the target's copy read and the merge sent with its etag;
    // a retried delete answered 404 is done; a POST that landed before (its answer lost) is found by
    // natural key and not sent again; a look-up that fails leaves creates unsent; no answer stops it.
    void thePushDecidesOnAnswersAlone()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string schoolId = f.create("/ed-fi/schools", Fixture::school(100));
        int ids = 0;
        std::vector<RemoteRequest> seen;
        std::size_t mostAtOnce = 0;
        {
            PushSession session(f.engine(), f.database(), kTarget, "district", true);
            const PushReport report =
                drive(session, [&](const RemoteRequest &request) { return created(request, ids); }, &seen, &mostAtOnce);
            QVERIFY2(report.completed, report.error.c_str());
            QCOMPARE(report.accepted, static_cast<int>(report.plan.items.size()));
            QCOMPARE(report.sent, report.accepted);
            QCOMPARE(report.cursorAfter, report.plan.toSeq);
            for (const RemoteRequest &request : seen) {
                QCOMPARE(request.method, std::string("POST"));
                QCOMPARE(request.ifMatch, std::string(kNewDocumentTag));
            }
            QVERIFY(mostAtOnce > 1); // the descriptors went together; the school after them
        }
        const std::string schoolRemoteId = *SyncState(f.database().connection()).remoteId(1, schoolId);

        // Renamed here; the target changed another field since: 412, a read, the merge sent with its etag.
        Json renamed = Fixture::school(100, "Renamed here");
        QCOMPARE(f.call("PUT", "/ed-fi/schools/" + schoolId, renamed).status, 204);
        seen.clear();
        {
            PushSession session(f.engine(), f.database(), kTarget, "district", true);
            const PushReport report = drive(session, [&](const RemoteRequest &request) {
                if (request.method == "PUT" && request.ifMatch == "1")
                    return answer(412, Json{{"detail", "changed"}});
                if (request.method == "GET") {
                    Json theirs = Fixture::school(100);
                    theirs["shortNameOfInstitution"] = "GBHS";
                    theirs["id"] = schoolRemoteId;
                    theirs["_etag"] = "2";
                    return answer(200, theirs);
                }
                return answer(204, nullptr, {{"etag", "\"3\""}});
            }, &seen);
            QVERIFY2(report.completed, report.error.c_str());
            QCOMPARE(report.merged, 1);
            QCOMPARE(seen.size(), std::size_t(3));
            QCOMPARE(seen[1].path, "/ed-fi/schools/" + schoolRemoteId);
            QCOMPARE(seen[2].method, std::string("PUT"));
            QCOMPARE(seen[2].ifMatch, std::string("2"));
            const Json merged = Json::parse(seen[2].body.toStdString());
            QCOMPARE(merged["nameOfInstitution"].get<std::string>(), std::string("Renamed here"));
            QCOMPARE(merged["shortNameOfInstitution"].get<std::string>(), std::string("GBHS"));
            QCOMPARE(merged["id"].get<std::string>(), schoolRemoteId);
        }

        // Deleted here; the delete was taken before, its answer lost: the retry's 404 is done.
        QCOMPARE(f.call("DELETE", "/ed-fi/schools/" + schoolId).status, 204);
        seen.clear();
        {
            PushSession session(f.engine(), f.database(), kTarget, "district", true);
            const PushReport report = drive(session, [](const RemoteRequest &) { return answer(404); }, &seen);
            QVERIFY2(report.completed && report.accepted == 1, report.toJson().dump().c_str());
            QCOMPARE(seen.size(), std::size_t(1));
            QCOMPARE(seen[0].method, std::string("DELETE"));
            QCOMPARE(seen[0].ifMatch, std::string("3"));
        }

        // A create that landed before (its answer lost): 412, found by natural key as it is here, done.
        f.create("/ed-fi/schools", Fixture::school(200, "Landed"));
        seen.clear();
        {
            PushSession session(f.engine(), f.database(), kTarget, "district", true);
            const PushReport report = drive(session, [](const RemoteRequest &request) {
                if (request.method == "POST")
                    return answer(412);
                Json there = Fixture::school(200, "Landed");
                there["id"] = "ffff200";
                there["_etag"] = "5";
                return answer(200, Json::array({there}));
            }, &seen);
            QVERIFY2(report.completed && report.accepted == 1 && report.sent == 0, report.toJson().dump().c_str());
            QCOMPARE(seen.size(), std::size_t(2));
            QCOMPARE(seen[1].path, std::string("/ed-fi/schools?schoolId=200&limit=2"));
        }

        // A target that does not check If-Match on a POST, whose queries of schools fail: no school is
        // created.
        f.create("/ed-fi/schools", Fixture::school(300));
        f.create("/ed-fi/schools", Fixture::school(301));
        seen.clear();
        {
            PushSession session(f.engine(), f.database(), "http://other.example/api", "district", false);
            int made = 0;
            const PushReport report = drive(session, [&made](const RemoteRequest &request) {
                if (request.method == "POST")
                    return created(request, made);
                return request.path.find("schoolId=") != std::string::npos ? answer(500) : answer(200, Json::array());
            }, &seen);
            QCOMPARE(report.cannotTell, 3); // schools 200, 300 and 301 (new to this target)
            // The three went out together (before the first answer); one started later would not ask.
            QCOMPARE(std::count_if(seen.begin(), seen.end(),
                                   [](const RemoteRequest &r) { return r.path.find("schoolId=") != std::string::npos; }),
                     3L);
            QVERIFY(std::none_of(seen.begin(), seen.end(), [](const RemoteRequest &r) { return r.method == "POST" && r.path == "/ed-fi/schools"; }));
        }

        // No answer (after the carrier's retries): the push stops, the cursor stays before it.
        {
            PushSession session(f.engine(), f.database(), kTarget, "district", true);
            const PushReport report = drive(session, [](const RemoteRequest &) {
                RemoteResponse none;
                none.networkError = "Connection refused";
                return none;
            });
            QVERIFY(!report.completed);
            QVERIFY2(report.error.find("did not answer (Connection refused") != std::string::npos, report.error.c_str());
            QVERIFY(report.cursorAfter < report.plan.toSeq);
        }
    }

    // A conflict holds the push cursor back until someone decides it; the pushes after it plan only what
    // was written since the last one took it, not every document written since the conflict.
    void aConflictHeldBackDoesNotMakeEveryLaterPushLonger()
    {
        Fixture f;
        f.seedDescriptors();
        std::vector<std::string> schools;
        for (int i = 0; i < 16; ++i)
            schools.push_back(f.create("/ed-fi/schools", Fixture::school(400 + i, "School " + std::to_string(i))));
        int made = 0;
        auto target = [&made](const RemoteRequest &request) {
            if (request.method == "GET")
                return answer(200, Json::array());
            if (request.method == "POST")
                return created(request, made);
            return answer(204, nullptr, {{"etag", "\"" + std::to_string(++made) + "\""}});
        };
        auto push = [&] {
            PushSession session(f.engine(), f.database(), kTarget, "district", true);
            return drive(session, target);
        };
        const PushReport first = push();
        QCOMPARE(first.cursorAfter, first.plan.toSeq);
        QVERIFY(first.plan.items.size() >= 16); // the schools and the descriptors they use

        // The first school in conflict with the target, then edited here: it is held back.
        SQLite::Database &db = f.database().connection();
        SyncState state(db);
        const SyncTarget synced = state.ensureTarget(kTarget, "district");
        SyncConflict conflict;
        conflict.targetId = synced.targetId;
        conflict.id = schools[0];
        conflict.project = "Ed-Fi";
        conflict.resource = "School";
        conflict.base = *state.base(synced.targetId, schools[0]);
        conflict.theirsText = dumpJson(Fixture::school(400, "Theirs"));
        conflict.theirsEtag = "99";
        conflict.reason = "changed on both sides: $.nameOfInstitution";
        state.recordConflict(conflict);
        auto rename = [&f](const std::string &id, int schoolId, const std::string &name) {
            QCOMPARE(f.call("PUT", "/ed-fi/schools/" + id, Fixture::school(schoolId, name)).status, 204);
        };
        rename(schools[0], 400, "Mine");
        for (int week = 1; week <= 3; ++week) {
            // Other schools each week, as a weekly fix of a rotating share of the students.
            for (int i = 5 * week - 4; i <= 5 * week; ++i)
                rename(schools[static_cast<std::size_t>(i)], 400 + i, "Week " + std::to_string(week));
            const PushReport weekly = push();
            QVERIFY2(weekly.cursorAfter < weekly.plan.toSeq, "the conflict no longer holds the cursor back");
            // The held school and this week's five; earlier weeks' writes were taken and are left out.
            QCOMPARE(weekly.plan.items.size(), std::size_t(6));
            QCOMPARE(weekly.sent, 5);
        }
    }

    // A 429 halves the requests in flight once however many in flight get it, holds every request back
    // for its Retry-After, and the window grows back to just below where it was pushed back; a rate
    // spaces requests.
    void flowControlSlowsDownWhenPushedBack()
    {
        using Clock = FlowControl::Clock;
        const Clock::time_point t0 = Clock::now();
        FlowControl flow(16);
        QCOMPARE(flow.waitBefore(15, t0)->count(), 0L);
        QVERIFY(!flow.waitBefore(16, t0).has_value());
        const Clock::time_point sent = t0;
        const Clock::time_point later = t0 + std::chrono::milliseconds(10);
        flow.answered(true, 2000, sent, later);
        QCOMPARE(flow.window(), 8);
        for (int i = 0; i < 15; ++i)
            flow.answered(true, 2000, sent, later); // the rest of those in flight: the same news
        QCOMPARE(flow.window(), 8);
        QCOMPARE(flow.pushedBack(), 16);
        QVERIFY(flow.waitBefore(0, later)->count() >= 1990);
        QCOMPARE(flow.waitBefore(0, later + std::chrono::milliseconds(2000))->count(), 0L);
        // Sent after the narrowing and pushed back again: narrower still.
        const Clock::time_point again = later + std::chrono::milliseconds(2100);
        flow.answered(true, std::nullopt, again, again);
        QCOMPARE(flow.window(), 4);
        QCOMPARE(flow.fewestInFlight(), 4);
        // Answers that go through widen it to just below the window pushed back at (8), then it waits.
        for (int i = 0; i < 200; ++i)
            flow.answered(false, std::nullopt, again, again);
        QCOMPARE(flow.window(), 7);
        for (int i = 0; i < 50 * 7; ++i)
            flow.answered(false, std::nullopt, again, again);
        QCOMPARE(flow.window(), 8);

        FlowControl paced(4, 10); // 10 a second
        paced.started(t0);
        QCOMPARE(paced.waitBefore(1, t0)->count(), 100L);
        QCOMPARE(paced.waitBefore(1, t0 + std::chrono::milliseconds(100))->count(), 0L);
    }

    // The pull's rules, decided on what the target served (no HTTP): a document new here is stored with
    // the target's id and etag as its base; one changed here and there in different fields is merged;
    // in the same field, a conflict that keeps this side's; a delete there of what changed here is a
    // conflict too; the change window follows the target's change versions.
    void thePullDecidesOnWhatTheTargetServed()
    {
        Fixture f;
        f.seedDescriptors();
        const ResourceSchema *found = f.model().findByName("Ed-Fi", "School");
        QVERIFY(found != nullptr);
        const ResourceSchema &schools = *found;
        auto served = [](Json body, const std::string &id, const std::string &etag) {
            body["id"] = id;
            body["_etag"] = etag;
            body["_lastModifiedDate"] = "2026-11-28T10:00:00Z";
            return body;
        };
        {
            PullSession session(f.engine(), f.database(), kTarget, "district");
            QVERIFY(session.setNewestChangeVersion(10));
            QCOMPARE(session.window(), std::string("&maxChangeVersion=10"));
            session.takePage(schools, Json::array({served(Fixture::school(100), "r100", "1")}), "page", 0);
            const PullReport report = session.finish();
            QVERIFY(report.outcome.completed);
            QCOMPARE(report.outcome.totals.created, 1);
        }
        const std::string localId = f.call("GET", "/ed-fi/schools?schoolId=100").body[0]["id"].get<std::string>();
        std::optional<SyncBase> base = SyncState(f.database().connection()).base(1, localId);
        QVERIFY(base.has_value());
        QCOMPARE(base->remoteId, std::string("r100"));
        QCOMPARE(base->etag, std::string("1"));

        // Renamed here; the target changed another field: merged. Then the same field on both: a conflict.
        QCOMPARE(f.call("PUT", "/ed-fi/schools/" + localId, Fixture::school(100, "Renamed here")).status, 204);
        {
            PullSession session(f.engine(), f.database(), kTarget, "district");
            QVERIFY(session.setNewestChangeVersion(15));
            QVERIFY(session.incremental());
            QCOMPARE(session.window(), std::string("&minChangeVersion=11&maxChangeVersion=15"));
            Json theirs = Fixture::school(100);
            theirs["shortNameOfInstitution"] = "GBHS";
            session.takePage(schools, Json::array({served(theirs, "r100", "2")}), "page", 0);
            const PullReport report = session.finish();
            QCOMPARE(report.merged, 1);
        }
        Json here = f.call("GET", "/ed-fi/schools/" + localId).body;
        QCOMPARE(here["nameOfInstitution"].get<std::string>(), std::string("Renamed here"));
        QCOMPARE(here["shortNameOfInstitution"].get<std::string>(), std::string("GBHS"));
        {
            PullSession session(f.engine(), f.database(), kTarget, "district");
            QVERIFY(!session.setNewestChangeVersion(15)); // nothing new there
            QVERIFY(session.setNewestChangeVersion(20));
            Json theirs = Fixture::school(100, "Renamed there");
            theirs["shortNameOfInstitution"] = "GBHS";
            session.takePage(schools, Json::array({served(theirs, "r100", "3")}), "page", 0);
            // Deleted there as well: still a conflict, nothing deleted here.
            session.takeDeletes(schools, {Json{{"id", "r100"}, {"keyValues", {{"schoolId", 100}}}}});
            const PullReport report = session.finish();
            QVERIFY(report.conflicts >= 1);
            QCOMPARE(report.deleted, 0);
        }
        here = f.call("GET", "/ed-fi/schools/" + localId).body;
        QCOMPARE(here["nameOfInstitution"].get<std::string>(), std::string("Renamed here"));
        QCOMPARE(SyncState(f.database().connection()).openConflictCount(1), 1);

        // A target rebuilt (its change versions went back): everything again, not a window.
        PullSession rebuilt(f.engine(), f.database(), kTarget, "district");
        QVERIFY(rebuilt.setNewestChangeVersion(5));
        QVERIFY(!rebuilt.incremental());
        QCOMPARE(rebuilt.window(), std::string("&maxChangeVersion=5"));
    }

    // Pages made ready on another thread, then taken here; pages whose next one is at hand share one
    // transaction, which a stop commits and a failed write rolls back (the change version unmoved).
    void pagesAtHandShareOneTransaction()
    {
        Fixture f;
        f.seedDescriptors();
        const ResourceSchema &schools = *f.model().findByName("Ed-Fi", "School");
        auto page = [](std::initializer_list<int> ids) {
            Json items = Json::array();
            for (int id : ids) {
                Json body = Fixture::school(id);
                body["id"] = "r" + std::to_string(id);
                body["_etag"] = "1";
                items.push_back(body);
            }
            return items;
        };
        auto stored = [&f] {
            return f.database().connection().execAndGet("SELECT count(*) FROM documents WHERE resource = 'School'").getInt();
        };
        {
            PullSession session(f.engine(), f.database(), kTarget, "district");
            QVERIFY(session.setNewestChangeVersion(10));
            std::future<PullSession::PreparedPage> first = std::async(std::launch::async, [&] {
                return session.preparePage(schools, page({1, 2}), "page 1", 0);
            });
            const PullSession::PreparedPage prepared = first.get();
            QCOMPARE(prepared.size(), std::size_t(2));
            QVERIFY(prepared[0].prepared && !prepared[0].prepared->refusal);
            session.takePage(prepared, true);
            QVERIFY(f.engine().inBatch());
            session.takePage(session.preparePage(schools, page({3}), "page 2", 2), false);
            QVERIFY(!f.engine().inBatch());
            QCOMPARE(stored(), 3);
            // Stopped (cancelled) with a page kept open: what was taken is committed.
            session.takePage(session.preparePage(schools, page({4}), "page 3", 3), true);
            const PullReport report = session.finish();
            QVERIFY(!f.engine().inBatch());
            QCOMPARE(report.outcome.totals.created, 4);
        }
        QCOMPARE(stored(), 4);
        {
            PullSession session(f.engine(), f.database(), kTarget, "district");
            QVERIFY(session.setNewestChangeVersion(20));
            // Pulled from before: mostly documents it has, a PUT each, so nothing is prepared ahead.
            QVERIFY(!session.preparePage(schools, page({1}), "page 1", 0).front().prepared);
            session.takePage(session.preparePage(schools, page({5}), "page 1", 0), true);
            session.failed("a write failed");
            const PullReport report = session.finish();
            QVERIFY(!report.outcome.completed);
            QCOMPARE(stored(), 4);
        }
        QCOMPARE(SyncState(f.database().connection()).targets().front().pullChangeVersion, std::int64_t(10));
    }
};

QTEST_GUILESS_MAIN(TestSync)
#include "tst_sync.moc"
