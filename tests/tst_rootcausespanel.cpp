// The fix list (Tools > Root causes) through real widgets, offscreen.
#include "AppSession.h"
#include "DocumentEditor.h"
#include "Generator.h"
#include "Importer.h"
#include "MainWindow.h"
#include "RootCausesPanel.h"
#include "TestSupport.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QLabel>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>

using namespace steward;

namespace {

int rowWith(const RootCauseListModel &model, const QString &text)
{
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.data(model.index(row, RootCauseListModel::CauseColumn)).toString().contains(text))
            return row;
    return -1;
}

void activate(QTreeView *view, int row)
{
    const QRect cell = view->visualRect(view->model()->index(row, 0));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, cell.center());
}

} // namespace

class TestRootCausesPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("steward-tests"));
    }

    void fixListInLoadOrderOpensEditorsAndFollowsChanges()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("app.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));

        // A small district without its one school, and a section enrollment with a misspelt grade level.
        GeneratorOptions options;
        options.students = 100;
        Json removedSchool;
        Json enrollment;
        const QString ndjson = dir.filePath("district.ndjson");
        {
            QFile file(ndjson);
            QVERIFY(file.open(QIODevice::WriteOnly));
            generateDistrict(options, [&](const std::string &resource, const Json &body) {
                if (resource == "ed-fi/schools" && removedSchool.is_null()) {
                    removedSchool = body;
                    return;
                }
                if (resource == "ed-fi/studentSchoolAssociations" && enrollment.is_null())
                    enrollment = body;
                const std::string line = "{\"resource\":\"" + resource + "\",\"body\":" + dumpJson(body) + "}\n";
                file.write(line.data(), static_cast<qint64>(line.size()));
            });
        }
        ImportOptions importOptions;
        importOptions.paths = {ndjson.toStdString()};
        const ImportReport imported = importFiles(session->engine(), session->model(), importOptions);
        QVERIFY(imported.completed);
        QVERIFY(imported.totals.drafts > 10);
        enrollment["entryGradeLevelDescriptor"] = "uri://ed-fi.org/GradeLevelDescriptor#Nineth grade";
        enrollment["entryDate"] = "2026-01-05";
        const ResourceSchema *enrollments = session->resourceByName("Ed-Fi", "StudentSchoolAssociation");
        QVERIFY(enrollments != nullptr);
        session->saveDraft(*enrollments, QString::fromStdString(dumpJson(enrollment)), {}, 0);

        MainWindow window(std::move(session));
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showRootCauses();
        RootCausesPanel *panel = window.rootCausesPanel();
        QVERIFY(panel != nullptr);
        QAbstractItemModelTester tester(panel->causeModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isLoading() && panel->causeModel()->rowCount() == 2, 20000);

        // Dependency order: the descriptor (loaded first) before the School, though the School blocks more.
        RootCauseListModel *model = panel->causeModel();
        const QString schoolId = QString::number(removedSchool["schoolId"].get<qint64>());
        QCOMPARE(rowWith(*model, QStringLiteral("GradeLevelDescriptor")), 0);
        QCOMPARE(rowWith(*model, QStringLiteral("School %1 missing").arg(schoolId)), 1);
        const RootCause *school = model->causeAt(1);
        QVERIFY(school->blocked >= imported.totals.drafts);
        QCOMPARE(model->data(model->index(1, RootCauseListModel::BlockedColumn)).toString(),
                 QLocale().toString(static_cast<qlonglong>(school->blocked)));

        const QString screenshot = qEnvironmentVariable("STEWARD_SCREENSHOT_DIR");
        const QImage picture = panel->grab().toImage();
        QVERIFY(!picture.isNull());
        if (!screenshot.isEmpty()) {
            picture.save(screenshot + QStringLiteral("/rootcauses.png"));
            window.grab().save(screenshot + QStringLiteral("/rootcauses-window.png"));
        }

        // The descriptor row shows the closest stored value and why.
        activate(panel->view(), 0);
        QTRY_VERIFY(panel->details()->toPlainText().contains(QStringLiteral("#Ninth grade")));
        QVERIFY(panel->details()->toPlainText().contains(QStringLiteral("edit distance 1")));

        // The School row opens a new School with its id filled in.
        activate(panel->view(), 1);
        QTRY_VERIFY(window.editor()->resource() != nullptr);
        QCOMPARE(QString::fromStdString(window.editor()->resource()->resourceName), QStringLiteral("School"));
        JSON_COMPARE(window.editor()->currentBody()["schoolId"], removedSchool["schoolId"]);

        // Creating the School and revalidating clears its branch; the list follows.
        QSignalSpy refreshed(panel, &RootCausesPanel::refreshed);
        const Response created = window.session()->request("POST", "/ed-fi/schools", removedSchool);
        QVERIFY2(created.status == 201, created.body.dump().c_str());
        window.revalidateDrafts();
        QTRY_VERIFY2_WITH_TIMEOUT(refreshed.count() > 0 && !panel->isLoading() && model->rowCount() == 1,
                                  qPrintable(QStringLiteral("refreshed %1 loading %2 rows %3 visible %4 summary %5")
                                                 .arg(refreshed.count()).arg(panel->isLoading()).arg(model->rowCount())
                                                 .arg(panel->isVisible()).arg(panel->findChild<QLabel *>() ? panel->findChild<QLabel *>()->text() : QString())),
                                  20000);
        QCOMPARE(rowWith(*model, QStringLiteral("GradeLevelDescriptor")), 0);
        QCOMPARE(model->causeAt(0)->blocked, std::int64_t(1));
    }
};

QTEST_MAIN(TestRootCausesPanel)
#include "tst_rootcausespanel.moc"
