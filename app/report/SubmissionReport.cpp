#include "SubmissionReport.h"

#include "Database.h"
#include "PrivateFiles.h"
#include "ReportRecords.h"
#include "ReportWriter.h"
#include "Readiness.h"
#include "Submissions.h"

#include <SQLiteCpp/Statement.h>

#include <QColor>
#include <QDateTime>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <set>

namespace steward {

namespace {

// Where a document belongs: the school its body names first; none means district-wide (students,
// staff, descriptors, the district itself).
const char *const kSchoolOfBody =
    "coalesce(json_extract(b, '$.schoolId'), json_extract(b, '$.schoolReference.schoolId'),"
    " json_extract(b, '$.courseOfferingReference.schoolId'), json_extract(b, '$.sectionReference.schoolId'),"
    " json_extract(b, '$.sessionReference.schoolId'))";

std::int64_t totalOf(const std::map<std::string, std::int64_t> &counts)
{
    std::int64_t total = 0;
    for (const auto &[name, count] : counts)
        total += count;
    return total;
}

// Reference data: shown as one summary line per page, not a row per type.
bool isReferenceData(const std::string &resource)
{
    return resource == "SchoolYearType" || (resource.size() > 10 && resource.ends_with("Descriptor"));
}

int severityRank(const std::string &severity)
{
    for (int i = 0; i < 4; ++i)
        if (severity == kSeverities[i])
            return i;
    return 4;
}

// What the report knows of a document with results: where it belongs and what a person calls it.
struct ResultDocument
{
    std::set<std::string> schools;
    std::string name;
};

std::string textColumn(SQLite::Statement &row, int column)
{
    return row.getColumn(column).isNull() ? std::string() : row.getColumn(column).getString();
}

// One pass over the documents: counts per school and resource, and who is enrolled where. A document
// whose body names a school belongs to it; a student or staff member belongs to the schools of their
// enrollments and assignments (StudentSchoolAssociation, StaffSchoolAssociation, and the schools of
// the sections they teach); nothing else names a school: district-wide.
class DocumentPass
{
public:
    DocumentPass(SQLite::Database &db, std::int64_t since, const std::set<std::string> &withResults)
    {
        SQLite::Statement rows(
            db, std::string("SELECT steward_id_text(d.id), r.resource, d.change_seq > ?, ") + kSchoolOfBody +
                    ", json_extract(b, '$.studentUniqueId'), json_extract(b, '$.staffUniqueId'),"
                    " json_extract(b, '$.studentReference.studentUniqueId'),"
                    " json_extract(b, '$.staffReference.staffUniqueId'),"
                    " json_extract(b, '$.firstName'), json_extract(b, '$.lastSurname'),"
                    " coalesce(json_extract(b, '$.courseTitle'), json_extract(b, '$.nameOfInstitution'),"
                    "          json_extract(b, '$.sectionIdentifier'), json_extract(b, '$.sessionName'))"
                    " FROM (SELECT id, resource_key, change_seq, steward_text(body) AS b FROM document_rows) d"
                    " JOIN resources r ON r.resource_key = d.resource_key");
        rows.bind(1, since < 0 ? std::numeric_limits<std::int64_t>::max() : since);
        struct Pending
        {
            std::string resource;
            bool changed;
            std::string person; // "student:604801", "staff:207207"
        };
        std::vector<Pending> people; // counted once the enrollments are all read
        while (rows.executeStep()) {
            const std::string id = rows.getColumn(0).getString();
            const std::string resource = rows.getColumn(1).getString();
            const bool changed = rows.getColumn(2).getInt() != 0;
            const std::string school = textColumn(rows, 3);
            const std::string student = textColumn(rows, 4);
            const std::string staff = textColumn(rows, 5);
            const std::string enrolledStudent = textColumn(rows, 6);
            const std::string assignedStaff = textColumn(rows, 7);
            if (!school.empty() && !enrolledStudent.empty())
                m_enrolled["student:" + enrolledStudent].insert(school);
            if (!school.empty() && !assignedStaff.empty())
                m_enrolled["staff:" + assignedStaff].insert(school);
            std::string person;
            if (school.empty() && resource == "Student" && !student.empty())
                person = "student:" + student;
            else if (school.empty() && resource == "Staff" && !staff.empty())
                person = "staff:" + staff;
            if (withResults.count(id) > 0) {
                ResultDocument &known = documents[id];
                const std::string first = textColumn(rows, 8);
                const std::string last = textColumn(rows, 9);
                known.name = !last.empty() ? last + (first.empty() ? "" : ", " + first) : textColumn(rows, 10);
                if (!school.empty())
                    known.schools.insert(school);
                m_personOf[id] = person;
                // An enrollment or assignment is named by its student or staff member.
                if (known.name.empty() && !enrolledStudent.empty())
                    m_namedBy[id] = "student:" + enrolledStudent;
                else if (known.name.empty() && !assignedStaff.empty())
                    m_namedBy[id] = "staff:" + assignedStaff;
            }

            if (!person.empty()) {
                people.push_back({resource, changed, person});
                continue;
            }
            count(school, resource, changed);
        }
        for (const Pending &p : people) {
            auto schools = m_enrolled.find(p.person);
            if (schools == m_enrolled.end() || schools->second.empty())
                count(std::string(), p.resource, p.changed);
            else
                for (const std::string &school : schools->second)
                    count(school, p.resource, p.changed);
        }
        readNames(db);
        for (auto &[id, known] : documents) {
            if (const std::string &person = m_personOf[id]; !person.empty())
                if (auto schools = m_enrolled.find(person); schools != m_enrolled.end())
                    known.schools.insert(schools->second.begin(), schools->second.end());
            if (auto namedBy = m_namedBy.find(id); namedBy != m_namedBy.end())
                if (auto name = m_names.find(namedBy->second); name != m_names.end())
                    known.name = name->second;
        }
    }

