// Interchange XML (other than descriptors): each mapping construct on small fragments against the
// starter model, bad XML, the importer end to end. tst_interchangexml_sample imports Ed-Fi's files.
#include "ApiSchema.h"
#include "ImportSource.h"
#include "Importer.h"
#include "InterchangeXml.h"
#include "TestSupport.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace steward;
using namespace steward::test;

namespace {

std::string interchange(const std::string &name, const std::string &body)
{
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Interchange" + name +
           " xmlns=\"http://ed-fi.org/5.1.0\">\n" + body + "</Interchange" + name + ">\n";
}

std::string schoolRef(const std::string &element, int schoolId)
{
    return "<" + element + "><SchoolIdentity><SchoolId>" + std::to_string(schoolId) +
           "</SchoolId></SchoolIdentity></" + element + ">";
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

// Checks that an error text holds a part, showing the text when it does not.
#define ERROR_CONTAINS(item, part)                                                                           \
    QVERIFY2(contains((item).error, (part)),                                                                 \
             qPrintable(QString::fromStdString("error '" + (item).error + "' lacks '" + (part) + "'")))
#define NO_ERROR(item) QVERIFY2((item).error.empty() && (item).body, (item).error.c_str())

class TestInterchangeXml : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<Model> m_starter;
    QTemporaryDir m_dir;
    int m_fileCount = 0;

    std::string write(const std::string &text, const QString &name = {})
    {
        const QString path =
            m_dir.filePath(name.isEmpty() ? QStringLiteral("i%1.xml").arg(++m_fileCount) : name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        file.write(text.data(), static_cast<qint64>(text.size()));
        return path.toStdString();
    }

    // Every item of a file, opened the way the importer opens it.
    std::vector<ImportItem> readText(const std::string &text, std::string *path = nullptr)
    {
        const std::string file = write(text);
        if (path)
            *path = file;
        std::vector<ImportItem> items;
        std::string error;
        std::unique_ptr<ImportSource> source = openImportSource(file, *m_starter, &error);
        if (!source) {
            qWarning("cannot open %s: %s", file.c_str(), error.c_str());
            return items;
        }
        ImportItem item;
        while (source->next(item))
            items.push_back(item);
        return items;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_starter = Model::loadStarter();
    }

    void simpleFieldsAndInlineCommons()
    {
        // <Name> and <BirthData> are inline commons: the JSON holds their members in the Student.
        const std::vector<ImportItem> items = readText(interchange("Student", R"(  <Student>
    <StudentUniqueId> 604821 </StudentUniqueId>
    <Name>
      <PersonalTitlePrefix>Mr</PersonalTitlePrefix>
      <FirstName>Tyrone</FirstName>
      <LastSurname>Dyer &amp; Sons</LastSurname>
    </Name>
    <BirthData>
      <BirthDate>2014-11-13</BirthDate>
      <BirthCity>Grand Bend</BirthCity>
      <MultipleBirthStatus>false</MultipleBirthStatus>
    </BirthData>
  </Student>
  <Staff>
    <StaffUniqueId>S1</StaffUniqueId>
    <Name><FirstName>Ann</FirstName><LastSurname>Lee</LastSurname></Name>
    <HispanicLatinoEthnicity>1</HispanicLatinoEthnicity>
    <YearsOfPriorProfessionalExperience>2.50</YearsOfPriorProfessionalExperience>
    <YearsOfPriorTeachingExperience>3</YearsOfPriorTeachingExperience>
  </Staff>
)"));
        QCOMPARE(items.size(), std::size_t(2));
        NO_ERROR(items[0]);
        QCOMPARE(items[0].resource, std::string("ed-fi/students"));
        QCOMPARE(items[0].line, std::int64_t(3));
        JSON_COMPARE(*items[0].body, (Json{{"studentUniqueId", "604821"},
                                           {"personalTitlePrefix", "Mr"},
                                           {"firstName", "Tyrone"},
                                           {"lastSurname", "Dyer & Sons"},
                                           {"birthDate", "2014-11-13"},
                                           {"birthCity", "Grand Bend"},
                                           {"multipleBirthStatus", false}}));
        NO_ERROR(items[1]);
        QCOMPARE(items[1].resource, std::string("ed-fi/staffs"));
        JSON_COMPARE(*items[1].body, (Json{{"staffUniqueId", "S1"},
                                           {"firstName", "Ann"},
                                           {"lastSurname", "Lee"},
                                           {"hispanicLatinoEthnicity", true},
                                           {"yearsOfPriorProfessionalExperience", 2.5},
                                           {"yearsOfPriorTeachingExperience", 3}}));
    }

    void referencesAndSchoolYears()
    {
        // The interchange writes school years as "2021-2022"; the JSON holds the ending year.
        const std::vector<ImportItem> items =
            readText(interchange("StudentEnrollment", R"(  <StudentSchoolAssociation>
    <StudentReference><StudentIdentity><StudentUniqueId>604821</StudentUniqueId></StudentIdentity></StudentReference>
    )" + schoolRef("SchoolReference", 255901001) + R"(
    <EntryDate>2021-08-23</EntryDate>
    <EntryGradeLevel>uri://ed-fi.org/GradeLevelDescriptor#Ninth grade</EntryGradeLevel>
    <SchoolYear>2021-2022</SchoolYear>
    <ClassOfSchoolYear>2025</ClassOfSchoolYear>
    <CalendarReference><CalendarIdentity>
      <CalendarCode>GB</CalendarCode>
      )" + schoolRef("SchoolReference", 255901001) + R"(
      <SchoolYear>2021-2022</SchoolYear>
    </CalendarIdentity></CalendarReference>
    )" + schoolRef("NextYearSchoolReference", 255901002) + R"(
    <FullTimeEquivalency>1</FullTimeEquivalency>
  </StudentSchoolAssociation>
)"));
        // School years are an XSD enumeration: each one the file uses comes first as an implied
        // document, once per file.
        QCOMPARE(items.size(), std::size_t(3));
        for (int i : {0, 1}) {
            NO_ERROR(items[i]);
            QVERIFY(items[i].implied);
            QCOMPARE(items[i].resource, std::string("ed-fi/schoolYearTypes"));
            QCOMPARE(items[i].line, std::int64_t(3));
        }
        JSON_COMPARE(*items[0].body, (Json{{"schoolYear", 2022},
                                           {"currentSchoolYear", false},
                                           {"schoolYearDescription", "2021-2022"}}));
        JSON_COMPARE(*items[1].body, (Json{{"schoolYear", 2025},
                                           {"currentSchoolYear", false},
                                           {"schoolYearDescription", "2024-2025"}}));
        NO_ERROR(items[2]);
        QVERIFY(!items[2].implied);
        QCOMPARE(items[2].resource, std::string("ed-fi/studentSchoolAssociations"));
        JSON_COMPARE(*items[2].body,
                     (Json{{"studentReference", {{"studentUniqueId", "604821"}}},
                           {"schoolReference", {{"schoolId", 255901001}}},
                           {"entryDate", "2021-08-23"},
                           {"entryGradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"},
                           {"schoolYearTypeReference", {{"schoolYear", 2022}}},
                           {"classOfSchoolYearTypeReference", {{"schoolYear", 2025}}},
                           {"calendarReference",
                            {{"calendarCode", "GB"}, {"schoolId", 255901001}, {"schoolYear", 2022}}},
                           {"nextYearSchoolReference", {{"schoolId", 255901002}}},
                           {"fullTimeEquivalency", 1}}));
    }

    void nestedReferencesAndCollectionsOfReferences()
    {
        // A Section's CourseOffering identity nests a Session identity that nests a School; the
        // JSON reference is flat. Repeated <ClassPeriodReference> is the classPeriods collection.
        const std::string classPeriod =
            "<ClassPeriodReference><ClassPeriodIdentity>" + schoolRef("SchoolReference", 1) +
            "<ClassPeriodName>P%1</ClassPeriodName></ClassPeriodIdentity></ClassPeriodReference>";
        const std::vector<ImportItem> items = readText(interchange(
            "MasterSchedule",
            R"(  <Section>
    <SectionIdentifier>S-1</SectionIdentifier>
    <SequenceOfCourse>1</SequenceOfCourse>
    <EducationalEnvironment>uri://ed-fi.org/EducationalEnvironmentDescriptor#Classroom</EducationalEnvironment>
    <AvailableCredits><Credits>1.5</Credits></AvailableCredits>
    <CourseOfferingReference><CourseOfferingIdentity>
      <LocalCourseCode>ALG-1</LocalCourseCode>
      )" + schoolRef("SchoolReference", 1) +
                R"(
      <SessionReference><SessionIdentity>
        <SessionName>Fall</SessionName>
        <SchoolYear>2021-2022</SchoolYear>
        )" + schoolRef("SchoolReference", 1) +
                R"(
      </SessionIdentity></SessionReference>
    </CourseOfferingIdentity></CourseOfferingReference>
    )" + schoolRef("LocationSchoolReference", 1) +
                R"(
    <LocationReference><LocationIdentity>)" +
                schoolRef("SchoolReference", 1) +
                R"(<ClassroomIdentificationCode>220</ClassroomIdentificationCode></LocationIdentity></LocationReference>
    )" + QString::fromStdString(classPeriod).arg(1).toStdString() +
                QString::fromStdString(classPeriod).arg(2).toStdString() + R"(
    <ProgramReference><ProgramIdentity>
      <EducationOrganizationReference><EducationOrganizationIdentity><EducationOrganizationId>1</EducationOrganizationId></EducationOrganizationIdentity></EducationOrganizationReference>
      <ProgramName>Bilingual</ProgramName>
      <ProgramType>uri://ed-fi.org/ProgramTypeDescriptor#Bilingual</ProgramType>
    </ProgramIdentity></ProgramReference>
  </Section>
)"));
        QCOMPARE(items.size(), std::size_t(2));
        QVERIFY(items[0].implied);
        NO_ERROR(items[1]);
        JSON_COMPARE(
            *items[1].body,
            (Json{
                {"sectionIdentifier", "S-1"},
                {"sequenceOfCourse", 1},
                {"educationalEnvironmentDescriptor",
                 "uri://ed-fi.org/EducationalEnvironmentDescriptor#Classroom"},
                {"availableCredits", 1.5},
                {"courseOfferingReference",
                 {{"localCourseCode", "ALG-1"},
                  {"schoolId", 1},
                  {"schoolYear", 2022},
                  {"sessionName", "Fall"}}},
                {"locationSchoolReference", {{"schoolId", 1}}},
                {"locationReference", {{"classroomIdentificationCode", "220"}, {"schoolId", 1}}},
                {"classPeriods",
                 Json::array({Json{{"classPeriodReference", {{"classPeriodName", "P1"}, {"schoolId", 1}}}},
                              Json{{"classPeriodReference", {{"classPeriodName", "P2"}, {"schoolId", 1}}}}})},
                {"programs", Json::array({Json{{"programReference",
                                                {{"educationOrganizationId", 1},
                                                 {"programName", "Bilingual"},
                                                 {"programTypeDescriptor",
                                                  "uri://ed-fi.org/ProgramTypeDescriptor#Bilingual"}}}}})}}));
    }

