#include "Cli.h"
#include "CommandLine.h"
#include "Engine.h"
#include "ExternalResults.h"
#include "Rules.h"
#include "PrivateFiles.h"
#include "TableExport.h"

#include <QSaveFile>

#include <iostream>
#include <map>
#include <set>

using namespace steward;

namespace {

const char *const kRulesHelp =
    "Usage: steward-cli [--db PATH] [--schema PATH]... rules run [--pack P] [--year Y] [--collection C] [--full] [--json]\n"
    "       steward-cli [--db PATH] [--schema PATH]... rules list [--pack P] [--year Y] [--collection C] [--json]\n"
    "       steward-cli [--db PATH] [--schema PATH]... rules import FILE [--json]\n"
    "       steward-cli [--db PATH] [--schema PATH]... rules export [P] [--out FILE]\n"
    "       steward-cli [--db PATH] [--schema PATH]... rules diff OLD NEW [--json]\n"
    "       steward-cli [--db PATH] rules packs [--json]\n"
    "       steward-cli [--db PATH] rules results [--origin O] [--kind rules|imported] [--severity S] [--rule ID]\n"
    "                                             [--id DOC] [--unmatched] [--json]\n"
    "       steward-cli [--db PATH] [--schema PATH]... rules import-results FILE [--mapping FILE] [--source NAME]\n"
    "                                             [--run-date DATE] [--unmatched-out FILE] [--json]\n"
    "       steward-cli [--db PATH] rules ack RULE DOC --reason TEXT [--origin O] [--by NAME]\n"
    "       steward-cli [--db PATH] rules unack RULE DOC [--origin O]\n"
    "\n"
    "Business rules beyond the schema, and the state's verdict on what was submitted. A rule pack is a\n"
    "versioned JSON file (docs/architecture.md \"Rule packs\"): rules with stable ids, a severity (fatal,\n"
    "error, warning, info), the school years and collections they apply to, and one SELECT over read-only\n"
    "views of the stored documents. Results are stored per failing document and rule; a later run checks\n"
    "only what changed since.\n"
    "\n"
    "Commands:\n"
    "  run             run a pack and store its results; prints counts by severity and the first results.\n"
    "  list            print a pack's rules (id, severity, resource, years, collections, title).\n"
    "  import          store a pack file in the database (every version is kept) and print what changed\n"
    "                  against the version stored before it. A rule id is never reused.\n"
    "  export          write a pack (stored, or the built-in starter pack) as a file to share.\n"
    "  diff            what changed from pack OLD to pack NEW: rules added, removed, severity changed.\n"
    "  packs           the stored packs and their versions.\n"
    "  results         Steward's results and imported ones side by side, most severe first, with their source.\n"
    "  import-results  read the results a state portal exported (CSV or .xlsx through a results mapping, or\n"
    "                  JSON lines), match each to a stored document by its Ed-Fi id or natural key, and\n"
    "                  replace that source's earlier results. Prints matched, unmatched (and why), and how\n"
    "                  many of the earlier results were fixed.\n"
    "  ack             acknowledge a warning with a reason: it then stops blocking readiness. A fatal or\n"
    "                  error result cannot be acknowledged.\n"
    "  unack           take an acknowledgement back.\n"
    "\n"
    "Options:\n"
    "  --pack P          a pack file, a stored pack's id (its newest version) or ID@VERSION, or \"starter\".\n"
    "                    Default: the built-in starter pack.\n"
    "  --year Y          only rules for school year Y (2026 is the 2025-26 school year).\n"
    "  --collection C    only rules of the collection C (\"Fall enrollment\").\n"
    "  --full            check every document, not only those changed since the pack's last run.\n"
    "  --out FILE        (export) write here instead of standard output.\n"
    "  --origin O        a pack id or results source name.\n"
    "  --kind K          rules (Steward's own) or imported.\n"
    "  --severity S      only results of severity S (fatal, error, warning or info).\n"
    "  --rule ID         only results of the rule ID.\n"
    "  --id DOC          only results of the document DOC.\n"
    "  --unmatched       only imported results that matched no stored document.\n"
    "  --mapping FILE    (import-results) how the file's columns read (steward-cli mapping suggest --results).\n"
    "  --source NAME     (import-results) the results' source; a new file replaces its earlier results.\n"
    "                    Default: state.\n"
    "  --run-date DATE   (import-results) when the state ran its rules: a record edited after it shows\n"
    "                    \"changed since: resubmit to clear\". Default: the file's run date column, if any.\n"
    "  --unmatched-out FILE  (import-results) the rows that matched nothing, as CSV with their row numbers.\n"
    "  --reason TEXT     (ack) why the warning may stand.\n"
    "  --by NAME         (ack) who acknowledges. Default: the user's login name.\n"
    "  --json            machine-readable output.\n"
    "\n"
    "Exit status: 0 when the command completed (whatever the rules found), 1 when a pack, a results file\n"
    "or an acknowledgement is refused, 2 for a usage error.\n"
    "\n"
    "Example: steward-cli rules import tx-fall-2026.json && steward-cli rules run --pack tx-fall --year 2026\n"
    "         steward-cli rules import-results fall-errors.csv --mapping tsds.json --run-date 2026-11-20\n";

struct RulesOptions
{
    std::string command;
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;
    std::set<std::string> flags;

