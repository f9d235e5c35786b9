#pragma once

#include "ApiSchema.h"
#include "ImportSource.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace steward::fuzz {

// The shape of every harness's entry point (libFuzzer's LLVMFuzzerTestOneInput).
using Entry = int (*)(const std::uint8_t *data, std::size_t size);

// The replay program's table of harnesses, filled by STEWARD_FUZZ_TARGET before main runs.
bool registerTarget(const char *name, Entry entry);
const std::map<std::string, Entry> &targets();

// The embedded starter model, loaded once per process.
const Model &starterModel();

// A folder for this process's scratch files, removed when the process ends normally.
const std::string &scratchDir();
void writeFile(const std::string &path, std::string_view bytes);
std::string_view bytesOf(const std::uint8_t *data, std::size_t size);

// Reads every item of a source and checks what any reader promises: an item carries a body or an
// error (never both, never neither), bodies and errors are valid UTF-8, the item count is bounded
// by the input, and progress never passes the total. Returns the number of items.
std::size_t readAll(ImportSource &source, std::size_t inputBytes);
// Writes the input under every file name into scratchDir()/folder, opens that folder through
// openImportSource on the starter model and reads it all (readAll).
void importAsFolder(const std::string &folder, const std::vector<std::string> &fileNames,
                    const std::uint8_t *data, std::size_t size);

// The replay program names the input it is running, so a finding says which file it was.
void setCurrentInput(const std::string &path);
// A finding: prints what is wrong (and the replayed file) and aborts, which libFuzzer and CTest
// both report as a failure.
[[noreturn]] void fail(const std::string &what);

} // namespace steward::fuzz

// Declares a harness. Built for libFuzzer it is the one LLVMFuzzerTestOneInput of its executable;
// otherwise it registers under its name with the replay program, which links every harness.
#ifdef STEWARD_LIBFUZZER
#define STEWARD_FUZZ_TARGET(name, data, size)                                                              \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
#else
#define STEWARD_FUZZ_TARGET(name, data, size)                                                              \
    static int name##Entry(const std::uint8_t *, std::size_t);                                             \
    [[maybe_unused]] static const bool name##Registered =                                                  \
        steward::fuzz::registerTarget(#name, &name##Entry);                                                \
    static int name##Entry(const std::uint8_t *data, std::size_t size)
#endif
