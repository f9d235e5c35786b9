// The JSON array import readers: the input is written twice into a folder, as "import.json" (an
// array of {"resource":..,"body":..} envelopes) and as "schools.json" (an array of School bodies,
// the resource named by the file), and the folder is read through openImportSource.
//
// Findings: a crash or sanitizer report; any exception; an item with both or neither of a body
// and an error; text that is not valid UTF-8; more items than the input can hold; progress past
// the total (see fuzz::readAll).
#include "FuzzSupport.h"

using namespace steward;

STEWARD_FUZZ_TARGET(fuzz_import_json, data, size)
{
    fuzz::importAsFolder("json", {"import.json", "schools.json"}, data, size);
    return 0;
}
