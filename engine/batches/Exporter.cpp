#include "Exporter.h"

#include "Clock.h"
#include "DocumentStore.h"
#include "Identity.h"
#include "LoadOrder.h"
#include "PrivateFiles.h"

#include <QByteArrayView>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QSaveFile>

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <utility>

namespace steward {

namespace {

namespace fs = std::filesystem;

constexpr const char *kFormat = "steward-batch/1";
constexpr std::int64_t kRowsPerTransaction = 20000; // keeps each read transaction short
constexpr std::size_t kWriteBlock = 1 << 20;
constexpr std::int64_t kProgressEvery = 4096;

std::string resourceKey(const ResourceSchema &resource)
{
    return resource.resourceKey();
}

// Core documents keep the plain endpoint name; other projects' files say whose they are, the way
// openImportSource reads them back.
std::string batchFileName(const Model &model, const ResourceSchema &resource)
{
    const bool core = !model.projects().empty() && resource.project == model.projects().front().get();
    return (core ? std::string() : resource.project->projectEndpointName + ".") + resource.endpointName + ".ndjson";
}

} // namespace

// "schools", "School", "ed-fi/schools" or "tpdm.candidates": every resource that answers to the name.
std::vector<const ResourceSchema *> matchResources(const Model &model, const std::string &name)
{
    std::vector<const ResourceSchema *> out;
    const std::string wanted = toLower(name);
    const std::size_t separator = wanted.find_first_of("/.");
    for (const ResourceSchema *resource : model.resources()) {
        const std::string endpoint = toLower(resource->endpointName);
        if (separator != std::string::npos) {
            if (toLower(resource->project->projectEndpointName) == wanted.substr(0, separator)
                && endpoint == wanted.substr(separator + 1))
                out.push_back(resource);
        } else if (endpoint == wanted || toLower(resource->resourceName) == wanted) {
            out.push_back(resource);
        }
    }
    return out;
}

namespace {

std::string hex(const QByteArray &bytes)
{
    return bytes.toHex().toStdString();
}

struct ExportFailed : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

struct ExportCancelled
{
};

// Removes a path on the way out unless disarmed: a failed or cancelled export leaves nothing behind.
struct RemoveOnExit
{
    fs::path path;
    bool armed = true;
    ~RemoveOnExit()
    {
        if (armed && !path.empty()) {
            std::error_code ec;
            fs::remove_all(path, ec);
        }
    }
};

// The exported documents' keys live in a temporary table on the connection (off the Steward
// file), so memory stays flat and "requires" is one join against refs.
struct ExportedKeys
{
    SQLite::Database &db;
    explicit ExportedKeys(SQLite::Database &database)
        : db(database)
    {
        db.exec("CREATE TEMP TABLE IF NOT EXISTS steward_export (doc_key INTEGER PRIMARY KEY)");
        db.exec("DELETE FROM temp.steward_export");
    }
    ~ExportedKeys()
    {
        try {
            db.exec("DROP TABLE IF EXISTS temp.steward_export");
        } catch (...) {
            // A temporary table goes with the connection anyway.
        }
    }
};

const char *const kCountAll = "SELECT count(*) FROM documents WHERE project = ?1 AND resource = ?2";
const char *const kCountSince = "SELECT count(*) FROM documents d WHERE d.project = ?1 AND d.resource = ?2 "
                                "AND d.change_seq > ?3";
const char *const kRowsAll = "SELECT doc_key, steward_text(body) FROM documents WHERE project = ?1 AND resource = ?2 "
                             "AND doc_key > ?3 ORDER BY doc_key LIMIT ?4";
const char *const kRowsSince = "SELECT d.doc_key, steward_text(d.body) FROM documents d WHERE d.project = ?1 AND d.resource = ?2 "
                               "AND d.doc_key > ?3 AND d.change_seq > ?5 ORDER BY d.doc_key LIMIT ?4";
// Documents the exported ones point at (references and descriptors, through own or superclass
// aliases) that are not exported themselves.
const char *const kRequires =
    "SELECT DISTINCT t.doc_key, t.project, t.resource, steward_text(t.identity), t.referential_id "
    "FROM temp.steward_export e JOIN refs r ON r.from_doc = e.doc_key "
    "JOIN aliases a ON a.alias_key = r.to_alias JOIN documents t ON t.doc_key = a.doc_key "
    "WHERE NOT EXISTS (SELECT 1 FROM temp.steward_export x WHERE x.doc_key = a.doc_key)";

// Resets a statement before the transaction around it ends, also when leaving by an exception,
// so the read transaction's COMMIT never meets a statement still in progress.
struct ResetOnExit
{
    SQLite::Statement &statement;
    ~ResetOnExit()
    {
        try {
            statement.reset();
        } catch (...) {
        }
    }
};

struct Part
{
    const ResourceSchema *resource = nullptr;
    std::int64_t expected = 0;
};

struct WrittenFile
{
    std::string name;
    std::string resource;
    std::int64_t documents = 0;
    std::string sha256;
};

struct Required
{
    int rank = 0;
    std::string resource;
    std::string keyText;
    Json naturalKey;
    std::string referentialId;
};

void writeWhole(const fs::path &path, const std::string &text)
{
    QSaveFile file(QString::fromStdString(path.string()));
    if (!openPrivateForWriting(file) || file.write(text.data(), static_cast<qint64>(text.size()))
                                                 != static_cast<qint64>(text.size())
        || !file.commit())
        throw ExportFailed(path.string() + ": cannot write: " + file.errorString().toStdString());
}

// One export from options to a batch directory: the selected resources, the checked output
// directory, the documents written file by file into a hidden work directory, the manifest, and
// the batch recorded and moved into place. A refusal leaves its reason in the result.
class BatchExport
{
public:
    BatchExport(Database &database, const Model &model, const ExportOptions &options,
                const std::function<bool(std::int64_t, std::int64_t)> &progress);

