#pragma once

// Helpers the benchmark programs share.

#include "Json.h"

#include <QStringList>

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

class QProcess;

using Clock = std::chrono::steady_clock;

// Wall seconds from one point to another.
double seconds(Clock::time_point from, Clock::time_point to);

// User + system CPU seconds so far: of the whole process, or of the calling thread only.
double processCpuSeconds();
double threadCpuSeconds();

// A field of /proc/self/status in MB: "VmHWM:" (peak resident set) or "VmRSS:" (current).
double procStatusMb(const char *field);

// Starts a new peak: freed memory goes back to the system (glibc malloc_trim), then VmHWM drops to
// the current resident set (Linux: "5" to /proc/self/clear_refs), so a phase's own peak can be
// told from an earlier phase's. False where the kernel does not allow it.
bool resetPeakRss();

// The generated district of `students` students (about ten documents each) as NDJSON import lines
// in a file; returns how many documents it holds.
std::int64_t writeDistrictFile(const std::string &path, std::int64_t students);

// writeDistrictFile, then that file imported into a new database with the starter model; returns how
// many documents the file holds.
std::int64_t writeDistrictDatabase(const std::string &ndjsonPath, const std::string &databasePath,
                                   std::int64_t students);

// The made-up state portal's results export that bench_results and bench_schoolyear read. An
// enrollment a row names (entryDate as ISO 8601; the portal writes MM/DD/YYYY).
struct PortalEnrollment
{
    std::string id;
    std::string student;
    std::string school;
    std::string entryDate;
};
void writePortalResultsHeader(std::ostream &csv);
// Row `row` of a file: 70% name the enrollment by natural key (student, campus, entry date), 20% by
// Ed-Fi id, 10% a student the district does not have; levels F, S and W as 2:1:7, 37 rules.
void writePortalResultsRow(std::ostream &csv, std::int64_t row, const PortalEnrollment &enrollment,
                           const std::string &schoolYear);
// How its columns map onto Steward's results (as `steward-cli rules import-results --mapping` reads it).
steward::Json portalResultsMapping();

// Starts `steward-cli serve --port 0` on the database (with more arguments) in the process; returns the
// port it serves on, or 0 (after saying why on stderr) when it did not start.
quint16 startServe(QProcess &process, const QString &cliPath, const std::string &databasePath,
                   const QStringList &arguments = {});
