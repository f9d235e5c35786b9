#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <cstdint>
#include <memory>

namespace steward {
class Database;
}

// Notices what other programs (steward-cli, serve, a sync, a second window) commit to the open
// database. One read-only connection of its own reads PRAGMA data_version on a timer: it moves only
// when another connection commits, so nothing else is read while nothing changed. When it moves,
// the change log after the last position says which resources changed.
class DatabaseWatcher : public QObject
{
    Q_OBJECT

public:
    static constexpr int kDefaultIntervalMs = 700;

    // Throws steward::StorageError when the database cannot be opened.
    DatabaseWatcher(const QString &databasePath, QObject *parent = nullptr);
    ~DatabaseWatcher() override;

    void setInterval(int milliseconds);
    std::int64_t position() const { return m_position; }
    // After this program's own writes, which it announced itself: take them as seen.
    void catchUp();

    // While one lives, polls are held back: a long job borrows the writer connection and announces
    // what it changed when it ends.
    class Pause
    {
    public:
        Pause();
        ~Pause();
        Pause(const Pause &) = delete;
        Pause &operator=(const Pause &) = delete;
    };
    // Whether a long job has the writer connection now.
    static bool paused();

Q_SIGNALS:
    // resources: "Project/Resource" of every document written after `since`; empty when only other
    // tables changed (drafts, rule results, acknowledgements, conflicts).
    void changedElsewhere(qint64 since, qint64 newest, const QStringList &resources);

private:
    void poll();

    std::unique_ptr<steward::Database> m_connection;
    QTimer m_timer;
    std::int64_t m_dataVersion = 0;
    std::int64_t m_position = 0;
};
