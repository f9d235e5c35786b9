#include "ModelRecord.h"

#include "Database.h"

#include "ApiSchema.h"

#include <SQLiteCpp/Statement.h>
#include <zstd.h>

#include <QCryptographicHash>
#include <QFileInfo>

#include <filesystem>

namespace steward {

namespace {

// Level 9: DS 5.1's 2.5 MB ApiSchema.json in 0.24 s to 101 KB (level 19: 2.1 s to 78 KB). A model
// is recorded when it changes, which a steward waits for.
constexpr int kCompressionLevel = 9;

std::string compressText(const std::string &text)
{
    std::string frame(ZSTD_compressBound(text.size()), '\0');
    const std::size_t size = ZSTD_compress(frame.data(), frame.size(), text.data(), text.size(), kCompressionLevel);
    if (ZSTD_isError(size))
        throw StorageError(StorageError::Kind::Io, std::string("compressing a schema file: ") + ZSTD_getErrorName(size));
    frame.resize(size);
    return frame;
}

std::string decompressText(const std::string &name, const void *frame, std::size_t frameSize)
{
    const unsigned long long size = ZSTD_getFrameContentSize(frame, frameSize);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
        throw SchemaLoadError(name, "", "the recorded schema file in the database cannot be read");
    std::string text(static_cast<std::size_t>(size), '\0');
    const std::size_t read = ZSTD_decompress(text.data(), text.size(), frame, frameSize);
    if (ZSTD_isError(read) || read != text.size())
        throw SchemaLoadError(name, "", "the recorded schema file in the database cannot be read");
    return text;
}

std::string sha256Hex(const std::string &text)
{
    return QCryptographicHash::hash(QByteArray::fromStdString(text), QCryptographicHash::Sha256).toHex().toStdString();
}

bool hasModelFiles(SQLite::Database &db)
{
    SQLite::Statement table(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'model_files'");
    return table.executeStep();
}

RecordedModelFile starterRow()
{
    RecordedModelFile row;
    row.name = "starter model";
    row.project = "Ed-Fi";
    row.version = "5.1.0";
    row.starter = true;
    return row;
}

std::string recordedName(const std::string &name)
{
    return name + " (recorded in the database)";
}

// What the record says the model is, for comparing a choice with it.
std::vector<std::string> recordedIdentity(const std::vector<RecordedModelFile> &files)
{
    std::vector<std::string> identity;
    for (const RecordedModelFile &file : files)
        identity.push_back(file.starter ? std::string("starter") : file.sha256);
    return identity;
}

std::vector<std::string> choiceIdentity(const ModelChoice &choice)
{
    if (choice.kind == ModelChoice::Kind::Starter)
        return {"starter"};
    std::vector<std::string> identity;
    for (const SchemaText &file : choice.files)
        identity.push_back(sha256Hex(file.text));
    return identity;
}

// The rows that record a choice of files: each file's projects as the loaded model read them.
std::vector<RecordedModelFile> rowsFor(const ModelChoice &choice, const Model &model)
{
    if (choice.kind == ModelChoice::Kind::Starter)
        return {starterRow()};
    std::vector<RecordedModelFile> rows;
    for (std::size_t i = 0; i < choice.files.size(); ++i) {
        RecordedModelFile row;
        row.position = static_cast<int>(i);
        row.name = QFileInfo(QString::fromStdString(choice.files[i].name)).fileName().toStdString();
        row.sha256 = sha256Hex(choice.files[i].text);
        for (const auto &project : model.projects()) {
            if (project->sourceFile != choice.files[i].name)
                continue;
            row.project += (row.project.empty() ? "" : " + ") + project->projectName;
            row.version += (row.version.empty() ? "" : " + ") + project->projectVersion;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

void writeRecord(SQLite::Database &db, const std::vector<RecordedModelFile> &rows, const ModelChoice &choice)
{
    db.exec("DELETE FROM model_files");
    SQLite::Statement insert(
        db, "INSERT INTO model_files (position, name, project, version, sha256, content) VALUES (?, ?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        insert.bind(1, rows[i].position);
        insert.bind(2, rows[i].name);
        insert.bind(3, rows[i].project);
        insert.bind(4, rows[i].version);
        insert.bind(5, rows[i].sha256);
        if (rows[i].starter) {
            insert.bind(6);
        } else {
            const std::string frame = compressText(choice.files[i].text);
            insert.bind(6, frame.data(), static_cast<int>(frame.size()));
        }
        insert.exec();
        insert.reset();
    }
}

} // namespace

std::vector<SchemaText> readSchemaTexts(const std::vector<std::string> &paths)
{
    std::vector<SchemaText> texts;
    for (const std::string &path : paths)
        texts.push_back({path, readSchemaFile(path)});
    return texts;
}

std::unique_ptr<Model> loadChosenModel(const ModelChoice &choice)
{
    switch (choice.kind) {
    case ModelChoice::Kind::Starter:
        return Model::loadStarter();
    case ModelChoice::Kind::Files: {
        std::vector<std::pair<std::string, std::string>> texts;
        for (const SchemaText &file : choice.files)
            texts.emplace_back(file.name, file.text);
        return Model::loadTexts(texts);
    }
    case ModelChoice::Kind::Recorded:
        break;
    }
    return nullptr;
}

std::vector<RecordedModelFile> readRecordedModelFiles(SQLite::Database &db)
{
    std::vector<RecordedModelFile> files;
    if (!hasModelFiles(db))
        return {starterRow()};
    SQLite::Statement rows(db, "SELECT position, name, project, version, sha256, content IS NULL FROM model_files "
                               "ORDER BY position");
    while (rows.executeStep()) {
        RecordedModelFile file;
        file.position = rows.getColumn(0).getInt();
        file.name = rows.getColumn(1).getString();
        file.project = rows.getColumn(2).getString();
        file.version = rows.getColumn(3).getString();
        file.sha256 = rows.getColumn(4).getString();
        file.starter = rows.getColumn(5).getInt() != 0;
        files.push_back(std::move(file));
    }
    if (files.empty())
        return {starterRow()};
    return files;
}

std::string describeRecordedModel(const std::vector<RecordedModelFile> &files)
{
    std::string out;
    for (const RecordedModelFile &file : files) {
        if (!out.empty())
            out += " + ";
        const std::string projects = file.project + (file.version.empty() ? "" : " " + file.version);
        out += file.starter ? "the starter model (" + projects + ")" : projects;
    }
    return out;
}

std::unique_ptr<Model> loadRecordedModel(SQLite::Database &db)
{
    if (!hasModelFiles(db))
        return Model::loadStarter();
    std::vector<std::pair<std::string, std::string>> texts;
    bool starter = false;
    SQLite::Statement rows(db, "SELECT name, content FROM model_files ORDER BY position");
    while (rows.executeStep()) {
        const std::string name = recordedName(rows.getColumn(0).getString());
        const SQLite::Column content = rows.getColumn(1);
        if (content.isNull()) {
            starter = true;
            continue;
        }
        texts.emplace_back(name, decompressText(name, content.getBlob(), static_cast<std::size_t>(content.getBytes())));
    }
    if (starter || texts.empty())
        return Model::loadStarter();
    return Model::loadTexts(texts);
}

std::unique_ptr<Model> loadRecordedModelAt(const std::string &databasePath)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(databasePath, ec))
        return Model::loadStarter();
    std::unique_ptr<SQLite::Database> db;
    try {
        db = std::make_unique<SQLite::Database>(databasePath, SQLite::OPEN_READONLY, Database::kBusyTimeoutMs);
        if (!hasModelFiles(*db))
            return Model::loadStarter();
    } catch (const SQLite::Exception &) {
        // Not a database this program can read: the command's own open names what is wrong.
        return Model::loadStarter();
    }
    return loadRecordedModel(*db);
}

std::vector<ResourceDocuments> documentsOutside(SQLite::Database &db, const Model &model)
{
    std::vector<ResourceDocuments> outside;
    SQLite::Statement resources(db, "SELECT resource_key, project, resource FROM resources ORDER BY project, resource");
    SQLite::Statement count(db, "SELECT count(*) FROM document_rows WHERE resource_key = ?");
    while (resources.executeStep()) {
        const std::string project = resources.getColumn(1).getString();
        const std::string resource = resources.getColumn(2).getString();
        if (model.findByName(project, resource) != nullptr)
            continue;
        count.bind(1, resources.getColumn(0).getInt64());
        count.executeStep();
        const std::int64_t documents = count.getColumn(0).getInt64();
        count.reset();
        if (documents > 0)
            outside.push_back({project, resource, documents});
    }
    return outside;
}

std::string describeDocumentsOutside(const std::vector<ResourceDocuments> &outside)
{
    std::string out;
    for (const ResourceDocuments &entry : outside)
        out += (out.empty() ? "" : ", ") + entry.project + " " + entry.resource + " (" + std::to_string(entry.documents)
               + ")";
    return out;
}

ModelOpening openModel(Database &database, const ModelChoice &choice, bool allowOutside, std::unique_ptr<Model> loaded)
{
    SQLite::Database &db = database.connection();
    ModelOpening opening;
    opening.model = std::move(loaded);
    if (!opening.model)
        opening.model = choice.kind == ModelChoice::Kind::Recorded ? loadRecordedModel(db) : loadChosenModel(choice);
    if (choice.kind == ModelChoice::Kind::Recorded || choiceIdentity(choice) == recordedIdentity(readRecordedModelFiles(db)))
        return opening;
    try {
        // The count and the record in one transaction: no document of a resource left out slips in between.
        ImmediateTransaction transaction(db);
        opening.outside = documentsOutside(db, *opening.model);
        if (!opening.outside.empty() && !allowOutside) {
            opening.model.reset();
            return opening;
        }
        writeRecord(db, rowsFor(choice, *opening.model), choice);
        transaction.commit();
    } catch (const SQLite::Exception &e) {
        const auto kind = isBusyError(e) ? StorageError::Kind::Busy : StorageError::Kind::Io;
        throw StorageError(kind, database.path() + ": recording the model: " + e.getErrorStr());
    }
    opening.recorded = true;
    return opening;
}

} // namespace steward
