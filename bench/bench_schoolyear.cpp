// A school year of one steward's database, simulated and measured (not a test; a long run by choice).
// The district's student information system is the ODS/API stand-in (tests/OdsApiStandIn) holding a
// generated district; the steward's database pulls it on day 0, then every school day the SIS changes
// about 1.5% of its documents (names, grade levels, exits and new enrollments, schedule changes, staff
// and section details), the steward pulls, edits a few documents (PUTs through the engine) and runs the
// starter rule pack (incremental, as `steward-cli rules run`). Every 5th school day: a bulk fix of one
// field of 30% of the students (preview and apply, as `steward-cli fix set`), an export of a validated
// batch (everything) and a push. Every 20th: the state's results for the enrollments, read and matched.
// At days 1, 30, 90 and the last it prints the file's size (database + WAL after a checkpoint), the
// change log's and the edit journal's bytes (SQLite's dbstat) and each operation's time; then the two
// goals: the file at most 2x its size on day 1, and every operation at most 1.25x its time at the start.
// Usage: bench_schoolyear [--students N] [--days N] [--seed N] [--keep FOLDER]   (defaults 10000, 180, 2026;
//   --keep leaves the database in FOLDER for a look afterwards)
//   The short run: --students 500 --days 20 (about a minute).
#include "BenchSupport.h"
#include "BulkEdit.h"
#include "Clock.h"
#include "Database.h"
#include "Engine.h"
#include "Exporter.h"
#include "ExternalResults.h"
#include "Generator.h"
#include "OdsApiStandIn.h"
#include "RemoteApi.h"
#include "Rules.h"
#include "SyncJobs.h"
#include "Tidy.h"

#include <QCoreApplication>
#include <QDate>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTimeZone>

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace steward;
using steward::test::OdsApiStandIn;

namespace {

constexpr double kDailyChangeShare = 0.015;
constexpr double kBulkFixShare = 0.30; // of the students, each week
// Students who leave a school during the year: a state's mobility rate is about 16% (Texas publishes
// 16-17%), spread over 180 school days; about 70% of them enroll again in another school of the district.
constexpr double kYearlyMobility = 0.16;
constexpr int kReenrolledPercent = 70;
constexpr int kWeek = 5;
constexpr int kMonth = 20;
constexpr int kEditsPerDay = 6;
constexpr const char *kClient = "district";

enum Operation { Pull, Edits, RulesRun, BulkFix, Export, Push, Results, kOperations };
constexpr std::array<const char *, kOperations> kOperationNames = {"pull", "edits", "rules run", "bulk fix",
                                                                   "export", "push", "results"};
// How often each runs, in school days.
constexpr std::array<int, kOperations> kEvery = {1, 1, 1, kWeek, kWeek, kWeek, kMonth};

struct Options
{
    std::int64_t students = 10000;
    int days = 180;
    std::uint32_t seed = 2026;
    std::string keep; // a folder to leave the steward's database in, for a look afterwards
};

// The calendar: weekdays from 2024-08-19 (the generated district's first day), without the winter break.
QDate schoolDate(int day)
{
    QDate date(2024, 8, 16);
    for (int counted = 0; counted < day;) {
        date = date.addDays(1);
        const bool weekend = date.dayOfWeek() >= 6;
        const bool winterBreak = date > QDate(2024, 12, 20) && date < QDate(2025, 1, 7);
        counted += weekend || winterBreak ? 0 : 1;
    }
    return date;
}

// The engine's clock on the calendar's day (its time of day the system's), so that what counts days
// (the undo retention) sees the year pass, and every time recorded is the day's.
void followCalendar(int day)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    setEngineClockShift(std::chrono::seconds(now.secsTo(QDateTime(schoolDate(day), now.time(), QTimeZone::utc()))));
}

std::string isoDate(const QDate &date)
{
    return date.toString(Qt::ISODate).toStdString();
}

std::string gradeUri(const std::string &grade)
{
    return "uri://ed-fi.org/GradeLevelDescriptor#" + grade;
}

// What the SIS changed on one day.
struct SisDay
{
    int updated = 0;
    int created = 0;
    int deleted = 0;
};

// The district's student information system: the ODS/API stand-in holding the district, and what a
// school day changes there. Only fields a real SIS writes; the steward's own fields (a student's
// preferredLastSurname and birthCity, an enrollment's fullTimeEquivalency, a section enrollment's
// teacherStudentDataLinkExclusion) are left to the steward, so the two sides merge rather than conflict.
// A student leaving a school leaves it as an SIS does: the enrollment gets its exit date and the
// student's schedule there ends that day (section enrollments that had not begun are removed). An
// earlier version picked 8% of the day's changes as exits (129 a day at 10,000 students, each student
// leaving twice a year) and left schedules running, so a state rule's warnings grew with every exit.
class Sis
{
public:
    Sis(const Model &model, std::uint32_t seed) : m_api(model), m_random(seed) {}

    OdsApiStandIn &api() { return m_api; }
    std::int64_t load(std::int64_t students, std::uint32_t seed);
    // count changes, of which the day's share of the year's mobility are students leaving a school.
    SisDay change(const QDate &date, std::int64_t count, std::int64_t students);

private:
    using Ids = std::vector<std::string>;
    std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(m_random); }
    bool chance(int percent) { return static_cast<int>(below(100)) < percent; }
    Json bodyOf(const std::string &id) const { return m_api.records().at(id).body; }
    std::string pickId(const std::string &endpoint);
    void store(const std::string &endpoint, const Json &body, SisDay &day);
    void changeStudent(SisDay &day);
    void changeEnrollment(SisDay &day);
    bool exitEnrollment(const std::string &date, SisDay &day);
    void endSchedule(const Json &enrollment, const std::string &date, SisDay &day);
    void enrollAgain(const std::string &date, SisDay &day);
    void changeSectionEnrollment(const std::string &date, SisDay &day);
    void changeStaff(SisDay &day);
    void changeSection(SisDay &day);

    OdsApiStandIn m_api;
    std::mt19937 m_random;
    std::map<std::string, Ids> m_ids;            // endpoint -> the ids of its records
    std::map<std::string, std::vector<Json>> m_schoolOfGrade; // grade URI -> a current enrollment per school
    std::vector<Json> m_exited;                  // enrollments ended this year, for a new one elsewhere
    std::map<std::string, Ids> m_sectionsOfStudent; // studentUniqueId -> ids of section enrollments (some gone)
    double m_exitsOwed = 0;                      // the mobility's fraction of a student carried to the next day
    int m_newNames = 0;
};

