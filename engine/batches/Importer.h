#pragma once

#include "ApiSchema.h"
#include "Database.h"
#include "Engine.h"
#include "Json.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace steward {

struct RowMapping;

struct ImportOptions
{
    std::vector<std::string> paths; // files or directories (see openImportSource)
    // Documents per BEGIN IMMEDIATE transaction: each commit rewrites the random-key index pages it
    // dirtied, so larger chunks write less (1M documents: 10,000 took 57 s, 50,000 took 49 s,
    // with indexes deferred; 122 s and 78 s without). A chunk holds the write lock for a few seconds.
    int chunkSize = 50000;
    // From this many documents, an import that is large against what is stored drops the indexes
    // it does not read and builds them once at the end (Database::deferIndexes).
    std::int64_t deferIndexesFrom = 50000;
    // Threads that parse and prepare documents (validation, identities, references) while the writer
    // stores the ones before, for input in load order; 0: every core but the writer's.
    int jobs = 0;
    std::string actor;              // for the change log; empty: the OS user
    // How spreadsheets among the paths become documents (none: a spreadsheet is refused).
    std::shared_ptr<const RowMapping> mapping;
};

// The preparing threads an import uses for ImportOptions::jobs (0: every core but the writer's).
int preparingThreads(int jobs);

struct ImportCounts
{
    std::int64_t created = 0;
    std::int64_t updated = 0;
    std::int64_t unchanged = 0;
    std::int64_t drafts = 0;
};

struct ImportDraftEntry
{
    std::string file;
    std::int64_t line = 0;
    std::string resource; // "ed-fi/schools", or empty when the item named no resource
    Json problem;         // problem details, the same the protocol gives
};

struct ImportProgress
{
    // "scanning" (NDJSON inputs' resources read without parsing, in bytes; it decides whether the
    // inputs are in load order already), "reading" (inputs into load order; skipped when they
    // are in it already), then "applying", then "indexing" when a large import rebuilds the
    // indexes it dropped.
    std::string phase;
    std::int64_t items = 0;
    std::int64_t itemsTotal = 0; // 0 while unknown
    std::uint64_t bytesRead = 0;
    std::uint64_t bytesTotal = 0;
};

struct ImportReport
{
    ImportCounts totals;
    std::map<std::string, ImportCounts> byResource;
    std::vector<ImportDraftEntry> drafts; // every document that became a draft, with its reason
    bool completed = false; // every input was read to the end and applied
    bool cancelled = false;
    std::string error; // why it did not complete (unreadable input, storage failure)

    // {"totals":{...},"byResource":{...},"drafts":[{"file","line","resource","problem"}],...}
    Json toJson() const;
};

// Imports documents in load order whatever order they come in: items are first spooled to a
// temporary SQLite file (memory stays bounded), then applied in chunks, each its own BEGIN
// IMMEDIATE transaction, with the same validation as the protocol. A document that fails becomes
// a draft with its problem details; re-running the same import reports everything unchanged.
// progress() may return false to stop: committed chunks stay, the rest is untouched.
ImportReport importFiles(Engine &engine, const Model &model, const ImportOptions &options,
                         const std::function<bool(const ImportProgress &)> &progress = {});

} // namespace steward
