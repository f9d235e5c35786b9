#include "ApiSchema.h"
#include "CliSupport.h"
#include "Generator.h"
#include "ImportSource.h"
#include "JsonPath.h"
#include "SampleDistrict.h"
#include "TestSupport.h"
#include "Validation.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <set>

using namespace steward;
using namespace steward::test;

namespace {

struct Generated
{
    std::string resource;
    Json body;
};

std::vector<Generated> generate(std::int64_t students, std::uint32_t seed)
{
    GeneratorOptions options;
    options.students = students;
    options.seed = seed;
    std::vector<Generated> out;
    const std::int64_t count = generateDistrict(options, [&out](const std::string &resource, const Json &body) {
        out.push_back({resource, body});
    });
    if (count != static_cast<std::int64_t>(out.size()))
        qWarning("generateDistrict returned %lld for %zu documents", static_cast<long long>(count), out.size());
    return out;
}

// The NDJSON line `steward-cli generate` writes for a document.
std::string ndjsonLine(const std::string &resource, const Json &body)
{
    return envelopeLine(resource, body);
}

QByteArray digest(const std::vector<Generated> &documents)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const Generated &document : documents) {
        const std::string line = ndjsonLine(document.resource, document.body) + "\n";
        hash.addData(QByteArrayView(line.data(), static_cast<qsizetype>(line.size())));
    }
    return hash.result();
}

const ResourceSchema &resourceOf(const Model &model, const std::string &path)
{
    const std::size_t slash = path.find('/');
    const ResourceSchema *resource = model.findByEndpoint(path.substr(0, slash), path.substr(slash + 1));
    if (!resource)
        qFatal("no resource %s in the starter model", path.c_str());
    return *resource;
}

// References as the engine resolves them (each becomes a refs row): every reference object and
// every descriptor URI that the model's documentPathsMapping names.
std::size_t referenceCount(const ResourceSchema &resource, const Json &body)
{
    std::size_t count = 0;
    for (const ReferenceMapping &reference : resource.references)
        count += reference.objectPath.select(body).size();
    for (const DescriptorMapping &descriptor : resource.descriptors)
        count += descriptor.path.select(body).size();
    return count;
}

// Keys under which a stored document answers references, built from the model the way the engine
// resolves them: the resource and its identity values (a subclass also answers as its superclass);
// a descriptor answers to its lower-cased URI.
std::string descriptorKey(const std::string &resourceName, const std::string &uri)
{
    return "descriptor|" + resourceName + "|" + toLower(uri);
}

std::string identityKey(const std::string &resourceName, std::vector<std::pair<std::string, std::string>> values)
{
    std::sort(values.begin(), values.end());
    std::string key = resourceName;
    for (const auto &[path, value] : values)
        key += "|" + path + "=" + value;
    return key;
}

std::vector<std::string> ownKeys(const ResourceSchema &resource, const Json &body)
{
    if (resource.isDescriptor)
        return {descriptorKey(resource.resourceName,
                              body.value("namespace", "") + "#" + body.value("codeValue", ""))};
    std::vector<std::pair<std::string, std::string>> values;
    for (const JsonPath &path : resource.identityPaths)
        for (const JsonPath::Match &match : path.select(body))
            values.emplace_back(path.text(), dumpJson(*match.value));
    std::vector<std::string> keys = {identityKey(resource.resourceName, values)};
    if (resource.isSubclass && values.size() == 1)
        keys.push_back(identityKey(resource.superclassResourceName, {{resource.superclassIdentityPath, values[0].second}}));
    return keys;
}

// Every key the document points at, through its reference objects and descriptor URIs.
std::vector<std::string> referencedKeys(const ResourceSchema &resource, const Json &body)
{
    std::vector<std::string> keys;
    for (const ReferenceMapping &reference : resource.references) {
        for (const JsonPath::Match &occurrence : reference.objectPath.select(body)) {
            std::vector<std::pair<std::string, std::string>> values;
            for (const ReferencePathPair &pair : reference.paths)
                if (const Json *value = pair.referencePath.resolve(body, occurrence.indices))
                    values.emplace_back(pair.identityPath.text(), dumpJson(*value));
            keys.push_back(identityKey(reference.targetResourceName, values));
        }
    }
    for (const DescriptorMapping &descriptor : resource.descriptors)
        for (const JsonPath::Match &match : descriptor.path.select(body))
            keys.push_back(descriptorKey(descriptor.descriptorResourceName, match.value->get<std::string>()));
    return keys;
}