std::int64_t Sis::load(std::int64_t students, std::uint32_t seed)
{
    GeneratorOptions options;
    options.students = students;
    options.seed = seed;
    std::map<std::string, std::set<std::int64_t>> schoolsOfGrade;
    return generateDistrict(options, [&](const std::string &resource, const Json &body) {
        const std::string endpoint = resource.substr(resource.find('/') + 1);
        m_ids[endpoint].push_back(m_api.upsert(endpoint, body));
        if (endpoint == "studentSectionAssociations")
            m_sectionsOfStudent[body["studentReference"]["studentUniqueId"].get<std::string>()].push_back(m_ids[endpoint].back());
        if (endpoint != "studentSchoolAssociations" || body.contains("exitWithdrawDate"))
            return;
        const std::string grade = body.value("entryGradeLevelDescriptor", "");
        if (schoolsOfGrade[grade].insert(body["schoolReference"]["schoolId"].get<std::int64_t>()).second)
            m_schoolOfGrade[grade].push_back(body);
    });
}

std::string Sis::pickId(const std::string &endpoint)
{
    const Ids &ids = m_ids[endpoint];
    return ids.empty() ? std::string() : ids[below(ids.size())];
}

void Sis::store(const std::string &endpoint, const Json &body, SisDay &day)
{
    const std::size_t before = m_api.records().size();
    const std::string id = m_api.upsert(endpoint, body);
    if (m_api.records().size() > before) {
        m_ids[endpoint].push_back(id);
        if (endpoint == "studentSectionAssociations")
            m_sectionsOfStudent[body["studentReference"]["studentUniqueId"].get<std::string>()].push_back(id);
        ++day.created;
    } else {
        ++day.updated;
    }
}

SisDay Sis::change(const QDate &date, std::int64_t count, std::int64_t students)
{
    const std::string today = isoDate(date);
    SisDay day;
    m_exitsOwed += static_cast<double>(students) * kYearlyMobility / 180;
    std::int64_t i = 0;
    for (; m_exitsOwed >= 1 && i < count; m_exitsOwed -= 1, ++i) {
        if (exitEnrollment(today, day) && chance(kReenrolledPercent) && !m_exited.empty())
            ++i, enrollAgain(today, day);
    }
    for (; i < count; ++i) {
        const int kind = static_cast<int>(below(100));
        if (kind < 25)
            changeStudent(day);
        else if (kind < 45)
            changeEnrollment(day);
        else if (kind < 85)
            changeSectionEnrollment(today, day);
        else if (kind < 95)
            changeStaff(day);
        else
            changeSection(day);
    }
    return day;
}

void Sis::changeStudent(SisDay &day)
{
    static const std::array<const char *, 8> kNames = {"Alex", "Jordan", "Sam", "Taylor", "Riley", "Casey", "Morgan", "Avery"};
    Json body = bodyOf(pickId("students"));
    const int what = static_cast<int>(below(3));
    if (what == 0) // a middle name corrected
        body["middleName"] = kNames[below(kNames.size())];
    else if (what == 1) // the name the student goes by
        body["preferredFirstName"] = kNames[below(kNames.size())];
    else // a family name changed
        body["lastSurname"] = body["lastSurname"].get<std::string>().substr(0, 12) + "-" + kNames[++m_newNames % kNames.size()];
    store("students", body, day);
}

void Sis::changeEnrollment(SisDay &day)
{
    // A grade level corrected by one, up or down.
    const std::string id = pickId("studentSchoolAssociations");
    Json body = bodyOf(id);
    static const std::array<const char *, 13> kGrades = {"Kindergarten", "First grade", "Second grade",
        "Third grade", "Fourth grade", "Fifth grade", "Sixth grade", "Seventh grade", "Eighth grade", "Ninth grade",
        "Tenth grade", "Eleventh grade", "Twelfth grade"};
    const std::string grade = body.value("entryGradeLevelDescriptor", "");
    std::size_t at = 0;
    while (at < kGrades.size() && gradeUri(kGrades[at]) != grade)
        ++at;
    const std::size_t next = at == 0 ? 1 : at >= kGrades.size() - 1 ? at - 1 : chance(50) ? at + 1 : at - 1;
    body["entryGradeLevelDescriptor"] = gradeUri(kGrades[next]);
    store("studentSchoolAssociations", body, day);
}

// A current enrollment that began before today ends today; false when a few picks found none.
bool Sis::exitEnrollment(const std::string &date, SisDay &day)
{
    for (int attempt = 0; attempt < 8; ++attempt) {
        Json body = bodyOf(pickId("studentSchoolAssociations"));
        if (body.contains("exitWithdrawDate") || body.value("entryDate", "") >= date)
            continue;
        body["exitWithdrawDate"] = date;
        body["exitWithdrawTypeDescriptor"] =
            std::string("uri://ed-fi.org/ExitWithdrawTypeDescriptor#") + (chance(75) ? "Transferred" : "Withdrawn");
        store("studentSchoolAssociations", body, day);
        endSchedule(body, date, day);
        m_exited.push_back(std::move(body));
        return true;
    }
    return false;
}

// The leaving student's section enrollments at the school end on the exit date; those that had not
// begun by then are removed.
void Sis::endSchedule(const Json &enrollment, const std::string &date, SisDay &day)
{
    const std::string student = enrollment["studentReference"]["studentUniqueId"].get<std::string>();
    const Json school = enrollment["schoolReference"]["schoolId"];
    Ids &sections = m_sectionsOfStudent[student];
    Ids still;
    for (const std::string &id : sections) {
        const auto found = m_api.records().find(id);
        if (found == m_api.records().end())
            continue;
        Json body = found->second.body;
        if (body["sectionReference"]["schoolId"] != school) {
            still.push_back(id);
            continue;
        }
        if (body.value("beginDate", "") >= date) {
            m_api.remove(id); // its id stays in m_ids until a pick finds it gone
            ++day.deleted;
        } else if (body.value("endDate", "9999") > date) {
            body["endDate"] = date;
            store("studentSectionAssociations", body, day);
            still.push_back(id);
        } else {
            still.push_back(id);
        }
    }
    sections = std::move(still);
}

