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
#include <QStyleOptionComboBox>
#include <QStyleOptionFrame>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTextDocumentFragment>
#include <QToolButton>
#include <QTreeView>
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

#define REQUIRE_LAPTOP_SCREENS(screens)                                                                      \
    const QList<QScreen *> screens = laptopScreens();                                                        \
    if (screens.size() != 2)                                                                                 \
    QSKIP("needs the screens of tests/offscreen-laptops.json "                                               \
          "(QT_QPA_PLATFORM=offscreen:configfile=tests/offscreen-laptops.json), as ctest sets")

// What a sync leaves behind when both sides changed a document: a conflict with http://127.0.0.1:9/api,
// the base and the target's copy as given (the local document is what is stored).
void recordSyncConflict(AppSession &session, const std::string &id, const std::string &resource,
                        const Json &base, const Json &theirs)
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

// The text a view shows of an item, elided as its delegate elides it into the item's width.
QString visibleText(const QTreeWidget *tree, const QTreeWidgetItem *item, int column)
{
    const QRect cell = tree->visualItemRect(item);
    const int left = column == 0 ? cell.left() : tree->header()->sectionViewportPosition(column);
    const int right = tree->header()->sectionViewportPosition(column) + tree->header()->sectionSize(column);
    const int margin = tree->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, tree) + 1;
    return tree->fontMetrics().elidedText(item->text(column), tree->textElideMode(),
                                          right - left - 2 * margin);
}

// The document of a collection whose value at `field` (a member of an array's items) is longest.
Json longestBy(AppSession &session, const std::string &collection, const std::string &array,
               const std::string &field)
{
    Json longest;
    std::size_t length = 0;
    for (const Json &document : session.request("GET", collection + "?limit=500").body)
        for (const Json &item : document.value(array, Json::array()))
            if (item.contains(field) && item[field].dump().size() > length) {
                length = item[field].dump().size();
                longest = document;
            }
    return longest;
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
    void referencedByKeysShowTheirStartAndEnd();
    void everyResourceTreeItemHasItsFullNameOnHover();
    void formHasNoHorizontalScrollOnALaptop_data();
    void formHasNoHorizontalScrollOnALaptop();
    void emptyResourceColumnsFitTheirTitles();

private:
    // A School in conflict: its name changed on both sides, the city of its physical address too, and
    // its mailing address replaced here (by a temporary one) while edited there; the session is
    // returned, the conflict's view in `view`.
    std::unique_ptr<AppSession> schoolInConflict(QTemporaryDir &dir, ConflictView &view);
    // Checks the form of the editor of a maximized main window on each laptop screen, for a document.
    // `readWhole`: the input whose text must show whole (and be in the picture).
    void checkFormFits(MainWindow &window, const QString &id, const QString &readWhole,
                       const QString &picture);
};

