#include "Cli.h"
#include "CommandLine.h"
#include "Submissions.h"
#include "Conflicts.h"
#include "Credentials.h"
#include "Engine.h"
#include "SyncJobs.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>

#include <unistd.h>

using namespace steward;

namespace {

const char *const kSyncHelp =
    "Usage: steward-cli [--db PATH] [--schema PATH]... sync pull --from URL --client ID [OPTIONS]\n"
    "       steward-cli [--db PATH] [--schema PATH]... sync push --to URL --client ID [--dry-run|--plan-only] [--strict]\n"
    "                                                 [--retry-refused] [--allow-blind-creates] [--sign-off NAME]\n"
    "                                                 [--parallel N] [--rate R] [OPTIONS]\n"
    "       (pull and push also take [--ca-cert FILE] [--plain-http])\n"
    "       steward-cli [--db PATH] sync remember --url URL --client ID [--secret-env NAME]\n"
    "       steward-cli [--db PATH] sync status\n"
    "       steward-cli [--db PATH] [--schema PATH]... sync conflicts [--url URL] [--json]\n"
    "       steward-cli [--db PATH] [--schema PATH]... sync resolve ID [--url URL] [--take mine|theirs [--whole]]\n"
    "                   [--field PATH=mine|theirs|both|JSON]...\n"
    "\n"
    "pull     fetches every resource of the model from an Ed-Fi API in load order (paged GETs) and stores\n"
    "         each with full validation (refused ones become drafts); records the API's id of each so\n"
    "         later pushes update the same records. Running it again adds no duplicates. A document\n"
    "         changed here since the last sync is not overwritten: the two versions are merged field\n"
    "         by field, or kept as a conflict when both changed the same field (see conflicts).\n"
    "push     sends the changes made here since the last successful push to that API: identity changes\n"
    "         first, then creates/updates in load order, then deletes in reverse load order, matched by\n"
    "         natural key. The position in the change log moves only past what the API accepted; what it\n"
    "         refused is listed with its answer. A document the API has is sent with If-Match (the\n"
    "         version both sides last agreed on); when someone changed it there since, the two are\n"
    "         merged and the merge is sent, or it is kept as a conflict and not sent, with what\n"
    "         references it. Connection failures and 5xx answers are retried with\n"
    "         backoff; an interrupted push continues when run again. --dry-run asks the API first and\n"
    "         sends nothing: per document new / changed (with the fields) / unchanged there, and those it\n"
    "         would refuse (a descriptor value or a referenced document it does not have).\n"
    "remember stores the client secret (from --secret-env's variable) in the system keychain.\n"
    "status   lists the APIs this database syncs with, their push position, refused documents and\n"
    "         open conflicts.\n"
    "conflicts lists the documents changed on both sides in ways that do not merge: per field, the\n"
    "         version both last agreed on (base), this database's (mine) and the API's (theirs); a\n"
    "         collection item removed or replaced on one side and edited on the other is shown whole,\n"
    "         the three versions with the fields that differ between them.\n"
    "resolve  decides a conflict: --take mine|theirs for every field, --field PATH=mine|theirs|JSON\n"
    "         for one (JSON: a value of your own; null leaves the field out), or PATH=both for a\n"
    "         collection item, to keep mine's and theirs' items side by side. --whole takes one version as\n"
    "         it is. A delete against an edit, and a merge refused here (a required list left empty), are\n"
    "         decided with --take for the whole document. The decision is stored here and journaled (steward-cli fix undo\n"
    "         OP_ID opens the conflict again); the next push sends it with the API's current etag.\n"
    "\n"
    "Options:\n"
    "  --from URL, --to URL, --url URL   the Ed-Fi API's base URL (its discovery document's address)\n"
    "  --client ID         the client key the API issued; with its secret it buys an OAuth2 token.\n"
    "  --dry-run           (push) preview against the API (reads only) and send nothing.\n"
    "  --plan-only         (push) print the plan without contacting the API.\n"
    "  --strict            (push) refuse (exit 1, nothing sent) when the data is not ready to submit\n"
    "                      (drafts or fatal rule results; see steward-cli status). Without it, a warning.\n"
    "  --retry-refused     (push) send again what the API refused before and that has not changed since\n"
    "                      (by default such documents are listed as still refused and not sent).\n"
    "  --allow-blind-creates (push) create documents on an API that cannot say whether it already has one\n"
    "                      of that identity (its look-up fails) and does not check If-Match on a POST: such a\n"
    "                      create may replace a record someone else made there.\n"
    "  --parallel N        (push, pull) requests in flight at once, 1 to 64 (default 8, or what was given\n"
    "                      last time for that API: it is remembered). A document still goes only after\n"
    "                      what it references is accepted; an API that answers 429 or 503 with\n"
    "                      Retry-After slows the whole sync down until it takes them again.\n"
    "  --rate R            (push, pull) at most R requests a second (an API with a published limit).\n"
    "  --ca-cert FILE      (push, pull) trust the certificate authority in FILE (PEM), a district's own,\n"
    "                      in place of the system's list (as curl --cacert). The API's certificate is\n"
    "                      always verified: a refused one stops the sync and says why.\n"
    "  --plain-http        (push, pull) allow http:// to another machine: the client secret, the token\n"
    "                      and student records then cross the network unencrypted. Without it, http://\n"
    "                      is refused for any host but this machine (localhost, 127.0.0.1, ::1), before\n"
    "                      anything is looked up or sent.\n"
    "  --sign-off NAME     (push) once everything is pushed, record it as a submission NAME signed off,\n"
    "                      with the readiness verdict of now (see steward-cli submission).\n"
    "  --secret-env NAME   the environment variable holding the client secret (default\n"
    "                      STEWARD_CLIENT_SECRET); when it is not set, the system keychain is asked.\n"
    "  --report FILE       write what happened as JSON.\n"
    "  --json              (conflicts) the list as JSON.\n"
    "  --progress bar|json|none   progress on stderr (default: bar on a terminal).\n"
    "Exit code 0 when everything was pulled/pushed (drafts and refusals are outcomes), 1 when the run\n"
    "was cut off, 2 on usage errors or a missing secret.\n"
    "\n"
    "Example: STEWARD_CLIENT_SECRET=... steward-cli sync push --to http://127.0.0.1:8080 --client district\n";

struct SyncArgs
{
    std::string action;
    std::string url;
    std::string client;
    std::string secretEnv = "STEWARD_CLIENT_SECRET";
    std::string reportPath;
    std::string progressMode = isatty(STDERR_FILENO) ? "bar" : "none";
    std::string signOff;   // push: who signs off what was pushed
    std::string caCert;    // push, pull: a district's certificate authority (PEM)
    bool plainHttp = false; // push, pull: http:// to another machine, on purpose
    bool dryRun = false;   // push: preview against the target
    bool planOnly = false; // push: the plan, offline
    bool strict = false;   // push: refuse when not ready to submit
    PushSettings push;     // push: --allow-blind-creates, --retry-refused
    SyncPace pace;         // push, pull: --parallel, --rate
    bool json = false;     // conflicts: as JSON
    std::string id;        // resolve: the document
    std::optional<MergeChoice> take;           // resolve --take
    std::map<std::string, MergeChoice> fields; // resolve --field
    bool wholeDocument = false;                // resolve --whole
};

bool showProgress(const std::string &mode, const SyncProgress &p, const InterruptGuard &interrupt)
{
    if (mode == "bar") {
        if (p.total > 0)
            std::fprintf(stderr, "\r%s %lld/%lld  %-40s", p.phase.c_str(), static_cast<long long>(p.done),
                         static_cast<long long>(p.total), p.resource.c_str());
        else
            std::fprintf(stderr, "\r%s %lld documents  %-40s", p.phase.c_str(), static_cast<long long>(p.done),
                         p.resource.c_str());
        std::fflush(stderr);
    } else if (mode == "json") {
        std::cerr << Json{{"phase", p.phase}, {"resource", p.resource}, {"documents", p.done}, {"documentsTotal", p.total}}.dump()
                  << "\n";
    }
    return !interrupt.interrupted();
}

void printPlan(const PushPlan &plan)
{
    std::cout << "Push plan: " << plan.items.size() << " documents (changes " << plan.fromSeq + 1 << ".."
              << plan.toSeq << ")\n";
    for (const auto &[resource, operations] : plan.counts()) {
        std::cout << "  " << resource;
        for (const auto &[operation, count] : operations)
            std::cout << "  " << operation << " " << count;
        std::cout << "\n";
    }
}

void printPreview(const PushPreview &preview)
{
    for (const PushPreviewItem &item : preview.items) {
        if (item.state == PushPreviewItem::State::Unchanged)
            continue;
        std::cout << previewStateName(item.state) << "  " << item.resource << " " << item.naturalKey << " (" << item.id
                  << ")\n";
        for (const std::string &reason : item.reasons)
            std::cout << "    " << reason << "\n";
        for (const FieldChange &change : item.changes)
            std::cout << "    " << change.path << ": " << (change.before.is_null() ? "-" : dumpJson(change.before))
                      << " -> " << (change.after.is_null() ? "-" : dumpJson(change.after)) << "\n";
    }
    std::cout << "On the target: " << preview.count(PushPreviewItem::State::New) << " new, "
              << preview.count(PushPreviewItem::State::Changed) << " changed, "
              << preview.count(PushPreviewItem::State::Unchanged) << " unchanged, "
              << preview.count(PushPreviewItem::State::Refused) << " it would refuse, "
              << preview.count(PushPreviewItem::State::Delete) << " to delete, "
              << preview.count(PushPreviewItem::State::Absent) << " deletes of what it does not have ("
              << preview.requests << " reads). Nothing was sent.\n";
}

// Counts as a steward reads them: what went out now, what the target had already, what was not sent
// and why, grouped (a few reasons, not a line per document).
void printPushSummary(const CliContext &context, const PushReport &report)
{
    std::cerr << "steward-cli: pushed " << report.sent << " document(s) now (" << report.merged
              << " merged with the target's changes); " << report.accepted - report.sent
              << " the target had already; " << report.refused << " refused now";
    if (report.stillRefused > 0)
        std::cerr << ", " << report.stillRefused << " still refused (unchanged since: not sent again)";
    if (report.cannotTell > 0)
        std::cerr << ", " << report.cannotTell << " not created (the target cannot tell whether it has them)";
    std::cerr << "; " << report.conflicts << " conflicts and " << report.waiting
              << " waiting (" << context.suggestion("sync conflicts") << "); change log position "
              << report.cursorBefore << " -> "
              << report.cursorAfter;
    std::cerr << "; " << report.requests << " requests, up to " << report.parallel << " at once";
    if (report.pushedBack > 0)
        std::cerr << "\nsteward-cli: the target asked for fewer requests " << report.pushedBack
                  << " time(s) (HTTP 429/503): the push slowed down to " << report.fewestInFlight
                  << " at once and waited as it asked";
    if (report.replaced > 0)
        std::cerr << "\nsteward-cli: " << report.replaced
                  << " create(s) replaced a record the target already had of that identity (it answered 200, not "
                     "201): kept as conflicts; this target is now asked by natural key before each create";
    for (const PushReport::Group &group : report.groups()) {
        std::cerr << "\n  " << group.count << "  " << group.reason;
        if (!group.behind.empty()) {
            std::cerr << "; they wait for " << group.behind.size() << " document(s): ";
            for (std::size_t i = 0; i < group.behind.size() && i < 5; ++i)
                std::cerr << (i == 0 ? "" : ", ") << group.behind[i];
            if (group.behind.size() > 5)
                std::cerr << ", ...";
        } else if (!group.examples.empty()) {
            std::cerr << "; e.g. ";
            for (std::size_t i = 0; i < group.examples.size(); ++i)
                std::cerr << (i == 0 ? "" : ", ") << group.examples[i];
        }
    }
}

void printPullSummary(const CliContext &context, const PullReport &report)
{
    const ImportCounts &t = report.outcome.totals;
    std::cerr << "steward-cli: pulled " << report.pages << " pages";
    if (report.incremental)
        std::cerr << " of changes up to change version " << *report.changeVersion;
    std::cerr << ": " << t.created << " created, " << t.updated << " updated, " << t.unchanged << " unchanged, "
              << t.drafts << " kept as drafts";
    if (report.incremental)
        std::cerr << ", " << report.deleted << " deleted";
    if (report.merged > 0 || report.keptHere > 0 || report.conflicts > 0)
        std::cerr << "; changed here too: " << report.merged << " merged, " << report.keptHere
                  << " kept for the push, " << report.conflicts << " conflicts kept for you ("
                  << context.suggestion("sync conflicts") << ")";
    for (const Json &refused : report.deletesRefused)
        std::cerr << "\nsteward-cli: the target deleted " << refused["resource"].get<std::string>() << " "
                  << refused["id"].get<std::string>() << ", but it stays here: "
                  << refused["problem"].value("detail", std::string());
    if (report.outcome.cancelled)
        std::cerr << "; stopped: pages stored so far stay";
    if (!report.outcome.error.empty())
        std::cerr << "; " << report.outcome.error;
    std::cerr << "\n";
}

// Every document the push did not deliver, a line each on stdout.
void printPushOutcomes(const PushReport &report)
{
    for (const PushOutcome &outcome : report.outcomes) {
        if (outcome.accepted)
            continue;
        const char *what = outcome.replaced              ? "replaced"
                           : outcome.conflict            ? "conflict"
                           : !outcome.waitingFor.empty() ? "waiting"
                           : outcome.stillRefused        ? "still-refused"
                           : outcome.cannotTell          ? "not-created"
                                                         : "refused";
        std::cout << what << "  " << operationName(outcome.operation) << " " << outcome.resource << " " << outcome.id
                  << " " << dumpJson(outcome.identity);
        if (outcome.status != 0)
            std::cout << "  HTTP " << outcome.status;
        std::cout << " " << dumpJson(outcome.problem) << "\n";
    }
}

// What a sync with a target needs once the arguments are read: the model, the database, the target
// connected with the client's secret, and a progress line that Ctrl-C stops.
struct SyncRun
{
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    std::unique_ptr<RemoteApi> remote;
    std::optional<InterruptGuard> interrupt; // from the moment there is something to stop cleanly
    SyncProgressFn progress;
};

// Connects to the target; the exit code when it cannot (said on stderr).
int connectTarget(const SyncArgs &args, SyncRun &run)
{
    const SecretLookup secret = findClientSecret(args.url, args.client, args.secretEnv);
    if (!secret.secret) {
        std::cerr << "steward-cli: " << secret.problem << "\n";
        return kExitUsage;
    }
    RemoteOptions options;
    options.url = args.url;
    options.client = args.client;
    options.secret = *secret.secret;
    options.caCertFile = args.caCert;
    options.plainHttp = args.plainHttp;
    run.remote = std::make_unique<RemoteApi>(options);
    std::string error;
    if (!run.remote->connect(&error)) {
        std::cerr << "steward-cli: " << error << "\n";
        return kExitFailed;
    }
    run.interrupt.emplace();
    const std::string mode = args.progressMode;
    run.progress = [mode, &interrupt = *run.interrupt](const SyncProgress &p) {
        return showProgress(mode, p, interrupt);
    };
    return kExitOk;
}

int pull(const CliContext &context, SyncRun &run, const SyncArgs &args)
{
    Engine engine(*run.model, *run.database);
    const PullReport report = runPull(engine, *run.database, *run.remote, args.client, run.progress, {}, args.pace);
    if (args.progressMode == "bar")
        std::fprintf(stderr, "\n");
    if (!args.reportPath.empty() && !writeReportFile(args.reportPath, report.outcome.toJson()))
        return kExitFailed;
    printPullSummary(context, report);
    return report.outcome.completed ? kExitOk : kExitFailed;
}

int preview(SyncRun &run, const SyncArgs &args)
{
    Engine engine(*run.model, *run.database);
    const PushPreview preview = previewPush(engine, *run.database, *run.remote, args.client, run.progress);
    if (args.progressMode == "bar")
        std::fprintf(stderr, "\n");
    printPlan(preview.plan);
    printPreview(preview);
    if (!args.reportPath.empty() && !writeReportFile(args.reportPath, preview.toJson()))
        return kExitFailed;
    if (!preview.error.empty() || preview.cancelled) {
        std::cerr << "steward-cli: " << (preview.cancelled ? "the preview was stopped" : preview.error) << "\n";
        return kExitFailed;
    }
    return kExitOk;
}

int push(const CliContext &context, SyncRun &run, const SyncArgs &args)
{
    Engine engine(*run.model, *run.database);
    const PushReport report =
        runPush(engine, *run.database, *run.remote, args.client, run.progress, {}, args.push, args.pace);
    if (args.progressMode == "bar")
        std::fprintf(stderr, "\n");
    if (!args.reportPath.empty() && !writeReportFile(args.reportPath, report.toJson()))
        return kExitFailed;
    printPushOutcomes(report);
    printPushSummary(context, report);
    if (report.cancelled)
        std::cerr << "; stopped: run it again to continue";
    if (!report.error.empty())
        std::cerr << "; " << report.error;
    std::cerr << "\n";
    if (!report.completed)
        return kExitFailed;
    if (!args.signOff.empty()) {
        try {
            const Submission submission = signOffPush(*run.database, run.remote->url(), args.signOff, std::string());
            std::cerr << "steward-cli: submission #" << submission.id << ": " << submission.summary() << "\n";
        } catch (const std::exception &e) {
            std::cerr << "steward-cli: pushed, but not signed off: " << e.what() << "\n";
            return kExitFailed;
        }
    }
    return kExitOk;
}

int pushOrPull(const CliContext &context, const SyncArgs &args)
{
    SyncRun run;
    if (!context.openModelAndDatabase(run.model, run.database))
        return kExitUsage;
    if (args.action == "push"
        && !checkReadinessBeforeSending(context, "sync push", *run.database, *run.model, {}, args.strict))
        return kExitFailed;
    if (!args.signOff.empty() && (args.dryRun || args.planOnly))
        return usageError("sync", "--sign-off signs off what was pushed; a dry run or plan sends nothing");
    if (args.action == "push" && args.planOnly) {
        const PushReport report = planOnly(*run.database, *run.model, args.url, args.client);
        printPlan(report.plan);
        if (!args.reportPath.empty() && !writeReportFile(args.reportPath, report.toJson()))
            return kExitFailed;
        return kExitOk;
    }
    if (const int failed = connectTarget(args, run); failed != kExitOk)
        return failed;
    if (args.action == "pull")
        return pull(context, run, args);
    return args.dryRun ? preview(run, args) : push(context, run, args);
}

int status(const CliContext &context)
{
    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitUsage;
    SyncState state(database->connection());
    const std::int64_t lastSeq = database->connection().execAndGet("SELECT coalesce(max(seq), 0) FROM changes").getInt64();
    const std::vector<SyncTarget> targets = state.targets();
    if (targets.empty())
        std::cout << "No sync targets yet (" << context.suggestion("sync pull --from URL --client ID")
                  << " adds one).\n";
    for (const SyncTarget &target : targets) {
        const std::vector<SyncFailure> failures = state.failures(target.targetId);
        std::cout << target.url << "  client " << target.client << "  pushed up to change " << target.pushCursor
                  << " of " << lastSeq << "  last pull " << (target.lastPullAt.empty() ? "never" : target.lastPullAt)
                  << "  last push " << (target.lastPushAt.empty() ? "never" : target.lastPushAt) << "  refused "
                  << failures.size() << "  conflicts " << state.openConflictCount(target.targetId) << "\n"
                  << "  creates: "
                  << (target.createCheck == "if-match"  ? "checked by If-Match (the target refuses a POST that would "
                                                          "replace a record of the same identity)"
                      : target.createCheck == "look-up" ? "looked up by natural key first (the target does not check "
                                                          "If-Match on a POST)"
                                                        : "not known until the first push")
                  << "\n  requests in flight: "
                  << (target.parallel > 0 ? std::to_string(target.parallel) + " (as given with --parallel)"
                                          : std::to_string(kDefaultParallel) + " (the default)")
                  << "\n";
        for (const SyncFailure &failure : failures)
            std::cout << "  refused " << failure.operation << " " << failure.resource << " " << failure.id << "  HTTP "
                      << failure.status << " " << dumpJson(failure.problem) << "\n";
    }
    return kExitOk;
}

std::string sideText(const std::optional<Json> &side)
{
    return side ? dumpJson(*side) : std::string("(none)");
}

// A field: one line. A collection item: the three versions whole, one a line, and the fields that differ.
void printConflictField(const MergeConflict &field)
{
    if (!field.item) {
        std::cout << "    " << field.path << "  base " << sideText(field.base) << "  mine " << sideText(field.mine)
                  << "  theirs " << sideText(field.theirs) << "\n";
        return;
    }
    std::cout << "    " << field.path << "  a collection item (--field " << field.path << "=mine|theirs|both)\n"
              << "      base    " << sideText(field.base) << "\n"
              << "      mine    " << (field.mine ? dumpJson(*field.mine) : std::string("(removed)")) << "\n"
              << "      theirs  " << (field.theirs ? dumpJson(*field.theirs) : std::string("(removed)")) << "\n";
    std::string differing;
    for (const std::string &name : field.differingFields())
        differing += (differing.empty() ? "" : ", ") + name;
    std::cout << "      differ  " << (differing.empty() ? std::string("(only whether it is there)") : differing)
              << "\n";
}

int conflicts(const CliContext &context, const SyncArgs &args)
{
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    Engine engine(*model, *database);
    std::vector<ConflictView> views = listConflicts(engine);
    if (!args.url.empty())
        std::erase_if(views, [&args](const ConflictView &view) { return view.url != args.url; });
    if (args.json) {
        Json list = Json::array();
        for (const ConflictView &view : views)
            list.push_back(view.toJson());
        std::cout << list.dump(2) << "\n";
        return kExitOk;
    }
    if (views.empty())
        std::cout << "No open sync conflicts.\n";
    for (const ConflictView &view : views) {
        std::cout << conflictKindName(view.conflict.kind) << "  " << view.conflict.resource << " " << view.naturalKey
                  << " (" << view.conflict.id << ")  with " << view.url << "  since " << view.conflict.foundAt << "\n"
                  << "    " << view.conflict.reason << "\n";
        if (!view.mine || !view.theirs || view.conflict.kind == SyncConflict::Kind::Refused) {
            std::cout << "    mine: " << (view.mine ? "changed" : "deleted") << "; theirs: "
                      << (view.theirs ? "changed" : "deleted")
                      << " (decided for the whole document: --take mine|theirs)\n";
            continue;
        }
        for (const MergeConflict &field : view.fields)
            printConflictField(field);
    }
    if (!views.empty())
        std::cout << views.size() << " open conflict(s); decide each with: "
                  << context.suggestion("sync resolve ID --take mine|theirs [--field PATH=mine|theirs|both|JSON]...")
                  << "\n";
    return kExitOk;
}

int resolve(const CliContext &context, const SyncArgs &args)
{
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    Engine engine(*model, *database);
    ConflictDecision decision;
    decision.id = canonicalDocumentId(args.id);
    decision.url = args.url;
    decision.take = args.take;
    decision.fields = args.fields;
    decision.wholeDocument = args.wholeDocument;
    try {
        const ConflictResolution resolved = resolveConflict(engine, decision);
        std::cout << "Resolved: " << resolved.summary << " (operation " << resolved.opId
                  << "; " << context.suggestion("fix undo " + std::to_string(resolved.opId))
                  << " opens the conflict again). The next push sends it to the target.\n";
    } catch (const ConflictRefused &e) {
        std::cerr << "steward-cli: " << e.what() << " Nothing was changed.\n";
        return kExitFailed;
    }
    return kExitOk;
}

// "mine", "theirs", or a JSON value (text that is not JSON is taken as a string).
MergeChoice choiceFrom(const std::string &text)
{
    if (text == "mine")
        return MergeChoice::mine();
    if (text == "theirs")
        return MergeChoice::theirs();
    if (text == "both")
        return MergeChoice::both();
    Json value = Json::parse(text, nullptr, false);
    return {MergeChoice::Kind::Value, value.is_discarded() ? Json(text) : value};
}

int remember(const SyncArgs &args)
{
    const char *value = std::getenv(args.secretEnv.c_str());
    if (value == nullptr || *value == '\0') {
        std::cerr << "steward-cli: " << args.secretEnv << " is not set; put the client secret there first\n";
        return kExitUsage;
    }
    std::string error;
    if (!storeClientSecret(args.url, args.client, value, &error)) {
        std::cerr << "steward-cli: " << error << "\n";
        return kExitFailed;
    }
    std::cout << "Stored the secret of " << args.client << " at " << args.url << " in the system keychain.\n";
    return kExitOk;
}

// The options of the action in args.action, read into args; false when one is wrong (said on stderr).
bool readSyncOptions(const std::vector<std::string> &argv, SyncArgs &args)
{
    const std::string &action = args.action;
    CommandLine line("sync", "sync " + action);
    line.text("--client", args.client)
        .text("--secret-env", args.secretEnv)
        .text("--report", args.reportPath)
        .choice("--progress", args.progressMode, {"bar", "json", "none"});
    for (const char *name : {"--from", "--to", "--url"})
        line.text(name, args.url);
    if (action == "push")
        line.flag("--plan-only", args.planOnly)
            .flag("--dry-run", args.dryRun)
            .flag("--strict", args.strict)
            .flag("--allow-blind-creates", args.push.allowBlindCreates)
            .flag("--retry-refused", args.push.retryRefused)
            .text("--sign-off", args.signOff, "a name");
    if (action == "push" || action == "pull")
        line.flag("--plain-http", args.plainHttp)
            .value("--ca-cert", [&args](const std::string &value) {
                args.caCert = value;
                return caCertificateProblem(value);
            }, "a certificate file (PEM)")
            .count("--parallel", 1, kMostParallel, args.pace.parallel)
            .value("--rate", [&args](const std::string &value) {
                char *end = nullptr;
                args.pace.rate = std::strtod(value.c_str(), &end);
                if (*end != '\0' || !(args.pace.rate > 0))
                    return "--rate takes a number above 0, not '" + value + "'";
                return std::string();
            });
    if (action == "conflicts")
        line.flag("--json", args.json);
    if (action == "resolve")
        line.flag("--whole", args.wholeDocument)
            .value("--take", [&args](const std::string &value) {
                if (value != "mine" && value != "theirs")
                    return "--take takes mine or theirs, not '" + value + "'";
                args.take = choiceFrom(value);
                return std::string();
            })
            .value("--field", [&args](const std::string &value) {
                const std::size_t equals = value.find('=');
                if (equals == std::string::npos || value.rfind("$", 0) != 0)
                    return "--field takes PATH=mine|theirs|both|JSON ($.middleName=theirs), not '" + value + "'";
                args.fields[value.substr(0, equals)] = choiceFrom(value.substr(equals + 1));
                return std::string();
            })
            .word(args.id, "sync resolve takes one document id");
    return line.parse(argv, 1);
}

} // namespace

