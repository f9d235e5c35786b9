// steward-cli: the command-line face of the engine.
#include "Engine.h"
#include "RequestLines.h"

#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

#include <fstream>
#include <iostream>

#include <unistd.h>

using namespace steward;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;

const char *const kUsage =
    "Usage: steward-cli [--db PATH] [--schema PATH]... COMMAND [ARGS]\n"
    "\n"
    "Options:\n"
    "  --db PATH       the Steward database (SQLite); created when missing.\n"
    "                  Default: steward.db in the per-user data directory.\n"
    "  --schema PATH   an Ed-Fi ApiSchema JSON file: the core data standard first, then any\n"
    "                  extensions (repeatable). Default: the embedded starter model.\n"
    "  --help          show this help.  --version  show the version.\n"
    "\n"
    "Commands:\n"
    "  requests [FILE|-]   answer one JSON request per line (Ed-Fi API semantics), one JSON\n"
    "                      response per line on stdout.\n"
    "                      Example: echo '{\"method\":\"GET\",\"path\":\"/ed-fi/schools\"}' | steward-cli requests\n";

int usageError(const std::string &message)
{
    std::cerr << "steward-cli: " << message << " (see steward-cli --help)\n";
    return kExitUsage;
}

struct Options
{
    std::string databasePath;
    std::vector<std::string> schemaPaths;
    std::string command;
    std::vector<std::string> arguments;
};

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("steward"));
    QCoreApplication::setApplicationVersion(QStringLiteral(STEWARD_VERSION));

    Options options;
    std::vector<std::string> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &arg = args[i];
        if (!options.command.empty()) {
            options.arguments.push_back(arg);
        } else if (arg == "--help" || arg == "-h") {
            std::cout << kUsage;
            return kExitOk;
        } else if (arg == "--version") {
            std::cout << "steward-cli " << STEWARD_VERSION << "\n";
            return kExitOk;
        } else if (arg == "--db" || arg == "--schema") {
            if (i + 1 >= args.size())
                return usageError(arg + " needs a path");
            (arg == "--db" ? options.databasePath = args[++i] : options.schemaPaths.emplace_back(args[++i]));
        } else if (arg.rfind("--db=", 0) == 0) {
            options.databasePath = arg.substr(5);
        } else if (arg.rfind("--schema=", 0) == 0) {
            options.schemaPaths.push_back(arg.substr(9));
        } else if (arg.rfind("-", 0) == 0 && arg != "-") {
            return usageError("unknown option '" + arg + "'");
        } else {
            options.command = arg;
        }
    }
    if (options.command.empty())
        return usageError("no command given");
    if (options.command != "requests")
        return usageError("unknown command '" + options.command + "'");
    if (options.arguments.size() > 1)
        return usageError("'requests' takes at most one FILE");

    std::unique_ptr<Model> model;
    try {
        model = options.schemaPaths.empty() ? Model::loadStarter() : Model::loadFiles(options.schemaPaths);
    } catch (const SchemaLoadError &e) {
        std::cerr << "steward-cli: schema error: " << e.what() << "\n";
        return kExitUsage;
    }

    std::ifstream file;
    std::istream *in = &std::cin;
    if (!options.arguments.empty() && options.arguments[0] != "-") {
        file.open(options.arguments[0], std::ios::binary);
        if (!file)
            return usageError("cannot read request file '" + options.arguments[0] + "'");
        in = &file;
    }

    const std::string databasePath = options.databasePath.empty() ? defaultDatabasePath() : options.databasePath;
    std::unique_ptr<Database> database;
    try {
        database = Database::open(databasePath);
    } catch (const StorageError &e) {
        std::cerr << "steward-cli: database error: " << e.what() << "\n";
        return kExitUsage;
    }

    if (in == &std::cin && isatty(STDIN_FILENO))
        std::cerr << "steward-cli: " << model->describe() << " on " << databasePath
                  << "\nType one JSON request per line, e.g. {\"method\":\"GET\",\"path\":\"/ed-fi/schools\"}; "
                     "Ctrl-D ends.\n";
    std::ios::sync_with_stdio(false);
    Engine engine(*model, *database);
    runRequestLines(engine, *in, std::cout, currentOsUser());
    return kExitOk;
}
