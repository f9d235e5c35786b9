#include "TestSupport.h"

#include "SampleDistrict.h"

#include <QDir>
#include <QFileInfo>
#include <QTest>

namespace steward::test {

QString sharedEdfiDir()
{
    const QString dir = QStringLiteral(STEWARD_SHARED_DIR "/edfi");
    return QFileInfo(dir + "/ds-5.1/ApiSchema.json").exists() ? QDir(dir).absolutePath() : QString();
}

Fixture::Fixture(std::unique_ptr<Model> model)
    : m_model(model ? std::move(model) : Model::loadStarter())
{
    m_database = Database::open(databasePath());
    m_engine = std::make_unique<Engine>(*m_model, *m_database);
}

Fixture::~Fixture()
{
    m_engine.reset();
    m_database.reset();
}

std::string Fixture::databasePath() const
{
    return m_dir.filePath(QStringLiteral("steward.db")).toStdString();
}

Response Fixture::call(const std::string &method, const std::string &path, const Json &body,
                       const std::map<std::string, std::string> &headers)
{
    Request request;
    request.method = method;
    request.path = path;
    if (!body.is_null())
        request.body = body;
    for (const auto &[k, v] : headers)
        request.headers[toLower(k)] = v;
    request.actor = "test";
    return m_engine->handle(request);
}

std::string idFromLocation(const std::string &location)
{
    const std::size_t slash = location.find_last_of('/');
    return slash == std::string::npos ? std::string() : location.substr(slash + 1);
}

std::string Fixture::create(const std::string &path, const Json &body)
{
    Response r = call("POST", path, body);
    if (r.status != 201 && r.status != 200)
        qWarning("POST %s answered %d: %s", path.c_str(), r.status, r.body.dump().c_str());
    return idFromLocation(r.header("Location"));
}

void Fixture::loadSampleDistrict(unsigned seed, int studentsPerSchool)
{
    for (const Request &request : sampleDistrictRequests(seed, studentsPerSchool)) {
        const Response response = m_engine->handle(request);
        QVERIFY2(response.status < 300,
                 qPrintable(QString::fromStdString(request.path + ": " + response.body.dump())));
    }
}

void Fixture::seedDescriptors()
{
    const std::vector<std::pair<std::string, std::string>> descriptors = {
        {"gradeLevelDescriptors", "Ninth grade"},
        {"gradeLevelDescriptors", "Tenth grade"},
        {"educationOrganizationCategoryDescriptors", "School"},
        {"educationOrganizationCategoryDescriptors", "Local Education Agency"},
        {"localEducationAgencyCategoryDescriptors", "Independent"},
        {"termDescriptors", "Fall Semester"},
        {"courseIdentificationSystemDescriptors", "LEA course code"},
        {"academicSubjectDescriptors", "Mathematics"},
        {"programTypeDescriptors", "Bilingual"},
    };
    for (const auto &[endpoint, code] : descriptors) {
        std::string type = endpoint.substr(0, endpoint.size() - 1); // "gradeLevelDescriptor"
        type[0] = static_cast<char>(std::toupper(type[0]));
        create("/ed-fi/" + endpoint,
               Json{{"namespace", "uri://ed-fi.org/" + type}, {"codeValue", code}, {"shortDescription", code}});
    }
}

Json Fixture::school(int schoolId, const std::string &name)
{
    return Json{{"schoolId", schoolId},
                {"nameOfInstitution", name},
                {"educationOrganizationCategories",
                 Json::array({{{"educationOrganizationCategoryDescriptor",
                                "uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}}})},
                {"gradeLevels",
                 Json::array({{{"gradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}}})}};
}

Json Fixture::schoolYear(int year)
{
    return Json{{"schoolYear", year}, {"currentSchoolYear", false}, {"schoolYearDescription", std::to_string(year)}};
}

Json Fixture::session(int schoolId, int year, const std::string &name)
{
    return Json{{"sessionName", name},
                {"schoolReference", {{"schoolId", schoolId}}},
                {"schoolYearTypeReference", {{"schoolYear", year}}},
                {"beginDate", "2021-08-23"},
                {"endDate", "2021-12-17"},
                {"termDescriptor", "uri://ed-fi.org/TermDescriptor#Fall Semester"},
                {"totalInstructionalDays", 80}};
}

Json Fixture::course(const std::string &code, int edOrgId)
{
    return Json{{"courseCode", code},
                {"courseTitle", "Algebra I"},
                {"numberOfParts", 1},
                {"identificationCodes",
                 Json::array({{{"identificationCode", code},
                               {"courseIdentificationSystemDescriptor",
                                "uri://ed-fi.org/CourseIdentificationSystemDescriptor#LEA course code"}}})},
                {"educationOrganizationReference", {{"educationOrganizationId", edOrgId}}}};
}

} // namespace steward::test
