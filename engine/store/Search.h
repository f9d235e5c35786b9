#pragma once

#include <SQLiteCpp/Database.h>

#include <string>
#include <vector>

namespace steward {

// A document found by what a steward typed, with what to show for it.
struct SearchHit
{
    std::string id;
    std::string project;
    std::string resource;
    std::string naturalKey;
    std::string terms; // the values it was found by (engine/model/SearchTerms)
};

// Documents whose identifying or name-like values start with every word typed (two characters or
// more each), across all resources: those with a value equal to a word typed first, then the rest in
// the order they were stored. Reads search_index on any connection (a read-only one on a worker
// thread); at most `limit` hits, none for a text with no word long enough.
std::vector<SearchHit> searchDocuments(SQLite::Database &db, const std::string &typed, int limit);

} // namespace steward
