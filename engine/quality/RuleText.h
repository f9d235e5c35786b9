#pragma once

#include <string>
#include <vector>

// Text the rule pack and its runner both write into SQL and messages (Rules.cpp).
namespace steward {

// 'text' as an SQL string literal, and "name" as an SQL identifier, quotes doubled.
std::string sqlText(const std::string &text);
std::string sqlName(const std::string &name);
// The names a rule's message refers to: "{entryDate}" → entryDate.
std::vector<std::string> placeholders(const std::string &message);

} // namespace steward
