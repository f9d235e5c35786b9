#include "Importer.h"

#include "BatchPipeline.h"

#include "RowMapping.h"

#include "ImportSource.h"
#include "LoadOrder.h"

#include <QFileInfo>
#include <QTemporaryDir>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace steward {

namespace {

Json countsJson(const ImportCounts &c)
{
    return Json{{"created", c.created}, {"updated", c.updated}, {"unchanged", c.unchanged}, {"drafts", c.drafts}};
}

Json unreadableProblem(const std::string &detail)
{
    return problem::make(400, problem::kBadRequest, "Bad Request", detail).body;
}

// Items wait here, outside the user's database, until they can be applied in load order. A
// temporary SQLite file keeps memory flat however large the input is.
class Spool
{
public:
    explicit Spool(const std::string &path)
        : m_db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)
    {
        m_db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA temp_store=FILE;"
                  "CREATE TABLE items (rank INTEGER NOT NULL, seq INTEGER NOT NULL, file TEXT NOT NULL, "
                  "line INTEGER NOT NULL, resource TEXT NOT NULL, body TEXT, error TEXT, "
                  "implied INTEGER NOT NULL)");
        m_insert = std::make_unique<SQLite::Statement>(
            m_db, "INSERT INTO items (rank, seq, file, line, resource, body, error, implied) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        m_db.exec("BEGIN");
    }
    ~Spool()
    {
        m_insert.reset();
    }

    void add(int rank, const ImportItem &item, const std::string &body)
    {
        m_insert->reset();
        m_insert->bind(1, rank);
        m_insert->bind(2, m_count++);
        m_insert->bind(3, item.file);
        m_insert->bind(4, item.line);
        m_insert->bind(5, item.resource);
        if (!body.empty())
            m_insert->bind(6, body);
        else
            m_insert->bind(6);
        if (item.error.empty())
            m_insert->bind(7);
        else
            m_insert->bind(7, item.error);
        m_insert->bind(8, item.implied ? 1 : 0);
        m_insert->exec();
        if (m_count % 50000 == 0) {
            m_db.exec("COMMIT");
            m_db.exec("BEGIN");
        }
    }
    void finish()
    {
        m_db.exec("COMMIT");
        m_db.exec("CREATE INDEX items_in_order ON items(rank, seq)");
    }
    std::int64_t count() const { return m_count; }
    SQLite::Database &db() { return m_db; }

private:
    SQLite::Database m_db;
    std::unique_ptr<SQLite::Statement> m_insert;
    std::int64_t m_count = 0;
};

// Drops the indexes nothing in an import reads when the import is large against what is stored,
// and builds them again when it ends, however it ends (Database::open builds them after a kill).
// At 1M documents this took the import from 122 s to about 50 s: each chunk had rewritten the
// index pages its random keys landed on, nearly every page of every such index.
class DeferredIndexes
{
public:
    explicit DeferredIndexes(Database &database)
        : m_database(database)
    {
    }
    ~DeferredIndexes()
    {
        if (m_active)
            build();
    }
    DeferredIndexes(const DeferredIndexes &) = delete;
    DeferredIndexes &operator=(const DeferredIndexes &) = delete;

    void deferIfLargeAgainst(std::int64_t incoming)
    {
        // Building costs a pass over everything stored; worth it when the import is a good share of it.
        SQLite::Statement stored(m_database.connection(), "SELECT coalesce(max(doc_key), 0) FROM documents");
        stored.executeStep();
        if (incoming * 4 < stored.getColumn(0).getInt64())
            return;
        stored.reset();
        m_database.deferIndexes();
        m_active = true;
    }
    bool active() const { return m_active; }

    // Empty when built; otherwise what went wrong (the next open tries again).
    std::string build()
    {
        m_active = false;
        try {
            m_database.buildDeferredIndexes();
        } catch (const std::exception &e) {
            return std::string("building its indexes failed: ") + e.what()
                   + "; they are built again when the database is next opened";
        }
        return {};
    }

private:
    Database &m_database;
    bool m_active = false;
};

