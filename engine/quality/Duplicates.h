#pragma once

#include "EditDistance.h"

#include "ApiSchema.h"
#include "Database.h"
#include "Json.h"

#include <string>
#include <vector>

namespace steward {

// Two people (Students or Staff) born the same day whose names are nearly the same.
struct DuplicateCandidate
{
    std::string project;
    std::string resource;   // "Student" or "Staff"
    std::string leftId;     // the older document (lower doc_key) on the left
    std::string rightId;
    std::string leftKey;    // natural keys: the unique ids
    std::string rightKey;
    std::string leftName;   // "Ana María Pérez" as stored
    std::string rightName;
    std::string birthDate;
    int distance = 0;       // edit distance between the normalized names
    bool swapped = false;   // first and last name swapped

    Json toJson() const;
};

// "José  Pérez-Núñez" → "jose pereznunez": case folded, accents and punctuation dropped, spaces collapsed.
std::string normalizedName(const std::string &name);

// Candidates among the resources named (resource names; default Student and Staff): documents with
// the same birthDate, compared only within that date (so the work grows with people per day, not
// squared over everyone), whose normalized "first last" names are within edit distance 2 of each
// other or of the swapped order; pairs marked distinct are left out. One read transaction on any
// connection.
std::vector<DuplicateCandidate> findDuplicateCandidates(SQLite::Database &db, const Model &model,
                                                         const std::vector<std::string> &resources = {});

// Records that the two documents are different people; both must exist and be of one resource.
// Throws StorageError naming what is wrong (unknown id, different resources, the same id).
void markDistinct(Database &database, const std::string &firstId, const std::string &secondId,
                  const std::string &actor);

} // namespace steward