std::unique_ptr<AppSession> TestLaptopFit::schoolInConflict(QTemporaryDir &dir, ConflictView &view)
{
    QString error;
    std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("conflict.db"), {}, &error);
    if (!session)
        qFatal("%s", qPrintable(error));
    post(*session, "/ed-fi/educationOrganizationCategoryDescriptors",
         {{"namespace", "uri://ed-fi.org/EducationOrganizationCategoryDescriptor"},
          {"codeValue", "School"},
          {"shortDescription", "School"}});
    post(*session, "/ed-fi/gradeLevelDescriptors",
         {{"namespace", "uri://ed-fi.org/GradeLevelDescriptor"},
          {"codeValue", "Ninth grade"},
          {"shortDescription", "9"}});
    for (const char *type : {"Physical", "Mailing", "Temporary"})
        post(*session, "/ed-fi/addressTypeDescriptors",
             {{"namespace", "uri://ed-fi.org/AddressTypeDescriptor"},
              {"codeValue", type},
              {"shortDescription", type}});
    post(*session, "/ed-fi/stateAbbreviationDescriptors",
         {{"namespace", "uri://ed-fi.org/StateAbbreviationDescriptor"},
          {"codeValue", "TX"},
          {"shortDescription", "TX"}});
    Json base = test::Fixture::school(255901, "Grand Bend High School");
    base["addresses"] =
        Json::array({address("Physical", "1200 Grand Bend Boulevard North, Building C", "Austin"),
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
                 qPrintable(QStringLiteral("%1: dialog's frame at %2,%3 %4x%5, inside at %6,%7 %8x%9")
                                .arg(where)
                                .arg(dialog.frameGeometry().x())
                                .arg(dialog.frameGeometry().y())
                                .arg(dialog.frameGeometry().width())
                                .arg(dialog.frameGeometry().height())
                                .arg(dialog.geometry().x())
                                .arg(dialog.geometry().y())
                                .arg(dialog.geometry().width())
                                .arg(dialog.geometry().height())));
        QTableWidget *fields = dialog.fields();
        const QRect viewport = fields->viewport()->rect();
        for (int column = 0; column < fields->columnCount(); ++column) {
            const QRect section(fields->horizontalHeader()->sectionViewportPosition(column), 0,
                                fields->horizontalHeader()->sectionSize(column), viewport.height());
            QVERIFY2(viewport.contains(section),
                     qPrintable(QStringLiteral("%1: column %2 (%3) at %4..%5 of a viewport %6 wide")
                                    .arg(where)
                                    .arg(column)
                                    .arg(fields->horizontalHeaderItem(column)->text())
                                    .arg(section.left())
                                    .arg(section.right())
                                    .arg(viewport.width())));
        }
        QCOMPARE(fields->horizontalScrollBar()->maximum(), 0);
        // Text that a narrowed column wraps has the lines it needs (not cut to "Address: Physical › …").
        const int margin = fields->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, fields) + 1;
        for (int row = 0; row < fields->rowCount(); ++row)
            for (int column = 0; column < 4; ++column) {
                const QString text = fields->item(row, column)->text();
                const QRect needed = fields->fontMetrics().boundingRect(
                    QRect(0, 0, fields->columnWidth(column) - 2 * margin, QWIDGETSIZE_MAX), Qt::TextWordWrap, text);
                QVERIFY2(needed.height() <= fields->rowHeight(row),
                         qPrintable(QStringLiteral("%1: \"%2\" needs %3 pixels of a row %4 high")
                                        .arg(where, text)
                                        .arg(needed.height())
                                        .arg(fields->rowHeight(row))));
            }
        for (int row = 0; row < fields->rowCount(); ++row) {
            auto *keep = qobject_cast<QComboBox *>(fields->cellWidget(row, 4));
            QVERIFY(keep != nullptr);
            QVERIFY2(viewport.contains(rectInViewport(keep, fields)), qPrintable(where));
            // Each choice reads whole in it.
            QStyleOptionComboBox option;
            option.initFrom(keep);
            const QRect text = keep->style()->subControlRect(QStyle::CC_ComboBox, &option,
                                                             QStyle::SC_ComboBoxEditField, keep);
            for (int choice = 0; choice < keep->count(); ++choice)
                QVERIFY2(keep->fontMetrics().horizontalAdvance(keep->itemText(choice)) <= text.width(),
                         qPrintable(QStringLiteral("%1: \"%2\" in %3 pixels")
                                        .arg(where, keep->itemText(choice))
                                        .arg(text.width())));
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
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
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
    // The row grows to show both.
    QVERIFY2(fields->rowHeight(mailing) >= kept->heightForWidth(fields->columnWidth(5)),
             qPrintable(QStringLiteral("a row %1 pixels high for %2")
                            .arg(fields->rowHeight(mailing))
                            .arg(kept->heightForWidth(fields->columnWidth(5)))));
    // And the dialog with it, while its screen has room: every row still in sight.
    const int lastRow = fields->rowCount() - 1;
    QTRY_VERIFY2(fields->rowViewportPosition(lastRow) + fields->rowHeight(lastRow) <=
                     fields->viewport()->height(),
                 qPrintable(QStringLiteral("the last row ends at %1 of a viewport %2 high")
                                .arg(fields->rowViewportPosition(lastRow) + fields->rowHeight(lastRow))
                                .arg(fields->viewport()->height())));
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

// At 1280x800, a StudentSchoolAssociation that references a Student shows under "Referenced by" with
// the start of its key (the entry date) and its end (the student's id) in sight; the whole key on hover.
void TestLaptopFit::referencedByKeysShowTheirStartAndEnd()
{
    REQUIRE_LAPTOP_SCREENS(screens);
    QTemporaryDir dir;
    QString error;
    std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("refs.db"), {}, &error);
    QVERIFY2(session, qPrintable(error));
    for (const Request &request : sampleDistrictRequests(2026, 4))
        QVERIFY(session->engine().handle(request).status < 300);
    AppSession *raw = session.get();
    const Json association = raw->request("GET", "/ed-fi/studentSchoolAssociations?limit=1").body[0];
    const std::string studentUniqueId = association["studentReference"]["studentUniqueId"].get<std::string>();
    const std::string entryDate = association["entryDate"].get<std::string>();
    const std::string studentId = idOf(*raw, "/ed-fi/students?studentUniqueId=" + studentUniqueId);
    MainWindow window(std::move(session));
    window.setScreen(screens[0]);
    window.showMaximized();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_COMPARE(window.frameGeometry().width(), screens[0]->availableGeometry().width());
    QVERIFY(window.navigateTo(QString::fromStdString(studentId)));
    auto *tabs = window.editor()->findChild<QTabWidget *>(QStringLiteral("tabs"));
    QVERIFY(tabs);
    tabs->setCurrentWidget(window.referencesPane());
    QTreeWidget *incoming = window.referencesPane()->incomingView();
    QTRY_VERIFY(incoming->isVisible() && incoming->topLevelItemCount() > 0);
    const QTreeWidgetItem *group = nullptr;
    for (int i = 0; i < incoming->topLevelItemCount(); ++i)
        if (incoming->topLevelItem(i)->text(0).startsWith(QStringLiteral("StudentSchoolAssociation")))
            group = incoming->topLevelItem(i);
    QVERIFY(group != nullptr && group->childCount() > 0);
    // The resource's name is not cut either.
    QCOMPARE(visibleText(incoming, group, 0), group->text(0));
    const QTreeWidgetItem *key = group->child(0);
    const QString shown = visibleText(incoming, key, 0);
    QVERIFY2(shown.contains(QString::fromStdString(entryDate)) &&
                 shown.contains(QString::fromStdString(studentUniqueId)),
             qPrintable(QStringLiteral("shows \"%1\" of \"%2\" in %3 pixels")
                            .arg(shown, key->text(0))
                            .arg(incoming->header()->sectionSize(0))));
    QCOMPARE(key->toolTip(0), key->text(0));
    // A key longer than the column (a section association's, with its session's name) is cut in its
    // middle: the date it starts with and the student's id it ends with still show.
    for (int i = 0; i < incoming->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *section = incoming->topLevelItem(i);
        if (!section->text(0).startsWith(QStringLiteral("StudentSectionAssociation")))
            continue;
        const QTreeWidgetItem *longKey = section->child(0);
        const QString cut = visibleText(incoming, longKey, 0);
        QVERIFY2(cut != longKey->text(0), "the test needs a key longer than its column");
        static const QRegularExpression startsWithDate(QStringLiteral("^\\d{4}-\\d{2}-\\d{2}"));
        QVERIFY2(startsWithDate.match(cut).hasMatch() &&
                     cut.endsWith(QString::fromStdString(studentUniqueId)),
                 qPrintable(QStringLiteral("shows \"%1\" of \"%2\"").arg(cut, longKey->text(0))));
        QCOMPARE(longKey->toolTip(0), longKey->text(0));
    }
    saveScreenshot(&window, QStringLiteral("references-%1.png").arg(sizeName(screens[0])));
    // What this document points at: the key has more room than the resource's name, and both say
    // their whole text on hover.
    QTreeWidget *outgoing = window.referencesPane()->outgoingView();
    QVERIFY(outgoing->topLevelItemCount() > 0);
    QVERIFY2(outgoing->columnWidth(2) > outgoing->columnWidth(1),
             qPrintable(QStringLiteral("key %1, resource %2 pixels")
                            .arg(outgoing->columnWidth(2))
                            .arg(outgoing->columnWidth(1))));
    for (int i = 0; i < outgoing->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *item = outgoing->topLevelItem(i);
        QCOMPARE(item->toolTip(1), item->text(1));
        QVERIFY(!item->toolTip(2).isEmpty());
    }
}

