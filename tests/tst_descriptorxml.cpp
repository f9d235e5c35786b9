#include "ApiSchema.h"
#include "DescriptorXml.h"
#include "TestSupport.h"
#include "Validation.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace steward;

namespace {

const char *const kHeader = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                            "<InterchangeDescriptors xmlns=\"http://ed-fi.org/5.1.0\">\n";
const char *const kFooter = "</InterchangeDescriptors>\n";

std::string gradeLevel(const std::string &codeValue)
{
    return "  <GradeLevelDescriptor>\n"
           "    <CodeValue>" + codeValue + "</CodeValue>\n"
           "    <ShortDescription>" + codeValue + "</ShortDescription>\n"
           "    <Namespace>uri://ed-fi.org/GradeLevelDescriptor</Namespace>\n"
           "  </GradeLevelDescriptor>\n";
}

Json gradeLevelBody(const std::string &codeValue)
{
    return Json{{"codeValue", codeValue},
                {"shortDescription", codeValue},
                {"namespace", "uri://ed-fi.org/GradeLevelDescriptor"}};
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

// Checks that an error text holds a part, showing the text when it does not.
#define ERROR_CONTAINS(item, part)                                                                          \
    QVERIFY2(contains((item).error, (part)),                                                                \
             qPrintable(QString::fromStdString("error '" + (item).error + "' lacks '" + (part) + "'")))

class TestDescriptorXml : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<Model> m_starter;
    QTemporaryDir m_dir;
    int m_fileCount = 0;

    std::string write(const std::string &text)
    {
        const QString path = m_dir.filePath(QStringLiteral("d%1.xml").arg(++m_fileCount));
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        file.write(text.data(), static_cast<qint64>(text.size()));
        return path.toStdString();
    }

    static std::vector<ImportItem> readAll(const std::string &path, const Model &model)
    {
        std::vector<ImportItem> items;
        std::string error;
        std::unique_ptr<ImportSource> source = openDescriptorXml(path, model, &error);
        if (!source) {
            qWarning("cannot open %s: %s", path.c_str(), error.c_str());
            return items;
        }
        ImportItem item;
        while (source->next(item))
            items.push_back(item);
        return items;
    }

    std::vector<ImportItem> readText(const std::string &text, std::string *path = nullptr)
    {
        const std::string file = write(text);
        if (path)
            *path = file;
        return readAll(file, *m_starter);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_starter = Model::loadStarter();
        QVERIFY(m_starter->findByName("Ed-Fi", "GradeLevelDescriptor"));
    }

    void oneDescriptor()
    {
        const std::string path = write(kHeader + gradeLevel("Ninth grade") + kFooter);
        std::string error;
        std::unique_ptr<ImportSource> source = openDescriptorXml(path, *m_starter, &error);
        QVERIFY(source);
        QVERIFY(error.empty());
        const auto size = static_cast<std::uint64_t>(QFileInfo(QString::fromStdString(path)).size());
        QCOMPARE(source->bytesTotal(), size);
        QCOMPARE(source->bytesRead(), std::uint64_t(0));

        ImportItem item;
        QVERIFY(source->next(item));
        QVERIFY2(item.error.empty(), item.error.c_str());
        QCOMPARE(item.file, path);
        QCOMPARE(item.line, std::int64_t(3));
        QCOMPARE(item.resource, std::string("ed-fi/gradeLevelDescriptors"));
        QVERIFY(item.body);
        JSON_COMPARE(*item.body, gradeLevelBody("Ninth grade"));
        QVERIFY(!source->next(item));
        QVERIFY(!source->next(item)); // stays at the end
        QCOMPARE(source->bytesRead(), size);
    }

    void severalTypesInOneFile()
    {
        const std::vector<ImportItem> items = readText(
            std::string(kHeader) + gradeLevel("First grade")
            + "  <SexDescriptor><CodeValue>Female</CodeValue><ShortDescription>Female</ShortDescription>"
              "<Namespace>uri://ed-fi.org/SexDescriptor</Namespace></SexDescriptor>\n"
            + "  <AcademicSubjectDescriptor>\n"
              "    <CodeValue>Mathematics</CodeValue>\n"
              "    <ShortDescription>Mathematics</ShortDescription>\n"
              "    <Namespace>uri://ed-fi.org/AcademicSubjectDescriptor</Namespace>\n"
              "  </AcademicSubjectDescriptor>\n"
            + gradeLevel("Second grade") + kFooter);
        QCOMPARE(items.size(), std::size_t(4));
        for (const ImportItem &item : items)
            QVERIFY2(item.error.empty() && item.body, item.error.c_str());
        QCOMPARE(items[0].resource, std::string("ed-fi/gradeLevelDescriptors"));
        QCOMPARE(items[0].line, std::int64_t(3));
        QCOMPARE(items[1].resource, std::string("ed-fi/sexDescriptors"));
        QCOMPARE(items[1].line, std::int64_t(8));
        JSON_COMPARE(*items[1].body, (Json{{"codeValue", "Female"},
                                           {"shortDescription", "Female"},
                                           {"namespace", "uri://ed-fi.org/SexDescriptor"}}));
        QCOMPARE(items[2].resource, std::string("ed-fi/academicSubjectDescriptors"));
        QCOMPARE(items[2].line, std::int64_t(9));
        QCOMPARE(items[3].line, std::int64_t(14));
        JSON_COMPARE(*items[3].body, gradeLevelBody("Second grade"));
    }

    void optionalElements()
    {
        const std::vector<ImportItem> items = readText(
            std::string(kHeader)
            + "  <!-- a comment -->\n"
              "  <GradeLevelDescriptor id=\"g1\">\n"
              "    <CodeValue>\n"
              "      Early &lt; 3\n"
              "    </CodeValue>\n"
              "    <ShortDescription>Early</ShortDescription>\n"
              "    <Description>Two  spaces &amp; a\nline break</Description>\n"
              "    <EffectiveBeginDate>2024-02-29</EffectiveBeginDate>\n"
              "    <EffectiveEndDate>2030-12-31</EffectiveEndDate>\n"
              "    <PriorDescriptor>uri://ed-fi.org/GradeLevelDescriptor#Old</PriorDescriptor>\n"
              "    <Namespace><![CDATA[uri://ed-fi.org/GradeLevelDescriptor]]></Namespace>\n"
              "  </GradeLevelDescriptor>\n"
            + kFooter);
        QCOMPARE(items.size(), std::size_t(1));
        QVERIFY2(items[0].error.empty(), items[0].error.c_str());
        QCOMPARE(items[0].line, std::int64_t(4));
        // Surrounding whitespace is dropped, inner whitespace kept; PriorDescriptor has no property.
        JSON_COMPARE(*items[0].body, (Json{{"codeValue", "Early < 3"},
                                           {"shortDescription", "Early"},
                                           {"description", "Two  spaces & a\nline break"},
                                           {"effectiveBeginDate", "2024-02-29"},
                                           {"effectiveEndDate", "2030-12-31"},
                                           {"namespace", "uri://ed-fi.org/GradeLevelDescriptor"}}));
        Json body = *items[0].body;
        const ValidationErrors errors =
            m_starter->validator().validateSchema(*m_starter->findByName("Ed-Fi", "GradeLevelDescriptor"), body);
        QVERIFY(errors.empty());
    }

    void namespacePrefix()
    {
        const std::vector<ImportItem> items = readText(
            "<ed:InterchangeDescriptors xmlns:ed=\"http://ed-fi.org/5.1.0\">\n"
            "<ed:GradeLevelDescriptor><ed:CodeValue>A</ed:CodeValue><ed:ShortDescription>A</ed:ShortDescription>"
            "<ed:Namespace>uri://ed-fi.org/GradeLevelDescriptor</ed:Namespace></ed:GradeLevelDescriptor>\n"
            "</ed:InterchangeDescriptors>\n");
        QCOMPARE(items.size(), std::size_t(1));
        QVERIFY2(items[0].error.empty(), items[0].error.c_str());
        QCOMPARE(items[0].line, std::int64_t(2));
        JSON_COMPARE(*items[0].body, gradeLevelBody("A"));
    }

    void unknownElementType()
    {
        std::string path;
        const std::vector<ImportItem> items = readText(
            std::string(kHeader)
                + "  <NoSuchDescriptor>\n"
                  "    <CodeValue>X</CodeValue><ShortDescription>X</ShortDescription>\n"
                  "    <Namespace>uri://x</Namespace>\n"
                  "  </NoSuchDescriptor>\n"
                  "  <School><SchoolId>1</SchoolId></School>\n"
                + gradeLevel("Tenth grade") + kFooter,
            &path);
        QCOMPARE(items.size(), std::size_t(3));
        QCOMPARE(items[0].line, std::int64_t(3));
        QVERIFY(!items[0].body);
        QVERIFY(items[0].resource.empty());
        QCOMPARE(items[0].file, path);
        ERROR_CONTAINS(items[0], path + ":3: <NoSuchDescriptor>: ");
        ERROR_CONTAINS(items[0], "has no descriptor named NoSuchDescriptor");
        // A resource that is not a descriptor is not taken for one.
        QCOMPARE(items[1].line, std::int64_t(7));
        ERROR_CONTAINS(items[1], path + ":7: <School>: ");
        QVERIFY(!items[1].body);
        // Reading goes on after the unknown elements.
        QVERIFY2(items[2].error.empty(), items[2].error.c_str());
        JSON_COMPARE(*items[2].body, gradeLevelBody("Tenth grade"));
    }

    void missingRequiredValues()
    {
        std::string path;
        const std::vector<ImportItem> items = readText(
            std::string(kHeader)
                + "  <GradeLevelDescriptor>\n"
                  "    <ShortDescription>No code</ShortDescription>\n"
                  "    <Namespace>uri://ed-fi.org/GradeLevelDescriptor</Namespace>\n"
                  "  </GradeLevelDescriptor>\n"
                  "  <GradeLevelDescriptor>\n"
                  "    <CodeValue>No namespace</CodeValue>\n"
                  "    <ShortDescription>No namespace</ShortDescription>\n"
                  "  </GradeLevelDescriptor>\n"
                  "  <GradeLevelDescriptor>\n"
                  "    <CodeValue>   </CodeValue>\n"
                  "    <Namespace>uri://ed-fi.org/GradeLevelDescriptor</Namespace>\n"
                  "  </GradeLevelDescriptor>\n"
                + gradeLevel("Eleventh grade") + kFooter,
            &path);
        QCOMPARE(items.size(), std::size_t(4));
        for (std::size_t i = 0; i < 3; ++i) {
            QVERIFY(!items[i].body);
            QCOMPARE(items[i].resource, std::string("ed-fi/gradeLevelDescriptors"));
        }
        QCOMPARE(items[0].line, std::int64_t(3));
        ERROR_CONTAINS(items[0], path + ":3: <GradeLevelDescriptor>: missing <CodeValue>");
        QVERIFY(!contains(items[0].error, "Namespace"));
        QCOMPARE(items[1].line, std::int64_t(7));
        ERROR_CONTAINS(items[1], path + ":7: <GradeLevelDescriptor>: missing <Namespace>");
        QCOMPARE(items[2].line, std::int64_t(11));
        ERROR_CONTAINS(items[2], "<CodeValue> is empty");
        ERROR_CONTAINS(items[2], "missing <ShortDescription>");
        QVERIFY2(items[3].error.empty(), items[3].error.c_str());
        JSON_COMPARE(*items[3].body, gradeLevelBody("Eleventh grade"));
    }

    void wrongValues()
    {
        const std::string namespaceLine = "    <Namespace>uri://ed-fi.org/GradeLevelDescriptor</Namespace>\n";
        const std::vector<ImportItem> items = readText(
            std::string(kHeader)
            + "  <GradeLevelDescriptor>\n"
              "    <CodeValue>A</CodeValue><ShortDescription>A</ShortDescription>\n"
              "    <EffectiveBeginDate>2023-02-29</EffectiveBeginDate>\n"
              "    <EffectiveEndDate>tomorrow</EffectiveEndDate>\n"
            + namespaceLine
            + "  </GradeLevelDescriptor>\n"
              "  <GradeLevelDescriptor>\n"
              "    <Codevalue>B</Codevalue><CodeValue>B</CodeValue><CodeValue>C</CodeValue>\n"
              "    <ShortDescription>B<b>bold</b></ShortDescription>\n"
            + namespaceLine
            + "  </GradeLevelDescriptor>\n"
            + gradeLevel("Twelfth grade") + kFooter);
        QCOMPARE(items.size(), std::size_t(3));
        QCOMPARE(items[0].line, std::int64_t(3));
        QVERIFY(!items[0].body);
        ERROR_CONTAINS(items[0], "<EffectiveBeginDate> '2023-02-29' is not a date");
        ERROR_CONTAINS(items[0], "<EffectiveEndDate> 'tomorrow' is not a date");
        QCOMPARE(items[1].line, std::int64_t(9));
        ERROR_CONTAINS(items[1], "unexpected element <Codevalue> on line 10");
        ERROR_CONTAINS(items[1], "<CodeValue> appears more than once");
        ERROR_CONTAINS(items[1], "<ShortDescription> holds elements");
        QVERIFY(!contains(items[1].error, "missing"));
        QVERIFY2(items[2].error.empty(), items[2].error.c_str());
    }

    void longValuesAreCutBetweenCharacters()
    {
        // Values are shown cut to 60 bytes; a cut inside 'é' made the error invalid UTF-8, which
        // the draft and report writers could not store (fuzz_descriptor_xml's UTF-8 check catches it).
        const std::string value = std::string(59, 'a') + "\xc3\xa9\xc3\xa9";
        const std::vector<ImportItem> items = readText(std::string(kHeader) + "  <GradeLevelDescriptor>\n"
                                                       "    <CodeValue>A</CodeValue><ShortDescription>A</ShortDescription>\n"
                                                       "    <EffectiveBeginDate>" + value + "</EffectiveBeginDate>\n"
                                                       "    <Namespace>uri://ed-fi.org/GradeLevelDescriptor</Namespace>\n"
                                                       "  </GradeLevelDescriptor>\n" + kFooter);
        QCOMPARE(items.size(), std::size_t(1));
        ERROR_CONTAINS(items[0], "'" + std::string(59, 'a') + "...' is not a date");
        QVERIFY_THROWS_NO_EXCEPTION((void)Json(items[0].error).dump());
    }

    void malformedXml()
    {
        std::string path;
        std::vector<ImportItem> items = readText(std::string(kHeader) + gradeLevel("Ok")
                                                     + "  <GradeLevelDescriptor>\n"
                                                       "    <CodeValue>Bad</Code>\n"
                                                       "  </GradeLevelDescriptor>\n"
                                                     + gradeLevel("Never read") + kFooter,
                                                 &path);
        QCOMPARE(items.size(), std::size_t(2));
        QVERIFY2(items[0].error.empty(), items[0].error.c_str());
        QVERIFY(!items[1].body);
        QCOMPARE(items[1].line, std::int64_t(9));
        ERROR_CONTAINS(items[1], path + ":9: malformed XML: ");
        ERROR_CONTAINS(items[1], "in <GradeLevelDescriptor> that starts on line 8");
        ERROR_CONTAINS(items[1], "the rest of the file is not read");

        // Cut off in the middle.
        const std::string whole = kHeader + gradeLevel("Ok") + gradeLevel("Cut");
        items = readText(whole.substr(0, whole.size() - 30));
        QCOMPARE(items.size(), std::size_t(2));
        QVERIFY(items[0].error.empty());
        ERROR_CONTAINS(items[1], "malformed XML");
        ERROR_CONTAINS(items[1], "<GradeLevelDescriptor> that starts on line 8");

        // Empty, not XML, and content after the root.
        for (const std::string &text : {std::string(), std::string("just text\n"),
                                         std::string(kHeader) + kFooter + "<InterchangeDescriptors/>\n"}) {
            items = readText(text);
            QCOMPARE(items.size(), std::size_t(1));
            QVERIFY(!items[0].body);
            ERROR_CONTAINS(items[0], "malformed XML");
        }
    }

    void wrongRoot()
    {
        std::string path;
        std::vector<ImportItem> items =
            readText("<?xml version=\"1.0\"?>\n<Descriptors xmlns=\"http://ed-fi.org/5.1.0\">\n" + gradeLevel("A")
                         + "</Descriptors>\n",
                     &path);
        QCOMPARE(items.size(), std::size_t(1));
        QCOMPARE(items[0].line, std::int64_t(2));
        ERROR_CONTAINS(items[0], path + ":2: <Descriptors>: ");
        ERROR_CONTAINS(items[0], "not an Ed-Fi interchange");

        // Another interchange holds no descriptors: one item, not one per element.
        items = readText("<InterchangeStudent xmlns=\"http://ed-fi.org/5.1.0\">\n<Student/><Student/>\n"
                         "</InterchangeStudent>\n");
        QCOMPARE(items.size(), std::size_t(1));
        QCOMPARE(items[0].line, std::int64_t(1));
        ERROR_CONTAINS(items[0], "<InterchangeStudent>: not a descriptor interchange");
    }

    void wrongNamespace()
    {
        for (const std::string &attribute :
             {std::string(" xmlns=\"http://ed-fi.org/5.0.0\""), std::string(" xmlns=\"http://ed-fi.org/0510\""),
              std::string()}) {
            std::string path;
            const std::vector<ImportItem> items =
                readText("<InterchangeDescriptors" + attribute + ">\n" + gradeLevel("A") + kFooter, &path);
            QCOMPARE(items.size(), std::size_t(1));
            QVERIFY(!items[0].body);
            ERROR_CONTAINS(items[0], path + ":1: <InterchangeDescriptors>: XML namespace ");
            ERROR_CONTAINS(items[0], "expected 'http://ed-fi.org/5.1.0'");
        }
        const std::vector<ImportItem> none = readText("<InterchangeDescriptors>\n" + gradeLevel("A") + kFooter);
        ERROR_CONTAINS(none[0], "XML namespace (none)");

        // A descriptor element in another namespace than its interchange.
        const std::vector<ImportItem> items =
            readText(std::string(kHeader) + "<GradeLevelDescriptor xmlns=\"urn:other\"/>\n" + gradeLevel("B") + kFooter);
        QCOMPARE(items.size(), std::size_t(2));
        ERROR_CONTAINS(items[0], "XML namespace 'urn:other' differs");
        QVERIFY(items[1].error.empty());
    }

    void cannotOpen()
    {
        const std::string path = m_dir.filePath(QStringLiteral("missing.xml")).toStdString();
        std::string error;
        QVERIFY(!openDescriptorXml(path, *m_starter, &error));
        QVERIFY(contains(error, path));
    }

    void progressFollowsTheFile()
    {
        std::string text = kHeader;
        for (int i = 0; i < 3000; ++i)
            text += gradeLevel("Grade " + std::to_string(i));
        text += kFooter;
        const std::string path = write(text);
        std::string error;
        std::unique_ptr<ImportSource> source = openDescriptorXml(path, *m_starter, &error);
        QVERIFY(source);
        ImportItem item;
        std::uint64_t previous = 0;
        int count = 0;
        bool sawPartial = false;
        while (source->next(item)) {
            QVERIFY(item.error.empty());
            QVERIFY(source->bytesRead() >= previous);
            previous = source->bytesRead();
            sawPartial = sawPartial || (previous > 0 && previous < source->bytesTotal());
            ++count;
        }
        QCOMPARE(count, 3000);
        QVERIFY(sawPartial); // read in pieces, not all at once
        QCOMPARE(source->bytesRead(), static_cast<std::uint64_t>(text.size()));
        QCOMPARE(source->bytesTotal(), static_cast<std::uint64_t>(text.size()));
    }

    void extensionDescriptor()
    {
        const QString shared = test::sharedEdfiDir();
        if (shared.isEmpty())
            QSKIP("../shared/edfi is absent: the TPDM extension schema is not available");
        std::unique_ptr<Model> model = Model::loadFiles(
            {(shared + "/ds-5.1/ApiSchema.json").toStdString(), (shared + "/ds-5.1/ApiSchema-TPDM.json").toStdString()});
        const std::vector<ImportItem> items = readAll(
            write(std::string(kHeader)
                  + "  <AccreditationStatusDescriptor><CodeValue>Accredited</CodeValue>"
                    "<ShortDescription>Accredited</ShortDescription>"
                    "<Namespace>uri://tpdm.ed-fi.org/AccreditationStatusDescriptor</Namespace>"
                    "</AccreditationStatusDescriptor>\n"
                  + gradeLevel("Ninth grade") + kFooter),
            *model);
        QCOMPARE(items.size(), std::size_t(2));
        QVERIFY2(items[0].error.empty(), items[0].error.c_str());
        QCOMPARE(items[0].resource, std::string("tpdm/accreditationStatusDescriptors"));
        QCOMPARE(items[1].resource, std::string("ed-fi/gradeLevelDescriptors"));
    }

    // The published DS 5.1 descriptor files, all of them, against the DS 5.1 model.
    void ds51DescriptorFiles()
    {
        const QString shared = test::sharedEdfiDir();
        if (shared.isEmpty())
            QSKIP("../shared/edfi is absent: the published DS 5.1 descriptor files are not available");
        std::unique_ptr<Model> model = Model::loadFiles({(shared + "/ds-5.1/ApiSchema.json").toStdString()});
        const QDir dir(shared + "/ds-5.1/Descriptors");
        const QStringList names = dir.entryList({QStringLiteral("*.xml")}, QDir::Files, QDir::Name);
        QCOMPARE(names.size(), 202);

        std::map<std::string, int> perResource;
        std::map<std::string, std::vector<std::string>> codeValues;
        std::size_t total = 0;
        qint64 readNanoseconds = 0;
        qint64 slowestNanoseconds = 0;
        QString slowestFile;
        for (const QString &name : names) {
            const std::string path = dir.filePath(name).toStdString();
            QElapsedTimer timer;
            timer.start();
            const std::vector<ImportItem> items = readAll(path, *model);
            const qint64 elapsed = timer.nsecsElapsed();
            readNanoseconds += elapsed;
            if (elapsed > slowestNanoseconds) {
                slowestNanoseconds = elapsed;
                slowestFile = name;
            }
            QVERIFY2(!items.empty(), qPrintable(name));
            for (const ImportItem &item : items) {
                QVERIFY2(item.error.empty(), item.error.c_str());
                QVERIFY(item.body);
                QCOMPARE(item.file, path);
                QVERIFY(item.line > 2);
                const auto slash = item.resource.find('/');
                QVERIFY(slash != std::string::npos);
                const ResourceSchema *resource =
                    model->findByEndpoint(item.resource.substr(0, slash), item.resource.substr(slash + 1));
                QVERIFY2(resource && resource->isDescriptor, item.resource.c_str());
                Json body = *item.body;
                const ValidationErrors errors = model->validator().validateSchema(*resource, body);
                if (!errors.empty()) {
                    std::string text = item.file + ":" + std::to_string(item.line) + ":";
                    for (const auto &[where, messages] : errors)
                        for (const std::string &message : messages)
                            text += " " + where + ": " + message;
                    QFAIL(text.c_str());
                }
                ++perResource[item.resource];
                codeValues[item.resource].push_back(item.body->at("codeValue").get<std::string>());
                ++total;
            }
        }
        qInfo("%zu descriptors in %lld files, %zu resources; reading took %.1f ms (%.2f ms a file on average, "
              "slowest %s %.2f ms)",
              total, static_cast<long long>(names.size()), perResource.size(), readNanoseconds / 1e6,
              readNanoseconds / 1e6 / names.size(), qPrintable(slowestFile), slowestNanoseconds / 1e6);

        QCOMPARE(total, std::size_t(3273));
        QCOMPARE(perResource.size(), std::size_t(202)); // one descriptor type a file
        QCOMPARE(perResource["ed-fi/gradeLevelDescriptors"], 26);
        QCOMPARE(perResource["ed-fi/sexDescriptors"], 4);
        QCOMPARE(perResource["ed-fi/tribalAffiliationDescriptors"], 620);
        // Two files are named differently from the descriptor they hold.
        QCOMPARE(perResource["ed-fi/supporterMilitaryConnectionDescriptors"], 6);
        QCOMPARE(perResource["ed-fi/transportationPublicExpenseEligibilityTypeDescriptors"], 11);

        const std::vector<ImportItem> grades = readAll(dir.filePath("GradeLevelDescriptor.xml").toStdString(), *model);
        bool ninth = false;
        for (const ImportItem &item : grades) {
            if (item.body->at("codeValue") == "Ninth grade") {
                ninth = true;
                QCOMPARE(item.line, std::int64_t(81));
                JSON_COMPARE(*item.body, (Json{{"codeValue", "Ninth grade"},
                                               {"shortDescription", "Ninth grade"},
                                               {"description", "Ninth grade"},
                                               {"namespace", "uri://ed-fi.org/GradeLevelDescriptor"}}));
            }
        }
        QVERIFY(ninth);
        // An entity reference, and a trailing space in the file that is not part of the code value.
        const auto &settings = codeValues["ed-fi/specialEducationSettingDescriptors"];
        QVERIFY(std::find(settings.begin(), settings.end(), "Other early childhood location (< 10 hours)")
                != settings.end());
        const auto &tribes = codeValues["ed-fi/tribalAffiliationDescriptors"];
        QVERIFY(std::find(tribes.begin(), tribes.end(), "Little Shell Tribe") != tribes.end());
    }
};

QTEST_GUILESS_MAIN(TestDescriptorXml)
#include "tst_descriptorxml.moc"
