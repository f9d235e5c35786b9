#pragma once

#include <array>
#include <string>
#include <vector>

// The facts a generated district is drawn from (DistrictTables.cpp): the school calendar, the
// descriptor values its documents use, and the course catalogs by school level. The generator
// (Generator.cpp) lays the district out and writes it from these.
namespace steward::district {

// Dates as day numbers (days since 1970-01-01), so entry dates can be moved around school days.
int daysFromCivil(int y, int m, int d);
std::string dateText(int days);
int weekday(int days); // 0 = Monday

struct Term
{
    const char *name; // TermDescriptor code value
    const char *sessionName;
    int begin;
    int end;
    int instructionalDays;
};
const std::array<Term, 2> &terms();

struct GradingPeriod
{
    const char *descriptor;
    int term;
    int begin;
    int end;
    int instructionalDays;
};
const std::array<GradingPeriod, 6> &gradingPeriods();

// Every descriptor value a generated document uses, plus the usual neighbours of each set.
struct DescriptorSet
{
    const char *type;
    std::vector<const char *> codes;
};
const std::vector<DescriptorSet> &descriptorSets();
std::string uri(const char *type, const std::string &code);
std::string gradeUri(int grade);

enum class Level { High, Middle, Elementary };

constexpr int kHighSchoolCore = 16; // four years of four core subjects, first in the catalog
constexpr int kHighSchoolElectives = 10;

struct GradeSpan
{
    int low;
    int high;
    int count() const { return high - low + 1; }
    bool contains(int grade) const { return grade >= low && grade <= high; }
};
GradeSpan spanOf(Level level);
const char *levelName(Level level);

struct Course
{
    std::string code;
    std::string title;
    const char *subject;
    std::string stateCode;
    int grade = -1;      // -1: an elective open to every grade of the school
    int subjectSlot = 0; // 0 ELA, 1 math, 2 science, 3 social studies (core courses)
};
extern const char *const kSubjects[4];
const std::vector<Course> &catalogOf(Level level);
// The index in catalogOf(level) of a grade's core course in a subject (0 ELA .. 3 social studies).
int coreCourse(Level level, int grade, int subject);

// Built-in name lists (no data files, no network).

inline constexpr const char *kFemaleNames[] = {
    "Sofia", "Isabella", "Emma", "Olivia", "Mia", "Camila", "Ava", "Valentina", "Emily", "Abigail", "Maria", "Ximena",
    "Harper", "Evelyn", "Victoria", "Natalie", "Grace", "Aaliyah", "Zoe", "Hannah", "Leah", "Chloe", "Lily", "Madison",
    "Daniela", "Gabriela", "Priya", "Mei", "Aisha", "Fatima", "Hana", "Nora", "Ella", "Layla", "Lucia", "Paisley",
    "Brooklyn", "Savannah", "Riley", "Ana"};
inline constexpr const char *kMaleNames[] = {
    "Liam", "Noah", "Mateo", "Santiago", "Elijah", "James", "Sebastian", "Benjamin", "Lucas", "Diego", "Daniel",
    "Alexander", "Jose", "Luis", "Carlos", "Ethan", "Michael", "Jacob", "Aiden", "Gabriel", "Isaac", "David", "Joshua",
    "Caleb", "Marcus", "Jamal", "Omar", "Ravi", "Minh", "Tomas", "Adrian", "Angel", "Julian", "Owen", "Wyatt", "Jayden",
    "Elias", "Andres", "Ben", "Samuel"};
inline constexpr const char *kLastNames[] = {
    "Garcia", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Rodriguez", "Perez", "Sanchez", "Ramirez", "Flores",
    "Rivera", "Gomez", "Diaz", "Torres", "Morales", "Reyes", "Cruz", "Ortiz", "Gutierrez", "Chavez", "Ramos", "Castillo",
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Wilson", "Anderson", "Taylor", "Thomas",
    "Moore", "Jackson", "Martin", "Lee", "Thompson", "White", "Harris", "Clark", "Lewis", "Robinson", "Walker", "Young",
    "Allen", "King", "Wright", "Scott", "Hill", "Green", "Adams", "Baker", "Nelson", "Carter", "Mitchell", "Roberts",
    "Turner", "Phillips", "Campbell", "Parker", "Evans", "Edwards", "Collins", "Stewart", "Morris", "Murphy", "Cook",
    "Rogers", "Nguyen", "Tran", "Pham", "Kim", "Park", "Patel", "Shah", "Khan", "Ali", "Okafor", "Adeyemi", "Woods",
    "Ward", "Brooks", "Price", "Bennett", "Wood", "Barnes", "Ross", "Henderson", "Coleman", "Jenkins", "Perry", "Powell",
    "Long", "Patterson", "Hughes", "Washington", "Butler", "Simmons", "Foster"};
inline constexpr const char *kTowns[] = {
    "Grand Bend", "Cedar Creek", "Red Oak", "Pecan Valley", "Lone Pine", "Willow Springs", "Bluebonnet", "Mesquite Flats",
    "Prairie View", "Stone Ridge", "Sandy Point", "Eagle Lake", "Copper Canyon", "Rio Verde", "Live Oak", "Hidden Falls",
    "Cypress Bend", "Caddo Lake", "Three Rivers", "Comal Springs", "Llano Vista", "Brazos Point", "San Gabriel",
    "Pleasant Grove", "Lost Pines", "Shady Shores", "Big Spring", "Oak Hollow", "Painted Rock", "Salado Creek"};
inline constexpr const char *kCounties[] = {"Williston", "Bexar", "Travis", "Hays", "Comal", "Guadalupe", "Bastrop", "Caldwell",
                                 "Burnet", "Llano", "Williamson", "Bell", "Brazos", "Gillespie", "Kendall", "Medina"};
inline constexpr const char *kSchoolNames[] = {
    "Lincoln", "Washington", "Jefferson", "Roosevelt", "Sam Houston", "Stephen F. Austin", "Lorenzo de Zavala",
    "Barbara Jordan", "Lyndon B. Johnson", "Mirabeau Lamar", "James Bowie", "Davy Crockett", "William B. Travis",
    "Juan Seguin", "Cesar Chavez", "Oak Ridge", "Cedar Park", "Riverside", "Meadowbrook", "Lakeview", "Pine Hollow",
    "Westwood", "Hillcrest", "Sunset Valley", "Bluebonnet", "Mesquite Springs", "Live Oak", "Pecan Grove", "Willow Creek",
    "Eagle Ridge", "Canyon Vista", "Prairie Hills", "Stonegate", "Brookhaven", "Shadow Creek", "Harmony", "Liberty",
    "Heritage", "Legacy", "Frontier"};
inline constexpr const char *kDirections[] = {"", "North ", "South ", "East ", "West "};
inline constexpr const char *kStreets[] = {"Main", "Oak", "Pecan", "Elm", "Mesquite", "Cedar", "Bluebonnet", "Lamar", "Travis",
                                "Bowie", "Crockett", "Guadalupe", "Live Oak", "Hackberry", "Sycamore", "Magnolia",
                                "Ranch Road 12", "Frio", "Nueces", "Colorado"};
inline constexpr const char *kStreetTypes[] = {"St", "Ave", "Blvd", "Dr", "Ln", "Rd", "Pkwy", "Trl"};
inline constexpr const char *kTexasCities[] = {"San Antonio", "Houston", "Dallas", "Austin", "El Paso", "Laredo", "Corpus Christi",
                                    "Fort Worth", "Lubbock", "McAllen", "Brownsville", "Waco", "Killeen", "Abilene"};
struct City
{
    const char *name;
    const char *state;
};
inline constexpr City kOtherCities[] = {{"Tulsa", "OK"},   {"Baton Rouge", "LA"}, {"Albuquerque", "NM"}, {"Phoenix", "AZ"},
                             {"Los Angeles", "CA"}, {"Chicago", "IL"}, {"Miami", "FL"},       {"Little Rock", "AR"},
                             {"New York", "NY"}, {"Oklahoma City", "OK"}};

} // namespace steward::district
