#pragma once

#include "Json.h"
#include "SubmissionReport.h"

#include <SQLiteCpp/Database.h>

#include <set>
#include <string>
#include <vector>

namespace steward {

// A record's identifying values made short enough for a column of the report, each named by what it
// is: "student 604822 · school 255901001 · 2024-08-23" (people first, then schools, other named values,
// the rest, dates last). A descriptor is its code value.
std::string compactKey(const Json &identity);

// A draft on the report: the school it names (empty: district-wide) and its line to fix.
struct ReportDraft
{
    std::string school;
    std::string schoolName; // a School draft's nameOfInstitution: the title of a page no stored school has
    ReportPage::FixLine line;
};

// Every draft as a line to fix, placed on the school its body names: a School's own schoolId, else
// the first school reference (schoolReference, courseOfferingReference, sectionReference,
// sessionReference), else an education organization that is one of knownSchools.
std::vector<ReportDraft> readReportDrafts(SQLite::Database &db, const std::set<std::string> &knownSchools);

} // namespace steward
