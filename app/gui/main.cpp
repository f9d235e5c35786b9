// steward: the desktop app.
#include "AppSession.h"
#include "MainWindow.h"
#include "WindowScreenshot.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace {

// --help and --version print and exit; they must work without a display (a terminal over ssh, the
// build that writes the man page from --help), and QApplication aborts when it finds none.
bool onlyPrints(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "--help" || arg == "-h" || arg == "-?" || arg == "--help-all" || arg == "--version" ||
            arg == "-v")
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char *argv[])
{
    std::unique_ptr<QCoreApplication> app;
    if (onlyPrints(argc, argv))
        app = std::make_unique<QCoreApplication>(argc, argv);
    else
        app = std::make_unique<QApplication>(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("steward"));
    QCoreApplication::setApplicationName(QStringLiteral("steward"));
    QCoreApplication::setApplicationVersion(QStringLiteral(STEWARD_VERSION));
    // Wayland compositors match the window to the installed desktop entry (and its icon) by this.
    QGuiApplication::setDesktopFileName(QStringLiteral(STEWARD_APP_ID));

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
    const QCommandLineOption sizeOption(QStringLiteral("window-size"),
                                        QStringLiteral("Open the window at this size, e.g. 1280x800."),
                                        QStringLiteral("WxH"));
    parser.addOption(screenshotOption);
    parser.addOption(sampleOption);
    parser.addOption(sizeOption);
    parser.process(*app);
    if (qobject_cast<QApplication *>(app.get()) == nullptr) {
        // "--help" or "--version" was only an option's value (--db --help): no window without QApplication.
        std::fprintf(stderr, "steward: --help and --version cannot be option values\n");
        return 2;
    }

    const QString databasePath = parser.isSet(dbOption) ? parser.value(dbOption)
                                                        : QString::fromStdString(steward::defaultDatabasePath());
    // The database records its model; --schema changes it (asked first when stored documents would fall outside).
    QStringList schemaFiles = parser.values(schemaOption);
    if (schemaFiles.isEmpty())
        schemaFiles = MainWindow::takeRememberedSchemaFiles(databasePath);
    QString error;
    std::unique_ptr<AppSession> session = AppSession::open(databasePath, schemaFiles, &error, [](const QString &outside) {
        return MainWindow::confirmModelOutside(nullptr, outside);
    });
    if (!session) {
        std::fprintf(stderr, "steward: %s\n", qPrintable(error));
        return 2;
    }
    const bool empty = session->engine().resourceCounts().empty();

    MainWindow window(std::move(session));
    window.showSampleOffer(empty);
    if (parser.isSet(sizeOption)) {
        const QStringList size = parser.value(sizeOption).split(QLatin1Char('x'));
        const int width = size.value(0).toInt();
        const int height = size.value(1).toInt();
        if (size.size() != 2 || width < 200 || height < 200) {
            std::fprintf(stderr, "steward: --window-size takes WIDTHxHEIGHT, e.g. 1280x800\n");
            return 2;
        }
        window.resize(width, height);
    }
    window.show();
    const bool loadSample = empty && parser.isSet(sampleOption);
    if (parser.isSet(screenshotOption)) {
        // Drawn once the sample (when asked for) and the views have loaded; the picture ends the run.
        auto *screenshot = new WindowScreenshot(window, parser.value(screenshotOption), loadSample, &window);
        QObject::connect(screenshot, &WindowScreenshot::taken, [](bool saved) { QCoreApplication::exit(saved ? 0 : 1); });
        screenshot->start();
    } else if (loadSample) {
        QTimer::singleShot(0, &window, &MainWindow::loadSampleDistrict);
    }
    return app->exec();
}