    ExportResult run();

private:
    bool refuse(ExportResult::Refusal why, const std::string &message);
    bool selectResources();
    bool checkOutputDirectory();
    bool countDocuments(const LoadOrder &order);
    bool createWorkDirectory();

    void reportProgress();
    void writeResourceFiles();
    void writeResourceFile(const Part &part, SQLite::Statement &rows, SQLite::Statement &mark);
    std::vector<Required> readRequired(const LoadOrder &order);
    Json manifest(std::vector<Required> &required, const std::string &createdAt) const;
    void recordAndMoveIntoPlace(const std::string &createdAt, const std::string &manifestText,
                                RemoveOnExit &removeWork);

    Database &m_database;
    SQLite::Database &m_db;
    const Model &m_model;
    const ExportOptions &m_options;
    const std::function<bool(std::int64_t, std::int64_t)> &m_progress;
    const bool m_changedSince;

    ExportResult m_result;
    std::set<const ResourceSchema *> m_selected;
    Json m_selectedNames = Json::array();
    fs::path m_outDir;
    fs::path m_work;
    std::vector<Part> m_parts;
    std::int64_t m_total = 0;
    std::vector<WrittenFile> m_files;
    std::int64_t m_done = 0;
};

BatchExport::BatchExport(Database &database, const Model &model, const ExportOptions &options,
                         const std::function<bool(std::int64_t, std::int64_t)> &progress)
    : m_database(database)
    , m_db(database.connection())
    , m_model(model)
    , m_options(options)
    , m_progress(progress)
    , m_changedSince(!options.changedSinceBatch.empty())
{
}

ExportResult BatchExport::run()
{
    if (!selectResources() || !checkOutputDirectory())
        return m_result;
    const LoadOrder order(m_model);
    if (!countDocuments(order) || !createWorkDirectory())
        return m_result;
    RemoveOnExit removeWork{m_work};

    try {
        ExportedKeys exported(m_db);
        writeResourceFiles();
        m_result.documents = m_done;
        reportProgress();

        std::vector<Required> required = readRequired(order);
        m_result.required = static_cast<std::int64_t>(required.size());
        const std::string createdAt = engineNowText(); // "2025-01-31T12:00:00Z"
        const std::string manifestText = manifest(required, createdAt).dump(2) + "\n";
        writeWhole(m_work / "manifest.json", manifestText);
        reportProgress();

        recordAndMoveIntoPlace(createdAt, manifestText, removeWork);
    } catch (const ExportCancelled &) {
        m_result.cancelled = true;
        m_result.error = "the export was cancelled; nothing was written";
        m_result.countsByResource.clear();
        return m_result;
    } catch (const SQLite::Exception &e) {
        m_result.error = m_database.path() + ": the export stopped: " + e.getErrorStr() + "; nothing was written";
        m_result.countsByResource.clear();
        return m_result;
    } catch (const std::exception &e) {
        m_result.error = std::string("the export stopped: ") + e.what() + "; nothing was written";
        m_result.countsByResource.clear();
        return m_result;
    }
    m_result.ok = true;
    return m_result;
}

bool BatchExport::refuse(ExportResult::Refusal why, const std::string &message)
{
    m_result.refused = why;
    m_result.error = message;
    return false;
}

bool BatchExport::selectResources()
{
    for (const std::string &name : m_options.resources) {
        const std::vector<const ResourceSchema *> matches = matchResources(m_model, name);
        if (matches.empty())
            return refuse(ExportResult::Refusal::Options,
                          "unknown resource '" + name + "': not an endpoint or resource name of " + m_model.describe());
        for (const ResourceSchema *resource : matches)
            if (m_selected.insert(resource).second)
                m_selectedNames.push_back(resourceKey(*resource));
    }
    return true;
}

bool BatchExport::checkOutputDirectory()
{
    if (m_options.outDir.empty())
        return refuse(ExportResult::Refusal::Options, "no output directory given");
    std::error_code ec;
    fs::path outDir = fs::absolute(fs::path(m_options.outDir), ec).lexically_normal();
    if (!outDir.has_filename())
        outDir = outDir.parent_path();
    if (ec || !outDir.has_filename() || outDir.filename() == "." || outDir.filename() == "..")
        return refuse(ExportResult::Refusal::Options, m_options.outDir + ": not usable as a batch directory");
    if (fs::exists(outDir, ec)) {
        if (!fs::is_directory(outDir, ec))
            return refuse(ExportResult::Refusal::Options, outDir.string() + ": exists and is not a directory");
        if (!fs::is_empty(outDir, ec))
            return refuse(ExportResult::Refusal::Options,
                          outDir.string() + ": exists and is not empty; a batch goes into a new or empty directory");
    }
    m_outDir = outDir;
    m_result.directory = outDir.string();
    return true;
}

// The change-log range the batch covers and how many documents each selected resource has in it.
bool BatchExport::countDocuments(const LoadOrder &order)
{
    try {
        DeferredTransaction read(m_db);
        m_result.seqFrom = 1;
        if (m_changedSince) {
            SQLite::Statement batch(m_db, "SELECT seq_to FROM batches WHERE batch_id = ?");
            batch.bind(1, m_options.changedSinceBatch);
            if (!batch.executeStep())
                return refuse(ExportResult::Refusal::Options, "unknown batch '" + m_options.changedSinceBatch
                                                                  + "': no export with that id is recorded in "
                                                                  + m_database.path());
            m_result.seqFrom = batch.getColumn(0).getInt64() + 1;
        }
        m_result.seqTo = m_db.execAndGet("SELECT coalesce(max(seq), 0) FROM changes").getInt64();
        SQLite::Statement count(m_db, m_changedSince ? kCountSince : kCountAll);
        for (const ResourceSchema *resource : order.flat()) {
            if (!m_selected.empty() && !m_selected.count(resource))
                continue;
            count.reset();
            count.bind(1, resource->projectName());
            count.bind(2, resource->resourceName);
            if (m_changedSince)
                count.bind(3, m_result.seqFrom - 1);
            count.executeStep();
            const std::int64_t n = count.getColumn(0).getInt64();
            // A resource empty now is left out; anything added later has a later change seq.
            if (n > 0)
                m_parts.push_back({resource, n});
            m_total += n;
        }
    } catch (const SQLite::Exception &e) {
        return refuse(ExportResult::Refusal::Database, m_database.path() + ": " + e.getErrorStr());
    }
    return true;
}

// Everything is written into a hidden sibling, owner-only like the batch it becomes, and renamed
// into place at the end.
bool BatchExport::createWorkDirectory()
{
    std::error_code ec;
    const fs::path parent = m_outDir.parent_path();
    fs::create_directories(parent, ec);
    m_result.batchId = Uuid::random().toString();
    m_work = parent / ("." + m_outDir.filename().string() + ".partial-" + m_result.batchId.substr(0, 8));
    std::string error = fs::exists(m_work, ec) ? "it exists" : "";
    if (!error.empty() || !createPrivateDirectory(m_work.string(), &error))
        return refuse(ExportResult::Refusal::Options, m_work.string() + ": cannot create: " + error);
    return true;
}

void BatchExport::reportProgress()
{
    if (m_progress && !m_progress(m_done, std::max(m_total, m_done)))
        throw ExportCancelled{};
}

void BatchExport::writeResourceFiles()
{
    SQLite::Statement rows(m_db, m_changedSince ? kRowsSince : kRowsAll);
    SQLite::Statement mark(m_db, "INSERT OR IGNORE INTO temp.steward_export (doc_key) VALUES (?)");
    reportProgress();

    for (const Part &part : m_parts)
        writeResourceFile(part, rows, mark);
}

// One resource's documents, read in short transactions of kRowsPerTransaction rows each.
void BatchExport::writeResourceFile(const Part &part, SQLite::Statement &rows, SQLite::Statement &mark)
{
    const ResourceSchema &resource = *part.resource;
    const std::string name = batchFileName(m_model, resource);
    QSaveFile file(QString::fromStdString((m_work / name).string()));
    if (!openPrivateForWriting(file))
        throw ExportFailed(name + ": cannot write: " + file.errorString().toStdString());
    QCryptographicHash hash(QCryptographicHash::Sha256);
    std::string buffer;
    buffer.reserve(kWriteBlock + 64 * 1024);
    auto flush = [&] {
        hash.addData(QByteArrayView(buffer.data(), static_cast<qsizetype>(buffer.size())));
        if (file.write(buffer.data(), static_cast<qint64>(buffer.size())) != static_cast<qint64>(buffer.size()))
            throw ExportFailed(name + ": cannot write: " + file.errorString().toStdString());
        buffer.clear();
    };

    std::int64_t count = 0;
    std::int64_t after = 0;
    for (bool more = true; more;) {
        std::int64_t inChunk = 0;
        {
            DeferredTransaction read(m_db);
            const ResetOnExit resetRows{rows};
            rows.reset();
            rows.bind(1, resource.projectName());
            rows.bind(2, resource.resourceName);
            rows.bind(3, after);
            rows.bind(4, kRowsPerTransaction);
            if (m_changedSince)
                rows.bind(5, m_result.seqFrom - 1);
            while (rows.executeStep()) {
                after = rows.getColumn(0).getInt64();
                const SQLite::Column body = rows.getColumn(1);
                const char *text = static_cast<const char *>(body.getBlob());
                buffer.append(text, static_cast<std::size_t>(body.getBytes()));
                buffer += '\n';
                mark.reset();
                mark.bind(1, after);
                mark.exec();
                ++count;
                ++inChunk;
                ++m_done;
                if (buffer.size() >= kWriteBlock)
                    flush();
                if (m_done % kProgressEvery == 0)
                    reportProgress();
            }
        }
        more = inChunk == kRowsPerTransaction;
    }
    if (count == 0) {
        file.cancelWriting(); // every document of it went away meanwhile
        return;
    }
    flush();
    if (!file.commit())
        throw ExportFailed(name + ": cannot write: " + file.errorString().toStdString());
    m_files.push_back({name, resourceKey(resource), count, hex(hash.result())});
    m_result.countsByResource[resourceKey(resource)] = count;
}

// The manifest's "requires": documents the exported ones point at that are not exported, in load order.
std::vector<Required> BatchExport::readRequired(const LoadOrder &order)
{
    std::vector<Required> required;
    {
        DeferredTransaction read(m_db);
        SQLite::Statement query(m_db, kRequires);
        while (query.executeStep()) {
            Required entry;
            const std::string project = query.getColumn(1).getString();
            const std::string resourceName = query.getColumn(2).getString();
            const ResourceSchema *schema = m_model.findByName(project, resourceName);
            entry.rank = order.rankOf(schema);
            entry.resource = schema ? resourceKey(*schema) : toLower(project) + "/" + resourceName;
            JsonParseResult identity = parseJson(query.getColumn(3).getString());
            entry.naturalKey = identity.value ? std::move(*identity.value) : Json::object();
            entry.keyText = naturalKeyText(entry.naturalKey);
            Uuid referentialId;
            readUuid(query.getColumn(4), referentialId);
            entry.referentialId = referentialId.toString();
            required.push_back(std::move(entry));
        }
    }
    std::sort(required.begin(), required.end(), [](const Required &a, const Required &b) {
        return std::tie(a.rank, a.resource, a.keyText) < std::tie(b.rank, b.resource, b.keyText);
    });
    return required;
}

// Moves each required entry's natural key into the manifest.
Json BatchExport::manifest(std::vector<Required> &required, const std::string &createdAt) const
{
    Json projects = Json::array();
    for (const std::unique_ptr<Project> &project : m_model.projects())
        projects.push_back(Json{{"name", project->projectName},
                                {"endpoint", project->projectEndpointName},
                                {"version", project->projectVersion}});
    Json counts = Json::object();
    Json loadOrder = Json::array();
    Json filesJson = Json::array();
    for (const WrittenFile &file : m_files) {
        counts[file.resource] = file.documents;
        loadOrder.push_back(file.resource);
        filesJson.push_back(Json{{"name", file.name},
                                 {"resource", file.resource},
                                 {"documents", file.documents},
                                 {"sha256", file.sha256}});
    }
    Json requiredJson = Json::array();
    for (Required &entry : required)
        requiredJson.push_back(Json{{"resource", entry.resource},
                                {"naturalKey", std::move(entry.naturalKey)},
                                {"referentialId", entry.referentialId}});
    return Json{
        {"format", kFormat},
        {"batchId", m_result.batchId},
        {"createdAt", createdAt},
        {"model", {{"description", m_model.describe()}, {"projects", projects}}},
        {"selection",
         {{"resources", m_selectedNames},
          {"changedSince", m_changedSince ? Json(m_options.changedSinceBatch) : Json(nullptr)}}},
        {"documents", m_done},
        {"countsByResource", counts},
        {"loadOrder", loadOrder},
        {"files", filesJson},
        {"changeSequence", {{"from", m_result.seqFrom}, {"to", m_result.seqTo}}},
        {"requires", requiredJson},
    };
}

// Recorded and moved into place together: a batch on disk is always one the database knows.
void BatchExport::recordAndMoveIntoPlace(const std::string &createdAt, const std::string &manifestText,
                                         RemoveOnExit &removeWork)
{
    std::error_code ec;
    ImmediateTransaction write(m_db);
    SQLite::Statement insert(m_db, "INSERT INTO batches (batch_id, created_at, seq_from, seq_to, out_dir, manifest) "
                                   "VALUES (?, ?, ?, ?, ?, ?)");
    insert.bind(1, m_result.batchId);
    insert.bind(2, createdAt);
    insert.bind(3, m_result.seqFrom);
    insert.bind(4, m_result.seqTo);
    insert.bind(5, m_outDir.string());
    insert.bind(6, manifestText);
    insert.exec();
    fs::rename(m_work, m_outDir, ec);
    if (ec)
        throw ExportFailed(m_outDir.string() + ": cannot move the batch into place: " + ec.message());
    removeWork.armed = false;
    try {
        write.commit();
    } catch (...) {
        fs::remove_all(m_outDir, ec);
        throw;
    }
}

} // namespace

ExportResult exportBatch(Database &database, const Model &model, const ExportOptions &options,
                         const std::function<bool(std::int64_t, std::int64_t)> &progress)
{
    BatchExport batch(database, model, options, progress);
    return batch.run();
}

namespace {

// A set of 16-byte ids with open addressing: half the memory of a node-based set, for batches of
// millions of documents.
class UuidSet
{
public:
    bool insert(const Uuid &id)
    {
        if (isZero(id))
            return !std::exchange(m_hasZero, true);
        if ((m_size + 1) * 2 > m_slots.size())
            grow();
        Uuid &slot = m_slots[slotOf(m_slots, id)];
        if (!isZero(slot))
            return false;
        slot = id;
        ++m_size;
        return true;
    }
    bool contains(const Uuid &id) const
    {
        if (isZero(id))
            return m_hasZero;
        if (m_slots.empty())
            return false;
        return !isZero(m_slots[slotOf(m_slots, id)]);
    }

private:
    static bool isZero(const Uuid &id)
    {
        static const Uuid zero;
        return id == zero;
    }
    static std::uint64_t hashOf(const Uuid &id)
    {
        std::uint64_t low = 0;
        std::uint64_t high = 0;
        std::memcpy(&low, id.bytes.data(), 8);
        std::memcpy(&high, id.bytes.data() + 8, 8);
        return (low ^ (high * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    }
    // The slot holding id, or the empty slot where it would go.
    static std::size_t slotOf(const std::vector<Uuid> &slots, const Uuid &id)
    {
        const std::size_t mask = slots.size() - 1;
        for (std::size_t i = hashOf(id) & mask;; i = (i + 1) & mask)
            if (isZero(slots[i]) || slots[i] == id)
                return i;
    }
    void grow()
    {
        std::vector<Uuid> bigger(std::max<std::size_t>(1024, m_slots.size() * 2));
        for (const Uuid &id : m_slots)
            if (!isZero(id))
                bigger[slotOf(bigger, id)] = id;
        m_slots.swap(bigger);
    }

    std::vector<Uuid> m_slots;
    std::size_t m_size = 0;
    bool m_hasZero = false;
};

std::string identityText(const DocumentIdentity &identity)
{
    std::string text;
    for (const IdentityElement &element : identity.elements) {
        std::string path = element.path.rfind("$.", 0) == 0 ? element.path.substr(2) : element.path;
        text += (text.empty() ? "" : ", ") + path + "=" + element.value;
    }
    return identity.resourceName + " (" + text + ")";
}

struct Problem
{
    int file = -1; // index in the manifest's files; -1 for the manifest and the directory itself
    std::int64_t line = 0;
    std::string text;
};

// A reference that pointed forward (or nowhere) when its line was read; settled at the end.
struct PendingReference
{
    Uuid id;
    int file = 0;
    std::int64_t line = 0;
    std::string what;
};

class BatchVerifier
{
public:
    BatchVerifier(const QDir &dir, const Model &model)
        : m_dir(dir)
        , m_model(model)
        , m_identity(model)
    {
    }

    VerifyResult run()
    {
        VerifyResult result;
        if (readManifest()) {
            checkDirectory();
            for (std::size_t i = 0; i < m_files.size(); ++i)
                checkFile(static_cast<int>(i));
            for (const PendingReference &pending : m_pending)
                if (!m_batch.contains(pending.id) && !m_required.contains(pending.id))
                    add(pending.file, pending.line, pending.what + " is neither in the batch nor in its requires");
        }
        std::stable_sort(m_problems.begin(), m_problems.end(), [](const Problem &a, const Problem &b) {
            return std::tie(a.file, a.line) < std::tie(b.file, b.line);
        });
        for (const Problem &problem : m_problems)
            result.problems.push_back(problem.text);
        result.documents = m_documents;
        result.batchId = m_batchId;
        result.createdAt = m_createdAt;
        result.files = static_cast<std::int64_t>(m_files.size());
        result.ok = result.problems.empty();
        return result;
    }

private:
    struct ListedFile
    {
        std::string name;
        const ResourceSchema *resource = nullptr;
        std::int64_t documents = -1;
        std::string sha256;
    };

    void add(int file, std::int64_t line, const std::string &what)
    {
        std::string where = file < 0 ? std::string("manifest.json") : m_files[static_cast<std::size_t>(file)].name;
        if (line > 0)
            where += ":" + std::to_string(line);
        m_problems.push_back({file, line, where + ": " + what});
    }

    bool readManifest()
    {
        QFile file(m_dir.filePath(QStringLiteral("manifest.json")));
        if (!file.open(QIODevice::ReadOnly)) {
            add(-1, 0, "missing or unreadable (" + file.errorString().toStdString() + ")");
            return false;
        }
        const QByteArray bytes = file.readAll();
        JsonParseLimits limits;
        limits.maxBytes = std::size_t(1) << 30; // "requires" of a narrow export can be long
        JsonParseResult parsed = parseJson(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), limits);
        if (!parsed.value) {
            add(-1, 0, "invalid JSON: " + parsed.error);
            return false;
        }
        const Json &manifest = *parsed.value;
        if (!manifest.is_object()) {
            add(-1, 0, "not a JSON object");
            return false;
        }
        if (manifest.value("format", std::string()) != kFormat)
            add(-1, 0, std::string("format is not \"") + kFormat + "\"");
        for (auto [key, target] : {std::pair{"batchId", &m_batchId}, std::pair{"createdAt", &m_createdAt}})
            if (auto it = manifest.find(key); it != manifest.end() && it->is_string())
                *target = it->get<std::string>();
        auto files = manifest.find("files");
        if (files == manifest.end() || !files->is_array()) {
            add(-1, 0, "no \"files\" list");
            return false;
        }
        std::set<std::string> names;
        for (std::size_t i = 0; i < files->size(); ++i) {
            const Json &entry = (*files)[i];
            const std::string where = "files[" + std::to_string(i) + "]";
            if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) {
                add(-1, 0, where + ": no file name");
                continue;
            }
            ListedFile listed;
            listed.name = entry["name"].get<std::string>();
            // Names come from the manifest: never let one reach outside the batch directory.
            if (listed.name.empty() || listed.name.find_first_of("/\\") != std::string::npos || listed.name[0] == '.'
                || listed.name == "manifest.json") {
                add(-1, 0, where + ": '" + listed.name + "' is not a batch file name");
                continue;
            }
            if (!names.insert(listed.name).second) {
                add(-1, 0, where + ": '" + listed.name + "' is listed twice");
                continue;
            }
            if (entry.contains("documents") && entry["documents"].is_number_integer())
                listed.documents = entry["documents"].get<std::int64_t>();
            else
                add(-1, 0, where + ": no document count");
            if (entry.contains("sha256") && entry["sha256"].is_string())
                listed.sha256 = toLower(entry["sha256"].get<std::string>());
            else
                add(-1, 0, where + ": no sha256");
            const std::string resource = entry.value("resource", std::string());
            listed.resource = m_model.findByPath(resource);
            if (!listed.resource)
                add(-1, 0, where + ": resource '" + resource + "' is not in the model (" + m_model.describe()
                               + "); its references cannot be checked");
            else if (batchFileName(m_model, *listed.resource) != listed.name)
                add(-1, 0, where + ": '" + listed.name + "' does not name " + resource + " (expected '"
                               + batchFileName(m_model, *listed.resource) + "'), so an import would misread it");
            m_files.push_back(std::move(listed));
        }
        readRequires(manifest);
        return true;
    }