// An item on its way to the writer, from the spool or (input already in load order) straight
// from the input.
struct SpooledItem
{
    std::string file;
    std::int64_t line = 0;
    std::string resource;
    std::string text;  // the body as spooled (for a draft, what could be read of it)
    std::string error; // why the item could not be read; empty when it could
    bool implied = false;
    std::optional<PreparedBody> prepared; // set for a readable document that is not implied
    int rank = 0;
    // Read straight from the input: the line as read, for a draft's text (made only when needed).
    std::string raw;
    bool rawIsEnvelope = false;
    bool streamed = false; // read straight from the input, not from the spool
    // Its parsed resource is not the one the scan read (the file changed since): applied from the
    // spool at the end instead.
    bool toSpool = false;
    std::uint64_t bytesRead = 0;
    std::uint64_t bytesTotal = 0;
};

// Server fields from an API dump are not part of the document. A body that is not an object is
// left as it is: validation refuses it, and it becomes a draft like any other refusal.
void dropServerFields(Json &body)
{
    if (!body.is_object())
        return;
    for (const char *field : {"id", "_etag", "_lastModifiedDate"})
        body.erase(field);
}

// The text a document is kept and spooled as.
std::string documentText(Json &body)
{
    dropServerFields(body);
    return dumpJson(body);
}

// What a draft of the item keeps: the body as read, or the line itself when it could not be read
// (the line read again exactly as the spool's reader reads it).
const std::string &draftText(SpooledItem &item)
{
    if (!item.text.empty() || item.raw.empty())
        return item.text;
    ImportItem reread;
    reread.unparsed = item.raw;
    reread.unparsedIsEnvelope = item.rawIsEnvelope;
    completeItem(reread);
    item.text = reread.body ? documentText(*reread.body) : item.raw;
    return item.text;
}

constexpr std::size_t kItemsPerBatch = 256;

} // namespace

int preparingThreads(int jobs)
{
    if (jobs > 0)
        return jobs;
    // All the cores but the writer's.
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
}

namespace {

// An input item as read (parsed, server fields dropped, written back as text) with its place in
// load order, read on the second core while the first spools.
struct ReadItem
{
    int rank = 0;
    ImportItem item; // without its parsed body
    std::string body;
    std::uint64_t bytesRead = 0;
    std::uint64_t bytesTotal = 0;
    std::string fatal; // an input that cannot be opened: the import stops here
};

class InputReader
{
public:
    InputReader(const std::vector<std::string> &paths, const Model &model, const RowMapping *mapping)
        : m_paths(paths)
        , m_model(model)
        , m_mapping(mapping)
        , m_order(model)
        , m_unknownRank(static_cast<int>(model.resources().size()))
    {
    }

    bool fill(std::vector<ReadItem> &batch)
    {
        bool more = true;
        while (more && batch.size() < kItemsPerBatch)
            more = readOne(batch);
        inTwoHalves(batch.size(), [this, &batch](std::size_t from, std::size_t to) {
            for (std::size_t i = from; i < to; ++i) {
                completeItem(batch[i].item);
                classify(batch[i]);
                writeText(batch[i]);
            }
        });
        return more;
    }

    // For fillPrepared: the resource of every item, in order, as the scan read them.
    void expectRuns(const std::vector<std::pair<std::string, std::int64_t>> &runs) { m_runs = &runs; }

