// The NDJSON import readers: the input is written twice into a folder, as "import.ndjson" (lines
// of {"resource":..,"body":..} envelopes) and as "ed-fi.schools.jsonl" (one School body per line,
// the resource named by the file), and the folder is read through openImportSource.
//
// Findings: a crash or sanitizer report; any exception; an item with both or neither of a body
// and an error; text that is not valid UTF-8; more items than the input can hold; progress past
// the total (see fuzz::readAll).
#include "FuzzSupport.h"

#include <QDir>

using namespace steward;

STEWARD_FUZZ_TARGET(fuzz_import_ndjson, data, size)
{
    static const std::string dir = [] {
        const std::string path = fuzz::scratchDir() + "/ndjson";
        QDir().mkpath(QString::fromStdString(path));
        return path;
    }();
    const std::string_view bytes = fuzz::bytesOf(data, size);
    fuzz::writeFile(dir + "/import.ndjson", bytes);
    fuzz::writeFile(dir + "/ed-fi.schools.jsonl", bytes);
    std::string error;
    std::unique_ptr<ImportSource> source = openImportSource(dir, fuzz::starterModel(), &error);
    if (!source)
        fuzz::fail("the folder could not be opened: " + error);
    fuzz::readAll(*source, size);
    return 0;
}
