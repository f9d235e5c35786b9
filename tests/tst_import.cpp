// Imports: every format, any order, drafts with reasons, idempotence, cancel, the CLI.
#include "BodyCodec.h"
#include "CliSupport.h"
#include "Generator.h"
#include "ImportSource.h"
#include "Importer.h"
#include "TestSupport.h"

#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <SQLiteCpp/Database.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <set>

using namespace steward;
using namespace steward::test;

namespace {

Json descriptor(const std::string &type, const std::string &code)
{
    return Json{{"namespace", "uri://ed-fi.org/" + type}, {"codeValue", code}, {"shortDescription", code}};
}

Json course(const std::string &code, int edOrg)
{
    return Json{{"courseCode", code},
                {"courseTitle", "Course " + code},
                {"numberOfParts", 1},
                {"identificationCodes", Json::array()},
                {"educationOrganizationReference", {{"educationOrganizationId", edOrg}}}};
}

Json student(int i)
{
    static const char *const first[] = {"Ana", "Ben", "Chen", "Dara", "Eli", "Femi", "Gus", "Hana"};
    static const char *const last[] = {"Okafor", "Nguyen", "Smith", "Garcia", "Haddad", "Kowalski", "Ito"};
    return Json{{"studentUniqueId", std::to_string(600000 + i)},
                {"firstName", first[i % 8]},
                {"lastSurname", last[i % 7]},
                {"birthDate", "2010-0" + std::to_string(1 + i % 9) + "-1" + std::to_string(i % 10)}};
}

// The id a POST answered with, from its Location.
std::string createdId(const Response &response)
{
    for (const auto &[name, value] : response.headers)
        if (name == "Location")
            return idFromLocation(value);
    return {};
}

Json envelope(const std::string &resource, const Json &body)
{
    return Json{{"resource", resource}, {"body", body}};
}

void writeLines(const QString &path, const std::vector<Json> &lines)
{
    std::ofstream out(path.toStdString());
    for (const Json &line : lines)
        out << line.dump() << "\n";
}

// An NDJSON file of `howMany` Schools numbered from firstId; returns its path.
std::string writeSchools(const QTemporaryDir &dir, const QString &name, int howMany, int firstId)
{
    std::vector<Json> lines;
    for (int i = 0; i < howMany; ++i)
        lines.push_back(envelope("ed-fi/schools", Fixture::school(firstId + i)));
    writeLines(dir.filePath(name), lines);
    return dir.filePath(name).toStdString();
}

// An envelope line as steward-cli generate writes it: "resource" first, which lets the importer
// read each line's resource without parsing it (Json::dump would put "body" first).
std::string envelopeLine(const Json &envelope)
{
    return steward::envelopeLine(envelope["resource"].get<std::string>(), envelope["body"]);
}

void writeEnvelopeLines(const QString &path, const std::vector<Json> &envelopes)
{
    std::ofstream out(path.toStdString());
    for (const Json &e : envelopes)
        out << envelopeLine(e) << "\n";
}

std::int64_t count(const std::string &db, const std::string &sql)
{
    SQLite::Database d(db, SQLite::OPEN_READONLY);
    Database::registerFunctions(d);
    return d.execAndGet(sql).getInt64();
}

// Every stored document by resource and referential id, with its body: what two imports of the
// same documents must agree on, whatever order they were applied in.
std::set<std::string> storedDocuments(const std::string &db)
{
    SQLite::Database d(db, SQLite::OPEN_READONLY);
    Database::registerFunctions(d);
    SQLite::Statement s(d, "SELECT resource || ' ' || hex(referential_id) || ' ' || body FROM documents");
    std::set<std::string> out;
    while (s.executeStep())
        out.insert(s.getColumn(0).getString());
    return out;
}

// The import's phases as its progress reported them, each once, in order.
std::vector<std::string> phasesOf(Fixture &f, const ImportOptions &options, ImportReport *report = nullptr)
{
    std::vector<std::string> phases;
    ImportReport r = importFiles(f.engine(), f.model(), options, [&phases](const ImportProgress &p) {
        if (phases.empty() || phases.back() != p.phase)
            phases.push_back(p.phase);
        return true;
    });
    if (report != nullptr)
        *report = r;
    return phases;
}

} // namespace

