#include "SyncDialog.h"

#include "ConflictDialog.h"
#include "PushPreviewDialog.h"
#include "ReadinessPanel.h"

#include "AppSession.h"
#include "Credentials.h"
#include "FieldLabels.h"
#include "Prompt.h"
#include "Progress.h"
#include "SyncJobs.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace {

QString planText(const steward::PushPlan &plan)
{
    if (plan.items.empty())
        return QObject::tr("Nothing to push: every change up to %1 has been accepted.").arg(plan.toSeq);
    QString text = QObject::tr("%n document(s) to send:", nullptr, static_cast<int>(plan.items.size()));
    for (const auto &[resource, operations] : plan.counts()) {
        text += QStringLiteral("\n  ") + QString::fromStdString(resource);
        for (const auto &[operation, count] : operations)
            text += QStringLiteral("  %1 %2").arg(QString::fromStdString(operation)).arg(count);
    }
    return text;
}

// Runs a sync job on a worker thread (with its own RemoteApi: network objects live on the thread that
// uses them) behind a progress dialog; connectError says why the target could not be reached.
template<typename Result>
Result runAgainstTarget(QWidget *parent, const QString &label, const steward::RemoteOptions &target,
                        std::string &connectError,
                        const std::function<Result(steward::RemoteApi &, const steward::SyncProgressFn &)> &job)
{
    return runWithProgress<Result>(parent, label, [&](const std::function<bool(int, int)> &progress) {
        steward::RemoteApi remote(target);
        if (!remote.connect(&connectError))
            return Result{};
        return job(remote, [&progress](const steward::SyncProgress &p) {
            return progress(static_cast<int>(p.done), static_cast<int>(p.total));
        });
    });
}

// Where the certificate authority file of a target is kept: a file of this computer, so in its
// settings rather than in the database, which may travel.
QString caCertificateKey(const QString &url)
{
    return QStringLiteral("sync/caCertificate/") + QString::fromLatin1(QUrl::toPercentEncoding(url));
}

} // namespace

SyncDialog::SyncDialog(AppSession &session, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
{
    setWindowTitle(tr("Sync with an Ed-Fi API"));
    resize(760, 460);
    auto *form = new QFormLayout;
    m_url = new QComboBox(this);
    m_url->setObjectName(QStringLiteral("syncUrl"));
    m_url->setEditable(true);
    m_url->lineEdit()->setPlaceholderText(QStringLiteral("https://api.district.example/data/v3"));
    m_client = new QLineEdit(this);
    m_client->setObjectName(QStringLiteral("syncClient"));
    m_secret = new QLineEdit(this);
    m_secret->setObjectName(QStringLiteral("syncSecret"));
    m_secret->setEchoMode(QLineEdit::Password);
    m_secret->setPlaceholderText(tr("leave empty to use the system keychain or STEWARD_CLIENT_SECRET"));
    m_remember = new QCheckBox(tr("Remember the secret in the system keychain"), this);
    form->addRow(tr("API address"), m_url);
    form->addRow(tr("Client key"), m_client);
    form->addRow(tr("Client secret"), m_secret);
    form->addRow(QString(), m_remember);
    form->addRow(tr("Certificate authority"), caCertificateRow());

    steward::SyncState state(m_session.database().connection());
    for (const steward::SyncTarget &target : state.targets())
        m_url->addItem(QString::fromStdString(target.url), QString::fromStdString(target.client));
    connect(m_url, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0) {
            m_client->setText(m_url->itemData(index).toString());
            showCaCertificateOf(m_url->itemText(index));
        }
        showFailures();
        showConflicts();
    });
    if (m_url->count() > 0) {
        m_client->setText(m_url->itemData(0).toString());
        showCaCertificateOf(m_url->itemText(0));
    }

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("syncStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_failures = new QTableWidget(0, 5, this);
    m_failures->setObjectName(QStringLiteral("syncFailures"));
    m_failures->setAccessibleName(tr("What the API refused"));
    m_failures->setHorizontalHeaderLabels({tr("Operation"), tr("Resource"), tr("Document"), tr("HTTP"), tr("The API said")});
    m_failures->horizontalHeader()->setStretchLastSection(true);
    m_failures->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_failures->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_failures->verticalHeader()->hide();
    m_failures->setToolTip(tr("Double-click a row to open the document"));
    connect(m_failures, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (QTableWidgetItem *item = m_failures->item(row, 2))
            Q_EMIT documentActivated(item->data(Qt::UserRole).toString());
    });

    m_conflicts = new QTableWidget(0, 4, this);
    m_conflicts->setObjectName(QStringLiteral("syncConflicts"));
    m_conflicts->setAccessibleName(tr("Documents changed on both sides, waiting for a decision"));
    m_conflicts->setHorizontalHeaderLabels({tr("Document"), tr("What happened"), tr("Fields"), tr("Since")});
    m_conflicts->horizontalHeader()->setStretchLastSection(true);
    m_conflicts->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_conflicts->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_conflicts->verticalHeader()->hide();
    m_conflicts->setToolTip(tr("Double-click a row to decide what it keeps"));
    connect(m_conflicts, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { resolveConflictAt(row); });

    auto *buttons = new QDialogButtonBox(this);
    QPushButton *resolveButton = buttons->addButton(tr("&Resolve conflict…"), QDialogButtonBox::ActionRole);
    resolveButton->setObjectName(QStringLiteral("syncResolve"));
    connect(resolveButton, &QPushButton::clicked, this, [this] {
        if (m_conflicts->currentRow() >= 0)
            resolveConflictAt(m_conflicts->currentRow());
    });
    QPushButton *pullButton = buttons->addButton(tr("&Pull"), QDialogButtonBox::ActionRole);
    pullButton->setObjectName(QStringLiteral("syncPull"));
    QPushButton *pushButton = buttons->addButton(tr("P&ush…"), QDialogButtonBox::ActionRole);
    pushButton->setObjectName(QStringLiteral("syncPush"));
    buttons->addButton(QDialogButtonBox::Close);
    connect(pullButton, &QPushButton::clicked, this, &SyncDialog::pull);
    connect(pushButton, &QPushButton::clicked, this, &SyncDialog::push);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_status);
    layout->addWidget(new QLabel(tr("Documents the API refused at the last push:"), this));
    layout->addWidget(m_failures, 1);
    layout->addWidget(new QLabel(tr("Changed on both sides, kept for you to decide (not pushed until then):"), this));
    layout->addWidget(m_conflicts, 1);
    layout->addWidget(buttons);
    showFailures();
    showConflicts();
}

