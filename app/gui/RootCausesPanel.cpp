#include "RootCausesPanel.h"

#include "AppSession.h"
#include "Database.h"

#include <QHeaderView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace {

QString text(const std::string &value)
{
    return QString::fromStdString(value);
}

QString count(std::int64_t value)
{
    return QLocale().toString(static_cast<qlonglong>(value));
}

QString resourcesText(const steward::RootCause &cause)
{
    QStringList parts;
    for (const steward::CauseResourceCount &c : cause.resources)
        parts << QStringLiteral("%1 %2").arg(text(c.resource), count(c.drafts));
    return parts.join(QStringLiteral(", "));
}

} // namespace

RootCauseListModel::RootCauseListModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void RootCauseListModel::setReport(const steward::RootCauseReport &report)
{
    beginResetModel();
    m_causes.clear();
    for (const steward::RootCause *cause : report.fixList())
        m_causes.push_back(*cause);
    endResetModel();
}

const steward::RootCause *RootCauseListModel::causeAt(int row) const
{
    return row >= 0 && row < static_cast<int>(m_causes.size()) ? &m_causes[static_cast<std::size_t>(row)] : nullptr;
}

int RootCauseListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_causes.size());
}

int RootCauseListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString RootCauseListModel::title(const steward::RootCause &cause)
{
    using Kind = steward::RootCause::Kind;
    switch (cause.kind) {
    case Kind::MissingDocument:
        return tr("%1 %2 missing").arg(text(cause.resource), text(cause.naturalKey));
    case Kind::UnknownDescriptor:
        return tr("%1 '%2' unknown").arg(text(cause.resource), text(cause.naturalKey));
    case Kind::ReferenceCycle:
        return tr("Drafts waiting on each other: %1").arg(text(cause.detail));
    case Kind::DraftProblem:
        break;
    }
    const QString drafts = tr("%n %1 draft(s)", "", static_cast<int>(cause.direct)).arg(text(cause.resource));
    if (cause.problem == "schema")
        return tr("%1 fail the schema: %2").arg(drafts, text(cause.detail));
    if (cause.problem == "invalid-json")
        return tr("%1: %2").arg(drafts, text(cause.detail));
    if (cause.problem == "passes-now")
        return tr("%1 would pass now: revalidate drafts").arg(drafts);
    return tr("%1: %2").arg(drafts, text(cause.detail));
}

QVariant RootCauseListModel::data(const QModelIndex &index, int role) const
{
    const steward::RootCause *cause = index.isValid() ? causeAt(index.row()) : nullptr;
    if (cause == nullptr)
        return {};
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case CauseColumn:
            return title(*cause);
        case BlockedColumn:
            return count(cause->blocked);
        case ResourcesColumn:
            return resourcesText(*cause);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole)
        return tr("%1\nBlocks %2 draft(s), %3 directly: %4")
            .arg(title(*cause), count(cause->blocked), count(cause->direct), resourcesText(*cause));
    if (role == Qt::TextAlignmentRole && index.column() == BlockedColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant RootCauseListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case CauseColumn:
        return tr("Root cause (in load order)");
    case BlockedColumn:
        return tr("Blocks");
    case ResourcesColumn:
        return tr("Drafts per resource");
    default:
        return {};
    }
}

RootCausesPanel::RootCausesPanel(AppSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_model(new RootCauseListModel(this))
    , m_view(new QTreeView(this))
    , m_summary(new QLabel(this))
    , m_details(new QTextBrowser(this))
    , m_refreshButton(new QPushButton(tr("&Refresh"), this))
{
    setObjectName(QStringLiteral("rootCausesPanel"));
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_summary->setWordWrap(true);
    top->addWidget(m_summary, 1);
    top->addWidget(m_refreshButton);
    layout->addLayout(top);

    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->header()->setStretchLastSection(true);
    m_view->setColumnWidth(RootCauseListModel::CauseColumn, 460);
    m_view->setColumnWidth(RootCauseListModel::BlockedColumn, 70);
    // Side by side: the bottom dock is wide and short, and the details follow the selected row.
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_view);
    m_details->setOpenLinks(false);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(m_refreshButton, &QPushButton::clicked, this, &RootCausesPanel::refresh);
    connect(m_view, &QAbstractItemView::activated, this, [this](const QModelIndex &index) { activateRow(index.row()); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showDetails(current.row()); });
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &RootCausesPanel::finished);

    m_changeTimer.setSingleShot(true);
    m_changeTimer.setInterval(400);
    connect(&m_changeTimer, &QTimer::timeout, this, [this] {
        if (isVisible())
            refresh();
        else
            m_stale = true; // computed when shown again
    });
    connect(m_session, &AppSession::documentsChanged, &m_changeTimer, qOverload<>(&QTimer::start));
    connect(m_session, &AppSession::draftsChanged, &m_changeTimer, qOverload<>(&QTimer::start));
    m_summary->setText(tr("Not computed yet."));
}

