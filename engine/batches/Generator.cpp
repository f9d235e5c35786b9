#include "Generator.h"
#include "DistrictTables.h"
#include "Text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace steward {

namespace {

using district::City;
using district::Course;
using district::DescriptorSet;
using district::GradingPeriod;
using district::kHighSchoolCore;
using district::kHighSchoolElectives;
using district::Term;
using district::GradeSpan;
using district::Level;
using district::catalogOf;
using district::coreCourse;
using district::dateText;
using district::daysFromCivil;
using district::descriptorSets;
using district::gradeUri;
using district::gradingPeriods;
using district::kSubjects;
using district::kFemaleNames;
using district::kMaleNames;
using district::kLastNames;
using district::kTowns;
using district::kCounties;
using district::kSchoolNames;
using district::kDirections;
using district::kStreets;
using district::kStreetTypes;
using district::kTexasCities;
using district::kOtherCities;
using district::levelName;
using district::spanOf;
using district::terms;
using district::uri;
using district::weekday;

// The shape of the generated district. Everything scales from the student count; schools hold
// about 750 students, districts at most 200 schools (so ids keep Ed-Fi's 255901 / 255901001 form).
constexpr std::int64_t kMaxStudents = 10'000'000;
constexpr std::int64_t kStudentsPerSchool = 750;
constexpr int kSchoolsPerLea = 200;
constexpr int kMaxLeas = 98; // LEA ids stay six digits: 255901..255998
constexpr std::int64_t kStateAgencyId = 255;
constexpr std::int64_t kFirstLeaId = 255901;
constexpr std::int64_t kFirstStudentNumber = 604801;
constexpr std::int64_t kFirstStaffNumber = 207201;
constexpr int kSectionSize = 24;       // sections are split to hold 24 students at most
constexpr int kSectionsPerTeacher = 6; // of kClassPeriods: one period a day is for planning
constexpr int kClassPeriods = 7;
constexpr int kSchoolYear = 2025; // the 2024-2025 school year
constexpr int kPriorSchoolYear = 2024;
constexpr int kFirstSchoolYearType = 2020;
constexpr int kLastSchoolYearType = 2040; // past the kindergarten class of 2037

template <typename T, std::size_t N>
const T &pick(std::mt19937 &random, const T (&items)[N])
{
    return items[random() % N];
}

int below(std::mt19937 &random, int n)
{
    return static_cast<int>(random() % static_cast<std::uint32_t>(n));
}

bool chance(std::mt19937 &random, int percent)
{
    return below(random, 100) < percent;
}

// One generator per purpose and school, so each pass over the schools can rebuild exactly what an
// earlier pass drew without keeping it (std::seed_seq and mt19937 are fully specified: portable).
std::mt19937 streamFor(std::uint32_t seed, std::uint32_t purpose, std::int64_t index)
{
    std::seed_seq sequence{seed, purpose, static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32)};
    return std::mt19937(sequence);
}

enum Purpose : std::uint32_t {
    kDistrictStream = 1,
    kSchoolStream,
    kPlanStream,
    kStaffStream,
    kStudentStream,
    kEnrollmentStream,
};

// ---------------------------------------------------------------------------------------------
// Where every school and district sits; all of it computed from indexes, nothing stored.

class Layout
{
public:
    explicit Layout(std::int64_t students)
        : m_students(students)
    {
        m_schools = static_cast<int>(
            std::max<std::int64_t>(2, (students + kStudentsPerSchool / 2) / kStudentsPerSchool));
        m_schoolsPerLea = std::max(kSchoolsPerLea, (m_schools + kMaxLeas - 1) / kMaxLeas);
        m_leas = (m_schools + m_schoolsPerLea - 1) / m_schoolsPerLea;
    }

    int schools() const { return m_schools; }
    int leas() const { return m_leas; }
    std::int64_t firstStudent(int school) const { return m_students * school / m_schools; }
    std::int64_t studentCount(int school) const { return firstStudent(school + 1) - firstStudent(school); }
    int leaOf(int school) const { return school / m_schoolsPerLea; }
    int positionInLea(int school) const { return school % m_schoolsPerLea; }
    int schoolsInLea(int lea) const { return std::min(m_schoolsPerLea, m_schools - lea * m_schoolsPerLea); }
    static std::int64_t leaId(int lea) { return kFirstLeaId + lea; }

    // High, middle, elementary, elementary, ...: the first two are Grand Bend High (255901001) and
    // Grand Bend Middle (255901044), as in Ed-Fi's own sample.
    Level level(int school) const
    {
        const int slot = positionInLea(school) % 4;
        return slot == 0 ? Level::High : slot == 1 ? Level::Middle : Level::Elementary;
    }

    std::int64_t schoolId(int school) const
    {
        const int position = positionInLea(school);
        const int suffix = position == 0 ? 1 : position == 1 ? 44 : position == 2 ? 107 : 110 + position;
        return leaId(leaOf(school)) * 1000 + suffix;
    }

    // Which of the district's schools of this level ranks `ordinal`-th (0: the one named after the town).
    int ordinalInLevel(int school) const
    {
        const int position = positionInLea(school);
        const int block = position / 4;
        const int slot = position % 4;
        return slot < 2 ? block : block * 2 + (slot - 2);
    }

