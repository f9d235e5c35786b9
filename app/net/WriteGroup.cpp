#include "WriteGroup.h"

#include "Database.h"
#include "Engine.h"

namespace steward {

class WriteGroup::Worker : public QObject
{
public:
    Worker(const Model &model, std::string databasePath)
        : m_model(model)
        , m_databasePath(std::move(databasePath))
    {
    }

    std::vector<Response> apply(const std::vector<Request> &requests)
    {
        std::vector<Response> responses;
        if (!m_engine) {
            try {
                m_database = Database::open(m_databasePath);
                // Checkpoints are the serving connection's background thread's (startBackgroundCheckpoints):
                // one inside a commit would hold up every write of its group.
                m_database->connection().exec("PRAGMA wal_autocheckpoint=0");
                m_engine = std::make_unique<Engine>(m_model, *m_database);
                m_engine->setChangeSource("Ed-Fi API (serve)");
            } catch (const std::exception &e) {
                m_database.reset();
                for (std::size_t i = 0; i < requests.size(); ++i)
                    responses.push_back(problem::make(503, problem::kServiceUnavailable, "Service Unavailable",
                                                      std::string("The database cannot be written: ") + e.what()));
                return responses;
            }
        }
        if (requests.size() > 1) {
            try {
                m_engine->beginBatch();
                for (const Request &request : requests)
                    responses.push_back(m_engine->handle(request));
                m_engine->commitBatch();
                return responses;
            } catch (const std::exception &) {
                try {
                    m_engine->rollbackBatch();
                } catch (const std::exception &) {
                    // Already rolled back (commitBatch does so before it throws).
                }
                responses.clear();
            }
        }
        for (const Request &request : requests)
            responses.push_back(m_engine->handle(request));
        return responses;
    }

private:
    const Model &m_model;
    std::string m_databasePath;
    std::unique_ptr<Database> m_database;
    std::unique_ptr<Engine> m_engine;
};

WriteGroup::WriteGroup(const Model &model, std::string databasePath, QObject *parent)
    : QObject(parent)
    , m_worker(new Worker(model, std::move(databasePath)))
{
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();
}

WriteGroup::~WriteGroup()
{
    m_thread.quit();
    m_thread.wait();
}

void WriteGroup::run(std::vector<Request> requests, std::function<void(std::vector<Response>)> done)
{
    Worker *worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker,
        [this, worker, requests = std::move(requests), done = std::move(done)]() {
            std::vector<Response> responses = worker->apply(requests);
            // Queued to this object: dropped if the front end is gone by then.
            QMetaObject::invokeMethod(
                this, [responses = std::move(responses), done]() { done(responses); }, Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

} // namespace steward
