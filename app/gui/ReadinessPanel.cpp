#include "ReadinessPanel.h"

#include "Submissions.h"

#include "AppSession.h"
#include "Prompt.h"
#include "Progress.h"

#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace {

struct ReadinessOutcome
{
    steward::ReadinessReport report;
    steward::SubmissionStatus submission;
    QString error;
};

ReadinessOutcome computeOnOwnConnection(const QString &databasePath)
{
    ReadinessOutcome outcome;
    try {
        std::unique_ptr<steward::Database> reader =
            steward::Database::open(databasePath.toStdString(), steward::Database::Access::ReadOnly);
        outcome.report = steward::computeReadiness(reader->connection());
        outcome.submission = steward::submissionStatus(reader->connection());
    } catch (const std::exception &e) {
        outcome.error = QString::fromStdString(e.what());
    }
    return outcome;
}

QString reasonsText(const steward::ReadinessReport &report)
{
    QStringList reasons;
    for (const std::string &reason : report.reasons)
        reasons << QString::fromStdString(reason);
    return reasons.join(QStringLiteral(", "));
}

} // namespace

ReadinessModel::ReadinessModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void ReadinessModel::setReport(const steward::ReadinessReport &report)
{
    beginResetModel();
    m_report = report;
    endResetModel();
}

int ReadinessModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_report.resources.size());
}

int ReadinessModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FirstSyncColumn + static_cast<int>(m_report.targets.size());
}

QVariant ReadinessModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const steward::ResourceReadiness &row = m_report.resources[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    if (role == Qt::TextAlignmentRole)
        return column == ResourceColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                        : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole) {
        // What blocks submission stands out; the rest reads as plain counts.
        if ((column == DraftsColumn && row.drafts > 0) || (column == FatalColumn && row.fatal > 0)
            || (column == ErrorColumn && row.error > 0) || (column == WarningColumn && row.warning > row.acknowledged)
            || (column == ConflictsColumn && row.conflicts > 0))
            return QColor(0xb0, 0x20, 0x20);
        return {};
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (column) {
    case ResourceColumn:
        return QString::fromStdString(row.resource);
    case DocumentsColumn:
        return QVariant::fromValue<qlonglong>(row.documents);
    case DraftsColumn:
        return QVariant::fromValue<qlonglong>(row.drafts);
    case FatalColumn:
        return QVariant::fromValue<qlonglong>(row.fatal);
    case ErrorColumn:
        return QVariant::fromValue<qlonglong>(row.error);
    case WarningColumn:
        // "5 (3 ack'd)": acknowledged warnings no longer block.
        if (row.acknowledged > 0 && role == Qt::DisplayRole)
            return tr("%1 (%2 ack'd)").arg(row.warning).arg(row.acknowledged);
        return QVariant::fromValue<qlonglong>(row.warning);
    case InfoColumn:
        return QVariant::fromValue<qlonglong>(row.info);
    case ResubmitColumn:
        return QVariant::fromValue<qlonglong>(row.awaitingResubmit);
    case NotExportedColumn:
        return QVariant::fromValue<qlonglong>(row.changesNotExported);
    case ConflictsColumn:
        return QVariant::fromValue<qlonglong>(row.conflicts);
    default: {
        const std::size_t target = static_cast<std::size_t>(column - FirstSyncColumn);
        return target < row.changesNotSynced.size() ? QVariant::fromValue<qlonglong>(row.changesNotSynced[target])
                                                    : QVariant();
    }
    }
}

QVariant ReadinessModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (role == Qt::ToolTipRole && section >= FirstSyncColumn) {
        const steward::ReadinessTarget &target = m_report.targets[static_cast<std::size_t>(section - FirstSyncColumn)];
        return tr("Documents changed since the last push to %1 (client %2)")
            .arg(QString::fromStdString(target.url), QString::fromStdString(target.client));
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ResourceColumn:
        return tr("Resource");
    case DocumentsColumn:
        return tr("Documents");
    case DraftsColumn:
        return tr("Drafts");
    case FatalColumn:
        return tr("Fatal");
    case ErrorColumn:
        return tr("Errors");
    case WarningColumn:
        return tr("Warnings");
    case InfoColumn:
        return tr("Info");
    case ResubmitColumn:
        return tr("Fixed, to resubmit");
    case NotExportedColumn:
        return tr("Not exported");
    case ConflictsColumn:
        return tr("Sync conflicts");
    default:
        return tr("Not synced (%1)")
            .arg(QString::fromStdString(m_report.targets[static_cast<std::size_t>(section - FirstSyncColumn)].url));
    }
}

