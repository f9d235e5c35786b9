#include "Cli.h"
#include "CommandLine.h"
#include "Duplicates.h"
#include "Engine.h"
#include "IdentityChange.h"

#include <SQLiteCpp/Exception.h>

#include <iostream>

using namespace steward;

int commandDuplicates(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] [--schema PATH]... duplicates [--resource students|staffs] [--json]\n"
                     "       steward-cli [--db PATH] duplicates distinct ID1 ID2\n"
                     "\n"
                     "Lists pairs of Students (or Staff) that may be one person entered twice: the same birth date\n"
                     "and names that differ by at most two letters once case, accents, punctuation and spacing are\n"
                     "set aside, or with first and last name swapped. 'distinct' records that two documents are\n"
                     "different people, so the pair is not listed again. To combine a pair, use steward-cli merge.\n"
                     "\n"
                     "Options:\n"
                     "  --resource R   students (Student) or staffs (Staff); default both.\n"
                     "  --json         print the pairs as a JSON array.\n"
                     "\n"
                     "Exit status: 0 listed (or recorded), 2 bad arguments, an unknown id or a database error.\n"
                     "\n"
                     "Example: steward-cli duplicates --resource students\n";
        return kExitOk;
    }
    if (!args.empty() && args[0] == "distinct") {
        if (args.size() != 3)
            return usageError("duplicates", "'duplicates distinct' takes two document ids");
        std::unique_ptr<Database> database = context.openDatabase();
        if (!database)
            return kExitUsage;
        try {
            markDistinct(*database, canonicalDocumentId(args[1]), canonicalDocumentId(args[2]), currentOsUser());
        } catch (const StorageError &e) {
            std::cerr << "steward-cli: duplicates distinct: " << e.what() << "\n";
            return kExitUsage;
        }
        std::cout << "Marked " << args[1] << " and " << args[2] << " as different people.\n";
        return kExitOk;
    }
    std::vector<std::string> resources;
    bool json = false;
    auto resource = [&resources](const std::string &given) {
        const std::string value = toLower(given);
        if (value == "students" || value == "student")
            resources.push_back("Student");
        else if (value == "staffs" || value == "staff")
            resources.push_back("Staff");
        else
            return "--resource takes students or staffs, not '" + given + "'";
        return std::string();
    };
    if (!CommandLine("duplicates").flag("--json", json).value("--resource", resource).parse(args))
        return kExitUsage;
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    std::vector<DuplicateCandidate> candidates;
    try {
        candidates = findDuplicateCandidates(database->connection(), *model, resources);
    } catch (const SQLite::Exception &e) {
        std::cerr << "steward-cli: database error: " << database->path() << ": " << e.what() << "\n";
        return kExitUsage;
    }
    if (json) {
        Json list = Json::array();
        for (const DuplicateCandidate &c : candidates)
            list.push_back(c.toJson());
        std::cout << list.dump(2) << "\n";
        return kExitOk;
    }
    for (const DuplicateCandidate &c : candidates)
        std::cout << c.resource << "  born " << c.birthDate << "  " << c.leftKey << " \"" << c.leftName << "\" ("
                  << c.leftId << ")  ~  " << c.rightKey << " \"" << c.rightName << "\" (" << c.rightId << ")"
                  << (c.swapped ? "  names swapped" : "") << "\n";
    std::cerr << "steward-cli: " << candidates.size() << " candidate pair(s)\n";
    return kExitOk;
}

