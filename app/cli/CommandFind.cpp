// steward-cli find: find anything by its identifying or name-like values, across all resources.
#include "Cli.h"
#include "CommandLine.h"

#include "Search.h"
#include "SearchTerms.h"

#include <iostream>

using namespace steward;

int commandFind(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] find WORD... [--limit N] [--json]\n"
                     "\n"
                     "Finds documents of every resource whose ids, codes, names, titles or e-mail addresses start\n"
                     "with every word given (two characters or more; case and accents set aside): a student by part\n"
                     "of a last name, a school by its id, a course by its code. Those with a value equal to a word\n"
                     "come first. Each hit: resource, natural key, id.\n"
                     "\n"
                     "Options:\n"
                     "  --limit N   at most N hits (default 25, at most 1000).\n"
                     "  --json      print the hits as a JSON array.\n"
                     "\n"
                     "Exit status: 0 found, 1 nothing found, 2 bad arguments.\n"
                     "\n"
                     "Example: steward-cli find nguy\n";
        return kExitOk;
    }
    std::string text;
    int limit = 25;
    bool json = false;
    std::vector<std::string> words;
    if (!CommandLine("find").flag("--json", json).count("--limit", 1, 1000, limit).words(words).parse(args))
        return kExitUsage;
    for (const std::string &word : words)
        text += (text.empty() ? "" : " ") + word;
    if (searchMatchExpression(text).empty())
        return usageError("find", "give at least one word of two characters or more");
    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitUsage;
    const std::vector<SearchHit> hits = searchDocuments(database->connection(), text, limit);
    if (json) {
        Json list = Json::array();
        for (const SearchHit &hit : hits)
            list.push_back({{"id", hit.id}, {"project", hit.project}, {"resource", hit.resource},
                            {"naturalKey", hit.naturalKey}, {"values", hit.terms}});
        std::cout << list.dump(2) << "\n";
    } else {
        for (const SearchHit &hit : hits)
            std::cout << hit.resource << "\t" << hit.naturalKey << "\t" << hit.id << "\n";
    }
    if (hits.empty()) {
        std::cerr << "steward-cli: find: nothing matches '" << text << "'\n";
        return kExitFailed;
    }
    return kExitOk;
}