// A student who left enrolls in another school of the district with the same grade: a new document.
void Sis::enrollAgain(const std::string &date, SisDay &day)
{
    const std::size_t pick = below(m_exited.size());
    Json body = m_exited[pick];
    m_exited[pick] = std::move(m_exited.back());
    m_exited.pop_back();
    const std::vector<Json> &schools = m_schoolOfGrade[body.value("entryGradeLevelDescriptor", "")];
    if (schools.empty())
        return;
    const Json &school = schools[below(schools.size())];
    body["schoolReference"] = school["schoolReference"];
    body["calendarReference"] = school["calendarReference"];
    body["entryDate"] = date;
    body["entryTypeDescriptor"] = "uri://ed-fi.org/EntryTypeDescriptor#Re-entry after a voluntary withdrawal";
    body.erase("exitWithdrawDate");
    body.erase("exitWithdrawTypeDescriptor");
    store("studentSchoolAssociations", body, day);
}

void Sis::changeSectionEnrollment(const std::string &date, SisDay &day)
{
    Ids &ids = m_ids["studentSectionAssociations"];
    std::size_t at = below(ids.size());
    while (m_api.records().count(ids[at]) == 0) { // removed when its student left the school
        ids[at] = std::move(ids.back());
        ids.pop_back();
        at = below(ids.size());
    }
    Json body = bodyOf(ids[at]);
    const int what = static_cast<int>(below(100));
    if (what < 5) { // entered in error
        m_api.remove(ids[at]);
        ids[at] = std::move(ids.back());
        ids.pop_back();
        ++day.deleted;
        return;
    }
    const bool current = body.value("beginDate", "") < date && body.value("endDate", "9999") > date;
    if (what < 15 && current) { // dropped and enrolled again today: a new document
        body["beginDate"] = date;
    } else if (what < 85 && current) { // dropped
        body["endDate"] = date;
    } else {
        body["homeroomIndicator"] = !body.value("homeroomIndicator", false);
    }
    store("studentSectionAssociations", body, day);
}

void Sis::changeStaff(SisDay &day)
{
    Json body = bodyOf(pickId("staffs"));
    const int what = static_cast<int>(below(3));
    if (what == 0)
        body["yearsOfPriorTeachingExperience"] = body.value("yearsOfPriorTeachingExperience", 0) + 1;
    else if (what == 1)
        body["highlyQualifiedTeacher"] = !body.value("highlyQualifiedTeacher", false);
    else
        body["loginId"] = body.value("loginId", std::string("staff")) + std::to_string(below(10));
    store("staffs", body, day);
}

void Sis::changeSection(SisDay &day)
{
    Json body = bodyOf(pickId("sections"));
    if (chance(50))
        body["officialAttendancePeriod"] = !body.value("officialAttendancePeriod", false);
    else
        body["sequenceOfCourse"] = body.value("sequenceOfCourse", 1) == 1 ? 2 : 1;
    store("sections", body, day);
}

// Bytes of the database file: the file and its WAL after a checkpoint, and the history's share.
struct Footprint
{
    double fileBytes = 0;
    double walBytes = 0;  // of fileBytes
    double freeBytes = 0; // of fileBytes: pages the database holds free
    double changeLogBytes = -1; // tables named change* and their indexes; -1: dbstat is not available
    double editJournalBytes = -1; // tables named edit_* and their indexes
    std::vector<std::pair<std::string, double>> largest; // tables with their indexes, the largest first
    std::int64_t documents = 0;
};

// One run of an operation.
struct Sample
{
    int day = 0;
    double seconds = 0;
    double cpuSeconds = 0; // this process's (the stand-in answers in it too)
};

// The steward's side: the database, its engine and the connection to the SIS.
class Steward
{
public:
    Steward(const std::string &path, const std::string &url, std::uint32_t seed);
    bool connect(std::string *error) { return m_remote.connect(error); }
    PullReport pull() { return runPull(*m_engine, *m_database, m_remote, kClient); }
    PushReport push() { return runPush(*m_engine, *m_database, m_remote, kClient); }
    RuleRunReport runRules(bool full = false)
    {
        RuleRunOptions options;
        options.full = full;
        return steward::runRules(m_pack, *m_model, *m_database, options);
    }
    // The day's edits chosen (not timed), then made (timed); returns how many were stored.
    int edit(int day, Sample &sample);
    EditResult bulkFix(int week, Sample &sample);
    ExportResult exportEverything(const std::string &directory);
    // The state's results file written from this database's enrollments (unless writeFile is false:
    // the file at csvPath as it is), then imported.
    ResultsImportReport results(const std::string &csvPath, const QDate &runDate, Sample &sample, bool writeFile = true);
    Footprint footprint();
    Database &database() { return *m_database; }

private:
    struct Edit
    {
        std::string path;
        Json body;
        std::string etag;
    };
    std::vector<Json> page(const std::string &endpoint, std::int64_t offset, std::int64_t limit);
    std::int64_t count(const std::string &endpoint);
    void writeResultsFile(const std::string &csvPath);

    std::unique_ptr<Model> m_model;
    std::unique_ptr<Database> m_database;
    std::unique_ptr<Engine> m_engine;
    RemoteApi m_remote;
    RulePack m_pack;
    std::size_t m_resultRows = 0; // rows of the state's results file, set by the first
    std::mt19937 m_random;
};

Steward::Steward(const std::string &path, const std::string &url, std::uint32_t seed)
    : m_model(Model::loadStarter())
    , m_database(Database::open(path))
    , m_engine(std::make_unique<Engine>(*m_model, *m_database))
    , m_remote(steward::test::standInOptions(url))
    , m_pack(loadStarterRulePack(*m_model))
    , m_random(seed)
{
    // As steward-cli and the app open a database: checkpoints off the writer's thread.
    m_database->startBackgroundCheckpoints();
}

