#include "Cli.h"
#include "CommandLine.h"
#include "LoadOrder.h"

#include <iostream>

using namespace steward;

int commandOrder(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--schema PATH]... order [--json]\n"
                     "\n"
                     "Prints the load order of the model's resources: layer by layer, each resource after\n"
                     "everything it references (cycles are broken only at optional references).\n"
                     "--json prints [{\"layer\":0,\"resources\":[\"ed-fi/gradeLevelDescriptors\",...]},...].\n"
                     "\n"
                     "Example: steward-cli --schema ApiSchema.json order --json\n";
        return kExitOk;
    }
    bool json = false;
    if (!CommandLine("order").flag("--json", json).parse(args))
        return kExitUsage;
    std::unique_ptr<Model> model = context.loadModel();
    if (!model)
        return kExitUsage;
    const LoadOrder order(*model);
    if (json) {
        Json out = Json::array();
        for (std::size_t layer = 0; layer < order.layers().size(); ++layer) {
            Json names = Json::array();
            for (const ResourceSchema *resource : order.layers()[layer])
                names.push_back(resource->resourceKey());
            out.push_back(Json{{"layer", layer}, {"resources", names}});
        }
        std::cout << out.dump(2) << "\n";
        return kExitOk;
    }
    for (std::size_t layer = 0; layer < order.layers().size(); ++layer) {
        std::cout << "layer " << layer << ":\n";
        for (const ResourceSchema *resource : order.layers()[layer])
            std::cout << "  " << resource->project->projectEndpointName << "/" << resource->endpointName << "\n";
    }
    for (const std::string &edge : order.brokenEdges())
        std::cout << "(cycle broken at optional reference " << edge << ")\n";
    return kExitOk;
}