    void readRequires(const Json &manifest)
    {
        auto requiredList = manifest.find("requires");
        if (requiredList == manifest.end() || !requiredList->is_array()) {
            add(-1, 0, "no \"requires\" list");
            return;
        }
        for (std::size_t i = 0; i < requiredList->size(); ++i) {
            const Json &entry = (*requiredList)[i];
            const std::string where = "requires[" + std::to_string(i) + "]";
            std::optional<Uuid> stated;
            if (entry.is_object() && entry.contains("referentialId") && entry["referentialId"].is_string())
                stated = Uuid::parse(entry["referentialId"].get<std::string>());
            if (!stated) {
                add(-1, 0, where + ": no valid referentialId");
                continue;
            }
            m_required.insert(*stated);
            // A required School also answers to references to its EducationOrganization.
            const std::string resource = entry.value("resource", std::string());
            const ResourceSchema *schema = m_model.findByPath(resource);
            auto key = entry.find("naturalKey");
            if (!schema || key == entry.end() || !key->is_object())
                continue;
            std::optional<DocumentIdentity> own = m_identity.documentIdentity(*schema, *key);
            if (!own) {
                add(-1, 0, where + ": the natural key is incomplete for " + resource);
                continue;
            }
            if (own->referentialId() != *stated)
                add(-1, 0, where + ": referentialId " + stated->toString() + " does not match its natural key");
            if (std::optional<DocumentIdentity> super = m_identity.superclassIdentity(*schema, *own))
                m_required.insert(super->referentialId());
        }
    }