std::vector<Json> Steward::page(const std::string &endpoint, std::int64_t offset, std::int64_t limit)
{
    const Response answer = m_engine->handle(Request::make(
        "GET", "/ed-fi/" + endpoint + "?offset=" + std::to_string(offset) + "&limit=" + std::to_string(limit), "steward"));
    return answer.body.is_array() ? answer.body.get<std::vector<Json>>() : std::vector<Json>{};
}

std::int64_t Steward::count(const std::string &endpoint)
{
    const Response answer =
        m_engine->handle(Request::make("GET", "/ed-fi/" + endpoint + "?limit=0&totalCount=true", "steward"));
    const std::string total = answer.header("Total-Count");
    return total.empty() ? 0 : std::stoll(total);
}

int Steward::edit(int day, Sample &sample)
{
    // Fields the SIS does not write: the steward's own corrections.
    const std::array<std::pair<const char *, std::function<void(Json &)>>, 3> kinds = {{
        {"students", [day](Json &body) { body["preferredLastSurname"] = "Checked " + std::to_string(day); }},
        {"studentSchoolAssociations",
         [](Json &body) { body["fullTimeEquivalency"] = body.value("fullTimeEquivalency", 1.0) == 1.0 ? 0.5 : 1.0; }},
        {"studentSectionAssociations",
         [](Json &body) { body["teacherStudentDataLinkExclusion"] = !body.value("teacherStudentDataLinkExclusion", false); }},
    }};
    std::vector<Edit> edits;
    for (int i = 0; i < kEditsPerDay; ++i) {
        const auto &[endpoint, change] = kinds[static_cast<std::size_t>(i) % kinds.size()];
        const std::int64_t total = count(endpoint);
        if (total == 0)
            continue;
        std::vector<Json> found = page(endpoint, std::uniform_int_distribution<std::int64_t>(0, total - 1)(m_random), 1);
        if (found.empty())
            continue;
        Json body = std::move(found.front());
        Edit edit{"/ed-fi/" + std::string(endpoint) + "/" + body["id"].get<std::string>(), {}, body["_etag"].get<std::string>()};
        body.erase("_etag");
        body.erase("_lastModifiedDate");
        change(body);
        edit.body = std::move(body);
        edits.push_back(std::move(edit));
    }
    const Clock::time_point start = Clock::now();
    const double cpu = processCpuSeconds();
    int stored = 0;
    for (const Edit &edit : edits) {
        Request put = Request::make("PUT", edit.path, "steward", edit.body);
        stored += m_engine->handle(put.ifMatch(edit.etag)).status / 100 == 2 ? 1 : 0;
    }
    sample.seconds = seconds(start, Clock::now());
    sample.cpuSeconds = processCpuSeconds() - cpu;
    return stored;
}

// One field of a rotating 30% of the students: the preview, then the edit, as `steward-cli fix set
// --id ...` does. A student is selected again 3 or 4 weeks later; five spellings in turn make every
// week's fix change every student it selects (two in turn left a third of them unchanged).
EditResult Steward::bulkFix(int week, Sample &sample)
{
    BulkEditor editor(*m_engine, *m_database);
    const std::vector<std::string> students = editor.selectResource("Student", true, false).documentIds;
    EditSelection selection;
    const std::size_t size = static_cast<std::size_t>(static_cast<double>(students.size()) * kBulkFixShare);
    const std::size_t first = static_cast<std::size_t>(week) * size;
    for (std::size_t i = 0; i < size && !students.empty(); ++i)
        selection.documentIds.push_back(students[(first + i) % students.size()]);
    static const std::array<const char *, 5> kSpellings = {"SAN ANTONIO", "San Antonio, TX", "SAN ANTONIO, TX",
                                                           "San Antonio TX", "SAN ANTONIO TX"};
    FieldEdit edit{"$.birthCity", Json(kSpellings[static_cast<std::size_t>(week) % kSpellings.size()])};
    const Clock::time_point start = Clock::now();
    const double cpu = processCpuSeconds();
    EditResult result;
    try {
        const EditPreview preview = editor.preview(selection, edit);
        if (preview.refusals().empty())
            result = editor.apply(selection, edit, "steward");
        else
            std::fprintf(stderr, "bulk fix of week %d refused: %s\n", week, preview.refusals().substr(0, 300).c_str());
    } catch (const EditRefused &e) {
        std::fprintf(stderr, "bulk fix of week %d refused: %s\n", week, e.what());
    }
    sample.seconds = seconds(start, Clock::now());
    sample.cpuSeconds = processCpuSeconds() - cpu;
    return result;
}

ExportResult Steward::exportEverything(const std::string &directory)
{
    ExportOptions options;
    options.outDir = directory;
    return exportBatch(*m_database, *m_model, options);
}

// The state's results: as many rows every month as half the enrollments of the first month (the
// enrollments grow by half over the year; a file growing with them made the last month's match
// look slower for the rows alone), 70% naming the enrollment by natural key (student, campus, entry
// date), 20% by Ed-Fi id, 10% students the district does not have.
void Steward::writeResultsFile(const std::string &csvPath)
{
    std::vector<Json> enrollments;
    for (std::int64_t offset = 0;; offset += 500) {
        std::vector<Json> more = page("studentSchoolAssociations", offset, 500);
        enrollments.insert(enrollments.end(), more.begin(), more.end());
        if (more.size() < 500)
            break;
    }
    std::ofstream csv(csvPath, std::ios::binary);
    writePortalResultsHeader(csv);
    if (m_resultRows == 0)
        m_resultRows = std::max<std::size_t>(100, enrollments.size() / 2);
    for (std::size_t i = 0; i < m_resultRows && !enrollments.empty(); ++i) {
        const Json &e = enrollments[(i * 7919) % enrollments.size()];
        const PortalEnrollment named{e["id"].get<std::string>(), e["studentReference"]["studentUniqueId"].get<std::string>(),
                                     std::to_string(e["schoolReference"]["schoolId"].get<std::int64_t>()),
                                     e["entryDate"].get<std::string>()};
        writePortalResultsRow(csv, static_cast<std::int64_t>(i), named, "2025");
    }
}

