#pragma once

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace steward {

class Database;
class Model;

// One ApiSchema file as given: a name for messages (its path) and its text.
struct SchemaText
{
    std::string name;
    std::string text;
};

// The files named, read; throws SchemaLoadError naming a file that cannot be read.
std::vector<SchemaText> readSchemaTexts(const std::vector<std::string> &paths);

// One row of model_files (schema v29): a file of the model the database is opened with.
struct RecordedModelFile
{
    int position = 0;
    std::string name;    // the file's name when it was recorded; "starter model" for the embedded one
    std::string project; // "Ed-Fi"; the projects of a file that holds several, joined by " + "
    std::string version; // the projects' versions, in the same order
    std::string sha256;  // of the text; empty for the starter model
    bool starter = false;
};

// Which model to open a database with: the one it recorded, the starter model, or these files.
struct ModelChoice
{
    enum class Kind
    {
        Recorded,
        Starter,
        Files,
    };
    Kind kind = Kind::Recorded;
    std::vector<SchemaText> files; // Kind::Files only, core first
};

struct ResourceDocuments
{
    std::string project;
    std::string resource;
    std::int64_t documents = 0;
};

// What opening a database with a model came to.
struct ModelOpening
{
    std::unique_ptr<Model> model;           // null when refused
    std::vector<ResourceDocuments> outside; // stored documents of resources the chosen model lacks
    bool recorded = false;                  // the choice differed from the record and is recorded now
};

// The recorded files in load order; the starter model's row for a database of no recorded files.
std::vector<RecordedModelFile> readRecordedModelFiles(SQLite::Database &db);
// "Ed-Fi 5.1.0 + TPDM 1.1.0", or "the starter model (Ed-Fi 5.1.0)".
std::string describeRecordedModel(const std::vector<RecordedModelFile> &files);
// The recorded model, built from the texts the database holds (no file on disk is read).
std::unique_ptr<Model> loadRecordedModel(SQLite::Database &db);
// The same through a read-only connection of its own, for commands that need no writer: the starter
// model when the file does not exist or is older than schema v29.
std::unique_ptr<Model> loadRecordedModelAt(const std::string &databasePath);
// Resources with stored documents that the model has no resource for, with their counts.
std::vector<ResourceDocuments> documentsOutside(SQLite::Database &db, const Model &model);
// "StudentTranscript (12), Candidate (3)": what documentsOutside found, as one line.
std::string describeDocumentsOutside(const std::vector<ResourceDocuments> &outside);

// The model of a choice of files or the starter, loaded before any database is opened (a file that
// does not load must not create one); throws SchemaLoadError. Null for Kind::Recorded.
std::unique_ptr<Model> loadChosenModel(const ModelChoice &choice);
// Opens the chosen model with the database (loaded is loadChosenModel's, or null to load it here). A
// choice other than the recorded one is recorded (one BEGIN IMMEDIATE, stored documents counted
// inside it) unless stored documents would fall outside it and allowOutside is false: then nothing
// is written, the model is null and outside names them. Throws SchemaLoadError for a model that does
// not load, StorageError when the record cannot be written.
ModelOpening openModel(Database &database, const ModelChoice &choice, bool allowOutside = false,
                       std::unique_ptr<Model> loaded = nullptr);

} // namespace steward
