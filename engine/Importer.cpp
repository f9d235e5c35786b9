#include "Importer.h"

#include "ImportSource.h"
#include "LoadOrder.h"

#include <QTemporaryDir>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <set>

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
        if (item.error.empty())
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
    ImportReport report;
    const LoadOrder order(model);
    const int chunk = std::max(1, options.chunkSize);

    auto addDraft = [&](const std::string &file, std::int64_t line, const std::string &resource, const Json &problemBody,
                        const std::string &text) {
        report.drafts.push_back({file, line, resource, problemBody});
        ++report.totals.drafts;
        ++report.byResource[resource.empty() ? std::string("(unknown)") : resource].drafts;
        const std::size_t slash = resource.find('/');
        const ResourceSchema *schema =
            slash == std::string::npos ? nullptr : model.findByEndpoint(resource.substr(0, slash), resource.substr(slash + 1));
        engine.keepDraft(schema ? schema->projectName() : std::string(), schema ? schema->resourceName : resource, text,
                         problemBody, options.actor);
    };

    QTemporaryDir spoolDir;
    if (!spoolDir.isValid()) {
        report.error = "cannot create a temporary folder for the import: " + spoolDir.errorString().toStdString();
        return report;
    }
    Spool spool(spoolDir.filePath(QStringLiteral("spool.db")).toStdString());
    std::set<std::string> impliedSeen; // "resource body": each implied document once per import

    // Phase 1: read every input, in whatever order it comes, into the spool keyed by load order.
    ImportProgress status;
    status.phase = "reading";
    for (const std::string &path : options.paths) {
        std::string error;
        std::unique_ptr<ImportSource> source = openImportSource(path, model, &error);
        if (!source) {
            report.error = error;
            return report;
        }
        status.bytesTotal += source->bytesTotal();
        const std::uint64_t before = status.bytesRead;
        ImportItem item;
        while (source->next(item)) {
            int rank = static_cast<int>(model.resources().size());
            if (item.error.empty()) {
                const std::size_t slash = item.resource.find('/');
                const ResourceSchema *schema = slash == std::string::npos
                                                   ? nullptr
                                                   : model.findByEndpoint(item.resource.substr(0, slash),
                                                                          item.resource.substr(slash + 1));
                if (schema == nullptr)
                    item.error = item.resource.empty() ? "the document names no resource"
                                                       : "the resource '" + item.resource + "' is not in the model";
                else
                    rank = order.rankOf(schema);
            }
            std::string body;
            if (item.error.empty() && item.body) {
                // Server fields from an API dump are not part of the document.
                for (const char *field : {"id", "_etag", "_lastModifiedDate"})
                    item.body->erase(field);
                body = dumpJson(*item.body);
            }
            if (item.implied && !impliedSeen.insert(item.resource + " " + body).second)
                continue;
            spool.add(rank, item, body);
            ++status.items;
            status.bytesRead = before + source->bytesRead();
            if (progress && status.items % 1000 == 0 && !progress(status)) {
                report.cancelled = true;
                return report; // nothing applied yet
            }
        }
        status.bytesRead = before + source->bytesTotal();
    }
    spool.finish();

    // Phase 2: apply in load order, a chunk per transaction.
    status.phase = "applying";
    status.itemsTotal = spool.count();
    status.items = 0;
    // Retried once more: file, line, resource, body, implied.
    using Pending = std::tuple<std::string, std::int64_t, std::string, std::string, bool>;
    std::vector<Pending> unresolved;
    try {
        SQLite::Statement items(spool.db(),
                                "SELECT file, line, resource, body, error, implied FROM items ORDER BY rank, seq");
        engine.beginBatch();
        std::int64_t inChunk = 0;
        auto apply = [&](const std::string &file, std::int64_t line, const std::string &resource,
                         const std::string &text, bool lastChance, bool implied) {
            Request request;
            request.method = "POST";
            request.path = "/" + resource;
            request.body = Json::parse(text);
            request.actor = options.actor;
            ImportCounts &counts = report.byResource[resource];
            // A stored document with an implied one's identity stays as it is (a dry run answers
            // 200 for an identity that is stored).
            if (implied && engine.validate(request).status == 200) {
                ++counts.unchanged;
                ++report.totals.unchanged;
                return;
            }
            const Response response = engine.handle(request);
            if (engine.batchBroken())
                throw std::runtime_error(response.body.value("detail", std::string("a write failed")));
            if (response.status == 201) {
                ++counts.created;
                ++report.totals.created;
            } else if (response.status == 200) {
                ImportCounts &total = report.totals;
                if (engine.lastWriteChanged()) {
                    ++counts.updated;
                    ++total.updated;
                } else {
                    ++counts.unchanged;
                    ++total.unchanged;
                }
            } else if (response.status == 409 && !lastChance
                       && response.body.value("type", std::string()) == problem::kUnresolvedReference) {
                // Its reference may be a document of the same resource later in the input.
                unresolved.emplace_back(file, line, resource, text, implied);
            } else {
                addDraft(file, line, resource, response.body, text);
            }
        };
        while (items.executeStep()) {
            const std::string file = items.getColumn(0).getString();
            const std::int64_t line = items.getColumn(1).getInt64();
            const std::string resource = items.getColumn(2).getString();
            if (!items.getColumn(4).isNull()) {
                addDraft(file, line, resource, unreadableProblem(file + (line > 0 ? ":" + std::to_string(line) : "")
                                                                 + ": " + items.getColumn(4).getString()),
                         items.getColumn(3).isNull() ? std::string() : items.getColumn(3).getString());
            } else {
                const bool implied = items.getColumn(5).getInt() != 0;
                apply(file, line, resource, items.getColumn(3).getString(), false, implied);
            }
            ++status.items;
            if (++inChunk >= chunk) {
                engine.commitBatch();
                inChunk = 0;
                if (progress && !progress(status)) {
                    report.cancelled = true;
                    return report;
                }
                engine.beginBatch();
            }
        }
        // Second chance for references to documents that came later in the same layer.
        for (bool progressed = true; progressed && !unresolved.empty();) {
            std::vector<Pending> pending;
            pending.swap(unresolved);
            for (const auto &[file, line, resource, text, implied] : pending)
                apply(file, line, resource, text, false, implied);
            progressed = unresolved.size() < pending.size();
        }
        for (const auto &[file, line, resource, text, implied] : std::vector(unresolved))
            apply(file, line, resource, text, true, implied);
        unresolved.clear();
        engine.commitBatch();
    } catch (const std::exception &e) {
        engine.rollbackBatch();
        report.error = std::string("the import stopped: ") + e.what() + "; chunks committed before stay";
        return report;
    }
    if (progress)
        progress(status);
    report.completed = true;
    return report;
}

} // namespace steward
