// The readiness dashboard, the Duplicates dialog and the Change identity dialog, offscreen; every
// dialog and panel built without the main window.
#include "AppSession.h"
#include "BlockedDeleteDialog.h"
#include "PushPreviewDialog.h"
#include "DuplicatesDialog.h"
#include "IdentityChangeDialog.h"
#include "MainWindow.h"
#include "Prompt.h"
#include "ReadinessPanel.h"
#include "Rules.h"
#include "Submissions.h"
#include "Exporter.h"
#include "ReferencesPane.h"
#include "ResultsGrid.h"
#include "RootCausesPanel.h"
#include "SampleDistrict.h"
#include "SyncDialog.h"
#include "TestSupport.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace steward;

namespace {

std::unique_ptr<AppSession> districtSession(const QTemporaryDir &dir)
{
    QString error;
    std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("ready.db"), {}, &error);
    if (!session)
        return nullptr;
    for (const Request &request : sampleDistrictRequests(2026, 2))
        if (session->engine().handle(request).status >= 300)
            return nullptr;
    return session;
}

std::string createStudent(AppSession &session, const std::string &uid, const std::string &first,
                          const std::string &last, const std::string &born)
{
    const Response response = session.request(
        "POST", "/ed-fi/students", {{"studentUniqueId", uid}, {"firstName", first}, {"lastSurname", last}, {"birthDate", born}});
    for (const auto &[name, value] : response.headers)
        if (name == "Location")
            return value.substr(value.rfind('/') + 1);
    return {};
}

void verifyClean(AppSession &session)
{
    const IntegrityReport report = session.engine().check();
    QVERIFY2(report.clean(), qPrintable(QString::fromStdString(report.toJson().dump())));
}

} // namespace

