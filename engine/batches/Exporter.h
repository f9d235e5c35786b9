#pragma once

#include "ApiSchema.h"
#include "Database.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace steward {

struct ExportOptions
{
    std::string outDir;                  // created; must be empty or not exist
    std::vector<std::string> resources;  // endpoint names ("schools") or resource names; empty: all
    std::string changedSinceBatch;       // a batch id from an earlier export; empty: everything
};

struct ExportResult
{
    bool ok = false;
    std::string error; // what went wrong, when !ok
    std::string batchId;
    std::int64_t documents = 0;
    std::map<std::string, std::int64_t> countsByResource; // "ed-fi/schools" -> n
    bool cancelled = false;
    // Set when the export stopped before writing anything: bad options (unknown resource or batch id,
    // an output directory that is not new or empty) or a database that could not be read. Otherwise a
    // failure happened midway (nothing is left behind either way).
    enum class Refusal
    {
        None,
        Options,
        Database,
    };
    Refusal refused = Refusal::None;
    std::int64_t seqFrom = 0;  // the change-log range the batch covers
    std::int64_t seqTo = 0;
    std::int64_t required = 0; // entries in the manifest's "requires"
    std::string directory;     // the batch directory, absolute
};

// "schools", "School", "ed-fi/schools" or "tpdm.candidates": every resource that answers to the name
// (export's --resource, and the readiness scope of status, export and push).
std::vector<const ResourceSchema *> matchResources(const Model &model, const std::string &name);

// Writes a validated batch in load order: one NDJSON file per resource (a body per line, named
// "<endpoint>.ndjson" for the core project, "<project>.<endpoint>.ndjson" for extensions) and a
// manifest.json (batch id, created, model, counts, load order, SHA-256 of every file, change-log
// sequence range, and "requires": referenced documents not in the batch, by resource and natural
// key). Drafts never leave. Reads in short transactions; records the batch in the database.
// progress(done, total) may return false to cancel (the directory is then removed).
ExportResult exportBatch(Database &database, const Model &model, const ExportOptions &options,
                         const std::function<bool(std::int64_t, std::int64_t)> &progress = {});

struct VerifyResult
{
    bool ok = false;
    std::vector<std::string> problems; // one line each: file, document, what is wrong
    std::int64_t documents = 0;
    std::int64_t files = 0; // files the manifest lists
    std::string batchId;    // the manifest's, so the caller can tell which batch it checked
    std::string createdAt;
};

// Checks a batch directory: every file's SHA-256 against the manifest, and every reference in
// it resolves within the batch or its "requires" list.
VerifyResult verifyBatch(const std::string &directory, const Model &model);

} // namespace steward
