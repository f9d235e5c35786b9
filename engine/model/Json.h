#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace steward {

// The one JSON type of the project.
using Json = nlohmann::json;

struct JsonParseLimits
{
    std::size_t maxBytes = 8 * 1024 * 1024;
    int maxDepth = 128;
};

struct JsonParseResult
{
    std::optional<Json> value;
    std::string error; // set when value is empty: what is wrong and where
};

// Parses untrusted text: rejects input over the size cap, nesting deeper than the depth cap,
// and invalid UTF-8, with a message that says which limit and where.
JsonParseResult parseJson(std::string_view text, const JsonParseLimits &limits = {});

// Compact, deterministic text of a value (keys sorted, no spaces).
std::string dumpJson(const Json &value);

// A natural key as people read it: "ALG-1 / 255901"; a descriptor as its URI "namespace#codeValue".
std::string naturalKeyText(const Json &identity);
// The same for an identity's JSON text, without building a document from it (dumpJson's text, as
// stored, takes a quick walk; other text is parsed). Text that is not JSON gives "".
std::string naturalKeyOfIdentityText(std::string_view identityText);

} // namespace steward