ReadinessPanel::ReadinessPanel(AppSession &session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_banner = new QLabel(tr("Counting…"), this);
    m_banner->setObjectName(QStringLiteral("readinessBanner"));
    m_banner->setWordWrap(true);
    m_banner->setMargin(8);
    m_model = new ReadinessModel(this);
    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("readinessTable"));
    m_view->setModel(m_model);
    m_view->verticalHeader()->setVisible(false);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_submission = new QLabel(this);
    m_submission->setObjectName(QStringLiteral("lastSubmission"));
    m_submission->setWordWrap(true);
    m_submission->setMargin(4);
    layout->addWidget(m_banner);
    layout->addWidget(m_submission);
    layout->addWidget(m_view, 1);

    m_coalesce.setSingleShot(true);
    m_coalesce.setInterval(300);
    connect(&m_coalesce, &QTimer::timeout, this, &ReadinessPanel::refresh);
    connect(&m_session, &AppSession::documentsChanged, &m_coalesce, qOverload<>(&QTimer::start));
    connect(&m_session, &AppSession::draftsChanged, &m_coalesce, qOverload<>(&QTimer::start));
    refresh();
}

void ReadinessPanel::refresh()
{
    if (m_running) {
        m_again = true; // one more pass when the current one ends, so the last change is counted
        return;
    }
    m_running = true;
    auto *watcher = new QFutureWatcher<ReadinessOutcome>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        const ReadinessOutcome outcome = watcher->result();
        watcher->deleteLater();
        m_running = false;
        showReport(outcome.report, outcome.error);
        showSubmission(outcome.submission);
        if (m_again) {
            m_again = false;
            refresh();
            return;
        }
        Q_EMIT refreshed();
    });
    watcher->setFuture(QtConcurrent::run(computeOnOwnConnection, m_session.databasePath()));
}

void ReadinessPanel::showReport(const steward::ReadinessReport &report, const QString &error)
{
    if (!error.isEmpty()) {
        m_banner->setText(tr("Cannot count: %1").arg(error));
        m_banner->setStyleSheet(QStringLiteral("QLabel { background: #fff4e0; border: 1px solid #e0b060; }"));
        return;
    }
    // What blocks submission first, so the steward sees it without scrolling past the descriptors.
    steward::ReadinessReport ordered = report;
    std::stable_sort(ordered.resources.begin(), ordered.resources.end(),
                     [](const steward::ResourceReadiness &a, const steward::ResourceReadiness &b) {
                         return (a.drafts + a.fatal + a.error > 0) > (b.drafts + b.fatal + b.error > 0);
                     });
    m_model->setReport(ordered);
    m_view->resizeColumnsToContents();
    m_banner->setText(report.ready ? tr("Ready to submit")
                                   : tr("Not ready: %1").arg(reasonsText(report)));
    m_banner->setStyleSheet(report.ready
                                ? QStringLiteral("QLabel { background: #e3f4e3; color: #1d5e20; border: 1px solid "
                                                 "#8cc68f; font-weight: bold; }")
                                : QStringLiteral("QLabel { background: #fbe6e6; color: #8a1c1c; border: 1px solid "
                                                 "#e09a9a; font-weight: bold; }"));
}

void ReadinessPanel::showSubmission(const steward::SubmissionStatus &status)
{
    if (!status.last) {
        m_submission->setText(tr("No submission signed off yet."));
        return;
    }
    QString text = tr("Last submission: %1.").arg(QString::fromStdString(status.last->summary()));
    if (status.changedTotal == 0) {
        text += QLatin1Char(' ') + tr("Nothing changed since.");
    } else {
        QStringList parts;
        for (const auto &[name, count] : status.changedSince)
            parts << QStringLiteral("%1 %2").arg(count).arg(QString::fromStdString(name.substr(name.find('/') + 1)));
        text += QLatin1Char(' ') + tr("Changed since: %n document(s) (%1).", nullptr, static_cast<int>(status.changedTotal))
                                       .arg(parts.join(QStringLiteral(", ")));
    }
    m_submission->setText(text);
}

bool confirmReadyToSubmit(QWidget *parent, AppSession &session, const QString &action)
{
    const QString path = session.databasePath();
    const ReadinessOutcome outcome = runWithProgress<ReadinessOutcome>(
        parent, QObject::tr("Checking readiness…"),
        [path](const std::function<bool(int, int)> &) { return computeOnOwnConnection(path); });
    if (!outcome.error.isEmpty() || outcome.report.ready)
        return true; // an unreadable count must not stop an export; the export reports its own errors
    const QString reasons = reasonsText(outcome.report);
    return Prompt::ask(parent, QObject::tr("Not ready to submit"),
                       QObject::tr("Not ready to submit: %1.\n\n%2 anyway?").arg(reasons, action),
                       QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel)
           == QMessageBox::Yes;
}
