#pragma once

#include "Protocol.h"

#include <string>

namespace steward {

// What the operations that send requests through Engine::handle (data quality, sync) share about
// the answers: whether one went through, and a problem as one line for tables and refusals.
bool succeeded(const Response &response);
// "detail (path: message; path: message)"; empty for a body that is no problem.
std::string problemSummary(const Json &problem);

} // namespace steward
