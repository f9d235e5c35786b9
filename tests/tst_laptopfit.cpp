// "Fits a laptop": the app at 1280x800 and 1366x768, on two offscreen screens of those sizes
// (tests/offscreen-laptops.json). What a steward needs to read or press is in sight, not cut off
// or behind a scroll bar. With STEWARD_SCREENSHOT_DIR set, pictures of each, to look at.
#include "AppSession.h"
#include "ConflictDialog.h"
#include "DocumentEditor.h"
#include "DocumentTableModel.h"
#include "MainWindow.h"
#include "ReferencesPane.h"
#include "ResourceTreeModel.h"
#include "SampleDistrict.h"
#include "Sync.h"
#include "TestSupport.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleOptionFrame>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QToolButton>
#include <QTreeView>
#include <QTextDocumentFragment>
#include <QTreeWidget>

using namespace steward;

namespace {

void post(AppSession &session, const std::string &path, const Json &body)
{
    const Response r = session.request("POST", path, body);
    if (r.status != 201 && r.status != 200)
        qFatal("seeding %s failed: %s", path.c_str(), r.body.dump().c_str());
}

std::string idOf(AppSession &session, const std::string &collectionQuery)
{
    const Response r = session.request("GET", collectionQuery);
    return r.body.empty() ? std::string() : r.body[0]["id"].get<std::string>();
}

void saveScreenshot(QWidget *widget, const QString &name)
{
    const QString folder = qEnvironmentVariable("STEWARD_SCREENSHOT_DIR");
    if (!folder.isEmpty())
        widget->grab().save(QDir(folder).filePath(name));
}

QString sizeName(const QScreen *screen)
{
    return QStringLiteral("%1x%2").arg(screen->size().width()).arg(screen->size().height());
}

// The two laptop screens, 1280x800 first; empty (after a visible skip) without them.
QList<QScreen *> laptopScreens()
{
    QList<QScreen *> found;
    for (const QSize size : {QSize(1280, 800), QSize(1366, 768)})
        for (QScreen *screen : QGuiApplication::screens())
            if (screen->size() == size)
                found << screen;
    return found;
}

#define REQUIRE_LAPTOP_SCREENS(screens)                                                                       \
    const QList<QScreen *> screens = laptopScreens();                                                         \
    if (screens.size() != 2)                                                                                  \
        QSKIP("needs the screens of tests/offscreen-laptops.json "                                            \
              "(QT_QPA_PLATFORM=offscreen:configfile=tests/offscreen-laptops.json), as ctest sets")

// What a sync leaves behind when both sides changed a document: a conflict with http://127.0.0.1:9/api,
// the base and the target's copy as given (the local document is what is stored).
void recordSyncConflict(AppSession &session, const std::string &id, const std::string &resource, const Json &base,
                        const Json &theirs)
{
    SyncState state(session.database().connection());
    SyncConflict conflict;
    conflict.targetId = state.ensureTarget("http://127.0.0.1:9/api", "district").targetId;
    conflict.id = id;
    conflict.project = "Ed-Fi";
    conflict.resource = resource;
    conflict.base = SyncBase{"8f0c", "5", 0, dumpJson(base)};
    conflict.theirsText = dumpJson(theirs);
    conflict.theirsEtag = "6";
    conflict.reason = "changed on both sides";
    state.recordConflict(conflict);
}

Json address(const std::string &type, const std::string &street, const std::string &city)
{
    return Json{{"addressTypeDescriptor", "uri://ed-fi.org/AddressTypeDescriptor#" + type},
                {"streetNumberName", street},
                {"city", city},
                {"stateAbbreviationDescriptor", "uri://ed-fi.org/StateAbbreviationDescriptor#TX"},
                {"postalCode", "78701"}};
}

// Where a widget is, in the coordinates of a scroll area's viewport.
QRect rectInViewport(const QWidget *widget, const QAbstractScrollArea *area)
{
    return QRect(widget->mapTo(area->viewport(), QPoint(0, 0)), widget->size());
}

} // namespace

class TestLaptopFit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("steward-tests"));
    }

    // Every window opens as on a first run (no saved geometry or splitter sizes).
    void init() { QSettings().clear(); }

    void conflictDialogOpensWithEveryColumnInSight();
    void conflictItemsReadByKeyAndShowWhatIsKept();