    std::string value(const std::string &name) const
    {
        auto it = values.find(name);
        return it == values.end() ? std::string() : it->second;
    }
    bool has(const std::string &name) const { return flags.count(name) > 0 || values.count(name) > 0; }
};

// Which options each command takes, and how many positional arguments.
struct CommandShape
{
    std::set<std::string> options;
    std::size_t positional;
};
const std::map<std::string, CommandShape> kCommands = {
    {"run", {{"--pack", "--year", "--collection", "--full", "--json"}, 0}},
    {"list", {{"--pack", "--year", "--collection", "--json"}, 0}},
    {"import", {{"--json"}, 1}},
    {"export", {{"--out"}, 99}},
    {"diff", {{"--json"}, 2}},
    {"packs", {{"--json"}, 0}},
    {"results", {{"--origin", "--kind", "--severity", "--rule", "--id", "--unmatched", "--json"}, 0}},
    {"import-results", {{"--mapping", "--source", "--run-date", "--unmatched-out", "--json"}, 1}},
    {"ack", {{"--reason", "--origin", "--by"}, 2}},
    {"unack", {{"--origin"}, 2}},
};
const std::set<std::string> kFlags = {"--full", "--json", "--unmatched"};

void printResult(const QualityResult &result)
{
    std::cout << "  " << result.severity << "  " << result.ruleId << "  ";
    if (result.docId.empty())
        std::cout << "(matches no record: " << result.unmatched << ")";
    else
        std::cout << result.resource << " " << result.naturalKey << " (" << result.docId << ")";
    std::cout << ": " << result.message;
    if (result.originKind == "imported")
        std::cout << "  [" << result.originLabel << ", row " << result.row << "]";
    if (result.changedSince)
        std::cout << "  changed since: resubmit to clear";
    if (result.acknowledged)
        std::cout << "  acknowledged by " << result.ackActor << ": " << result.ackReason;
    std::cout << "\n";
}

int refused(const std::string &what, const std::exception &e)
{
    std::cerr << "steward-cli: " << what << e.what() << "\n";
    return kExitFailed;
}

int runPack(const CliContext &context, const RulesOptions &options, const Model &model, const RulePack &pack)
{
    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitFailed;
    RuleRunOptions runOptions;
    runOptions.full = options.has("--full");
    RuleRunReport report;
    try {
        report = runRules(pack, model, *database, runOptions);
    } catch (const RulePackError &e) {
        return refused("", e);
    } catch (const StorageError &e) {
        return refused("database error: ", e);
    }
    QualityResultFilter filter;
    filter.origin = pack.id;
    filter.kind = "rules";
    if (options.has("--json")) {
        Json output = report.toJson();
        Json results = Json::array();
        for (const QualityResult &result : readQualityResults(database->connection(), filter))
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
              << "Now: " << total("fatal") << " fatal, " << total("error") << " error, " << total("warning")
              << " warning, " << total("info") << " info.\n";
    filter.limit = 20;
    const std::vector<QualityResult> first = readQualityResults(database->connection(), filter);
    if (!first.empty()) {
        std::cout << "\nFirst results (" << context.suggestion("rules results") << " for all):\n";
        for (const QualityResult &result : first)
            printResult(result);
    }
    return kExitOk;
}

std::string joined(const std::vector<std::string> &items)
{
    std::string out;
    for (const std::string &item : items)
        out += (out.empty() ? "" : ", ") + item;
    return out;
}

std::string yearsText(const Rule &rule)
{
    std::vector<std::string> years;
    for (int year : rule.schoolYears)
        years.push_back(std::to_string(year));
    return years.empty() ? "every year" : joined(years);
}

int listPack(const RulesOptions &options, const RulePack &pack)
{
    if (options.has("--json")) {
        Json rules = Json::array();
        for (const Rule &rule : pack.rules)
            rules.push_back({{"id", rule.id},
                             {"severity", rule.severity},
                             {"resource", rule.resource},
                             {"title", rule.title},
                             {"message", rule.message},
                             {"fix", rule.fix},
                             {"schoolYears", rule.schoolYears},
                             {"collections", rule.collections},
                             {"dependsOn", rule.dependsOn}});
        std::cout << Json{{"pack", pack.id}, {"title", pack.title}, {"version", pack.version},
                          {"publisher", pack.publisher}, {"rules", rules}}
                         .dump(2)
                  << "\n";
        return kExitOk;
    }
    std::cout << pack.title << " (" << pack.id << " " << pack.version << "), " << pack.rules.size() << " rules:\n";
    for (const Rule &rule : pack.rules)
        std::cout << "  " << rule.id << "  " << rule.severity << "  " << rule.resource << ": " << rule.title << "  ["
                  << yearsText(rule) << "; " << (rule.collections.empty() ? "every collection" : joined(rule.collections))
                  << "]\n";
    return kExitOk;
}

void printChanges(const std::vector<RulePackChange> &changes)
{
    for (const RulePackChange &change : changes) {
        if (change.kind == "added")
            std::cout << "  + " << change.ruleId << " (" << change.to << ") added\n";
        else if (change.kind == "removed")
            std::cout << "  - " << change.ruleId << " (" << change.from << ") removed\n";
        else if (change.kind == "severity")
            std::cout << "  ~ " << change.ruleId << " severity " << change.from << " -> " << change.to << "\n";
        else
            std::cout << "  ~ " << change.ruleId << " changed (query, message, fix or scope)\n";
    }
}

Json changesJson(const std::vector<RulePackChange> &changes)
{
    Json out = Json::array();
    for (const RulePackChange &change : changes)
        out.push_back({{"rule", change.ruleId}, {"kind", change.kind}, {"from", change.from}, {"to", change.to}});
    return out;
}

int importPack(const CliContext &context, const RulesOptions &options, const Model &model)
{
    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitFailed;
    try {
        const RulePack pack = loadRulePack(options.positional[0], model);
        const RulePackImport outcome = importRulePack(*database, pack, currentOsUser(), model);
        if (options.has("--json")) {
            std::cout << Json{{"pack", pack.id}, {"version", pack.version}, {"rules", pack.rules.size()},
                              {"alreadyStored", outcome.alreadyStored}, {"previousVersion", outcome.previousVersion},
                              {"changes", changesJson(outcome.changes)}}
                             .dump(2)
                      << "\n";
            return kExitOk;
        }
        std::cout << (outcome.alreadyStored ? "Already stored: " : "Stored ") << pack.id << " " << pack.version << " ("
                  << pack.rules.size() << " rules).\n";
        if (!outcome.previousVersion.empty()) {
            std::cout << "Against " << outcome.previousVersion << ": " << outcome.changes.size() << " change(s).\n";
            printChanges(outcome.changes);
        }
        return kExitOk;
    } catch (const RulePackError &e) {
        return refused("rule pack refused: ", e);
    } catch (const StorageError &e) {
        return refused("database error: ", e);
    }
}

int exportPack(const RulesOptions &options, const RulePack &pack)
{
    JsonParseResult parsed = parseJson(pack.content);
    const std::string text = (parsed.value ? parsed.value->dump(2) : pack.content) + "\n";
    const std::string out = options.value("--out");
    if (out.empty()) {
        std::cout << text;
        return kExitOk;
    }
    QSaveFile file(QString::fromStdString(out));
    if (!openPrivateForWriting(file) || file.write(text.data(), static_cast<qint64>(text.size())) < 0
        || !file.commit()) {
        std::cerr << "steward-cli: " << out << ": cannot be written: " << file.errorString().toStdString() << "\n";
        return kExitFailed;
    }
    std::cout << "Wrote " << pack.id << " " << pack.version << " (" << pack.rules.size() << " rules) to " << out << "\n";
    return kExitOk;
}

int listStoredPacks(const CliContext &context, const RulesOptions &options)
{
    std::unique_ptr<Database> database = context.openReadOnlyDatabase();
    if (!database)
        return kExitFailed;
    const std::vector<StoredRulePack> packs = storedRulePacks(database->connection());
    Json list = Json::array();
    for (const StoredRulePack &pack : packs) {
        if (options.has("--json"))
            list.push_back({{"pack", pack.id}, {"version", pack.version}, {"title", pack.title},
                            {"importedAt", pack.importedAt}, {"importedBy", pack.importedBy}});
        else
            std::cout << "  " << pack.id << " " << pack.version << "  " << pack.title << "  (imported " << pack.importedAt
                      << " by " << pack.importedBy << ")\n";
    }
    if (options.has("--json"))
        std::cout << list.dump(2) << "\n";
    else
        std::cout << packs.size() << " stored pack version(s); the built-in starter pack is always there.\n";
    return kExitOk;
}

int listResults(const CliContext &context, const RulesOptions &options)
{
    std::unique_ptr<Database> database = context.openReadOnlyDatabase();
    if (!database)
        return kExitFailed;
    QualityResultFilter filter;
    filter.origin = options.value("--origin");
    filter.kind = options.value("--kind");
    filter.severity = options.value("--severity");
    filter.ruleId = options.value("--rule");
    filter.docId = options.value("--id");
    if (options.has("--unmatched"))
        filter.records = QualityResultFilter::Records::Unmatched;
    const std::vector<QualityResult> results = readQualityResults(database->connection(), filter);
    for (const QualityResult &result : results) {
        if (options.has("--json"))
            std::cout << result.toJson().dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
        else
            printResult(result);
    }
    if (!options.has("--json"))
        std::cout << results.size() << " result(s).\n";
    return kExitOk;
}

TextTable unmatchedResults(const ResultsImportReport &report)
{
    TextTable table{{"row", "rule", "reason"}, {}};
    for (const UnmatchedResult &u : report.unmatched)
        table.rows.push_back({std::to_string(u.row), u.ruleId, u.reason});
    return table;
}

int importResults(const CliContext &context, const RulesOptions &options, const Model &model)
{
    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitFailed;
    InterruptGuard interrupt;
    try {
        std::optional<ResultsMapping> mapping;
        if (options.has("--mapping"))
            mapping = loadResultsMapping(options.value("--mapping"), model);
        ResultsImportOptions importOptions;
        if (options.has("--source"))
            importOptions.source = options.value("--source");
        importOptions.runAt = options.value("--run-date");
        importOptions.actor = currentOsUser();
        importOptions.progress = [&](std::int64_t) { return !interrupt.interrupted(); };
        const std::string file = options.positional[0];
        const ResultsImportReport report =
            importExternalResults(*database, model, file, mapping ? &*mapping : nullptr, importOptions);
        if (report.cancelled) {
            std::cerr << "steward-cli: stopped; the earlier results of " << importOptions.source << " are unchanged\n";
            return kExitFailed;
        }
        if (options.has("--unmatched-out")) {
            try {
                writeCsv(options.value("--unmatched-out"), unmatchedResults(report));
            } catch (const StorageError &e) {
                // The results are stored; only the list of rows that matched nothing is missing.
                std::cerr << "steward-cli: " << e.what() << "\n";
                return kExitFailed;
            }
        }
        if (options.has("--json")) {
            std::cout << report.toJson().dump(2) << "\n";
            return kExitOk;
        }
        std::cout << "Source " << report.source << ": " << report.rows << " result(s) from " << file << ", "
                  << report.matched << " matched to stored records, " << report.rows - report.matched
                  << " matched nothing.\n";
        if (report.replaced)
            std::cout << "Against the source's earlier results: " << report.fixed << " fixed, " << report.still
                      << " still there, " << report.added << " new.\n";
        std::size_t shown = 0;
        for (const UnmatchedResult &u : report.unmatched) {
            if (shown++ == 10) {
                std::cout << "  ... and " << report.unmatched.size() - 10
                          << " more (rules results --unmatched, or --unmatched-out FILE)\n";
                break;
            }
            std::cout << "  row " << u.row << " (" << u.ruleId << "): " << u.reason << "\n";
        }
        return kExitOk;
    } catch (const ResultsImportError &e) {
        return refused("results refused, nothing stored: ", e);
    } catch (const StorageError &e) {
        return refused("database error: ", e);
    }
}

int acknowledge(const CliContext &context, const RulesOptions &options, bool take)
{
    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitFailed;
    const std::string &rule = options.positional[0];
    const std::string &doc = options.positional[1];
    try {
        if (!take) {
            const bool removed = unacknowledgeResult(*database, options.value("--origin"), rule, doc);
            std::cout << (removed ? "Taken back: " : "Nothing to take back: ") << rule << " on " << doc << "\n";
            return kExitOk;
        }
        if (!options.has("--reason"))
            return usageError("rules", "ack needs --reason TEXT: why the warning may stand");
        const std::string by = options.has("--by") ? options.value("--by") : currentOsUser();
        const Acknowledgement ack = acknowledgeResult(*database, options.value("--origin"), rule, doc,
                                                      options.value("--reason"), by);
        std::cout << "Acknowledged " << ack.ruleId << " (" << ack.origin << ") on " << ack.docId << " by " << ack.actor
                  << " at " << ack.at << ": " << ack.reason << "\n";
        return kExitOk;
    } catch (const ResultsImportError &e) {
        return refused("not acknowledged: ", e);
    } catch (const StorageError &e) {
        return refused("database error: ", e);
    }
}

int parse(const std::vector<std::string> &args, RulesOptions &options)
{
    if (!args.empty() && args[0].rfind("-", 0) != 0) {
        options.command = args[0];
        if (kCommands.count(options.command) == 0)
            return usageError("rules", "unknown rules command '" + options.command + "'");
    } else if (!args.empty() && args[0].rfind("--", 0) == 0) {
        return usageError("rules", "say a command first (run, list, import, export, diff, packs, results, "
                                   "import-results, ack, unack)");
    }
    if (!options.command.empty()) {
        CommandLine line("rules", "rules " + options.command);
        for (const std::string &name : kCommands.at(options.command).options) {
            if (kFlags.count(name) > 0)
                line.flag(name, [&options, name] { options.flags.insert(name); });
            else
                line.text(name, options.values[name]);
        }
        if (!line.words(options.positional).parse(args, 1))
            return kExitUsage;
        // Only the options given have values.
        for (auto it = options.values.begin(); it != options.values.end();)
            it = it->second.empty() ? options.values.erase(it) : std::next(it);
    }
    if (options.command.empty())
        return usageError("rules", "say run, list, import, export, diff, packs, results, import-results, ack or unack");
    const std::size_t wanted = kCommands.at(options.command).positional;
    if (wanted != 99 && options.positional.size() != wanted)
        return usageError("rules", "'rules " + options.command + "' takes " + std::to_string(wanted) + " argument(s), not "
                                       + std::to_string(options.positional.size()));
    if (options.command == "export" && options.positional.size() > 1)
        return usageError("rules", "'rules export' takes one pack");
    const std::string severity = options.value("--severity");
    if (!severity.empty() && severity != "fatal" && severity != "error" && severity != "warning" && severity != "info")
        return usageError("rules", "--severity takes fatal, error, warning or info, not '" + severity + "'");
    const std::string kind = options.value("--kind");
    if (!kind.empty() && kind != "rules" && kind != "imported")
        return usageError("rules", "--kind takes rules or imported, not '" + kind + "'");
    int year = 0;
    if (options.has("--year") && !parseCount(options.value("--year"), 1900, 2200, year))
        return usageError("rules", "--year takes a school year such as 2026");
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
    if (const int status = parse(args, options); status != kExitOk)
        return status;
    if (options.command == "results")
        return listResults(context, options);
    if (options.command == "packs")
        return listStoredPacks(context, options);
    if (options.command == "ack" || options.command == "unack")
        return acknowledge(context, options, options.command == "ack");

    std::unique_ptr<Model> model = context.loadModel();
    if (!model)
        return kExitFailed;
    if (options.command == "import")
        return importPack(context, options, *model);
    if (options.command == "import-results")
        return importResults(context, options, *model);

    // The rest name packs, which may be stored: read them through a read-only connection when there is a database.
    std::unique_ptr<Database> stored;
    try {
        stored = Database::open(context.resolvedDatabasePath(), Database::Access::ReadOnly);
        context.warnIfReadableByOthers();
    } catch (const StorageError &) {
        stored.reset(); // no database yet: files and the starter pack still work
    }
    SQLite::Database *db = stored ? &stored->connection() : nullptr;
    try {
        if (options.command == "diff") {
            const RulePack older = resolveRulePack(db, options.positional[0], *model);
            const RulePack newer = resolveRulePack(db, options.positional[1], *model);
            const std::vector<RulePackChange> changes = diffRulePacks(older, newer);
            if (options.has("--json")) {
                std::cout << changesJson(changes).dump(2) << "\n";
                return kExitOk;
            }
            std::cout << older.id << " " << older.version << " -> " << newer.id << " " << newer.version << ": "
                      << changes.size() << " change(s).\n";
            printChanges(changes);
            return kExitOk;
        }
        if (options.command == "export")
            return exportPack(options, resolveRulePack(db, options.positional.empty() ? "" : options.positional[0], *model));
        int year = 0;
        if (options.has("--year"))
            parseCount(options.value("--year"), 1900, 2200, year);
        const RulePack pack =
            scopedRulePack(resolveRulePack(db, options.value("--pack"), *model), year, options.value("--collection"));
        stored.reset();
        if (options.command == "list")
            return listPack(options, pack);
        if (pack.rules.empty()) {
            std::cerr << "steward-cli: no rule of " << pack.id << " applies to that year and collection\n";
            return kExitFailed;
        }
        return runPack(context, options, *model, pack);
    } catch (const RulePackError &e) {
        return refused("rule pack error: ", e);
    }
}
