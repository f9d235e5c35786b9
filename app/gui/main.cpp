// steward: the desktop app.
#include "AppSession.h"
#include "MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("steward"));
    QCoreApplication::setApplicationName(QStringLiteral("steward"));
    QCoreApplication::setApplicationVersion(QStringLiteral(STEWARD_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Steward: offline Ed-Fi data stewardship.\n"
                       "Example: steward --db district.db --schema ApiSchema.json --schema ApiSchema-TPDM.json"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption dbOption(QStringLiteral("db"), QStringLiteral("The Steward database to open."),
                                      QStringLiteral("path"));
    const QCommandLineOption schemaOption(QStringLiteral("schema"),
                                          QStringLiteral("An Ed-Fi ApiSchema file (repeatable; core first)."),
                                          QStringLiteral("path"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"), QStringLiteral("Render the main window to a PNG file and exit."),
        QStringLiteral("file"));
    parser.addOption(dbOption);
    parser.addOption(schemaOption);
    const QCommandLineOption sampleOption(QStringLiteral("sample"),
                                          QStringLiteral("Load the sample district into an empty database at start."));
    parser.addOption(screenshotOption);
    parser.addOption(sampleOption);
    parser.process(app);

    const QString databasePath = parser.isSet(dbOption) ? parser.value(dbOption)
                                                        : QString::fromStdString(steward::defaultDatabasePath());
    QStringList schemaFiles = parser.values(schemaOption);
    const QString modelKey = QStringLiteral("databases/")
                             + QFileInfo(databasePath).absoluteFilePath().replace(QLatin1Char('/'), QLatin1Char('|'))
                             + QStringLiteral("/schemas");
    if (schemaFiles.isEmpty())
        schemaFiles = QSettings().value(modelKey).toStringList();

    QString error;
    std::unique_ptr<AppSession> session = AppSession::open(databasePath, schemaFiles, &error);
    if (!session) {
        std::fprintf(stderr, "steward: %s\n", qPrintable(error));
        return 2;
    }
    QSettings().setValue(modelKey, schemaFiles);
    const bool empty = session->engine().resourceCounts().empty();

    MainWindow window(std::move(session));
    window.showSampleOffer(empty);
    window.show();
    if (empty && parser.isSet(sampleOption))
        QTimer::singleShot(0, &window, &MainWindow::loadSampleDistrict);

    if (parser.isSet(screenshotOption)) {
        const QString target = parser.value(screenshotOption);
        QTimer::singleShot(800, &window, &MainWindow::openFirstDocument);
        QTimer::singleShot(1500, &window, [&window, target] {
            const bool saved = window.grab().save(target);
            std::fprintf(saved ? stdout : stderr, saved ? "steward: wrote %s\n" : "steward: cannot write %s\n",
                         qPrintable(target));
            QCoreApplication::exit(saved ? 0 : 1);
        });
    }
    return app.exec();
}