// Every item of the resources tree, group or resource, says its full name (and count) on hover, for
// the starter model and DS 5.1's, whose names are longer.
void TestLaptopFit::everyResourceTreeItemHasItsFullNameOnHover()
{
    std::vector<std::unique_ptr<Model>> models;
    models.push_back(Model::loadStarter());
    const QString shared = test::sharedEdfiDir();
    if (!shared.isEmpty())
        models.push_back(Model::loadFiles({(shared + "/ds-5.1/ApiSchema.json").toStdString(),
                                           (shared + "/ds-5.1/ApiSchema-TPDM.json").toStdString()}));
    else
        qWarning("../shared/edfi is not present: the starter model only");
    for (const std::unique_ptr<Model> &model : models) {
        ResourceTreeModel tree(*model);
        QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<ResourceCount> counts;
        for (const ResourceSchema *resource : model->resources())
            counts.push_back({resource->projectName(), resource->resourceName, 1234, 0});
        tree.setCounts(counts);
        int items = 0;
        for (int g = 0; g < tree.rowCount(); ++g) {
            const QModelIndex group = tree.index(g, 0);
            QList<QModelIndex> indexes{group};
            for (int row = 0; row < tree.rowCount(group); ++row)
                indexes << tree.index(row, 0, group);
            for (const QModelIndex &index : indexes) {
                // The name is what comes before the count: "Education organizations (3)", "School  ·  1,234".
                const QString shown = index.data().toString();
                const QString name =
                    shown.section(QStringLiteral("  ·  "), 0, 0).section(QStringLiteral(" ("), 0, 0);
                const QString tip = index.data(Qt::ToolTipRole).toString();
                QVERIFY2(tip.startsWith(name), qPrintable(shown + " -> " + tip));
                ++items;
            }
            QVERIFY2(group.data(Qt::ToolTipRole).toString().contains(QString::number(tree.rowCount(group))),
                     qPrintable(group.data(Qt::ToolTipRole).toString()));
        }
        QCOMPARE(items, static_cast<int>(model->resources().size()) + tree.rowCount());
    }
}

