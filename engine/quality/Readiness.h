#pragma once

#include "ApiSchema.h"
#include "Json.h"

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <string>
#include <vector>

namespace steward {

// Where each sync target's push has got to in the change log.
struct ReadinessTarget
{
    std::int64_t targetId = 0;
    std::string url;
    std::string client;
    std::int64_t pushCursor = 0;
    std::int64_t conflicts = 0; // open sync conflicts with this target, in the scope
};

struct ResourceReadiness
{
    std::string project;
    std::string resource;
    std::int64_t documents = 0;
    std::int64_t drafts = 0;
    // Results of Steward's rules and of imported sources (the state's), on stored documents. An
    // imported result whose document changed after the source's run waits for the next submission
    // to clear it and is counted in awaitingResubmit only.
    std::int64_t fatal = 0;
    std::int64_t error = 0;
    std::int64_t warning = 0;
    std::int64_t info = 0;
    std::int64_t acknowledged = 0; // of the warnings: acknowledged with a reason, so they do not block
    std::int64_t awaitingResubmit = 0;
    // Documents (deleted ones included) whose last change came after the newest export's seq_to.
    std::int64_t changesNotExported = 0;
    // Per ReadinessReport::targets, in the same order: documents changed after that target's
    // push cursor (what a pull from the target wrote is not counted, as a push leaves it out).
    std::vector<std::int64_t> changesNotSynced;
    // Open sync conflicts (with any target): documents changed on both sides that wait for a person.
    std::int64_t conflicts = 0;
};

struct ReadinessReport
{
    std::vector<ResourceReadiness> resources; // sorted by project, then resource
    std::vector<ReadinessTarget> targets;
    bool exported = false;        // whether any batch was ever exported
    std::int64_t exportedUpTo = 0; // the newest batch's seq_to
    std::vector<std::string> scope; // "Project/Resource" names given; empty: everything
    // Ready to submit: no drafts, no fatal or error results, no warning left unacknowledged and no
    // open sync conflicts in the scope.
    bool ready = true;
    std::vector<std::string> reasons; // "12 drafts in Student", "3 fatal results in StudentSchoolAssociation"
    std::int64_t unmatchedImported = 0; // imported results that match no stored document (they do not block)

    std::string verdictText() const; // "Ready to submit" or "Not ready: <reasons>"
    Json toJson() const;
};

// The readiness scope: every resource each name answers to (as export's --resource reads names);
// returns false with the unknown name in error.
bool readinessScope(const Model &model, const std::vector<std::string> &names,
                    std::vector<const ResourceSchema *> &scope, std::string &error);

// Reads counts in one read transaction; any connection will do (a read-only one on a worker thread).
// An empty scope means every resource; resources outside the scope are left out of the report. A
// resource named in the scope is listed even when it has nothing.
ReadinessReport computeReadiness(SQLite::Database &db, const std::vector<const ResourceSchema *> &scope = {});

} // namespace steward
