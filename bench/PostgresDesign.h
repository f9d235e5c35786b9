#pragma once

// The comparison the import issue asks for: the same documents stored the way Ed-Fi's Data
// Management Service stores them on PostgreSQL (a document table, an alias table of referential
// ids and a reference table between them, each in 16 partitions, foreign keys doing the reference
// checks), with their validation done beforehand. Needs PostgreSQL's server programs; skipped,
// saying why, without them.

#include <QString>

#include <cstdint>
#include <string>

namespace steward {
class Engine;
class Model;
}

struct PostgresDesignResult
{
    bool ran = false;
    std::string skipped; // why it did not run
    double docsPerSecond = 0;
    double megabytes = 0; // pg_database_size after the load
};

PostgresDesignResult measurePostgresDesign(const QString &workDir, const steward::Model &model,
                                           const steward::Engine &engine, const std::string &input);