ResultsImportReport Steward::results(const std::string &csvPath, const QDate &runDate, Sample &sample, bool writeFile)
{
    if (writeFile)
        writeResultsFile(csvPath);
    ResultsImportOptions options;
    options.runAt = isoDate(runDate);
    options.actor = "steward";
    const Clock::time_point start = Clock::now();
    const double cpu = processCpuSeconds();
    // As `steward-cli rules import-results FILE --mapping FILE` does: the mapping read, then the file.
    const ResultsMapping mapping = parseResultsMapping(portalResultsMapping(), *m_model);
    ResultsImportReport report = importExternalResults(*m_database, *m_model, csvPath, &mapping, options);
    sample.seconds = seconds(start, Clock::now());
    sample.cpuSeconds = processCpuSeconds() - cpu;
    return report;
}

Footprint Steward::footprint()
{
    SQLite::Database &db = m_database->connection();
    // A checkpoint that another connection holds up (the background checkpoint's, a reader's) says
    // busy and leaves the WAL as it is: it once counted 47 MB of WAL in the file. Tried again.
    for (int attempt = 0; attempt < 100; ++attempt) {
        SQLite::Statement checkpoint(db, "PRAGMA wal_checkpoint(TRUNCATE)");
        if (checkpoint.executeStep() && checkpoint.getColumn(0).getInt() == 0)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    Footprint out;
    const QString path = QString::fromStdString(m_database->path());
    out.walBytes = static_cast<double>(QFileInfo(path + "-wal").size());
    out.fileBytes = static_cast<double>(QFileInfo(path).size()) + out.walBytes;
    out.freeBytes = static_cast<double>(db.execAndGet("PRAGMA freelist_count").getInt64())
                    * static_cast<double>(db.execAndGet("PRAGMA page_size").getInt64());
    out.documents = db.execAndGet("SELECT count(*) FROM documents").getInt64();
    try {
        // Each table with its indexes (an index's tbl_name is its table's).
        SQLite::Statement pages(db, "SELECT coalesce(m.tbl_name, s.name), sum(s.pgsize) FROM dbstat s"
                                    " LEFT JOIN sqlite_schema m ON m.name = s.name GROUP BY 1");
        out.changeLogBytes = 0;
        out.editJournalBytes = 0;
        while (pages.executeStep()) {
            const std::string table = pages.getColumn(0).getString();
            const double bytes = pages.getColumn(1).getDouble();
            if (table.rfind("change", 0) == 0)
                out.changeLogBytes += bytes;
            else if (table.rfind("edit_", 0) == 0)
                out.editJournalBytes += bytes;
            out.largest.emplace_back(table, bytes);
        }
        std::sort(out.largest.begin(), out.largest.end(),
                  [](const auto &a, const auto &b) { return a.second > b.second; });
    } catch (const SQLite::Exception &) {
        out.changeLogBytes = -1; // SQLite built without dbstat
        out.editJournalBytes = -1;
    }
    return out;
}

} // namespace

