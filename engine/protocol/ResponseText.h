#pragma once

#include "Protocol.h"

#include <string>

namespace steward {

// What the operations that send requests through Engine::handle (data quality, sync) share about
// the answers: whether one went through, and a problem as one line for tables and refusals.
bool succeeded(const Response &response);
// "detail (path: message; path: message)"; empty for a body that is no problem.
std::string problemSummary(const Json &problem);

// A problem type (urn:ed-fi:api:...) as a sentence a steward reads, and what to do about it; an
// unknown type reads as itself with no advice.
std::string problemTypeTitle(const std::string &type);
std::string problemTypeFix(const std::string &type);

} // namespace steward
