#pragma once

#include "Engine.h"

#include <istream>
#include <variant>
#include <ostream>
#include <string>

namespace steward {

// The NDJSON carrier: one request object per input line, one response object per output line,
// in order, flushed after each. Returns the number of responses written.
std::size_t runRequestLines(Engine &engine, std::istream &in, std::ostream &out, const std::string &actor);

// One request line to a request, or the 400 response that says what is wrong with it.
std::variant<Request, Response> parseRequestLine(const std::string &line);

} // namespace steward