    // A school of the given level in the same district, spread by student; -1 when there is none.
    int feederSchool(int school, Level level, std::int64_t studentNumber) const
    {
        const int lea = leaOf(school);
        const int count = schoolsInLea(lea);
        const auto slotsAt = [count](int offset) { return count > offset ? (count - offset + 3) / 4 : 0; };
        int position = -1;
        if (level == Level::Elementary) {
            const int twos = slotsAt(2);
            const int total = twos + slotsAt(3);
            if (total > 0) {
                const int m = static_cast<int>(studentNumber % total);
                position = m < twos ? 4 * m + 2 : 4 * (m - twos) + 3;
            }
        } else {
            const int offset = level == Level::High ? 0 : 1;
            const int total = slotsAt(offset);
            if (total > 0)
                position = 4 * static_cast<int>(studentNumber % total) + offset;
        }
        return position < 0 ? -1 : lea * m_schoolsPerLea + position;
    }

private:
    std::int64_t m_students = 0;
    int m_schools = 2;
    int m_schoolsPerLea = kSchoolsPerLea;
    int m_leas = 1;
};

std::string townOf(int lea)
{
    const int count = static_cast<int>(std::size(kTowns));
    return std::string(kDirections[(lea / count) % std::size(kDirections)]) + kTowns[lea % count];
}

std::string leaName(int lea)
{
    return townOf(lea) + " ISD";
}

std::string domainOf(int lea)
{
    std::string domain;
    for (char c : leaName(lea))
        if (c != ' ' && c != '.')
            domain += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return domain + ".org";
}

std::string schoolName(const Layout &layout, int school)
{
    const Level level = layout.level(school);
    const int ordinal = layout.ordinalInLevel(school);
    if (ordinal == 0)
        return townOf(layout.leaOf(school)) + " " + levelName(level);
    const int count = static_cast<int>(std::size(kSchoolNames));
    const int index = ordinal - 1;
    return std::string(kDirections[(index / count) % std::size(kDirections)]) + kSchoolNames[index % count] + " "
           + levelName(level);
}

std::string initials(const std::string &name)
{
    std::string out;
    bool start = true;
    for (char c : name) {
        if (c == ' ' || c == '.') {
            start = true;
        } else {
            if (start && std::isalpha(static_cast<unsigned char>(c)))
                out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            start = false;
        }
    }
    return out;
}

std::string calendarCode(std::int64_t schoolId, int schoolYear)
{
    return std::to_string(schoolId) + "_" + std::to_string(schoolYear - 1) + "-" + std::to_string(schoolYear);
}

std::string classPeriodName(int period)
{
    char text[32];
    std::snprintf(text, sizeof text, "%02d - Traditional", period + 1);
    return text;
}

std::string roomCode(int room)
{
    char text[32];
    std::snprintf(text, sizeof text, "%c%d", 'A' + room / 40, 101 + room % 40);
    return text;
}

// ---------------------------------------------------------------------------------------------
// A school's year: its students' grades, courses and sections, and its teachers. Rebuilt from
// its own random stream by every pass that needs it, so only one school is in memory at a time.

struct PlannedStudent
{
    std::int64_t number = 0; // 0-based across the whole generated district
    int grade = 0;
    int entryDay = 0;
    bool repeating = false;
    int priorSchool = -1; // where the student was enrolled last year, -1 when not in the district
    int priorGrade = 0;
    std::array<std::array<int, 4>, 2> courses{};  // course indexes per term
    std::array<std::array<int, 4>, 2> sections{}; // the section of each of those courses
    std::array<int, 2> courseCount{};
};

struct PlannedSection
{
    int course = 0;
    int number = 0; // 1-based among the sections of its course offering
    int teacher = 0;
    int period = 0;
};

struct SchoolPlan
{
    int index = 0;
    std::int64_t schoolId = 0;
    Level level = Level::High;
    std::vector<PlannedStudent> students;
    std::array<std::vector<PlannedSection>, 2> sections;
    int teachers = 0;
    int supportStaff = 0;

    int staffCount() const { return teachers + supportStaff; }
    int rooms() const { return teachers + 2; } // each teacher's classroom, plus library and gym
};

// A school day after the first one, for students who enrol late.
int lateEntryDay(std::mt19937 &random)
{
    const Term &fall = terms()[0];
    const Term &spring = terms()[1];
    int day = fall.begin + 1 + below(random, 200);
    if (day > fall.end && day < spring.begin)
        day = spring.begin;
    while (weekday(day) >= 5)
        ++day;
    return day;
}

// The courses a student takes each term, drawn from the school's catalog. High school courses
// last one term: two core subjects and two electives each term. Middle schools take the four core
// subjects all year; elementary ELA and math all year, science in the fall and social studies in
// the spring.
void chooseCourses(Level level, PlannedStudent &student, std::mt19937 &random)
{
    auto add = [&student](int term, int course) { student.courses[term][student.courseCount[term]++] = course; };
    if (level == Level::High) {
        std::array<int, 4> core{};
        for (int subject = 0; subject < 4; ++subject)
            core[subject] = coreCourse(level, student.grade, subject);
        for (int k = 3; k > 0; --k)
            std::swap(core[k], core[below(random, k + 1)]);
        std::array<int, kHighSchoolElectives> electives{};
        for (int k = 0; k < kHighSchoolElectives; ++k)
            electives[k] = kHighSchoolCore + k;
        for (int k = 0; k < 4; ++k)
            std::swap(electives[k], electives[k + below(random, kHighSchoolElectives - k)]);
        add(0, core[0]);
        add(0, core[1]);
        add(0, electives[0]);
        add(0, electives[1]);
        add(1, core[2]);
        add(1, core[3]);
        add(1, electives[2]);
        add(1, electives[3]);
    } else if (level == Level::Middle) {
        for (int term = 0; term < 2; ++term)
            for (int subject = 0; subject < 4; ++subject)
                add(term, coreCourse(level, student.grade, subject));
    } else {
        for (int term = 0; term < 2; ++term) {
            add(term, coreCourse(level, student.grade, 0));
            add(term, coreCourse(level, student.grade, 1));
            add(term, coreCourse(level, student.grade, term == 0 ? 2 : 3));
        }
    }
}

