// Find anything: the search index follows every write, finds by parts of names and ids across
// resources, reads nothing typed as FTS5 syntax, and check finds and repairs its damage.
#include "Search.h"
#include "SearchTerms.h"
#include "TestSupport.h"

#include <QTest>

#include <SQLiteCpp/Database.h>

using namespace steward;
using namespace steward::test;

namespace {

Json student(const std::string &uniqueId, const std::string &first, const std::string &last)
{
    return {{"studentUniqueId", uniqueId},
            {"firstName", first},
            {"lastSurname", last},
            {"birthDate", "2010-01-01"}};
}

std::vector<std::string> foundIds(Fixture &f, const std::string &typed, int limit = 50)
{
    std::vector<std::string> ids;
    for (const SearchHit &hit : searchDocuments(f.database().connection(), typed, limit))
        ids.push_back(hit.id);
    return ids;
}

bool found(Fixture &f, const std::string &typed, const std::string &id)
{
    const std::vector<std::string> ids = foundIds(f, typed);
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

} // namespace

class TestSearch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void termsAreIdentifyingAndNameLikeValuesOutsideReferences()
    {
        const Json section{{"sectionIdentifier", "ALG-1-01"},
                           {"sectionName", "Algebra I, period 1"},
                           {"availableCredits", 1},
                           {"courseOfferingReference", {{"localCourseCode", "ALG-1"}, {"schoolId", 255901001}}},
                           {"classPeriods", Json::array({{{"classPeriodReference", {{"classPeriodName", "01"}}}}})},
                           {"educationalEnvironmentDescriptor", "uri://ed-fi.org/EducationalEnvironmentDescriptor#Classroom"}};
        QCOMPARE(searchTermsOf(section), std::string("ALG-1-01 Algebra I, period 1"));
        const Json person{{"studentUniqueId", "604822"},
                          {"firstName", "Lan"},
                          {"lastSurname", "Nguyễn"},
                          {"electronicMails", Json::array({{{"electronicMailAddress", "lan@example.org"}}})}};
        QCOMPARE(searchTermsOf(person), std::string("lan@example.org Lan Nguyễn 604822"));
        QCOMPARE(searchTermsOf(Json::array()), std::string());
        // Endings are read in any case; a key shorter than an ending, or one only containing it, is not one.
        const Json mixed{{"COURSETITLE", "Geometry"}, {"LocalID", "L-7"}, {"d", "short"}, {"identity", "x"},
                         {"nameNote", "y"}};
        QCOMPARE(searchTermsOf(mixed), std::string("Geometry L-7"));
    }

    void typedTextIsNeverFts5Syntax()
    {
        QCOMPARE(searchMatchExpression("nguy 2559"), std::string("\"nguy\"* AND \"2559\"*"));
        QCOMPARE(searchMatchExpression("a"), std::string());
        QCOMPARE(searchMatchExpression("O'Brien"), std::string("\"Brien\"*"));
        QCOMPARE(searchMatchExpression("\"x\" OR NEAR(a b) *"), std::string("\"OR\"* AND \"NEAR\"*"));
        Fixture f;
        for (const std::string typed : {"\"", "*", "OR", "NEAR(", "a AND", "-x", "x:y", "^st", "\xff\xfe", "(( ))"})
            searchDocuments(f.database().connection(), typed, 10); // must not throw
    }