    // For inputs already in load order: each item read here, then parsed and prepared by `jobs`
    // threads (this one and jobs - 1 helpers) for the writer. Parsing and preparing touch nothing
    // shared; the order checks between them run on this thread alone, in input order.
    bool fillPrepared(std::vector<SpooledItem> &batch, const Engine &engine, int jobs)
    {
        std::vector<ReadItem> read;
        bool more = true;
        while (more && read.size() < kItemsPerBatch)
            more = readOne(read);
        for (ReadItem &r : read)
            if (!r.fatal.empty())
                throw std::runtime_error(r.fatal);
        batch.resize(read.size());
        for (std::size_t i = 0; i < read.size(); ++i) {
            batch[i].raw = read[i].item.unparsed;
            batch[i].rawIsEnvelope = read[i].item.unparsedIsEnvelope;
        }
        inParts(read.size(), jobs, [&read](std::size_t from, std::size_t to) {
            for (std::size_t i = from; i < to; ++i)
                completeItem(read[i].item);
        });
        std::vector<std::size_t> toPrepare;
        for (std::size_t i = 0; i < read.size(); ++i) {
            ReadItem &r = read[i];
            ImportItem &item = r.item;
            SpooledItem &out = batch[i];
            out.streamed = true;
            classify(r);
            advanceRun();
            out.file = std::move(item.file);
            out.line = item.line;
            out.resource = std::move(item.resource);
            out.error = std::move(item.error);
            out.implied = item.implied;
            out.rank = r.rank;
            out.bytesRead = r.bytesRead;
            out.bytesTotal = r.bytesTotal;
            if (out.error.empty() && item.body) {
                // The scan read each line's resource without parsing (and gave up on a line naming
                // "resource" twice); a line whose parsed resource still says otherwise waits for
                // the spool instead.
                if (!expected(out.resource)) {
                    out.toSpool = true;
                    out.text = documentText(*item.body);
                } else if (out.implied) {
                    out.text = documentText(*item.body);
                } else {
                    dropServerFields(*item.body);
                    toPrepare.push_back(i);
                }
            }
        }
        inParts(toPrepare.size(), jobs, [&](std::size_t from, std::size_t to) {
            for (std::size_t k = from; k < to; ++k) {
                const std::size_t i = toPrepare[k];
                batch[i].prepared =
                    engine.preparePost(*m_model.findByPath(batch[i].resource), std::move(*read[i].item.body));
            }
        });
        return more;
    }

private:
    void advanceRun()
    {
        if (m_runs == nullptr)
            return;
        while (m_run < m_runs->size() && m_inRun >= (*m_runs)[m_run].second) {
            ++m_run;
            m_inRun = 0;
        }
        ++m_inRun;
    }
    bool expected(const std::string &resource) const
    {
        return m_runs != nullptr && m_run < m_runs->size() && (*m_runs)[m_run].first == resource;
    }

    // False at the end of the inputs, or at one that cannot be opened (a fatal item says which).
    bool readOne(std::vector<ReadItem> &batch)
    {
        while (!m_source) {
            if (m_next >= m_paths.size())
                return false;
            std::string error;
            m_source = openImportSource(m_paths[m_next++], m_model, &error, m_mapping);
            if (!m_source) {
                ReadItem failed;
                failed.fatal = error;
                batch.push_back(std::move(failed));
                return false;
            }
            m_before = m_bytesTotal;
            m_bytesTotal += m_source->bytesTotal();
        }
        ReadItem read;
        if (!m_source->nextUnparsed(read.item)) {
            m_source.reset();
            return true;
        }
        read.bytesRead = m_before + m_source->bytesRead();
        read.bytesTotal = m_bytesTotal;
        batch.push_back(std::move(read));
        return true;
    }

    // Its place in load order, or why it has none.
    void classify(ReadItem &read) const
    {
        ImportItem &item = read.item;
        read.rank = m_unknownRank;
        if (!item.error.empty())
            return;
        const ResourceSchema *schema = m_model.findByPath(item.resource);
        if (schema == nullptr)
            item.error = item.resource.empty() ? "the document names no resource"
                                               : "the resource '" + item.resource + "' is not in the model";
        else
            read.rank = m_order.rankOf(schema);
    }

    static void writeText(ReadItem &read)
    {
        ImportItem &item = read.item;
        if (item.body)
            read.body = documentText(*item.body); // also for an unknown resource: its draft keeps it
        else if (!item.unparsed.empty())
            read.body = std::move(item.unparsed); // unreadable: its draft keeps the line as it was
        item.body.reset();
    }

