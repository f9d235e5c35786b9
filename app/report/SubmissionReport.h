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
    struct RuleLine
    {
        std::string ruleId;
        std::string severity;
        std::int64_t count = 0;
    };
    std::vector<RuleLine> byRule; // most results first
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

// Writes the report as a PDF with Qt's PDF writer: a summary page, then one page per school.
// Needs a QGuiApplication (fonts). False with error set when the file cannot be written.
bool writeSubmissionReportPdf(const SubmissionReportData &data, const QString &path, QString *error);

} // namespace steward