// Each term, each course's students (those enrolled by the end of the term) split evenly into
// sections of at most kSectionSize, in catalog order.
void splitIntoSections(SchoolPlan &plan, const std::vector<Course> &catalog)
{
    for (int term = 0; term < 2; ++term) {
        std::vector<std::vector<std::pair<int, int>>> byCourse(catalog.size()); // (student, slot)
        for (std::size_t s = 0; s < plan.students.size(); ++s) {
            PlannedStudent &student = plan.students[s];
            if (student.entryDay > terms()[term].end) {
                student.courseCount[term] = 0;
                continue;
            }
            for (int slot = 0; slot < student.courseCount[term]; ++slot)
                byCourse[student.courses[term][slot]].emplace_back(static_cast<int>(s), slot);
        }
        for (std::size_t course = 0; course < catalog.size(); ++course) {
            const std::vector<std::pair<int, int>> &enrolled = byCourse[course];
            if (enrolled.empty())
                continue;
            const int sectionCount = static_cast<int>((enrolled.size() + kSectionSize - 1) / kSectionSize);
            const int base = static_cast<int>(plan.sections[term].size());
            for (int n = 0; n < sectionCount; ++n)
                plan.sections[term].push_back({static_cast<int>(course), n + 1, 0, 0});
            for (std::size_t j = 0; j < enrolled.size(); ++j)
                plan.students[enrolled[j].first].sections[term][enrolled[j].second] =
                    base + static_cast<int>(j % sectionCount);
        }
    }
}

// About one staff member per 15 students, enough teachers for every section; each teacher takes
// consecutive sections (mostly one course) in distinct periods, in their own room.
void assignStaff(SchoolPlan &plan, std::int64_t count)
{
    const int mostSections = static_cast<int>(std::max(plan.sections[0].size(), plan.sections[1].size()));
    const int byRatio = static_cast<int>((count + 7) / 15);
    plan.teachers = std::max({(mostSections + kSectionsPerTeacher - 1) / kSectionsPerTeacher, byRatio * 3 / 4,
                              mostSections > 0 ? 1 : 0});
    plan.supportStaff = std::max(1, byRatio - plan.teachers);
    for (int term = 0; term < 2; ++term) {
        std::vector<PlannedSection> &sections = plan.sections[term];
        if (sections.empty())
            continue;
        const int perTeacher =
            static_cast<int>((sections.size() + static_cast<std::size_t>(plan.teachers) - 1) / plan.teachers);
        for (std::size_t k = 0; k < sections.size(); ++k) {
            const int teacher = static_cast<int>(k) / perTeacher;
            sections[k].teacher = teacher;
            sections[k].period = (static_cast<int>(k) % perTeacher + teacher) % kClassPeriods;
        }
    }
}

SchoolPlan planSchool(const Layout &layout, int school, std::uint32_t seed)
{
    SchoolPlan plan;
    plan.index = school;
    plan.schoolId = layout.schoolId(school);
    plan.level = layout.level(school);
    const GradeSpan span = spanOf(plan.level);
    const std::vector<Course> &catalog = catalogOf(plan.level);
    std::mt19937 random = streamFor(seed, kPlanStream, school);

    const std::int64_t first = layout.firstStudent(school);
    const std::int64_t count = layout.studentCount(school);
    plan.students.resize(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) {
        PlannedStudent &student = plan.students[static_cast<std::size_t>(i)];
        student.number = first + i;
        student.grade = span.low + static_cast<int>(i * span.count() / count);
        const bool late = chance(random, 4);
        student.entryDay = late ? lateEntryDay(random) : terms()[0].begin;
        student.repeating = student.grade > 0 && chance(random, 2);
        if (!late && student.grade > 0 && chance(random, 92)) {
            student.priorGrade = student.repeating ? student.grade : student.grade - 1;
            if (span.contains(student.priorGrade))
                student.priorSchool = school;
            else
                student.priorSchool = layout.feederSchool(
                    school, plan.level == Level::High ? Level::Middle : Level::Elementary, student.number);
        }
        chooseCourses(plan.level, student, random);
    }

    splitIntoSections(plan, catalog);
    assignStaff(plan, count);
    return plan;
}

// ---------------------------------------------------------------------------------------------
// Document builders.

class DistrictWriter
{
public:
    DistrictWriter(const GeneratorOptions &options,
                   const std::function<void(const std::string &, const Json &)> &emit)
        : m_seed(options.seed)
        , m_layout(options.students)
        , m_emit(emit)
    {
    }