    void findsAStudentByPartOfTheLastNameAndFollowsWrites()
    {
        Fixture f;
        f.loadSampleDistrict();
        const std::string id = f.create("/ed-fi/students", student("999001", "Lan", "Nguyễn"));
        // Part of the last name, without the accent, any case; with the first name too.
        QVERIFY(found(f, "nguy", id));
        QVERIFY(found(f, "NGUYEN", id));
        QVERIFY(found(f, "lan ngu", id));
        QVERIFY(!found(f, "lan smith", id));
        QVERIFY(found(f, "999001", id));
        // Other resources: a school by part of its id, a course by its code.
        const SearchHit first = searchDocuments(f.database().connection(), "255901001", 5).at(0);
        QCOMPARE(first.resource, std::string("School"));
        QCOMPARE(first.naturalKey, std::string("255901001"));
        QVERIFY(!searchDocuments(f.database().connection(), "alg", 5).empty());

        // A rename moves the document from the old words to the new ones; a delete takes it out.
        Json renamed = student("999001", "Lan", "Tran");
        renamed["id"] = id;
        QCOMPARE(f.call("PUT", "/ed-fi/students/" + id, renamed).status, 204);
        QVERIFY(!found(f, "nguyen", id));
        QVERIFY(found(f, "tran", id));
        QCOMPARE(checkProblems(f), std::string());
        QCOMPARE(f.call("DELETE", "/ed-fi/students/" + id).status, 204);
        QVERIFY(!found(f, "tran", id));
        QVERIFY(!found(f, "999001", id));
        QCOMPARE(checkProblems(f), std::string());
    }

    void exactValuesComeFirstAndTheLimitHolds()
    {
        Fixture f;
        for (int i = 0; i < 30; ++i)
            f.create("/ed-fi/students", student("5000" + std::to_string(i), "Ann", "Smithson"));
        const std::string exact = f.create("/ed-fi/students", student("600000", "Ann", "Smith"));
        const std::vector<SearchHit> hits = searchDocuments(f.database().connection(), "smith", 10);
        QCOMPARE(hits.size(), std::size_t(10));
        QCOMPARE(hits.front().id, exact);
    }

    void anOlderDatabaseIsIndexedWhenOpened()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("old.db").toStdString();
        std::string id;
        {
            Fixture f;
            id = f.create("/ed-fi/students", student("1", "Ann", "Okafor"));
            f.database().connection().backup(path.c_str(), SQLite::Database::Save);
        }
        {
            // Version 12 had no find-anything index (nor resource keys).
            SQLite::Database db(path, SQLite::OPEN_READWRITE);
            Database::registerFunctions(db);
            db.exec(std::string("PRAGMA foreign_keys=OFF;") + kBackBeforeResourceKeys
                    + "DROP TABLE body_dictionaries; DROP TABLE query_index; CREATE TABLE query_values (field_key INTEGER NOT NULL, value NOT NULL "
                    "COLLATE NOCASE, doc INTEGER NOT NULL, PRIMARY KEY (field_key, value, doc)) WITHOUT ROWID;"
                    "DROP TABLE search_index; ALTER TABLE changes DROP COLUMN previous_identity;"
                    "ALTER TABLE changes DROP COLUMN source; PRAGMA user_version=12;");
        }
        std::unique_ptr<Database> upgraded = Database::open(path);
        QCOMPARE(searchDocuments(upgraded->connection(), "okaf", 5).size(), std::size_t(1));
        QCOMPARE(searchDocuments(upgraded->connection(), "okaf", 5).front().id, id);
    }

    void checkFindsDamageAndRepairsIt()
    {
        Fixture f;
        const std::string id = f.create("/ed-fi/students", student("1", "Ann", "Lee"));
        {
            SQLite::Database db(f.databasePath(), SQLite::OPEN_READWRITE);
            Database::registerFunctions(db);
            db.exec("DELETE FROM search_index");
            db.exec("INSERT INTO search_index (rowid, terms) VALUES (999, 'ghost')");
        }
        const std::string problems = checkProblems(f);
        QVERIFY2(problems.find(id + ": the find-anything index holds ''") != std::string::npos, problems.c_str());
        QVERIFY2(problems.find("1 entries of no document") != std::string::npos, problems.c_str());
        QVERIFY(!found(f, "lee", id));
        QVERIFY(f.engine().check(true).clean());
        QVERIFY(found(f, "lee", id));
        QVERIFY(foundIds(f, "ghost").empty());
    }
};

QTEST_GUILESS_MAIN(TestSearch)
#include "tst_search.moc"
