#pragma once

#include "ApiSchema.h"
#include "Json.h"

#include <optional>
#include <string>
#include <vector>

namespace steward {

// One OpenAPI document served under /metadata/, listed the way Ed-Fi ODS/API lists them.
struct OpenApiDocumentInfo
{
    std::string name;    // "Resources", "Descriptors", or an extension project's name ("TPDM")
    std::string section; // "resources", "descriptors", or an extension project's endpoint name ("tpdm")
    std::string path;    // "/metadata/data/v3/resources/swagger.json"
};

// Resources and Descriptors first, then one document per extension project holding that project's
// own resources and descriptors. Resources and Descriptors cover every project, extensions too:
// clients read only those two documents to find any endpoint's schema.
std::vector<OpenApiDocumentInfo> openApiDocuments(const Model &model);

// One OpenAPI 3.0 document of a section named as above (case-insensitive); nullopt when there is no
// such section. serverUrl is the data API's base ("http://127.0.0.1:8080/data/v3"); tokenUrl the OAuth
// token endpoint, taken from serverUrl (its part before "/data/v3", then "/oauth/token") when empty.
std::optional<Json> openApiDocument(const Model &model, const std::string &section, const std::string &serverUrl,
                                    const std::string &tokenUrl = std::string());

// The components.schemas key of a resource as ODS/API names it and clients compute it from the
// endpoint: the project's endpoint name camel-cased, '_', the endpoint singularized
// ("edFi_studentSchoolAssociation", "edFi_person", "tpdm_candidate").
std::string openApiSchemaName(const ResourceSchema &resource);

} // namespace steward
