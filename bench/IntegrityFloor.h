#pragma once

// The least SQLite work an import with referential integrity can do: the rows of an imported
// database written again, row by row and chunk by chunk as the import writes them, into tables
// that keep only what integrity needs. What it costs a document bounds the writer from below.

#include <string>

struct IntegrityFloorResult
{
    long long documents = 0;
    long long references = 0;
    long long unresolved = 0; // references whose target was not written before them (should be 0)
    double cpuMicros = 0;     // this thread's user + sys CPU a document, the writes and commits only
    // cpuMicros and then the indexes an Ed-Fi API cannot answer without, built sorted at the end:
    // a document by its id, a collection's page and a delete's referencing documents.
    double cpuMicrosWithLookups = 0;
    double docsPerSecond = 0;
};

// Reads `importedPath` (a Steward database an import filled) a chunk at a time, untimed, and writes
// each chunk into a new database at `floorPath` in one BEGIN IMMEDIATE transaction.
IntegrityFloorResult measureIntegrityFloor(const std::string &importedPath, const std::string &floorPath,
                                           int chunkSize);
