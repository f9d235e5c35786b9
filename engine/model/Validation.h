#pragma once

#include "ApiSchema.h"
#include "Json.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace steward {

// Messages keyed by the JSON path they concern ("$.beginDate", "$.gradeLevels[1]").
using ValidationErrors = std::map<std::string, std::vector<std::string>>;

// Whether text matches one of the patterns Ed-Fi puts on nearly every string (no leading or
// trailing white space, not blank), checked without a regex, exactly as the regex would; nothing
// for any other pattern.
std::optional<bool> matchesCommonPattern(const std::string &pattern, const std::string &text);

// Whether text is a valid value of a JSON Schema format Ed-Fi uses (date, date-time, time; any other
// format passes), and how to name that format in a message ("a date (YYYY-MM-DD)").
bool matchesFormat(const std::string &format, const std::string &text);
std::string describeFormat(const std::string &format);

// Stages 1 and 2 of the request protocol: JSON Schema, then equality and array-uniqueness constraints.
class DocumentValidator
{
public:
    explicit DocumentValidator(const Model &model);
    ~DocumentValidator();
    DocumentValidator(const DocumentValidator &) = delete;
    DocumentValidator &operator=(const DocumentValidator &) = delete;

    // Drops properties the schema does not know and null values (both treated as absent), then
    // validates. The body is modified in place; it is what gets stored.
    ValidationErrors validateSchema(const ResourceSchema &resource, Json &body) const;
    // The two ways validateSchema takes: one walk over the schema compiled for it, which normalizes
    // the body the same way and answers only whether it passes (false also when the schema has a
    // keyword the walk does not know); and the full way (the normalizer, then valijson), which names
    // every problem. validateSchema takes the second only when the first says no.
    bool passesCompiledSchema(const ResourceSchema &resource, Json &body) const;
    ValidationErrors schemaErrors(const ResourceSchema &resource, Json &body) const;
    ValidationErrors validateConstraints(const ResourceSchema &resource, const Json &body) const;

    // Compiles every resource's schema now instead of on first use; throws SchemaLoadError naming the resource.
    void compileAll() const;

private:
    struct Compiled;
    const Compiled &compiled(const ResourceSchema &resource) const;

    struct Cache;
    std::unique_ptr<Cache> m_cache;
};

} // namespace steward
