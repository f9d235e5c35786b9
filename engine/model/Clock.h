#pragma once

#include <QDateTime>

#include <chrono>
#include <string>

namespace steward {

// The engine's "now": the system's time in UTC, moved by a shift that a simulation sets when it runs
// a calendar of its own (a benchmark's school year, a test of what the journal keeps after 30 days).
// Every time the engine records (a document's last modification, the change log, the journal, rule
// runs, results, exports) is read here, so the undo retention's days are the calendar's days.
// Waiting (a server's Retry-After) and sync's bookkeeping of its last pull and push (SQLite's own
// 'now') stay on the system's clock.
QDateTime engineNow();
// engineNow() as ISO 8601 to the second: "2025-01-31T12:00:00Z".
std::string engineNowText();

// Process-wide; zero (the default) is the system's time. Safe to call from any thread.
void setEngineClockShift(std::chrono::seconds shift);
std::chrono::seconds engineClockShift();

} // namespace steward