    std::int64_t run()
    {
        writeDescriptors();
        writeSchoolYears();
        writeStateAgency();
        for (int lea = 0; lea < m_layout.leas(); ++lea)
            writeLea(lea);
        for (int school = 0; school < m_layout.schools(); ++school)
            writeSchool(school);
        for (int school = 0; school < m_layout.schools(); ++school)
            writeCalendars(school);
        for (int school = 0; school < m_layout.schools(); ++school)
            writeGradingPeriods(school);
        for (int school = 0; school < m_layout.schools(); ++school)
            writeSessions(school);
        for (int school = 0; school < m_layout.schools(); ++school)
            writeClassPeriods(school);
        forEachPlan([this](const SchoolPlan &plan, std::int64_t) { writeLocations(plan); });
        for (int school = 0; school < m_layout.schools(); ++school)
            writeCourses(school);
        forEachPlan([this](const SchoolPlan &plan, std::int64_t) { writeCourseOfferings(plan); });
        forEachPlan([this](const SchoolPlan &plan, std::int64_t) { writeSections(plan); });
        forEachPlan([this](const SchoolPlan &plan, std::int64_t firstStaff) { writeStaff(plan, firstStaff); });
        forEachPlan([this](const SchoolPlan &plan, std::int64_t) { writeStudents(plan); });
        forEachPlan([this](const SchoolPlan &plan, std::int64_t) { writeSchoolAssociations(plan); });
        forEachPlan([this](const SchoolPlan &plan, std::int64_t firstStaff) { writeStaffSections(plan, firstStaff); });
        forEachPlan([this](const SchoolPlan &plan, std::int64_t) { writeStudentSections(plan); });
        return m_count;
    }

private:
    void emit(const char *resource, const Json &body)
    {
        m_emit(std::string("ed-fi/") + resource, body);
        ++m_count;
    }

    // Staff numbers run on across schools, so each pass carries the count of the schools before.
    template <typename F>
    void forEachPlan(F &&visit)
    {
        std::int64_t firstStaff = 0;
        for (int school = 0; school < m_layout.schools(); ++school) {
            const SchoolPlan plan = planSchool(m_layout, school, m_seed);
            visit(plan, firstStaff);
            firstStaff += plan.staffCount();
        }
    }

