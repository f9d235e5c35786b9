#pragma once

#include "ApiSchema.h"
#include "Json.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace steward {

// One document read from an import file, or what made it unreadable. Nothing read is dropped:
// an item with an error becomes a draft-like entry in the import report.
struct ImportItem
{
    std::string file;
    std::int64_t line = 0;      // 1-based line (or element line for XML); 0 when not known
    std::string resource;       // "ed-fi/schools" (project endpoint / resource endpoint)
    std::optional<Json> body;   // absent when error is set
    std::string error;          // what is wrong and where, e.g. "line 12: invalid JSON: ..."
    // A document the input's format implies rather than carries (the school years of interchange
    // XML, an enumeration there): stored when missing, a stored one is left as it is.
    bool implied = false;
    // Left by nextUnparsed() for the caller to parse with completeItem(), so that parsing can run
    // on more than one thread: the line as read, an envelope or (per-resource files) a bare body.
    std::string unparsed;
    bool unparsedIsEnvelope = false;
};

// A stream of import items; readers hold at most one item (or one line) in memory.
class ImportSource
{
public:
    virtual ~ImportSource() = default;
    // False at the end of the input.
    virtual bool next(ImportItem &item) = 0;
    // Like next(), but a reader that can leaves the parsing to completeItem() (NDJSON lines do).
    virtual bool nextUnparsed(ImportItem &item) { return next(item); }
    // Bytes read so far and in all (for progress); total 0 when unknown.
    virtual std::uint64_t bytesRead() const = 0;
    virtual std::uint64_t bytesTotal() const = 0;
};

// Opens a file or directory by its form:
// - "*.ndjson"/"*.jsonl" whose lines are {"resource":"ed-fi/schools","body":{...}};
// - "*.json" holding an array of such objects;
// - per-resource files named by endpoint ("schools.ndjson": one body per line; "schools.json": an
//   array of bodies; "tpdm.candidates.ndjson" names the project too);
// - Ed-Fi interchange XML ("*.xml"): descriptors (DescriptorXml) or any other interchange
//   (InterchangeXml), told apart by the root element;
// - a directory: every file above in it (an exported batch directory is one), manifest.json skipped.
// Returns null and sets error when the path cannot be opened at all.
// Parses what nextUnparsed() left in item.unparsed (nothing to do for a parsed item); touches
// nothing else, so any thread may call it. item.unparsed is emptied, unless the item could not be
// read (then item.error says why, and the text stays for the caller to keep).
void completeItem(ImportItem &item);

// A document as an NDJSON import line, {"resource":"ed-fi/schools","body":{...}}, with "resource"
// first so that scanResources reads it without parsing (every writer of import lines uses this).
std::string envelopeLine(const std::string &resource, const Json &body);

// Calls visit(resource) for each item of an NDJSON file in order without parsing it: an envelope
// line must start with {"resource":"..." (as the generator and steward's own tools write them); a
// per-resource file names its resource. False, having stopped, at a line that does not, when visit
// returns false, or for any other input (JSON arrays, XML, directories are not scanned).
// keepGoing(bytes of the file read so far), when given, is asked at the start and every few
// thousand lines; false stops the scan (and it returns false).
bool scanResources(const std::string &path, const Model &model,
                   const std::function<bool(const std::string &resource)> &visit,
                   const std::function<bool(std::uint64_t bytesRead)> &keepGoing = {});

// - a spreadsheet (.csv, .tsv, .txt, .xlsx) through a mapping (RowMapping.h); refused without one.
struct RowMapping;
std::unique_ptr<ImportSource> openImportSource(const std::string &path, const Model &model, std::string *error,
                                               const RowMapping *mapping = nullptr);

} // namespace steward
