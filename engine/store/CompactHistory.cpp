#include "CompactHistory.h"

#include "BodyCodec.h"

#include <sqlite3.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace steward {

namespace {

// What the functions share: the dictionaries, read when first needed (a new database has no
// body_dictionaries table yet, and no journal to compact).
struct Compaction
{
    SQLite::Database &db;
    std::unique_ptr<BodyCodec> codec;
};

std::string_view compactTextOf(sqlite3_value *value)
{
    const auto *text = reinterpret_cast<const char *>(sqlite3_value_text(value));
    return {text ? text : "", static_cast<std::size_t>(sqlite3_value_bytes(value))};
}

void compactFunction(sqlite3_context *context, int, sqlite3_value **argv)
{
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT || sqlite3_value_bytes(argv[0]) == 0) {
        sqlite3_result_value(context, argv[0]);
        return;
    }
    auto *compaction = static_cast<Compaction *>(sqlite3_user_data(context));
    try {
        const std::string project(compactTextOf(argv[1]));
        if (!project.empty() && !compaction->codec)
            compaction->codec = std::make_unique<BodyCodec>(compaction->db);
        const std::optional<std::string> frame = BodyCodec::frameIfSmaller(
            compaction->codec.get(), project, std::string(compactTextOf(argv[2])), compactTextOf(argv[0]));
        if (frame)
            sqlite3_result_blob64(context, frame->data(), frame->size(), SQLITE_TRANSIENT);
        else
            sqlite3_result_value(context, argv[0]);
    } catch (const std::exception &e) {
        sqlite3_result_error(context, e.what(), -1);
    }
}

void journalBeforeFunction(sqlite3_context *context, int, sqlite3_value **argv)
{
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT || sqlite3_value_type(argv[1]) != SQLITE_TEXT
        || sqlite3_value_bytes(argv[0]) == 0 || sqlite3_value_bytes(argv[1]) == 0) {
        sqlite3_result_value(context, argv[0]);
        return;
    }
    try {
        const std::optional<std::string> delta =
            BodyCodec::deltaIfSmaller(compactTextOf(argv[0]), compactTextOf(argv[1]));
        if (delta)
            sqlite3_result_blob64(context, delta->data(), delta->size(), SQLITE_TRANSIENT);
        else
            sqlite3_result_value(context, argv[0]);
    } catch (const std::exception &e) {
        sqlite3_result_error(context, e.what(), -1);
    }
}

} // namespace

CompactionFunctions::CompactionFunctions(SQLite::Database &db)
    : m_db(db)
{
    auto *compaction = new Compaction{db, nullptr};
    sqlite3_create_function_v2(db.getHandle(), "steward_compact", 3, SQLITE_UTF8, compaction, compactFunction,
                               nullptr, nullptr, [](void *data) { delete static_cast<Compaction *>(data); });
    sqlite3_create_function_v2(db.getHandle(), "steward_journal_before", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                               nullptr, journalBeforeFunction, nullptr, nullptr, nullptr);
}

CompactionFunctions::~CompactionFunctions()
{
    // Removing them frees what they read with: a connection keeps no migration's functions.
    sqlite3_create_function_v2(m_db.getHandle(), "steward_compact", 3, SQLITE_UTF8, nullptr, nullptr, nullptr,
                               nullptr, nullptr);
    sqlite3_create_function_v2(m_db.getHandle(), "steward_journal_before", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                               nullptr, nullptr, nullptr, nullptr, nullptr);
}

} // namespace steward
