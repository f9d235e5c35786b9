#include "Cli.h"
#include "Rules.h"

#include <iostream>

using namespace steward;

namespace {

const char *const kRulesHelp =
    "Usage: steward-cli [--db PATH] [--schema PATH]... rules run [--pack FILE] [--full] [--json]\n"
    "       steward-cli [--schema PATH]... rules list [--pack FILE] [--json]\n"
    "       steward-cli [--db PATH] rules results [--severity S] [--rule ID] [--json]\n"
    "\n"
    "Business rules beyond the schema: each rule is one SELECT over read-only views of the stored\n"
    "documents and names the documents that fail it. Results are stored, one per failing document\n"
    "and rule, and a later run checks only what changed since.\n"
    "\n"
    "Commands:\n"
    "  run       run a rule pack and store its results; prints counts by severity and the first results.\n"
    "  list      print the pack's rules (id, severity, resource, title).\n"
    "  results   print the stored results, most severe first.\n"
    "\n"
    "Options:\n"
    "  --pack FILE     a rule pack (JSON, see docs/architecture.md \"Rule packs\"). Default: the embedded\n"
    "                  starter pack.\n"
    "  --full          check every document, not only those changed since the pack's last run.\n"
    "  --severity S    only results of severity S (fatal, warning or info).\n"
    "  --rule ID       only results of the rule ID.\n"
    "  --json          run: the report with every stored result as one JSON object; list: the rules as\n"
    "                  JSON; results: one JSON object per line.\n"
    "\n"
    "Exit status: 0 when the run completed (whatever it found), 1 when a rule or the pack is refused,\n"
    "2 for a usage error.\n"
    "\n"
    "Example: steward-cli rules run && steward-cli rules results --severity fatal\n";

struct RulesOptions
{
    std::string command;
    std::string packPath;
    std::string severity;
    std::string ruleId;
    bool full = false;
    bool json = false;
};

void printResult(const RuleResult &result)
{
    std::cout << "  " << result.severity << "  " << result.ruleId << "  " << result.resource << " " << result.naturalKey
              << " (" << result.docId << "): " << result.message << "\n";
}

int runPack(const CliContext &context, const RulesOptions &options, const Model &model, const RulePack &pack)
{
    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitFailed;
    RuleRunOptions runOptions;
    runOptions.full = options.full;
    RuleRunReport report;
    try {
        report = runRules(pack, model, *database, runOptions);
    } catch (const RulePackError &e) {
        std::cerr << "steward-cli: " << e.what() << "\n";
        return kExitFailed;
    } catch (const StorageError &e) {
        std::cerr << "steward-cli: database error: " << e.what() << "\n";
        return kExitFailed;
    }
    RuleResultFilter filter;
    filter.packId = pack.id;
    if (options.json) {
        Json output = report.toJson();
        Json results = Json::array();
        for (const RuleResult &result : readRuleResults(database->connection(), filter))
            results.push_back(result.toJson());
        output["results"] = std::move(results);
        std::cout << output.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    auto total = [&](const char *severity) {
        auto it = report.totalsBySeverity.find(severity);
        return it == report.totalsBySeverity.end() ? std::int64_t(0) : it->second;
    };
    std::cout << "Pack " << pack.id << " " << pack.version << ": " << report.rulesRun << " of " << pack.rules.size()
              << " rules run over " << report.documentsChecked << " documents"
              << (report.fullRun ? " (everything)" : " (changed since the last run)") << ".\n"
              << "Results: " << report.added << " new, " << report.removed << " gone, " << report.kept << " still there.\n"
              << "Now: " << total("fatal") << " fatal, " << total("warning") << " warning, " << total("info")
              << " info.\n";
    filter.limit = 20;
    const std::vector<RuleResult> first = readRuleResults(database->connection(), filter);
    if (!first.empty()) {
        std::cout << "\nFirst results (steward-cli rules results for all):\n";
        for (const RuleResult &result : first)
            printResult(result);
    }
    return kExitOk;
}

int listPack(const RulesOptions &options, const RulePack &pack)
{
    if (options.json) {
        Json rules = Json::array();
        for (const Rule &rule : pack.rules)
            rules.push_back({{"id", rule.id},
                             {"severity", rule.severity},
                             {"resource", rule.resource},
                             {"title", rule.title},
                             {"message", rule.message},
                             {"fix", rule.fix},
                             {"dependsOn", rule.dependsOn}});
        std::cout << Json{{"pack", pack.id}, {"title", pack.title}, {"version", pack.version}, {"rules", rules}}.dump(2)
                  << "\n";
        return kExitOk;
    }
    std::cout << pack.title << " (" << pack.id << " " << pack.version << "), " << pack.rules.size() << " rules:\n";
    for (const Rule &rule : pack.rules)
        std::cout << "  " << rule.id << "  " << rule.severity << "  " << rule.resource << ": " << rule.title << "\n";
    return kExitOk;
}

int listResults(const CliContext &context, const RulesOptions &options)
{
    std::unique_ptr<Database> database;
    try {
        database = Database::open(context.resolvedDatabasePath(), Database::Access::ReadOnly);
    } catch (const StorageError &e) {
        std::cerr << "steward-cli: database error: " << e.what() << "\n";
        return kExitFailed;
    }
    RuleResultFilter filter;
    filter.severity = options.severity;
    filter.ruleId = options.ruleId;
    const std::vector<RuleResult> results = readRuleResults(database->connection(), filter);
    for (const RuleResult &result : results) {
        if (options.json)
            std::cout << result.toJson().dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
        else
            printResult(result);
    }
    if (!options.json)
        std::cout << results.size() << " result(s).\n";
    return kExitOk;
}

} // namespace

int commandRules(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << kRulesHelp;
        return kExitOk;
    }
    RulesOptions options;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &arg = args[i];
        auto value = [&](std::string &into) {
            if (i + 1 >= args.size())
                return false;
            into = args[++i];
            return true;
        };
        if (options.command.empty() && arg.rfind("-", 0) != 0) {
            options.command = arg;
        } else if (arg == "--pack") {
            if (!value(options.packPath))
                return usageError("rules", "--pack needs a file");
        } else if (arg == "--severity") {
            if (!value(options.severity))
                return usageError("rules", "--severity needs fatal, warning or info");
            if (options.severity != "fatal" && options.severity != "warning" && options.severity != "info")
                return usageError("rules", "--severity takes fatal, warning or info, not '" + options.severity + "'");
        } else if (arg == "--rule") {
            if (!value(options.ruleId))
                return usageError("rules", "--rule needs a rule id");
        } else if (arg == "--full") {
            options.full = true;
        } else if (arg == "--json") {
            options.json = true;
        } else {
            return usageError("rules", "unknown option '" + arg + "'");
        }
    }
    if (options.command != "run" && options.command != "list" && options.command != "results")
        return usageError("rules", options.command.empty() ? "say run, list or results"
                                                           : "unknown rules command '" + options.command + "'");
    const bool packOptions = !options.packPath.empty() || options.full;
    const bool resultOptions = !options.severity.empty() || !options.ruleId.empty();
    if ((options.command == "results" && packOptions) || (options.command != "results" && resultOptions)
        || (options.command == "list" && options.full))
        return usageError("rules", "that option does not apply to 'rules " + options.command + "'");
    if (options.command == "results")
        return listResults(context, options);

    std::unique_ptr<Model> model = context.loadModel();
    if (!model)
        return kExitFailed;
    RulePack pack;
    try {
        pack = options.packPath.empty() ? loadStarterRulePack(*model) : loadRulePack(options.packPath, *model);
    } catch (const RulePackError &e) {
        std::cerr << "steward-cli: rule pack error: " << e.what() << "\n";
        return kExitFailed;
    }
    return options.command == "run" ? runPack(context, options, *model, pack) : listPack(options, pack);
}
