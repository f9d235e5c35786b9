#pragma once

#include <string>

namespace steward {

// Levenshtein distance counted in Unicode code points ("zoë" and "zoe" are one apart), for
// near-duplicate names and descriptor suggestions. Stops counting above limit (returns limit + 1).
int editDistance(const std::string &a, const std::string &b, int limit = 1 << 20);

} // namespace steward
