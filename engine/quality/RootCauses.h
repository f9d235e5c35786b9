#pragma once

#include "EditDistance.h"

#include "ApiSchema.h"
#include "Json.h"

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace steward {

// A stored descriptor value close to an unknown one, and why it was picked.
struct DescriptorSuggestion
{
    std::string uri; // "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade", as stored
    std::string namespaceText;
    std::string codeValue;
    int closeness = 0; // 0: differs only in case, 1: also spacing, 2: also punctuation, 3: edit distance
    int distance = 0;  // Levenshtein distance (code value + namespace), ignoring case
    std::string reason; // "differs only in case", "edit distance 2"
};

struct CauseResourceCount
{
    std::string project;
    std::string resource;
    std::int64_t drafts = 0;
};

// One reason drafts cannot be stored, with every draft it holds back.
struct RootCause
{
    enum class Kind
    {
        MissingDocument,   // a referenced document that neither exists nor is a draft
        UnknownDescriptor, // a descriptor value that is not stored
        DraftProblem,      // drafts that fail for a reason of their own (schema, invalid JSON, conflicts)
        ReferenceCycle,    // drafts that only wait for each other
    };

    Kind kind = Kind::DraftProblem;
    std::string key; // stable: the referential name, or resource + problem
    // MissingDocument: the referenced resource (the most specific one any draft names, School rather
    // than EducationOrganization); UnknownDescriptor: the descriptor; DraftProblem / ReferenceCycle:
    // the drafts' resource.
    std::string project;
    std::string resource;
    std::string naturalKey; // "255901044", the descriptor URI as first typed; empty for a draft problem
    Json identity;          // MissingDocument: the identity shaped like the document ({"schoolId": 255901044})
    std::string problem;    // DraftProblem: "schema", "invalid-json", "unknown-resource", "passes-now",
                         // "refused" (another stored problem: an identity conflict, a PUT target gone)
    std::string problemType; // DraftProblem: the problem-details type the drafts carry, when there is one
    std::string detail;     // "$.birthDate", the problem's title, ...
    std::int64_t direct = 0;  // drafts that point at it (or have the problem) themselves
    std::int64_t blocked = 0; // direct + every draft that waits on one of those, through drafts, once each
    std::vector<CauseResourceCount> resources; // blocked drafts per resource, most first
    std::vector<std::int64_t> directDraftIds;  // ascending
    std::vector<std::int64_t> blockedDraftIds; // every draft counted in blocked, ascending
    std::vector<DescriptorSuggestion> suggestions; // UnknownDescriptor: the closest stored values, best first
    int loadRank = 0; // load-order rank of the root's resource (an abstract one: its earliest subclass)

    std::string kindName() const; // "missing-document", "unknown-descriptor", "draft-problem", "reference-cycle"
    Json toJson() const;
};

struct RootCauseReport
{
    std::int64_t drafts = 0; // drafts read
    std::vector<RootCause> causes; // ranked: most blocked first
    bool cancelled = false;

    // The causes in the order a steward fixes them: the root's load-order rank, then most blocked.
    std::vector<const RootCause *> fixList() const;
    // {"drafts": n, "causeCount": n, "causes": [...ranked...]}; limit > 0 keeps the first causes only.
    Json toJson(std::size_t limit = 0) const;
};

// Groups every draft by what really holds it back. Reads the drafts, aliases and descriptors in one
// read transaction on the given connection (a read-only one works, so the app runs it on a worker
// thread). Each draft's references and descriptor values come from the model; those not stored
// either match another draft's identity (the draft waits on that draft) or are root causes; a draft
// with a problem of its own is a root cause of its own. Blocked counts follow the draft-to-draft
// edges transitively, each draft once per cause, and cycles end. progress() may return false to stop.
RootCauseReport findRootCauses(const Model &model, SQLite::Database &db,
                               const std::function<bool(std::int64_t done, std::int64_t total)> &progress = {});

// The closest stored values of a descriptor for an unknown one: same value ignoring case, spacing
// and punctuation first, then the smallest edit distance on code value and namespace; at most
// `limit`, only those within reach (about half the code value's length).
std::vector<DescriptorSuggestion> suggestDescriptorValues(const std::string &unknownUri,
                                                          const std::vector<std::string> &storedUris,
                                                          std::size_t limit = 3);


} // namespace steward