    const std::vector<std::string> &m_paths;
    const Model &m_model;
    const RowMapping *m_mapping = nullptr;
    const LoadOrder m_order;
    const int m_unknownRank; // after every resource: items that name none come last
    std::size_t m_next = 0;
    std::unique_ptr<ImportSource> m_source;
    std::uint64_t m_before = 0;
    std::uint64_t m_bytesTotal = 0;

    const std::vector<std::pair<std::string, std::int64_t>> *m_runs = nullptr;
    std::size_t m_run = 0;
    std::int64_t m_inRun = 0;
};

// Reads the spool back in load order and prepares each document (parse, schema and constraint
// validation, identities, stored text), on the second core while the first writes.
class SpoolReader
{
public:
    SpoolReader(SQLite::Database &spool, const Engine &engine, const Model &model)
        : m_items(spool, "SELECT file, line, resource, body, error, implied FROM items ORDER BY rank, seq")
        , m_engine(engine)
        , m_model(model)
    {
    }

    bool fill(std::vector<SpooledItem> &batch)
    {
        bool more = true;
        // Prepared on this thread alone: the writer is the bound while applying, and a helper
        // taking half of this changed nothing measurable (320k documents: 10.0-10.6 s with one,
        // 10.2 s without).
        while (batch.size() < kItemsPerBatch && (more = m_items.executeStep()))
            batch.push_back(read());
        return more;
    }

private:
    SpooledItem read()
    {
        SpooledItem item;
        item.file = m_items.getColumn(0).getString();
        item.line = m_items.getColumn(1).getInt64();
        item.resource = m_items.getColumn(2).getString();
        item.text = m_items.getColumn(3).isNull() ? std::string() : m_items.getColumn(3).getString();
        item.implied = m_items.getColumn(5).getInt() != 0;
        if (!m_items.getColumn(4).isNull())
            item.error = m_items.getColumn(4).getString();
        else if (!item.implied)
            item.prepared = m_engine.preparePost(*m_model.findByPath(item.resource), Json::parse(item.text));
        return item;
    }

    SQLite::Statement m_items;
    const Engine &m_engine;
    const Model &m_model;
};

// The resources of the inputs' items, read without parsing, as runs of one resource each.
struct InputRuns
{
    std::int64_t items = 0;
    std::vector<std::pair<std::string, std::int64_t>> runs;
};

// The inputs' runs when applying them as they come gives what applying them in load order gives:
// a document may come before one of an earlier layer only when neither resource references the
// other (nor shares its superclass identities), as the generator and Ed-Fi loaders write them.
// Nothing when they do not, or when that cannot be told cheaply (see scanResources). Such inputs
// are applied as they are read, without the spool: one parse per document, reading beside writing.
// keepGoing(bytes scanned, bytes of all inputs) is asked now and then; false stops the scan.
std::optional<InputRuns> runsIfInLoadOrder(const std::vector<std::string> &paths, const Model &model,
                                           const std::function<bool(std::uint64_t, std::uint64_t)> &keepGoing)
{
    constexpr std::size_t kMaxRuns = 100000; // beyond this, interleaving costs more than the spool
    const LoadOrder order(model);
    InputRuns input;
    std::vector<const ResourceSchema *> started;
    auto visit = [&](const std::string &resource) {
        ++input.items;
        if (!input.runs.empty() && input.runs.back().first == resource) {
            ++input.runs.back().second;
            return true;
        }
        if (input.runs.size() >= kMaxRuns)
            return false;
        input.runs.emplace_back(resource, 1);
        const ResourceSchema *schema = model.findByPath(resource);
        if (schema == nullptr)
            return true; // a draft wherever it comes
        for (const ResourceSchema *earlier : started)
            if (earlier != schema && order.rankOf(schema) < order.rankOf(earlier) && order.dependent(schema, earlier))
                return false;
        if (std::find(started.begin(), started.end(), schema) == started.end())
            started.push_back(schema);
        return true;
    };
    std::vector<std::uint64_t> sizes;
    std::uint64_t bytesTotal = 0;
    for (const std::string &path : paths) {
        sizes.push_back(static_cast<std::uint64_t>(QFileInfo(QString::fromStdString(path)).size()));
        bytesTotal += sizes.back();
    }
    std::uint64_t bytesBefore = 0; // of the files scanned already
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const auto ask = [&](std::uint64_t bytesRead) { return keepGoing(bytesBefore + bytesRead, bytesTotal); };
        if (!scanResources(paths[i], model, visit, ask))
            return std::nullopt;
        bytesBefore += sizes[i];
    }
    return input;
}