QStringList cliArgs(std::initializer_list<const char *> args)
{
    QStringList out;
    for (const char *arg : args)
        out << QString::fromUtf8(arg);
    return out;
}

} // namespace

class TestGenerator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyDocumentLoadsInTheOrderEmitted()
    {
        const std::vector<Generated> documents = generate(200, 7);
        Fixture f;
        std::map<std::string, int> created;
        for (const Generated &document : documents) {
            const Response response = f.engine().handle(Request::make("POST", "/" + document.resource, "test", document.body));
            QVERIFY2(response.status == 201,
                     qPrintable(QString::fromStdString(document.resource + " " + document.body.dump() + " -> "
                                                       + std::to_string(response.status) + " " + response.body.dump())));
            ++created[document.resource];
        }
        std::int64_t stored = 0;
        for (const ResourceCount &count : f.engine().resourceCounts())
            stored += count.documents;
        QCOMPARE(stored, static_cast<std::int64_t>(documents.size()));
        QCOMPARE(created["ed-fi/students"], 200);
        QCOMPARE(created["ed-fi/schools"], 2);
        QCOMPARE(created["ed-fi/localEducationAgencies"], 1);
        QCOMPARE(created["ed-fi/stateEducationAgencies"], 1);
        QVERIFY(created["ed-fi/studentSectionAssociations"] >= 4 * 200);
        QVERIFY(created["ed-fi/staffs"] >= 200 / 15);
        const Response school = f.call("GET", "/ed-fi/schools?schoolId=255901001");
        QCOMPARE(school.status, 200);
        QCOMPARE(school.body.size(), std::size_t(1));
        QCOMPARE(school.body[0]["nameOfInstitution"].get<std::string>(), std::string("Grand Bend High School"));
    }

    void sameSeedSameOutputOtherSeedOther()
    {
        const QByteArray first = digest(generate(300, 11));
        QCOMPARE(digest(generate(300, 11)), first);
        QVERIFY(digest(generate(300, 12)) != first);
        QVERIFY(digest(generate(301, 11)) != first);
    }

    void documentsAndReferencesInProportion()
    {
        std::unique_ptr<Model> model = Model::loadStarter();
        const std::int64_t students = 1000;
        const std::vector<Generated> documents = generate(students, 2026);
        std::size_t references = 0;
        for (const Generated &document : documents)
            references += referenceCount(resourceOf(*model, document.resource), document.body);
        const double perStudent = static_cast<double>(documents.size()) / students;
        const double perDocument = static_cast<double>(references) / static_cast<double>(documents.size());
        qInfo("%zu documents for %lld students (%.2f each), %.2f references per document", documents.size(),
              static_cast<long long>(students), perStudent, perDocument);
        QVERIFY2(perStudent >= 7 && perStudent <= 14, qPrintable(QString::number(perStudent)));
        QVERIFY2(perDocument >= 2.5 && perDocument <= 3.5, qPrintable(QString::number(perDocument)));
    }

    void largerDistrictIsValidUniqueAndInLoadOrder()
    {
        // Seven schools (high, middle and elementary, with feeder enrollments between them),
        // checked against the model without a database: schema and constraints as the engine's
        // stages 1 and 2 see them (nothing dropped as unknown), identities unique, and every
        // reference and descriptor pointing at a document emitted earlier.
        std::unique_ptr<Model> model = Model::loadStarter();
        std::set<std::string> emitted;
        std::map<std::string, int> byResource;
        std::string problem;
        GeneratorOptions options;
        options.students = 5000;
        options.seed = 3;
        generateDistrict(options, [&](const std::string &resource, const Json &body) {
            ++byResource[resource];
            if (!problem.empty())
                return;
            const ResourceSchema &schema = resourceOf(*model, resource);
            Json normalized = body;
            const ValidationErrors errors = model->validator().validateSchema(schema, normalized);
            const ValidationErrors constraints = model->validator().validateConstraints(schema, normalized);
            if (!errors.empty() || !constraints.empty() || normalized != body) {
                problem = "invalid " + resource + " " + body.dump();
                return;
            }
            for (const std::string &key : referencedKeys(schema, body)) {
                if (!emitted.count(key)) {
                    problem = resource + " refers to " + key + " before it exists: " + body.dump();
                    return;
                }
            }
            for (const std::string &key : ownKeys(schema, body)) {
                if (!emitted.insert(key).second) {
                    problem = "duplicate identity " + key;
                    return;
                }
            }
        });
        QVERIFY2(problem.empty(), problem.c_str());
        QCOMPARE(byResource["ed-fi/schools"], 7);
        QCOMPARE(byResource["ed-fi/students"], 5000);
        // Some students were enrolled last year too, in this school or a feeder school.
        QVERIFY(byResource["ed-fi/studentSchoolAssociations"] > 5000 * 3 / 2);
    }

    void scaleLimits()
    {
        // No students: still a district with its schools, calendars and course catalogs.
        std::map<std::string, int> byResource;
        GeneratorOptions options;
        options.students = 0;
        generateDistrict(options, [&](const std::string &resource, const Json &) { ++byResource[resource]; });
        QCOMPARE(byResource["ed-fi/schools"], 2);
        QCOMPARE(byResource["ed-fi/students"], 0);
        QVERIFY(byResource["ed-fi/courses"] > 0);
        for (const std::int64_t students : {std::int64_t(-1), std::int64_t(10'000'001)}) {
            options.students = students;
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                     generateDistrict(options, [](const std::string &, const Json &) {}));
        }
    }

    void sampleDistrictKeepsItsLandmarks()
    {
        const std::vector<Request> requests = sampleDistrictRequests();
        std::map<std::string, int> byPath;
        std::vector<Json> schools;
        for (const Request &request : requests) {
            ++byPath[request.path];
            if (request.path == "/ed-fi/schools")
                schools.push_back(*request.body);
        }
        QCOMPARE(byPath["/ed-fi/students"], 40);
        QCOMPARE(byPath["/ed-fi/localEducationAgencies"], 1);
        QVERIFY(byPath["/ed-fi/studentSectionAssociations"] >= 40 * 4);
        QCOMPARE(schools.size(), std::size_t(2));
        QCOMPARE(schools[0]["schoolId"].get<std::int64_t>(), std::int64_t(255901001));
        QCOMPARE(schools[0]["nameOfInstitution"].get<std::string>(), std::string("Grand Bend High School"));
        QCOMPARE(schools[1]["schoolId"].get<std::int64_t>(), std::int64_t(255901044));
        QCOMPARE(schools[0]["localEducationAgencyReference"]["localEducationAgencyId"].get<std::int64_t>(),
                 std::int64_t(255901));
    }

    void cliWritesTheLibrarysLines()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("district.ndjson");
        const CliRun run = runCli(cliArgs({"generate", "--scale", "50", "--seed", "1", "--out"}) << out, {});
        QCOMPARE(run.exitCode, 0);
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray written = file.readAll();
        std::string expected;
        for (const Generated &document : generate(50, 1))
            expected += ndjsonLine(document.resource, document.body) + "\n";
        QVERIFY(written.toStdString() == expected);

        // To standard output: the same lines and nothing else.
        const CliRun toStdout = runCli(cliArgs({"generate", "--scale", "50", "--seed", "1", "--out", "-"}), {});
        QCOMPARE(toStdout.exitCode, 0);
        QVERIFY(toStdout.stdoutText.toStdString() == expected);
        const CliRun noOut = runCli(cliArgs({"generate", "--scale=50", "--seed=1"}), {});
        QCOMPARE(noOut.exitCode, 0);
        QVERIFY(noOut.stdoutText.toStdString() == expected);
    }

    void cliHelpAndBadArguments()
    {
        const CliRun help = runCli(cliArgs({"generate", "--help"}), {});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.stdoutText.contains("Usage: steward-cli generate"));
        QVERIFY(help.stdoutText.contains("Example"));
        for (const char *scale : {"abc", "0", "-5", "12x", "99999999999"}) {
            const CliRun bad = runCli(cliArgs({"generate", "--scale", scale}), {});
            QCOMPARE(bad.exitCode, 2);
            QVERIFY(bad.stdoutText.isEmpty());
            QVERIFY(bad.stderrText.contains("generate --help"));
        }
        QCOMPARE(runCli(cliArgs({"generate", "--seed", "-1"}), {}).exitCode, 2);
        QCOMPARE(runCli(cliArgs({"generate", "--scale"}), {}).exitCode, 2);
        QCOMPARE(runCli(cliArgs({"generate", "--bogus"}), {}).exitCode, 2);
        QTemporaryDir dir;
        const CliRun unwritable =
            runCli(cliArgs({"generate", "--scale", "5", "--out"}) << dir.filePath("missing/dir/out.ndjson"), {});
        QCOMPARE(unwritable.exitCode, 1);
        QVERIFY(unwritable.stdoutText.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestGenerator)
#include "tst_generator.moc"
