#pragma once

#include "ApiSchema.h"
#include "Protocol.h"

#include <string>

namespace steward {

// What the data-quality operations share about the requests they send through Engine::handle.
bool succeeded(const Response &response);
// "detail ($.a: message; $.b: message)": a problem as one line for tables and refusals.
std::string problemSummary(const Json &problem);
// "/ed-fi/schools/<id>"
std::string requestPath(const ResourceSchema &resource, const std::string &id);
// Now in UTC, as the journal records times.
std::string nowUtcText();

} // namespace steward
