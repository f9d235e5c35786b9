// The descriptor interchange XML reader: the input is written as "descriptors.xml" and read
// through openImportSource on the starter model (Ed-Fi 5.1.0, so the interchange namespace is
// http://ed-fi.org/5.1.0).
//
// Findings: a crash or sanitizer report; any exception; an item with both or neither of a body
// and an error; text that is not valid UTF-8; more items than the input can hold; progress past
// the total (see fuzz::readAll).
#include "FuzzSupport.h"

using namespace steward;

STEWARD_FUZZ_TARGET(fuzz_descriptor_xml, data, size)
{
    static const std::string path = fuzz::scratchDir() + "/descriptors.xml";
    fuzz::writeFile(path, fuzz::bytesOf(data, size));
    std::string error;
    std::unique_ptr<ImportSource> source = openImportSource(path, fuzz::starterModel(), &error);
    if (!source)
        fuzz::fail("the file could not be opened: " + error);
    fuzz::readAll(*source, size);
    return 0;
}
