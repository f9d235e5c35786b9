// steward-cli fix: bulk edits of one field, descriptor mappings for drafts, and their undo.
#include "BulkEdit.h"
#include "Cli.h"
#include "Clock.h"
#include "CommandLine.h"
#include "Database.h"
#include "EditJournal.h"
#include "Engine.h"

#include <functional>
#include <iomanip>
#include <iostream>
#include <map>

using namespace steward;

namespace {

const char *const kFixHelp =
    "Usage: steward-cli [--db PATH] [--schema PATH]... fix SUBCOMMAND ...\n"
    "\n"
    "  fix set --field PATH (--value JSON | --remove) SELECTION [--dry-run] [--json]\n"
    "      Sets (or removes) one field, given as a JSON path ($.entryDate, $.schoolReference.schoolId,\n"
    "      $.addresses[*].city), in every selected document and draft. Prints one row per target:\n"
    "      the value before and after and the outcome (valid, still a draft, unchanged, refused,\n"
    "      skipped). Without --dry-run the edit is applied in one transaction through the same\n"
    "      validation as any request, and its operation id is printed for `fix undo`. If any\n"
    "      document would be refused (for example an identity field of a resource that does not\n"
    "      allow identity updates), nothing is changed. A draft that now passes is stored and\n"
    "      leaves the drafts; one that does not keeps the new text and its new problem.\n"
    "      SELECTION, any of (combined):\n"
    "        --id ID...           stored documents by id\n"
    "        --draft N...         drafts by draft id\n"
    "        --resource R         every document and draft of a resource (School or schools);\n"
    "                             with --documents-only or --drafts-only, only those\n"
    "        --rule RULE_ID       every stored document a business rule flagged\n"
    "      --value takes JSON: quote strings, e.g. --value '\"2024-08-19\"' or --value 255901.\n"
    "\n"
    "  fix map-descriptor --descriptor NAME --from VALUE --to URI [--dry-run] [--json]\n"
    "      Every draft whose NAME fields (e.g. GradeLevelDescriptor) hold VALUE (compared without\n"
    "      case) gets URI there instead and is tried again. URI must be a stored descriptor.\n"
    "\n"
    "  fix undo OP_ID\n"
    "      Puts back every document and draft the operation changed, in one transaction. Refused,\n"
    "      with nothing changed, when any of them changed since or the operation was undone already.\n"
    "\n"
    "  fix history [--json]\n"
    "      The edit operations, newest first.\n"
    "\n"
    "  fix keep [--operations N] [--days D] [--json]\n"
    "      How long undo lasts in this database: an operation can be undone while it is among the\n"
    "      newest N and no older than D days (0: no limit of that kind). Defaults: 100 operations,\n"
    "      30 days. Older operations are let go as new ones are made; what they changed stays in\n"
    "      each document's history. Without options, prints the setting.\n"
    "\n"
    "--json prints one line of JSON instead of the table ({\"preview\":[..],\"result\":{..}}; history: [..]).\n"
    "\n"
    "Exit status: 0 done (or a dry run that could be applied), 1 refused, 2 usage or open error.\n"
    "\n"
    "Example: steward-cli fix set --resource StudentSchoolAssociation --drafts-only \\\n"
    "             --field '$.entryDate' --value '\"2024-08-19\"' --dry-run\n";

std::string shortened(const std::string &text, std::size_t width)
{
    std::string flat;
    for (char c : text)
        flat += (c == '\n' || c == '\t') ? ' ' : c;
    if (flat.size() <= width)
        return flat;
    // Cut on a UTF-8 character boundary so the table stays valid text.
    std::size_t cut = width - 3;
    while (cut > 0 && (static_cast<unsigned char>(flat[cut]) & 0xC0) == 0x80)
        --cut;
    return flat.substr(0, cut) + "...";
}

std::string valueText(const Json &value)
{
    return value.is_null() ? "(missing)" : dumpJson(value);
}

void printPreview(const EditPreview &preview)
{
    std::cout << std::left << std::setw(9) << "TARGET" << std::setw(38) << "KEY" << std::setw(26) << "RESOURCE"
              << std::setw(24) << "LABEL" << std::setw(32) << "BEFORE" << std::setw(32) << "AFTER" << std::setw(15)
              << "OUTCOME"
              << "REASON\n";
    // A mapping looks at every draft and a resource-wide edit at every document; the ones it leaves as
    // they are only make the list long, so the text shows what changes (--json has every row).
    for (const EditPreviewRow &row : preview.rows) {
        if (row.outcome == EditOutcome::Unchanged)
            continue;
        std::cout << std::left << std::setw(9) << (row.target == EditTarget::Draft ? "draft" : "document")
                  << std::setw(38) << row.key << std::setw(26) << row.resource << std::setw(24)
                  << shortened(row.label, 22) << std::setw(32) << shortened(valueText(row.before), 30)
                  << std::setw(32) << shortened(valueText(row.after), 30) << std::setw(15)
                  << editOutcomeName(row.outcome) << row.reason << "\n";
    }
    std::cout << preview.rows.size() << " target(s): " << preview.count(EditOutcome::Valid) << " valid, "
              << preview.count(EditOutcome::StillDraft) << " still a draft, " << preview.count(EditOutcome::Unchanged)
              << " unchanged (not listed), " << preview.count(EditOutcome::Refused) << " refused, "
              << preview.count(EditOutcome::Skipped) << " skipped\n";
}

void printResult(const CliContext &context, const EditResult &result)
{
    if (result.opId == 0) {
        std::cout << "Nothing changed; no operation was recorded.\n";
        return;
    }
    std::cout << "Applied as operation " << result.opId << ": " << result.documentsChanged
              << " document(s) changed, " << result.draftsStored << " draft(s) stored, " << result.draftsStillFailing
              << " draft(s) still failing, " << result.unchanged << " unchanged, " << result.skipped
              << " skipped. Undo with: " << context.suggestion("fix undo " + std::to_string(result.opId)) << "\n";
}

struct Options
{
    std::map<std::string, std::string> single; // --field, --value, --resource, --rule, --descriptor, --from, --to
    std::vector<std::string> ids;
    std::vector<std::string> drafts;
    std::vector<std::string> positional;
    bool remove = false;
    bool dryRun = false;
    bool json = false;
    bool documentsOnly = false;
    bool draftsOnly = false;
};

// False (the mistake said) when the arguments do not parse.
bool parseOptions(const std::vector<std::string> &args, Options &options)
{
    CommandLine line("fix");
    for (const char *name :
         {"--field", "--value", "--resource", "--rule", "--descriptor", "--from", "--to", "--operations", "--days"})
        line.value(name, [name, &options](const std::string &value) {
            if (!options.single.emplace(name, value).second)
                return std::string(name) + " given twice";
            return std::string();
        });
    return line.list("--id", options.ids)
        .list("--draft", options.drafts)
        .flag("--remove", options.remove)
        .flag("--dry-run", options.dryRun)
        .flag("--json", options.json)
        .flag("--documents-only", options.documentsOnly)
        .flag("--drafts-only", options.draftsOnly)
        .words(options.positional)
        .parse(args, 1);
}

struct Session
{
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    std::unique_ptr<Engine> engine;
    std::unique_ptr<BulkEditor> editor;
};

bool openSession(const CliContext &context, Session &session)
{
    if (!context.openModelAndDatabase(session.model, session.database))
        return false;
    session.engine = std::make_unique<Engine>(*session.model, *session.database);
    session.editor = std::make_unique<BulkEditor>(*session.engine, *session.database);
    return true;
}

// A refused edit or a database error is one line on stderr and exit 1; nothing was written.
int reportingEditErrors(const std::function<int()> &work)
{
    try {
        return work();
    } catch (const EditRefused &e) {
        std::cerr << "steward-cli: " << e.what() << "\n";
        return kExitFailed;
    } catch (const StorageError &e) {
        std::cerr << "steward-cli: database error: " << e.what() << "\n";
        return kExitFailed;
    }
}

// Prints the preview; --dry-run stops there (exit 1 when the preview refuses something, as the
// apply would), otherwise applies and prints the result.
int previewThenApply(const CliContext &context, const Options &options,
                     const std::function<EditPreview()> &makePreview, const std::function<EditResult()> &apply)
{
    const EditPreview preview = makePreview();
    if (options.dryRun) {
        if (options.json)
            std::cout << dumpJson(Json{{"preview", preview.toJson()}}) << "\n";
        else
            printPreview(preview);
        return preview.refusals().empty() ? kExitOk : kExitFailed;
    }
    if (!options.json)
        printPreview(preview);
    const EditResult result = apply();
    if (options.json)
        std::cout << dumpJson(Json{{"preview", preview.toJson()}, {"result", result.toJson()}}) << "\n";
    else
        printResult(context, result);
    return kExitOk;
}

int runSet(const CliContext &context, const Options &options)
{
    if (!options.single.count("--field"))
        return usageError("fix", "fix set needs --field PATH");
    if (options.remove == (options.single.count("--value") > 0))
        return usageError("fix", "fix set needs exactly one of --value JSON and --remove");
    if (options.documentsOnly && options.draftsOnly)
        return usageError("fix", "--documents-only and --drafts-only exclude each other");
    if ((options.documentsOnly || options.draftsOnly) && !options.single.count("--resource"))
        return usageError("fix", "--documents-only and --drafts-only go with --resource");
    if (!options.positional.empty())
        return usageError("fix", "unexpected argument '" + options.positional.front() + "'");
    FieldEdit edit;
    edit.path = options.single.at("--field");
    if (!options.remove) {
        JsonParseResult parsed = parseJson(options.single.at("--value"));
        if (!parsed.value)
            return usageError("fix", "--value takes JSON (quote strings: --value '\"text\"'): " + parsed.error);
        edit.value = *parsed.value;
    }
    EditSelection selection;
    for (const std::string &draft : options.drafts) {
        try {
            std::size_t used = 0;
            selection.draftIds.push_back(std::stoll(draft, &used));
            if (used != draft.size())
                throw std::invalid_argument(draft);
        } catch (const std::exception &) {
            return usageError("fix", "--draft takes draft ids (whole numbers), not '" + draft + "'");
        }
    }
    selection.documentIds = options.ids;
    if (selection.empty() && !options.single.count("--resource") && !options.single.count("--rule"))
        return usageError("fix", "fix set needs a selection: --id, --draft, --resource or --rule");

    Session session;
    if (!openSession(context, session))
        return kExitUsage;
    return reportingEditErrors([&] {
        if (options.single.count("--resource")) {
            const EditSelection more = session.editor->selectResource(
                options.single.at("--resource"), !options.draftsOnly, !options.documentsOnly);
            selection.documentIds.insert(selection.documentIds.end(), more.documentIds.begin(), more.documentIds.end());
            selection.draftIds.insert(selection.draftIds.end(), more.draftIds.begin(), more.draftIds.end());
        }
        if (options.single.count("--rule")) {
            const EditSelection more = session.editor->selectRule(options.single.at("--rule"));
            selection.documentIds.insert(selection.documentIds.end(), more.documentIds.begin(), more.documentIds.end());
        }
        return previewThenApply(
            context, options, [&] { return session.editor->preview(selection, edit); },
            [&] { return session.editor->apply(selection, edit); });
    });
}

int runMapDescriptor(const CliContext &context, const Options &options)
{
    for (const char *name : {"--descriptor", "--from", "--to"})
        if (!options.single.count(name))
            return usageError("fix", std::string("fix map-descriptor needs ") + name);
    if (!options.positional.empty() || !options.ids.empty() || !options.drafts.empty())
        return usageError("fix", "fix map-descriptor goes to every draft; it takes no selection");
    Session session;
    if (!openSession(context, session))
        return kExitUsage;
    const std::string &descriptor = options.single.at("--descriptor");
    const std::string &from = options.single.at("--from");
    const std::string &to = options.single.at("--to");
    return reportingEditErrors([&] {
        return previewThenApply(
            context, options, [&] { return session.editor->previewDescriptorMapping(descriptor, from, to); },
            [&] { return session.editor->mapDescriptorValue(descriptor, from, to); });
    });
}

int runUndo(const CliContext &context, const Options &options)
{
    if (options.positional.size() != 1)
        return usageError("fix", "fix undo takes one operation id");
    std::int64_t opId = 0;
    try {
        std::size_t used = 0;
        opId = std::stoll(options.positional.front(), &used);
        if (used != options.positional.front().size() || opId <= 0)
            throw std::invalid_argument("not an id");
    } catch (const std::exception &) {
        return usageError("fix", "fix undo takes an operation id (a whole number), not '" + options.positional.front()
                                     + "'");
    }
    Session session;
    if (!openSession(context, session))
        return kExitUsage;
    return reportingEditErrors([&] {
        const UndoResult result = session.editor->undo(opId);
        std::cout << "Undid operation " << result.opId << ": " << result.documentsRestored
                  << " document(s) and " << result.draftsRestored << " draft(s) restored.\n";
        return kExitOk;
    });
}

int runHistory(const CliContext &context, const Options &options)
{
    if (!options.positional.empty())
        return usageError("fix", "fix history takes no arguments besides --json");
    Session session;
    if (!openSession(context, session))
        return kExitUsage;
    const std::vector<EditOperation> operations = session.editor->journal().operations(1000);
    if (options.json) {
        Json out = Json::array();
        for (const EditOperation &op : operations)
            out.push_back(op.toJson());
        std::cout << dumpJson(out) << "\n";
        return kExitOk;
    }
    std::cout << std::left << std::setw(6) << "OP" << std::setw(16) << "KIND" << std::setw(22) << "CREATED"
              << std::setw(14) << "ACTOR" << std::setw(7) << "ITEMS" << std::setw(22) << "UNDONE"
              << "SUMMARY\n";
    for (const EditOperation &op : operations)
        std::cout << std::left << std::setw(6) << op.opId << std::setw(16) << op.kind << std::setw(22) << op.createdAt
                  << std::setw(14) << shortened(op.actor, 12) << std::setw(7) << op.itemCount << std::setw(22)
                  << (op.undone() ? op.undoneAt : "-") << op.summary << "\n";
    return kExitOk;
}

// --operations / --days: a whole number from 0 to 1,000,000 into `target`; false (said) otherwise.
bool readKeepLimit(const Options &options, const char *name, int &target)
{
    const auto found = options.single.find(name);
    if (found == options.single.end())
        return true;
    long long value = -1;
    std::size_t used = 0;
    try {
        value = std::stoll(found->second, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used == 0 || used != found->second.size() || value < 0 || value > 1000000) {
        usageError("fix", std::string(name) + " takes a whole number from 0 (no limit) to 1000000, not '"
                              + found->second + "'");
        return false;
    }
    target = static_cast<int>(value);
    return true;
}

int runKeep(const CliContext &context, const Options &options)
{
    if (!options.positional.empty())
        return usageError("fix", "fix keep takes --operations N and --days D");
    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitUsage;
    return reportingEditErrors([&] {
        UndoRetention retention = UndoRetention::read(database->connection());
        const bool changes = options.single.count("--operations") != 0 || options.single.count("--days") != 0;
        if (!readKeepLimit(options, "--operations", retention.operations)
            || !readKeepLimit(options, "--days", retention.days))
            return kExitUsage;
        if (changes) {
            ImmediateTransaction transaction(database->connection());
            retention.write(database->connection());
            EditJournal(database->connection()).forgetBeyond(retention, engineNowText());
            transaction.commit();
        }
        auto limit = [](int value, const char *unit) {
            return value == 0 ? std::string("no limit of ") + unit : std::to_string(value) + " " + unit;
        };
        if (options.json)
            std::cout << dumpJson(Json{{"operations", retention.operations}, {"days", retention.days}}) << "\n";
        else
            std::cout << "Undo lasts for the newest " << limit(retention.operations, "operations") << " and "
                      << limit(retention.days, "days") << ".\n";
        return kExitOk;
    });
}

} // namespace

int commandFix(const CliContext &context, const std::vector<std::string> &args)
{
    if (args.empty() || wantsHelp(args)) {
        std::cout << kFixHelp;
        return args.empty() ? kExitUsage : kExitOk;
    }
    Options options;
    if (!parseOptions(args, options))
        return kExitUsage;
    const std::string &sub = args.front();
    if (sub == "set")
        return runSet(context, options);
    if (sub == "map-descriptor")
        return runMapDescriptor(context, options);
    if (sub == "undo")
        return runUndo(context, options);
    if (sub == "history")
        return runHistory(context, options);
    if (sub == "keep")
        return runKeep(context, options);
    return usageError("fix", "unknown fix subcommand '" + sub + "' (set, map-descriptor, undo, history, keep)");
}
