// steward-cli show: everything known about one record, the same facts the app's editor shows.
#include "Cli.h"
#include "CommandLine.h"

#include "RecordFacts.h"

#include <iostream>

using namespace steward;

namespace {

void printFact(const RecordFact &fact)
{
    std::cout << "  " << fact.severity << "\t" << fact.title;
    if (fact.title != fact.code && !fact.code.empty())
        std::cout << " (" << fact.code << ")";
    std::cout << "\n";
    if (!fact.field.empty())
        std::cout << "    at " << fact.field << "\n";
    if (!fact.message.empty())
        std::cout << "    " << fact.message << "\n";
    if (!fact.fix.empty())
        std::cout << "    what to do: " << fact.fix << "\n";
    if (!fact.source.empty())
        std::cout << "    from " << fact.source << "\n";
    if (fact.acknowledged)
        std::cout << "    acknowledged by " << fact.ackActor << " (" << fact.ackAt << "): " << fact.ackReason << "\n";
}

} // namespace

int commandShow(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] [--schema FILE...] show ID [--json]\n"
                     "\n"
                     "Prints everything known about one stored record, most severe first: its validation problems\n"
                     "against the model (checked again now), every rule pack's results, the state's results with\n"
                     "their file and row, acknowledgements (who and why), edits kept as drafts that would replace\n"
                     "it, and open sync conflicts. Each with its severity, title, message and what to do.\n"
                     "ID is the document's id as the engine gave it (32 hex digits, hyphens allowed), as `find`,\n"
                     "`changes` and the app's editor show it.\n"
                     "\n"
                     "Options:\n"
                     "  --json   print the facts as one JSON object.\n"
                     "\n"
                     "Exit status: 0 shown (problems or not), 1 no such record, 2 bad arguments.\n"
                     "\n"
                     "Example: steward-cli show 4f1c0c0e8b8a4c6c9a3e2f1d0b9a8c7d\n";
        return kExitOk;
    }
    bool json = false;
    std::vector<std::string> words;
    if (!CommandLine("show").flag("--json", json).words(words).parse(args))
        return kExitUsage;
    if (words.size() != 1)
        return usageError("show", "give one document id");
    std::unique_ptr<Model> model;
    std::unique_ptr<Database> database;
    if (!context.openModelAndDatabase(model, database))
        return kExitUsage;
    Engine engine(*model, *database);
    const RecordFacts facts = readRecordFacts(engine, words.front());
    if (!facts.stored && facts.facts.empty()) {
        std::cerr << "steward-cli: show: no stored document has the id " << words.front() << "\n";
        return kExitFailed;
    }
    if (json) {
        std::cout << facts.toJson().dump(2) << "\n";
        return kExitOk;
    }
    if (facts.stored)
        std::cout << facts.resource << " " << facts.naturalKey << "\n  id " << facts.id << ", etag " << facts.etag << "\n";
    else
        std::cout << "Not stored: " << facts.id << "\n";
    if (facts.facts.empty()) {
        std::cout << "No problems.\n";
        return kExitOk;
    }
    std::cout << facts.facts.size() << (facts.facts.size() == 1 ? " fact" : " facts") << ", worst "
              << (facts.worstSeverity().empty() ? std::string("acknowledged") : facts.worstSeverity()) << ":\n";
    for (const RecordFact &fact : facts.facts)
        printFact(fact);
    return kExitOk;
}