private:
    // A School in conflict: its name changed on both sides, the city of its physical address too, and
    // its mailing address replaced here (by a temporary one) while edited there; the session is
    // returned, the conflict's view in `view`.
    std::unique_ptr<AppSession> schoolInConflict(QTemporaryDir &dir, ConflictView &view);
};

std::unique_ptr<AppSession> TestLaptopFit::schoolInConflict(QTemporaryDir &dir, ConflictView &view)
{
    QString error;
    std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("conflict.db"), {}, &error);
    if (!session)
        qFatal("%s", qPrintable(error));
    post(*session, "/ed-fi/educationOrganizationCategoryDescriptors",
         {{"namespace", "uri://ed-fi.org/EducationOrganizationCategoryDescriptor"}, {"codeValue", "School"},
          {"shortDescription", "School"}});
    post(*session, "/ed-fi/gradeLevelDescriptors",
         {{"namespace", "uri://ed-fi.org/GradeLevelDescriptor"}, {"codeValue", "Ninth grade"}, {"shortDescription", "9"}});
    for (const char *type : {"Physical", "Mailing", "Temporary"})
        post(*session, "/ed-fi/addressTypeDescriptors",
             {{"namespace", "uri://ed-fi.org/AddressTypeDescriptor"}, {"codeValue", type}, {"shortDescription", type}});
    post(*session, "/ed-fi/stateAbbreviationDescriptors",
         {{"namespace", "uri://ed-fi.org/StateAbbreviationDescriptor"}, {"codeValue", "TX"}, {"shortDescription", "TX"}});
    Json base = test::Fixture::school(255901, "Grand Bend High School");
    base["addresses"] = Json::array({address("Physical", "1200 Grand Bend Boulevard North, Building C", "Austin"),
                                     address("Mailing", "Post Office Box 4410, Attention: Registrar", "Austin")});
    Json mine = base;
    mine["nameOfInstitution"] = "Grand Bend Early College High School";
    mine["addresses"][0]["city"] = "Round Rock";
    mine["addresses"][1] = address("Temporary", "Portable Building 7, 1200 Grand Bend Boulevard", "Austin");
    Json theirs = base;
    theirs["nameOfInstitution"] = "Grand Bend High School and Career Academy";
    theirs["addresses"][0]["city"] = "Lakeside Village";
    theirs["addresses"][1]["streetNumberName"] = "Post Office Box 4411, Attention: Registrar's Office";
    post(*session, "/ed-fi/schools", mine);
    const std::string id = idOf(*session, "/ed-fi/schools?schoolId=255901");
    recordSyncConflict(*session, id, "School", base, theirs);
    const std::vector<ConflictView> views = listConflicts(session->engine());
    if (views.size() != 1)
        qFatal("expected one conflict, found %zu", views.size());
    view = views[0];
    return session;
}

// At the size it opens with, on either laptop screen: inside the screen, and every column of its
// table (the Keep column above all) inside the table's viewport, without a horizontal scroll.
void TestLaptopFit::conflictDialogOpensWithEveryColumnInSight()
{
    REQUIRE_LAPTOP_SCREENS(screens);
    QTemporaryDir dir;
    ConflictView view;
    std::unique_ptr<AppSession> session = schoolInConflict(dir, view);
    QCOMPARE(view.fields.size(), std::size_t(3));
    for (QScreen *screen : screens) {
        // Over a window that fills the screen, as the app's main window does.
        QWidget host;
        host.setScreen(screen);
        host.setGeometry(screen->availableGeometry());
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        ConflictDialog dialog(*session, view, &host);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const QString where = sizeName(screen);
        saveScreenshot(&dialog, QStringLiteral("conflict-dialog-%1.png").arg(where));
        QVERIFY2(screen->availableGeometry().contains(dialog.frameGeometry()),
                 qPrintable(QStringLiteral("%1: dialog's frame at %2,%3 %4x%5, inside at %6,%7 %8x%9").arg(where)
                                .arg(dialog.frameGeometry().x()).arg(dialog.frameGeometry().y())
                                .arg(dialog.frameGeometry().width()).arg(dialog.frameGeometry().height())
                                .arg(dialog.geometry().x()).arg(dialog.geometry().y())
                                .arg(dialog.geometry().width()).arg(dialog.geometry().height())));
        QTableWidget *fields = dialog.fields();
        const QRect viewport = fields->viewport()->rect();
        for (int column = 0; column < fields->columnCount(); ++column) {
            const QRect section(fields->horizontalHeader()->sectionViewportPosition(column), 0,
                                fields->horizontalHeader()->sectionSize(column), viewport.height());
            QVERIFY2(viewport.contains(section),
                     qPrintable(QStringLiteral("%1: column %2 (%3) at %4..%5 of a viewport %6 wide")
                                    .arg(where).arg(column)
                                    .arg(fields->horizontalHeaderItem(column)->text())
                                    .arg(section.left()).arg(section.right()).arg(viewport.width())));
        }
        QCOMPARE(fields->horizontalScrollBar()->maximum(), 0);
        for (int row = 0; row < fields->rowCount(); ++row) {
            auto *keep = fields->cellWidget(row, 4);
            QVERIFY(keep != nullptr);
            QVERIFY2(viewport.contains(rectInViewport(keep, fields)), qPrintable(where));
        }
    }
}

