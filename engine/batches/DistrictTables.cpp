// The district's calendar, descriptor values and course catalogs (DistrictTables.h).
#include "DistrictTables.h"

#include <cstdio>

namespace steward::district {

namespace {

const char *const kGradeNames[] = {"Kindergarten", "First grade",   "Second grade",   "Third grade",  "Fourth grade",
                                   "Fifth grade",  "Sixth grade",   "Seventh grade",  "Eighth grade", "Ninth grade",
                                   "Tenth grade",  "Eleventh grade", "Twelfth grade"};

} // namespace

// ---------------------------------------------------------------------------------------------
// Dates as day numbers (days since 1970-01-01), so entry dates can be moved around school days.

int daysFromCivil(int y, int m, int d)
{
    y -= m <= 2 ? 1 : 0;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

std::string dateText(int days)
{
    days += 719468;
    const int era = (days >= 0 ? days : days - 146096) / 146097;
    const int doe = days - era * 146097;
    const int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int mp = (5 * doy + 2) / 153;
    const int d = doy - (153 * mp + 2) / 5 + 1;
    const int m = mp + (mp < 10 ? 3 : -9);
    const int y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    char text[32];
    std::snprintf(text, sizeof text, "%04d-%02d-%02d", y, m, d);
    return text;
}

int weekday(int days)
{
    return ((days % 7) + 7 + 3) % 7;
}

const std::array<Term, 2> &terms()
{
    static const std::array<Term, 2> kTerms = {
        Term{"Fall Semester", "2024-2025 Fall Semester", daysFromCivil(2024, 8, 19), daysFromCivil(2024, 12, 20), 82},
        Term{"Spring Semester", "2024-2025 Spring Semester", daysFromCivil(2025, 1, 7), daysFromCivil(2025, 5, 29), 93},
    };
    return kTerms;
}

const std::array<GradingPeriod, 6> &gradingPeriods()
{
    static const std::array<GradingPeriod, 6> kPeriods = {
        GradingPeriod{"First Six Weeks", 0, daysFromCivil(2024, 8, 19), daysFromCivil(2024, 9, 27), 29},
        GradingPeriod{"Second Six Weeks", 0, daysFromCivil(2024, 9, 30), daysFromCivil(2024, 11, 8), 29},
        GradingPeriod{"Third Six Weeks", 0, daysFromCivil(2024, 11, 11), daysFromCivil(2024, 12, 20), 24},
        GradingPeriod{"Fourth Six Weeks", 1, daysFromCivil(2025, 1, 7), daysFromCivil(2025, 2, 14), 29},
        GradingPeriod{"Fifth Six Weeks", 1, daysFromCivil(2025, 2, 18), daysFromCivil(2025, 4, 4), 29},
        GradingPeriod{"Sixth Six Weeks", 1, daysFromCivil(2025, 4, 7), daysFromCivil(2025, 5, 29), 35},
    };
    return kPeriods;
}

// ---------------------------------------------------------------------------------------------
// Descriptors: every value a generated document uses, plus the usual neighbours of each set.

const std::vector<DescriptorSet> &descriptorSets()
{
    static const std::vector<DescriptorSet> kSets = {
        {"AcademicSubjectDescriptor",
         {"English Language Arts", "Mathematics", "Science", "Social Studies", "Fine and Performing Arts",
          "Foreign Language and Literature", "Physical, Health, and Safety Education", "Computer and Information Sciences",
          "Career and Technical Education"}},
        {"AddressTypeDescriptor", {"Physical", "Mailing", "Shipping", "Other"}},
        {"CalendarTypeDescriptor", {"School", "Student Specific", "IEP"}},
        {"ClassroomPositionDescriptor", {"Teacher of Record", "Assistant Teacher", "Support Teacher", "Substitute Teacher"}},
        {"CourseIdentificationSystemDescriptor", {"LEA course code", "State course code", "School course code"}},
        {"CourseLevelCharacteristicDescriptor", {"Core Subject", "Basic", "Honors", "Advanced Placement", "Dual Credit"}},
        {"EducationalEnvironmentDescriptor", {"Classroom", "Laboratory", "Pull-out class", "Resource room"}},
        {"EducationOrganizationCategoryDescriptor", {"State Education Agency", "Local Education Agency", "School"}},
        {"ElectronicMailTypeDescriptor", {"Work", "Home/Personal", "Organization", "Other"}},
        {"EntryTypeDescriptor",
         {"Next year school", "Original entry into a United States school", "Transfer from a public school in another LEA",
          "Transfer from a private school", "Re-entry after a voluntary withdrawal"}},
        {"ExitWithdrawTypeDescriptor", {"End of school year", "Graduated", "Transferred", "Withdrawn", "Dropped out"}},
        {"GradeLevelDescriptor",
         {"Kindergarten", "First grade", "Second grade", "Third grade", "Fourth grade", "Fifth grade", "Sixth grade",
          "Seventh grade", "Eighth grade", "Ninth grade", "Tenth grade", "Eleventh grade", "Twelfth grade",
          "Preschool/Prekindergarten"}},
        {"GradingPeriodDescriptor",
         {"First Six Weeks", "Second Six Weeks", "Third Six Weeks", "Fourth Six Weeks", "Fifth Six Weeks",
          "Sixth Six Weeks"}},
        {"LocalEducationAgencyCategoryDescriptor", {"Independent", "Charter"}},
        {"OperationalStatusDescriptor", {"Active", "Added", "Closed", "Inactive", "New"}},
        {"SchoolTypeDescriptor", {"Regular", "Alternative", "Career and Technical Education", "Special Education"}},
        {"SexDescriptor", {"Female", "Male", "Not Selected"}},
        {"StateAbbreviationDescriptor", {"AR", "AZ", "CA", "FL", "IL", "LA", "NM", "NY", "OK", "TX"}},
        {"TermDescriptor", {"Fall Semester", "Spring Semester", "Summer Semester", "Year Round"}},
    };
    return kSets;
}

std::string uri(const char *type, const std::string &code)
{
    return std::string("uri://ed-fi.org/") + type + "#" + code;
}

std::string gradeUri(int grade)
{
    return uri("GradeLevelDescriptor", kGradeNames[grade]);
}

// ---------------------------------------------------------------------------------------------
// Course catalogs by school level.

GradeSpan spanOf(Level level)
{
    switch (level) {
    case Level::High:
        return {9, 12};
    case Level::Middle:
        return {6, 8};
    case Level::Elementary:
        break;
    }
    return {0, 5};
}

const char *levelName(Level level)
{
    switch (level) {
    case Level::High:
        return "High School";
    case Level::Middle:
        return "Middle School";
    case Level::Elementary:
        break;
    }
    return "Elementary School";
}

const char *const kSubjects[4] = {"English Language Arts", "Mathematics", "Science", "Social Studies"};

std::vector<Course> highSchoolCatalog()
{
    struct Row
    {
        const char *code;
        const char *title;
        const char *stateCode;
    };
    // Four years of each core subject (the row is the grade), then electives; Texas-style codes.
    const Row core[4][4] = {
        {{"ENG-1", "English I", "03220100"},
         {"ALG-1", "Algebra I", "03100500"},
         {"BIO-1", "Biology", "03010200"},
         {"WGEO", "World Geography Studies", "03320100"}},
        {{"ENG-2", "English II", "03220200"},
         {"GEOM", "Geometry", "03100700"},
         {"CHEM-1", "Chemistry", "03040000"},
         {"WHIST", "World History Studies", "03340400"}},
        {{"ENG-3", "English III", "03220300"},
         {"ALG-2", "Algebra II", "03100600"},
         {"PHYS-1", "Physics", "03050000"},
         {"USHIST", "United States History Studies Since 1877", "03340100"}},
        {{"ENG-4", "English IV", "03220400"},
         {"PRECALC", "Precalculus", "03101100"},
         {"ENVSYS", "Environmental Systems", "03020000"},
         {"GOVT", "United States Government", "03330100"}},
    };
    std::vector<Course> catalog;
    for (int year = 0; year < 4; ++year)
        for (int subject = 0; subject < 4; ++subject)
            catalog.push_back({core[year][subject].code, core[year][subject].title, kSubjects[subject],
                               core[year][subject].stateCode, 9 + year, subject});
    const Row electives[] = {
        {"SPAN-1", "Spanish I", "03440100"},          {"SPAN-2", "Spanish II", "03440200"},
        {"ART-1", "Art I", "03500100"},               {"THEA-1", "Theatre I", "03250100"},
        {"BAND-1", "Band I", "03150100"},             {"CS-1", "Computer Science I", "03580200"},
        {"HLTH-1", "Health I", "03810100"},           {"PE-1", "Physical Education I", "PES00052"},
        {"PFIN", "Personal Financial Literacy", "03380082"}, {"PSYCH", "Psychology", "03350100"},
    };
    const char *const electiveSubjects[] = {
        "Foreign Language and Literature",         "Foreign Language and Literature",
        "Fine and Performing Arts",                "Fine and Performing Arts",
        "Fine and Performing Arts",                "Computer and Information Sciences",
        "Physical, Health, and Safety Education",  "Physical, Health, and Safety Education",
        "Career and Technical Education",          "Social Studies"};
    static_assert(std::size(electives) == kHighSchoolElectives);
    for (std::size_t i = 0; i < std::size(electives); ++i)
        catalog.push_back({electives[i].code, electives[i].title, electiveSubjects[i], electives[i].stateCode, -1, 0});
    return catalog;
}

std::vector<Course> gradeBandCatalog(Level level)
{
    const GradeSpan span = spanOf(level);
    const char *const codes[] = {"ELA", "MATH", "SCI", "SS"};
    const char *const titles[] = {"English Language Arts and Reading", "Mathematics", "Science", "Social Studies"};
    const char *const middleSocial[] = {"Contemporary World Cultures", "Texas History", "United States History to 1877"};
    std::vector<Course> catalog;
    for (int grade = span.low; grade <= span.high; ++grade) {
        const std::string gradeTag = grade == 0 ? "K" : (grade < 10 ? "0" : "") + std::to_string(grade);
        const std::string gradeTitle = grade == 0 ? "Kindergarten" : "Grade " + std::to_string(grade);
        for (int subject = 0; subject < 4; ++subject) {
            std::string title = level == Level::Middle && subject == 3 ? middleSocial[grade - 6]
                                                                       : gradeTitle + " " + titles[subject];
            if (level == Level::Middle && subject != 3)
                title = std::string(titles[subject]) + ", Grade " + std::to_string(grade);
            char stateCode[48];
            std::snprintf(stateCode, sizeof stateCode, "%02d%d%02d000", level == Level::Middle ? 3 : 2, subject + 1,
                          grade);
            catalog.push_back({std::string(codes[subject]) + "-" + gradeTag, title, kSubjects[subject], stateCode, grade,
                               subject});
        }
    }
    return catalog;
}

const std::vector<Course> &catalogOf(Level level)
{
    static const std::vector<Course> kHigh = highSchoolCatalog();
    static const std::vector<Course> kMiddle = gradeBandCatalog(Level::Middle);
    static const std::vector<Course> kElementary = gradeBandCatalog(Level::Elementary);
    switch (level) {
    case Level::High:
        return kHigh;
    case Level::Middle:
        return kMiddle;
    case Level::Elementary:
        break;
    }
    return kElementary;
}

int coreCourse(Level level, int grade, int subject)
{
    const GradeSpan span = spanOf(level);
    return (grade - span.low) * 4 + subject;
}


} // namespace steward::district
