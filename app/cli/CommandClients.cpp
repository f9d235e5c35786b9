#include "ApiClients.h"
#include "Cli.h"

#include <SQLiteCpp/Exception.h>

#include <iomanip>
#include <iostream>

using namespace steward;

int commandClients(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout
            << "Usage: steward-cli [--db PATH] clients add NAME\n"
               "       steward-cli [--db PATH] clients list\n"
               "       steward-cli [--db PATH] clients remove NAME\n"
               "\n"
               "Manages who may call `steward-cli serve`. 'add' creates a client and prints two lines,\n"
               "  key: NAME\n"
               "  secret: SECRET\n"
               "The secret is shown this once; the database keeps only a salted hash of it. Clients\n"
               "trade the two for a bearer token at POST /oauth/token (OAuth2 client credentials).\n"
               "NAME is 1 to 64 letters, digits, '.', '_' or '-'. 'remove' revokes the client at once,\n"
               "including tokens it already holds. 'list' prints each client and when it was added.\n"
               "Exit code 0 when done, 1 when refused (a name that is taken or unknown), 2 on usage errors.\n"
               "\n"
               "Example: steward-cli --db district.db clients add sis-sync\n";
        return kExitOk;
    }
    if (args.empty())
        return usageError("clients", "'clients' needs add NAME, list or remove NAME");
    const std::string &action = args[0];
    if (action == "list") {
        if (args.size() != 1)
            return usageError("clients", "'clients list' takes no arguments");
    } else if (action == "add" || action == "remove") {
        if (args.size() != 2)
            return usageError("clients", "'clients " + action + "' takes exactly one NAME");
    } else {
        return usageError("clients", "unknown action '" + action + "'; use add, list or remove");
    }
    if (action == "add" && !ApiClients::isValidName(args[1]))
        return usageError("clients",
                          "'" + args[1] +
                              "' is not a client name: use 1 to 64 letters, digits, '.', '_' or '-'");

    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitUsage;
    ApiClients clients(database->connection());
    try {
        if (action == "add") {
            const NewApiClient client = clients.add(args[1]);
            std::cout << "key: " << client.name << "\n"
                      << "secret: " << client.secret << "\n";
        } else if (action == "remove") {
            if (!clients.remove(args[1])) {
                std::cerr << "steward-cli: there is no client named '" << args[1] << "'\n";
                return kExitFailed;
            }
            std::cerr << "steward-cli: removed client '" << args[1] << "'\n";
        } else {
            const std::vector<ApiClient> all = clients.list();
            if (all.empty())
                std::cerr << "steward-cli: no clients yet; add one with: " << context.suggestion("clients add NAME")
                          << "\n";
            for (const ApiClient &client : all)
                std::cout << std::left << std::setw(24) << client.name << " added " << client.createdAt
                          << "\n";
        }
    } catch (const ApiClientError &e) {
        std::cerr << "steward-cli: " << e.what() << "\n";
        return kExitFailed;
    } catch (const SQLite::Exception &e) {
        std::cerr << "steward-cli: database error: " << e.what() << "\n";
        return kExitFailed;
    }
    return kExitOk;
}
