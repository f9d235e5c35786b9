// The ApiSchema loader: bytes are parsed as a schema file is (parseJson, the loader's size limit);
// an object is one ApiSchema document, an array is several loaded in order (a core project, then
// extensions that merge into it). A model that loads is exercised a little: every resource's
// schema validates an empty body, identities are computed and the load order is built.
//
// Findings: a crash or sanitizer report; any exception but SchemaLoadError from the loader; any
// exception at all once a model has loaded; a load order that leaves out resources.
#include "FuzzSupport.h"

#include "Identity.h"
#include "LoadOrder.h"
#include "Validation.h"

using namespace steward;

STEWARD_FUZZ_TARGET(fuzz_apischema, data, size)
{
    JsonParseLimits limits;
    limits.maxBytes = 512u * 1024 * 1024; // as Model::loadFiles reads a schema file
    JsonParseResult parsed = parseJson(fuzz::bytesOf(data, size), limits);
    if (!parsed.value)
        return 0;
    std::vector<std::pair<std::string, Json>> documents;
    if (parsed.value->is_array()) {
        for (std::size_t i = 0; i < parsed.value->size(); ++i)
            documents.emplace_back("fuzz[" + std::to_string(i) + "]", (*parsed.value)[i]);
    } else {
        documents.emplace_back("fuzz", std::move(*parsed.value));
    }

    std::unique_ptr<Model> model;
    try {
        model = Model::loadDocuments(documents);
    } catch (const SchemaLoadError &e) {
        if (std::string(e.what()).empty())
            fuzz::fail("a SchemaLoadError without a message");
        return 0;
    }
    (void)model->describe();
    const IdentityCalculator identities(*model);
    for (const ResourceSchema *resource : model->resources()) {
        Json body = Json::object();
        (void)model->validator().validateSchema(*resource, body);
        (void)model->validator().validateConstraints(*resource, body);
        (void)identities.documentIdentity(*resource, body);
    }
    const LoadOrder order(*model);
    if (order.flat().size() != model->resources().size())
        fuzz::fail("the load order lost resources: " + std::to_string(order.flat().size()) + " of "
                   + std::to_string(model->resources().size()));
    return 0;
}
