#include "SampleDistrict.h"

#include <random>

namespace steward {

namespace {

const char *const kFirstNames[] = {"Lisa", "Marcus", "Ana", "Tomas", "Priya", "Noah", "Grace", "Diego", "Mei", "Omar",
                                   "Elena", "Jamal", "Sofia", "Liam", "Aisha", "Ben", "Chloe", "Ravi", "Hana", "Luis"};
const char *const kLastNames[] = {"Woods", "Garcia", "Nguyen", "Smith", "Patel", "Johnson", "Kim", "Lopez",
                                  "Brown", "Okafor", "Rossi", "Haddad", "Novak", "Silva", "Cohen", "Ward"};

Request post(const std::string &endpoint, Json body)
{
    Request request;
    request.method = "POST";
    request.path = "/ed-fi/" + endpoint;
    request.body = std::move(body);
    request.actor = "sample district";
    return request;
}

Json descriptor(const std::string &type, const std::string &code)
{
    return Json{{"namespace", "uri://ed-fi.org/" + type}, {"codeValue", code}, {"shortDescription", code}};
}

std::string uri(const std::string &type, const std::string &code)
{
    return "uri://ed-fi.org/" + type + "#" + code;
}

} // namespace

std::vector<Request> sampleDistrictRequests(unsigned seed, int studentsPerSchool)
{
    std::mt19937 random(seed);
    std::vector<Request> out;
    const std::vector<std::pair<std::string, std::vector<std::string>>> descriptors = {
        {"GradeLevelDescriptor", {"Ninth grade", "Tenth grade", "Eleventh grade", "Twelfth grade"}},
        {"EducationOrganizationCategoryDescriptor", {"School", "Local Education Agency", "State Education Agency"}},
        {"LocalEducationAgencyCategoryDescriptor", {"Independent"}},
        {"TermDescriptor", {"Fall Semester", "Spring Semester"}},
        {"CourseIdentificationSystemDescriptor", {"LEA course code"}},
        {"AcademicSubjectDescriptor", {"Mathematics", "English Language Arts", "Science"}},
        {"CalendarTypeDescriptor", {"Student Specific"}},
        {"ClassroomPositionDescriptor", {"Teacher of Record"}},
        {"SexDescriptor", {"Female", "Male"}},
    };
    for (const auto &[type, codes] : descriptors) {
        std::string endpoint = type;
        endpoint[0] = static_cast<char>(std::tolower(endpoint[0]));
        for (const std::string &code : codes)
            out.push_back(post(endpoint + "s", descriptor(type, code)));
    }
    const std::string edOrgCategory = "EducationOrganizationCategoryDescriptor";
    out.push_back(post("schoolYearTypes", {{"schoolYear", 2025}, {"currentSchoolYear", true}, {"schoolYearDescription", "2024-2025"}}));
    out.push_back(post("stateEducationAgencies",
                       {{"stateEducationAgencyId", 255},
                        {"nameOfInstitution", "Texas Education Agency"},
                        {"categories", Json::array({{{"educationOrganizationCategoryDescriptor",
                                                      uri(edOrgCategory, "State Education Agency")}}})}}));
    out.push_back(post("localEducationAgencies",
                       {{"localEducationAgencyId", 255901},
                        {"nameOfInstitution", "Grand Bend ISD"},
                        {"categories", Json::array({{{"educationOrganizationCategoryDescriptor",
                                                      uri(edOrgCategory, "Local Education Agency")}}})},
                        {"localEducationAgencyCategoryDescriptor", uri("LocalEducationAgencyCategoryDescriptor", "Independent")},
                        {"stateEducationAgencyReference", {{"stateEducationAgencyId", 255}}}}));

    const std::vector<std::pair<int, std::string>> schools = {{255901001, "Grand Bend High School"},
                                                               {255901044, "Grand Bend Middle School"}};
    const std::vector<std::pair<std::string, std::string>> courses = {
        {"ALG-1", "Algebra I"}, {"ENG-1", "English I"}, {"BIO-1", "Biology"}};
    int studentNumber = 604800;
    int staffNumber = 207200;
    for (const auto &[schoolId, schoolName] : schools) {
        out.push_back(post("schools", {{"schoolId", schoolId},
                                       {"nameOfInstitution", schoolName},
                                       {"educationOrganizationCategories",
                                        Json::array({{{"educationOrganizationCategoryDescriptor", uri(edOrgCategory, "School")}}})},
                                       {"gradeLevels", Json::array({{{"gradeLevelDescriptor", uri("GradeLevelDescriptor", "Ninth grade")}},
                                                                    {{"gradeLevelDescriptor", uri("GradeLevelDescriptor", "Tenth grade")}}})},
                                       {"localEducationAgencyReference", {{"localEducationAgencyId", 255901}}}}));
        out.push_back(post("sessions", {{"sessionName", "2024-2025 Fall Semester"},
                                        {"schoolReference", {{"schoolId", schoolId}}},
                                        {"schoolYearTypeReference", {{"schoolYear", 2025}}},
                                        {"beginDate", "2024-08-19"},
                                        {"endDate", "2024-12-20"},
                                        {"termDescriptor", uri("TermDescriptor", "Fall Semester")},
                                        {"totalInstructionalDays", 82}}));
        std::vector<std::string> staffIds;
        for (int i = 0; i < 3; ++i) {
            const std::string staffId = std::to_string(++staffNumber);
            staffIds.push_back(staffId);
            out.push_back(post("staffs", {{"staffUniqueId", staffId},
                                          {"firstName", kFirstNames[random() % std::size(kFirstNames)]},
                                          {"lastSurname", kLastNames[random() % std::size(kLastNames)]}}));
        }
        std::vector<Json> sectionRefs;
        for (std::size_t c = 0; c < courses.size(); ++c) {
            const auto &[code, title] = courses[c];
            out.push_back(post("courses", {{"courseCode", code},
                                           {"courseTitle", title},
                                           {"numberOfParts", 1},
                                           {"identificationCodes",
                                            Json::array({{{"identificationCode", code},
                                                          {"courseIdentificationSystemDescriptor",
                                                           uri("CourseIdentificationSystemDescriptor", "LEA course code")}}})},
                                           {"educationOrganizationReference", {{"educationOrganizationId", schoolId}}}}));
            out.push_back(post("courseOfferings", {{"localCourseCode", code},
                                                   {"courseReference", {{"courseCode", code}, {"educationOrganizationId", schoolId}}},
                                                   {"schoolReference", {{"schoolId", schoolId}}},
                                                   {"sessionReference", {{"schoolId", schoolId},
                                                                         {"schoolYear", 2025},
                                                                         {"sessionName", "2024-2025 Fall Semester"}}}}));
            const Json sectionRef = {{"localCourseCode", code}, {"schoolId", schoolId}, {"schoolYear", 2025},
                                     {"sectionIdentifier", code + "-01"}, {"sessionName", "2024-2025 Fall Semester"}};
            sectionRefs.push_back(sectionRef);
            out.push_back(post("sections", {{"sectionIdentifier", code + "-01"},
                                            {"courseOfferingReference", {{"localCourseCode", code},
                                                                         {"schoolId", schoolId},
                                                                         {"schoolYear", 2025},
                                                                         {"sessionName", "2024-2025 Fall Semester"}}}}));
            out.push_back(post("staffSectionAssociations", {{"sectionReference", sectionRef},
                                                            {"staffReference", {{"staffUniqueId", staffIds[c % staffIds.size()]}}},
                                                            {"beginDate", "2024-08-19"},
                                                            {"classroomPositionDescriptor",
                                                             uri("ClassroomPositionDescriptor", "Teacher of Record")}}));
        }
        for (int s = 0; s < studentsPerSchool; ++s) {
            const std::string studentId = std::to_string(++studentNumber);
            const int year = 2008 + static_cast<int>(random() % 3);
            const int month = 1 + static_cast<int>(random() % 12);
            const int day = 1 + static_cast<int>(random() % 28);
            char birthDate[16];
            std::snprintf(birthDate, sizeof birthDate, "%04d-%02d-%02d", year, month, day);
            out.push_back(post("students", {{"studentUniqueId", studentId},
                                            {"firstName", kFirstNames[random() % std::size(kFirstNames)]},
                                            {"lastSurname", kLastNames[random() % std::size(kLastNames)]},
                                            {"birthDate", birthDate}}));
            out.push_back(post("studentSchoolAssociations",
                               {{"studentReference", {{"studentUniqueId", studentId}}},
                                {"schoolReference", {{"schoolId", schoolId}}},
                                {"entryDate", "2024-08-19"},
                                {"entryGradeLevelDescriptor",
                                 uri("GradeLevelDescriptor", s % 2 ? "Ninth grade" : "Tenth grade")}}));
            out.push_back(post("studentSectionAssociations",
                               {{"studentReference", {{"studentUniqueId", studentId}}},
                                {"sectionReference", sectionRefs[s % sectionRefs.size()]},
                                {"beginDate", "2024-08-19"}}));
        }
    }
    return out;
}

} // namespace steward
