// steward-cli delete and repoint: the two ways out of a delete that other documents block.
#include "Cli.h"
#include "CommandLine.h"

#include "Dependents.h"
#include "Engine.h"
#include "EngineRequests.h"
#include "IdentityChange.h"

#include <iostream>

using namespace steward;

namespace {

// "ed-fi/schools/ID", "/ed-fi/schools/ID" or a bare ID. A path names the resource the document must be.
struct DocumentAddress
{
    std::string project;  // endpoint names; empty for a bare id
    std::string endpoint;
    std::string id;
};

bool parseAddress(const std::string &text, DocumentAddress &out)
{
    std::string rest = text.rfind('/', 0) == 0 ? text.substr(1) : text;
    const std::size_t first = rest.find('/');
    if (first == std::string::npos) {
        out.id = canonicalDocumentId(rest);
        return !rest.empty();
    }
    const std::size_t second = rest.find('/', first + 1);
    if (second == std::string::npos || rest.find('/', second + 1) != std::string::npos)
        return false;
    out.project = rest.substr(0, first);
    out.endpoint = rest.substr(first + 1, second - first - 1);
    out.id = canonicalDocumentId(rest.substr(second + 1));
    return !out.project.empty() && !out.endpoint.empty() && !out.id.empty();
}

// The document's id once the address is checked against the model and the database; an error otherwise.
bool resolveAddress(Engine &engine, const DocumentAddress &address, std::string &id, std::string &error)
{
    std::optional<StoredDocument> document = engine.document(address.id);
    if (!document) {
        error = "no document with the id '" + address.id + "' exists";
        return false;
    }
    if (!address.project.empty()) {
        const ResourceSchema *named = engine.model().findByEndpoint(address.project, address.endpoint);
        if (named == nullptr) {
            error = "'" + address.project + "/" + address.endpoint + "' is not a resource of the model";
            return false;
        }
        if (named->resourceName != document->resource || named->projectName() != document->project) {
            error = address.id + " is a " + document->resource + ", not a " + named->resourceName;
            return false;
        }
    }
    id = document->id;
    return true;
}

void printCascade(const CascadeDeleteResult &result)
{
    for (std::size_t index : result.deleteOrder) {
        const DependentNode &node = result.nodes[index];
        std::cout << "delete " << node.resource << " " << node.naturalKey << " (" << node.id << ")";
        if (node.parent >= 0) {
            const DependentNode &parent = result.nodes[static_cast<std::size_t>(node.parent)];
            std::cout << ": references " << parent.resource << " " << parent.naturalKey;
        }
        std::cout << "\n";
    }
    for (const auto &[resource, count] : result.countsByResource())
        std::cout << "  " << count << " " << resource << "\n";
}

} // namespace

int reportIdentityResult(const CliContext &context, const std::string &command, const IdentityChangeResult &result,
                         bool dryRun, bool json)
{
    if (json) {
        std::cout << result.toJson().dump(2) << "\n";
    } else {
        for (const IdentityStep &step : result.steps)
            std::cout << step.describe() << "\n";
    }
    std::cout << std::flush;
    if (!result.ok) {
        std::cerr << "steward-cli: " << command << ": " << result.error << "\n";
        return kExitFailed;
    }
    std::cerr << "steward-cli: " << command << ": " << result.steps.size() << " steps "
              << (dryRun ? "previewed; nothing was written (run without --dry-run to apply)"
                         : "applied in one transaction. Undo with: "
                               + context.suggestion("fix undo " + std::to_string(result.opId)))
              << "\n";
    return kExitOk;
}

