#pragma once

#include "ApiSchema.h"
#include "Json.h"
#include "Spreadsheet.h"

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace steward {

// A mapping file that cannot be used; the message names the place ("documents[0].fields.birthDate").
class MappingError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// Where one field of a document takes its value from.
struct FieldRule
{
    std::string field;    // as written: "birthDate", "schoolReference.schoolId", "gradeLevels[0].gradeLevelDescriptor"
    std::string column;   // a column's header (compared without case and spacing)
    std::optional<Json> constant;
    std::string text;     // a template: "{First Name} {Last Name}" takes columns by header
    std::string format;   // dates: "MM/DD/YYYY", "DD/MM/YYYY", "D.M.YYYY", "YYYY-MM-DD", "excel";
                          // numbers: "1,234.5" (comma groups), "1.234,5" (decimal comma)
    std::map<std::string, std::string> values; // local code -> value (a descriptor URI), compared without case
    // Worked out from the resource's schema: the JSON path steps and the value's type.
    std::vector<std::string> steps; // "gradeLevels", "[0]", "gradeLevelDescriptor"
    std::string type;               // "string", "integer", "number", "boolean", "date"
};

// One document a row makes.
struct DocumentRule
{
    const ResourceSchema *resource = nullptr;
    std::vector<FieldRule> fields;
    std::string whenColumn; // only rows whose cell here is...
    std::optional<std::string> whenEquals; // ...this (without case), or, when absent, not empty
};

// A spreadsheet mapping (a JSON file the steward keeps):
// {"sheet": "Roster", "delimiter": ";", "documents": [{"resource": "ed-fi/students",
//   "when": {"column": "Status", "equals": "Active"},
//   "fields": {"studentUniqueId": {"column": "Student ID"},
//              "birthDate": {"column": "Birth Date", "format": "MM/DD/YYYY"},
//              "birthSexDescriptor": {"column": "Sex", "values": {"M": "uri://ed-fi.org/SexDescriptor#Male"}},
//              "schoolReference.schoolId": {"constant": 255901001},
//              "studentUniqueId": {"template": "S-{Student ID}"}}}]}
// Documents of one row are written in load order whatever their order here.
// Files from vendors and other systems name students by their own ids. "studentIds" in a mapping
// ({"column": "Vendor ID", "system": "uri://ed-fi.org/StudentIdentificationSystemDescriptor#Local",
// "assigningOrganization": "255901"}) finds each row's student through the codes Ed-Fi keeps in
// StudentEducationOrganizationAssociation.studentIdentificationCodes, and fills studentUniqueId
// (or studentReference.studentUniqueId) of every document the row makes.
struct StudentIdCrosswalk
{
    std::string column;
    std::string system;                // a StudentIdentificationSystemDescriptor URI (compared without case)
    std::string assigningOrganization; // only codes this organization assigned; empty: any
    // code -> studentUniqueId, empty when two students share the code; set by loadStudentIdCodes.
    std::shared_ptr<const std::unordered_map<std::string, std::string>> codes;
};

struct RowMapping
{
    std::string sheet;  // .xlsx: the sheet (empty: the first)
    char delimiter = 0; // CSV: ',', ';' or '\t' (0: found from the header line)
    std::vector<DocumentRule> documents;
    std::optional<StudentIdCrosswalk> studentIds;
};

// Reads the crosswalk's codes from the stored StudentEducationOrganizationAssociations (any
// connection). Throws MappingError when the model has no such resource.
void loadStudentIdCodes(SQLite::Database &db, const Model &model, RowMapping &mapping);

// How many of a file's rows the crosswalk finds a student for, before anything is imported.
struct StudentIdMatch
{
    struct Unmatched
    {
        SheetRow row; // its number in the file and its cells
        std::string why;
    };
    std::vector<std::string> header;
    std::int64_t rows = 0;
    std::int64_t matched = 0;
    std::vector<Unmatched> unmatched;
    double rate() const { return rows == 0 ? 1.0 : static_cast<double>(matched) / static_cast<double>(rows); }
};
// Reads the whole file through the mapping's crosswalk (codes loaded); MappingError when unreadable.
StudentIdMatch matchStudentIds(const std::string &path, const RowMapping &mapping);

// Reads and checks a mapping against the model: every resource exists, every field is a field of
// its resource's schema (nested and array fields included), every rule has exactly one source, every
// format is known. Throws MappingError naming the place.
RowMapping parseRowMapping(const Json &mapping, const Model &model);
RowMapping loadRowMapping(const std::string &path, const Model &model);

// Checks that every column the mapping names is in the header; throws MappingError naming the
// column and the columns there are.
void checkColumns(const RowMapping &mapping, const std::vector<std::string> &header);

// One document made from a row. A cell that could not be read as its field's type (a date in the
// wrong form, a code the values do not list) is kept as text in its field, and error says which
// ("column 'Birth Date' (birthDate): '13/45/2010' is not a date in MM/DD/YYYY"; several joined by ';').
struct MappedDocument
{
    const ResourceSchema *resource = nullptr;
    Json body;
    std::string error;
};

// "Student ID" -> "studentid": how header and field names are compared.
std::string foldedName(const std::string &text);

// A header's columns by name (compared without case, spacing and punctuation), worked out once.
class HeaderIndex
{
public:
    explicit HeaderIndex(const std::vector<std::string> &header);
    std::size_t find(const std::string &column) const; // npos when there is no such column

private:
    std::unordered_map<std::string, std::size_t> m_columns;
};

std::vector<MappedDocument> mapRow(const RowMapping &mapping, const HeaderIndex &header, const SheetRow &row);
std::vector<MappedDocument> mapRow(const RowMapping &mapping, const std::vector<std::string> &header,
                                   const SheetRow &row);
// The row as {"Header": "cell", ...}: what a draft keeps of a row that could not be mapped.
Json rowObject(const std::vector<std::string> &header, const SheetRow &row);

// A first mapping for a resource from a spreadsheet's header and some rows: each column matched to a
// field by its name (case, spaces and punctuation ignored; "Student ID" finds studentUniqueId,
// "Last Name" lastSurname), date formats found from the values, descriptor columns given a value map
// of the closest stored descriptor values (storedDescriptors(descriptor resource name) lists their
// URIs). unmatched lists the columns and values it could not place.
struct MappingSuggestion
{
    Json mapping;
    std::vector<std::string> unmatched;
};
// The stored values of a descriptor resource as URIs ("uri://ed-fi.org/SexDescriptor#Male"), for the value
// maps of suggestRowMapping; any connection.
std::vector<std::string> storedDescriptorUris(SQLite::Database &db, const std::string &descriptorResource);

// The fields of a resource a mapping can fill, as a mapping names them: scalars, nested ones
// ("schoolReference.schoolId") and those of a list's first item ("gradeLevels[0].gradeLevelDescriptor").
std::vector<std::string> mappableFields(const ResourceSchema &resource);

MappingSuggestion suggestRowMapping(const ResourceSchema &resource, const std::vector<std::string> &header,
                                    const std::vector<SheetRow> &rows,
                                    const std::function<std::vector<std::string>(const std::string &)> &storedDescriptors);

} // namespace steward
