#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace steward {

// ASCII letters only, whatever the process locale (Qt applications take the user's): index words,
// ids and keys must not change with it, and std::tolower is a library call per character.
void lowerAsciiInPlace(std::string &text);
std::string lowerAscii(std::string_view text);

// SHA-256 of the bytes, as 64 lower-case hex digits: draft texts, rule packs, batch manifests.
std::string sha256Hex(std::string_view bytes);

// Appends two lower-case hex digits for each byte: ids, etags, query-index words, JSON's \u00XX.
void appendLowerHex(std::string &out, const void *bytes, std::size_t size);
// The number the count ASCII digits at text[at] spell; -1 when one of them is not a digit.
int decimalDigitsAt(std::string_view text, std::size_t at, std::size_t count);
// Whether year-month-day is a day of the Gregorian calendar (29 February only in leap years).
bool isCalendarDay(int year, int month, int day);
// "YYYY-MM-DD" in ASCII digits naming a real day: JSON Schema's 'date' and xs:date without a zone.
bool isIsoDate(std::string_view text);

} // namespace steward