int commandDelete(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] [--schema PATH]... delete PROJECT/RESOURCE/ID [--cascade] [--dry-run] [--json]\n"
                     "\n"
                     "Deletes one document (ed-fi/schools/ID, or the bare ID). While other documents reference it the\n"
                     "delete is refused and they are listed. With --cascade, every document that references it,\n"
                     "directly or through others, is deleted too, referrers first, in one transaction; the whole\n"
                     "list is printed first with --dry-run. A cascading delete is journaled: steward-cli fix undo OP_ID\n"
                     "brings every document back under its own id with the text it had.\n"
                     "\n"
                     "Options:\n"
                     "  --cascade    delete everything that depends on the document as well.\n"
                     "  --dry-run    print what would be deleted (and the count per resource); delete nothing.\n"
                     "  --json       print the deletes and outcome as JSON.\n"
                     "\n"
                     "Exit status: 0 deleted (or previewed), 1 refused (why on standard error), 2 bad arguments.\n"
                     "\n"
                     "Example: steward-cli delete ed-fi/schools/0f3c... --cascade --dry-run\n";
        return kExitOk;
    }
    bool cascade = false;
    bool dryRun = false;
    bool json = false;
    std::string target;
    if (!CommandLine("delete")
             .flag("--cascade", cascade)
             .flag("--dry-run", dryRun)
             .flag("--json", json)
             .word(target, "delete takes one document")
             .parse(args))
        return kExitUsage;
    DocumentAddress address;
    if (target.empty())
        return usageError("delete", "name the document: PROJECT/RESOURCE/ID (ed-fi/schools/ID) or its id");
    if (!parseAddress(target, address))
        return usageError("delete", "'" + target + "' is not PROJECT/RESOURCE/ID or an id");
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    Engine engine(*model, *database);
    std::string id;
    std::string error;
    if (!resolveAddress(engine, address, id, error)) {
        std::cerr << "steward-cli: delete: " << error << "\n";
        return kExitFailed;
    }
    if (!cascade) {
        const std::optional<StoredDocument> document = engine.document(id);
        const ResourceSchema *schema = model->findByName(document->project, document->resource);
        const Request request = Request::make("DELETE", schema->requestPath(id), "");
        const Response response = dryRun ? engine.validate(request) : engine.handle(request);
        if (json)
            std::cout << response.toJson().dump(2) << "\n";
        if (response.status < 300) {
            std::cerr << "steward-cli: delete: " << document->resource << " " << id
                      << (dryRun ? " can be deleted; nothing was deleted (run without --dry-run)" : " deleted") << "\n";
            return kExitOk;
        }
        std::cerr << "steward-cli: delete: refused (HTTP " << response.status
                  << "): " << response.body.value("detail", std::string()) << "\n";
        if (response.body.contains("referencedBy")) {
            for (const Json &referrer : response.body["referencedBy"])
                std::cerr << "  " << referrer.value("resource", std::string()) << " "
                          << naturalKeyText(referrer.value("identity", Json::object())) << " ("
                          << referrer.value("id", std::string()) << ")\n";
            std::cerr << "  (" << response.body.value("referencedByCount", 0) << " in all; delete them too with "
                      << "--cascade, or move them with " << context.suggestion("repoint " + id + " --to OTHER_ID")
                      << ")\n";
        }
        return kExitFailed;
    }
    const CascadeDeleteResult result = cascadeDelete(engine, id, !dryRun);
    if (json)
        std::cout << result.toJson().dump(2) << "\n";
    else
        printCascade(result);
    std::cout << std::flush;
    if (!result.ok) {
        std::cerr << "steward-cli: delete: " << result.error << "\n";
        return kExitFailed;
    }
    std::cerr << "steward-cli: delete: " << result.nodes.size() << " documents "
              << (dryRun ? "would be deleted; nothing was deleted (run without --dry-run to delete them)"
                         : "deleted in one transaction. Undo with: "
                               + context.suggestion("fix undo " + std::to_string(result.opId)))
              << "\n";
    return kExitOk;
}

int commandRepoint(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] [--schema PATH]... repoint PROJECT/RESOURCE/ID --to ID [--delete] [--dry-run] [--json]\n"
                     "\n"
                     "Moves every reference to a document over to another document of the same resource (the\n"
                     "sections of a school created by mistake, to the right school). Referrers whose identity holds\n"
                     "the reference are re-created with the new one (merged into an equal one where it exists), the\n"
                     "same way as merge and change-identity. One transaction; journaled, so steward-cli fix undo OP_ID\n"
                     "puts every document back.\n"
                     "\n"
                     "Options:\n"
                     "  --to ID      the document the references move to.\n"
                     "  --delete     then delete the document, referenced by nothing any more.\n"
                     "  --dry-run    print the steps (create/update/delete, resource, natural key, fields) only.\n"
                     "  --json       print the steps and outcome as JSON.\n"
                     "\n"
                     "Exit status: 0 moved (or previewed), 1 refused (why on standard error), 2 bad arguments.\n"
                     "\n"
                     "Example: steward-cli repoint ed-fi/schools/9a1e... --to 0f3c... --delete --dry-run\n";
        return kExitOk;
    }
    std::string from;
    std::string to;
    bool deleteAfter = false;
    bool dryRun = false;
    bool json = false;
    if (!CommandLine("repoint")
             .text("--to", to, "a document id")
             .flag("--delete", deleteAfter)
             .flag("--dry-run", dryRun)
             .flag("--json", json)
             .word(from, "repoint takes one document to move references from")
             .parse(args))
        return kExitUsage;
    DocumentAddress fromAddress;
    DocumentAddress toAddress;
    if (from.empty() || to.empty())
        return usageError("repoint", "both the document (PROJECT/RESOURCE/ID) and --to ID are required");
    if (!parseAddress(from, fromAddress) || !parseAddress(to, toAddress))
        return usageError("repoint", "documents are named PROJECT/RESOURCE/ID (ed-fi/schools/ID) or by id");
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    Engine engine(*model, *database);
    std::string fromId;
    std::string toId;
    std::string error;
    if (!resolveAddress(engine, fromAddress, fromId, error) || !resolveAddress(engine, toAddress, toId, error)) {
        std::cerr << "steward-cli: repoint: " << error << "\n";
        return kExitFailed;
    }
    return reportIdentityResult(context, "repoint", repointReferences(engine, fromId, toId, deleteAfter, !dryRun),
                                dryRun, json);
}
