#pragma once

#include "Json.h"

#include <string>

namespace steward {

// The words "find anything" looks a document up by: its identifying and name-like values (ids,
// codes, names, titles, e-mail addresses), at the top level and in its own lists (identification
// codes), not inside references (a Section is not found by its School's id, the School is).
// Depends on the body alone, not on the model, so stored terms never go stale when a model changes.
// Space-separated; empty when the document has none.
std::string searchTermsOf(const Json &body);

// The FTS5 query for what a steward typed: every word of two characters or more, each as a prefix,
// all required ("nguy 2559" -> "nguy"* AND "2559"*; "o'brien" -> "o" is too short, "brien"*). Empty
// when no word is long enough. Nothing typed is read as FTS5 syntax.
std::string searchMatchExpression(const std::string &typed);

} // namespace steward
