#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace steward {

// The compact forms document_rows and change_rows keep values in, each of which gives its text
// back exactly; text in any other form is kept as it is. Ids in the form Steward makes are their
// 16 bytes (schema 22); times "2026-11-27T10:42:53Z" are seconds since 1970 (schema 23); etags,
// lower-case hexadecimal, are their bytes (schema 23). Readers see text through the views.

// Seconds since 1970 of a UTC time written exactly as Qt::ISODate writes one ("...T...Z", whole seconds).
std::optional<std::int64_t> secondsOfUtcText(std::string_view text);
std::string utcTextOfSeconds(std::int64_t seconds);
// The bytes of lower-case hexadecimal text (an even number of digits, at most 64).
std::optional<std::string> bytesOfLowerHex(std::string_view text);

// Binds text in its stored form.
void bindStoredId(SQLite::Statement &s, int index, const std::string &id);
void bindStoredTime(SQLite::Statement &s, int index, const std::string &time);
void bindStoredHex(SQLite::Statement &s, int index, const std::string &hex);

// steward_id_key/steward_id_text, steward_time_key/steward_time_text, steward_hex_key/steward_hex_text:
// text to its stored form and back, for the views, the migrations and lookups (WHERE id_key = steward_id_key(?)).
void registerStoredFormFunctions(SQLite::Database &db);

} // namespace steward