QLayout *SyncDialog::caCertificateRow()
{
    m_caCert = new QLineEdit(this);
    m_caCert->setObjectName(QStringLiteral("syncCaCert"));
    m_caCert->setAccessibleName(tr("Certificate authority"));
    m_caCert->setPlaceholderText(tr("leave empty to trust the system's certificate authorities"));
    m_caCert->setToolTip(tr("The certificate (PEM) of the district's own certificate authority, when its API's "
                            "certificate was issued by one"));
    auto *browseCaCert = new QPushButton(tr("Choose…"), this);
    browseCaCert->setObjectName(QStringLiteral("syncCaCertBrowse"));
    connect(browseCaCert, &QPushButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getOpenFileName(this, tr("The district's certificate authority"),
                                                            m_caCert->text(),
                                                            tr("Certificates (*.pem *.crt *.cer);;All files (*)"));
        if (!chosen.isEmpty())
            m_caCert->setText(chosen);
    });
    auto *row = new QHBoxLayout;
    row->addWidget(m_caCert, 1);
    row->addWidget(browseCaCert);
    return row;
}

void SyncDialog::showCaCertificateOf(const QString &url)
{
    m_caCert->setText(QSettings().value(caCertificateKey(url)).toString());
}

bool SyncDialog::readTarget(steward::RemoteOptions &target)
{
    target.url = m_url->currentText().trimmed().toStdString();
    target.client = m_client->text().trimmed().toStdString();
    target.caCertFile = m_caCert->text().trimmed().toStdString();
    if (target.url.empty() || target.client.empty()) {
        m_status->setText(tr("Fill in the API address and the client key."));
        return false;
    }
    // Refused before the secret is looked up or anything is sent.
    std::string problem = steward::addressProblem(target.url, false);
    if (problem.empty() && !target.caCertFile.empty())
        problem = steward::caCertificateProblem(target.caCertFile);
    if (!problem.empty()) {
        m_status->setText(QString::fromStdString(problem));
        return false;
    }
    const QString key = caCertificateKey(QString::fromStdString(target.url));
    if (target.caCertFile.empty())
        QSettings().remove(key);
    else
        QSettings().setValue(key, QString::fromStdString(target.caCertFile));
    if (!m_secret->text().isEmpty()) {
        target.secret = m_secret->text().toStdString();
        if (m_remember->isChecked()) {
            std::string error;
            if (!steward::storeClientSecret(target.url, target.client, target.secret, &error))
                m_status->setText(tr("The secret was not remembered: %1").arg(QString::fromStdString(error)));
        }
        return true;
    }
    const steward::SecretLookup lookup = steward::findClientSecret(target.url, target.client, "STEWARD_CLIENT_SECRET");
    if (!lookup.secret) {
        m_status->setText(QString::fromStdString(lookup.problem));
        return false;
    }
    target.secret = *lookup.secret;
    return true;
}