void TestLaptopFit::formHasNoHorizontalScrollOnALaptop_data()
{
    QTest::addColumn<bool>("ds51");
    QTest::newRow("starter model") << false;
    QTest::newRow("DS 5.1") << true;
}

// The main window maximized on either laptop screen at its default splitter sizes: the editor's form
// is as wide as its pane (no horizontal scroll, every input and button inside the pane) for the Staff
// with the longest e-mail and the association with a calendar reference.
void TestLaptopFit::formHasNoHorizontalScrollOnALaptop()
{
    QFETCH(bool, ds51);
    REQUIRE_LAPTOP_SCREENS(screens);
    QStringList schemaFiles;
    if (ds51) {
        const QString shared = test::sharedEdfiDir();
        if (shared.isEmpty())
            QSKIP("../shared/edfi (DS 5.1's ApiSchema) is not present");
        schemaFiles = {shared + "/ds-5.1/ApiSchema.json", shared + "/ds-5.1/ApiSchema-TPDM.json"};
    }
    QTemporaryDir dir;
    QString error;
    std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("form.db"), schemaFiles, &error);
    QVERIFY2(session, qPrintable(error));
    for (const Request &request : sampleDistrictRequests(2026, 4))
        QVERIFY(session->engine().handle(request).status < 300);
    AppSession *raw = session.get();
    const Json staff = longestBy(*raw, "/ed-fi/staffs", "electronicMails", "electronicMailAddress");
    QVERIFY2(!staff.is_null(), "no Staff with an e-mail");
    QString staffEmailPath;
    for (std::size_t i = 0; i < staff["electronicMails"].size(); ++i)
        if (staffEmailPath.isEmpty() ||
            staff["electronicMails"][i]["electronicMailAddress"].get<std::string>().size() >
                staff["electronicMails"][0]["electronicMailAddress"].get<std::string>().size())
            staffEmailPath = QStringLiteral("$.electronicMails[%1].electronicMailAddress").arg(i);
    Json association;
    for (const Json &document : raw->request("GET", "/ed-fi/studentSchoolAssociations?limit=500").body)
        if (document.contains("calendarReference"))
            association = document;
    QVERIFY2(!association.is_null(), "no StudentSchoolAssociation with a calendar");
    session.reset();
    for (QScreen *screen : screens) {
        // A window of its own on each screen, over the same database, laid out as a first run lays it out.
        QSettings().clear();
        session = AppSession::open(dir.filePath("form.db"), schemaFiles, &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow window(std::move(session));
        window.setScreen(screen);
        window.setGeometry(screen->availableGeometry());
        window.showMaximized();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_COMPARE(window.frameGeometry().width(), screen->availableGeometry().width());
        const QString where = QStringLiteral("%1-%2").arg(sizeName(screen), ds51 ? "ds51" : "starter");
        checkFormFits(window, QString::fromStdString(staff["id"].get<std::string>()), staffEmailPath,
                      "staff-" + where);
        if (QTest::currentTestFailed())
            return;
        checkFormFits(window, QString::fromStdString(association["id"].get<std::string>()),
                      QStringLiteral("$.calendarReference"), "ssa-" + where);
        if (QTest::currentTestFailed())
            return;
    }
}