    void descriptorsCollectionsAndSubclasses()
    {
        // School and LocalEducationAgency are subclasses of EducationOrganization; inherited
        // collections lose the superclass's name (<EducationOrganizationCategory> in an LEA is
        // categories), repeated descriptors become items with one member.
        const std::string address = R"(<Address>
      <StreetNumberName>1 Main St</StreetNumberName><City>Grand Bend</City>
      <StateAbbreviation>uri://ed-fi.org/StateAbbreviationDescriptor#TX</StateAbbreviation>
      <PostalCode>73334</PostalCode><AddressType>uri://ed-fi.org/AddressTypeDescriptor#%1</AddressType>
    </Address>)";
        const std::vector<ImportItem> items = readText(interchange(
            "EducationOrganization", R"(  <LocalEducationAgency>
    <NameOfInstitution>Grand Bend ISD</NameOfInstitution>
    <EducationOrganizationCategory>uri://ed-fi.org/EducationOrganizationCategoryDescriptor#Local Education Agency</EducationOrganizationCategory>
    <LocalEducationAgencyId>255901</LocalEducationAgencyId>
    <LocalEducationAgencyCategory>uri://ed-fi.org/LocalEducationAgencyCategoryDescriptor#Independent</LocalEducationAgencyCategory>
  </LocalEducationAgency>
  <School>
    <SchoolId>255901001</SchoolId>
    <NameOfInstitution>Grand Bend High School</NameOfInstitution>
    <EducationOrganizationCategory>uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School</EducationOrganizationCategory>
    )" + QString::fromStdString(address).arg("Physical").toStdString() +
                                         QString::fromStdString(address).arg("Mailing").toStdString() + R"(
    <GradeLevel>uri://ed-fi.org/GradeLevelDescriptor#Ninth grade</GradeLevel>
    <GradeLevel>uri://ed-fi.org/GradeLevelDescriptor#Tenth grade</GradeLevel>
    <LocalEducationAgencyReference><LocalEducationAgencyIdentity><LocalEducationAgencyId>255901</LocalEducationAgencyId></LocalEducationAgencyIdentity></LocalEducationAgencyReference>
  </School>
  <Course>
    <CourseCode>ALG-1</CourseCode>
    <CourseTitle>Algebra I</CourseTitle>
    <NumberOfParts>1</NumberOfParts>
    <CourseIdentificationCode>
      <CourseIdentificationSystem>uri://ed-fi.org/CourseIdentificationSystemDescriptor#LEA course code</CourseIdentificationSystem>
      <IdentificationCode>ALG-1</IdentificationCode>
    </CourseIdentificationCode>
    <OfferedGradeLevel>uri://ed-fi.org/GradeLevelDescriptor#Ninth grade</OfferedGradeLevel>
    <EducationOrganizationReference><EducationOrganizationIdentity><EducationOrganizationId>255901001</EducationOrganizationId></EducationOrganizationIdentity></EducationOrganizationReference>
  </Course>
)"));
        QCOMPARE(items.size(), std::size_t(3));
        for (const ImportItem &item : items)
            NO_ERROR(item);
        QCOMPARE(items[0].resource, std::string("ed-fi/localEducationAgencies"));
        JSON_COMPARE(
            *items[0].body,
            (Json{{"nameOfInstitution", "Grand Bend ISD"},
                  {"categories",
                   Json::array({Json{
                       {"educationOrganizationCategoryDescriptor",
                        "uri://ed-fi.org/EducationOrganizationCategoryDescriptor#Local Education Agency"}}})},
                  {"localEducationAgencyId", 255901},
                  {"localEducationAgencyCategoryDescriptor",
                   "uri://ed-fi.org/LocalEducationAgencyCategoryDescriptor#Independent"}}));
        QCOMPARE(items[1].resource, std::string("ed-fi/schools"));
        auto addressJson = [](const std::string &type) {
            return Json{{"streetNumberName", "1 Main St"},
                        {"city", "Grand Bend"},
                        {"stateAbbreviationDescriptor", "uri://ed-fi.org/StateAbbreviationDescriptor#TX"},
                        {"postalCode", "73334"},
                        {"addressTypeDescriptor", "uri://ed-fi.org/AddressTypeDescriptor#" + type}};
        };
        JSON_COMPARE(
            *items[1].body,
            (Json{{"schoolId", 255901001},
                  {"nameOfInstitution", "Grand Bend High School"},
                  {"educationOrganizationCategories",
                   Json::array({Json{{"educationOrganizationCategoryDescriptor",
                                      "uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}}})},
                  {"addresses", Json::array({addressJson("Physical"), addressJson("Mailing")})},
                  {"gradeLevels",
                   Json::array(
                       {Json{{"gradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}},
                        Json{{"gradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Tenth grade"}}})},
                  {"localEducationAgencyReference", {{"localEducationAgencyId", 255901}}}}));
        // The reference to the abstract EducationOrganization.
        JSON_COMPARE((*items[2].body)["educationOrganizationReference"],
                     (Json{{"educationOrganizationId", 255901001}}));
        JSON_COMPARE(
            (*items[2].body)["identificationCodes"],
            Json::array({Json{{"courseIdentificationSystemDescriptor",
                               "uri://ed-fi.org/CourseIdentificationSystemDescriptor#LEA course code"},
                              {"identificationCode", "ALG-1"}}}));
        JSON_COMPARE((*items[2].body)["offeredGradeLevels"],
                     Json::array({Json{
                         {"gradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}}}));
    }

    void idAndRefAttributes()
    {
        // A ref may point forward (Sessions come before their grading periods in Ed-Fi's sample), at
        // a subclass element standing for its superclass, and at a top-level reference declaration.
        const std::vector<ImportItem> items = readText(
            interchange("EducationOrgCalendar", R"(  <Session>
    <SessionName>Fall</SessionName>
    )" + schoolRef("SchoolReference", 1) + R"(
    <SchoolYear>2021-2022</SchoolYear>
    <BeginDate>2021-08-23</BeginDate><EndDate>2021-12-17</EndDate>
    <Term>uri://ed-fi.org/TermDescriptor#Fall Semester</Term>
    <TotalInstructionalDays>80</TotalInstructionalDays>
    <GradingPeriodReference ref="GP1"/>
    <AcademicWeekReference ref="WEEK"/>
  </Session>
  <GradingPeriod id="GP1">
    <GradingPeriod>uri://ed-fi.org/GradingPeriodDescriptor#First Six Weeks</GradingPeriod>
    <GradingPeriodName>1</GradingPeriodName>
    <BeginDate>2021-08-23</BeginDate><EndDate>2021-10-01</EndDate>
    <TotalInstructionalDays>29</TotalInstructionalDays>
    )" + schoolRef("SchoolReference", 1) + R"(
    <SchoolYear>2021-2022</SchoolYear>
  </GradingPeriod>
  <AcademicWeekReference id="WEEK"><AcademicWeekIdentity><WeekIdentifier>W1</WeekIdentifier>)" +
                                                    schoolRef("SchoolReference", 1) +
                                                    R"(</AcademicWeekIdentity></AcademicWeekReference>
  <School id="SCH"><SchoolId>7</SchoolId><NameOfInstitution>Seven</NameOfInstitution></School>
  <Course>
    <CourseCode>C</CourseCode>
    <EducationOrganizationReference ref="SCH"/>
  </Course>
  <Course>
    <CourseCode>D</CourseCode>
    <EducationOrganizationReference ref="GP1"/>
  </Course>
  <Course>
    <CourseCode>E</CourseCode>
    <EducationOrganizationReference ref="NOWHERE"/>
  </Course>
)"));
        // The school year comes first; the reference declaration yields no item of its own.
        QCOMPARE(items.size(), std::size_t(7));
        QVERIFY(items[0].implied);
        NO_ERROR(items[1]);
        JSON_COMPARE((*items[1].body)["gradingPeriods"],
                     Json::array({Json{{"gradingPeriodReference",
                                        {{"gradingPeriodDescriptor",
                                          "uri://ed-fi.org/GradingPeriodDescriptor#First Six Weeks"},
                                         {"gradingPeriodName", "1"},
                                         {"schoolId", 1},
                                         {"schoolYear", 2022}}}}}));
        JSON_COMPARE(
            (*items[1].body)["academicWeeks"],
            Json::array({Json{{"academicWeekReference", {{"schoolId", 1}, {"weekIdentifier", "W1"}}}}}));
        NO_ERROR(items[2]);
        QCOMPARE(items[2].resource, std::string("ed-fi/gradingPeriods"));
        NO_ERROR(items[3]);
        NO_ERROR(items[4]);
        JSON_COMPARE((*items[4].body)["educationOrganizationReference"],
                     (Json{{"educationOrganizationId", 7}}));
        ERROR_CONTAINS(items[5], "<EducationOrganizationReference> on line ");
        ERROR_CONTAINS(items[5], "ref 'GP1' names a <GradingPeriod>, not a <EducationOrganization>");
        ERROR_CONTAINS(items[6], "ref 'NOWHERE' names no element with that id in this file");
    }

    void badElementsAndValues()
    {
        std::string path;
        const std::vector<ImportItem> items = readText(interchange("StaffAssociation", R"(  <Staff>
    <StaffUniqueId>S1</StaffUniqueId>
    <Name><FirstName>Ann</FirstName><LastSurname>Lee</LastSurname></Name>
    <FavouriteColour>blue</FavouriteColour>
    <YearsOfPriorTeachingExperience>many</YearsOfPriorTeachingExperience>
    <BirthDate>2001-02-30</BirthDate>
    <HighlyQualifiedTeacher>yes</HighlyQualifiedTeacher>
  </Staff>
  <Spaceship><Name>Enterprise</Name></Spaceship>
  <Staff xmlns="urn:other"><StaffUniqueId>S2</StaffUniqueId></Staff>
  <Staff>
    <StaffUniqueId>S3</StaffUniqueId>
    <Name><FirstName>Bo</FirstName><LastSurname>Ng</LastSurname></Name>
    <StaffUniqueId>S4</StaffUniqueId>
  </Staff>
  <Section><CourseOfferingReference><CourseOfferingIdentity><LocalCourseCode>X</LocalCourseCode></CourseOfferingIdentity></CourseOfferingReference></Section>
  <Staff><StaffUniqueId>S5</StaffUniqueId><Name><FirstName>Cy</FirstName><LastSurname>Oh</LastSurname></Name></Staff>
)"),
                                                       &path);
        QCOMPARE(items.size(), std::size_t(6));
        ERROR_CONTAINS(items[0], path + ":3: <Staff>: ");
        ERROR_CONTAINS(items[0],
                       "<FavouriteColour> on line 6: unknown element: Staff has no property for it");
        ERROR_CONTAINS(items[0], "<YearsOfPriorTeachingExperience> on line 7: 'many' is not a number");
        ERROR_CONTAINS(items[0], "<BirthDate> on line 8: '2001-02-30' is not a date");
        ERROR_CONTAINS(items[0], "<HighlyQualifiedTeacher> on line 9: 'yes' is not a boolean");
        QVERIFY(!items[0].body);
        QCOMPARE(items[0].line, std::int64_t(3));
        ERROR_CONTAINS(items[1], path + ":11: <Spaceship>: ");
        ERROR_CONTAINS(items[1], "has no resource named Spaceship");
        ERROR_CONTAINS(items[2], path + ":12: <Staff>: XML namespace 'urn:other' differs");
        ERROR_CONTAINS(items[3], "<StaffUniqueId> on line 16: appears more than once");
        ERROR_CONTAINS(items[4],
                       "<CourseOfferingReference> on line 18: the identity of the CourseOffering lacks "
                       "$.schoolReference.schoolId");
        // The rest of the file goes on.
        NO_ERROR(items[5]);
        QCOMPARE((*items[5].body)["staffUniqueId"].get<std::string>(), std::string("S5"));
    }

    void malformedAndWrongRoots()
    {
        std::string path;
        std::vector<ImportItem> items = readText(
            interchange(
                "Student",
                R"(  <Student><StudentUniqueId>1</StudentUniqueId><Name><FirstName>A</FirstName><LastSurname>B</LastSurname></Name><BirthData><BirthDate>2010-01-01</BirthDate></BirthData></Student>
  <Student><StudentUniqueId>2</StudentUniqueId>
    <Name><FirstName>A</FirstName></Nme>
  </Student>
  <Student><StudentUniqueId>3</StudentUniqueId></Student>
)"),
            &path);
        QCOMPARE(items.size(), std::size_t(2));
        NO_ERROR(items[0]);
        ERROR_CONTAINS(items[1], path + ":5: malformed XML: ");
        ERROR_CONTAINS(items[1], "(in <Student> that starts on line 4)");
        ERROR_CONTAINS(items[1], "the rest of the file is not read");

        items = readText(
            "<?xml version=\"1.0\"?>\n<InterchangeStudent xmlns=\"http://ed-fi.org/4.0.0\">\n<Student/>\n"
            "</InterchangeStudent>\n",
            &path);
        QCOMPARE(items.size(), std::size_t(1));
        ERROR_CONTAINS(items[0],
                       path + ":2: <InterchangeStudent>: XML namespace 'http://ed-fi.org/4.0.0', expected "
                              "'http://ed-fi.org/5.1.0'");

        // Descriptor interchanges keep their own reader.
        items = readText(interchange("Descriptors",
                                     "<GradeLevelDescriptor><CodeValue>A</CodeValue><ShortDescription>A"
                                     "</ShortDescription><Namespace>uri://ed-fi.org/GradeLevelDescriptor"
                                     "</Namespace></GradeLevelDescriptor>\n"));
        QCOMPARE(items.size(), std::size_t(1));
        NO_ERROR(items[0]);
        QCOMPARE(items[0].resource, std::string("ed-fi/gradeLevelDescriptors"));

        // Text where elements belong, and text outside any element.
        items = readText(
            interchange("Student", "stray<Student>oops<StudentUniqueId>1</StudentUniqueId></Student>\n"));
        QCOMPARE(items.size(), std::size_t(2));
        ERROR_CONTAINS(items[0], "text outside any element: 'stray'");
        ERROR_CONTAINS(items[1], "holds text 'oops'; expected elements");
    }

    void progressFollowsTheFile()
    {
        std::string body;
        for (int i = 0; i < 200; ++i)
            body +=
                "<Staff><StaffUniqueId>S" + std::to_string(i) +
                "</StaffUniqueId><Name><FirstName>A</FirstName><LastSurname>B</LastSurname></Name></Staff>\n";
        const std::string path = write(interchange("StaffAssociation", body));
        std::string error;
        std::unique_ptr<ImportSource> source = openInterchangeXml(path, *m_starter, &error);
        QVERIFY(source);
        QVERIFY(source->bytesTotal() > 0);
        ImportItem item;
        std::uint64_t last = 0;
        int count = 0;
        while (source->next(item)) {
            NO_ERROR(item);
            QVERIFY(source->bytesRead() >= last);
            last = source->bytesRead();
            ++count;
        }
        QCOMPARE(count, 200);
        QCOMPARE(source->bytesRead(), source->bytesTotal());

        QVERIFY(!openInterchangeXml(m_dir.filePath("missing.xml").toStdString(), *m_starter, &error));
        QVERIFY(contains(error, "cannot be read"));
    }

    void importsThroughTheImporter()
    {
        // Descriptors and interchanges in one folder, in any order: load order sorts them out and a
        // document whose reference cannot exist becomes a draft naming it.
        QTemporaryDir dir;
        auto descriptor = [](const std::string &type, const std::string &code) {
            return "<" + type + "><CodeValue>" + code + "</CodeValue><ShortDescription>" + code +
                   "</ShortDescription><Namespace>uri://ed-fi.org/" + type + "</Namespace></" + type + ">\n";
        };
        auto put = [&](const QString &name, const std::string &text) {
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text.data(), qint64(text.size()));
        };
        put("a-sections.xml",
            interchange(
                "MasterSchedule",
                R"(<Section><SectionIdentifier>S1</SectionIdentifier>
<CourseOfferingReference><CourseOfferingIdentity><LocalCourseCode>ALG-1</LocalCourseCode>)" +
                    schoolRef("SchoolReference", 1) +
                    R"(<SessionReference><SessionIdentity><SessionName>Fall</SessionName><SchoolYear>2021-2022</SchoolYear>)" +
                    schoolRef("SchoolReference", 1) + R"(</SessionIdentity></SessionReference>
</CourseOfferingIdentity></CourseOfferingReference></Section>
)"));
        put("b-schools.xml",
            interchange("EducationOrganization",
                        R"(<School><SchoolId>1</SchoolId><NameOfInstitution>One</NameOfInstitution>
<EducationOrganizationCategory>uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School</EducationOrganizationCategory>
<GradeLevel>uri://ed-fi.org/GradeLevelDescriptor#Ninth grade</GradeLevel></School>
<Course><CourseCode>ALG-1</CourseCode><CourseTitle>Algebra</CourseTitle><NumberOfParts>1</NumberOfParts>
<CourseIdentificationCode><CourseIdentificationSystem>uri://ed-fi.org/CourseIdentificationSystemDescriptor#LEA course code</CourseIdentificationSystem><IdentificationCode>ALG-1</IdentificationCode></CourseIdentificationCode>
<EducationOrganizationReference><EducationOrganizationIdentity><EducationOrganizationId>1</EducationOrganizationId></EducationOrganizationIdentity></EducationOrganizationReference></Course>
)"));
        put("c-descriptors.xml",
            interchange("Descriptors",
                        descriptor("GradeLevelDescriptor", "Ninth grade") +
                            descriptor("EducationOrganizationCategoryDescriptor", "School") +
                            descriptor("CourseIdentificationSystemDescriptor", "LEA course code")));
        ImportOptions options;
        options.paths = {dir.path().toStdString()};
        Fixture f;
        // A stored school year is left as it is, whatever the implied one says.
        Json current = Fixture::schoolYear(2022);
        current["currentSchoolYear"] = true;
        f.create("/ed-fi/schoolYearTypes", current);
        ImportReport report = importFiles(f.engine(), f.model(), options);
        QVERIFY2(report.completed, report.error.c_str());
        QCOMPARE(report.totals.created, 5);
        QCOMPARE(report.byResource["ed-fi/schoolYearTypes"].unchanged, 1);
        QCOMPARE(f.call("GET", "/ed-fi/schoolYearTypes").body[0]["currentSchoolYear"].get<bool>(), true);
        QCOMPARE(report.byResource["ed-fi/schools"].created, 1);
        QCOMPARE(report.byResource["ed-fi/courses"].created, 1);
        QCOMPARE(report.totals.drafts, 1);
        QCOMPARE(report.drafts.front().resource, std::string("ed-fi/sections"));
        QCOMPARE(report.drafts.front().line, std::int64_t(3));
        QVERIFY(contains(report.drafts.front().problem.dump(), "CourseOffering"));
    }
};

QTEST_GUILESS_MAIN(TestInterchangeXml)
#include "tst_interchangexml.moc"