void SyncDialog::pull()
{
    steward::RemoteOptions target;
    if (!readTarget(target))
        return;
    const std::string &url = target.url;
    const std::string &client = target.client;
    steward::Engine *engine = &m_session.engine();
    steward::Database *database = &m_session.database();
    std::string connectError;
    const steward::PullReport report = runAgainstTarget<steward::PullReport>(
        this, tr("Pulling from %1…").arg(QString::fromStdString(url)), target, connectError,
        [&](steward::RemoteApi &remote, const steward::SyncProgressFn &progress) {
            return steward::runPull(*engine, *database, remote, client, progress);
        });
    m_session.announceEverythingChanged();
    if (!connectError.empty()) {
        m_status->setText(QString::fromStdString(connectError));
        return;
    }
    const steward::ImportCounts &t = report.outcome.totals;
    QString text = tr("Pulled %1 page(s): %2 created, %3 updated, %4 unchanged, %5 kept as drafts.")
                       .arg(report.pages).arg(t.created).arg(t.updated).arg(t.unchanged).arg(t.drafts);
    if (report.merged > 0 || report.keptHere > 0 || report.conflicts > 0)
        text += tr(" Changed here too: %1 merged, %2 kept for the push, %3 conflict(s) kept for you (below).")
                    .arg(report.merged).arg(report.keptHere).arg(report.conflicts);
    if (report.outcome.cancelled)
        text += tr(" Stopped: the pages stored so far stay.");
    if (!report.outcome.error.empty())
        text += QStringLiteral(" ") + QString::fromStdString(report.outcome.error);
    m_status->setText(text);
    if (m_url->findText(QString::fromStdString(url)) < 0)
        m_url->addItem(QString::fromStdString(url), QString::fromStdString(client));
    showConflicts();
}

void SyncDialog::push()
{
    steward::RemoteOptions target;
    if (!readTarget(target))
        return;
    const std::string &url = target.url;
    const std::string &client = target.client;
    if (!confirmReadyToSubmit(this, m_session, tr("Push")))
        return;
    // Ask the target first: what it has, what differs, what it would refuse. Nothing is sent yet.
    steward::Engine *engine = &m_session.engine();
    steward::Database *database = &m_session.database();
    std::string previewConnectError;
    const steward::PushPreview preview = runAgainstTarget<steward::PushPreview>(
        this, tr("Asking %1 what it has…").arg(QString::fromStdString(url)), target,
        previewConnectError, [&](steward::RemoteApi &remote, const steward::SyncProgressFn &progress) {
            return steward::previewPush(*engine, *database, remote, client, progress);
        });
    if (!previewConnectError.empty()) {
        m_status->setText(QString::fromStdString(previewConnectError));
        return;
    }
    if (preview.cancelled)
        return;
    if (preview.plan.items.empty()) {
        m_status->setText(planText(preview.plan));
        return;
    }
    PushPreviewDialog confirm(preview, QString::fromStdString(url), this);
    connect(&confirm, &PushPreviewDialog::documentActivated, this, &SyncDialog::documentActivated);
    if (confirm.exec() != QDialog::Accepted)
        return;
    std::string connectError;
    const steward::PushReport report = runAgainstTarget<steward::PushReport>(
        this, tr("Pushing to %1…").arg(QString::fromStdString(url)), target, connectError,
        [&](steward::RemoteApi &remote, const steward::SyncProgressFn &progress) {
            return steward::runPush(*engine, *database, remote, client, progress);
        });
    m_session.announceEverythingChanged(); // merges stored here, conflicts kept
    if (!connectError.empty()) {
        m_status->setText(QString::fromStdString(connectError));
        return;
    }
    QString text = tr("Sent %1 document(s) (%2 merged with what changed on the API); %3 the API had already; "
                      "%4 refused; %5 conflict(s) and %6 waiting, kept for you (below).")
                       .arg(report.sent).arg(report.merged).arg(report.accepted - report.sent).arg(report.refused)
                       .arg(report.conflicts).arg(report.waiting);
    if (report.stillRefused > 0)
        text += tr(" %1 refused before and unchanged since were not sent again.").arg(report.stillRefused);
    if (report.cannotTell > 0)
        text += tr(" %1 not created: the API cannot tell whether it has them.").arg(report.cannotTell);
    if (report.replaced > 0)
        text += tr(" %1 create(s) replaced a record the API already had: kept as conflicts (below).")
                    .arg(report.replaced);
    if (report.cancelled)
        text += tr(" Stopped: push again to continue.");
    if (!report.error.empty())
        text += QStringLiteral(" ") + QString::fromStdString(report.error);
    m_status->setText(text);
    if (m_url->findText(QString::fromStdString(url)) < 0)
        m_url->addItem(QString::fromStdString(url), QString::fromStdString(client));
    showFailures();
    showConflicts();
}