class TestReadyGui : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("steward-tests"));
    }

    // No dialog or panel needs the main window: each is built on a session alone and shows itself.
    void dialogsStandAlone()
    {
        QTemporaryDir dir;
        std::unique_ptr<AppSession> session = districtSession(dir);
        QVERIFY(session);
        const std::string school = session->engine().handle({"GET", "/ed-fi/schools?limit=1", {}, std::nullopt, {}})
                                       .body[0]["id"].get<std::string>();
        std::vector<std::unique_ptr<QWidget>> widgets;
        widgets.push_back(std::make_unique<BlockedDeleteDialog>(session.get(), QString::fromStdString(school)));
        widgets.push_back(std::make_unique<DuplicatesDialog>(*session));
        widgets.push_back(std::make_unique<IdentityChangeDialog>(*session, QString::fromStdString(school)));
        widgets.push_back(std::make_unique<ReadinessPanel>(*session));
        widgets.push_back(std::make_unique<SyncDialog>(*session));
        widgets.push_back(std::make_unique<ResultsGrid>(session.get()));
        widgets.push_back(std::make_unique<RootCausesPanel>(session.get()));
        widgets.push_back(std::make_unique<ReferencesPane>(session.get()));
        for (const std::unique_ptr<QWidget> &widget : widgets) {
            widget->show();
            QVERIFY(QTest::qWaitForWindowExposed(widget.get()));
            QVERIFY2(!widget->grab().isNull(), widget->metaObject()->className());
        }
    }

    // The push preview lists what the target would refuse first, with why, then new and changed
    // documents with the fields that differ; Send is the confirmation.
    void pushPreviewShowsRefusalsFirst()
    {
        PushPreview preview;
        auto item = [](PushPreviewItem::State state, const std::string &key) {
            PushPreviewItem out;
            out.state = state;
            out.resource = "ed-fi/schools";
            out.naturalKey = key;
            out.id = "id-" + key;
            return out;
        };
        preview.items.push_back(item(PushPreviewItem::State::New, "701"));
        PushPreviewItem changed = item(PushPreviewItem::State::Changed, "700");
        changed.changes.push_back({FieldChange::Kind::Changed, "$.nameOfInstitution", "Old", "New"});
        preview.items.push_back(changed);
        PushPreviewItem refused = item(PushPreviewItem::State::Refused, "702");
        refused.reasons.push_back("descriptor value uri://ed-fi.org/GradeLevelDescriptor#Twelfth grade "
                                  "(gradeLevels[0].gradeLevelDescriptor): the target does not have it");
        preview.items.push_back(refused);
        preview.items.push_back(item(PushPreviewItem::State::Unchanged, "703"));
        PushPreviewDialog dialog(preview, QStringLiteral("http://district.example/api"));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTreeWidget *tree = dialog.documentsView();
        QCOMPARE(tree->topLevelItemCount(), 4);
        QCOMPARE(tree->topLevelItem(0)->text(0), QStringLiteral("The target would refuse (1)"));
        QTreeWidgetItem *school = tree->topLevelItem(0)->child(0);
        QCOMPARE(school->text(0), QStringLiteral("ed-fi/schools 702"));
        QVERIFY(school->child(0)->text(0).contains("Twelfth grade"));
        QCOMPARE(tree->topLevelItem(2)->child(0)->child(0)->text(1), QStringLiteral("\"Old\""));
        QCOMPARE(tree->topLevelItem(2)->child(0)->child(0)->text(2), QStringLiteral("\"New\""));
        QVERIFY2(dialog.summary().contains("1 it would refuse"), qPrintable(dialog.summary()));
        QVERIFY2(dialog.summary().contains("2 of 4 planned documents would change the target"), qPrintable(dialog.summary()));
        QCOMPARE(dialog.sendButton()->text(), QStringLiteral("&Send 4 documents"));
        if (const QString folder = qEnvironmentVariable("STEWARD_SCREENSHOT_DIR"); !folder.isEmpty())
            dialog.grab().save(QDir(folder).filePath("push-preview.png"));
    }

    void readinessModelProtocol()
    {
        ReadinessModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        ReadinessReport report;
        report.targets.push_back({1, "http://a.example", "c", 10});
        ResourceReadiness school;
        school.project = "Ed-Fi";
        school.resource = "School";
        school.documents = 2;
        school.changesNotExported = 2;
        school.changesNotSynced = {1};
        ResourceReadiness student = school;
        student.resource = "Student";
        student.drafts = 3;
        student.fatal = 1;
        report.resources = {school, student};
        model.setReport(report);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), ReadinessModel::FirstSyncColumn + 1);
        QCOMPARE(model.data(model.index(1, ReadinessModel::ResourceColumn)).toString(), QStringLiteral("Student"));
        QCOMPARE(model.data(model.index(1, ReadinessModel::DraftsColumn)).toLongLong(), 3);
        QCOMPARE(model.data(model.index(0, ReadinessModel::FirstSyncColumn)).toLongLong(), 1);
        QVERIFY(model.headerData(ReadinessModel::FirstSyncColumn, Qt::Horizontal).toString().contains("a.example"));
        QVERIFY(model.data(model.index(1, ReadinessModel::FatalColumn), Qt::ForegroundRole).isValid());
        QVERIFY(!model.data(model.index(0, ReadinessModel::FatalColumn), Qt::ForegroundRole).isValid());
        model.setReport({});
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), ReadinessModel::FirstSyncColumn);
    }

    void dashboardFollowsTheSession()
    {
        QTemporaryDir dir;
        std::unique_ptr<AppSession> session = districtSession(dir);
        QVERIFY(session);
        ReadinessPanel panel(*session);
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy refreshed(&panel, &ReadinessPanel::refreshed);
        panel.resize(760, 420);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QTRY_VERIFY(refreshed.count() >= 1);
        QCOMPARE(panel.banner()->text(), QStringLiteral("Ready to submit"));
        QVERIFY(panel.model()->rowCount() > 10);
        QCOMPARE(panel.submissionLabel()->text(), QStringLiteral("No submission signed off yet."));

        // A signed-off export shows under the banner, and what changes after it is counted there.
        ExportOptions exportOptions;
        exportOptions.outDir = dir.filePath(QStringLiteral("batch")).toStdString();
        QVERIFY(exportBatch(session->database(), session->model(), exportOptions).ok);
        signOffExport(session->database(), "", "A. Steward", "");
        int before = refreshed.count();
        panel.refresh();
        QTRY_VERIFY(refreshed.count() > before);
        QVERIFY2(panel.submissionLabel()->text().contains(QStringLiteral("Last submission: export of batch"))
                     && panel.submissionLabel()->text().contains(QStringLiteral("Nothing changed since.")),
                 qPrintable(panel.submissionLabel()->text()));

        before = refreshed.count();
        session->saveDraft(*session->model().findByName("Ed-Fi", "Student"), QStringLiteral("{\"studentUniqueId\""),
                           QString(), 0);
        QTRY_VERIFY(refreshed.count() > before);
        QCOMPARE(panel.banner()->text(), QStringLiteral("Not ready: 1 draft in Student"));
        Json descriptor{{"namespace", "uri://ed-fi.org/SexDescriptor"}, {"codeValue", "Other"}, {"shortDescription", "Other"}};
        before = refreshed.count();
        QCOMPARE(session->request("POST", "/ed-fi/sexDescriptors", descriptor).status, 201);
        QTRY_VERIFY(refreshed.count() > before);
        QVERIFY2(panel.submissionLabel()->text().contains(QStringLiteral("Changed since: 1 document(s) (1 SexDescriptor)")),
                 qPrintable(panel.submissionLabel()->text()));
        QImage shot = panel.grab().toImage();
        QVERIFY(!shot.isNull());
        shot.save(QDir::temp().filePath(QStringLiteral("steward-readiness.png"))); // for a look by eye
    }

    // The Tools menu's rule pack, state results and sign-off, once their files and names are chosen.
    void stateResultsRulePackAndSignOffFromTheWindow()
    {
        QTemporaryDir dir;
        std::unique_ptr<AppSession> session = districtSession(dir);
        QVERIFY(session);
        AppSession *raw = session.get();
        MainWindow window(std::move(session));
        const std::string school =
            raw->engine().handle({"GET", "/ed-fi/schools?limit=1", {}, std::nullopt, {}}).body[0]["id"].get<std::string>();
        QFile results(dir.filePath(QStringLiteral("state.jsonl")));
        QVERIFY(results.open(QIODevice::WriteOnly));
        results.write((Json{{"rule", "10010-0001"}, {"severity", "W"}, {"message", "Campus web site missing"}, {"id", school}}.dump()
                       + "\n" + Json{{"rule", "10010-0009"}, {"severity", "F"}, {"message", "No such campus"}, {"id", "nope"}}.dump()
                       + "\n")
                          .c_str());
        results.close();
        QSignalSpy resultsChanged(&window, &MainWindow::ruleResultsChanged);
        const QString said = window.importStateResults(results.fileName(), QString());
        QVERIFY2(said.contains(QStringLiteral("2 result(s) from state.jsonl: 1 matched to stored records, 1 matched nothing"))
                     && said.contains(QStringLiteral("row 2 (10010-0009): no stored document has the id nope")),
                 qPrintable(said));
        QCOMPARE(resultsChanged.count(), 1);
        QVERIFY(window.importStateResults(dir.filePath(QStringLiteral("missing.jsonl")), QString()).startsWith("Nothing stored"));

        const QString pack = dir.filePath(QStringLiteral("pack.json"));
        QFile packFile(pack);
        QVERIFY(packFile.open(QIODevice::WriteOnly));
        packFile.write(loadStarterRulePack(raw->model()).content.c_str());
        packFile.close();
        QVERIFY2(window.importRulePackFile(pack).startsWith(QStringLiteral("Stored steward-starter")),
                 qPrintable(window.importRulePackFile(pack)));

        QVERIFY(window.signOff(QStringLiteral("A. Steward")).startsWith(QStringLiteral("Not signed off: nothing was exported")));
        ExportOptions exportOptions;
        exportOptions.outDir = dir.filePath(QStringLiteral("batch")).toStdString();
        QVERIFY(exportBatch(raw->database(), raw->model(), exportOptions).ok);
        const QString signedOff = window.signOff(QStringLiteral("A. Steward"));
        QVERIFY2(signedOff.contains(QStringLiteral("signed off by A. Steward"))
                     && signedOff.contains(QStringLiteral("Not ready: 1 unacknowledged warning in School")),
                 qPrintable(signedOff));
        QVERIFY(window.signOff(QStringLiteral("A. Steward"), QStringLiteral("https://nowhere.example/api"))
                    .startsWith(QStringLiteral("Not signed off: no sync target has the URL")));
    }

    void exportAndPushAskWhenNotReady()
    {
        QTemporaryDir dir;
        std::unique_ptr<AppSession> session = districtSession(dir);
        QVERIFY(session);
        AppSession *raw = session.get();
        MainWindow window(std::move(session));
        // Ready: nothing is asked.
        Prompt::setNextAnswer(QMessageBox::NoButton);
        const QString lastBefore = Prompt::lastText();
        QVERIFY(confirmReadyToSubmit(&window, *raw, QStringLiteral("Export")));
        QCOMPARE(Prompt::lastText(), lastBefore);

        raw->saveDraft(*raw->model().findByName("Ed-Fi", "Student"), QStringLiteral("{"), QString(), 0);
        Prompt::setNextAnswer(QMessageBox::Cancel);
        QVERIFY(!confirmReadyToSubmit(&window, *raw, QStringLiteral("Push")));
        QCOMPARE(Prompt::lastText(), QStringLiteral("Not ready to submit: 1 draft in Student.\n\nPush anyway?"));
        Prompt::setNextAnswer(QMessageBox::Yes);
        QVERIFY(confirmReadyToSubmit(&window, *raw, QStringLiteral("Export")));

        // File > Export asks before anything else; Cancel ends it there.
        Prompt::setNextAnswer(QMessageBox::Cancel);
        window.exportBatchDialog();
        QVERIFY(Prompt::lastText().endsWith(QStringLiteral("Export anyway?")));
        QCOMPARE(raw->database().connection().execAndGet("SELECT COUNT(*) FROM batches").getInt64(), 0);
    }

    void duplicatesDialogMarksDistinctAndMerges()
    {
        QTemporaryDir dir;
        std::unique_ptr<AppSession> session = districtSession(dir);
        QVERIFY(session);
        const std::string a = createStudent(*session, "G-1", "Lucía", "Gómez", "1993-07-07");
        const std::string b = createStudent(*session, "G-2", "Lucia", "Gomez", "1993-07-07");
        QVERIFY(!a.empty() && !b.empty());
        DuplicatesDialog dialog(*session);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QCOMPARE(dialog.pairList()->count(), 1);
        QVERIFY(dialog.pairList()->item(0)->text().contains("G-1"));
        QTableWidget *fields = dialog.fieldTable();
        bool firstNameHighlighted = false;
        bool uniqueIdHighlighted = false;
        bool birthDatePlain = false;
        for (int row = 0; row < fields->rowCount(); ++row) {
            const QString field = fields->item(row, 0)->text();
            const bool highlighted = fields->item(row, 1)->background().style() != Qt::NoBrush;
            firstNameHighlighted |= field == "firstName" && highlighted;
            uniqueIdHighlighted |= field == "studentUniqueId" && highlighted;
            birthDatePlain |= field == "birthDate" && !highlighted;
        }
        QVERIFY(firstNameHighlighted && uniqueIdHighlighted && birthDatePlain);
        QImage shot = dialog.grab().toImage();
        shot.save(QDir::temp().filePath(QStringLiteral("steward-duplicates.png")));

        QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("markDistinct")), Qt::LeftButton);
        QCOMPARE(dialog.pairList()->count(), 0);

        const std::string c = createStudent(*session, "G-3", "Lucia", "Gomes", "1993-07-07");
        dialog.reload();
        QCOMPARE(dialog.pairList()->count(), 2); // G-1 ~ G-3 and G-2 ~ G-3
        dialog.pairList()->setCurrentRow(0);
        const DuplicateCandidate pair = dialog.candidates().at(0);
        QSignalSpy changed(session.get(), &AppSession::documentsChanged);
        Prompt::setNextAnswer(QMessageBox::Cancel);
        QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("mergeLeft")), Qt::LeftButton);
        QVERIFY(Prompt::lastText().contains("delete Student " + QString::fromStdString(pair.rightKey)));
        QCOMPARE(changed.count(), 0);
        QVERIFY(session->engine().document(pair.rightId).has_value());
        Prompt::setNextAnswer(QMessageBox::Yes);
        QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("mergeLeft")), Qt::LeftButton);
        QVERIFY(changed.count() > 0);
        QVERIFY(!session->engine().document(pair.rightId).has_value());
        QVERIFY(session->engine().document(pair.leftId).has_value());
        verifyClean(*session);
    }

    void identityChangeDialogPreviewsThenApplies()
    {
        QTemporaryDir dir;
        std::unique_ptr<AppSession> session = districtSession(dir);
        QVERIFY(session);
        const Json student = session->request("GET", "/ed-fi/students?limit=1").body.at(0);
        const QString id = QString::fromStdString(student["id"].get<std::string>());
        IdentityChangeDialog dialog(*session, id);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QLineEdit *uniqueId = dialog.field(QStringLiteral("studentUniqueId"));
        QVERIFY(uniqueId != nullptr);
        QCOMPARE(uniqueId->text(), QString::fromStdString(student["studentUniqueId"].get<std::string>()));
        QVERIFY(!dialog.applyButton()->isEnabled());

        uniqueId->setText(QStringLiteral("X-100"));
        QTest::mouseClick(dialog.previewButton(), Qt::LeftButton);
        QVERIFY2(dialog.stepsView()->toPlainText().contains("create Student X-100"),
                 qPrintable(dialog.stepsView()->toPlainText()));
        QVERIFY(dialog.stepsView()->toPlainText().contains("delete Student"));
        QVERIFY(dialog.applyButton()->isEnabled());
        QVERIFY(session->engine().document(id.toStdString()).has_value()); // the preview wrote nothing
        QImage shot = dialog.grab().toImage();
        shot.save(QDir::temp().filePath(QStringLiteral("steward-identity-change.png")));

        // Editing after the preview: it has to be previewed again.
        QTest::keyClick(uniqueId, Qt::Key_1);
        QVERIFY(!dialog.applyButton()->isEnabled());
        QTest::mouseClick(dialog.previewButton(), Qt::LeftButton);
        QVERIFY(dialog.stepsView()->toPlainText().contains("create Student X-1001"));
        QTest::mouseClick(dialog.applyButton(), Qt::LeftButton);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QVERIFY(!dialog.resultId().isEmpty());
        QVERIFY(!session->engine().document(id.toStdString()).has_value());
        const std::optional<StoredDocument> moved = session->engine().document(dialog.resultId().toStdString());
        QVERIFY(moved.has_value());
        QCOMPARE(QString::fromStdString(Json::parse(moved->body)["studentUniqueId"].get<std::string>()),
                 QStringLiteral("X-1001"));
        verifyClean(*session);

        // A taken identity is refused in the preview, naming it.
        const Json other = session->request("GET", "/ed-fi/students?limit=2").body.at(1);
        IdentityChangeDialog second(*session, dialog.resultId());
        second.field(QStringLiteral("studentUniqueId"))->setText(QString::fromStdString(other["studentUniqueId"].get<std::string>()));
        second.preview();
        QVERIFY(second.stepsView()->toPlainText().contains("already exists"));
        QVERIFY(!second.applyButton()->isEnabled());
    }
};

QTEST_MAIN(TestReadyGui)
#include "tst_readygui.moc"