int commandMerge(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] [--schema PATH]... merge --keep ID --drop ID [--dry-run] [--json]\n"
                     "\n"
                     "Merges two documents of one resource (two Students that are one person): every document that\n"
                     "references the dropped one is moved to the kept one's identity. A reference outside the\n"
                     "referrer's identity is an update; one inside it (a StudentSchoolAssociation's student) changes\n"
                     "the referrer's identity the same way, and a referrer that would then equal an existing one\n"
                     "(both enrolled in the same school on the same day) is merged into it. Then the dropped document\n"
                     "is deleted. All in one transaction through the usual validation: any refusal writes nothing.\n"
                     "\n"
                     "Options:\n"
                     "  --keep ID    the document that stays.\n"
                     "  --drop ID    the document merged into it and deleted.\n"
                     "  --dry-run    print the steps (create/update/delete, resource, natural key, fields) only.\n"
                     "  --json       print the steps and outcome as JSON.\n"
                     "\n"
                     "Exit status: 0 merged (or previewed), 1 refused (why on standard error), 2 bad arguments.\n"
                     "\n"
                     "Example: steward-cli merge --keep 0f3c... --drop 9a1e... --dry-run\n";
        return kExitOk;
    }
    std::string keep;
    std::string drop;
    bool dryRun = false;
    bool json = false;
    if (!CommandLine("merge")
             .flag("--dry-run", dryRun)
             .flag("--json", json)
             .text("--keep", keep, "a document id")
             .text("--drop", drop, "a document id")
             .parse(args))
        return kExitUsage;
    if (keep.empty() || drop.empty())
        return usageError("merge", "both --keep ID and --drop ID are required");
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    Engine engine(*model, *database);
    const IdentityChangeResult result =
        mergeDocuments(engine, canonicalDocumentId(keep), canonicalDocumentId(drop), !dryRun);
    return reportIdentityResult(context, "merge", result, dryRun, json);
}

int commandChangeIdentity(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] [--schema PATH]... change-identity ID --set FIELD=VALUE... [--dry-run] [--json]\n"
                     "\n"
                     "Changes a document's identifying values (a student's studentUniqueId, an enrollment's entryDate).\n"
                     "Where the resource allows identity updates this is one update and what references the document\n"
                     "follows. Otherwise the document is recreated with the new values, every document referencing it\n"
                     "is moved to it (recursively where the reference is part of the referrer's identity) and the old\n"
                     "one deleted, so no duplicate is left behind. Refused when the new identity already exists. One\n"
                     "transaction: any refusal writes nothing.\n"
                     "\n"
                     "Options:\n"
                     "  --set FIELD=VALUE  an identity value: its name (studentUniqueId, entryDate) or path\n"
                     "                     (schoolReference.schoolId); repeatable.\n"
                     "  --dry-run          print the steps only.\n"
                     "  --json             print the steps and outcome as JSON.\n"
                     "\n"
                     "Exit status: 0 changed (or previewed), 1 refused (why on standard error), 2 bad arguments.\n"
                     "\n"
                     "Example: steward-cli change-identity 0f3c... --set studentUniqueId=604900 --dry-run\n";
        return kExitOk;
    }
    std::string id;
    std::vector<std::pair<std::string, std::string>> assignments;
    bool dryRun = false;
    bool json = false;
    auto assign = [&assignments](const std::string &assignment) {
        const std::size_t eq = assignment.find('=');
        if (eq == std::string::npos || eq == 0)
            return "--set takes FIELD=VALUE, not '" + assignment + "'";
        assignments.emplace_back(assignment.substr(0, eq), assignment.substr(eq + 1));
        return std::string();
    };
    auto documentId = [&id](const std::string &word) {
        if (!id.empty())
            return "one document id only ('" + word + "' is a second)";
        id = canonicalDocumentId(word);
        return std::string();
    };
    if (!CommandLine("change-identity")
             .flag("--dry-run", dryRun)
             .flag("--json", json)
             .value("--set", assign, "FIELD=VALUE")
             .words(documentId)
             .parse(args))
        return kExitUsage;
    if (id.empty())
        return usageError("change-identity", "the document ID is required");
    if (assignments.empty())
        return usageError("change-identity", "at least one --set FIELD=VALUE is required");
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    Engine engine(*model, *database);
    return reportIdentityResult(context, "change-identity", changeIdentity(engine, id, assignments, !dryRun), dryRun,
                                json);
}