RootCausesPanel::~RootCausesPanel()
{
    // The worker reads the session's model; it must be done before the session can go.
    m_watcher.waitForFinished();
}

void RootCausesPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void RootCausesPanel::refresh()
{
    m_stale = false;
    if (m_watcher.isRunning()) {
        m_again = true;
        return;
    }
    m_summary->setText(tr("Finding the root causes of the drafts…"));
    m_refreshButton->setEnabled(false);
    const std::string path = m_session->databasePath().toStdString();
    const steward::Model *model = &m_session->model();
    m_watcher.setFuture(QtConcurrent::run([path, model]() -> Result {
        Result result;
        try {
            std::unique_ptr<steward::Database> reader =
                steward::Database::open(path, steward::Database::Access::ReadOnly);
            result.report = steward::findRootCauses(*model, reader->connection());
        } catch (const std::exception &e) {
            result.error = QString::fromStdString(e.what());
        }
        return result;
    }));
}

void RootCausesPanel::finished()
{
    m_refreshButton->setEnabled(true);
    Result result = m_watcher.result();
    if (m_again) {
        m_again = false;
        refresh();
        return;
    }
    if (!result.error.isEmpty()) {
        m_summary->setText(tr("Cannot read the drafts: %1").arg(result.error));
        Q_EMIT refreshed();
        return;
    }
    m_report = std::move(result.report);
    m_model->setReport(m_report);
    if (m_report.drafts == 0)
        m_summary->setText(tr("No drafts: nothing is held back."));
    else
        m_summary->setText(tr("%1 draft(s) held back by %2 root cause(s). Fix them from the top: each row comes "
                              "after what it depends on. Double-click a row to fix it.")
                               .arg(count(m_report.drafts), count(static_cast<std::int64_t>(m_report.causes.size()))));
    m_details->clear();
    if (m_model->rowCount() > 0)
        m_view->setCurrentIndex(m_model->index(0, 0));
    Q_EMIT refreshed();
}

void RootCausesPanel::showDetails(int row)
{
    const steward::RootCause *cause = m_model->causeAt(row);
    if (cause == nullptr) {
        m_details->clear();
        return;
    }
    QString html = QStringLiteral("<p><b>%1</b></p>").arg(RootCauseListModel::title(*cause).toHtmlEscaped());
    html += tr("<p>Blocks %1 draft(s), %2 of them directly.</p>").arg(count(cause->blocked), count(cause->direct));
    using Kind = steward::RootCause::Kind;
    if (cause->kind == Kind::MissingDocument)
        html += tr("<p>Create or import this %1 (double-click opens a new one with its identity filled in), then "
                   "revalidate drafts: the whole branch below follows.</p>")
                    .arg(text(cause->resource).toHtmlEscaped());
    if (cause->kind == Kind::UnknownDescriptor) {
        if (cause->suggestions.empty()) {
            html += tr("<p>No stored %1 value is close to it.</p>").arg(text(cause->resource).toHtmlEscaped());
        } else {
            html += tr("<p>Closest stored values:</p><ul>");
            for (const steward::DescriptorSuggestion &s : cause->suggestions)
                html += QStringLiteral("<li>%1 — %2</li>").arg(text(s.uri).toHtmlEscaped(), text(s.reason).toHtmlEscaped());
            html += QStringLiteral("</ul>");
        }
    }
    if (cause->kind == Kind::DraftProblem || cause->kind == Kind::ReferenceCycle)
        html += tr("<p>Double-click opens the first of these drafts.</p>");
    html += QStringLiteral("<p>%1</p>").arg(resourcesText(*cause).toHtmlEscaped());
    m_details->setHtml(html);
}

void RootCausesPanel::activateRow(int row)
{
    const steward::RootCause *cause = m_model->causeAt(row);
    if (cause == nullptr)
        return;
    showDetails(row);
    using Kind = steward::RootCause::Kind;
    switch (cause->kind) {
    case Kind::MissingDocument:
        Q_EMIT createDocumentRequested(text(cause->project), text(cause->resource),
                                       QString::fromStdString(steward::dumpJson(cause->identity)));
        break;
    case Kind::UnknownDescriptor:
        // The suggestions are in the details pane; send the steward there.
        m_details->setFocus();
        break;
    case Kind::DraftProblem:
    case Kind::ReferenceCycle:
        if (!cause->directDraftIds.empty())
            Q_EMIT openDraftRequested(cause->directDraftIds.front());
        break;
    }
}
