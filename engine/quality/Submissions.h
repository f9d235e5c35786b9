#pragma once

#include "Database.h"
#include "Json.h"

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace steward {

// A sign-off that cannot be recorded: no such batch or target, no name given.
class SubmissionError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// What went out and who vouched for it: an exported batch (its manifest's SHA-256) or a push to a
// target (the change-log range it carried), the readiness verdict at the moment of sign-off and
// the warnings acknowledged then.
struct Submission
{
    std::int64_t id = 0;
    std::string kind; // "export" or "push"
    Json what;        // export: {"batch", "manifestSha256", "outDir"}; push: {"target", "client"}
    std::int64_t seqFrom = 0; // the change-log range it carried, both ends included
    std::int64_t seqTo = 0;
    Json verdict;      // the readiness report then (ReadinessReport::toJson)
    Json acknowledged; // the acknowledgements then
    std::string signedBy;
    std::string signedAt;
    std::string note;

    std::string summary() const; // "export of batch 20261128-0001 (changes 1-310), signed off by A. Steward"
    Json toJson() const;
};

// Records the sign-off of an exported batch (empty batchId: the newest) in one BEGIN IMMEDIATE.
Submission signOffExport(Database &database, const std::string &batchId, const std::string &signedBy,
                         const std::string &note);
// Records the sign-off of what was pushed to a sync target (empty url: the one target there is):
// the changes after the previous push sign-off for it up to its push cursor.
Submission signOffPush(Database &database, const std::string &targetUrl, const std::string &signedBy,
                       const std::string &note);

// Newest first; any connection.
std::vector<Submission> submissions(SQLite::Database &db, int limit = 0);

struct SubmissionStatus
{
    std::optional<Submission> last;
    // Documents changed after the last submission's range, per resource ("Project/Resource").
    std::vector<std::pair<std::string, std::int64_t>> changedSince;
    std::int64_t changedTotal = 0;

    Json toJson() const;
};
SubmissionStatus submissionStatus(SQLite::Database &db);

} // namespace steward
