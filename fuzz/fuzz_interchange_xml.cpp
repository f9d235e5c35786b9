// The interchange XML reader (any Interchange* root but descriptors): the input is written as
// "interchange.xml" and read through openImportSource on the starter model (Ed-Fi 5.1.0), so
// the element mapping driven by the model runs on whatever the fuzzer makes.
//
// Findings: a crash or sanitizer report; any exception; an item with both or neither of a body
// and an error; text that is not valid UTF-8; more items than the input can hold; progress past
// the total (see fuzz::readAll).
#include "FuzzSupport.h"

using namespace steward;

STEWARD_FUZZ_TARGET(fuzz_interchange_xml, data, size)
{
    static const std::string path = fuzz::scratchDir() + "/interchange.xml";
    fuzz::writeFile(path, fuzz::bytesOf(data, size));
    std::string error;
    std::unique_ptr<ImportSource> source = openImportSource(path, fuzz::starterModel(), &error);
    if (!source)
        return 0; // a file that is not XML at all is refused at opening, with a message
    fuzz::readAll(*source, size);
    return 0;
}
