#include "Cli.h"
#include "CommandLine.h"
#include "Generator.h"
#include "ImportSource.h"
#include "PrivateFiles.h"

#include <QSaveFile>
#include <QString>

#include <charconv>
#include <cstdio>
#include <iostream>
#include <limits>

using namespace steward;

namespace {

constexpr std::int64_t kMaxScale = 10'000'000; // the generator's own limit
constexpr std::size_t kFlushBytes = 1 << 20;

const char *const kGenerateHelp =
    "Usage: steward-cli generate [--scale N] [--seed S] [--out FILE|-]\n"
    "\n"
    "Writes a made-up but realistic school district for the starter model as NDJSON, one document\n"
    "a line: {\"resource\":\"ed-fi/schools\",\"body\":{...}}. Lines come in load order (descriptors,\n"
    "school years, agencies, schools, calendars, grading periods, sessions, class periods, rooms,\n"
    "courses, offerings, sections, staff, students, enrollments), so every reference points at a\n"
    "document on an earlier line. The same options always write the same bytes.\n"
    "\n"
    "  --scale N   students, 1 to 10000000 (default 100). Everything else follows: a school per\n"
    "              ~750 students, a staff member per ~15, sections of at most 24; about 11\n"
    "              documents per student in all.\n"
    "  --seed S    random seed, 0 to 4294967295 (default 2026)\n"
    "  --out FILE  the file to write, replaced only once complete; '-' or absent: standard output\n"
    "\n"
    "Example: steward-cli generate --scale 1000 --seed 7 --out district.ndjson\n"
    "         steward-cli --db district.db import district.ndjson\n";

bool parseInteger(const std::string &text, std::int64_t low, std::int64_t high, std::int64_t &value)
{
    const char *first = text.data();
    const char *last = first + text.size();
    const std::from_chars_result result = std::from_chars(first, last, value);
    return !text.empty() && result.ec == std::errc() && result.ptr == last && value >= low && value <= high;
}

// Thrown from the emit callback to stop generating once the output cannot be written.
struct WriteFailed
{
    std::string message;
};

} // namespace

int commandGenerate(const CliContext &, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << kGenerateHelp;
        return kExitOk;
    }
    GeneratorOptions options;
    std::string outPath = "-";
    auto scale = [&options](const std::string &value) {
        if (parseInteger(value, 1, kMaxScale, options.students))
            return std::string();
        return "--scale must be a whole number of students from 1 to " + std::to_string(kMaxScale) + ", not '" + value
               + "'";
    };
    auto seed = [&options](const std::string &value) {
        std::int64_t seed = 0;
        if (!parseInteger(value, 0, std::numeric_limits<std::uint32_t>::max(), seed))
            return "--seed must be a whole number from 0 to 4294967295, not '" + value + "'";
        options.seed = static_cast<std::uint32_t>(seed);
        return std::string();
    };
    if (!CommandLine("generate")
             .value("--scale", scale)
             .value("--seed", seed)
             .text("--out", outPath, "a file name (or - for standard output)")
             .parse(args))
        return kExitUsage;

    const bool toStdout = outPath == "-";
    QSaveFile file(QString::fromStdString(outPath));
    if (!toStdout && !openPrivateForWriting(file)) {
        std::cerr << "steward-cli: cannot write " << outPath << ": " << file.errorString().toStdString() << "\n";
        return kExitFailed;
    }

    // Lines are gathered into large blocks: one write per megabyte, not per document.
    std::string buffer;
    buffer.reserve(kFlushBytes + 64 * 1024);
    const auto flush = [&]() {
        if (buffer.empty())
            return;
        const bool written = toStdout ? std::fwrite(buffer.data(), 1, buffer.size(), stdout) == buffer.size()
                                      : file.write(buffer.data(), static_cast<qint64>(buffer.size()))
                                            == static_cast<qint64>(buffer.size());
        if (!written)
            throw WriteFailed{toStdout ? std::string("standard output") : file.errorString().toStdString()};
        buffer.clear();
    };
    std::int64_t documents = 0;
    try {
        documents = generateDistrict(options, [&](const std::string &resource, const Json &body) {
            buffer += envelopeLine(resource, body);
            buffer += '\n';
            if (buffer.size() >= kFlushBytes)
                flush();
        });
        flush();
        if (toStdout && std::fflush(stdout) != 0)
            throw WriteFailed{"standard output"};
    } catch (const WriteFailed &failure) {
        if (!toStdout)
            file.cancelWriting();
        std::cerr << "steward-cli: cannot write " << (toStdout ? std::string("-") : outPath) << ": " << failure.message
                  << "\n";
        return kExitFailed;
    }
    if (!toStdout) {
        if (!file.commit()) {
            std::cerr << "steward-cli: cannot write " << outPath << ": " << file.errorString().toStdString() << "\n";
            return kExitFailed;
        }
        std::cout << "Wrote " << documents << " documents (" << options.students << " students) to " << outPath << "\n";
    }
    return kExitOk;
}