    void checkDirectory()
    {
        std::set<std::string> listed;
        for (const ListedFile &file : m_files)
            listed.insert(file.name);
        // Whatever an import of this directory would read must be listed.
        const QStringList names =
            m_dir.entryList({"*.ndjson", "*.jsonl", "*.json", "*.xml"}, QDir::Files, QDir::Name);
        for (const QString &name : names)
            if (name != QLatin1String("manifest.json") && !listed.count(name.toStdString()))
                m_problems.push_back({-1, 0, name.toStdString() + ": not listed in manifest.json"});
    }

    void checkFile(int index)
    {
        const ListedFile &listed = m_files[static_cast<std::size_t>(index)];
        QFile file(m_dir.filePath(QString::fromStdString(listed.name)));
        if (!file.exists()) {
            add(index, 0, "listed in manifest.json but missing");
            return;
        }
        if (!file.open(QIODevice::ReadOnly)) {
            add(index, 0, "cannot read: " + file.errorString().toStdString());
            return;
        }
        const std::size_t maxLine = JsonParseLimits{}.maxBytes;
        QCryptographicHash hash(QCryptographicHash::Sha256);
        std::vector<char> block(kWriteBlock);
        std::string line;
        bool tooLong = false;
        std::int64_t lineNumber = 0;
        auto finishLine = [&] {
            ++lineNumber;
            checkLine(index, lineNumber, line, tooLong);
            line.clear();
            tooLong = false;
        };
        for (;;) {
            const qint64 n = file.read(block.data(), static_cast<qint64>(block.size()));
            if (n < 0) {
                add(index, 0, "cannot read: " + file.errorString().toStdString());
                return;
            }
            if (n == 0)
                break;
            hash.addData(QByteArrayView(block.data(), static_cast<qsizetype>(n)));
            const char *p = block.data();
            const char *end = p + n;
            while (p < end) {
                const char *newline = static_cast<const char *>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
                const char *stop = newline ? newline : end;
                if (!tooLong) {
                    if (line.size() + static_cast<std::size_t>(stop - p) > maxLine) {
                        tooLong = true;
                        line.clear();
                    } else {
                        line.append(p, stop);
                    }
                }
                if (!newline)
                    break;
                finishLine();
                p = newline + 1;
            }
        }
        if (!line.empty() || tooLong)
            finishLine(); // a last line without its newline
        const std::string actual = hex(hash.result());
        if (!listed.sha256.empty() && actual != listed.sha256)
            add(index, 0, "SHA-256 is " + actual + ", manifest.json says " + listed.sha256 + " (the file was changed)");
        if (listed.documents >= 0 && lineNumber != listed.documents)
            add(index, 0, std::to_string(lineNumber) + " lines, manifest.json says " + std::to_string(listed.documents)
                              + " documents");
    }

