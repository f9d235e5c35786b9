#include "StoredForms.h"

#include "Identity.h"
#include "Text.h"

#include <sqlite3.h>

#include <cstdio>
#include <cstring>

namespace steward {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t daysOfDate(std::int64_t year, unsigned month, unsigned day)
{
    year -= month <= 2;
    const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
    const auto yearOfEra = static_cast<unsigned>(year - era * 400);
    const unsigned dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const unsigned dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146097 + static_cast<std::int64_t>(dayOfEra) - 719468;
}

void resultStoredOrSame(sqlite3_context *context, sqlite3_value *value, const void *bytes, int size)
{
    if (bytes)
        sqlite3_result_blob(context, bytes, size, SQLITE_TRANSIENT);
    else
        sqlite3_result_value(context, value);
}

std::string_view textOf(sqlite3_value *value)
{
    return {reinterpret_cast<const char *>(sqlite3_value_text(value)),
            static_cast<std::size_t>(sqlite3_value_bytes(value))};
}

void idKey(sqlite3_context *context, int, sqlite3_value **argv)
{
    std::optional<Uuid> id;
    if (sqlite3_value_type(argv[0]) == SQLITE_TEXT)
        id = Uuid::parseCanonical(textOf(argv[0]));
    resultStoredOrSame(context, argv[0], id ? id->bytes.data() : nullptr, 16);
}

void idText(sqlite3_context *context, int, sqlite3_value **argv)
{
    Uuid id;
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB
        || sqlite3_value_bytes(argv[0]) != static_cast<int>(id.bytes.size())) {
        sqlite3_result_value(context, argv[0]);
        return;
    }
    std::memcpy(id.bytes.data(), sqlite3_value_blob(argv[0]), id.bytes.size());
    const std::string text = id.toString();
    sqlite3_result_text(context, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

void timeKey(sqlite3_context *context, int, sqlite3_value **argv)
{
    if (sqlite3_value_type(argv[0]) == SQLITE_TEXT) {
        if (const std::optional<std::int64_t> seconds = secondsOfUtcText(textOf(argv[0]))) {
            sqlite3_result_int64(context, *seconds);
            return;
        }
    }
    sqlite3_result_value(context, argv[0]);
}

void timeText(sqlite3_context *context, int, sqlite3_value **argv)
{
    if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
        sqlite3_result_value(context, argv[0]);
        return;
    }
    const std::string text = utcTextOfSeconds(sqlite3_value_int64(argv[0]));
    sqlite3_result_text(context, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

void hexKey(sqlite3_context *context, int, sqlite3_value **argv)
{
    std::optional<std::string> bytes;
    if (sqlite3_value_type(argv[0]) == SQLITE_TEXT)
        bytes = bytesOfLowerHex(textOf(argv[0]));
    resultStoredOrSame(context, argv[0], bytes ? bytes->data() : nullptr, bytes ? static_cast<int>(bytes->size()) : 0);
}

void hexText(sqlite3_context *context, int, sqlite3_value **argv)
{
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
        sqlite3_result_value(context, argv[0]);
        return;
    }
    std::string text;
    appendLowerHex(text, sqlite3_value_blob(argv[0]), static_cast<std::size_t>(sqlite3_value_bytes(argv[0])));
    sqlite3_result_text(context, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

} // namespace

std::optional<std::int64_t> secondsOfUtcText(std::string_view text)
{
    // 2026-11-27T10:42:53Z
    if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':'
        || text[19] != 'Z')
        return std::nullopt;
    const int year = decimalDigitsAt(text, 0, 4);
    const int month = decimalDigitsAt(text, 5, 2);
    const int day = decimalDigitsAt(text, 8, 2);
    const int hour = decimalDigitsAt(text, 11, 2);
    const int minute = decimalDigitsAt(text, 14, 2);
    const int second = decimalDigitsAt(text, 17, 2);
    // 31 February and the like would come back as another day: kept as text. (Checked here, not
    // by writing the seconds back as text: that was a formatted print for every document stored.)
    if (year < 0 || !isCalendarDay(year, month, day) || hour < 0 || hour > 23 || minute < 0 || minute > 59
        || second < 0 || second > 59)
        return std::nullopt;
    return daysOfDate(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 + hour * 3600
           + minute * 60 + second;
}

std::string utcTextOfSeconds(std::int64_t seconds)
{
    std::int64_t days = seconds / 86400;
    std::int64_t within = seconds % 86400;
    if (within < 0) {
        within += 86400;
        --days;
    }
    // H. Hinnant's civil_from_days.
    days += 719468;
    const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    const auto dayOfEra = static_cast<unsigned>(days - era * 146097);
    const unsigned yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
    const unsigned dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    const unsigned shiftedMonth = (5 * dayOfYear + 2) / 153;
    const unsigned day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1;
    const unsigned month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
    const std::int64_t year = static_cast<std::int64_t>(yearOfEra) + era * 400 + (month <= 2);
    char text[40];
    std::snprintf(text, sizeof text, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ", static_cast<long long>(year), month, day,
                  static_cast<long long>(within / 3600), static_cast<long long>(within / 60 % 60),
                  static_cast<long long>(within % 60));
    return text;
}

std::optional<std::string> bytesOfLowerHex(std::string_view text)
{
    if (text.empty() || text.size() % 2 != 0 || text.size() > 64)
        return std::nullopt;
    std::string bytes(text.size() / 2, '\0');
    for (std::size_t i = 0; i < text.size(); ++i) {
        // Upper case would not come back as it was.
        const int value = text[i] >= 'A' && text[i] <= 'F' ? -1 : hexDigitValue(text[i]);
        if (value < 0)
            return std::nullopt;
        bytes[i / 2] = static_cast<char>(i % 2 == 0 ? value << 4 : (static_cast<unsigned char>(bytes[i / 2]) | value));
    }
    return bytes;
}

void bindStoredId(SQLite::Statement &s, int index, const std::string &id)
{
    if (const std::optional<Uuid> bytes = Uuid::parseCanonical(id))
        s.bind(index, bytes->bytes.data(), static_cast<int>(bytes->bytes.size()));
    else
        s.bindNoCopy(index, id); // the text outlives exec()
}

void bindStoredTime(SQLite::Statement &s, int index, const std::string &time)
{
    if (const std::optional<std::int64_t> seconds = secondsOfUtcText(time))
        s.bind(index, *seconds);
    else
        s.bindNoCopy(index, time);
}

void bindStoredHex(SQLite::Statement &s, int index, const std::string &hex)
{
    if (const std::optional<std::string> bytes = bytesOfLowerHex(hex))
        s.bind(index, bytes->data(), static_cast<int>(bytes->size()));
    else
        s.bindNoCopy(index, hex);
}

void registerStoredFormFunctions(SQLite::Database &db)
{
    struct Function
    {
        const char *name;
        void (*call)(sqlite3_context *, int, sqlite3_value **);
    };
    static const Function functions[] = {
        {"steward_id_key", idKey},     {"steward_id_text", idText},   {"steward_time_key", timeKey},
        {"steward_time_text", timeText}, {"steward_hex_key", hexKey}, {"steward_hex_text", hexText},
    };
    for (const Function &function : functions)
        sqlite3_create_function(db.getHandle(), function.name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr,
                                function.call, nullptr, nullptr);
}

} // namespace steward
