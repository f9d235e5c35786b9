// Against the published Ed-Fi files in ../shared/edfi (skipped, visibly, when they are absent).
#include "CliSupport.h"
#include "Engine.h"
#include "Identity.h"
#include "TestSupport.h"
#include "Validation.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace steward;
using namespace steward::test;

namespace {

// A deterministic value for every property the schema declares, so identities have something to hash.
Json sampleFor(const Json &schema, const std::string &path)
{
    const std::string type = schema.value("type", "");
    if (type == "object") {
        Json out = Json::object();
        if (schema.contains("properties"))
            for (auto &[key, sub] : schema["properties"].items())
                out[key] = sampleFor(sub, path + "." + key);
        return out;
    }
    if (type == "array")
        return Json::array({sampleFor(schema.value("items", Json::object()), path + "[0]")});
    const QByteArray hash = QCryptographicHash::hash(QByteArray::fromStdString(path), QCryptographicHash::Md5);
    const int small = (static_cast<unsigned char>(hash[0]) << 8 | static_cast<unsigned char>(hash[1])) % 30000 + 1;
    if (type == "integer")
        return small;
    if (type == "number")
        return small + 0.25;
    if (type == "boolean")
        return true;
    const std::string format = schema.value("format", "");
    if (format == "date")
        return "2022-08-23";
    if (format == "date-time")
        return "2022-08-23T10:15:00";
    if (format == "time")
        return "10:15:00";
    std::string text = "V" + QByteArray(hash.toHex()).left(8).toStdString();
    if (path.size() > 10 && path.substr(path.size() - 10) == "Descriptor")
        text = "uri://ed-fi.org/Sample#" + text;
    return text;
}

std::unique_ptr<Model> loadDs51(bool withTpdm)
{
    const QString shared = sharedEdfiDir();
    std::vector<std::string> files = {(shared + "/ds-5.1/ApiSchema.json").toStdString()};
    if (withTpdm)
        files.push_back((shared + "/ds-5.1/ApiSchema-TPDM.json").toStdString());
    return Model::loadFiles(files);
}

// Two descriptors of DS 5.1 the starter model does not have, as request lines.
QByteArray descriptorsOutsideTheStarter()
{
    QByteArray lines;
    for (const char *name : {"accommodationDescriptors", "academicHonorCategoryDescriptors"}) {
        const std::string resource = std::string(1, static_cast<char>(std::toupper(name[0]))) + (name + 1);
        const std::string descriptor = resource.substr(0, resource.size() - 1);
        const Json line{{"method", "POST"},
                        {"path", std::string("/ed-fi/") + name},
                        {"body",
                         {{"namespace", "uri://ed-fi.org/" + descriptor},
                          {"codeValue", "Recorded"},
                          {"shortDescription", "Recorded"}}}};
        lines += QByteArray::fromStdString(line.dump()) + "\n";
    }
    return lines;
}

} // namespace