// A collection item reads by its key, and the Value column shows what the row's decision keeps.
void TestLaptopFit::conflictItemsReadByKeyAndShowWhatIsKept()
{
    QTemporaryDir dir;
    ConflictView view;
    std::unique_ptr<AppSession> session = schoolInConflict(dir, view);
    ConflictDialog dialog(*session, view);
    QTableWidget *fields = dialog.fields();
    QStringList labels;
    for (int row = 0; row < fields->rowCount(); ++row)
        labels << fields->item(row, 0)->text();
    const int city = static_cast<int>(labels.indexOf(QStringLiteral("Address: Physical › City")));
    const int mailing = static_cast<int>(labels.indexOf(QStringLiteral("Address: Mailing")));
    const int name = static_cast<int>(labels.indexOf(QStringLiteral("Name of institution")));
    QVERIFY2(city >= 0 && mailing >= 0 && name >= 0, qPrintable(labels.join(QStringLiteral("; "))));
    // The heading names them so too.
    QVERIFY(dialog.findChild<QLabel *>() != nullptr);
    QCOMPARE(conflictSummary(view, session->resourceByName("Ed-Fi", "School")),
             QStringLiteral("both changed ") + labels.join(QStringLiteral(", ")));

    // A single value: the kept value in its line, read-only unless it is one's own.
    auto *cityValue = qobject_cast<QLineEdit *>(fields->cellWidget(city, 5));
    QVERIFY(cityValue);
    QCOMPARE(cityValue->text(), QStringLiteral("Round Rock"));
    dialog.decide(city, ConflictDialog::Decision::Theirs);
    QCOMPARE(cityValue->text(), QStringLiteral("Lakeside Village"));
    dialog.decide(city, ConflictDialog::Decision::Base);
    QCOMPARE(cityValue->text(), QStringLiteral("Austin"));
    QVERIFY(cityValue->isReadOnly());

    // An item: its fields as the decision keeps them.
    auto *kept = qobject_cast<QLabel *>(fields->cellWidget(mailing, 5));
    QVERIFY(kept);
    auto keptText = [kept] { return QTextDocumentFragment::fromHtml(kept->text()).toPlainText(); };
    QVERIFY2(keptText().contains(QStringLiteral("Address type: Temporary")), qPrintable(keptText()));
    dialog.decide(mailing, ConflictDialog::Decision::Theirs);
    QVERIFY2(keptText().contains(QStringLiteral("Post Office Box 4411")), qPrintable(keptText()));
    QVERIFY(!keptText().contains(QStringLiteral("Temporary")));
    dialog.decide(mailing, ConflictDialog::Decision::Both);
    QVERIFY(keptText().contains(QStringLiteral("Temporary")) && keptText().contains(QStringLiteral("4411")));
    dialog.decide(mailing, ConflictDialog::Decision::Base);
    QVERIFY2(keptText().contains(QStringLiteral("Post Office Box 4410")), qPrintable(keptText()));

    // What the preview showed is what is stored.
    dialog.decide(name, ConflictDialog::Decision::Mine);
    QVERIFY2(dialog.apply(), qPrintable(dialog.error()));
    const Json stored =
        session->request("GET", "/ed-fi/schools/" + idOf(*session, "/ed-fi/schools?schoolId=255901")).body;
    QCOMPARE(stored["addresses"].size(), std::size_t(2));
    QCOMPARE(stored["addresses"][0]["city"].get<std::string>(), std::string("Austin"));
    QCOMPARE(stored["addresses"][1]["streetNumberName"].get<std::string>(),
             std::string("Post Office Box 4410, Attention: Registrar"));
}

QTEST_MAIN(TestLaptopFit)
#include "tst_laptopfit.moc"