void SyncDialog::showConflicts()
{
    m_conflicts->setRowCount(0);
    const std::string url = m_url->currentText().trimmed().toStdString();
    for (const steward::ConflictView &view : steward::listConflicts(m_session.engine())) {
        if (!url.empty() && view.url != url)
            continue;
        const int row = m_conflicts->rowCount();
        m_conflicts->insertRow(row);
        auto *document = new QTableWidgetItem(QString::fromStdString(view.conflict.resource + " " + view.naturalKey));
        document->setData(Qt::UserRole, QString::fromStdString(view.conflict.id));
        document->setData(Qt::UserRole + 1, QString::fromStdString(view.url));
        // Collection items by their keys ("Address: Physical"), as the conflict dialog names them.
        const steward::ResourceSchema *resource = m_session.resourceByName(view.conflict.project, view.conflict.resource);
        QStringList fields;
        for (const steward::MergeConflict &field : view.fields)
            fields << conflictPathLabel(view, field, resource);
        m_conflicts->setItem(row, 0, document);
        m_conflicts->setItem(row, 1, new QTableWidgetItem(conflictSummary(view, resource)));
        m_conflicts->setItem(row, 2, new QTableWidgetItem(fields.isEmpty() ? tr("the whole document") : fields.join(QStringLiteral(", "))));
        m_conflicts->setItem(row, 3, new QTableWidgetItem(QString::fromStdString(view.conflict.foundAt)));
    }
    m_conflicts->resizeColumnsToContents();
}

void SyncDialog::resolveConflictAt(int row)
{
    const QTableWidgetItem *document = m_conflicts->item(row, 0);
    if (document == nullptr)
        return;
    if (openConflictDialog(m_session, document->data(Qt::UserRole).toString().toStdString(),
                           document->data(Qt::UserRole + 1).toString().toStdString(), this))
        m_status->setText(tr("Decided. The next push sends it; Edit > Undo last operation opens the conflict again."));
    showConflicts();
}

void SyncDialog::showFailures()
{
    m_failures->setRowCount(0);
    const std::string url = m_url->currentText().trimmed().toStdString();
    const std::string client = m_client->text().trimmed().toStdString();
    steward::SyncState state(m_session.database().connection());
    for (const steward::SyncTarget &target : state.targets()) {
        if (target.url != url || target.client != client)
            continue;
        for (const steward::SyncFailure &failure : state.failures(target.targetId)) {
            const int row = m_failures->rowCount();
            m_failures->insertRow(row);
            QString document = QString::fromStdString(failure.id);
            if (std::optional<steward::StoredDocument> stored = m_session.engine().document(failure.id))
                document = describeDocument(*stored);
            auto *documentItem = new QTableWidgetItem(document);
            documentItem->setData(Qt::UserRole, QString::fromStdString(failure.id));
            const bool hasDetail = failure.problem.is_object() && failure.problem.contains("detail")
                                   && failure.problem["detail"].is_string();
            const std::string said = hasDetail ? failure.problem["detail"].get<std::string>() : failure.problem.dump();
            m_failures->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(failure.operation)));
            m_failures->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(failure.resource)));
            m_failures->setItem(row, 2, documentItem);
            m_failures->setItem(row, 3, new QTableWidgetItem(QString::number(failure.status)));
            auto *saidItem = new QTableWidgetItem(QString::fromStdString(said));
            saidItem->setToolTip(QString::fromStdString(failure.problem.dump(2)));
            m_failures->setItem(row, 4, saidItem);
        }
    }
    m_failures->resizeColumnsToContents();
}
