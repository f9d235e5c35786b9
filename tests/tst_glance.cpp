// The app shows what the engine knows at a glance, through real widgets offscreen at a laptop's sizes:
// the record's whole verdict in the editor, open conflicts in sight as the window opens, and other
// programs' writes shown within seconds.
#include "AppSession.h"
#include "AttentionBar.h"
#include "DatabaseWatcher.h"
#include "DocumentEditor.h"
#include "DocumentTableModel.h"
#include "ExternalResults.h"
#include "MainWindow.h"
#include "ResourceTreeModel.h"
#include "ResultsGrid.h"
#include "ResultsGridModel.h"
#include "Rules.h"
#include "Sync.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QHeaderView>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableView>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace steward;

namespace {

const QSize kLaptopSizes[] = {{1280, 800}, {1366, 768}};

std::string post(AppSession &session, const std::string &path, const Json &body)
{
    const Response r = session.request("POST", path, body);
    if (r.status != 201 && r.status != 200)
        qFatal("seeding %s failed: %s", path.c_str(), r.body.dump().c_str());
    const std::string location = r.header("Location");
    return location.substr(location.find_last_of('/') + 1);
}

Json student(const std::string &id, const std::string &birthDate)
{
    return Json{{"studentUniqueId", id}, {"firstName", "Ada"}, {"lastSurname", "Lovelace"}, {"birthDate", birthDate}};
}

// The editor's verdict as a steward reads it: the summary line and every listed item.
QString verdictText(DocumentEditor *editor)
{
    auto *summary = editor->findChild<QLabel *>(QStringLiteral("problemsSummary"));
    auto *problems = editor->findChild<QListWidget *>(QStringLiteral("problemsList"));
    QString text = summary ? summary->text() : QString();
    for (int i = 0; problems && i < problems->count(); ++i)
        text += QLatin1Char('\n') + problems->item(i)->text();
    return text;
}

void recordConflict(AppSession &session, const std::string &id)
{
    SyncState state(session.database().connection());
    SyncConflict conflict;
    conflict.targetId = state.ensureTarget("http://127.0.0.1:9/api", "district").targetId;
    conflict.id = id;
    conflict.project = "Ed-Fi";
    conflict.resource = "Student";
    conflict.base = SyncBase{"8f0c", "5", 0, dumpJson(student("604822", "2010-01-01"))};
    Json theirs = student("604822", "2010-01-01");
    theirs["firstName"] = "Augusta";
    conflict.theirsText = dumpJson(theirs);
    conflict.theirsEtag = "6";
    conflict.reason = "changed on both sides: $.firstName";
    state.recordConflict(conflict);
}

// With STEWARD_SCREENSHOT_DIR set, the window as the steward sees it, to look at.
void saveScreenshot(QWidget *widget, const QString &name)
{
    const QString folder = qEnvironmentVariable("STEWARD_SCREENSHOT_DIR");
    if (folder.isEmpty())
        return;
    QTest::qWait(400); // laid out and painted as a person would see it
    widget->grab().save(QDir(folder).filePath(name));
}

qint64 treeCount(MainWindow &window, const char *resource)
{
    QAbstractItemModel *model = window.resourceView()->model();
    const QModelIndexList hits = model->match(model->index(0, 0), Qt::DisplayRole, QString::fromLatin1(resource),
                                              -1, Qt::MatchStartsWith | Qt::MatchRecursive);
    for (const QModelIndex &hit : hits)
        if (hit.data(Qt::DisplayRole).toString().section(QStringLiteral("  ·"), 0, 0) == QLatin1String(resource))
            return hit.data(ResourceTreeModel::DocumentCountRole).toLongLong();
    return -2;
}

} // namespace