int commandSync(const CliContext &context, const std::vector<std::string> &argv)
{
    if (wantsHelp(argv) || argv.empty()) {
        std::cout << kSyncHelp;
        return argv.empty() ? kExitUsage : kExitOk;
    }
    SyncArgs args;
    args.action = argv[0];
    if (args.action != "pull" && args.action != "push" && args.action != "remember" && args.action != "status"
        && args.action != "conflicts" && args.action != "resolve")
        return usageError("sync", "unknown sync action '" + args.action
                                      + "' (pull, push, remember, status, conflicts, resolve)");
    if (!readSyncOptions(argv, args))
        return kExitUsage;
    if (args.action == "status")
        return status(context);
    if (args.action == "conflicts")
        return conflicts(context, args);
    if (args.action == "resolve") {
        if (args.id.empty())
            return usageError("sync", "sync resolve needs the document's id (" + context.suggestion("sync conflicts")
                                          + " lists them)");
        if (!args.take && args.fields.empty())
            return usageError("sync", "sync resolve needs --take mine|theirs or --field PATH=mine|theirs|both|JSON");
        return resolve(context, args);
    }
    if (args.url.empty())
        return usageError("sync", std::string("sync ") + args.action + " needs "
                                      + (args.action == "pull" ? "--from URL" : args.action == "push" ? "--to URL" : "--url URL"));
    if (args.client.empty())
        return usageError("sync", "sync " + args.action + " needs --client ID");
    if (args.action == "remember")
        return remember(args);
    // Refused before the database is opened, and so before anything is looked up or sent.
    if (!args.planOnly)
        if (const std::string problem = addressProblem(args.url, args.plainHttp); !problem.empty())
            return usageError("sync", problem);
    return pushOrPull(context, args);
}
