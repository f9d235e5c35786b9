// Stages 1 and 2 of the request protocol on the starter model: the first byte chooses the resource
// (its index among Model::resources(), modulo their number), the rest is the request body.
//
// Findings: a crash or sanitizer report; any exception (validation answers with errors, it never
// throws); a body that passed stage 1 but fails it again once normalized (the normalized body is
// what gets stored, and a later PUT of it must pass); a text parseJson reads otherwise than
// nlohmann's own parser; a natural key read off a text unlike the document's; a document whose
// text dumpJson writes otherwise than nlohmann's writer.
#include "FuzzSupport.h"

#include "Identity.h"
#include "Validation.h"

using namespace steward;

STEWARD_FUZZ_TARGET(fuzz_validator, data, size)
{
    if (size == 0)
        return 0;
    const Model &model = fuzz::starterModel();
    static const std::vector<const ResourceSchema *> resources = model.resources();
    static const IdentityCalculator identities(model);
    const ResourceSchema &resource = *resources[data[0] % resources.size()];

    const std::string_view text = fuzz::bytesOf(data + 1, size - 1);
    JsonParseResult parsed = parseJson(text);
    // parseJson reads with simdjson, and with nlohmann what simdjson refuses: it must accept what
    // nlohmann accepts (within the depth limit) as the same value, and nothing else.
    std::optional<Json> theirs;
    try {
        theirs = Json::parse(text.begin(), text.end());
    } catch (const Json::exception &) {
    }
    if (parsed.value && (!theirs || dumpJson(*parsed.value) != dumpJson(*theirs)))
        fuzz::fail("parseJson read a text unlike nlohmann: " + dumpJson(*parsed.value));
    if (!parsed.value && theirs && parsed.error.find("nests deeper") == std::string::npos)
        fuzz::fail("parseJson refused a text nlohmann reads: " + parsed.error);
    if (!parsed.value) {
        if (parsed.error.empty())
            fuzz::fail("parseJson refused the input without saying why");
        return 0;
    }
    // Every stored text is dumpJson's: it must be nlohmann's, byte for byte.
    if (dumpJson(*parsed.value) != parsed.value->dump(-1, ' ', false, Json::error_handler_t::replace))
        fuzz::fail("dumpJson wrote a text unlike nlohmann: " + dumpJson(*parsed.value));
    // The natural-key index reads the key off a document's stored text; it must be the document's own.
    if (naturalKeyOfIdentityText(dumpJson(*parsed.value)) != naturalKeyText(*parsed.value))
        fuzz::fail("the natural key of the text " + dumpJson(*parsed.value) + " is not the document's");
    const DocumentValidator &validator = model.validator();
    Json body = std::move(*parsed.value);
    const ValidationErrors schemaErrors = validator.validateSchema(resource, body);
    const ValidationErrors constraintErrors = validator.validateConstraints(resource, body);
    for (const ValidationErrors *errors : {&schemaErrors, &constraintErrors})
        for (const auto &[path, messages] : *errors)
            if (path.empty() || path.front() != '$' || messages.empty())
                fuzz::fail("a validation error without a JSON path or a message: '" + path + "'");
    if (!schemaErrors.empty())
        return 0;

    Json again = body;
    const ValidationErrors secondErrors = validator.validateSchema(resource, again);
    if (!secondErrors.empty() || again != body) {
        std::string first;
        for (const auto &[path, messages] : secondErrors)
            first = path + ": " + messages.front();
        fuzz::fail(resource.resourceName + ": the normalized body " + dumpJson(body)
                   + " does not validate again (" + first + ")");
    }
    // Ed-Fi's schemas do not require every identity member (schoolYearTypeReference has no required
    // schoolYear), so a valid body may lack one; the engine answers that with a 400.
    if (constraintErrors.empty() && identities.documentIdentity(resource, body))
        (void)identities.identityObject(resource, body);
    return 0;
}