    std::map<std::string, ResultDocument> documents; // by id, those with results
    // (school, resource) -> documents, changed since
    std::map<std::pair<std::string, std::string>, std::pair<std::int64_t, std::int64_t>> counts;

private:
    // The names of the students and staff members the enrollments and assignments with results name.
    void readNames(SQLite::Database &db)
    {
        std::set<std::string> wanted;
        for (const auto &[id, person] : m_namedBy)
            wanted.insert(person);
        if (wanted.empty())
            return;
        SQLite::Statement people(db, "SELECT coalesce('student:' || json_extract(b, '$.studentUniqueId'),"
                                     "                'staff:' || json_extract(b, '$.staffUniqueId')),"
                                     " json_extract(b, '$.firstName'), json_extract(b, '$.lastSurname')"
                                     " FROM (SELECT steward_text(body) AS b FROM documents"
                                     "       WHERE resource IN ('Student', 'Staff'))");
        while (people.executeStep()) {
            const std::string person = textColumn(people, 0);
            if (wanted.count(person) == 0)
                continue;
            const std::string first = textColumn(people, 1);
            m_names[person] = textColumn(people, 2) + (first.empty() ? "" : ", " + first);
        }
    }

    void count(const std::string &school, const std::string &resource, bool changed)
    {
        auto &c = counts[{school, resource}];
        ++c.first;
        c.second += changed ? 1 : 0;
    }