class TestImport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void formatsInAnyOrder()
    {
        Fixture f;
        QTemporaryDir dir;
        // Courses first, their School after, the descriptors last: the importer sorts it out.
        writeLines(dir.filePath("mixed.ndjson"),
                   {envelope("ed-fi/courses", course("ALG-1", 255901)), envelope("ed-fi/schools", Fixture::school(255901)),
                    envelope("ed-fi/gradeLevelDescriptors", descriptor("GradeLevelDescriptor", "Ninth grade"))});
        {
            std::ofstream(dir.filePath("array.json").toStdString())
                << Json::array({envelope("ed-fi/educationOrganizationCategoryDescriptors",
                                         descriptor("EducationOrganizationCategoryDescriptor", "School"))})
                       .dump();
            std::ofstream(dir.filePath("courses.json").toStdString())
                << Json::array({course("GEOM", 255901)}).dump(); // per-resource array: bodies only
            writeLines(dir.filePath("schools.ndjson"), {Fixture::school(255902, "Second")});
        }
        ImportOptions options;
        options.paths = {dir.filePath("mixed.ndjson").toStdString(), dir.filePath("array.json").toStdString(),
                         dir.filePath("courses.json").toStdString(), dir.filePath("schools.ndjson").toStdString()};
        options.chunkSize = 2;
        ImportReport report = importFiles(f.engine(), f.model(), options);
        QVERIFY2(report.completed, report.error.c_str());
        QCOMPARE(report.totals.created, 6);
        QCOMPARE(report.totals.drafts, 0);
        QCOMPARE(report.byResource["ed-fi/courses"].created, 2);
        QCOMPARE(f.call("GET", "/ed-fi/courses").body.size(), std::size_t(2));

        // The same again: nothing changes.
        ImportReport again = importFiles(f.engine(), f.model(), options);
        QCOMPARE(again.totals.unchanged, 6);
        QCOMPARE(again.totals.created, 0);
        QCOMPARE(again.totals.updated, 0);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM changes"), 6);

        // A directory is the same input.
        Fixture g;
        ImportOptions fromDir;
        fromDir.paths = {dir.path().toStdString()};
        ImportReport report2 = importFiles(g.engine(), g.model(), fromDir);
        QCOMPARE(report2.totals.created, 6);
    }

    void draftsWithReasonsAndNothingDropped()
    {
        Fixture f;
        f.seedDescriptors();
        QTemporaryDir dir;
        {
            std::ofstream out(dir.filePath("bad.ndjson").toStdString());
            out << envelope("ed-fi/courses", course("ALG-1", 999)).dump() << "\n"; // missing School: 409 -> draft
            out << "this is not json\n";                                            // unreadable line
            out << envelope("ed-fi/noSuchThings", Json::object()).dump() << "\n";   // unknown resource
            out << envelope("ed-fi/schools", Json{{"schoolId", 1}}).dump() << "\n"; // invalid document
            out << R"({"body":[],"resource":"ed-fi/schools"})" << "\n";             // not an object
            out << "\n";                                                             // blank: skipped
            out << envelope("ed-fi/schools", Fixture::school(5)).dump() << "\n";     // fine
        }
        ImportOptions options;
        options.paths = {dir.filePath("bad.ndjson").toStdString()};
        ImportReport report = importFiles(f.engine(), f.model(), options);
        QVERIFY(report.completed);
        QCOMPARE(report.totals.created, 1);
        QCOMPARE(report.totals.drafts, 5);
        std::map<std::int64_t, ImportDraftEntry> byLine;
        for (const ImportDraftEntry &d : report.drafts)
            byLine[d.line] = d;
        QCOMPARE(byLine[1].problem["type"].get<std::string>(), std::string(problem::kUnresolvedReference));
        QVERIFY(byLine[1].problem["validationErrors"].contains("$.educationOrganizationReference"));
        QVERIFY(byLine[2].problem["detail"].get<std::string>().find("bad.ndjson:2") != std::string::npos);
        QVERIFY(byLine[3].problem["detail"].get<std::string>().find("noSuchThings") != std::string::npos);
        QCOMPARE(byLine[4].problem["type"].get<std::string>(), std::string(problem::kDataValidationFailed));
        QCOMPARE(byLine[4].file, dir.filePath("bad.ndjson").toStdString());
        // Every draft is kept in the database, and a second run does not duplicate them.
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM drafts"), 5);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM drafts WHERE body_text = 'this is not json'"), 1);
        // A document of an unknown resource is kept as it was read, not as an empty text.
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM drafts WHERE body_text = '{}'"), 1);
        ImportReport again = importFiles(f.engine(), f.model(), options);
        QCOMPARE(again.totals.drafts, 5);
        QCOMPARE(again.totals.unchanged, 1);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM drafts"), 5);
        const Json json = report.toJson();
        QCOMPARE(json["totals"]["drafts"].get<int>(), 5);
        QCOMPARE(json["byResource"]["ed-fi/schools"]["created"].get<int>(), 1);
        QVERIFY(json["drafts"][0].contains("problem"));
        QVERIFY(json["drafts"][0].contains("line"));
    }

    // Input already in load order (as the generator writes it: independent resources may still
    // come out of rank order) is applied as it is read, with no reading phase, and stores exactly
    // what the same lines shuffled store through the spool.
    void inputInLoadOrderIsAppliedAsItIsRead()
    {
        QTemporaryDir dir;
        std::vector<std::string> lines;
        GeneratorOptions generator;
        generator.students = 40;
        generateDistrict(generator, [&lines](const std::string &resource, const Json &body) {
            lines.push_back(envelopeLine(envelope(resource, body)));
        });
        auto write = [&dir](const QString &name, const std::vector<std::string> &content) {
            std::ofstream out(dir.filePath(name).toStdString());
            for (const std::string &line : content)
                out << line << "\n";
            return dir.filePath(name).toStdString();
        };
        ImportOptions ordered;
        ordered.paths = {write("ordered.ndjson", lines)};
        std::vector<std::string> shuffledLines = lines;
        std::shuffle(shuffledLines.begin(), shuffledLines.end(), std::mt19937(7));
        ImportOptions shuffled;
        shuffled.paths = {write("shuffled.ndjson", shuffledLines)};

        Fixture streamed;
        ImportReport streamedReport;
        QCOMPARE(phasesOf(streamed, ordered, &streamedReport), (std::vector<std::string>{"scanning", "applying"}));
        QVERIFY(streamedReport.completed);
        QCOMPARE(streamedReport.totals.created, static_cast<std::int64_t>(lines.size()));
        QCOMPARE(streamedReport.totals.drafts, 0);
        Fixture spooled;
        ImportReport spooledReport;
        QCOMPARE(phasesOf(spooled, shuffled, &spooledReport), (std::vector<std::string>{"scanning", "reading", "applying"}));
        QCOMPARE(spooledReport.totals.created, streamedReport.totals.created);
        QVERIFY(storedDocuments(streamed.databasePath()) == storedDocuments(spooled.databasePath()));
        QCOMPARE(count(streamed.databasePath(), "SELECT count(*) FROM refs"),
                 count(spooled.databasePath(), "SELECT count(*) FROM refs"));
        // Several preparing threads store exactly what one does.
        for (int jobs : {1, 3}) {
            Fixture threaded;
            ImportOptions withJobs = ordered;
            withJobs.jobs = jobs;
            const ImportReport report = importFiles(threaded.engine(), threaded.model(), withJobs);
            QVERIFY(report.completed);
            QCOMPARE(report.totals.created, streamedReport.totals.created);
            QVERIFY2(storedDocuments(threaded.databasePath()) == storedDocuments(streamed.databasePath()),
                     qPrintable(QStringLiteral("--jobs %1").arg(jobs)));
            QVERIFY(threaded.engine().check().clean());
        }
        // Again: all unchanged, still without the spool.
        ImportReport again;
        QCOMPARE(phasesOf(streamed, ordered, &again), (std::vector<std::string>{"scanning", "applying"}));
        QCOMPARE(again.totals.unchanged, static_cast<std::int64_t>(lines.size()));
    }

    // A document before one it references is out of load order: the spool puts it right.
    void dependentResourcesOutOfOrderGoThroughTheSpool()
    {
        QTemporaryDir dir;
        const std::vector<Json> inOrder = {envelope("ed-fi/gradeLevelDescriptors", descriptor("GradeLevelDescriptor", "Ninth grade")),
                                           envelope("ed-fi/schools", Fixture::school(255901)),
                                           envelope("ed-fi/courses", course("ALG-1", 255901))};
        writeEnvelopeLines(dir.filePath("in-order.ndjson"), inOrder);
        writeEnvelopeLines(dir.filePath("course-first.ndjson"), {inOrder[0], inOrder[2], inOrder[1]});
        {
            Fixture f;
            f.seedDescriptors();
            ImportOptions options;
            options.paths = {dir.filePath("in-order.ndjson").toStdString()};
            ImportReport report;
            QCOMPARE(phasesOf(f, options, &report), (std::vector<std::string>{"scanning", "applying"}));
            QCOMPARE(report.totals.created + report.totals.unchanged, 3);
        }
        Fixture f;
        f.seedDescriptors();
        ImportOptions options;
        options.paths = {dir.filePath("course-first.ndjson").toStdString()};
        ImportReport report;
        QCOMPARE(phasesOf(f, options, &report), (std::vector<std::string>{"scanning", "reading", "applying"}));
        QCOMPARE(report.totals.drafts, 0);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'Course'"), 1);
    }

    // In a streamed input, a line that cannot be parsed and bodies that are not objects are drafts
    // (the first keeps the line as it was) and the import goes on. A line naming "resource" twice
    // (the parser keeps the last) is not read cheaply: its input goes through the spool, where the
    // Course after it still finds its School.
    void streamedInputKeepsUnreadableLinesAndRepeatedMembersTakeTheSpool()
    {
        QTemporaryDir dir;
        const std::string broken = R"({"resource":"ed-fi/schools","body":{"schoolId":7,)";
        {
            std::ofstream out(dir.filePath("streamed.ndjson").toStdString());
            out << envelopeLine(envelope("ed-fi/schools", Fixture::school(5))) << "\n";
            out << broken << "\n";
            out << R"({"resource":"ed-fi/schools","body":[]})" << "\n";
            out << R"({"resource":"ed-fi/schools","body":null})" << "\n";
            out << envelopeLine(envelope("ed-fi/courses", course("ALG-1", 5))) << "\n";
        }
        {
            Fixture f;
            f.seedDescriptors();
            ImportOptions options;
            options.paths = {dir.filePath("streamed.ndjson").toStdString()};
            ImportReport report;
            QCOMPARE(phasesOf(f, options, &report), (std::vector<std::string>{"scanning", "applying"}));
            QVERIFY2(report.completed, report.error.c_str());
            QCOMPARE(report.totals.created, 2);
            QCOMPARE(report.totals.drafts, 3);
            QCOMPARE(report.drafts.at(0).line, 2);
            QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM drafts WHERE body_text = '" + broken + "'"), 1);
        }
        const std::string repeated = R"({"resource":"ed-fi/courses","body":)" + Fixture::school(255901).dump()
                                     + R"(,"resource":"ed-fi/schools"})";
        {
            std::ofstream out(dir.filePath("repeated.ndjson").toStdString());
            out << envelopeLine(envelope("ed-fi/schools", Fixture::school(5))) << "\n";
            out << envelopeLine(envelope("ed-fi/courses", course("ALG-1", 255901))) << "\n";
            out << repeated << "\n";
        }
        Fixture f;
        f.seedDescriptors();
        ImportOptions options;
        options.paths = {dir.filePath("repeated.ndjson").toStdString()};
        ImportReport report;
        QCOMPARE(phasesOf(f, options, &report), (std::vector<std::string>{"scanning", "reading", "applying"}));
        QCOMPARE(report.totals.created, 3);
        QCOMPARE(report.totals.drafts, 0);
    }

    // A large import skips looking up documents its filter of stored ids says are new. Another
    // program storing one of its documents between two chunks must not be missed: the import then
    // finds it (unchanged), where a stale filter made it a draft (identity conflict).
    void trackedIdsNoticeAnotherWriterBetweenChunks()
    {
        Fixture f;
        f.seedDescriptors();
        QTemporaryDir dir;
        std::vector<Json> lines;
        for (int id = 1; id <= 30; ++id)
            lines.push_back(envelope("ed-fi/schools", Fixture::school(id)));
        lines.push_back(envelope("ed-fi/schools", Fixture::school(5, "Renamed")));
        writeEnvelopeLines(dir.filePath("tracked.ndjson"), lines);
        ImportOptions options;
        options.paths = {dir.filePath("tracked.ndjson").toStdString()};
        options.chunkSize = 10;
        options.deferIndexesFrom = 1; // a "large" import: ids tracked
        bool otherWrote = false;
        ImportReport report = importFiles(f.engine(), f.model(), options, [&](const ImportProgress &p) {
            if (p.phase == "applying" && p.items == 10 && !otherWrote) {
                std::unique_ptr<Database> other = Database::open(f.databasePath());
                Engine otherEngine(f.model(), *other);
                Request post;
                post.method = "POST";
                post.path = "/ed-fi/schools";
                post.body = Fixture::school(25);
                otherWrote = otherEngine.handle(post).status == 201;
            }
            return true;
        });
        QVERIFY(otherWrote);
        QVERIFY2(report.completed, report.error.c_str());
        QCOMPARE(report.totals.created, 29);
        QCOMPARE(report.totals.unchanged, 1);
        QCOMPARE(report.totals.updated, 1);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 30);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM aliases a JOIN documents d USING (doc_key) "
                                         "WHERE d.resource = 'School'"),
                 60); // its own and EducationOrganization's, once each
    }

    void referencesWithinTheSameResourceResolve()
    {
        // An LEA whose parent LEA comes later in the file resolves on the second pass.
        Fixture f;
        f.seedDescriptors();
        auto lea = [](int id, int parent) {
            Json body{{"localEducationAgencyId", id},
                      {"nameOfInstitution", "LEA " + std::to_string(id)},
                      {"categories", Json::array({{{"educationOrganizationCategoryDescriptor",
                                                    "uri://ed-fi.org/EducationOrganizationCategoryDescriptor#Local "
                                                    "Education Agency"}}})},
                      {"localEducationAgencyCategoryDescriptor",
                       "uri://ed-fi.org/LocalEducationAgencyCategoryDescriptor#Independent"}};
            if (parent)
                body["parentLocalEducationAgencyReference"] = {{"localEducationAgencyId", parent}};
            return envelope("ed-fi/localEducationAgencies", body);
        };
        QTemporaryDir dir;
        writeLines(dir.filePath("leas.ndjson"), {lea(2, 1), lea(3, 2), lea(1, 0)});
        ImportOptions options;
        options.paths = {dir.filePath("leas.ndjson").toStdString()};
        ImportReport report = importFiles(f.engine(), f.model(), options);
        QCOMPARE(report.totals.created, 3);
        QCOMPARE(report.totals.drafts, 0);
    }

    // The scan before an import reports its bytes, across files, and a cancel during it stops the
    // import before anything is read or applied.
    void scanReportsBytesAndCanBeCancelled()
    {
        QTemporaryDir dir;
        std::vector<std::string> paths;
        for (const char *name : {"first.ndjson", "second.ndjson"}) {
            paths.push_back(dir.filePath(QString::fromLatin1(name)).toStdString());
            std::ofstream out(paths.back());
            GeneratorOptions generator;
            generator.students = 1700; // about 19,000 lines: the scan asks more than once per file
            generateDistrict(generator, [&out](const std::string &resource, const Json &body) {
                out << steward::envelopeLine(resource, body) << "\n";
            });
        }
        const std::uint64_t totalBytes = QFileInfo(QString::fromStdString(paths[0])).size()
                                         + QFileInfo(QString::fromStdString(paths[1])).size();
        ImportOptions options;
        options.paths = paths;

        Fixture f;
        std::vector<std::uint64_t> scanned;
        std::set<std::uint64_t> totalsSeen;
        ImportReport cancelled = importFiles(f.engine(), f.model(), options, [&](const ImportProgress &p) {
            if (p.phase != "scanning")
                return true;
            totalsSeen.insert(p.bytesTotal);
            scanned.push_back(p.bytesRead);
            return p.bytesRead < totalBytes / 2; // cancel once into the second file
        });
        QVERIFY(cancelled.cancelled);
        QVERIFY(!cancelled.completed);
        QCOMPARE(totalsSeen, std::set<std::uint64_t>{totalBytes});
        QVERIFY2(scanned.size() >= 3, std::to_string(scanned.size()).c_str());
        QVERIFY(std::is_sorted(scanned.begin(), scanned.end()));
        QCOMPARE(scanned.front(), std::uint64_t(0));
        QVERIFY(scanned.back() >= totalBytes / 2 && scanned.back() < totalBytes);
        QCOMPARE(cancelled.totals.created + cancelled.totals.drafts, std::int64_t(0));
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM documents"), std::int64_t(0));
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM drafts"), std::int64_t(0));
    }

    void cancelKeepsCommittedChunks()
    {
        Fixture f;
        f.seedDescriptors();
        QTemporaryDir dir;
        const std::string manyPath = writeSchools(dir, "many.ndjson", 50, 1000);
        ImportOptions options;
        options.paths = {manyPath};
        options.chunkSize = 10;
        int chunks = 0;
        ImportReport report = importFiles(f.engine(), f.model(), options, [&](const ImportProgress &p) {
            if (p.phase != "applying")
                return true;
            return ++chunks < 3; // stop after the third chunk
        });
        QVERIFY(report.cancelled);
        QVERIFY(!report.completed);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 30);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM changes WHERE resource = 'School'"), 30);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM pragma_foreign_key_check"), 0);
        // Running it again completes the rest.
        ImportReport rest = importFiles(f.engine(), f.model(), options);
        QVERIFY(rest.completed);
        QCOMPARE(rest.totals.created, 20);
        QCOMPARE(rest.totals.unchanged, 30);
    }

    void cancelInsideAChunkKeepsWhatItCounted()
    {
        Fixture f;
        f.seedDescriptors();
        QTemporaryDir dir;
        const std::string bigPath = writeSchools(dir, "big.ndjson", 2500, 10000);
        ImportOptions options;
        options.paths = {bigPath};
        options.deferIndexesFrom = 1000000; // keep this about chunks
        std::int64_t stoppedAt = 0;
        ImportReport report = importFiles(f.engine(), f.model(), options, [&](const ImportProgress &p) {
            if (p.phase != "applying")
                return true;
            stoppedAt = p.items;
            return false; // the first word from inside the (single, 50,000-document) chunk
        });
        QVERIFY(report.cancelled);
        QCOMPARE(stoppedAt, 1000);
        QCOMPARE(report.totals.created, 1000);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 1000);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM changes WHERE resource = 'School'"), 1000);
        QVERIFY(!f.engine().inBatch());
    }

    void largeImportDefersIndexesAndBuildsThemAgain()
    {
        Fixture f;
        f.seedDescriptors();
        QTemporaryDir dir;
        const std::string largePath = writeSchools(dir, "large.ndjson", 40, 3000);
        const std::string indexes = "SELECT count(*) FROM sqlite_master WHERE name IN ('documents_by_id', "
                                    "'changes_by_document', 'refs_by_target')";
        ImportOptions options;
        options.paths = {largePath};
        options.chunkSize = 10;
        options.deferIndexesFrom = 20; // 40 documents against a few stored: large
        std::set<std::string> phases;
        std::int64_t indexesWhileApplying = -1;
        int chunks = 0;
        ImportReport cancelled = importFiles(f.engine(), f.model(), options, [&](const ImportProgress &p) {
            phases.insert(p.phase);
            if (p.phase != "applying")
                return true;
            indexesWhileApplying = count(f.databasePath(), indexes);
            return ++chunks < 2;
        });
        QVERIFY(cancelled.cancelled);
        QCOMPARE(indexesWhileApplying, 0);
        QCOMPARE(count(f.databasePath(), indexes), 3); // built again although it was cancelled
        QCOMPARE(f.database().connection().execAndGet("PRAGMA foreign_keys").getInt64(), 1);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 20);

        phases.clear();
        ImportReport rest = importFiles(f.engine(), f.model(), options, [&](const ImportProgress &p) {
            phases.insert(p.phase);
            return true;
        });
        QVERIFY2(rest.completed, rest.error.c_str());
        QCOMPARE(rest.totals.created, 20);
        QCOMPARE(rest.totals.unchanged, 20);
        QVERIFY(phases.count("indexing"));
        QCOMPARE(count(f.databasePath(), indexes), 3);
        const IntegrityReport check = f.engine().check();
        QVERIFY2(check.clean(), check.toJson().dump().c_str());
        // The rebuilt id index answers: every School reads back by its id.
        SQLite::Database db(f.databasePath(), SQLite::OPEN_READONLY);
        Database::registerFunctions(db);
        SQLite::Statement ids(db, "SELECT id FROM documents WHERE resource = 'School'");
        int read = 0;
        while (ids.executeStep()) {
            const Response got = f.call("GET", "/ed-fi/schools/" + ids.getColumn(0).getString());
            QCOMPARE(got.status, 200);
            ++read;
        }
        QCOMPARE(read, 40);

        // A small import into what is now a larger database leaves the indexes in place.
        const std::string fewPath = writeSchools(dir, "few.ndjson", 20, 4000);
        options.paths = {fewPath};
        phases.clear();
        std::int64_t indexesDuringSmall = -1;
        for (int i = 0; i < 60; ++i) // grow what is stored past four times the import
            QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(5000 + i)).status, 201);
        ImportReport small = importFiles(f.engine(), f.model(), options, [&](const ImportProgress &p) {
            phases.insert(p.phase);
            if (p.phase == "applying")
                indexesDuringSmall = count(f.databasePath(), indexes);
            return true;
        });
        QVERIFY(small.completed);
        QCOMPARE(indexesDuringSmall, 3);
        QVERIFY(!phases.count("indexing"));
    }

    void largeImportChecksItsLinksInOnePass()
    {
        // A large import writes with SQLite's row-by-row foreign-key checks off and checks every
        // link once at the end: a link broken meanwhile is reported, and the checks are back on.
        Fixture f;
        f.seedDescriptors();
        QTemporaryDir dir;
        ImportOptions options;
        options.paths = {writeSchools(dir, "large.ndjson", 40, 3000)};
        options.chunkSize = 10;
        options.deferIndexesFrom = 20;
        SQLite::Database &writer = f.database().connection();
        std::int64_t checksWhileApplying = -1;
        ImportReport report = importFiles(f.engine(), f.model(), options, [&](const ImportProgress &p) {
            if (p.phase == "applying" && checksWhileApplying < 0) {
                checksWhileApplying = writer.execAndGet("PRAGMA foreign_keys").getInt64();
                // Something else breaks a link between two chunks (the checks would refuse it).
                writer.exec("INSERT INTO refs (from_doc, to_alias) VALUES ((SELECT max(doc_key) FROM document_rows), 987654)");
            }
            return true;
        });
        QCOMPARE(checksWhileApplying, 0);
        QCOMPARE(writer.execAndGet("PRAGMA foreign_keys").getInt64(), 1);
        QVERIFY2(!report.completed, report.toJson().dump().c_str());
        QVERIFY2(report.error.find("refs points at a missing alias_rows row") != std::string::npos, report.error.c_str());
        // Every document went in all the same, and with the checks back on the same link is refused.
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 40);
        QVERIFY_THROWS_EXCEPTION(SQLite::Exception,
                                 writer.exec("INSERT INTO refs (from_doc, to_alias) VALUES (1, 987655)"));
        writer.exec("DELETE FROM refs WHERE to_alias = 987654");
        const IntegrityReport check = f.engine().check();
        QVERIFY2(check.clean(), check.toJson().dump().c_str());
    }

    void writeFailurePartWayRollsBackItsChunk()
    {
        // Imports write without a savepoint per document; a write that fails after the document's
        // row went in must take the whole chunk with it, never leave a half-written document.
        Fixture f;
        f.seedDescriptors();
        QTemporaryDir dir;
        const std::string districtPath = writeSchools(dir, "district.ndjson", 25, 2000);
        // The alias goes in after the document's row and its change-log entry; fail it for the 15th School.
        f.database().connection().exec("CREATE TEMP TRIGGER fail_one AFTER INSERT ON main.alias_rows "
                                       "WHEN (SELECT identity FROM main.documents WHERE doc_key = NEW.doc_key) LIKE '%2014%' "
                                       "BEGIN SELECT RAISE(ABORT, 'simulated disk trouble'); END");
        ImportOptions options;
        options.paths = {districtPath};
        options.chunkSize = 10;
        ImportReport report = importFiles(f.engine(), f.model(), options);
        QVERIFY2(!report.completed, report.toJson().dump().c_str());
        QVERIFY2(report.error.find("simulated disk trouble") != std::string::npos, report.error.c_str());
        QVERIFY(!f.engine().inBatch());
        f.database().connection().exec("DROP TRIGGER fail_one");
        // The first chunk stays; the second (which held the failing School) left nothing behind.
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 10);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM changes WHERE resource = 'School'"), 10);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM aliases a WHERE NOT EXISTS "
                                         "(SELECT 1 FROM documents d WHERE d.doc_key = a.doc_key)"),
                 0);
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM drafts"), 0);
        // And the engine goes on working: the same import now completes.
        ImportReport again = importFiles(f.engine(), f.model(), options);
        QVERIFY2(again.completed, again.error.c_str());
        QCOMPARE(again.totals.created, 15);
        QCOMPARE(again.totals.unchanged, 10);
    }

    void failedCommitLeavesTheBatchToRollBack()
    {
        // A COMMIT that fails keeps its transaction open; the engine must still know it is in a
        // batch so that rollbackBatch() ends it, and the next batch can begin.
        Fixture f;
        f.seedDescriptors();
        QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(7000)).status, 201);
        SQLite::Database &db = f.database().connection();
        f.engine().beginBatch();
        db.exec("PRAGMA defer_foreign_keys=ON");
        db.exec("INSERT INTO refs (from_doc, to_alias) SELECT max(doc_key), 999999 FROM documents");
        QVERIFY_THROWS_EXCEPTION(SQLite::Exception, f.engine().commitBatch());
        QVERIFY(f.engine().inBatch());
        f.engine().rollbackBatch();
        QVERIFY(!f.engine().inBatch());
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM refs WHERE to_alias = 999999"), 0);
        f.engine().beginBatch();
        QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(7001)).status, 201);
        f.engine().commitBatch();
        QCOMPARE(count(f.databasePath(), "SELECT count(*) FROM documents WHERE resource = 'School'"), 2);
    }

    // Past BodyCodec::kSamplesToTrain documents of a resource, its text is stored compressed with a
    // dictionary trained on them; every way of reading gives the text back.
    void textIsCompressedOnceAResourceHasADictionary()
    {
        Fixture f;
        std::vector<std::string> ids;
        std::vector<Json> bodies;
        f.engine().beginBatch();
        for (int i = 0; i < 700; ++i) {
            bodies.push_back(student(i));
            ids.push_back(createdId(f.call("POST", "/ed-fi/students", bodies.back())));
        }
        f.engine().commitBatch();
        SQLite::Database &db = f.database().connection();
        QCOMPARE(db.execAndGet("SELECT count(*) FROM body_dictionaries WHERE resource = 'Student'").getInt(), 1);
        const std::int64_t compressed =
            db.execAndGet("SELECT count(*) FROM documents WHERE typeof(body) = 'blob' AND typeof(identity) = 'blob'")
                .getInt64();
        QCOMPARE(compressed, std::int64_t(700 - BodyCodec::kSamplesToTrain + 1)); // the one that completed the samples too
        const double ratio = db.execAndGet("SELECT sum(length(steward_text(body))) * 1.0 / sum(length(body)) FROM "
                                           "documents WHERE typeof(body) = 'blob'")
                                 .getDouble();
        QVERIFY2(ratio > 2, qPrintable(QString::number(ratio)));
        // A connection of its own reads the texts, meeting the dictionary through the database.
        std::unique_ptr<Database> reader = Database::open(f.databasePath(), Database::Access::ReadOnly);
        SQLite::Statement texts(reader->connection(), "SELECT steward_text(body) FROM documents ORDER BY doc_key");
        for (std::size_t i = 0; texts.executeStep(); ++i)
            JSON_COMPARE(Json::parse(texts.getColumn(0).getString()), bodies[i]);
        // The protocol, an update (its older version goes to the change log compressed), history, check.
        Json changed = bodies[650];
        changed["firstName"] = "Renamed";
        QCOMPARE(f.call("PUT", "/ed-fi/students/" + ids[650], changed).status, 204);
        Json got = f.call("GET", "/ed-fi/students/" + ids[650]).body;
        QCOMPARE(got["firstName"].get<std::string>(), std::string("Renamed"));
        const std::vector<HistoryEntry> history = f.engine().history(ids[650]);
        QCOMPARE(history.size(), std::size_t(2));
        JSON_COMPARE(*history[1].body, bodies[650]);
        QCOMPARE(f.call("GET", "/ed-fi/students?firstName=Renamed").body.size(), std::size_t(1));
        QCOMPARE(checkProblems(f), std::string());
    }

    // A dictionary trained in a chunk that rolls back is stored again with the next document that
    // uses it; one missing all the same is named by check, for each document that needs it.
    void aDictionaryIsStoredWithTheTextsThatNeedIt()
    {
        Fixture f;
        f.engine().beginBatch();
        for (int i = 0; i < 600; ++i)
            f.call("POST", "/ed-fi/students", student(i));
        f.engine().rollbackBatch();
        SQLite::Database &db = f.database().connection();
        QCOMPARE(db.execAndGet("SELECT count(*) FROM body_dictionaries").getInt(), 0);
        f.engine().beginBatch();
        for (int i = 0; i < 50; ++i)
            f.call("POST", "/ed-fi/students", student(i));
        f.engine().commitBatch();
        QCOMPARE(db.execAndGet("SELECT count(*) FROM documents WHERE typeof(body) = 'blob'").getInt(), 50);
        QCOMPARE(db.execAndGet("SELECT count(*) FROM body_dictionaries").getInt(), 1);
        QCOMPARE(checkProblems(f), std::string());

        db.exec("DELETE FROM body_dictionaries");
        std::unique_ptr<Database> other = Database::open(f.databasePath());
        Engine engine(f.model(), *other);
        // Each document; the full check adds integrity_check, which works the natural-key index out
        // from the text.
        const IntegrityReport report = engine.check();
        QCOMPARE(report.violations.size(), std::size_t(50));
        QVERIFY2(report.violations.front().problem.find("which body_dictionaries lacks") != std::string::npos,
                 report.violations.front().problem.c_str());
        const IntegrityReport full = engine.check(false, {}, CheckDepth::Full);
        QCOMPARE(full.violations.size(), std::size_t(51));
        QVERIFY2(full.violations.front().problem.find("which body_dictionaries lacks") != std::string::npos,
                 full.violations.front().problem.c_str());
    }

    void commandLine()
    {
        QTemporaryDir dir;
        writeLines(dir.filePath("in.ndjson"),
                   {envelope("ed-fi/gradeLevelDescriptors", descriptor("GradeLevelDescriptor", "Ninth grade")),
                    envelope("ed-fi/courses", course("X", 1))});
        const QString db = dir.filePath("cli.db");
        const QString reportPath = dir.filePath("report.json");
        CliRun run = runCli({"--db", db, "import", dir.filePath("in.ndjson"), "--report", reportPath, "--progress", "json"}, "");
        QCOMPARE(run.exitCode, 0); // drafts are an outcome, not a failure
        QVERIFY(run.stderrText.contains("1 created"));
        QVERIFY(run.stderrText.contains("\"phase\":\"applying\""));
        QFile file(reportPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const Json report = Json::parse(file.readAll().toStdString());
        file.close();
        QCOMPARE(report["totals"]["created"].get<int>(), 1);
        QCOMPARE(report["totals"]["drafts"].get<int>(), 1);
        QCOMPARE(report["drafts"][0]["line"].get<int>(), 2);
        // A line with invalid UTF-8 is a draft; its parse error quoted the bad bytes, on which the
        // draft and report writers threw and steward-cli aborted (found by fuzz_import_ndjson).
        {
            std::ofstream out(dir.filePath("utf8.ndjson").toStdString(), std::ios::binary);
            out << "{\"resource\":\"ed-fi/schools\",\"body\":{\"nameOfInstitution\":\"\xc3\x28\"}}\n";
        }
        CliRun bad = runCli({"--db", db, "import", dir.filePath("utf8.ndjson"), "--report", reportPath}, "");
        QCOMPARE(bad.exitCode, 0);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const Json badReport = Json::parse(file.readAll().toStdString());
        file.close();
        QCOMPARE(badReport["totals"]["drafts"].get<int>(), 1);
        QVERIFY(badReport["drafts"][0]["problem"]["detail"].get<std::string>().find("UTF-8") != std::string::npos);
        QCOMPARE(runCli({"--db", db, "import", dir.filePath("missing.ndjson")}, "").exitCode, 1);
        QCOMPARE(runCli({"--db", db, "import"}, "").exitCode, 2);
        QCOMPARE(runCli({"--db", db, "import", "--chunk", "0", dir.filePath("in.ndjson")}, "").exitCode, 2);
        QCOMPARE(runCli({"import", "--help"}, "").exitCode, 0);
    }

    void allPublishedDescriptorsImportIntoDs51()
    {
        const QString shared = sharedEdfiDir();
        if (shared.isEmpty())
            QSKIP("../shared/edfi is not present: the descriptor XML set is not part of a fresh clone");
        Fixture f(Model::loadFiles({(shared + "/ds-5.1/ApiSchema.json").toStdString()}));
        ImportOptions options;
        options.paths = {(shared + "/ds-5.1/Descriptors").toStdString()};
        ImportReport report = importFiles(f.engine(), f.model(), options);
        QVERIFY2(report.completed, report.error.c_str());
        if (!report.drafts.empty())
            qWarning("first rejection: %s:%lld %s", report.drafts[0].file.c_str(),
                     static_cast<long long>(report.drafts[0].line), report.drafts[0].problem.dump().c_str());
        QCOMPARE(report.totals.drafts, 0);
        QVERIFY(report.totals.created > 1000);
        qInfo("%lld descriptors in %zu resources", static_cast<long long>(report.totals.created),
              report.byResource.size());
        ImportReport again = importFiles(f.engine(), f.model(), options);
        QCOMPARE(again.totals.unchanged, report.totals.created);
    }
};

QTEST_GUILESS_MAIN(TestImport)
#include "tst_import.moc"
