#include "DatabaseWatcher.h"

#include "ChangeWatch.h"
#include "Database.h"

#include <atomic>

namespace {

std::atomic<int> g_pauses{0};

} // namespace

DatabaseWatcher::Pause::Pause()
{
    ++g_pauses;
}

DatabaseWatcher::Pause::~Pause()
{
    --g_pauses;
}

bool DatabaseWatcher::paused()
{
    return g_pauses > 0;
}

DatabaseWatcher::DatabaseWatcher(const QString &databasePath, QObject *parent)
    : QObject(parent)
    , m_connection(steward::Database::open(databasePath.toStdString(), steward::Database::Access::ReadOnly))
{
    catchUp();
    m_timer.setInterval(kDefaultIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &DatabaseWatcher::poll);
    m_timer.start();
}

DatabaseWatcher::~DatabaseWatcher() = default;

void DatabaseWatcher::setInterval(int milliseconds)
{
    m_timer.setInterval(milliseconds);
}

void DatabaseWatcher::catchUp()
{
    try {
        SQLite::Database &db = m_connection->connection();
        m_dataVersion = steward::dataVersion(db);
        m_position = steward::newestChangeSeq(db);
    } catch (const std::exception &) {
        // A busy or vanished file: the next poll tries again.
    }
}

void DatabaseWatcher::poll()
{
    if (g_pauses.load() > 0)
        return;
    steward::ChangeSummary summary;
    try {
        SQLite::Database &db = m_connection->connection();
        const std::int64_t version = steward::dataVersion(db);
        if (version == m_dataVersion)
            return;
        summary = steward::summarizeChangesSince(db, m_position);
        m_dataVersion = version;
    } catch (const std::exception &) {
        return; // busy: the version was not taken, so the next poll reads again
    }
    QStringList resources;
    for (const steward::ChangedResource &changed : summary.resources)
        resources << QString::fromStdString(changed.project + "/" + changed.resource);
    const std::int64_t since = m_position;
    m_position = summary.newest;
    Q_EMIT changedElsewhere(since, summary.newest, resources);
}