class TestDs51 : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (sharedEdfiDir().isEmpty())
            QSKIP("../shared/edfi is not present: the published Ed-Fi files are not part of a fresh clone");
    }

    void loadsCoreAndTpdmAndCompilesEverySchema()
    {
        auto model = loadDs51(true);
        QCOMPARE(model->projects().size(), std::size_t(2));
        std::size_t count = model->resources().size();
        QVERIFY2(count >= 340 + 30, qPrintable(QString::number(count)));
        QVERIFY(model->findByEndpoint("tpdm", "candidates"));
        // TPDM's School extension lands under _ext.tpdm of the core School.
        const ResourceSchema *school = model->findByEndpoint("ed-fi", "schools");
        QVERIFY(school->jsonSchema["properties"]["_ext"]["properties"].contains("tpdm"));
        // Loading compiled every resource's JSON Schema; DS 5.0 loads and compiles too.
        auto ds50 = Model::loadFiles({(sharedEdfiDir() + "/ds-5.0/ApiSchema.json").toStdString()});
        QVERIFY(ds50->resources().size() >= 328);
    }

    void compiledSchemaAgreesWithTheFullWay()
    {
        // A document with every property of each resource of DS 5.1 and TPDM (and DS 5.0), and
        // variants of a dozen of its values: the compiled walk takes every resource, and agrees.
        for (const std::unique_ptr<Model> &model :
             {loadDs51(true), Model::loadFiles({(sharedEdfiDir() + "/ds-5.0/ApiSchema.json").toStdString()})}) {
            int compared = 0;
            int passed = 0;
            for (const ResourceSchema *resource : model->resources()) {
                const Json document = sampleFor(resource->jsonSchema, "$");
                Json copy = document;
                passed += model->validator().passesCompiledSchema(*resource, copy) ? 1 : 0;
                std::string difference;
                compared += compareCompiledSchemaWithFullWay(*model, *resource, document, difference, 12);
                QVERIFY2(difference.empty(), difference.c_str());
            }
            qInfo("%d bodies of %zu resources; %d of the full documents passed both ways", compared, model->resources().size(),
                  passed);
            // The samples take no heed of lengths and bounds, so some fail both ways; most pass.
            QVERIFY(passed > static_cast<int>(model->resources().size()) * 3 / 4);
        }
    }

    void publishedTestSchemas()
    {
        auto minimal = Model::loadFiles({(sharedEdfiDir() + "/test-schemas/minimal.json").toStdString()});
        QVERIFY(minimal->findByEndpoint("testproject", "widgets"));
        auto refs = Model::loadFiles({(sharedEdfiDir() + "/test-schemas/referential-identity.json").toStdString()});
        QVERIFY(refs->findByEndpoint(refs->projects()[0]->projectEndpointName, "schools"));
    }

    void exampleSessionOnDs51()
    {
        QTemporaryDir dir;
        const QString shared = sharedEdfiDir();
        checkExampleSession({"--schema", shared + "/ds-5.1/ApiSchema.json", "--schema",
                             shared + "/ds-5.1/ApiSchema-TPDM.json"},
                            dir.filePath("ds51.db"));
    }

    // A database made with --schema records its model: checked without --schema (here, renamed, and
    // copied elsewhere, the schema files it was made with gone) it is clean; a --schema that would
    // leave its documents out is refused.
    void theDatabaseOpensWithTheModelItRecords()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath("made-with-ds51.db");
        const QString ds51 = sharedEdfiDir() + "/ds-5.1/ApiSchema.json";
        QVERIFY(QDir(dir.path()).mkdir("schemas"));
        const QString copied = dir.filePath("schemas/ApiSchema.json");
        QVERIFY(QFile::copy(ds51, copied));
        const CliRun made = runCli({"--db", db, "--schema", copied, "requests"}, descriptorsOutsideTheStarter());
        QCOMPARE(made.exitCode, 0);
        QCOMPARE(made.responses.size(), std::size_t(2));
        for (const Json &response : made.responses)
            QCOMPARE(response["status"].get<int>(), 201);
        QVERIFY(QDir(dir.filePath("schemas")).removeRecursively());

        const QString moved = dir.filePath("copied elsewhere.db");
        QVERIFY(QFile::copy(db, moved));
        QVERIFY(!QFile::exists(db + "-wal") || QFile(db + "-wal").size() == 0);
        for (const QString &path : {db, moved}) {
            const CliRun check = runCli({"--db", path, "check"}, "");
            QVERIFY2(check.exitCode == 0, qPrintable(check.stdoutText + check.stderrText));
            QVERIFY2(check.stdoutText.contains("2 documents checked; no problems found"), qPrintable(check.stdoutText));
            const CliRun status = runCli({"--db", path, "status"}, "");
            QCOMPARE(status.exitCode, 0);
            QVERIFY2(status.stdoutText.startsWith("model: Ed-Fi 5.1.0\n"), qPrintable(status.stdoutText));
        }

        // A model without those resources: refused, naming them and their counts; the record stays.
        const QByteArray before = fileHash(moved);
        const CliRun refused =
            runCli({"--db", moved, "--schema", sharedEdfiDir() + "/test-schemas/minimal.json", "status"}, "");
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.stderrText.contains("--schema refused: 2 stored document(s) of 2 resource(s)"),
                 qPrintable(refused.stderrText));
        QVERIFY2(refused.stderrText.contains("Ed-Fi AccommodationDescriptor (1)"), qPrintable(refused.stderrText));
        QVERIFY2(refused.stderrText.contains("keeps its model, Ed-Fi 5.1.0"), qPrintable(refused.stderrText));
        QCOMPARE(fileHash(moved), before);
        const CliRun after = runCli({"--db", moved, "status", "--json"}, "");
        const Json model = Json::parse(after.stdoutText.toStdString())["model"];
        QCOMPARE(model["files"].size(), std::size_t(1));
        QCOMPARE(model["files"][0]["name"].get<std::string>(), std::string("ApiSchema.json"));
        QCOMPARE(model["files"][0]["version"].get<std::string>(), std::string("5.1.0"));
        QCOMPARE(model["files"][0]["sha256"].get<std::string>(), fileHash(ds51).toHex().toStdString());
    }

    // Every identity value answers to its own name as a query parameter (ODS/API's names), whatever
    // other reference value the published files gave that name to.
    void identityValuesKeepTheirQueryNames()
    {
        for (const auto &model : {loadDs51(true), Model::loadFiles({(sharedEdfiDir() + "/ds-5.0/ApiSchema.json").toStdString()})}) {
            int checked = 0;
            for (const ResourceSchema *resource : model->resources()) {
                for (const JsonPath &identity : resource->identityPaths) {
                    auto field = resource->queryFields.find(toLower(identity.steps().back().property));
                    if (field == resource->queryFields.end())
                        continue;
                    ++checked;
                    // The name answers for this identity value, or for another of the same name (a
                    // CourseOffering's school and its session's school hold one value).
                    const bool named = std::any_of(field->second.paths.begin(), field->second.paths.end(),
                                                   [&](const QueryFieldPath &p) {
                                                       return std::any_of(resource->identityPaths.begin(),
                                                                          resource->identityPaths.end(),
                                                                          [&](const JsonPath &i) { return p.path == i; });
                                                   });
                    QVERIFY2(named, (resource->resourceName + " " + identity.text()).c_str());
                }
            }
            QVERIFY(checked > 300);
        }
    }

    void descriptorInsideAReferenceIsCheckedAsADescriptor()
    {
        // A Staff's personReference carries a SourceSystemDescriptor: an unknown one is the
        // descriptor stage's 400, named at its path, not the reference stage's 409.
        Fixture f(loadDs51(false));
        const Json staff{{"staffUniqueId", "S-1"},
                         {"firstName", "Ada"},
                         {"lastSurname", "Lovelace"},
                         {"personReference",
                          {{"personId", "P-1"}, {"sourceSystemDescriptor", "uri://ed-fi.org/SourceSystemDescriptor#Nope"}}}};
        Response refused = f.call("POST", "/ed-fi/staffs", staff);
        QCOMPARE(refused.status, 400);
        QCOMPARE(refused.body["type"].get<std::string>(), std::string(problem::kBadRequest));
        QVERIFY2(refused.body["validationErrors"].contains("$.personReference.sourceSystemDescriptor"),
                 refused.body.dump().c_str());
        QVERIFY(refused.body["detail"].get<std::string>().find("SourceSystemDescriptor") != std::string::npos);
        // With the descriptor stored, the missing Person is the reference stage's 409.
        f.create("/ed-fi/sourceSystemDescriptors",
                 Json{{"namespace", "uri://ed-fi.org/SourceSystemDescriptor"}, {"codeValue", "Nope"}, {"shortDescription", "Nope"}});
        QCOMPARE(f.call("POST", "/ed-fi/staffs", staff).status, 409);
    }

    void starterModelIdsMatchDs51()
    {
        auto starter = Model::loadStarter();
        auto ds = loadDs51(false);
        IdentityCalculator starterIds(*starter);
        IdentityCalculator dsIds(*ds);
        int documents = 0;
        int references = 0;
        for (const ResourceSchema *mine : starter->resources()) {
            const ResourceSchema *theirs = ds->findByEndpoint("ed-fi", mine->endpointName);
            QVERIFY2(theirs, mine->endpointName.c_str());
            QCOMPARE(theirs->resourceName, mine->resourceName);
            const Json body = sampleFor(mine->jsonSchema, "$");
            auto a = starterIds.documentIdentity(*mine, body);
            auto b = dsIds.documentIdentity(*theirs, body);
            QVERIFY2(a && b, mine->resourceName.c_str());
            QCOMPARE(a->referentialName(), b->referentialName());
            QCOMPARE(a->referentialId(), b->referentialId());
            auto superA = starterIds.superclassIdentity(*mine, *a);
            auto superB = dsIds.superclassIdentity(*theirs, *b);
            QCOMPARE(superA.has_value(), superB.has_value());
            if (superA)
                QCOMPARE(superA->referentialId(), superB->referentialId());
            ++documents;
            for (const ReferenceMapping &ref : mine->references) {
                auto match = std::find_if(theirs->references.begin(), theirs->references.end(),
                                          [&](const ReferenceMapping &r) { return r.name == ref.name; });
                QVERIFY2(match != theirs->references.end(), (mine->resourceName + "." + ref.name).c_str());
                for (const JsonPath::Match &occurrence : ref.objectPath.select(body)) {
                    auto ra = starterIds.referenceIdentity(ref, body, occurrence.indices);
                    auto rb = dsIds.referenceIdentity(*match, body, occurrence.indices);
                    QVERIFY(ra && rb);
                    QCOMPARE(ra->referentialName(), rb->referentialName());
                    ++references;
                }
            }
        }
        qInfo("compared %d document identities and %d reference identities", documents, references);
        QVERIFY(documents >= 41);
        QVERIFY(references >= 30);
    }
};

QTEST_GUILESS_MAIN(TestDs51)
#include "tst_ds51.moc"
