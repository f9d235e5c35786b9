#include "AttentionBar.h"

#include "AppSession.h"
#include "Database.h"
#include "Readiness.h"
#include "Sync.h"

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>

#include <map>

struct AttentionBar::Reading
{
    QString error;
    bool ready = true;
    QString verdict;
    int openConflicts = 0;
    QString firstId;
    QString firstUrl;
    QHash<QString, qint64> byResource;
};

namespace {

AttentionBar::Reading readOnOwnConnection(const QString &databasePath)
{
    AttentionBar::Reading reading;
    try {
        std::unique_ptr<steward::Database> reader =
            steward::Database::open(databasePath.toStdString(), steward::Database::Access::ReadOnly);
        const steward::ReadinessReport report = steward::computeReadiness(reader->connection());
        reading.ready = report.ready;
        reading.verdict = QString::fromStdString(report.verdictText());
        steward::SyncState sync(reader->connection());
        std::map<std::int64_t, std::string> urls;
        for (const steward::SyncTarget &target : sync.targets())
            urls[target.targetId] = target.url;
        const std::vector<steward::SyncConflict> open = sync.openConflicts();
        reading.openConflicts = static_cast<int>(open.size());
        for (const steward::SyncConflict &conflict : open)
            reading.byResource[QString::fromStdString(conflict.project + "/" + conflict.resource)] += 1;
        if (!open.empty()) {
            reading.firstId = QString::fromStdString(open.front().id);
            reading.firstUrl = QString::fromStdString(urls[open.front().targetId]);
        }
    } catch (const std::exception &e) {
        reading.error = QString::fromStdString(e.what());
    }
    return reading;
}

} // namespace

AttentionBar::AttentionBar(AppSession &session, QWidget *parent)
    : QFrame(parent)
    , m_session(session)
{
    setObjectName(QStringLiteral("attentionBar"));
    setStyleSheet(QStringLiteral("QFrame#attentionBar { background: #fdecea; border: 1px solid #e6a19a; border-radius: 4px; }"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    m_message = new QLabel;
    m_message->setObjectName(QStringLiteral("attentionMessage"));
    m_message->setWordWrap(true);
    m_decide = new QPushButton(tr("Decide…"));
    m_decide->setObjectName(QStringLiteral("decideButton"));
    m_decide->setToolTip(tr("Open the oldest conflict: keep this side, the target's, or merge field by field"));
    layout->addWidget(m_message, 1);
    layout->addWidget(m_decide);
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("attentionStatus"));
    hide();

    connect(m_decide, &QPushButton::clicked, this,
            [this] { Q_EMIT decideRequested(m_firstConflictId, m_firstConflictUrl); });
    // A burst of announcements (an import, a pull) costs one reading.
    m_coalesce.setSingleShot(true);
    m_coalesce.setInterval(150);
    connect(&m_coalesce, &QTimer::timeout, this, &AttentionBar::refresh);
    connect(&m_session, &AppSession::documentsChanged, &m_coalesce, qOverload<>(&QTimer::start));
    connect(&m_session, &AppSession::draftsChanged, &m_coalesce, qOverload<>(&QTimer::start));
    connect(&m_session, &AppSession::qualityChanged, &m_coalesce, qOverload<>(&QTimer::start));
    refresh();
}

AttentionBar::~AttentionBar()
{
    delete m_status.data();
}

void AttentionBar::refresh()
{
    if (m_running) {
        m_again = true;
        return;
    }
    m_running = true;
    auto *watcher = new QFutureWatcher<Reading>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        const Reading reading = watcher->result();
        watcher->deleteLater();
        m_running = false;
        show(reading);
        if (m_again) {
            m_again = false;
            refresh();
            return;
        }
        Q_EMIT refreshed();
    });
    watcher->setFuture(QtConcurrent::run(readOnOwnConnection, m_session.databasePath()));
}

void AttentionBar::show(const Reading &reading)
{
    if (!reading.error.isEmpty()) {
        m_status->setText(tr("Readiness unknown: %1").arg(reading.error));
        return;
    }
    m_openConflicts = reading.openConflicts;
    m_firstConflictId = reading.firstId;
    m_firstConflictUrl = reading.firstUrl;
    QStringList status;
    if (reading.openConflicts > 0)
        status << tr("⚠ %n sync conflict(s)", nullptr, reading.openConflicts);
    // The verdict's first reasons; the whole of it on hover and in Tools > Readiness dashboard.
    status << m_status->fontMetrics().elidedText(reading.verdict, Qt::ElideRight, 360);
    m_status->setText(status.join(QStringLiteral(" · ")));
    m_status->setToolTip(reading.verdict);
    m_status->setMinimumWidth(m_status->sizeHint().width());
    m_status->setStyleSheet(reading.ready ? QStringLiteral("color: #2e7d32;") : QStringLiteral("color: #b71c1c;"));
    if (reading.openConflicts > 0) {
        m_message->setText(tr("%n open sync conflict(s): changed here and on the target. The push holds %1 back until "
                              "someone decides.",
                              nullptr, reading.openConflicts)
                               .arg(reading.openConflicts == 1 ? tr("it") : tr("them")));
        setVisible(true);
    } else {
        setVisible(false);
    }
    Q_EMIT conflictCountsChanged(reading.byResource);
}
