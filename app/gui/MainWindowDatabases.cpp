// The main window's database and model: opening and creating databases, the recent ones,
// choosing the model (which the database records; a choice that leaves stored documents out is asked
// about), how long undo lasts in it, and the banner shown while other accounts can read its files.
#include "MainWindow.h"
#include "AppSession.h"
#include "PrivateFiles.h"
#include "Prompt.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>

namespace {

// Where an earlier Steward remembered a database's schema files, before databases recorded their model.
QString rememberedSchemasKey(const QString &databasePath)
{
    QString key = QFileInfo(databasePath).absoluteFilePath();
    key.replace(QLatin1Char('/'), QLatin1Char('|'));
    return QStringLiteral("databases/") + key + QStringLiteral("/schemas");
}

} // namespace

void MainWindow::openDatabaseDialog(bool create)
{
    const QString path = create ? QFileDialog::getSaveFileName(this, tr("New Steward database"), QString(),
                                                               tr("Steward databases (*.db *.sqlite)"))
                                : QFileDialog::getOpenFileName(this, tr("Open Steward database"), QString(),
                                                               tr("Steward databases (*.db *.sqlite);;All files (*)"));
    if (path.isEmpty())
        return;
    switchDatabase(path, takeRememberedSchemaFiles(path));
}

void MainWindow::chooseModelDialog(bool starter)
{
    QStringList files;
    if (!starter) {
        files = QFileDialog::getOpenFileNames(this, tr("Ed-Fi ApiSchema files: the data standard first, then extensions"),
                                              QString(), tr("ApiSchema (*.json)"));
        if (files.isEmpty())
            return;
    }
    switchDatabase(m_session->databasePath(), files, starter);
}

QStringList MainWindow::takeRememberedSchemaFiles(const QString &databasePath)
{
    QSettings settings;
    const QString key = rememberedSchemasKey(databasePath);
    const QStringList files = settings.value(key).toStringList();
    settings.remove(key);
    for (const QString &file : files)
        if (!QFileInfo::exists(file))
            return {};
    return files;
}