class TestGlance : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("steward-tests"));
    }

    void verdictListsRuleAndStateResults_data()
    {
        QTest::addColumn<QSize>("size");
        for (const QSize &size : kLaptopSizes)
            QTest::newRow(qPrintable(QStringLiteral("%1x%2").arg(size.width()).arg(size.height()))) << size;
    }

    // A student born in the future has a fatal rule result and a state's result: the editor lists both
    // by title, with what to do and where they come from, and never says "No problems."
    void verdictListsRuleAndStateResults()
    {
        QFETCH(QSize, size);
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("verdict.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        AppSession *raw = session.get();
        const std::string clean = post(*raw, "/ed-fi/schoolYearTypes",
                                       Json{{"schoolYear", 2022}, {"currentSchoolYear", false},
                                            {"schoolYearDescription", "2021-2022"}});
        const std::string future = post(*raw, "/ed-fi/students", student("604822", "2999-01-01"));
        runRules(loadStarterRulePack(raw->model()), raw->model(), raw->database());
        QFile lines(dir.filePath("fall-state.jsonl"));
        QVERIFY(lines.open(QIODevice::WriteOnly));
        lines.write(QByteArray::fromStdString(Json{{"rule", "10010-0033"}, {"severity", "error"},
                                                   {"message", "Missing home language"}, {"id", future}}
                                                  .dump()
                                              + "\n"));
        lines.close();
        importExternalResults(raw->database(), raw->model(), lines.fileName().toStdString(), nullptr, {});

        MainWindow window(std::move(session));
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.navigateTo(QString::fromStdString(future)));
        const QString verdict = verdictText(window.editor());
        QVERIFY2(!verdict.contains(QLatin1String("No problems")), qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral("Fatal · Birth date not in the future")), qPrintable(verdict));
        QVERIFY2(verdict.contains(QLatin1String("What to do: Correct the student's birth date.")), qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral("Error · 10010-0033: Missing home language")), qPrintable(verdict));
        QVERIFY2(verdict.contains(QLatin1String("fall-state.jsonl")) && verdict.contains(QLatin1String("row 1")),
                 qPrintable(verdict));
        QVERIFY2(verdict.contains(QLatin1String("On record: 1 fatal, 1 error")), qPrintable(verdict));
        saveScreenshot(&window, QStringLiteral("editor-fatal-%1x%2.png").arg(size.width()).arg(size.height()));
        // The documents table marks the record with its worst severity.
        DocumentTableModel *documents = window.documentModel();
        QTRY_VERIFY(documents->rowOfDocument(QString::fromStdString(future)) >= 0);
        const QModelIndex marked = documents->index(documents->rowOfDocument(QString::fromStdString(future)), 0);
        QTRY_VERIFY(!marked.data(Qt::DecorationRole).isNull());
        QVERIFY2(marked.data(Qt::ToolTipRole).toString().contains(QLatin1String("On record: fatal")),
                 qPrintable(marked.data(Qt::ToolTipRole).toString()));

        // A record nothing is known against says so.
        QVERIFY(window.navigateTo(QString::fromStdString(clean)));
        QTRY_VERIFY2(verdictText(window.editor()).startsWith(QLatin1String("No problems.")),
                     qPrintable(verdictText(window.editor())));
    }

    // An open conflict is in sight as the window opens: the banner with Decide…, the status bar's
    // count, the marker on the resource in the tree.
    void openConflictSignalledAsTheWindowOpens()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("conflict.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        const std::string id = post(*session, "/ed-fi/students", student("604822", "2010-01-01"));
        recordConflict(*session, id);
        MainWindow window(std::move(session));
        QAbstractItemModelTester tester(window.resourceView()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        window.resize(kLaptopSizes[0]);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        AttentionBar *bar = window.attentionBar();
        QVERIFY(bar);
        QTRY_VERIFY(bar->isVisible());
        QCOMPARE(bar->openConflicts(), 1);
        QVERIFY(bar->decideButton()->isVisible());
        QVERIFY2(bar->statusLabel()->isVisible() && bar->statusLabel()->text().contains(QLatin1String("1 sync conflict")),
                 qPrintable(bar->statusLabel()->text()));
        QVERIFY2(bar->statusLabel()->text().contains(QLatin1String("Not ready")), qPrintable(bar->statusLabel()->text()));
        QAbstractItemModel *tree = window.resourceView()->model();
        const QModelIndexList marked = tree->match(tree->index(0, 0), ResourceTreeModel::ConflictCountRole, 1, -1,
                                                   Qt::MatchExactly | Qt::MatchRecursive);
        QCOMPARE(marked.size(), 1);
        QVERIFY2(marked.front().data().toString().startsWith(QLatin1String("Student")), qPrintable(marked.front().data().toString()));
        QVERIFY(!marked.front().data(Qt::DecorationRole).isNull());

        // The record itself says so, and its item opens the resolver.
        QVERIFY(window.navigateTo(QString::fromStdString(id)));
        saveScreenshot(&window, QStringLiteral("window-open-conflict.png"));
        QVERIFY2(verdictText(window.editor()).contains(QStringLiteral("Fatal · Changed here and on the target")),
                 qPrintable(verdictText(window.editor())));
    }

    // Another program's write (here a second connection with an engine of its own, as steward-cli has)
    // shows in the tree's count within 2 s; the record open in the editor gets a notice, and a save
    // over it is refused by its etag.
    void writesElsewhereShownWithinTwoSeconds()
    {
        QTemporaryDir dir;
        QString error;
        const QString path = dir.filePath("live.db");
        std::unique_ptr<AppSession> session = AppSession::open(path, {}, &error);
        QVERIFY2(session, qPrintable(error));
        const std::string id = post(*session, "/ed-fi/students", student("604822", "2010-01-01"));
        AppSession *raw = session.get();
        MainWindow window(std::move(session));
        window.resize(kLaptopSizes[1]);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(raw->watcher() != nullptr);
        QTRY_COMPARE(treeCount(window, "Student"), qint64(1));
        QVERIFY(window.navigateTo(QString::fromStdString(id)));

        std::unique_ptr<Model> model = Model::loadStarter();
        std::unique_ptr<Database> other = Database::open(path.toStdString());
        Engine elsewhere(*model, *other);
        Response created = elsewhere.handle(Request::make("POST", "/ed-fi/students", "cli", student("604823", "2011-02-02")));
        QCOMPARE(created.status, 201);
        QTRY_COMPARE_WITH_TIMEOUT(treeCount(window, "Student"), qint64(2), 2000);

        Json changed = student("604822", "2010-01-01");
        changed["firstName"] = "Augusta";
        Response updated = elsewhere.handle(Request::make("PUT", "/ed-fi/students/" + id, "cli", changed));
        QCOMPARE(updated.status, 204);
        auto *notice = window.editor()->findChild<QLabel *>(QStringLiteral("changedNotice"));
        QVERIFY(notice);
        QTRY_VERIFY_WITH_TIMEOUT(notice->isVisible(), 2000);
        QVERIFY2(notice->text().contains(QLatin1String("Reload")), qPrintable(notice->text()));

        // A save over it would overwrite what the other program wrote: refused by the etag, text kept.
        window.editor()->revalidateNow();
        QVERIFY(!window.editor()->save());
        QVERIFY2(notice->text().contains(QLatin1String("Compare")), qPrintable(notice->text()));
        QCOMPARE(raw->request("GET", "/ed-fi/students/" + id).body["firstName"].get<std::string>(), std::string("Augusta"));
    }

    void dataQualityReadsByTitleAtLaptopSizes_data()
    {
        verdictListsRuleAndStateResults_data();
    }

    // The grid shows the rule's title (its code beside it) and the message without a horizontal
    // scroll; selecting a row shows its record, the grid staying in front, its resource selected.
    void dataQualityReadsByTitleAtLaptopSizes()
    {
        QFETCH(QSize, size);
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("grid.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        AppSession *raw = session.get();
        const std::string future = post(*raw, "/ed-fi/students", student("604822", "2999-01-01"));
        runRules(loadStarterRulePack(raw->model()), raw->model(), raw->database());
        MainWindow window(std::move(session));
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("centerTabs"));
        QVERIFY(tabs);
        tabs->setCurrentWidget(window.resultsGrid());
        ResultsGrid *grid = window.resultsGrid();
        QAbstractItemModelTester tester(grid->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        grid->reload();
        QTRY_VERIFY(grid->model()->rowCount() >= 2);
        int row = -1;
        for (int r = 0; r < grid->model()->rowCount(); ++r)
            if (grid->model()->rowAt(r).cause == "STU-002")
                row = r;
        QVERIFY(row >= 0);
        QCOMPARE(grid->model()->index(row, ResultsGridModel::CauseColumn).data().toString(),
                 QStringLiteral("Birth date not in the future (STU-002)"));
        auto *causeFacet = grid->findChild<QComboBox *>(
            QStringLiteral("facet%1").arg(static_cast<int>(ResultsGridModel::Facet::Cause)));
        QVERIFY(causeFacet);
        QVERIFY(causeFacet->findData(QStringLiteral("Birth date not in the future (STU-002)")) >= 0
                || causeFacet->findText(QStringLiteral("Birth date not in the future (STU-002)"), Qt::MatchStartsWith) >= 0);

        QTableView *view = grid->view();
        QHeaderView *header = view->horizontalHeader();
        QCOMPARE(view->horizontalScrollBar()->value(), 0);
        for (int column : {int(ResultsGridModel::SeverityColumn), int(ResultsGridModel::CauseColumn),
                           int(ResultsGridModel::MessageColumn)}) {
            const int right = header->sectionViewportPosition(column) + header->sectionSize(column);
            QVERIFY2(header->sectionViewportPosition(column) >= 0 && right <= view->viewport()->width(),
                     qPrintable(QStringLiteral("column %1 ends at %2 of %3").arg(column).arg(right).arg(view->viewport()->width())));
        }
        QVERIFY(header->sectionSize(ResultsGridModel::MessageColumn) >= 140);

        const QRect cell = view->visualRect(grid->model()->index(row, ResultsGridModel::MessageColumn));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
        QTRY_COMPARE(window.editor()->documentId(), QString::fromStdString(future));
        saveScreenshot(&window, QStringLiteral("data-quality-%1x%2.png").arg(size.width()).arg(size.height()));
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(grid));
        QVERIFY2(window.resourceView()->currentIndex().data().toString().startsWith(QLatin1String("Student")),
                 qPrintable(window.resourceView()->currentIndex().data().toString()));
    }
};

QTEST_MAIN(TestGlance)
#include "tst_glance.moc"