    void checkLine(int index, std::int64_t lineNumber, const std::string &text, bool tooLong)
    {
        ++m_documents;
        if (tooLong) {
            add(index, lineNumber, "line longer than the " + std::to_string(JsonParseLimits{}.maxBytes) + " byte limit");
            return;
        }
        if (text.find_first_not_of(" \t\r") == std::string::npos) {
            add(index, lineNumber, "empty line");
            return;
        }
        JsonParseResult parsed = parseJson(text);
        if (!parsed.value) {
            add(index, lineNumber, "invalid JSON: " + parsed.error);
            return;
        }
        const Json &body = *parsed.value;
        if (!body.is_object()) {
            add(index, lineNumber, "not a JSON object");
            return;
        }
        const ResourceSchema *resource = m_files[static_cast<std::size_t>(index)].resource;
        if (!resource)
            return;
        std::string missing;
        std::optional<DocumentIdentity> own = m_identity.documentIdentity(*resource, body, &missing);
        if (!own) {
            add(index, lineNumber, "no natural key: " + missing + " is missing");
            return;
        }
        if (!m_batch.insert(own->referentialId()))
            add(index, lineNumber, "duplicate document: " + identityText(*own) + " is already in the batch");
        if (std::optional<DocumentIdentity> super = m_identity.superclassIdentity(*resource, *own))
            if (!m_batch.insert(super->referentialId()))
                add(index, lineNumber, "its identity as " + identityText(*super) + " is already taken in the batch");

        auto check = [&](const DocumentIdentity &target, const std::string &where) {
            const Uuid id = target.referentialId();
            if (!m_batch.contains(id) && !m_required.contains(id))
                m_pending.push_back({id, index, lineNumber, where + ": " + identityText(target)});
        };
        for (const DescriptorMapping &descriptor : resource->descriptors)
            for (const JsonPath::Match &match : descriptor.path.select(body))
                if (match.value->is_string())
                    check(IdentityCalculator::descriptorIdentity(descriptor.descriptorProjectName,
                                                                 descriptor.descriptorResourceName,
                                                                 match.value->get<std::string>()),
                          match.concretePath);
        for (const ReferenceMapping &reference : resource->references)
            for (const JsonPath::Match &occurrence : reference.objectPath.select(body)) {
                if (!occurrence.value->is_object())
                    continue;
                std::optional<DocumentIdentity> target = m_identity.referenceIdentity(reference, body, occurrence.indices);
                if (target)
                    check(*target, occurrence.concretePath);
                else
                    add(index, lineNumber, occurrence.concretePath + ": the reference to " + reference.targetResourceName
                                               + " is incomplete");
            }
    }

    QDir m_dir;
    const Model &m_model;
    IdentityCalculator m_identity;
    std::vector<ListedFile> m_files;
    UuidSet m_batch;    // own and superclass ids of the batch's documents
    UuidSet m_required; // ids the manifest says the target database must already hold
    std::vector<PendingReference> m_pending;
    std::vector<Problem> m_problems;
    std::int64_t m_documents = 0;
    std::string m_batchId;
    std::string m_createdAt;
};

} // namespace

VerifyResult verifyBatch(const std::string &directory, const Model &model)
{
    const QDir dir(QString::fromStdString(directory));
    if (!dir.exists()) {
        VerifyResult result;
        result.problems.push_back(directory + ": no such directory");
        return result;
    }
    return BatchVerifier(dir, model).run();
}

} // namespace steward
