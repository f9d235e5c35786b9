// The JSON array import readers: the input is written twice into a folder, as "import.json" (an
// array of {"resource":..,"body":..} envelopes) and as "schools.json" (an array of School bodies,
// the resource named by the file), and the folder is read through openImportSource.
//
// Findings: a crash or sanitizer report; any exception; an item with both or neither of a body
// and an error; text that is not valid UTF-8; more items than the input can hold; progress past
// the total (see fuzz::readAll).
#include "FuzzSupport.h"

#include <QDir>

using namespace steward;

STEWARD_FUZZ_TARGET(fuzz_import_json, data, size)
{
    static const std::string dir = [] {
        const std::string path = fuzz::scratchDir() + "/json";
        QDir().mkpath(QString::fromStdString(path));
        return path;
    }();
    const std::string_view bytes = fuzz::bytesOf(data, size);
    fuzz::writeFile(dir + "/import.json", bytes);
    fuzz::writeFile(dir + "/schools.json", bytes);
    std::string error;
    std::unique_ptr<ImportSource> source = openImportSource(dir, fuzz::starterModel(), &error);
    if (!source)
        fuzz::fail("the folder could not be opened: " + error);
    fuzz::readAll(*source, size);
    return 0;
}