bool MainWindow::confirmModelOutside(QWidget *parent, const QString &outside)
{
    const QString text = tr("Documents stored in this database would fall outside the model chosen: %1.\n\n"
                            "They stay stored, but the model does not know them (Check database lists each). "
                            "Open the database with this model anyway?")
                             .arg(outside);
    return Prompt::ask(parent, tr("Change the model"), text, QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
           == QMessageBox::Yes;
}

void MainWindow::switchDatabase(const QString &path, const QStringList &schemaFiles, bool starterModel)
{
    if (!confirmDiscardEdits())
        return;
    QString error;
    bool declined = false;
    std::unique_ptr<AppSession> session = AppSession::open(
        path, schemaFiles, &error,
        [this, &declined](const QString &outside) {
            declined = !confirmModelOutside(this, outside);
            return !declined;
        },
        starterModel);
    if (!session) {
        if (!declined) // a steward who said no knows why nothing changed
            Prompt::inform(this, tr("Cannot open"), error);
        return;
    }
    saveLayout();
    // The panes hold pointers into the old session's model: rebuild them before it goes.
    std::unique_ptr<AppSession> previous = std::move(m_session);
    m_session = std::move(session);
    rebuildForSession();
    restoreLayout();
}

void MainWindow::addRecent(const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentDatabases")).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    settings.setValue(QStringLiteral("recentDatabases"), recent.mid(0, 8));
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    if (m_recentMenu == nullptr)
        return;
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recentDatabases")).toStringList();
    // Numbered like other programs' recent files, so Alt+F, R, 1 opens the last one (at most 8 are kept).
    int number = 0;
    for (const QString &path : recent) {
        QString text = QDir::toNativeSeparators(path);
        text.replace(QLatin1Char('&'), QStringLiteral("&&"));
        m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(++number).arg(text), this, [this, path] {
            switchDatabase(path, takeRememberedSchemaFiles(path));
        });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::undoRetentionDialog()
{
    const steward::UndoRetention current = m_session->undoRetention();
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Undo and history"));
    auto *layout = new QFormLayout(&dialog);
    auto *explanation = new QLabel(
        tr("An operation (a bulk fix, a mapping, a merge, a resolved conflict…) can be undone while it is among "
           "the newest operations and young enough. Older ones are let go as new ones are made; what they "
           "changed stays in each record's History. 0 means no limit of that kind. Defaults: %1 operations, "
           "%2 days.")
            .arg(steward::UndoRetention::kDefaultOperations)
            .arg(steward::UndoRetention::kDefaultDays),
        &dialog);
    explanation->setWordWrap(true);
    layout->addRow(explanation);
    auto *operations = new QSpinBox(&dialog);
    operations->setObjectName(QStringLiteral("undoKeepOperations"));
    operations->setRange(0, 1000000);
    operations->setSpecialValueText(tr("no limit"));
    operations->setValue(current.operations);
    layout->addRow(tr("Keep undo for the newest &operations:"), operations);
    auto *days = new QSpinBox(&dialog);
    days->setObjectName(QStringLiteral("undoKeepDays"));
    days->setRange(0, 100000);
    days->setSpecialValueText(tr("no limit"));
    days->setSuffix(tr(" days"));
    days->setValue(current.days);
    layout->addRow(tr("…made within the last:"), days);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return;
    steward::UndoRetention chosen;
    chosen.operations = operations->value();
    chosen.days = days->value();
    try {
        m_session->setUndoRetention(chosen);
    } catch (const std::exception &e) {
        Prompt::inform(this, tr("Undo and history"), QString::fromStdString(e.what()));
    }
}

void MainWindow::buildPrivacyBanner(QWidget *central)
{
    m_privacyBanner = new QFrame(central);
    m_privacyBanner->setObjectName(QStringLiteral("privacyBanner"));
    m_privacyBanner->setFrameShape(QFrame::StyledPanel);
    m_privacyBanner->setStyleSheet(QStringLiteral("#privacyBanner { background: #fff4e0; border: 1px solid #e0a84a; }"));
    auto *layout = new QHBoxLayout(m_privacyBanner);
    m_privacyText = new QLabel(m_privacyBanner);
    m_privacyText->setWordWrap(true);
    auto *makePrivate = new QPushButton(tr("Make private"), m_privacyBanner);
    makePrivate->setObjectName(QStringLiteral("makePrivate"));
    auto *notNow = new QPushButton(tr("Not now"), m_privacyBanner);
    layout->addWidget(m_privacyText, 1);
    layout->addWidget(makePrivate);
    layout->addWidget(notNow);
    connect(makePrivate, &QPushButton::clicked, this, &MainWindow::makeFilesPrivate);
    connect(notNow, &QPushButton::clicked, m_privacyBanner, &QWidget::hide);
    m_privacyBanner->setVisible(false);
}

void MainWindow::updatePrivacyBanner()
{
    const std::vector<steward::ExposedFile> exposed =
        steward::exposedDatabaseFiles(m_session->databasePath().toStdString());
    m_privacyBanner->setVisible(!exposed.empty());
    if (exposed.empty())
        return;
    m_privacyText->setText(tr("Other accounts on this computer can read the student records in %1. "
                              "Make the database readable by you alone?")
                               .arg(QString::fromStdString(steward::describeExposedFiles(exposed))));
}

void MainWindow::makeFilesPrivate()
{
    std::string error;
    if (!steward::makeDatabasePrivate(m_session->databasePath().toStdString(), &error)) {
        Prompt::inform(this, tr("Make private"), tr("Could not make the database private: %1").arg(QString::fromStdString(error)));
        return;
    }
    updatePrivacyBanner();
    statusBar()->showMessage(tr("The database is private now: only your account can read it."), 8000);
}