// Stops the engine's filter of stored referential ids when the import ends, however it ends.
struct TrackedIds
{
    Engine &engine;
    bool active = false;
    ~TrackedIds()
    {
        if (active)
            engine.stopTrackingReferentialIds();
    }
};

// One import: the scan that tells whether the inputs are in load order, the spool they are read
// into when they are not, and the chunks that apply them. Members are destroyed in the order the
// import needs: the id filter stops, then deferred indexes are built, then the spool goes.
class ImportRun
{
public:
    ImportRun(Engine &engine, const Model &model, const ImportOptions &options,
              const std::function<bool(const ImportProgress &)> &progress);

    ImportReport run();

private:
    void addDraft(const std::string &file, std::int64_t line, const std::string &resource,
                  const Json &problemBody, const std::string &text);
    bool openSpool();
    bool scanInputs();
    bool spoolInputs();
    bool startApplying();
    bool applyInputs();
    bool checkLinks();
    bool applyStreamed();
    bool applySpooled();
    bool applyAll(Pipeline<SpooledItem> &reader);
    void spoolForLater(const SpooledItem &item);
    void apply(SpooledItem &item, bool lastChance);
    void retryUnresolved();
    bool buildDeferredIndexes();

    Engine &m_engine;
    std::string m_sourceFile; // the input whose name the change log records as the writes' source
    const Model &m_model;
    const ImportOptions &m_options;
    const std::function<bool(const ImportProgress &)> &m_progress;
    ImportReport m_report;
    const int m_chunk;

    QTemporaryDir m_spoolDir;
    std::optional<Spool> m_spool;
    std::set<std::string> m_impliedSeen; // "resource body": each implied document once per import
    ImportProgress m_status;
    std::optional<InputRuns> m_inLoadOrder;
    DeferredIndexes m_deferred;
    TrackedIds m_tracked;
    // Retried once more: refused for a reference that a later document of the same layer may answer.
    std::vector<SpooledItem> m_unresolved;
    std::int64_t m_inChunk = 0;
};

ImportRun::ImportRun(Engine &engine, const Model &model, const ImportOptions &options,
                     const std::function<bool(const ImportProgress &)> &progress)
    : m_engine(engine)
    , m_model(model)
    , m_options(options)
    , m_progress(progress)
    , m_chunk(std::max(1, options.chunkSize))
    , m_deferred(engine.database())
    , m_tracked{engine}
{
}

ImportReport ImportRun::run()
{
    if (!openSpool() || !scanInputs())
        return m_report;
    m_status = ImportProgress();

    // Phase 1 (inputs not in load order): read every input into the spool keyed by load order.
    m_status.phase = "reading";
    if (!m_inLoadOrder && !spoolInputs())
        return m_report;

    // Phase 2: apply in load order, a chunk per transaction.
    if (!startApplying() || !applyInputs() || !buildDeferredIndexes())
        return m_report;
    if (m_progress)
        m_progress(m_status);
    m_report.completed = true;
    return m_report;
}

