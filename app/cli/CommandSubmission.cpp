#include "Cli.h"
#include "CommandLine.h"
#include "Submissions.h"

#include <iostream>

using namespace steward;

namespace {

const char *const kSubmissionHelp =
    "Usage: steward-cli [--db PATH] submission sign --by NAME [--batch ID | --push [URL]] [--note TEXT] [--json]\n"
    "       steward-cli [--db PATH] submission list [--json]\n"
    "\n"
    "A submission record ties together what went out, the readiness verdict at that moment, the\n"
    "warnings acknowledged then, and who signed off. status --submission shows the last one and what\n"
    "changed since.\n"
    "\n"
    "Commands:\n"
    "  sign   record the sign-off of an exported batch (the newest, or --batch ID: its manifest's SHA-256\n"
    "         and change range) or of what was pushed to a sync target (--push, or --push URL when there\n"
    "         are several: the changes since the previous push sign-off up to the push cursor).\n"
    "  list   the submissions, newest first.\n"
    "\n"
    "Options:\n"
    "  --by NAME     who signs off (required).\n"
    "  --batch ID    the exported batch (default: the newest).\n"
    "  --push [URL]  a push instead of an export.\n"
    "  --note TEXT   a note kept with the record.\n"
    "  --json        the record as JSON.\n"
    "\n"
    "Exit status: 0 recorded or listed, 1 refused (nothing exported or pushed, no such batch), 2 usage.\n"
    "\n"
    "Example: steward-cli export --out batches/ && steward-cli submission sign --by \"A. Steward\"\n";

void printSubmission(const Submission &submission)
{
    std::cout << "#" << submission.id << " " << submission.summary() << "\n"
              << "   verdict then: " << submission.verdict.value("verdict", std::string()) << "\n";
    if (submission.acknowledged.is_array() && !submission.acknowledged.empty())
        std::cout << "   acknowledged warnings: " << submission.acknowledged.size() << "\n";
    if (!submission.note.empty())
        std::cout << "   note: " << submission.note << "\n";
}

} // namespace

int commandSubmission(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << kSubmissionHelp;
        return kExitOk;
    }
    std::string action;
    std::string by;
    std::string batch;
    std::string note;
    std::string url;
    bool push = false;
    bool json = false;
    // The action first; a word after --push is the target it went to.
    auto word = [&](const std::string &word) {
        if (action.empty())
            action = word;
        else if (push && url.empty())
            url = word;
        else
            return "unexpected argument '" + word + "'";
        return std::string();
    };
    if (!CommandLine("submission")
             .text("--by", by, "a name")
             .text("--batch", batch, "a batch id")
             .text("--note", note, "text")
             .flag("--push", push)
             .flag("--json", json)
             .words(word)
             .parse(args))
        return kExitUsage;
    if (action != "sign" && action != "list")
        return usageError("submission", action.empty() ? "say sign or list" : "unknown action '" + action + "'");
    if (action == "list") {
        if (!by.empty() || !batch.empty() || push || !note.empty())
            return usageError("submission", "list takes only --json");
        std::unique_ptr<Database> database = context.openReadOnlyDatabase();
        if (!database)
            return kExitFailed;
        const std::vector<Submission> all = submissions(database->connection());
        Json list = Json::array();
        for (const Submission &submission : all) {
            if (json)
                list.push_back(submission.toJson());
            else
                printSubmission(submission);
        }
        if (json)
            std::cout << list.dump(2) << "\n";
        else
            std::cout << all.size() << " submission(s).\n";
        return kExitOk;
    }
    if (by.empty())
        return usageError("submission", "sign needs --by NAME: who signs off");
    if (push && !batch.empty())
        return usageError("submission", "--batch and --push are two kinds of submission; say one");
    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitFailed;
    try {
        const Submission submission = push ? signOffPush(*database, url, by, note)
                                           : signOffExport(*database, batch, by, note);
        if (json)
            std::cout << submission.toJson().dump(2) << "\n";
        else
            printSubmission(submission);
        return kExitOk;
    } catch (const SubmissionError &e) {
        std::cerr << "steward-cli: not signed off: " << e.what() << "\n";
        return kExitFailed;
    } catch (const StorageError &e) {
        std::cerr << "steward-cli: database error: " << e.what() << "\n";
        return kExitFailed;
    }
}
