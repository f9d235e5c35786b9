#pragma once

#include <string>
#include <string_view>

namespace steward {

// ASCII letters only, whatever the process locale (Qt applications take the user's): index words,
// ids and keys must not change with it, and std::tolower is a library call per character.
void lowerAsciiInPlace(std::string &text);
std::string lowerAscii(std::string_view text);

} // namespace steward
