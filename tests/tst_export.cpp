// Validated batch export and batch verification: the engine functions and the steward-cli commands.
#include "CliSupport.h"
#include "Exporter.h"
#include "FileMode.h"
#include "Importer.h"
#include "LoadOrder.h"
#include "SampleDistrict.h"
#include "TestSupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <fstream>
#include <set>

using namespace steward;
using namespace steward::test;

namespace {


// Descriptors, one School, one Course that references it (through EducationOrganization).
void seedSmall(Fixture &f)
{
    f.seedDescriptors();
    f.create("/ed-fi/schools", Fixture::school(255901));
    f.create("/ed-fi/courses", Fixture::course("ALG-1", 255901));
}

Json readJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return nullptr;
    JsonParseResult parsed = parseJson(file.readAll().toStdString());
    return parsed.value ? *parsed.value : Json();
}

std::vector<std::string> readLines(const QString &path)
{
    std::vector<std::string> lines;
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::string line;
    while (std::getline(in, line))
        lines.push_back(line);
    return lines;
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(bytes);
}

QByteArray readBytes(const QString &path)
{
    QFile file(path);
    file.open(QIODevice::ReadOnly);
    return file.readAll();
}

std::string sha256Hex(const QString &path)
{
    return fileHash(path).toHex().toStdString();
}

ExportResult exportTo(Fixture &f, const QString &dir, std::vector<std::string> resources = {},
                      const std::string &changedSince = {})
{
    ExportOptions options;
    options.outDir = dir.toStdString();
    options.resources = std::move(resources);
    options.changedSinceBatch = changedSince;
    return exportBatch(f.database(), f.model(), options);
}

std::int64_t scalar(Database &database, const std::string &sql)
{
    return database.connection().execAndGet(sql).getInt64();
}

bool hasProblem(const VerifyResult &result, const std::string &needle)
{
    for (const std::string &problem : result.problems)
        if (problem.find(needle) != std::string::npos)
            return true;
    return false;
}

std::string allProblems(const VerifyResult &result)
{
    std::string out;
    for (const std::string &problem : result.problems)
        out += problem + "\n";
    return out;
}

// The file entries of a manifest without anything that differs from one export to the next.
Json fileEntries(const Json &manifest)
{
    return manifest.value("files", Json::array());
}

std::vector<std::string> referentialIds(Database &database)
{
    std::vector<std::string> ids;
    SQLite::Statement query(database.connection(),
                            "SELECT lower(hex(referential_id)) FROM documents ORDER BY referential_id");
    while (query.executeStep())
        ids.push_back(query.getColumn(0).getString());
    return ids;
}

// Peak resident memory since the last reset, in MB (Linux; 0 elsewhere).
double peakRssMb(bool reset)
{
    if (reset) {
        std::ofstream clearRefs("/proc/self/clear_refs");
        clearRefs << "5";
    }
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

} // namespace

class TestExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writesFilesInLoadOrderWithManifest()
    {
        Fixture f;
        f.loadSampleDistrict();
        QTemporaryDir parent;
        const QString dir = parent.filePath("batch");
        const ExportResult result = exportTo(f, dir);
        QVERIFY2(result.ok, result.error.c_str());
        QCOMPARE(result.documents, scalar(f.database(), "SELECT count(*) FROM documents"));
        QCOMPARE(QString::fromStdString(result.directory), QDir(dir).absolutePath());

        const Json manifest = readJson(dir + "/manifest.json");
        QVERIFY(manifest.is_object());
        QCOMPARE(manifest["format"].get<std::string>(), std::string("steward-batch/1"));
        QCOMPARE(manifest["batchId"].get<std::string>(), result.batchId);
        QVERIFY(Uuid::parse(result.batchId).has_value());
        const std::string createdAt = manifest["createdAt"].get<std::string>();
        QVERIFY2(createdAt.size() == 20 && createdAt.back() == 'Z', createdAt.c_str());
        QCOMPARE(manifest["model"]["projects"][0]["name"].get<std::string>(), std::string("Ed-Fi"));
        QVERIFY(!manifest["model"]["projects"][0]["version"].get<std::string>().empty());
        QCOMPARE(manifest["changeSequence"]["from"].get<std::int64_t>(), std::int64_t(1));
        QCOMPARE(manifest["changeSequence"]["to"].get<std::int64_t>(), scalar(f.database(), "SELECT max(seq) FROM changes"));
        JSON_COMPARE(manifest["requires"], Json::array());
        QCOMPARE(manifest["documents"].get<std::int64_t>(), result.documents);

        // Files in load order, one per resource that has documents, with counts, hashes and bodies.
        const LoadOrder order(f.model());
        const Json &files = manifest["files"];
        QVERIFY(files.size() >= 15);
        QCOMPARE(files.size(), result.countsByResource.size());
        QCOMPARE(manifest["loadOrder"].size(), files.size());
        int previousRank = -1;
        std::set<QString> expectedNames{"manifest.json"};
        for (std::size_t i = 0; i < files.size(); ++i) {
            const Json &entry = files[i];
            const std::string resourceKey = entry["resource"].get<std::string>();
            QCOMPARE(manifest["loadOrder"][i].get<std::string>(), resourceKey);
            const ResourceSchema *resource =
                f.model().findByEndpoint("ed-fi", resourceKey.substr(resourceKey.find('/') + 1));
            QVERIFY(resource);
            QVERIFY2(order.rankOf(resource) > previousRank, resourceKey.c_str());
            previousRank = order.rankOf(resource);
            QCOMPARE(entry["name"].get<std::string>(), resource->endpointName + ".ndjson");
            const QString path = dir + "/" + QString::fromStdString(entry["name"].get<std::string>());
            expectedNames.insert(QString::fromStdString(entry["name"].get<std::string>()));
            QCOMPARE(entry["sha256"].get<std::string>(), sha256Hex(path));

            SQLite::Statement bodies(f.database().connection(),
                                     "SELECT body FROM documents WHERE project = ? AND resource = ? ORDER BY doc_key");
            bodies.bind(1, resource->projectName());
            bodies.bind(2, resource->resourceName);
            std::vector<std::string> stored;
            while (bodies.executeStep())
                stored.push_back(bodies.getColumn(0).getString());
            const std::vector<std::string> lines = readLines(path);
            QCOMPARE(lines, stored);
            QCOMPARE(entry["documents"].get<std::int64_t>(), std::int64_t(lines.size()));
            QCOMPARE(manifest["countsByResource"][resourceKey].get<std::int64_t>(), std::int64_t(lines.size()));
            QCOMPARE(result.countsByResource.at(resourceKey), std::int64_t(lines.size()));
            const Json first = Json::parse(lines.front());
            QVERIFY(!first.contains("id") && !first.contains("_etag") && !first.contains("_lastModifiedDate"));
        }
        // Descriptors before the schools that use them, schools before courses.
        auto position = [&](const std::string &key) {
            for (std::size_t i = 0; i < files.size(); ++i)
                if (files[i]["resource"] == key)
                    return static_cast<int>(i);
            return -1;
        };
        QVERIFY(position("ed-fi/gradeLevelDescriptors") < position("ed-fi/schools"));
        QVERIFY(position("ed-fi/schools") < position("ed-fi/courses"));
        QVERIFY(position("ed-fi/courses") < position("ed-fi/courseOfferings"));

        // Nothing else in the directory, no temporary sibling left, and the batch is recorded.
        const QStringList present = QDir(dir).entryList(QDir::Files | QDir::Hidden);
        QCOMPARE(std::set<QString>(present.begin(), present.end()), expectedNames);
        QCOMPARE(QDir(parent.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{"batch"});
        SQLite::Statement batch(f.database().connection(),
                                "SELECT seq_from, seq_to, out_dir, manifest FROM batches WHERE batch_id = ?");
        batch.bind(1, result.batchId);
        QVERIFY(batch.executeStep());
        QCOMPARE(batch.getColumn(0).getInt64(), std::int64_t(1));
        QCOMPARE(batch.getColumn(1).getInt64(), result.seqTo);
        QCOMPARE(QString::fromStdString(batch.getColumn(2).getString()), QDir(dir).absolutePath());
        QCOMPARE(QByteArray::fromStdString(batch.getColumn(3).getString()), readBytes(dir + "/manifest.json"));
    }

    void partialExportListsRequires()
    {
        Fixture f;
        seedSmall(f);
        QTemporaryDir parent;
        int run = 0;
        for (const std::string name : {"courses", "Course", "ed-fi/courses"}) {
            const QString dir = parent.filePath(QStringLiteral("batch-%1").arg(++run));
            const ExportResult result = exportTo(f, dir, {name});
            QVERIFY2(result.ok, result.error.c_str());
            QCOMPARE(result.documents, std::int64_t(1));
            const Json manifest = readJson(dir + "/manifest.json");
            QCOMPARE(manifest["files"].size(), std::size_t(1));
            QCOMPARE(manifest["files"][0]["name"].get<std::string>(), std::string("courses.ndjson"));
            JSON_COMPARE(manifest["loadOrder"], Json::array({"ed-fi/courses"}));
            JSON_COMPARE(manifest["selection"]["resources"], Json::array({"ed-fi/courses"}));

            // The School (referenced as an EducationOrganization) and the descriptor the course uses.
            const std::string schoolId = [&] {
                SQLite::Statement q(f.database().connection(),
                                    "SELECT referential_id FROM documents WHERE resource = 'School'");
                q.executeStep();
                Uuid id;
                std::memcpy(id.bytes.data(), q.getColumn(0).getBlob(), 16);
                return id.toString();
            }();
            const Json &required = manifest["requires"];
            QCOMPARE(required.size(), std::size_t(2));
            QCOMPARE(result.required, std::int64_t(2));
            JSON_COMPARE(required[0], (Json{{"resource", "ed-fi/courseIdentificationSystemDescriptors"},
                                           {"naturalKey",
                                            {{"namespace", "uri://ed-fi.org/CourseIdentificationSystemDescriptor"},
                                             {"codeValue", "LEA course code"}}},
                                           {"referentialId",
                                            IdentityCalculator::descriptorIdentity(
                                                "Ed-Fi", "CourseIdentificationSystemDescriptor",
                                                "uri://ed-fi.org/CourseIdentificationSystemDescriptor#LEA course code")
                                                .referentialId()
                                                .toString()}}));
            JSON_COMPARE(required[1], (Json{{"resource", "ed-fi/schools"},
                                           {"naturalKey", {{"schoolId", 255901}}},
                                           {"referentialId", schoolId}}));
            const VerifyResult verified = verifyBatch(dir.toStdString(), f.model());
            QVERIFY2(verified.ok, allProblems(verified).c_str());
        }

        // An unknown resource is refused before anything is written.
        const ExportResult unknown = exportTo(f, parent.filePath("nope"), {"noSuchThings"});
        QVERIFY(!unknown.ok);
        QVERIFY(unknown.refused == ExportResult::Refusal::Options);
        QVERIFY(unknown.error.find("noSuchThings") != std::string::npos);
        QVERIFY(!QFileInfo::exists(parent.filePath("nope")));
    }

    void verifyPassesAndCatchesTampering()
    {
        Fixture f;
        seedSmall(f);
        QTemporaryDir parent;
        const QString dir = parent.filePath("batch");
        const ExportResult result = exportTo(f, dir);
        QVERIFY2(result.ok, result.error.c_str());
        VerifyResult clean = verifyBatch(dir.toStdString(), f.model());
        QVERIFY2(clean.ok, allProblems(clean).c_str());
        QCOMPARE(clean.documents, result.documents);
        QCOMPARE(clean.files, std::int64_t(result.countsByResource.size()));

        // One byte changed.
        const QString schools = dir + "/schools.ndjson";
        const QByteArray original = readBytes(schools);
        QByteArray tampered = original;
        tampered[tampered.indexOf("Grand")] = 'g';
        writeFile(schools, tampered);
        VerifyResult changed = verifyBatch(dir.toStdString(), f.model());
        QVERIFY(!changed.ok);
        QVERIFY2(hasProblem(changed, "schools.ndjson: SHA-256"), allProblems(changed).c_str());
        QCOMPARE(changed.problems.size(), std::size_t(1));
        writeFile(schools, original);

        // A file gone, and one nobody listed.
        const QString courses = dir + "/courses.ndjson";
        const QByteArray courseBytes = readBytes(courses);
        QVERIFY(QFile::remove(courses));
        writeFile(dir + "/extra.ndjson", "{}\n");
        VerifyResult missing = verifyBatch(dir.toStdString(), f.model());
        QVERIFY(!missing.ok);
        QVERIFY2(hasProblem(missing, "courses.ndjson: listed in manifest.json but missing"), allProblems(missing).c_str());
        QVERIFY2(hasProblem(missing, "extra.ndjson: not listed in manifest.json"), allProblems(missing).c_str());
        QVERIFY(QFile::remove(dir + "/extra.ndjson"));
        writeFile(courses, courseBytes);
        QVERIFY(verifyBatch(dir.toStdString(), f.model()).ok);

        // A reference that resolves nowhere, with the manifest made to agree with the files: the
        // School is dropped from the batch and its hash and count updated.
        const QByteArray manifestBytes = readBytes(dir + "/manifest.json");
        Json manifest = Json::parse(manifestBytes.toStdString());
        writeFile(schools, "");
        for (Json &entry : manifest["files"])
            if (entry["name"] == "schools.ndjson") {
                entry["sha256"] = sha256Hex(schools);
                entry["documents"] = 0;
            }
        writeFile(dir + "/manifest.json", QByteArray::fromStdString(manifest.dump(2)));
        VerifyResult dangling = verifyBatch(dir.toStdString(), f.model());
        QVERIFY(!dangling.ok);
        QVERIFY2(hasProblem(dangling, "courses.ndjson:1: $.educationOrganizationReference: EducationOrganization "
                                      "(educationOrganizationId=255901) is neither in the batch nor in its requires"),
                 allProblems(dangling).c_str());
        QCOMPARE(dangling.problems.size(), std::size_t(1));

        // A line that is not JSON, again with a matching hash so only the line is wrong.
        writeFile(schools, original + "{not json\n");
        for (Json &entry : manifest["files"])
            if (entry["name"] == "schools.ndjson") {
                entry["sha256"] = sha256Hex(schools);
                entry["documents"] = 2;
            }
        writeFile(dir + "/manifest.json", QByteArray::fromStdString(manifest.dump(2)));
        VerifyResult badLine = verifyBatch(dir.toStdString(), f.model());
        QVERIFY2(hasProblem(badLine, "schools.ndjson:2: invalid JSON"), allProblems(badLine).c_str());
        QCOMPARE(badLine.problems.size(), std::size_t(1));

        // A manifest that names a file outside the batch is refused, not followed.
        manifest["files"][0]["name"] = "../outside.ndjson";
        writeFile(dir + "/manifest.json", QByteArray::fromStdString(manifest.dump(2)));
        VerifyResult escape = verifyBatch(dir.toStdString(), f.model());
        QVERIFY2(hasProblem(escape, "is not a batch file name"), allProblems(escape).c_str());

        QVERIFY(QFile::remove(dir + "/manifest.json"));
        VerifyResult noManifest = verifyBatch(dir.toStdString(), f.model());
        QVERIFY(!noManifest.ok);
        QVERIFY(hasProblem(noManifest, "manifest.json: missing"));
    }

    void changedSinceTakesOnlyLaterChanges()
    {
        Fixture f;
        seedSmall(f);
        QTemporaryDir parent;
        const ExportResult first = exportTo(f, parent.filePath("first"));
        QVERIFY2(first.ok, first.error.c_str());

        // One update, one new document.
        QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(255901, "Grand Bend Senior High")).status, 200);
        f.create("/ed-fi/courses", Fixture::course("GEO-1", 255901));
        const ExportResult second = exportTo(f, parent.filePath("second"), {}, first.batchId);
        QVERIFY2(second.ok, second.error.c_str());
        QCOMPARE(second.documents, std::int64_t(2));
        QCOMPARE(second.seqFrom, first.seqTo + 1);
        QCOMPARE(second.seqTo, scalar(f.database(), "SELECT max(seq) FROM changes"));
        const Json manifest = readJson(parent.filePath("second/manifest.json"));
        QCOMPARE(manifest["changeSequence"]["from"].get<std::int64_t>(), first.seqTo + 1);
        QCOMPARE(manifest["selection"]["changedSince"].get<std::string>(), first.batchId);
        JSON_COMPARE(manifest["loadOrder"], Json::array({"ed-fi/schools", "ed-fi/courses"}));
        const std::vector<std::string> schools = readLines(parent.filePath("second/schools.ndjson"));
        QCOMPARE(schools.size(), std::size_t(1));
        QVERIFY(schools[0].find("Grand Bend Senior High") != std::string::npos);
        const std::vector<std::string> courses = readLines(parent.filePath("second/courses.ndjson"));
        QCOMPARE(courses.size(), std::size_t(1));
        QVERIFY(courses[0].find("GEO-1") != std::string::npos);
        // The descriptors they use stayed behind: the batch requires them.
        QVERIFY(!manifest["requires"].empty());
        for (const Json &entry : manifest["requires"])
            QVERIFY(entry["resource"].get<std::string>().find("Descriptors") != std::string::npos);
        VerifyResult verified = verifyBatch(parent.filePath("second").toStdString(), f.model());
        QVERIFY2(verified.ok, allProblems(verified).c_str());

        // Nothing changed since: an empty batch, still recorded.
        const ExportResult third = exportTo(f, parent.filePath("third"), {}, second.batchId);
        QVERIFY2(third.ok, third.error.c_str());
        QCOMPARE(third.documents, std::int64_t(0));
        QCOMPARE(QDir(parent.filePath("third")).entryList(QDir::Files), QStringList{"manifest.json"});
        QCOMPARE(scalar(f.database(), "SELECT count(*) FROM batches"), std::int64_t(3));

        // With a resource filter too.
        f.create("/ed-fi/courses", Fixture::course("BIO-1", 255901));
        const ExportResult fourth = exportTo(f, parent.filePath("fourth"), {"schools"}, third.batchId);
        QVERIFY2(fourth.ok, fourth.error.c_str());
        QCOMPARE(fourth.documents, std::int64_t(0));

        const ExportResult unknown = exportTo(f, parent.filePath("unknown"), {}, "no-such-batch");
        QVERIFY(!unknown.ok);
        QVERIFY(unknown.refused == ExportResult::Refusal::Options);
        QVERIFY(unknown.error.find("no-such-batch") != std::string::npos);
        QVERIFY(!QFileInfo::exists(parent.filePath("unknown")));
    }

    void nonEmptyDirectoryIsRefused()
    {
        Fixture f;
        seedSmall(f);
        QTemporaryDir parent;
        const QString busy = parent.filePath("busy");
        QVERIFY(QDir().mkpath(busy));
        writeFile(busy + "/keep.txt", "mine");
        const ExportResult refused = exportTo(f, busy);
        QVERIFY(!refused.ok);
        QVERIFY(refused.refused == ExportResult::Refusal::Options);
        QVERIFY(refused.error.find("not empty") != std::string::npos);
        QCOMPARE(QDir(busy).entryList(QDir::Files | QDir::Hidden), QStringList{"keep.txt"});
        QCOMPARE(readBytes(busy + "/keep.txt"), QByteArray("mine"));

        writeFile(parent.filePath("plain-file"), "x");
        QVERIFY(exportTo(f, parent.filePath("plain-file")).refused == ExportResult::Refusal::Options);

        const QString empty = parent.filePath("empty");
        QVERIFY(QDir().mkpath(empty));
        const ExportResult ok = exportTo(f, empty + "/");
        QVERIFY2(ok.ok, ok.error.c_str());
        QVERIFY(QFileInfo::exists(empty + "/schools.ndjson"));
        QCOMPARE(scalar(f.database(), "SELECT count(*) FROM batches"), std::int64_t(1));
    }

    // A batch is every record it exports: under the usual umask its folder is 0700 and each file in
    // it 0600, in a new folder and in an empty one that was there before (its mode was the user's).
    void aBatchIsTheOwnersAlone()
    {
        const ScopedUmask usual(022);
        Fixture f;
        seedSmall(f);
        QTemporaryDir parent;
        const QString existing = parent.filePath("existing");
        QVERIFY(QDir().mkpath(existing));
        QCOMPARE(modeOf(existing), QStringLiteral("755"));
        for (const QString &dir : {parent.filePath("new"), existing}) {
            const ExportResult result = exportTo(f, dir);
            QVERIFY2(result.ok, result.error.c_str());
            QCOMPARE(modeOf(dir), QStringLiteral("700"));
            const QStringList files = QDir(dir).entryList(QDir::Files | QDir::Hidden);
            QVERIFY(files.contains("manifest.json") && files.contains("schools.ndjson"));
            for (const QString &file : files)
                QVERIFY2(modeOf(dir + "/" + file) == QStringLiteral("600"),
                         qPrintable(file + " is " + modeOf(dir + "/" + file)));
        }
    }

    void draftsAreNotExported()
    {
        Fixture f;
        seedSmall(f);
        const ResourceSchema *schools = f.model().findByEndpoint("ed-fi", "schools");
        f.engine().saveDraft(*schools, Fixture::school(777777, "Draft Academy").dump(), "");
        f.engine().saveDraft(*schools, "{\"schoolId\": 888888, not even json", "");
        QCOMPARE(scalar(f.database(), "SELECT count(*) FROM drafts"), std::int64_t(2));
        QTemporaryDir parent;
        const ExportResult result = exportTo(f, parent.filePath("batch"));
        QVERIFY2(result.ok, result.error.c_str());
        QCOMPARE(result.countsByResource.at("ed-fi/schools"), std::int64_t(1));
        const QByteArray schoolsFile = readBytes(parent.filePath("batch/schools.ndjson"));
        QVERIFY(!schoolsFile.contains("777777"));
        QVERIFY(!schoolsFile.contains("888888"));
    }

    void cancelLeavesNothing()
    {
        Fixture f;
        seedSmall(f);
        for (int stopAt : {1, 2, 3}) {
            QTemporaryDir parent;
            const QString dir = parent.filePath("batch");
            int calls = 0;
            ExportOptions options;
            options.outDir = dir.toStdString();
            const ExportResult result =
                exportBatch(f.database(), f.model(), options, [&](std::int64_t done, std::int64_t total) {
                    Q_UNUSED(done);
                    Q_UNUSED(total);
                    return ++calls < stopAt;
                });
            QVERIFY(!result.ok);
            QVERIFY(result.cancelled);
            QCOMPARE(calls, stopAt);
            QVERIFY(!QFileInfo::exists(dir));
            QVERIFY(QDir(parent.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).isEmpty());
        }
        QCOMPARE(scalar(f.database(), "SELECT count(*) FROM batches"), std::int64_t(0));
        // Progress reports reach the total.
        QTemporaryDir parent;
        std::int64_t lastDone = -1;
        std::int64_t lastTotal = -1;
        ExportOptions options;
        options.outDir = parent.filePath("batch").toStdString();
        const ExportResult result = exportBatch(f.database(), f.model(), options, [&](std::int64_t done, std::int64_t total) {
            lastDone = done;
            lastTotal = total;
            return true;
        });
        QVERIFY(result.ok);
        QCOMPARE(lastDone, result.documents);
        QCOMPARE(lastTotal, result.documents);
    }

    void cliExitCodes()
    {
        Fixture f;
        seedSmall(f);
        const QString db = QString::fromStdString(f.databasePath());
        QTemporaryDir parent;
        const QString out = parent.filePath("batch");

        CliRun help = runCli({"export", "--help"}, {});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.stdoutText.contains("Example"));
        QVERIFY(help.stdoutText.contains("--changed-since"));
        QCOMPARE(runCli({"verify-batch", "--help"}, {}).exitCode, 0);

        QCOMPARE(runCli({"--db", db, "export"}, {}).exitCode, 2);
        QCOMPARE(runCli({"--db", db, "export", "--out"}, {}).exitCode, 2);
        CliRun unknownArg = runCli({"--db", db, "export", "--out", out, "--bogus"}, {});
        QCOMPARE(unknownArg.exitCode, 2);
        QVERIFY(unknownArg.stderrText.contains("export --help"));
        QCOMPARE(runCli({"--db", db, "export", "--out", out, "--all", "--changed-since", "x"}, {}).exitCode, 2);
        CliRun unknownResource = runCli({"--db", db, "export", "--out", out, "--resource", "noSuchThings"}, {});
        QCOMPARE(unknownResource.exitCode, 2);
        QVERIFY(unknownResource.stderrText.contains("noSuchThings"));
        CliRun unknownBatch = runCli({"--db", db, "export", "--out", out, "--changed-since", "no-such-batch"}, {});
        QCOMPARE(unknownBatch.exitCode, 2);
        QVERIFY(unknownBatch.stderrText.contains("no-such-batch"));
        QVERIFY(!QFileInfo::exists(out));

        const QString foreign = parent.filePath("foreign.db");
        writeFile(foreign, QByteArray(4096, 'x'));
        CliRun badDb = runCli({"--db", foreign, "export", "--out", out}, {});
        QCOMPARE(badDb.exitCode, 2);
        QVERIFY(badDb.stderrText.contains("database error"));
        QCOMPARE(badDb.stderrText.count('\n'), 1);

        CliRun exported = runCli({"--db", db, "export", "--out", out, "--all"}, {});
        QCOMPARE(exported.exitCode, 0);
        const QString batchId = exported.stdoutText.trimmed();
        QVERIFY2(Uuid::parse(batchId.toStdString()).has_value(), qPrintable(exported.stdoutText));
        QVERIFY(exported.stderrText.contains("exported 11 documents"));
        QCOMPARE(exported.stderrText.count('\n'), 1);
        QCOMPARE(runCli({"--db", db, "export", "--out", out}, {}).exitCode, 2); // not empty now

        CliRun since = runCli({"--db", db, "export", "--out", parent.filePath("since"), "--changed-since", batchId,
                               "--resource", "schools"},
                              {});
        QCOMPARE(since.exitCode, 0);

        CliRun verified = runCli({"verify-batch", out}, {});
        QCOMPARE(verified.exitCode, 0);
        QVERIFY2(verified.stdoutText.startsWith("ok: 11 documents in 9 files"), qPrintable(verified.stdoutText));
        QCOMPARE(runCli({"verify-batch"}, {}).exitCode, 2);
        QCOMPARE(runCli({"verify-batch", parent.filePath("nowhere")}, {}).exitCode, 2);
        QCOMPARE(runCli({"verify-batch", out, out}, {}).exitCode, 2);

        QByteArray schools = readBytes(out + "/schools.ndjson");
        schools[5] = schools[5] == '1' ? '2' : '1';
        writeFile(out + "/schools.ndjson", schools);
        CliRun tampered = runCli({"verify-batch", out}, {});
        QCOMPARE(tampered.exitCode, 1);
        QVERIFY(tampered.stdoutText.startsWith("schools.ndjson: SHA-256"));
    }

    // The round trip: export everything, import it into an empty database, export again.
    void roundTripThroughImport()
    {
        Fixture source;
        source.loadSampleDistrict();
        QTemporaryDir parent;
        const ExportResult first = exportTo(source, parent.filePath("first"));
        QVERIFY2(first.ok, first.error.c_str());

        Fixture target;
        ImportOptions options;
        options.paths = {parent.filePath("first").toStdString()};
        options.actor = "test";
        const ImportReport report = importFiles(target.engine(), target.model(), options);
        QVERIFY2(report.completed, report.toJson().dump().c_str());
        QCOMPARE(report.totals.drafts, std::int64_t(0));
        QCOMPARE(report.totals.created, first.documents);

        const ExportResult second = exportTo(target, parent.filePath("second"));
        QVERIFY2(second.ok, second.error.c_str());
        QCOMPARE(second.countsByResource, first.countsByResource);
        // Same files byte for byte (so the same bodies in the same order), same referential ids.
        JSON_COMPARE(fileEntries(readJson(parent.filePath("second/manifest.json"))),
                     fileEntries(readJson(parent.filePath("first/manifest.json"))));
        QCOMPARE(referentialIds(target.database()), referentialIds(source.database()));
    }

    void roundTripThroughCli()
    {
        Fixture source;
        source.loadSampleDistrict();
        QTemporaryDir parent;
        const QString first = parent.filePath("first");
        QCOMPARE(runCli({"--db", QString::fromStdString(source.databasePath()), "export", "--out", first}, {}).exitCode, 0);
        const QString db = parent.filePath("copy.db");
        CliRun imported = runCli({"--db", db, "import", first}, {});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.stderrText));
        const QString second = parent.filePath("second");
        QCOMPARE(runCli({"--db", db, "export", "--out", second}, {}).exitCode, 0);
        JSON_COMPARE(fileEntries(readJson(second + "/manifest.json")), fileEntries(readJson(first + "/manifest.json")));
        QCOMPARE(runCli({"verify-batch", second}, {}).exitCode, 0);
    }

    void extensionFilesNameTheirProject()
    {
        if (sharedEdfiDir().isEmpty())
            QSKIP("../shared/edfi is not present");
        const std::string shared = sharedEdfiDir().toStdString();
        Fixture f(Model::loadFiles({shared + "/ds-5.1/ApiSchema.json", shared + "/ds-5.1/ApiSchema-TPDM.json"}));
        f.create("/tpdm/accreditationStatusDescriptors", Json{{"namespace", "uri://tpdm.ed-fi.org/AccreditationStatusDescriptor"},
                                                              {"codeValue", "Accredited"},
                                                              {"shortDescription", "Accredited"}});
        f.create("/ed-fi/gradeLevelDescriptors", Json{{"namespace", "uri://ed-fi.org/GradeLevelDescriptor"},
                                                      {"codeValue", "Ninth grade"},
                                                      {"shortDescription", "Ninth grade"}});
        QTemporaryDir parent;
        const ExportResult result = exportTo(f, parent.filePath("batch"));
        QVERIFY2(result.ok, result.error.c_str());
        QVERIFY(QFileInfo::exists(parent.filePath("batch/tpdm.accreditationStatusDescriptors.ndjson")));
        QVERIFY(QFileInfo::exists(parent.filePath("batch/gradeLevelDescriptors.ndjson")));
        const Json manifest = readJson(parent.filePath("batch/manifest.json"));
        QCOMPARE(manifest["model"]["projects"].size(), std::size_t(2));
        QVERIFY(verifyBatch(parent.filePath("batch").toStdString(), f.model()).ok);
        // The starter model has no TPDM: verifying with it says so instead of passing.
        auto starter = Model::loadStarter();
        VerifyResult withStarter = verifyBatch(parent.filePath("batch").toStdString(), *starter);
        QVERIFY(!withStarter.ok);
        QVERIFY2(hasProblem(withStarter, "tpdm/accreditationStatusDescriptors' is not in the model"),
                 allProblems(withStarter).c_str());
    }

    // STEWARD_EXPORT_BENCH=100000 tst_export benchmark: export and verify speed on generated students.
    void benchmark()
    {
        const int count = qEnvironmentVariableIntValue("STEWARD_EXPORT_BENCH");
        if (count <= 0)
            QSKIP("set STEWARD_EXPORT_BENCH=<documents> to measure");
        // Students, and an enrollment for every tenth of them (references for "requires").
        Fixture f;
        f.seedDescriptors();
        f.create("/ed-fi/schools", Fixture::school(255901));
        QElapsedTimer timer;
        timer.start();
        f.engine().beginBatch();
        for (int i = 1; i <= count; ++i) {
            const Request student = Request::make("POST", "/ed-fi/students", "",
                                                  Json{{"studentUniqueId", "S" + std::to_string(i)},
                                                       {"firstName", "Student"},
                                                       {"lastSurname", "Number " + std::to_string(i)},
                                                       {"birthDate", "2010-01-01"}});
            QCOMPARE(f.engine().handle(student).status, 201);
            if (i % 10 == 0) {
                const Request enrollment = Request::make(
                    "POST", "/ed-fi/studentSchoolAssociations", "",
                    Json{{"studentReference", {{"studentUniqueId", "S" + std::to_string(i)}}},
                         {"schoolReference", {{"schoolId", 255901}}},
                         {"entryDate", "2024-08-19"},
                         {"entryGradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}});
                QCOMPARE(f.engine().handle(enrollment).status, 201);
            }
            if (i % 5000 == 0) {
                f.engine().commitBatch();
                f.engine().beginBatch();
            }
        }
        f.engine().commitBatch();
        const std::int64_t documents = scalar(f.database(), "SELECT count(*) FROM documents");
        qInfo("seeded %lld documents in %.1f s", static_cast<long long>(documents), timer.elapsed() / 1000.0);
        QTemporaryDir parent;
        const double before = peakRssMb(true);
        timer.restart();
        const ExportResult result = exportTo(f, parent.filePath("batch"));
        const double exportSeconds = timer.elapsed() / 1000.0;
        QVERIFY2(result.ok, result.error.c_str());
        QCOMPARE(result.documents, documents);
        qInfo("export: %lld documents in %.2f s = %.0f docs/s, peak RSS %.0f MB (%.0f MB before)",
              static_cast<long long>(documents), exportSeconds, documents / exportSeconds, peakRssMb(false), before);
        timer.restart();
        const VerifyResult verified = verifyBatch(parent.filePath("batch").toStdString(), f.model());
        const double verifySeconds = timer.elapsed() / 1000.0;
        QVERIFY(verified.ok);
        qInfo("verify: %lld documents in %.2f s = %.0f docs/s", static_cast<long long>(documents), verifySeconds,
              documents / verifySeconds);
        timer.restart();
        const ExportResult partial = exportTo(f, parent.filePath("partial"), {"studentSchoolAssociations"});
        QVERIFY2(partial.ok, partial.error.c_str());
        QCOMPARE(partial.required, std::int64_t(count / 10 + 2)); // the students, the school, the grade level
        qInfo("partial export: %lld documents requiring %lld in %.2f s", static_cast<long long>(partial.documents),
              static_cast<long long>(partial.required), timer.elapsed() / 1000.0);
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
