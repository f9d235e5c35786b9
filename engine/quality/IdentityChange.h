#pragma once

#include "Engine.h"

#include <string>
#include <utility>
#include <vector>

namespace steward {

// One write of a merge or identity change, as previewed and as applied.
struct IdentityStep
{
    std::string op; // "create", "update" or "delete"
    std::string project;
    std::string resource;
    std::string id;         // the document updated or deleted; empty for a create (its id is new)
    std::string naturalKey; // after the step; for a delete, of the document deleted
    std::vector<std::string> fields; // what changed: "studentReference.studentUniqueId"
    std::string why;                 // "replaces 604822", "merged into 255901 / 2024-08-20 / 604823"

    bool operator==(const IdentityStep &other) const = default;
    Json toJson() const;
    std::string describe() const; // "update StudentSchoolAssociation 255901 / ... (studentReference.studentUniqueId): why"
};

struct IdentityChangeResult
{
    bool ok = false;
    bool applied = false; // committed; false for a preview or a failure (nothing written either way)
    std::string error;    // what stopped it, naming the document and the step
    Json problem;         // the engine's answer to the step that failed, when one did
    std::vector<IdentityStep> steps; // the plan (preview), or what was written; on failure, up to the failing step
    std::string resultId; // the document that carries the identity afterwards (the kept one for a merge)
    std::int64_t opId = 0; // the journal's operation once applied (undone like any journaled edit)

    Json toJson() const;
};

// Changes a document's identity values. assignments name identity fields by their last name
// ("studentUniqueId", "entryDate") or their path ("schoolReference.schoolId"); a name matching several
// identity paths sets them all (they are equal by constraint). The text is read as the stored value's
// type. Where the resource allows identity updates this is a PUT (the engine cascades to referrers);
// otherwise the new document is created, every referrer moved to it (a reference inside a referrer's
// identity changes that referrer's identity the same way, recursively; a referrer whose new identity is
// already taken is merged into that one), and the old document deleted. Refused when the new identity
// exists. All in one transaction through Engine::handle; apply = false rolls it back (the preview).
// expected: the steps of the preview the user confirmed; apply refuses (nothing written) if they differ.
IdentityChangeResult changeIdentity(Engine &engine, const std::string &id,
                                    const std::vector<std::pair<std::string, std::string>> &assignments, bool apply,
                                    const std::vector<IdentityStep> *expected = nullptr, const std::string &actor = {});

// Merges drop into keep (same resource): every referrer of drop is moved to keep's identity as above,
// then drop is deleted. Identity change into an existing document, with the same planner.
IdentityChangeResult mergeDocuments(Engine &engine, const std::string &keepId, const std::string &dropId, bool apply,
                                    const std::vector<IdentityStep> *expected = nullptr, const std::string &actor = {});

// Moves every reference to fromId over to toId (same resource): the referrers are rewritten through the
// same planner as a merge (referrers whose identity holds the reference are re-created, or merged into
// an equal one). fromId stays, referenced by nothing, unless deleteAfter: then it is deleted last.
IdentityChangeResult repointReferences(Engine &engine, const std::string &fromId, const std::string &toId,
                                       bool deleteAfter, bool apply, const std::vector<IdentityStep> *expected = nullptr,
                                       const std::string &actor = {});

// The identity fields of a resource as changeIdentity names them ("entryDate", "schoolReference.schoolId").
std::vector<std::string> identityFieldNames(const ResourceSchema &resource);

} // namespace steward