    std::map<std::string, std::set<std::string>> m_enrolled; // person -> schools
    std::map<std::string, std::string> m_personOf;           // result document id -> person
    std::map<std::string, std::string> m_namedBy;            // result document id -> the person it names
    std::map<std::string, std::string> m_names;              // person -> "Last, First"
};

// A result on the report: Steward's or the state's, its document, and the school the state's row names.
struct ReportResult
{
    ReportPage::FixLine line;
    std::string docId;
    std::string stateSchool;
};

ReportPage &pageOf(std::map<std::string, ReportPage> &pages, const std::string &school)
{
    ReportPage &page = pages[school];
    page.schoolId = school;
    return page;
}

// Steward's results, and the state's: all of them, those changed since the state's run marked.
// withResults gets the documents they name.
std::vector<ReportResult> readResults(SQLite::Database &db, std::set<std::string> &withResults)
{
    std::vector<ReportResult> results;
    SQLite::Statement rows(
        db, "WITH x AS (SELECT 'rule' AS kind, pack_id AS origin, rule_id, severity, message, doc_id, resource,"
            "                  natural_key, '' AS school_id, 0 AS row_number, '' AS file, 0 AS changed_since"
            "           FROM rule_results"
            "           UNION ALL SELECT 'state', source, rule_id, severity, message, doc_id, resource,"
            "                  natural_key, school_id, row_number, file, changed_since FROM imported_results)"
            " SELECT x.kind, x.origin, x.rule_id, x.severity, x.message, coalesce(x.doc_id, ''), x.resource,"
            "        x.natural_key, x.school_id, x.row_number, x.file, x.changed_since,"
            "        a.reason, a.actor, a.at, steward_text(d.identity)"
            " FROM x LEFT JOIN acknowledgements a"
            "   ON a.origin = x.origin AND a.rule_id = x.rule_id AND a.doc_id = x.doc_id"
            " LEFT JOIN document_rows d ON x.doc_id IS NOT NULL AND d.id = steward_id_key(x.doc_id)");
    while (rows.executeStep()) {
        ReportResult result;
        ReportPage::FixLine &line = result.line;
        const bool state = rows.getColumn(0).getString() == "state";
        line.ruleId = rows.getColumn(2).getString();
        line.severity = rows.getColumn(3).getString();
        line.message = rows.getColumn(4).getString();
        result.docId = rows.getColumn(5).getString();
        line.resource = rows.getColumn(6).getString();
        line.naturalKey = rows.getColumn(7).getString();
        // The stored record's identity, labelled and short; a row that matched nothing keeps its key text.
        if (!rows.getColumn(15).isNull())
            if (const JsonParseResult identity = parseJson(rows.getColumn(15).getString()); identity.value)
                line.naturalKey = compactKey(*identity.value);
        result.stateSchool = state ? rows.getColumn(8).getString() : std::string();
        // The file's name: where the steward kept it says nothing to a principal.
        const std::string file = std::filesystem::path(rows.getColumn(10).getString()).filename().string();
        line.source = state ? "state file " + (file.empty() ? rows.getColumn(1).getString() : file) + ", row " +
                                  std::to_string(rows.getColumn(9).getInt64())
                            : "Steward (" + rows.getColumn(1).getString() + ")";
        line.changedSince = rows.getColumn(11).getInt() != 0;
        if (!rows.getColumn(12).isNull()) {
            line.acknowledged = true;
            line.acknowledgedBecause = rows.getColumn(12).getString() + " (" + rows.getColumn(13).getString() +
                                       ", " + rows.getColumn(14).getString().substr(0, 10) + ")";
        }
        if (result.docId.empty())
            line.note = "no stored record matches this row";
        else
            withResults.insert(result.docId);
        results.push_back(std::move(result));
    }
    return results;
}

// Each result on the page of each school its record is at (or the state's row names), counted
// there by severity and rule.
void placeResults(std::vector<ReportResult> &results, const DocumentPass &documents,
                  std::map<std::string, ReportPage> &pages)
{
    std::map<std::string, std::map<std::pair<std::string, std::string>, std::int64_t>> ruleCounts;
    for (ReportResult &result : results) {
        auto known = documents.documents.find(result.docId);
        std::set<std::string> schools;
        if (known != documents.documents.end()) {
            schools = known->second.schools;
            result.line.name = known->second.name;
        }
        // The state's own school column places its row; where the enrollments disagree, it says so.
        if (!result.stateSchool.empty()) {
            if (!schools.empty() && schools.count(result.stateSchool) == 0) {
                std::string enrolled;
                for (const std::string &school : schools)
                    enrolled += (enrolled.empty() ? "" : ", ") + school;
                result.line.note = "the state's file names campus " + result.stateSchool + "; here at " + enrolled;
            }
            schools = {result.stateSchool};
        }
        if (schools.empty())
            schools.insert(std::string());
        for (const std::string &school : schools) {
            ReportPage &p = pageOf(pages, school);
            p.fixes.push_back(result.line);
            // The counts are what stands: a result whose record changed since the state's run awaits it,
            // and a row that matched no record is listed to fix, not counted.
            if (result.line.changedSince || result.docId.empty())
                continue;
            p.bySeverity[result.line.severity] += 1;
            p.acknowledged += result.line.acknowledged ? 1 : 0;
            ++ruleCounts[school][{result.line.ruleId, result.line.severity}];
        }
    }
    for (const auto &[school, rules] : ruleCounts)
        for (const auto &[rule, count] : rules)
            pageOf(pages, school).byRule.push_back({rule.first, rule.second, count});

}

// Each draft on the page of the school it names (district-wide when none), listed first to fix.
void placeDrafts(SQLite::Database &db, std::map<std::string, ReportPage> &pages)
{
    std::set<std::string> knownSchools;
    for (const auto &[school, p] : pages)
        if (!school.empty())
            knownSchools.insert(school);
    for (ReportDraft &draft : readReportDrafts(db, knownSchools)) {
        ReportPage &p = pageOf(pages, draft.school);
        if (p.title.empty() && !draft.schoolName.empty())
            p.title = draft.schoolName + " (" + draft.school + ", a draft)";
        ++p.drafts;
        p.fixes.push_back(std::move(draft.line));
    }
}

// A page's title, and its rules, resources and fixes in the order a principal reads them.
void finishPage(const std::string &school, ReportPage &p)
{
    if (p.title.empty())
        p.title = school.empty() ? "District-wide records" : "School " + school;
    std::sort(p.byRule.begin(), p.byRule.end(), [](const ReportPage::RuleLine &a, const ReportPage::RuleLine &b) {
        return a.count != b.count ? a.count > b.count : a.ruleId < b.ruleId;
    });
    std::sort(p.resources.begin(), p.resources.end(),
              [](const ReportPage::ResourceLine &a, const ReportPage::ResourceLine &b) { return a.resource < b.resource; });
    std::stable_sort(p.fixes.begin(), p.fixes.end(),
                     [](const ReportPage::FixLine &a, const ReportPage::FixLine &b) {
                         if (a.draft != b.draft)
                             return a.draft;
                         if (severityRank(a.severity) != severityRank(b.severity))
                             return severityRank(a.severity) < severityRank(b.severity);
                         return a.name != b.name ? a.name < b.name : a.ruleId < b.ruleId;
                     });
}

} // namespace

SubmissionReportData gatherSubmissionReport(SQLite::Database &db)
{
    DeferredTransaction read(db);
    SubmissionReportData data;
    data.generatedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    data.verdict = computeReadiness(db).verdictText();
    const SubmissionStatus status = submissionStatus(db);
    std::int64_t since = -1;
    if (status.last) {
        data.lastSubmission = status.last->summary();
        data.lastVerdict = status.last->verdict.value("verdict", std::string());
        data.lastAcknowledged = status.last->acknowledged.is_array()
                                    ? static_cast<std::int64_t>(status.last->acknowledged.size())
                                    : 0;
        since = status.last->seqTo;
    }

    std::map<std::string, ReportPage> pages;
    {
        SQLite::Statement names(db, "SELECT json_extract(b, '$.schoolId'), json_extract(b, '$.nameOfInstitution')"
                                    " FROM (SELECT steward_text(body) AS b FROM documents WHERE resource = 'School')");
        while (names.executeStep())
            pageOf(pages, names.getColumn(0).getString()).title =
                names.getColumn(1).getString() + " (" + names.getColumn(0).getString() + ")";
    }

    std::set<std::string> withResults;
    std::vector<ReportResult> results = readResults(db, withResults);

    const DocumentPass documents(db, since, withResults);
    for (const auto &[key, counted] : documents.counts) {
        ReportPage &p = pageOf(pages, key.first);
        if (isReferenceData(key.second)) {
            p.referenceValues += counted.first;
            ++p.referenceTypes;
        } else {
            p.resources.push_back({key.second, counted.first, counted.second});
        }
    }

    placeResults(results, documents, pages);
    placeDrafts(db, pages);

    for (auto &[school, p] : pages)
        finishPage(school, p);
    // Schools in id order, district-wide records last.
    for (auto &[school, p] : pages)
        if (!school.empty())
            data.pages.push_back(std::move(p));
    if (pages.count(std::string()) > 0)
        data.pages.push_back(std::move(pages[std::string()]));
    return data;
}

FixListTable fixListTable(const SubmissionReportData &data)
{
    FixListTable table;
    table.headers = {"School", "Name", "ID", "Resource", "Rule", "Severity", "Message", "Source", "Changed since",
                     "Note", "Acknowledged"};
    for (const ReportPage &p : data.pages)
        for (const ReportPage::FixLine &fix : p.fixes)
            table.rows.push_back({p.title, fix.name, fix.naturalKey, fix.resource, fix.ruleId, fix.severity,
                                  fix.message, fix.source,
                                  fix.changedSince ? "changed since the state's run" : "", fix.note,
                                  fix.acknowledged ? fix.acknowledgedBecause : ""});
    return table;
}

namespace {

QString countsText(const ReportPage &p)
{
    QStringList counts;
    for (const char *severity : kSeverities) {
        auto it = p.bySeverity.find(severity);
        counts << QStringLiteral("%1 %2").arg(it == p.bySeverity.end() ? 0 : it->second).arg(QLatin1String(severity));
    }
    QString text = QStringLiteral("Results: %1 (%2); %3 warning(s) acknowledged.")
                       .arg(totalOf(p.bySeverity))
                       .arg(counts.join(QStringLiteral(", ")))
                       .arg(p.acknowledged);
    if (p.drafts > 0)
        text += QStringLiteral(" Drafts: %1, input that could not be stored yet (first in the fix list).").arg(p.drafts);
    return text;
}

void writeSummary(ReportWriter &out, const SubmissionReportData &data)
{
    out.heading(QStringLiteral("Submission report"), 20);
    out.line(QString::fromStdString(data.verdict),
             data.verdict.rfind("Ready", 0) == 0 ? QColor(0x1b, 0x7f, 0x3b) : severityColor("fatal"));
    out.line(data.lastSubmission.empty()
                 ? QStringLiteral("No submission signed off yet.")
                 : QStringLiteral("Last submission: %1. Verdict then: %2. Acknowledged warnings then: %3.")
                       .arg(QString::fromStdString(data.lastSubmission), QString::fromStdString(data.lastVerdict))
                       .arg(data.lastAcknowledged));
    out.line(QString());
    out.heading(QStringLiteral("Schools"), 13);
    std::vector<QStringList> rows;
    for (const ReportPage &p : data.pages) {
        std::int64_t documents = p.referenceValues;
        std::int64_t changed = 0;
        for (const ReportPage::ResourceLine &r : p.resources) {
            documents += r.documents;
            changed += r.changedSince;
        }
        QStringList row{QString::fromStdString(p.title), QString::number(documents), QString::number(p.drafts)};
        for (const char *severity : kSeverities) {
            auto it = p.bySeverity.find(severity);
            row << QString::number(it == p.bySeverity.end() ? 0 : it->second);
        }
        row << (data.lastSubmission.empty() ? QStringLiteral("–") : QString::number(changed));
        rows.push_back(row);
    }
    out.table({QStringLiteral("School"), QStringLiteral("Documents"), QStringLiteral("Drafts"), QStringLiteral("Fatal"),
               QStringLiteral("Error"), QStringLiteral("Warning"), QStringLiteral("Info"), QStringLiteral("Changed since")},
              rows, {30, 11, 8, 8, 8, 9, 8, 18}, {false, true, true, true, true, true, true, true});
}

// "StudentSchoolAssociation" -> "Student School Association": a name that wraps at its words.
QString inWords(const std::string &resource)
{
    QString words;
    for (const char c : resource) {
        if (!words.isEmpty() && c >= 'A' && c <= 'Z')
            words += QLatin1Char(' ');
        words += QLatin1Char(c);
    }
    return words;
}

// An id reads at a glance: two lines at most in the fix list (the spreadsheet has every one whole).
const std::vector<int> kIdLines{0, 2};

void writeFixList(ReportWriter &out, const ReportPage &p)
{
    std::vector<QStringList> open;
    std::vector<QStringList> acknowledged;
    for (const ReportPage::FixLine &fix : p.fixes) {
        QString message = QString::fromStdString(fix.message);
        if (fix.changedSince)
            message += QStringLiteral(" (changed since the state's run: awaiting its next run)");
        if (!fix.note.empty())
            message += QStringLiteral(" — ") + QString::fromStdString(fix.note);
        QStringList row{fix.name.empty() ? QStringLiteral("(%1)").arg(inWords(fix.resource)) : QString::fromStdString(fix.name),
                        QString::fromStdString(fix.naturalKey), QString::fromStdString(fix.ruleId),
                        QString::fromStdString(fix.severity), message, QString::fromStdString(fix.source)};
        if (fix.acknowledged) {
            // Only a warning can be acknowledged: no severity column there, room for the reason.
            row.removeAt(3);
            row << QString::fromStdString(fix.acknowledgedBecause);
            acknowledged.push_back(row);
        } else {
            open.push_back(row);
        }
    }
    out.heading(QStringLiteral("To fix (%1)").arg(open.size()), 12);
    if (open.empty())
        out.line(QStringLiteral("Nothing to fix here."));
    else
        out.table({QStringLiteral("Name"), QStringLiteral("ID"), QStringLiteral("Rule"), QStringLiteral("Severity"),
                   QStringLiteral("Message"), QStringLiteral("Source")},
                  open, {15, 26, 14, 9, 24, 12}, {false, false, false, false, false, false}, kIdLines);
    if (!acknowledged.empty()) {
        out.heading(QStringLiteral("Acknowledged warnings (%1)").arg(acknowledged.size()), 12);
        out.table({QStringLiteral("Name"), QStringLiteral("ID"), QStringLiteral("Rule"), QStringLiteral("Message"),
                   QStringLiteral("Source"), QStringLiteral("Acknowledged because")},
                  acknowledged, {12, 26, 14, 18, 12, 18}, {false, false, false, false, false, false}, kIdLines);
    }
}

void writeSchool(ReportWriter &out, const SubmissionReportData &data, const ReportPage &p)
{
    out.heading(QString::fromStdString(p.title), 16);
    out.line(countsText(p));
    out.line(QString());
    out.heading(QStringLiteral("Documents per resource"), 12);
    std::vector<QStringList> rows;
    for (const ReportPage::ResourceLine &r : p.resources)
        rows.push_back({QString::fromStdString(r.resource), QString::number(r.documents),
                        data.lastSubmission.empty() ? QStringLiteral("–") : QString::number(r.changedSince)});
    if (!rows.empty())
        out.table({QStringLiteral("Resource"), QStringLiteral("Documents"), QStringLiteral("Changed since last submission")},
                  rows, {50, 20, 30}, {false, true, true});
    else if (p.referenceTypes == 0)
        out.line(QStringLiteral("No documents stored here yet."));
    if (p.referenceTypes > 0)
        out.line(QStringLiteral("Reference data: %1 value(s) of %2 descriptor and school-year type(s).")
                     .arg(p.referenceValues)
                     .arg(p.referenceTypes));
    out.line(QString());
    out.heading(QStringLiteral("Results by rule"), 12);
    if (p.byRule.empty()) {
        // Results awaiting the state's next run or matching no record are listed, not counted; drafts are no results.
        const bool listed = std::any_of(p.fixes.begin(), p.fixes.end(),
                                        [](const ReportPage::FixLine &fix) { return !fix.draft; });
        out.line(listed ? QStringLiteral("No results standing: see the fix list.")
                        : QStringLiteral("No results: every rule passes here."));
        out.line(QString());
    } else {
        out.legend();
        out.bars(p.byRule, 18);
    }
    writeFixList(out, p);
}

} // namespace

namespace {

// The whole report through one writer: the summary, then each school and the district-wide records.
int layOutReport(ReportWriter &out, const SubmissionReportData &data)
{
    out.section(QStringLiteral("Submission report"));
    writeSummary(out, data);
    for (const ReportPage &p : data.pages) {
        out.section(QString::fromStdString(p.title));
        writeSchool(out, data, p);
    }
    out.finish();
    return out.pages();
}

} // namespace

bool writeSubmissionReportPdf(const SubmissionReportData &data, const QString &path, QString *error, int *pages)
{
    // Written beside the target, owner-only (it names students), and renamed into place when whole.
    QSaveFile file(path);
    if (!openPrivateForWriting(file)) {
        if (error)
            *error = QStringLiteral("%1 cannot be written: %2").arg(path, file.errorString());
        return false;
    }
    QPdfWriter writer(&file);
    writer.setPageSize(QPageSize(QPageSize::Letter));
    writer.setResolution(96);
    writer.setTitle(QStringLiteral("Steward submission report"));
    writer.setCreator(QStringLiteral("Steward"));
    QPainter painter;
    if (!painter.begin(&writer)) {
        if (error)
            *error = QStringLiteral("%1 cannot be written").arg(path);
        return false;
    }
    const QRect area = QRect(QPoint(0, 0), writer.pageLayout().paintRectPixels(writer.resolution()).size())
                           .adjusted(24, 24, -24, -24);
    QString footer = QStringLiteral("Steward · generated %1").arg(QString::fromStdString(data.generatedAt));
    if (!data.lastSubmission.empty())
        footer += QStringLiteral(" · last submission: %1").arg(QString::fromStdString(data.lastSubmission));
    // Laid out twice: the first pass only counts the pages, so every footer can say "page N of M".
    ReportWriter counting(writer, painter, area, footer, 0);
    const int total = layOutReport(counting, data);
    ReportWriter out(writer, painter, area, footer, total);
    const int written = layOutReport(out, data);
    if (pages != nullptr)
        *pages = written;
    if (!painter.end() || !file.commit()) {
        if (error)
            *error = QStringLiteral("%1 could not be finished").arg(path);
        return false;
    }
    return true;
}

} // namespace steward
