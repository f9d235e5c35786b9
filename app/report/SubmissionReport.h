#pragma once

#include <SQLiteCpp/Database.h>

#include <QString>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace steward {

// What one page of the submission report shows: a school (or the district-wide records: students,
// staff, descriptors), its documents per resource, its results by severity and by rule, what changed
// since the last submission. Gathered in one read transaction on any connection.
struct ReportPage
{
    std::string schoolId; // empty: district-wide
    std::string title;    // "Grand Bend High School (255901001)" or "District-wide records"
    struct ResourceLine
    {
        std::string resource;
        std::int64_t documents = 0;
        std::int64_t changedSince = 0; // documents changed after the last submission
    };
    std::vector<ResourceLine> resources;
    std::map<std::string, std::int64_t> bySeverity; // fatal, error, warning, info
    std::int64_t acknowledged = 0;
    std::int64_t drafts = 0; // drafts that name this school (district-wide: those naming none)
    struct RuleLine
    {
        std::string ruleId;
        std::string severity;
        std::int64_t count = 0;
    };
    std::vector<RuleLine> byRule; // most results first
    // Descriptors and school years: one summary line, not a row per type.
    std::int64_t referenceValues = 0;
    std::int64_t referenceTypes = 0;
    // What to fix: one line per failing record and rule, most severe first; acknowledged ones apart.
    struct FixLine
    {
        std::string name;       // the student's or staff member's name, a course's title, ...
        std::string naturalKey; // its identifying values, short: "student 604822 · school 255901001 · 2024-08-23"
        std::string resource;   // "Student"
        std::string ruleId;
        std::string severity;
        std::string message;
        std::string source;     // "Steward (starter-pack)" or "state file tsds.csv, row 7"
        bool changedSince = false; // the record changed after the state's run (awaiting resubmission)
        std::string note;          // "the state's file names campus 255901044; enrolled at 255901001"
        bool acknowledged = false;
        std::string acknowledgedBecause; // "Retained on purpose — A. Steward, 2026-11-28"
        bool draft = false; // input that could not be stored (listed first: nothing else about it counts yet)
    };
    std::vector<FixLine> fixes;
};

struct SubmissionReportData
{
    std::string generatedAt;
    std::string verdict;   // the readiness verdict now
    std::string lastSubmission; // its summary, or empty
    std::string lastVerdict;    // the verdict at its sign-off
    std::int64_t lastAcknowledged = 0;
    std::vector<ReportPage> pages; // schools by id, then district-wide
};

SubmissionReportData gatherSubmissionReport(SQLite::Database &db);

// Writes the report as a PDF with Qt's PDF writer: a summary, then each school (and the district-wide
// records) from a new page; a table that runs out continues on the next page under its header again,
// long text wraps. Needs a QGuiApplication (fonts). False with error set when the file cannot be
// written; *pages, when given, is the number of pages written.
bool writeSubmissionReportPdf(const SubmissionReportData &data, const QString &path, QString *error,
                              int *pages = nullptr);

// Every school's fix list as one table (school, name, id, resource, rule, severity, message, source,
// changed since, note, acknowledged), for writeCsv / writeXlsx.
struct FixListTable
{
    std::vector<std::string> headers;
    std::vector<std::vector<std::string>> rows;
};
FixListTable fixListTable(const SubmissionReportData &data);

} // namespace steward
