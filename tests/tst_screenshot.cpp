// `steward --screenshot`: the picture is taken once the window shows what it will show, not after a
// guess of how long loading takes.
#include "AppSession.h"
#include "DocumentEditor.h"
#include "DocumentTableModel.h"
#include "MainWindow.h"
#include "WindowScreenshot.h"

#include <QFrame>
#include <QImage>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

struct WhatWasDrawn
{
    bool bannerShown = true;
    int rows = 0;
    QString resource;
    QString openDocument;
};

class TestScreenshot : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // --sample --screenshot on an empty database: the sample district, not "This database is empty".
    void drawnAfterTheSampleDistrictHasLoaded()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("empty.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow window(std::move(session));
        window.showSampleOffer(true);
        window.show();
        const QString png = dir.filePath("window.png");
        WindowScreenshot screenshot(window, png, true);
        WhatWasDrawn drawn;
        // Read at the moment of the picture (a direct connection), before anything else can load.
        connect(&screenshot, &WindowScreenshot::taken, this, [&window, &drawn] {
            const auto *banner = window.findChild<QFrame *>(QStringLiteral("sampleBanner"));
            drawn.bannerShown = banner != nullptr && banner->isVisible();
            drawn.rows = window.documentModel()->rowCount();
            const steward::ResourceSchema *resource = window.documentModel()->resource();
            drawn.resource = resource ? QString::fromStdString(resource->resourceName) : QString();
            drawn.openDocument = window.editor()->documentId();
        });
        QSignalSpy taken(&screenshot, &WindowScreenshot::taken);
        screenshot.start();
        QVERIFY(taken.wait(300000));
        QCOMPARE(taken.count(), 1);
        QCOMPARE(taken.first().first().toBool(), true);
        QVERIFY2(!drawn.bannerShown, "the empty database's banner was drawn");
        QCOMPARE(drawn.resource, QStringLiteral("School"));
        QVERIFY2(drawn.rows > 0, "the documents table was drawn before it had loaded");
        QVERIFY2(!drawn.openDocument.isEmpty(), "no document was open in the editor");
        const QImage image(png);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), window.size() * window.devicePixelRatio());
    }

    // Without --sample, an empty database is drawn as it is: with its banner, and still once.
    void anEmptyDatabaseIsDrawnWithItsBanner()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("empty.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow window(std::move(session));
        window.showSampleOffer(true);
        window.show();
        WindowScreenshot screenshot(window, dir.filePath("empty.png"), false);
        bool bannerShown = false;
        connect(&screenshot, &WindowScreenshot::taken, this, [&window, &bannerShown] {
            const auto *banner = window.findChild<QFrame *>(QStringLiteral("sampleBanner"));
            bannerShown = banner != nullptr && banner->isVisible();
        });
        QSignalSpy taken(&screenshot, &WindowScreenshot::taken);
        screenshot.start();
        QVERIFY(taken.wait(300000));
        QVERIFY(bannerShown);
        QCOMPARE(window.documentModel()->rowCount(), 0);
        QVERIFY(!QImage(dir.filePath("empty.png")).isNull());
    }
};

QTEST_MAIN(TestScreenshot)
#include "tst_screenshot.moc"