void TestLaptopFit::checkFormFits(MainWindow &window, const QString &id, const QString &readWhole,
                                  const QString &picture)
{
    QVERIFY(window.navigateTo(id));
    auto *scroll = window.editor()->findChild<QScrollArea *>(QStringLiteral("formScroll"));
    QVERIFY(scroll);
    // The form is built for the document's resource, then shown.
    auto shownInputs = [scroll] {
        int shown = 0;
        for (const QLineEdit *edit : scroll->widget()->findChildren<QLineEdit *>())
            shown += edit->isVisible() ? 1 : 0;
        return shown;
    };
    QTRY_VERIFY(scroll->isVisible() && shownInputs() > 3);
    // Layouts settle in posted events: the form is laid out once it is as tall as its rows need.
    QWidget *form = scroll->widget();
    QTRY_VERIFY(form->height() >= form->minimumSizeHint().height() && form->minimumSizeHint().height() > 300);
    QVERIFY2(form->minimumSizeHint().width() <= scroll->viewport()->width(),
             qPrintable(QStringLiteral("%1: the form needs %2 pixels of a viewport %3 wide")
                            .arg(picture)
                            .arg(form->minimumSizeHint().width())
                            .arg(scroll->viewport()->width())));
    QTRY_COMPARE(scroll->horizontalScrollBar()->maximum(), 0);
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    auto *whole = form->findChild<QLineEdit *>(readWhole);
    QVERIFY2(whole != nullptr, qPrintable(readWhole));
    scroll->ensureWidgetVisible(whole);
    saveScreenshot(&window, picture + QStringLiteral(".png"));
    QVERIFY(!whole->text().isEmpty());
    QStyleOptionFrame option;
    option.initFrom(whole);
    option.rect = whole->contentsRect();
    option.lineWidth = whole->style()->pixelMetric(QStyle::PM_DefaultFrameWidth, &option, whole);
    const QRect text = whole->style()
                           ->subElementRect(QStyle::SE_LineEditContents, &option, whole)
                           .marginsRemoved(whole->textMargins());
    QVERIFY2(
        whole->fontMetrics().horizontalAdvance(whole->text()) <= text.width() - 4, // QLineEdit's own margin
        qPrintable(QStringLiteral("%1: \"%2\" in %3 pixels").arg(picture, whole->text()).arg(text.width())));
    const QRect viewport = scroll->viewport()->rect();
    int checked = 0;
    for (QWidget *widget : scroll->widget()->findChildren<QWidget *>()) {
        const bool control = qobject_cast<QLineEdit *>(widget) || qobject_cast<QComboBox *>(widget) ||
                             qobject_cast<QAbstractButton *>(widget);
        if (!control || !widget->isVisibleTo(scroll->widget()) ||
            qobject_cast<QComboBox *>(widget->parentWidget()))
            continue;
        const QRect at = rectInViewport(widget, scroll);
        QVERIFY2(at.left() >= viewport.left() && at.right() <= viewport.right(),
                 qPrintable(QStringLiteral("%1: %2 at %3..%4 in a viewport %5 wide")
                                .arg(picture, widget->objectName())
                                .arg(at.left())
                                .arg(at.right())
                                .arg(viewport.width())));
        ++checked;
    }
    QVERIFY2(checked > 5, qPrintable(QStringLiteral("%1: %2 controls").arg(picture).arg(checked)));
}

// A resource without documents (every one, on a first run) shows its columns' titles whole.
void TestLaptopFit::emptyResourceColumnsFitTheirTitles()
{
    REQUIRE_LAPTOP_SCREENS(screens);
    QTemporaryDir dir;
    QString error;
    std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("empty.db"), {}, &error);
    QVERIFY2(session, qPrintable(error));
    const ResourceSchema *school = session->resourceByName("Ed-Fi", "School");
    MainWindow window(std::move(session));
    window.setScreen(screens[0]);
    window.showMaximized();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *table = window.findChild<QTableView *>(QStringLiteral("documentTable"));
    QVERIFY(table);
    QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(window.selectResource(school));
    QHeaderView *header = table->horizontalHeader();
    QTRY_VERIFY(table->model()->columnCount() > 2);
    const int titled = header->sectionSizeHint(1);
    QVERIFY2(titled > header->defaultSectionSize(),
             "the test needs a title wider than a column's default width");
    for (int column = 0; column < table->model()->columnCount(); ++column)
        QTRY_VERIFY2(header->sectionSize(column) >= header->sectionSizeHint(column),
                     qPrintable(QStringLiteral("%1: %2 of %3 pixels")
                                    .arg(table->model()->headerData(column, Qt::Horizontal).toString())
                                    .arg(header->sectionSize(column))
                                    .arg(header->sectionSizeHint(column))));
    QCOMPARE(table->model()->rowCount(), 0);
}

QTEST_MAIN(TestLaptopFit)
#include "tst_laptopfit.moc"