    void writeDescriptors()
    {
        for (const DescriptorSet &set : descriptorSets()) {
            std::string endpoint = set.type;
            endpoint[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(endpoint[0])));
            endpoint += "s";
            for (const char *code : set.codes)
                emit(endpoint.c_str(), Json{{"namespace", std::string("uri://ed-fi.org/") + set.type},
                                            {"codeValue", code},
                                            {"shortDescription", code},
                                            {"description", code}});
        }
    }

    void writeSchoolYears()
    {
        for (int year = kFirstSchoolYearType; year <= kLastSchoolYearType; ++year)
            emit("schoolYearTypes", Json{{"schoolYear", year},
                                         {"currentSchoolYear", year == kSchoolYear},
                                         {"schoolYearDescription",
                                          std::to_string(year - 1) + "-" + std::to_string(year)}});
    }

    static Json address(const char *type, const std::string &street, const std::string &city,
                        const std::string &postalCode, const std::string &county)
    {
        return Json{{"addressTypeDescriptor", uri("AddressTypeDescriptor", type)},
                    {"streetNumberName", street},
                    {"city", city},
                    {"stateAbbreviationDescriptor", uri("StateAbbreviationDescriptor", "TX")},
                    {"postalCode", postalCode},
                    {"nameOfCounty", county}};
    }

    static std::string streetAddress(std::mt19937 &random)
    {
        return std::to_string(100 + below(random, 9800)) + " " + pick(random, kStreets) + " " + pick(random, kStreetTypes);
    }

    void writeStateAgency()
    {
        emit("stateEducationAgencies",
             Json{{"stateEducationAgencyId", kStateAgencyId},
                  {"nameOfInstitution", "Texas Education Agency"},
                  {"shortNameOfInstitution", "TEA"},
                  {"webSite", "https://tea.texas.gov"},
                  {"operationalStatusDescriptor", uri("OperationalStatusDescriptor", "Active")},
                  {"categories", Json::array({{{"educationOrganizationCategoryDescriptor",
                                                uri("EducationOrganizationCategoryDescriptor", "State Education Agency")}}})},
                  {"addresses", Json::array({address("Physical", "1701 N. Congress Ave", "Austin", "78701", "Travis")})}});
    }

    // Postal code prefix and county of a district, fixed by its index and the seed.
    std::pair<int, std::string> leaPlace(int lea) const
    {
        std::mt19937 random = streamFor(m_seed, kDistrictStream, lea);
        const int zip = 75001 + below(random, 4000);
        return {zip, pick(random, kCounties) + std::string(" County")};
    }

    void writeLea(int lea)
    {
        std::mt19937 random = streamFor(m_seed, kDistrictStream, 1'000'000 + lea);
        const auto [zip, county] = leaPlace(lea);
        const std::string name = leaName(lea);
        emit("localEducationAgencies",
             Json{{"localEducationAgencyId", Layout::leaId(lea)},
                  {"nameOfInstitution", name},
                  {"shortNameOfInstitution", initials(townOf(lea)) + "ISD"},
                  {"webSite", "https://www." + domainOf(lea)},
                  {"localEducationAgencyCategoryDescriptor", uri("LocalEducationAgencyCategoryDescriptor", "Independent")},
                  {"operationalStatusDescriptor", uri("OperationalStatusDescriptor", "Active")},
                  {"categories", Json::array({{{"educationOrganizationCategoryDescriptor",
                                                uri("EducationOrganizationCategoryDescriptor", "Local Education Agency")}}})},
                  {"stateEducationAgencyReference", {{"stateEducationAgencyId", kStateAgencyId}}},
                  {"addresses", Json::array({address("Physical", streetAddress(random), townOf(lea),
                                                     std::to_string(zip), county),
                                             address("Mailing", "P.O. Box " + std::to_string(100 + below(random, 9000)),
                                                     townOf(lea), std::to_string(zip), county)})}});
    }

    static Json gradeLevels(Level level, const char *key)
    {
        const GradeSpan span = spanOf(level);
        Json grades = Json::array();
        for (int grade = span.low; grade <= span.high; ++grade)
            grades.push_back({{key, gradeUri(grade)}});
        return grades;
    }

    void writeSchool(int school)
    {
        std::mt19937 random = streamFor(m_seed, kSchoolStream, school);
        const int lea = m_layout.leaOf(school);
        const auto [zip, county] = leaPlace(lea);
        const std::string name = schoolName(m_layout, school);
        const std::string postalCode = std::to_string(zip + below(random, 12));
        emit("schools",
             Json{{"schoolId", m_layout.schoolId(school)},
                  {"nameOfInstitution", name},
                  {"shortNameOfInstitution", initials(name)},
                  {"webSite", "https://www." + domainOf(lea) + "/" + lowerAscii(initials(name))
                                  + std::to_string(m_layout.schoolId(school) % 1000)},
                  {"schoolTypeDescriptor", uri("SchoolTypeDescriptor", "Regular")},
                  {"operationalStatusDescriptor", uri("OperationalStatusDescriptor", "Active")},
                  {"localEducationAgencyReference", {{"localEducationAgencyId", Layout::leaId(lea)}}},
                  {"educationOrganizationCategories",
                   Json::array({{{"educationOrganizationCategoryDescriptor",
                                  uri("EducationOrganizationCategoryDescriptor", "School")}}})},
                  {"gradeLevels", gradeLevels(m_layout.level(school), "gradeLevelDescriptor")},
                  {"addresses", Json::array({address("Physical", streetAddress(random), townOf(lea), postalCode, county),
                                             address("Mailing", "P.O. Box " + std::to_string(100 + below(random, 9000)),
                                                     townOf(lea), postalCode, county)})}});
    }

    void writeCalendars(int school)
    {
        const std::int64_t schoolId = m_layout.schoolId(school);
        for (const int year : {kPriorSchoolYear, kSchoolYear})
            emit("calendars", Json{{"calendarCode", calendarCode(schoolId, year)},
                                   {"schoolReference", {{"schoolId", schoolId}}},
                                   {"schoolYearTypeReference", {{"schoolYear", year}}},
                                   {"calendarTypeDescriptor", uri("CalendarTypeDescriptor", "School")},
                                   {"gradeLevels", gradeLevels(m_layout.level(school), "gradeLevelDescriptor")}});
    }

    static Json gradingPeriodReference(std::int64_t schoolId, const GradingPeriod &period)
    {
        return Json{{"gradingPeriodDescriptor", uri("GradingPeriodDescriptor", period.descriptor)},
                    {"gradingPeriodName", std::string("2024-2025 ") + period.descriptor},
                    {"schoolId", schoolId},
                    {"schoolYear", kSchoolYear}};
    }

    void writeGradingPeriods(int school)
    {
        const std::int64_t schoolId = m_layout.schoolId(school);
        int sequence = 0;
        for (const GradingPeriod &period : gradingPeriods())
            emit("gradingPeriods",
                 Json{{"gradingPeriodDescriptor", uri("GradingPeriodDescriptor", period.descriptor)},
                      {"gradingPeriodName", std::string("2024-2025 ") + period.descriptor},
                      {"schoolReference", {{"schoolId", schoolId}}},
                      {"schoolYearTypeReference", {{"schoolYear", kSchoolYear}}},
                      {"beginDate", dateText(period.begin)},
                      {"endDate", dateText(period.end)},
                      {"periodSequence", ++sequence},
                      {"totalInstructionalDays", period.instructionalDays}});
    }

    static Json sessionReference(std::int64_t schoolId, int term)
    {
        return Json{{"schoolId", schoolId}, {"schoolYear", kSchoolYear}, {"sessionName", terms()[term].sessionName}};
    }

    void writeSessions(int school)
    {
        const std::int64_t schoolId = m_layout.schoolId(school);
        for (int term = 0; term < 2; ++term) {
            Json periods = Json::array();
            for (const GradingPeriod &period : gradingPeriods())
                if (period.term == term)
                    periods.push_back({{"gradingPeriodReference", gradingPeriodReference(schoolId, period)}});
            emit("sessions", Json{{"sessionName", terms()[term].sessionName},
                                  {"schoolReference", {{"schoolId", schoolId}}},
                                  {"schoolYearTypeReference", {{"schoolYear", kSchoolYear}}},
                                  {"beginDate", dateText(terms()[term].begin)},
                                  {"endDate", dateText(terms()[term].end)},
                                  {"termDescriptor", uri("TermDescriptor", terms()[term].name)},
                                  {"totalInstructionalDays", terms()[term].instructionalDays},
                                  {"gradingPeriods", std::move(periods)}});
        }
    }

    void writeClassPeriods(int school)
    {
        const std::int64_t schoolId = m_layout.schoolId(school);
        for (int period = 0; period < kClassPeriods; ++period) {
            // 50-minute periods from 8:00 with 5-minute passing time, lunch after the fourth.
            const int start = 8 * 60 + period * 55 + (period >= 4 ? 30 : 0);
            char startTime[32];
            char endTime[32];
            std::snprintf(startTime, sizeof startTime, "%02d:%02d:00", start / 60, start % 60);
            std::snprintf(endTime, sizeof endTime, "%02d:%02d:00", (start + 50) / 60, (start + 50) % 60);
            emit("classPeriods", Json{{"classPeriodName", classPeriodName(period)},
                                      {"schoolReference", {{"schoolId", schoolId}}},
                                      {"meetingTimes", Json::array({{{"startTime", startTime}, {"endTime", endTime}}})},
                                      {"officialAttendancePeriod", period == 1}});
        }
    }

    void writeLocations(const SchoolPlan &plan)
    {
        for (int room = 0; room < plan.rooms(); ++room) {
            const bool special = room >= plan.teachers;
            const std::string code = !special ? roomCode(room) : room == plan.teachers ? "LIB" : "GYM";
            emit("locations", Json{{"classroomIdentificationCode", code},
                                   {"schoolReference", {{"schoolId", plan.schoolId}}},
                                   {"maximumNumberOfSeats", special ? 120 : 30},
                                   {"optimalNumberOfSeats", special ? 90 : 24}});
        }
    }

    void writeCourses(int school)
    {
        const std::int64_t schoolId = m_layout.schoolId(school);
        const Level level = m_layout.level(school);
        const GradeSpan span = spanOf(level);
        const std::string leaCode = std::to_string(Layout::leaId(m_layout.leaOf(school)));
        for (const Course &course : catalogOf(level)) {
            Json offered = Json::array();
            for (int grade = span.low; grade <= span.high; ++grade)
                if (course.grade < 0 || course.grade == grade)
                    offered.push_back({{"gradeLevelDescriptor", gradeUri(grade)}});
            Json body{{"courseCode", course.code},
                      {"educationOrganizationReference", {{"educationOrganizationId", schoolId}}},
                      {"courseTitle", course.title},
                      {"courseDescription", course.title + (course.grade < 0 ? " (elective)" : "")},
                      {"numberOfParts", level == Level::High ? 1 : 2},
                      {"dateCourseAdopted", "2019-07-01"},
                      {"identificationCodes",
                       Json::array({{{"identificationCode", course.code},
                                     {"courseIdentificationSystemDescriptor",
                                      uri("CourseIdentificationSystemDescriptor", "LEA course code")},
                                     {"assigningOrganizationIdentificationCode", leaCode}},
                                    {{"identificationCode", course.stateCode},
                                     {"courseIdentificationSystemDescriptor",
                                      uri("CourseIdentificationSystemDescriptor", "State course code")},
                                     {"assigningOrganizationIdentificationCode", std::to_string(kStateAgencyId)}}})},
                      {"academicSubjects", Json::array({{{"academicSubjectDescriptor",
                                                          uri("AcademicSubjectDescriptor", course.subject)}}})},
                      {"levelCharacteristics",
                       Json::array({{{"courseLevelCharacteristicDescriptor",
                                      uri("CourseLevelCharacteristicDescriptor", course.grade < 0 ? "Basic" : "Core Subject")}}})},
                      {"offeredGradeLevels", std::move(offered)}};
            if (level == Level::High)
                body["highSchoolCourseRequirement"] = course.grade >= 0;
            emit("courses", body);
        }
    }

    void writeCourseOfferings(const SchoolPlan &plan)
    {
        const std::vector<Course> &catalog = catalogOf(plan.level);
        const GradeSpan span = spanOf(plan.level);
        const int minutes = 50; // one class period a school day
        for (int term = 0; term < 2; ++term) {
            int lastCourse = -1;
            for (const PlannedSection &section : plan.sections[term]) {
                if (section.course == lastCourse)
                    continue;
                lastCourse = section.course;
                const Course &course = catalog[section.course];
                Json offered = Json::array();
                for (int grade = span.low; grade <= span.high; ++grade)
                    if (course.grade < 0 || course.grade == grade)
                        offered.push_back({{"gradeLevelDescriptor", gradeUri(grade)}});
                emit("courseOfferings",
                     Json{{"localCourseCode", course.code},
                          {"localCourseTitle", course.title},
                          {"instructionalTimePlanned", minutes * terms()[term].instructionalDays},
                          {"courseReference", {{"courseCode", course.code}, {"educationOrganizationId", plan.schoolId}}},
                          {"schoolReference", {{"schoolId", plan.schoolId}}},
                          {"sessionReference", sessionReference(plan.schoolId, term)},
                          {"offeredGradeLevels", std::move(offered)}});
            }
        }
    }

    static std::string sectionIdentifier(const Course &course, int term, int number)
    {
        char suffix[16];
        std::snprintf(suffix, sizeof suffix, "-%c%02d", term == 0 ? 'F' : 'S', number);
        return course.code + suffix;
    }

    static Json sectionReference(const SchoolPlan &plan, int term, const PlannedSection &section)
    {
        const Course &course = catalogOf(plan.level)[section.course];
        return Json{{"localCourseCode", course.code},
                    {"schoolId", plan.schoolId},
                    {"schoolYear", kSchoolYear},
                    {"sectionIdentifier", sectionIdentifier(course, term, section.number)},
                    {"sessionName", terms()[term].sessionName}};
    }

    void writeSections(const SchoolPlan &plan)
    {
        const std::vector<Course> &catalog = catalogOf(plan.level);
        for (int term = 0; term < 2; ++term) {
            for (const PlannedSection &section : plan.sections[term]) {
                const Course &course = catalog[section.course];
                const bool lab = plan.level == Level::High && course.grade >= 0 && course.subjectSlot == 2;
                Json body{{"sectionIdentifier", sectionIdentifier(course, term, section.number)},
                          {"sectionName", course.title + " - Period " + std::to_string(section.period + 1)},
                          {"courseOfferingReference",
                           {{"localCourseCode", course.code},
                            {"schoolId", plan.schoolId},
                            {"schoolYear", kSchoolYear},
                            {"sessionName", terms()[term].sessionName}}},
                          {"locationReference",
                           {{"classroomIdentificationCode", roomCode(section.teacher)}, {"schoolId", plan.schoolId}}},
                          {"locationSchoolReference", {{"schoolId", plan.schoolId}}},
                          {"classPeriods", Json::array({{{"classPeriodReference",
                                                          {{"classPeriodName", classPeriodName(section.period)},
                                                           {"schoolId", plan.schoolId}}}}})},
                          {"educationalEnvironmentDescriptor",
                           uri("EducationalEnvironmentDescriptor", lab ? "Laboratory" : "Classroom")},
                          {"sequenceOfCourse", plan.level == Level::High ? 1 : term + 1},
                          {"officialAttendancePeriod", section.period == 1}};
                if (plan.level == Level::High)
                    body["availableCredits"] = 1.0;
                emit("sections", body);
            }
        }
    }

    static std::string staffUniqueId(std::int64_t staff) { return std::to_string(kFirstStaffNumber + staff); }

    void writeStaff(const SchoolPlan &plan, std::int64_t firstStaff)
    {
        std::mt19937 random = streamFor(m_seed, kStaffStream, plan.index);
        const std::string domain = domainOf(m_layout.leaOf(plan.index));
        for (int i = 0; i < plan.staffCount(); ++i) {
            const bool teacher = i < plan.teachers;
            const bool female = chance(random, teacher ? 74 : 60);
            const std::string first = female ? pick(random, kFemaleNames) : pick(random, kMaleNames);
            const std::string last = pick(random, kLastNames);
            const std::string id = staffUniqueId(firstStaff + i);
            const std::string login = lowerAscii(first.substr(0, 1) + last) + id.substr(id.size() - 3);
            const int years = below(random, 30);
            const int birthYear = 2001 - years - below(random, 8);
            const int birthDay = daysFromCivil(birthYear, 1, 1) + below(random, 365);
            Json emails = Json::array({{{"electronicMailAddress", login + "@" + domain},
                                        {"electronicMailTypeDescriptor", uri("ElectronicMailTypeDescriptor", "Work")},
                                        {"primaryEmailAddressIndicator", true}}});
            if (chance(random, 20))
                emails.push_back({{"electronicMailAddress", lowerAscii(first + "." + last) + "@example.com"},
                                  {"electronicMailTypeDescriptor", uri("ElectronicMailTypeDescriptor", "Home/Personal")},
                                  {"primaryEmailAddressIndicator", false}});
            Json body{{"staffUniqueId", id},
                      {"firstName", first},
                      {"lastSurname", last},
                      {"personalTitlePrefix", female ? (chance(random, 50) ? "Ms." : "Mrs.") : "Mr."},
                      {"birthDate", dateText(birthDay)},
                      {"sexDescriptor", uri("SexDescriptor", female ? "Female" : "Male")},
                      {"hispanicLatinoEthnicity", chance(random, 30)},
                      {"yearsOfPriorProfessionalExperience", years},
                      {"yearsOfPriorTeachingExperience", teacher ? years : 0},
                      {"loginId", login},
                      {"electronicMails", std::move(emails)}};
            if (chance(random, 45))
                body["middleName"] = female ? pick(random, kFemaleNames) : pick(random, kMaleNames);
            if (teacher)
                body["highlyQualifiedTeacher"] = chance(random, 90);
            emit("staffs", body);
        }
    }

    static std::string studentUniqueId(std::int64_t number) { return std::to_string(kFirstStudentNumber + number); }

    void writeStudents(const SchoolPlan &plan)
    {
        std::mt19937 random = streamFor(m_seed, kStudentStream, plan.index);
        const std::string town = townOf(m_layout.leaOf(plan.index));
        for (const PlannedStudent &student : plan.students) {
            const bool female = chance(random, 49);
            // Old enough for the grade on September 1 (kindergarten: five), repeaters a year older.
            const int lastBirthday = daysFromCivil(2019 - student.grade - (student.repeating ? 1 : 0), 9, 1);
            Json body{{"studentUniqueId", studentUniqueId(student.number)},
                      {"firstName", female ? pick(random, kFemaleNames) : pick(random, kMaleNames)},
                      {"lastSurname", pick(random, kLastNames)},
                      {"birthDate", dateText(lastBirthday - below(random, 365))},
                      {"birthSexDescriptor", uri("SexDescriptor", female ? "Female" : "Male")},
                      {"multipleBirthStatus", chance(random, 3)}};
            const int place = below(random, 100);
            if (place < 55) {
                body["birthCity"] = town;
                body["birthStateAbbreviationDescriptor"] = uri("StateAbbreviationDescriptor", "TX");
            } else if (place < 85) {
                body["birthCity"] = pick(random, kTexasCities);
                body["birthStateAbbreviationDescriptor"] = uri("StateAbbreviationDescriptor", "TX");
            } else {
                const City &city = pick(random, kOtherCities);
                body["birthCity"] = city.name;
                body["birthStateAbbreviationDescriptor"] = uri("StateAbbreviationDescriptor", city.state);
            }
            if (chance(random, 60))
                body["middleName"] = female ? pick(random, kFemaleNames) : pick(random, kMaleNames);
            if (!female && chance(random, 3))
                body["generationCodeSuffix"] = chance(random, 70) ? "Jr." : "III";
            emit("students", body);
        }
    }

    Json schoolAssociation(const PlannedStudent &student, int school, int grade, int schoolYear, int entryDay,
                           const char *entryType) const
    {
        const std::int64_t schoolId = m_layout.schoolId(school);
        return Json{{"studentReference", {{"studentUniqueId", studentUniqueId(student.number)}}},
                    {"schoolReference", {{"schoolId", schoolId}}},
                    {"entryDate", dateText(entryDay)},
                    {"entryGradeLevelDescriptor", gradeUri(grade)},
                    {"entryTypeDescriptor", uri("EntryTypeDescriptor", entryType)},
                    {"schoolYearTypeReference", {{"schoolYear", schoolYear}}},
                    {"calendarReference",
                     {{"calendarCode", calendarCode(schoolId, schoolYear)}, {"schoolId", schoolId}, {"schoolYear", schoolYear}}},
                    {"classOfSchoolYearTypeReference",
                     {{"schoolYear", kSchoolYear + 12 - student.grade + (student.repeating ? 1 : 0)}}},
                    {"primarySchool", true},
                    {"repeatGradeIndicator", schoolYear == kSchoolYear && student.repeating},
                    {"fullTimeEquivalency", 1.0}};
    }

    void writeSchoolAssociations(const SchoolPlan &plan)
    {
        std::mt19937 random = streamFor(m_seed, kEnrollmentStream, plan.index);
        for (const PlannedStudent &student : plan.students) {
            // Last year's enrollment first: in this school, or in a feeder school of the district.
            if (student.priorSchool >= 0) {
                Json prior = schoolAssociation(student, student.priorSchool, student.priorGrade, kPriorSchoolYear,
                                               daysFromCivil(2023, 8, 21), "Next year school");
                prior["exitWithdrawDate"] = "2024-05-31";
                prior["exitWithdrawTypeDescriptor"] = uri("ExitWithdrawTypeDescriptor", "End of school year");
                emit("studentSchoolAssociations", prior);
            }
            const char *entryType = student.priorSchool >= 0 ? "Next year school"
                                    : student.grade == 0     ? "Original entry into a United States school"
                                    : chance(random, 75)     ? "Transfer from a public school in another LEA"
                                                             : "Transfer from a private school";
            emit("studentSchoolAssociations",
                 schoolAssociation(student, plan.index, student.grade, kSchoolYear, student.entryDay, entryType));
        }
    }

    void writeStaffSections(const SchoolPlan &plan, std::int64_t firstStaff)
    {
        for (int term = 0; term < 2; ++term) {
            const std::vector<PlannedSection> &sections = plan.sections[term];
            for (std::size_t k = 0; k < sections.size(); ++k) {
                const Json reference = sectionReference(plan, term, sections[k]);
                emit("staffSectionAssociations",
                     Json{{"sectionReference", reference},
                          {"staffReference", {{"staffUniqueId", staffUniqueId(firstStaff + sections[k].teacher)}}},
                          {"beginDate", dateText(terms()[term].begin)},
                          {"endDate", dateText(terms()[term].end)},
                          {"classroomPositionDescriptor", uri("ClassroomPositionDescriptor", "Teacher of Record")},
                          {"percentageContribution", 1.0}});
                // About one section in ten has an assistant from the support staff (the first of
                // whom is the principal, who assists nowhere).
                if (plan.supportStaff > 1 && k % 10 == 4) {
                    const int assistant = plan.teachers + 1 + static_cast<int>(k / 10) % (plan.supportStaff - 1);
                    emit("staffSectionAssociations",
                         Json{{"sectionReference", reference},
                              {"staffReference", {{"staffUniqueId", staffUniqueId(firstStaff + assistant)}}},
                              {"beginDate", dateText(terms()[term].begin)},
                              {"endDate", dateText(terms()[term].end)},
                              {"classroomPositionDescriptor", uri("ClassroomPositionDescriptor", "Assistant Teacher")},
                              {"percentageContribution", 0.0}});
                }
            }
        }
    }

    void writeStudentSections(const SchoolPlan &plan)
    {
        for (const PlannedStudent &student : plan.students) {
            const Json studentReference{{"studentUniqueId", studentUniqueId(student.number)}};
            for (int term = 0; term < 2; ++term) {
                for (int slot = 0; slot < student.courseCount[term]; ++slot) {
                    const PlannedSection &section = plan.sections[term][student.sections[term][slot]];
                    emit("studentSectionAssociations",
                         Json{{"studentReference", studentReference},
                              {"sectionReference", sectionReference(plan, term, section)},
                              {"beginDate", dateText(std::max(student.entryDay, terms()[term].begin))},
                              {"endDate", dateText(terms()[term].end)},
                              {"homeroomIndicator", plan.level == Level::Elementary && slot == 0}});
                }
            }
        }
    }

    std::uint32_t m_seed;
    Layout m_layout;
    const std::function<void(const std::string &, const Json &)> &m_emit;
    std::int64_t m_count = 0;
};

} // namespace

std::int64_t generateDistrict(const GeneratorOptions &options,
                              const std::function<void(const std::string &resource, const Json &body)> &emit)
{
    // Beyond ten million students the school ids would leave Ed-Fi's nine-digit form.
    if (options.students < 0 || options.students > kMaxStudents)
        throw std::invalid_argument("generateDistrict: students must be between 0 and "
                                    + std::to_string(kMaxStudents));
    DistrictWriter writer(options, emit);
    return writer.run();
}

} // namespace steward
