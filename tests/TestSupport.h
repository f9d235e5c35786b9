#pragma once

#include "ApiSchema.h"
#include "Database.h"
#include "Engine.h"

#include <QString>
#include <QTemporaryDir>

#include <memory>
#include <string>

namespace steward::test {

// The folder of Ed-Fi's published files, or empty when this checkout has no ../shared.
QString sharedEdfiDir();
// The built programs the suites run. Their paths are compiled into one generated file
// (TestPaths.cpp) rather than into every suite, so two clones of the same sources compile the
// suites alike and a compiler cache serves one clone what the other compiled.
QString cliPath();
QString appPath();
// The folder configured as ../shared (STEWARD_SHARED_DIR), whether or not it exists.
QString sharedDir();

// An engine on a fresh database in a temporary folder.
class Fixture
{
public:
    explicit Fixture(std::unique_ptr<Model> model = nullptr);
    ~Fixture();

    Response call(const std::string &method, const std::string &path, const Json &body = nullptr,
                  const std::map<std::string, std::string> &headers = {});
    // POST that must answer 201 or 200; returns the new id.
    std::string create(const std::string &path, const Json &body);
    std::string databasePath() const;
    Engine &engine() { return *m_engine; }
    Database &database() { return *m_database; }
    const Model &model() const { return *m_model; }
    // Descriptors the starter-model documents below use.
    void seedDescriptors();
    // The sample district (engine/batches/SampleDistrict), every request accepted (a failure fails the test).
    void loadSampleDistrict(unsigned seed = 2026, int studentsPerSchool = 20);

    static Json school(int schoolId, const std::string &name = "Grand Bend High School");
    // A Course of the education organization, with an LEA course code (the descriptor seedDescriptors adds).
    static Json course(const std::string &code, int edOrgId);
    static Json schoolYear(int year);
    // A Session (its resource allows identity updates) of the school and year.
    static Json session(int schoolId, int year, const std::string &name);

private:
    QTemporaryDir m_dir;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Database> m_database;
    std::unique_ptr<Engine> m_engine;
};

std::string idFromLocation(const std::string &location);

// What `check` finds wrong, a line each ("School <id>: problem"); empty when the database is clean.
std::string checkProblems(Fixture &fixture);

// Every query field of every resource that has documents, asked for values its documents hold (as
// stored, with their letters' case flipped, and one no document has), alone and two at a time, with
// totalCount and paging: the answers from the indexes against the answers of a scan.
struct IndexScanComparison
{
    int queries = 0;
    int answeredWithDocuments = 0;
    std::vector<std::string> differences; // the query and what differed
};
IndexScanComparison compareIndexWithScan(Fixture &fixture, std::size_t documentsPerResource = 4);

// SQL that takes a database of this version back to version 18, whose documents, aliases and
// change log named their resources (and the change log its actors and sources) as text, for tests
// of the migrations that follow. Run with foreign keys off.
extern const char *const kBackBeforeResourceKeys;

// The document and variants of it (each value made null, removed, of another type, empty, padded
// with white space, too long, an impossible date; an unknown property added; an array item repeated),
// each through DocumentValidator's compiled walk and its full way: they must agree on pass or fail,
// and on the body they leave, for at most `places` of the document's values. Returns how many bodies
// were compared; `difference` names the first disagreement (empty when none).
int compareCompiledSchemaWithFullWay(const Model &model, const ResourceSchema &resource, const Json &document,
                                     std::string &difference, std::size_t places = SIZE_MAX);

} // namespace steward::test

// QCOMPARE cannot take JSON values (QtTest's overloads trip over nlohmann's conversions).
#define JSON_COMPARE(actual, expected)                                                                      \
    do {                                                                                                    \
        const steward::Json actualValue_ = (actual);                                                        \
        const steward::Json expectedValue_ = (expected);                                                    \
        QVERIFY2(actualValue_ == expectedValue_,                                                            \
                 qPrintable(QString::fromStdString("got " + actualValue_.dump() + ", expected "             \
                                                   + expectedValue_.dump())));                              \
    } while (false)