void ImportRun::addDraft(const std::string &file, std::int64_t line, const std::string &resource,
                         const Json &problemBody, const std::string &text)
{
    m_report.drafts.push_back({file, line, resource, problemBody});
    ++m_report.totals.drafts;
    ++m_report.byResource[resource.empty() ? std::string("(unknown)") : resource].drafts;
    const ResourceSchema *schema = m_model.findByPath(resource);
    m_engine.keepDraft(schema ? schema->projectName() : std::string(), schema ? schema->resourceName : resource, text,
                       problemBody, m_options.actor);
}

bool ImportRun::openSpool()
{
    if (!m_spoolDir.isValid()) {
        m_report.error = "cannot create a temporary folder for the import: " + m_spoolDir.errorString().toStdString();
        return false;
    }
    m_spool.emplace(m_spoolDir.filePath(QStringLiteral("spool.db")).toStdString());
    return true;
}

// Whether the inputs are in load order already (then they are applied as they are read).
bool ImportRun::scanInputs()
{
    m_status.phase = "scanning";
    bool scanCancelled = false;
    m_inLoadOrder = runsIfInLoadOrder(
        m_options.paths, m_model, [this, &scanCancelled](std::uint64_t bytesRead, std::uint64_t bytesTotal) {
            m_status.bytesRead = bytesRead;
            m_status.bytesTotal = bytesTotal;
            scanCancelled = m_progress && !m_progress(m_status);
            return !scanCancelled;
        });
    if (scanCancelled) {
        m_report.cancelled = true;
        return false; // nothing read or applied yet
    }
    return true;
}

bool ImportRun::spoolInputs()
{
    if (m_progress && !m_progress(m_status)) {
        m_report.cancelled = true;
        return false;
    }
    // Nothing is applied yet: a failure here (the spool's disk full) leaves the database as it was.
    try {
        InputReader input(m_options.paths, m_model, m_options.mapping.get());
        Pipeline<ReadItem> reading([&input](std::vector<ReadItem> &batch) { return input.fill(batch); });
        std::vector<ReadItem> batch;
        while (reading.next(batch)) {
            for (ReadItem &read : batch) {
                if (!read.fatal.empty()) {
                    m_report.error = read.fatal;
                    return false;
                }
                m_status.bytesRead = read.bytesRead;
                m_status.bytesTotal = read.bytesTotal;
                if (read.item.implied && !m_impliedSeen.insert(read.item.resource + " " + read.body).second)
                    continue;
                m_spool->add(read.rank, read.item, read.body);
                ++m_status.items;
                if (m_progress && m_status.items % 1000 == 0 && !m_progress(m_status)) {
                    m_report.cancelled = true;
                    return false; // nothing applied yet
                }
            }
        }
        m_status.bytesRead = m_status.bytesTotal;
        m_spool->finish();
    } catch (const std::exception &e) {
        m_report.error = std::string("reading the input stopped: ") + e.what() + "; nothing was applied";
        return false;
    }
    return true;
}

bool ImportRun::startApplying()
{
    m_status.phase = "applying";
    m_status.itemsTotal = m_inLoadOrder ? m_inLoadOrder->items : m_spool->count();
    m_status.items = 0;
    if (m_status.itemsTotal >= m_options.deferIndexesFrom) {
        try {
            m_deferred.deferIfLargeAgainst(m_status.itemsTotal);
        } catch (const std::exception &e) {
            m_report.error = std::string("the import could not start: ") + e.what();
            return false;
        }
    }
    // A large import mostly creates: a filter of the stored referential ids saves each new document
    // a lookup (1M documents: 3.7 s of the writer's time).
    if (m_deferred.active()) { // the same rule: large, and a good share of what is stored
        try {
            m_engine.trackReferentialIds(m_status.itemsTotal);
            m_tracked.active = true;
        } catch (const std::exception &e) {
            m_report.error = std::string("the import could not start: ") + e.what();
            return false;
        }
    }
    return true;
}