namespace {

double megabytes(double bytes)
{
    return bytes / 1e6;
}

double medianOf(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n == 0 ? 0 : n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The year: day 0, then the school days, with the figures kept and printed.
class SchoolYear
{
public:
    SchoolYear(const Options &options, const std::string &directory);
    // Exit status: 0 when both goals were met, 1 when one was missed, 2 when the year could not run.
    int run();

private:
    bool dayZero();
    void schoolDay(int day);
    void weekEnd(int day);
    void monthEnd(int day);
    void printFigures(int day);
    bool printGoals();
    void keepDayOne();
    void compareWithDayOne();
    template <typename Work>
    auto timed(Operation operation, int day, Work &&work);
    void keep(Operation operation, const Sample &sample) { m_samples[operation].push_back(sample); }

    Options m_options;
    std::string m_directory;
    std::unique_ptr<Model> m_sisModel;
    std::unique_ptr<Sis> m_sis;
    std::unique_ptr<Steward> m_steward;
    std::int64_t m_changesPerDay = 0;
    std::array<std::vector<Sample>, kOperations> m_samples;
    std::map<int, Footprint> m_footprints;
    SisDay m_week;  // the SIS's changes since the last week's end
    PullReport m_weekPulls; // the week's pulls added up (counts only)
    RuleRunReport m_lastRules; // the day's rules run, for where its time went
    std::vector<double> m_tidySeconds; // each night's upkeep
    // Day 1's database against the year's, the same work alternated at the end (a baseline measured
    // in the same run, so the machine's drift over the year does not count): operation -> ratio.
    std::map<Operation, double> m_sameRunRatio;
};

SchoolYear::SchoolYear(const Options &options, const std::string &directory)
    : m_options(options), m_directory(directory), m_sisModel(Model::loadStarter())
{
    m_sis = std::make_unique<Sis>(*m_sisModel, options.seed);
    m_steward = std::make_unique<Steward>(directory + "/steward.db", m_sis->api().base(), options.seed);
}

template <typename Work>
auto SchoolYear::timed(Operation operation, int day, Work &&work)
{
    const Clock::time_point start = Clock::now();
    const double cpu = processCpuSeconds();
    auto result = work();
    keep(operation, Sample{day, seconds(start, Clock::now()), processCpuSeconds() - cpu});
    return result;
}

bool SchoolYear::dayZero()
{
    followCalendar(0);
    Clock::time_point start = Clock::now();
    const std::int64_t documents = m_sis->load(m_options.students, m_options.seed);
    m_changesPerDay = std::max<std::int64_t>(1, static_cast<std::int64_t>(documents * kDailyChangeShare + 0.5));
    std::printf("day 0: the SIS holds %lld documents (loaded in %.1f s)\n", static_cast<long long>(documents),
                seconds(start, Clock::now()));
    std::string error;
    if (!m_steward->connect(&error)) {
        std::fprintf(stderr, "bench_schoolyear: the SIS did not answer: %s\n", error.c_str());
        return false;
    }
    start = Clock::now();
    const PullReport first = m_steward->pull();
    if (!first.outcome.completed) {
        std::fprintf(stderr, "bench_schoolyear: the first pull failed: %s\n", first.outcome.error.c_str());
        return false;
    }
    std::printf("day 0: first pull %.1f s: %lld created, %lld drafts\n", seconds(start, Clock::now()),
                static_cast<long long>(first.outcome.totals.created), static_cast<long long>(first.outcome.totals.drafts));
    // The first run checks everything; the school days compare runs over what changed.
    start = Clock::now();
    const RuleRunReport rules = m_steward->runRules();
    std::printf("day 0: first rules run %.1f s over %lld documents\n", seconds(start, Clock::now()),
                static_cast<long long>(rules.documentsChecked));
    std::printf("each school day: %lld SIS changes (%.1f%%), a pull, %d edits, a rules run; every %dth day a bulk fix"
                " of %.0f%% of the students, an export of everything and a push; every %dth day the state's results\n\n",
                static_cast<long long>(m_changesPerDay), kDailyChangeShare * 100, kEditsPerDay, kWeek,
                kBulkFixShare * 100, kMonth);
    std::fflush(stdout);
    return true;
}

void SchoolYear::schoolDay(int day)
{
    followCalendar(day);
    const SisDay changed = m_sis->change(schoolDate(day), m_changesPerDay, m_options.students);
    m_week.updated += changed.updated;
    m_week.created += changed.created;
    m_week.deleted += changed.deleted;
    const PullReport pulled = timed(Pull, day, [this] { return m_steward->pull(); });
    if (!pulled.outcome.completed)
        std::fprintf(stderr, "day %d: the pull failed: %s\n", day, pulled.outcome.error.c_str());
    m_weekPulls.outcome.totals.created += pulled.outcome.totals.created;
    m_weekPulls.outcome.totals.updated += pulled.outcome.totals.updated;
    m_weekPulls.outcome.totals.drafts += pulled.outcome.totals.drafts;
    m_weekPulls.deleted += pulled.deleted;
    m_weekPulls.merged += pulled.merged;
    m_weekPulls.conflicts += pulled.conflicts;
    Sample edits{day, 0, 0};
    const int stored = m_steward->edit(day, edits);
    keep(Edits, edits);
    if (stored < kEditsPerDay)
        std::fprintf(stderr, "day %d: %d of %d edits stored\n", day, stored, kEditsPerDay);
    m_lastRules = timed(RulesRun, day, [this] { return m_steward->runRules(); });
    if (day % kWeek == 0)
        weekEnd(day);
    if (day % kMonth == 0)
        monthEnd(day);
    // The night: the app's idle-time upkeep (free pages, the text indexes merged, a VACUUM when due).
    const Clock::time_point start = Clock::now();
    const TidyReport tidied = tidyUp(m_steward->database());
    const double tidySeconds = seconds(start, Clock::now());
    m_tidySeconds.push_back(tidySeconds);
    if (tidied.measured)
        std::printf("night after day %d: %.0f%% of the pages' bytes unused%s; file %.1f MB -> %.1f MB in %.2f s\n",
                    day, tidied.unusedShare * 100, tidied.vacuumed ? ", VACUUM" : ", no VACUUM",
                    megabytes(static_cast<double>(tidied.fileBytesBefore)),
                    megabytes(static_cast<double>(tidied.fileBytesAfter)), tidySeconds);
}

void SchoolYear::weekEnd(int day)
{
    const int week = day / kWeek;
    Sample fix{day, 0, 0};
    const EditResult fixed = m_steward->bulkFix(week, fix);
    keep(BulkFix, fix);
    const std::string batch = m_directory + "/export-" + std::to_string(week);
    const ExportResult exported = timed(Export, day, [&] { return m_steward->exportEverything(batch); });
    if (!exported.ok)
        std::fprintf(stderr, "day %d: the export failed: %s\n", day, exported.error.c_str());
    QDir(QString::fromStdString(batch)).removeRecursively();
    const PushReport pushed = timed(Push, day, [this] { return m_steward->push(); });
    if (!pushed.completed)
        std::fprintf(stderr, "day %d: the push failed: %s\n", day, pushed.error.c_str());
    std::printf("week %2d (day %3d, %s): SIS %d changed, %d new, %d deleted; pulled %lld updated, %lld created,"
                " %d deleted, %d merged, %d conflicts, %lld drafts; fix %d students; export %lld; push %d sent,"
                " %d refused, %d conflicts\n",
                week, day, isoDate(schoolDate(day)).c_str(), m_week.updated, m_week.created, m_week.deleted,
                static_cast<long long>(m_weekPulls.outcome.totals.updated),
                static_cast<long long>(m_weekPulls.outcome.totals.created), m_weekPulls.deleted, m_weekPulls.merged,
                m_weekPulls.conflicts, static_cast<long long>(m_weekPulls.outcome.totals.drafts), fixed.documentsChanged,
                static_cast<long long>(exported.documents), pushed.sent, pushed.refused, pushed.conflicts);
    // The week's daily times, so a trend shows apart from one slow day.
    std::string times;
    for (int operation : {Pull, RulesRun}) {
        std::vector<double> week;
        for (const Sample &sample : m_samples[static_cast<std::size_t>(operation)])
            if (sample.day > day - kWeek)
                week.push_back(sample.seconds);
        times += std::string(times.empty() ? "" : ", ") + kOperationNames[static_cast<std::size_t>(operation)] + " "
                 + QString::number(medianOf(week), 'f', 3).toStdString() + " s";
    }
    std::printf("   the week's medians: %s; bulk fix %.3f s, export %.3f s, push %.3f s\n", times.c_str(),
                m_samples[BulkFix].back().seconds, m_samples[Export].back().seconds, m_samples[Push].back().seconds);
    std::fflush(stdout);
    m_week = {};
    m_weekPulls = {};
}

void SchoolYear::monthEnd(int day)
{
    Sample sample{day, 0, 0};
    const ResultsImportReport report =
        m_steward->results(m_directory + "/state-results.csv", schoolDate(day), sample);
    keep(Results, sample);
    std::printf("month %d (day %d): the state's results, %lld rows, %lld matched, %lld fixed since, %lld still\n",
                day / kMonth, day, static_cast<long long>(report.rows), static_cast<long long>(report.matched),
                static_cast<long long>(report.fixed), static_cast<long long>(report.still));
}

void SchoolYear::printFigures(int day)
{
    const Footprint footprint = m_steward->footprint();
    m_footprints[day] = footprint;
    std::printf("\n== day %d (%s) ==\n", day, isoDate(schoolDate(day)).c_str());
    std::printf("file %.1f MB (database + WAL after a checkpoint; WAL %.1f MB, free pages %.1f MB), %lld documents\n",
                megabytes(footprint.fileBytes), megabytes(footprint.walBytes), megabytes(footprint.freeBytes),
                static_cast<long long>(footprint.documents));
    if (footprint.changeLogBytes < 0)
        std::printf("history: unknown (SQLite without dbstat)\n");
    else
        std::printf("history %.1f MB (%.0f%% of the file): change log %.1f MB, edit journal %.1f MB\n",
                    megabytes(footprint.changeLogBytes + footprint.editJournalBytes),
                    100 * (footprint.changeLogBytes + footprint.editJournalBytes) / footprint.fileBytes,
                    megabytes(footprint.changeLogBytes), megabytes(footprint.editJournalBytes));
    // By table, so that history kept under other names shows too.
    std::string largest;
    for (std::size_t i = 0; i < footprint.largest.size() && i < 8; ++i)
        largest += (i > 0 ? ", " : "") + footprint.largest[i].first + " " +
                   QString::number(megabytes(footprint.largest[i].second), 'f', 1).toStdString();
    if (!largest.empty())
        std::printf("largest tables with their indexes (MB): %s\n", largest.c_str());
    // Where the day's rules run spent its time: the slowest rules and what they found.
    std::vector<RuleRunStats> slowest = m_lastRules.rules;
    std::sort(slowest.begin(), slowest.end(),
              [](const RuleRunStats &a, const RuleRunStats &b) { return a.milliseconds > b.milliseconds; });
    double inRules = 0;
    std::string top;
    for (const RuleRunStats &rule : slowest) {
        inRules += rule.milliseconds;
        if (top.size() < 200 && rule.milliseconds >= 1)
            top += (top.empty() ? "" : ", ") + rule.ruleId + " " + rule.mode + " " +
                   QString::number(rule.milliseconds, 'f', 0).toStdString() + " ms (" + std::to_string(rule.checked) +
                   " checked, " + std::to_string(rule.failing) + " failing)";
    }
    std::printf("the day's rules run: %.0f ms in the rules' SQL; %s\n", inRules, top.c_str());
    std::printf("%-10s %9s %9s %9s\n", "operation", "last run", "seconds", "CPU s");
    for (int operation = 0; operation < kOperations; ++operation) {
        const std::vector<Sample> &samples = m_samples[static_cast<std::size_t>(operation)];
        if (samples.empty()) {
            std::printf("%-10s %9s (first on day %d)\n", kOperationNames[static_cast<std::size_t>(operation)], "-",
                        kEvery[static_cast<std::size_t>(operation)]);
            continue;
        }
        const Sample &last = samples.back();
        std::printf("%-10s %9s %9.3f %9.3f\n", kOperationNames[static_cast<std::size_t>(operation)],
                    ("day " + std::to_string(last.day)).c_str(), last.seconds, last.cpuSeconds);
    }
    if (!m_tidySeconds.empty())
        std::printf("the nights' upkeep (not a steward's operation: the app's idle time): median %.3f s, longest %.3f s\n",
                    medianOf(m_tidySeconds), *std::max_element(m_tidySeconds.begin(), m_tidySeconds.end()));
    std::fflush(stdout);
}

// The first and last `window` runs of an operation (fewer when it ran less than twice that often):
// the median time of each, wall and CPU.
struct Comparison
{
    std::size_t window = 0;
    double early = 0;
    double late = 0;
    double earlyCpu = 0;
    double lateCpu = 0;
};

Comparison compare(const std::vector<Sample> &samples, std::size_t most)
{
    Comparison out;
    out.window = std::min(most, samples.size() / 2);
    std::vector<double> early, late, earlyCpu, lateCpu;
    for (std::size_t i = 0; i < out.window; ++i) {
        early.push_back(samples[i].seconds);
        earlyCpu.push_back(samples[i].cpuSeconds);
        late.push_back(samples[samples.size() - 1 - i].seconds);
        lateCpu.push_back(samples[samples.size() - 1 - i].cpuSeconds);
    }
    out.early = medianOf(early);
    out.late = medianOf(late);
    out.earlyCpu = medianOf(earlyCpu);
    out.lateCpu = medianOf(lateCpu);
    return out;
}

std::string dayOnePath(const std::string &directory)
{
    return directory + "/day-1.db";
}

// Day 1's file as it is after its figures (their checkpoint emptied the WAL).
void SchoolYear::keepDayOne()
{
    QFile::remove(QString::fromStdString(dayOnePath(m_directory)));
    if (!QFile::copy(QString::fromStdString(m_steward->database().path()), QString::fromStdString(dayOnePath(m_directory))))
        std::fprintf(stderr, "bench_schoolyear: day 1's database could not be copied\n");
}

// The operations that need no SIS, run on day 1's database and on the year's by turns, five times:
// a full rules run (every rule over every document), an export of everything, a bulk fix, and the
// import of the year's last results file.
void SchoolYear::compareWithDayOne()
{
    if (!QFileInfo::exists(QString::fromStdString(dayOnePath(m_directory))))
        return;
    Steward dayOne(dayOnePath(m_directory), m_sis->api().base(), m_options.seed);
    Steward &year = *m_steward;
    std::map<Operation, std::array<std::vector<double>, 2>> taken; // [0] day 1, [1] the year
    for (int round = 0; round < 5; ++round) {
        std::array<Steward *, 2> sides = {&dayOne, &year};
        for (std::size_t side = 0; side < 2; ++side) {
            Steward &steward = *sides[side];
            Clock::time_point start = Clock::now();
            steward.runRules(true);
            taken[RulesRun][side].push_back(seconds(start, Clock::now()));
            const std::string batch = m_directory + "/compare-export";
            start = Clock::now();
            steward.exportEverything(batch);
            taken[Export][side].push_back(seconds(start, Clock::now()));
            QDir(QString::fromStdString(batch)).removeRecursively();
            Sample fix{0, 0, 0};
            steward.bulkFix(100 + round, fix);
            taken[BulkFix][side].push_back(fix.seconds);
            // The year's last results file, on both (day 1's first import finds no earlier one to
            // replace; the median is of the replacing ones, as every month after the first).
            Sample imported{0, 0, 0};
            steward.results(m_directory + "/state-results.csv", schoolDate(m_options.days), imported, false);
            taken[Results][side].push_back(imported.seconds);
        }
    }
    std::printf("\n== day 1's database against the year's, the same work by turns (medians of 5, wall seconds) ==\n");
    for (const auto &[operation, times] : taken) {
        const double first = medianOf(times[0]);
        const double last = medianOf(times[1]);
        m_sameRunRatio[operation] = first > 0 ? last / first : 1.0;
        std::printf("  %-10s %8.3f s -> %8.3f s: %5.2fx%s\n", kOperationNames[static_cast<std::size_t>(operation)], first,
                    last, m_sameRunRatio[operation], operation == RulesRun ? "   (a full run: every rule, every document)" : "");
    }
}

bool SchoolYear::printGoals()
{
    const Footprint &first = m_footprints.begin()->second;
    const Footprint &last = m_footprints.rbegin()->second;
    const double growth = last.fileBytes / first.fileBytes;
    const bool sizeMet = growth <= 2.0;
    std::printf("\n== goals ==\n");
    std::printf("file on day %d %.1f MB, on day %d %.1f MB: %.2fx (at most 2x): %s\n", m_footprints.begin()->first,
                megabytes(first.fileBytes), m_footprints.rbegin()->first, megabytes(last.fileBytes), growth,
                sizeMet ? "met" : "MISSED");
    std::printf("time at the end against the start (wall seconds, medians: daily operations of the first and last %d"
                " days, weekly ones of the first and last 3 runs, the results of the first and last month's run;"
                " CPU beside it):\n", kWeek);
    bool timesMet = true;
    for (int operation = 0; operation < kOperations; ++operation) {
        const std::size_t index = static_cast<std::size_t>(operation);
        const std::size_t most = kEvery[index] == 1 ? kWeek : kEvery[index] == kWeek ? 3 : 1;
        const Comparison c = compare(m_samples[index], most);
        if (c.window == 0) {
            std::printf("  %-10s n/a (ran %zu time(s): nothing to compare)\n", kOperationNames[index], m_samples[index].size());
            continue;
        }
        const double ratio = c.early > 0 ? c.late / c.early : 1.0;
        // Where the same work ran on day 1's database in this run, that comparison decides.
        const auto sameRun = m_sameRunRatio.find(static_cast<Operation>(operation));
        const bool met = (sameRun != m_sameRunRatio.end() ? sameRun->second : ratio) <= 1.25;
        timesMet = timesMet && met;
        const std::string byTurns = sameRun == m_sameRunRatio.end()
                                        ? std::string()
                                        : "; by turns on day 1's database " + QString::number(sameRun->second, 'f', 2).toStdString()
                                              + "x (this decides)";
        std::printf("  %-10s %8.3f s -> %8.3f s: %5.2fx (at most 1.25x): %-6s   CPU %7.3f s -> %7.3f s: %5.2fx"
                    "   (%zu and %zu runs)%s\n",
                    kOperationNames[index], c.early, c.late, ratio, met ? "met" : "MISSED", c.earlyCpu, c.lateCpu,
                    c.earlyCpu > 0 ? c.lateCpu / c.earlyCpu : 1.0, c.window, c.window, byTurns.c_str());
    }
    std::printf("every operation at most 1.25x its time at the start: %s\n", timesMet ? "met" : "MISSED");
    return sizeMet && timesMet;
}

int SchoolYear::run()
{
    if (!dayZero())
        return 2;
    std::vector<int> checkpoints = {1, 30, 90, m_options.days};
    for (int day = 1; day <= m_options.days; ++day) {
        schoolDay(day);
        if (std::find(checkpoints.begin(), checkpoints.end(), day) != checkpoints.end())
            printFigures(day);
        if (day == 1)
            keepDayOne();
    }
    compareWithDayOne();
    return printGoals() ? 0 : 1;
}

bool parseOptions(int argc, char **argv, Options &options)
{
    for (int i = 1; i < argc; ++i) {
        const bool hasValue = i + 1 < argc;
        if (std::strcmp(argv[i], "--students") == 0 && hasValue)
            options.students = std::max<std::int64_t>(10, std::atoll(argv[++i]));
        else if (std::strcmp(argv[i], "--days") == 0 && hasValue)
            options.days = std::max(1, std::atoi(argv[++i]));
        else if (std::strcmp(argv[i], "--seed") == 0 && hasValue)
            options.seed = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
        else if (std::strcmp(argv[i], "--keep") == 0 && hasValue)
            options.keep = argv[++i];
        else
            return false;
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    Options options;
    if (!parseOptions(argc, argv, options)) {
        std::fprintf(stderr, "usage: bench_schoolyear [--students N] [--days N] [--seed N] [--keep FOLDER]\n");
        return 2;
    }
    QTemporaryDir directory;
    if (!options.keep.empty()) {
        // The database stays there when the year ends (a temporary folder would take it along).
        QDir().mkpath(QString::fromStdString(options.keep));
        directory.setAutoRemove(false);
    }
    std::printf("Steward school-year benchmark: %lld students, %d school days, seed %u\n\n",
                static_cast<long long>(options.students), options.days, options.seed);
    SchoolYear year(options, options.keep.empty() ? directory.path().toStdString() : options.keep);
    return year.run();
}
