#include "Cli.h"
#include "Engine.h"
#include "RequestLines.h"

#include <fstream>
#include <iostream>

#include <unistd.h>

using namespace steward;

int commandRequests(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] [--schema PATH]... requests [FILE|-]\n"
                     "\n"
                     "Reads one JSON request per line from FILE (or standard input) and writes one JSON\n"
                     "response per line, in order: {\"status\":..,\"headers\":{..},\"body\":..}.\n"
                     "A line that is not a request gets a 400 response and the next line is read.\n"
                     "\n"
                     "Example:\n"
                     "  echo '{\"method\":\"GET\",\"path\":\"/ed-fi/schools?limit=5\"}' | steward-cli requests\n";
        return kExitOk;
    }
    if (args.size() > 1)
        return usageError("requests", "'requests' takes at most one FILE");
    std::ifstream file;
    std::istream *in = &std::cin;
    if (!args.empty() && args[0] != "-") {
        file.open(args[0], std::ios::binary);
        if (!file)
            return usageError("requests", "cannot read request file '" + args[0] + "'");
        in = &file;
    }
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    if (in == &std::cin && isatty(STDIN_FILENO))
        std::cerr << "steward-cli: " << model->describe() << " on " << context.resolvedDatabasePath()
                  << "\nType one JSON request per line, e.g. {\"method\":\"GET\",\"path\":\"/ed-fi/schools\"}; "
                     "Ctrl-D ends.\n";
    std::ios::sync_with_stdio(false);
    Engine engine(*model, *database);
    engine.setChangeSource("steward-cli requests");
    runRequestLines(engine, *in, std::cout, currentOsUser());
    return kExitOk;
}