bool ImportRun::applyInputs()
{
    // The engine resolves every reference a document makes inside the chunk's transaction, and the
    // import only creates and updates (no delete to cascade); SQLite's foreign-key checks repeat that
    // row by row: 8% of a large import's CPU. A large import switches them off and checks every
    // table in one pass when it ends, however it ends.
    std::optional<ScopedPragma> foreignKeysOff;
    if (m_deferred.active())
        foreignKeysOff.emplace(m_engine.database().connection(), "foreign_keys=OFF", "foreign_keys=ON");
    bool applied = false;
    try {
        m_engine.beginBatch();
        applied = (!m_inLoadOrder || applyStreamed()) && (m_spool->count() == 0 || applySpooled());
        if (applied) {
            retryUnresolved();
            m_engine.commitBatch();
        }
    } catch (const std::exception &e) {
        m_engine.rollbackBatch();
        m_report.error = std::string("the import stopped: ") + e.what() + "; chunks committed before stay";
    }
    if (foreignKeysOff && !checkLinks())
        return false;
    return applied;
}

bool ImportRun::checkLinks()
{
    std::vector<std::string> broken;
    try {
        broken = m_engine.database().foreignKeyViolations(5);
    } catch (const std::exception &e) {
        broken.push_back(std::string("the check itself failed: ") + e.what());
    }
    if (broken.empty())
        return true;
    std::string listed;
    for (const std::string &b : broken)
        listed += (listed.empty() ? "" : "; ") + b;
    m_report.error = (m_report.error.empty() ? std::string() : m_report.error + "; and ")
                     + "the stored links do not hold after the import (" + listed
                     + "); `steward-cli check` lists every document concerned";
    return false;
}

bool ImportRun::applyStreamed()
{
    InputReader input(m_options.paths, m_model, m_options.mapping.get());
    input.expectRuns(m_inLoadOrder->runs);
    Pipeline<SpooledItem> reader(
        [&input, this](std::vector<SpooledItem> &batch) {
            return input.fillPrepared(batch, m_engine, preparingThreads(m_options.jobs));
        });
    if (!applyAll(reader)) {
        m_report.cancelled = true;
        return false;
    }
    m_spool->finish();
    return true;
}

bool ImportRun::applySpooled()
{
    SpoolReader spooled(m_spool->db(), m_engine, m_model);
    Pipeline<SpooledItem> reader([&spooled](std::vector<SpooledItem> &batch) { return spooled.fill(batch); });
    if (!applyAll(reader)) {
        m_report.cancelled = true;
        return false;
    }
    return true;
}

// False when the steward cancelled: what was applied is committed, the rest untouched.
bool ImportRun::applyAll(Pipeline<SpooledItem> &reader)
{
    std::vector<SpooledItem> batch;
    while (reader.next(batch)) {
        for (SpooledItem &item : batch) {
            if (item.bytesTotal > 0) {
                m_status.bytesRead = item.bytesRead;
                m_status.bytesTotal = item.bytesTotal;
            }
            if (item.toSpool) {
                spoolForLater(item);
                continue; // counted when applied from the spool
            }
            if (!item.error.empty()) {
                const std::string where = item.file + (item.line > 0 ? ":" + std::to_string(item.line) : "");
                addDraft(item.file, item.line, item.resource, unreadableProblem(where + ": " + item.error),
                         draftText(item));
            } else if (item.implied && item.streamed
                       && !m_impliedSeen.insert(item.resource + " " + item.text).second) {
                // each implied document once per import (the spool's were sorted out in phase 1)
            } else {
                apply(item, false);
            }
            ++m_status.items;
            if (++m_inChunk >= m_chunk) {
                m_engine.commitBatch();
                m_inChunk = 0;
                if (m_progress && !m_progress(m_status))
                    return false;
                m_engine.beginBatch();
            } else if (m_progress && m_status.items % 1000 == 0 && !m_progress(m_status)) {
                // Stopped inside a chunk: what it applied so far is whole documents, and
                // the report counts them, so it is committed as a smaller chunk.
                m_engine.commitBatch();
                return false;
            }
        }
    }
    return true;
}

void ImportRun::spoolForLater(const SpooledItem &item)
{
    ImportItem spooled;
    spooled.file = item.file;
    spooled.line = item.line;
    spooled.resource = item.resource;
    spooled.implied = item.implied;
    m_spool->add(item.rank, spooled, item.text);
}

void ImportRun::apply(SpooledItem &item, bool lastChance)
{
    ImportCounts &counts = m_report.byResource[item.resource];
    if (item.file != m_sourceFile) {
        m_sourceFile = item.file;
        m_engine.setChangeSource("import " + QFileInfo(QString::fromStdString(item.file)).fileName().toStdString());
    }
    Response response;
    if (item.implied) {
        const Request request = Request::make("POST", "/" + item.resource, m_options.actor, Json::parse(item.text));
        // A stored document with an implied one's identity stays as it is (a dry run answers
        // 200 for an identity that is stored).
        if (m_engine.validate(request).status == 200) {
            ++counts.unchanged;
            ++m_report.totals.unchanged;
            return;
        }
        response = m_engine.handle(request);
    } else {
        response = m_engine.handlePrepared(*item.prepared, m_options.actor);
    }
    if (m_engine.batchBroken())
        throw std::runtime_error(response.body.value("detail", std::string("a write failed")));
    if (response.status == 201) {
        ++counts.created;
        ++m_report.totals.created;
    } else if (response.status == 200) {
        ImportCounts &total = m_report.totals;
        if (m_engine.lastWriteChanged()) {
            ++counts.updated;
            ++total.updated;
        } else {
            ++counts.unchanged;
            ++total.unchanged;
        }
    } else if (response.status == 409 && !lastChance
               && response.body.value("type", std::string()) == problem::kUnresolvedReference) {
        // Its reference may be a document of the same resource later in the input.
        m_unresolved.push_back(std::move(item));
    } else {
        addDraft(item.file, item.line, item.resource, response.body, draftText(item));
    }
}

// Second chance for references to documents that came later in the same layer.
void ImportRun::retryUnresolved()
{
    for (bool progressed = true; progressed && !m_unresolved.empty();) {
        std::vector<SpooledItem> pending;
        pending.swap(m_unresolved);
        for (SpooledItem &item : pending)
            apply(item, false);
        progressed = m_unresolved.size() < pending.size();
    }
    std::vector<SpooledItem> last;
    last.swap(m_unresolved);
    for (SpooledItem &item : last)
        apply(item, true);
}

bool ImportRun::buildDeferredIndexes()
{
    if (m_deferred.active()) {
        m_status.phase = "indexing";
        m_status.items = m_status.itemsTotal;
        if (m_progress)
            m_progress(m_status); // the build cannot be cancelled; it is a sorted pass over each index
        if (std::string error = m_deferred.build(); !error.empty()) {
            m_report.error = "every document was stored, but " + error;
            return false;
        }
    }
    return true;
}

} // namespace

Json ImportReport::toJson() const
{
    Json byResourceJson = Json::object();
    for (const auto &[resource, counts] : byResource)
        byResourceJson[resource] = countsJson(counts);
    Json draftsJson = Json::array();
    for (const ImportDraftEntry &d : drafts)
        draftsJson.push_back(Json{{"file", d.file}, {"line", d.line}, {"resource", d.resource}, {"problem", d.problem}});
    Json out{{"totals", countsJson(totals)},
             {"byResource", byResourceJson},
             {"drafts", draftsJson},
             {"completed", completed},
             {"cancelled", cancelled}};
    if (!error.empty())
        out["error"] = error;
    return out;
}

ImportReport importFiles(Engine &engine, const Model &model, const ImportOptions &options,
                         const std::function<bool(const ImportProgress &)> &progress)
{
    const ChangeSourceScope source(engine, "import");
    ImportRun import(engine, model, options, progress);
    return import.run();
}

} // namespace steward
