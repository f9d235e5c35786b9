// The desktop app end to end through real widgets, offscreen.
#include "AppSession.h"
#include "BlockedDeleteDialog.h"
#include "ConflictDialog.h"
#include "ResultsGrid.h"
#include "ResultsGridModel.h"
#include "DocumentEditor.h"
#include "DocumentTableModel.h"
#include "FileMode.h"
#include "FindDialog.h"
#include "MainWindow.h"
#include "Progress.h"
#include "Prompt.h"
#include "ReferencesPane.h"
#include "ResourceTreeModel.h"
#include "SampleDistrict.h"
#include "Sync.h"
#include "SyncDialog.h"
#include "SpreadsheetImportDialog.h"
#include "Importer.h"
#include "TestSupport.h"
#include "CliSupport.h"

#include <QAbstractItemModelTester>
#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QDialogButtonBox>
#include <QSpinBox>
#include <QAccessible>
#include <QMenu>
#include <QMenuBar>
#include <QTabBar>
#include <QComboBox>
#include <QLabel>
#include <QTabWidget>
#include <QStyleOptionComboBox>
#include <QDoubleSpinBox>
#include <QCompleter>
#include <QLineEdit>
#include <QListWidget>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>
#include <QTableWidget>
#include <QLabel>
#include <QLocale>

using namespace steward;

namespace {

void post(AppSession &session, const std::string &path, const Json &body)
{
    const Response r = session.request("POST", path, body);
    if (r.status != 201 && r.status != 200)
        qFatal("seeding %s failed: %s", path.c_str(), r.body.dump().c_str());
}

void seedDescriptors(AppSession &session)
{
    post(session, "/ed-fi/gradeLevelDescriptors",
         {{"namespace", "uri://ed-fi.org/GradeLevelDescriptor"}, {"codeValue", "Ninth grade"}, {"shortDescription", "9"}});
    post(session, "/ed-fi/educationOrganizationCategoryDescriptors",
         {{"namespace", "uri://ed-fi.org/EducationOrganizationCategoryDescriptor"},
          {"codeValue", "School"},
          {"shortDescription", "School"}});
    post(session, "/ed-fi/courseIdentificationSystemDescriptors",
         {{"namespace", "uri://ed-fi.org/CourseIdentificationSystemDescriptor"},
          {"codeValue", "LEA course code"},
          {"shortDescription", "LEA course code"}});
}

std::string idOf(AppSession &session, const std::string &collectionQuery)
{
    const Response r = session.request("GET", collectionQuery);
    return r.body.empty() ? std::string() : r.body[0]["id"].get<std::string>();
}

// Runs `check` against the next modal dialog once it is up (it is shown by exec() in the code under test).
// The controls under root a steward can reach whose accessible name (what a screen reader says)
// is empty, by class, object name and parent; counts the controls it looked at.
QStringList namelessControls(QWidget *root, int &controls)
{
    QStringList nameless;
    for (QWidget *widget : root->findChildren<QWidget *>()) {
        const bool control = qobject_cast<QAbstractButton *>(widget) || qobject_cast<QLineEdit *>(widget)
                             || qobject_cast<QComboBox *>(widget) || qobject_cast<QAbstractItemView *>(widget)
                             || qobject_cast<QAbstractSpinBox *>(widget) || qobject_cast<QTabBar *>(widget);
        if (!control || !widget->isVisibleTo(root) || widget->focusPolicy() == Qt::NoFocus)
            continue;
        // Parts of a compound control (a combo box's line edit) take its name.
        if (qobject_cast<QComboBox *>(widget->parentWidget()) || qobject_cast<QAbstractSpinBox *>(widget->parentWidget()))
            continue;
        ++controls;
        QAccessibleInterface *accessible = QAccessible::queryAccessibleInterface(widget);
        const QString name = accessible ? accessible->text(QAccessible::Name).trimmed() : QString();
        if (name.isEmpty())
            nameless << QStringLiteral("%1 '%2' in %3")
                            .arg(QString::fromLatin1(widget->metaObject()->className()), widget->objectName(),
                                 widget->parentWidget() ? QString::fromLatin1(widget->parentWidget()->metaObject()->className())
                                                        : QString());
    }
    return nameless;
}

void whenModalDialogOpens(const std::function<void(QWidget *)> &check)
{
    QTimer::singleShot(0, [check] {
        QTRY_VERIFY_WITH_TIMEOUT(QApplication::activeModalWidget() != nullptr, 5000);
        check(QApplication::activeModalWidget());
    });
}

// With STEWARD_SCREENSHOT_DIR set, a picture of the widget as the steward sees it, to look at.
void saveScreenshot(QWidget *widget, const QString &name)
{
    const QString folder = qEnvironmentVariable("STEWARD_SCREENSHOT_DIR");
    if (!folder.isEmpty())
        widget->grab().save(QDir(folder).filePath(name));
}

// The text at a concrete JSON path ("$.gradeLevels[0].gradeLevelDescriptor") of a body, through the JSON
// pointer it names ("/gradeLevels/0/gradeLevelDescriptor"); empty when absent.
std::string valueAtConcretePath(const Json &body, const std::string &path)
{
    std::string pointer;
    for (char c : path.substr(1))
        if (c == '.' || c == '[')
            pointer += '/';
        else if (c != ']')
            pointer += c;
    const Json::json_pointer at(pointer);
    return body.contains(at) && body[at].is_string() ? body[at].get<std::string>() : std::string();
}

// What a sync leaves behind when both sides changed a document: a conflict with http://127.0.0.1:9/api,
// the base and the target's copy as given (the local document is what is stored).
void recordSyncConflict(AppSession &session, const std::string &id, const std::string &resource, const Json &base,
                        const Json &theirs, const std::string &reason)
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
    conflict.reason = reason;
    state.recordConflict(conflict);
}

// The menu bar's action with this text ("&Undo last operation"), or null.
QAction *menuAction(QMainWindow &window, const char *text)
{
    for (QAction *action : window.menuBar()->findChildren<QAction *>())
        if (action->text() == QString::fromUtf8(text))
            return action;
    return nullptr;
}

template<typename T>
T *child(QWidget &parent, const char *name)
{
    T *found = parent.findChild<T *>(QString::fromLatin1(name));
    if (found == nullptr)
        qWarning("no %s named %s", T::staticMetaObject.className(), name);
    return found;
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("steward-tests"));
    }

    // The database records its model: opened with no schema files (renamed, too) it has DS 5.1;
    // files that would leave its documents out are asked about, and no keeps the model it has.
    void theDatabaseOpensWithTheModelItRecords()
    {
        const QString shared = test::sharedEdfiDir();
        if (shared.isEmpty())
            QSKIP("../shared/edfi is not present");
        QTemporaryDir dir;
        const QString made = dir.filePath("made.db");
        QString error;
        {
            std::unique_ptr<AppSession> session = AppSession::open(made, {shared + "/ds-5.1/ApiSchema.json"}, &error);
            QVERIFY2(session, qPrintable(error));
            post(*session, "/ed-fi/accommodationDescriptors",
                 {{"namespace", "uri://ed-fi.org/AccommodationDescriptor"}, {"codeValue", "Recorded"},
                  {"shortDescription", "Recorded"}});
        }
        const QString moved = dir.filePath("moved.db");
        QVERIFY(QFile::rename(made, moved));
        std::unique_ptr<AppSession> session = AppSession::open(moved, {}, &error);
        QVERIFY2(session, qPrintable(error));
        QCOMPARE(session->model().describe(), std::string("Ed-Fi 5.1.0"));
        QVERIFY(session->resourceByName("Ed-Fi", "AccommodationDescriptor") != nullptr);
        QVERIFY(session->engine().check().clean());

        MainWindow window(std::move(session));
        const QString minimal = shared + "/test-schemas/minimal.json";
        Prompt::setNextAnswer(QMessageBox::No);
        window.switchDatabase(moved, {minimal});
        QVERIFY2(Prompt::lastText().contains("Ed-Fi AccommodationDescriptor (1)"), qPrintable(Prompt::lastText()));
        QCOMPARE(window.session()->model().describe(), std::string("Ed-Fi 5.1.0"));
        window.switchDatabase(moved, {});
        QCOMPARE(window.session()->model().describe(), std::string("Ed-Fi 5.1.0"));

        Prompt::setNextAnswer(QMessageBox::Yes);
        window.switchDatabase(moved, {minimal});
        const std::string chosen = window.session()->model().describe();
        QVERIFY2(chosen.rfind("Ed-Fi", 0) != 0, chosen.c_str());
        window.switchDatabase(moved, {});
        QCOMPARE(window.session()->model().describe(), chosen);
    }

    // The schema files an earlier Steward kept in its settings per database are given once, so that
    // the database records them, and only while they all still exist.
    void schemaFilesAnEarlierStewardRememberedAreGivenOnce()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("earlier.db");
        const QString schema = dir.filePath("ApiSchema.json");
        QFile file(schema);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        const QString key = QStringLiteral("databases/")
                            + QFileInfo(path).absoluteFilePath().replace(QLatin1Char('/'), QLatin1Char('|'))
                            + QStringLiteral("/schemas");
        QSettings().setValue(key, QStringList{schema});
        QCOMPARE(MainWindow::takeRememberedSchemaFiles(path), QStringList{schema});
        QVERIFY(!QSettings().contains(key));
        QCOMPARE(MainWindow::takeRememberedSchemaFiles(path), QStringList());
        QSettings().setValue(key, QStringList{schema, dir.filePath("gone.json")});
        QCOMPARE(MainWindow::takeRememberedSchemaFiles(path), QStringList());
        QVERIFY(!QSettings().contains(key));
    }

    void resourceTreeModelProtocol()
    {
        auto model = Model::loadStarter();
        ResourceTreeModel tree(*model);
        QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(tree.rowCount(), 5);
        const ResourceSchema *school = model->findByName("Ed-Fi", "School");
        const QModelIndex index = tree.indexOf(school);
        QVERIFY(index.isValid());
        QCOMPARE(ResourceTreeModel::resourceAt(index), school);
        QVERIFY(tree.data(index.parent()).toString().startsWith("Education organizations"));
        tree.setCounts({{"Ed-Fi", "School", 12, 2}});
        QCOMPARE(tree.data(index, ResourceTreeModel::DocumentCountRole).toLongLong(), 12);
        QVERIFY(tree.data(index).toString().contains("draft"));
        int total = 0;
        for (int g = 0; g < tree.rowCount(); ++g)
            total += tree.rowCount(tree.index(g, 0));
        QCOMPARE(total, static_cast<int>(model->resources().size()));
    }

    void blockedDeleteListsReferrersAndLetsTheStewardFixThem()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("app.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        seedDescriptors(*session);
        post(*session, "/ed-fi/schools", test::Fixture::school(255901));
        post(*session, "/ed-fi/courses",
             {{"courseCode", "ALG-1"},
              {"courseTitle", "Algebra I"},
              {"numberOfParts", 1},
              {"identificationCodes", Json::array()},
              {"educationOrganizationReference", {{"educationOrganizationId", 255901}}}});
        const std::string schoolId = idOf(*session, "/ed-fi/schools");
        const std::string courseId = idOf(*session, "/ed-fi/courses");
        AppSession *raw = session.get();
        MainWindow window(std::move(session));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QAbstractItemModelTester tester(window.documentModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        QVERIFY(window.navigateTo(QString::fromStdString(schoolId)));
        QCOMPARE(window.editor()->documentId(), QString::fromStdString(schoolId));
        // The references pane lists the Course under "Referenced by".
        QTreeWidget *incoming = window.referencesPane()->incomingView();
        QCOMPARE(incoming->topLevelItemCount(), 1);
        QVERIFY(incoming->topLevelItem(0)->text(0).startsWith("Course"));

        bool dialogChecked = false;
        whenModalDialogOpens([&](QWidget *modal) {
            auto *dialog = qobject_cast<BlockedDeleteDialog *>(modal);
            QVERIFY(dialog);
            int controls = 0;
            const QStringList nameless = namelessControls(dialog, controls);
            QVERIFY2(nameless.isEmpty(), qPrintable("nameless in the dialog: " + nameless.join("; ")));
            QVERIFY2(dialog->message().contains("School 255901 &#x27;Grand Bend High School&#x27; cannot be deleted")
                         || dialog->message().contains("School 255901 'Grand Bend High School' cannot be deleted"),
                     qPrintable(dialog->message()));
            QVERIFY(dialog->message().contains("1 document"));
            QTreeWidget *list = dialog->blockersView();
            QCOMPARE(list->topLevelItemCount(), 1); // one group: Course by educationOrganizationReference
            QCOMPARE(list->topLevelItem(0)->text(0), QStringLiteral("Course"));
            QCOMPARE(list->topLevelItem(0)->text(1), QStringLiteral("1 document"));
            QCOMPARE(list->topLevelItem(0)->childCount(), 1);
            QTreeWidgetItem *course = list->topLevelItem(0)->child(0);
            QCOMPARE(course->text(1), QStringLiteral("ALG-1 / 255901"));
            QCOMPARE(course->text(2), QStringLiteral("educationOrganizationReference"));
            QVERIFY(dialog->listAsText().contains(QString::fromStdString(courseId)));
            list->setCurrentItem(list->topLevelItem(0));
            QVERIFY(!dialog->findChild<QPushButton *>(QStringLiteral("goToBlocker"))->isEnabled());
            list->setCurrentItem(course);
            auto *goTo = dialog->findChild<QPushButton *>(QStringLiteral("goToBlocker"));
            QVERIFY(goTo && goTo->isEnabled());
            QTest::mouseClick(goTo, Qt::LeftButton);
            dialogChecked = true;
        });
        window.deleteDocument();
        QVERIFY(dialogChecked);
        // Nothing was deleted, and the steward is now on the Course.
        QCOMPARE(raw->request("GET", "/ed-fi/schools/" + schoolId).status, 200);
        QCOMPARE(window.editor()->documentId(), QString::fromStdString(courseId));

        Prompt::setNextAnswer(QMessageBox::Yes);
        window.deleteDocument();
        QCOMPARE(raw->request("GET", "/ed-fi/courses/" + courseId).status, 404);

        // Back to the School through navigation history, then the delete goes through.
        window.goBack();
        QCOMPARE(window.editor()->documentId(), QString::fromStdString(schoolId));
        Prompt::setNextAnswer(QMessageBox::Yes);
        window.deleteDocument();
        QCOMPARE(raw->request("GET", "/ed-fi/schools/" + schoolId).status, 404);
    }

    // File > Import spreadsheet, through the dialog's widgets: the columns suggested from the
    // headers, a value map typed into the values table, the preview naming the bad row, the mapping
    // saved and loaded, then the import (the good rows stored, the bad one a draft).
    void spreadsheetMappingEditorThroughItsWidgets()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("sheet.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        post(*session, "/ed-fi/sexDescriptors",
             {{"namespace", "uri://ed-fi.org/SexDescriptor"}, {"codeValue", "Female"}, {"shortDescription", "Female"}});
        post(*session, "/ed-fi/sexDescriptors",
             {{"namespace", "uri://ed-fi.org/SexDescriptor"}, {"codeValue", "Male"}, {"shortDescription", "Male"}});
        QFile csv(dir.filePath("roster.csv"));
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write("Student ID;First name;LAST NAME;Birth date;Sex\n"
                  "900001;Ana;Nguyen;08/31/2010;F\n"
                  "900002;Ben;Obi;13/45/2010;Male\n"
                  "900003;Chi;Lee;01/02/2011;W\n");
        csv.close();
        AppSession *raw = session.get();
        MainWindow window(std::move(session));
        SpreadsheetImportDialog dialog(*raw, &window);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QSignalSpy previewed(&dialog, &SpreadsheetImportDialog::previewed);
        QVERIFY(dialog.openFile(dir.filePath("roster.csv")));
        QTableWidget *columns = dialog.columnsView();
        QCOMPARE(columns->rowCount(), 5);
        auto fieldOf = [columns](int row) {
            return qobject_cast<QComboBox *>(columns->cellWidget(row, 2))->currentData().toString();
        };
        QCOMPARE(fieldOf(0), QStringLiteral("studentUniqueId"));
        QCOMPARE(fieldOf(1), QStringLiteral("firstName"));
        QCOMPARE(fieldOf(2), QStringLiteral("lastSurname"));
        QCOMPARE(fieldOf(3), QStringLiteral("birthDate"));
        QCOMPARE(fieldOf(4), QStringLiteral("birthSexDescriptor"));
        QCOMPARE(qobject_cast<QComboBox *>(columns->cellWidget(3, 3))->currentText(), QStringLiteral("MM/DD/YYYY"));
        // The form's words beside the mapping's names.
        QCOMPARE(qobject_cast<QComboBox *>(columns->cellWidget(3, 2))->currentText(), QStringLiteral("Birth date · birthDate"));
        int controls = 0;
        const QStringList nameless = namelessControls(&dialog, controls);
        QVERIFY2(nameless.isEmpty(), qPrintable(nameless.join("; ")));

        // The Sex column's codes: F and Male were matched to stored values, W is typed in.
        columns->setCurrentCell(4, 0);
        QTableWidget *values = dialog.valuesView();
        QCOMPARE(values->rowCount(), 3);
        int w = -1;
        for (int r = 0; r < values->rowCount(); ++r)
            if (values->item(r, 0)->text() == QStringLiteral("W"))
                w = r;
        QVERIFY(w >= 0);
        QVERIFY(values->item(w, 1)->text().isEmpty());
        // Editing a value completes from the stored SexDescriptor values.
        values->setCurrentCell(w, 1);
        values->editItem(values->item(w, 1));
        auto *editor = qobject_cast<QLineEdit *>(QApplication::focusWidget());
        if (editor == nullptr)
            editor = values->findChild<QLineEdit *>();
        QVERIFY(editor != nullptr && editor->completer() != nullptr);
        QCOMPARE(editor->completer()->model()->rowCount(), 2);
        values->closePersistentEditor(values->item(w, 1));
        values->item(w, 1)->setText(QStringLiteral("uri://ed-fi.org/SexDescriptor#Female"));
        QVERIFY(dialog.mappingText().contains("\"W\": \"uri://ed-fi.org/SexDescriptor#Female\""));

        QTRY_VERIFY(dialog.importButton()->isEnabled());
        QTreeWidget *preview = dialog.previewView();
        QTRY_COMPARE(preview->topLevelItemCount(), 3);
        QCOMPARE(preview->topLevelItem(0)->text(2), QStringLiteral("new"));
        QVERIFY2(preview->topLevelItem(1)->text(2).contains("column 'Birth date' (birthDate): '13/45/2010' is not a date"),
                 qPrintable(preview->topLevelItem(1)->text(2)));
        QCOMPARE(preview->topLevelItem(2)->text(2), QStringLiteral("new"));
        saveScreenshot(&dialog, "spreadsheet-import.png");

        // Saved and loaded back, the mapping is the same file steward-cli reads.
        const QString saved = dir.filePath("map.json");
        QVERIFY(dialog.saveMapping(saved));
        QVERIFY(dialog.loadMapping(saved));
        QCOMPARE(fieldOf(4), QStringLiteral("birthSexDescriptor"));
        QVERIFY(dialog.mapping());

        steward::ImportOptions options;
        options.paths = {dialog.filePath().toStdString()};
        options.mapping = dialog.mapping();
        const steward::ImportReport report = steward::importFiles(raw->engine(), raw->model(), options);
        QCOMPARE(report.totals.created, 2);
        QCOMPARE(report.totals.drafts, 1);
        QCOMPARE(raw->request("GET", "/ed-fi/students?studentUniqueId=900003").body[0]["birthSexDescriptor"]
                     .get<std::string>(),
                 std::string("uri://ed-fi.org/SexDescriptor#Female"));
    }

    // A vendor's file names students by its own ids: the dialog says how many rows find their student,
    // holds the import back under the minimum, and saves the rows without one.
    void spreadsheetStudentIdsFromAnotherSystem()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("ids.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        for (const Request &request : sampleDistrictRequests(2026, 2))
            QVERIFY(session->engine().handle(request).status < 300);
        post(*session, "/ed-fi/studentIdentificationSystemDescriptors",
             {{"namespace", "uri://ed-fi.org/StudentIdentificationSystemDescriptor"},
              {"codeValue", "Local"},
              {"shortDescription", "Local"}});
        const Json enrollments = session->request("GET", "/ed-fi/studentSchoolAssociations?limit=2").body;
        QCOMPARE(enrollments.size(), std::size_t(2));
        std::string csvText = "Vendor ID,Campus,Entry Date,Grade\n";
        for (const Json &e : enrollments) {
            const std::string student = e["studentReference"]["studentUniqueId"].get<std::string>();
            const long long school = e["schoolReference"]["schoolId"].get<long long>();
            post(*session, "/ed-fi/studentEducationOrganizationAssociations",
                 {{"educationOrganizationReference", {{"educationOrganizationId", school}}},
                  {"studentReference", {{"studentUniqueId", student}}},
                  {"studentIdentificationCodes",
                   Json::array({{{"studentIdentificationSystemDescriptor",
                                  "uri://ed-fi.org/StudentIdentificationSystemDescriptor#Local"},
                                 {"assigningOrganizationIdentificationCode", "VENDOR"},
                                 {"identificationCode", "V-" + student}}})}});
            csvText += "V-" + student + "," + std::to_string(school) + "," + e["entryDate"].get<std::string>() + ","
                       + e["entryGradeLevelDescriptor"].get<std::string>() + "\n";
        }
        csvText += "V-NOBODY,1,2026-01-05,uri://ed-fi.org/GradeLevelDescriptor#Ninth grade\n";
        QFile csv(dir.filePath("vendor.csv"));
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write(csvText.c_str());
        csv.close();
        const Json mapping{
            {"studentIds", {{"column", "Vendor ID"}, {"system", "uri://ed-fi.org/StudentIdentificationSystemDescriptor#Local"}}},
            {"documents",
             Json::array({{{"resource", "ed-fi/studentSchoolAssociations"},
                           {"fields",
                            {{"schoolReference.schoolId", {{"column", "Campus"}}},
                             {"entryDate", {{"column", "Entry Date"}}},
                             {"entryGradeLevelDescriptor", {{"column", "Grade"}}}}}}})}};
        QFile mappingFile(dir.filePath("map.json"));
        QVERIFY(mappingFile.open(QIODevice::WriteOnly));
        mappingFile.write(mapping.dump(2).c_str());
        mappingFile.close();

        AppSession *raw = session.get();
        MainWindow window(std::move(session));
        SpreadsheetImportDialog dialog(*raw, &window);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(dialog.openFile(dir.filePath("vendor.csv")));
        QVERIFY(dialog.loadMapping(dir.filePath("map.json")));
        QTRY_VERIFY(dialog.studentMatchLabel()->isVisible());
        QTRY_VERIFY2(dialog.studentMatchLabel()->text().startsWith(QStringLiteral("Students by Vendor ID: 2 of 3 rows found theirs")),
                     qPrintable(dialog.studentMatchLabel()->text()));
        QVERIFY(dialog.studentMatchLabel()->text().contains(QStringLiteral("row 4, column 'Vendor ID': no student has the Local id 'V-NOBODY'")));
        QVERIFY(dialog.importButton()->isEnabled());
        dialog.minimumMatchBox()->setValue(95);
        QVERIFY(!dialog.importButton()->isEnabled());
        QVERIFY(dialog.studentMatchLabel()->text().contains(QStringLiteral("nothing will be imported")));
        const QString unmatched = dir.filePath("unmatched.csv");
        QVERIFY(dialog.saveUnmatchedRows(unmatched));
        QFile saved(unmatched);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        QVERIFY(saved.readAll().startsWith("row,reason,Vendor ID,Campus,Entry Date,Grade\r\n4,"));
        dialog.minimumMatchBox()->setValue(60);
        QVERIFY(dialog.importButton()->isEnabled());
        saveScreenshot(&dialog, "spreadsheet-student-ids.png");
    }

    // Tab goes through the window the way it reads: the resources pane, then the documents, then the
    // editor, each control once, and no control a steward can use is left out of the chain.
    void tabOrderFollowsThePanes()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("tabs.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        for (const Request &request : sampleDistrictRequests(2026, 2))
            QVERIFY(session->engine().handle(request).status < 300);
        MainWindow window(std::move(session));
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.navigateTo(QString::fromStdString(idOf(*window.session(), "/ed-fi/schools?limit=1"))));
        QTRY_VERIFY(window.editor()->findChild<QLineEdit *>(QStringLiteral("$.schoolId")) != nullptr
                    && window.editor()->findChild<QLineEdit *>(QStringLiteral("$.schoolId"))->isVisibleTo(&window));
        // A problem to list (a name left empty), so that the problems list is shown and in the chain.
        window.editor()->findChild<QLineEdit *>(QStringLiteral("$.nameOfInstitution"))->clear();
        window.editor()->revalidateNow();
        QTRY_VERIFY(window.editor()->findChild<QListWidget *>(QStringLiteral("problemsList"))->isVisibleTo(&window));
        auto *splitter = window.findChild<QSplitter *>(QStringLiteral("mainSplitter"));
        QVERIFY(splitter && splitter->count() == 3);
        auto paneOf = [splitter](QWidget *widget) {
            for (int i = 0; i < splitter->count(); ++i)
                if (splitter->widget(i)->isAncestorOf(widget))
                    return i;
            return -1;
        };
        auto reachable = [&window](QWidget *widget) {
            return widget->window() == &window && widget->isVisibleTo(&window) && widget->isEnabled()
                   && (widget->focusPolicy() & Qt::TabFocus) == Qt::TabFocus && widget->focusProxy() == nullptr;
        };
        QWidget *start = splitter->widget(0);
        while (!reachable(start))
            start = start->nextInFocusChain();
        QList<QWidget *> visited;
        QStringList order;
        int lastPane = 0;
        for (QWidget *w = start; !visited.contains(w); w = w->nextInFocusChain()) {
            visited << w;
            if (!reachable(w))
                continue;
            const int pane = paneOf(w);
            if (pane < 0)
                continue; // menus and tool bar: reached by their own keys
            order << QStringLiteral("%1:%2").arg(pane).arg(w->objectName().isEmpty() ? w->metaObject()->className()
                                                                                   : w->objectName());
            if (pane < lastPane && lastPane != 2)
                QFAIL(qPrintable("Tab goes back to an earlier pane: " + order.join(" ")));
            lastPane = std::max(lastPane, pane);
        }
        QVERIFY2(lastPane == 2, qPrintable(order.join(" ")));
        // In the editor: the form's fields as the page shows them (a list's rows, then its Add button),
        // then the problems and the buttons under them.
        const auto before = [&order](const char *a, const char *b) {
            return order.indexOf(QString::fromLatin1(a)) >= 0 && order.indexOf(QString::fromLatin1(a)) < order.indexOf(QString::fromLatin1(b));
        };
        QVERIFY2(before("2:$.schoolId", "2:$.nameOfInstitution"), qPrintable(order.join(" ")));
        QVERIFY2(before("2:$.gradeLevels[0].gradeLevelDescriptor", "2:$.gradeLevels#add"), qPrintable(order.join(" ")));
        QVERIFY2(before("2:$.gradeLevels#add", "2:problemsList"), qPrintable(order.join(" ")));
        QVERIFY2(before("2:problemsList", "2:revertButton"), qPrintable(order.join(" ")));
        // Every usable control of the three panes is in the chain.
        for (QWidget *widget : splitter->findChildren<QWidget *>())
            if (reachable(widget) && qobject_cast<QAbstractButton *>(widget) == nullptr)
                QVERIFY2(visited.contains(widget), qPrintable(QStringLiteral("not reached by Tab: %1 %2")
                                                                  .arg(widget->metaObject()->className(), widget->objectName())));
    }

    // Ctrl+K, part of a last name, Enter: the student opens.
    void findAnythingOpensAStudentByPartOfTheLastName()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("find.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        for (const Request &request : sampleDistrictRequests())
            QVERIFY(session->engine().handle(request).status < 300);
        post(*session, "/ed-fi/students",
             {{"studentUniqueId", "999001"}, {"firstName", "Lan"}, {"lastSurname", "Nguyễn"}, {"birthDate", "2010-01-01"}});
        AppSession *raw = session.get();
        const std::string student = idOf(*raw, "/ed-fi/students?studentUniqueId=999001");
        MainWindow window(std::move(session));
        window.show();
        QApplication::setActiveWindow(&window);
        QVERIFY(QTest::qWaitForWindowActive(&window));

        QTest::keySequence(&window, QKeySequence(QStringLiteral("Ctrl+K")));
        auto *dialog = window.findChild<FindDialog *>();
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        // The text field has the focus inside the dialog (typing goes there once it is active).
        QCOMPARE(dialog->focusWidget(), static_cast<QWidget *>(dialog->input()));
        int controls = 0;
        const QStringList nameless = namelessControls(dialog, controls);
        QVERIFY2(nameless.isEmpty(), qPrintable(nameless.join("; ")));
        QSignalSpy answered(dialog, &FindDialog::answered);
        QTest::keyClicks(dialog->input(), "nguy");
        QTRY_COMPARE_WITH_TIMEOUT(dialog->answeredText(), QStringLiteral("nguy"), 5000);
        QCOMPARE(dialog->hitsView()->count(), 1);
        QVERIFY(dialog->hitsView()->item(0)->text().startsWith("Student"));
        saveScreenshot(dialog, "find-anything.png");
        QTest::keyClick(dialog->input(), Qt::Key_Return);
        QTRY_COMPARE(window.editor()->documentId(), QString::fromStdString(student));
        QVERIFY(!dialog->isVisible());

        // Again: the school by its id, chosen with Down among several hits.
        window.findAnything();
        dialog->input()->clear();
        QTest::keyClicks(dialog->input(), "2559");
        QTRY_COMPARE_WITH_TIMEOUT(dialog->answeredText(), QStringLiteral("2559"), 5000);
        QVERIFY(dialog->hitsView()->count() >= 3); // the district and its two schools
        QTest::keyClick(dialog->input(), Qt::Key_Down);
        QCOMPARE(dialog->hitsView()->currentRow(), 1);
    }

    // The two ways out of a blocked delete, through the dialog's widgets on the sample district:
    // delete the school with its dependents (previewed per resource), undo it from the Edit menu;
    // then move the school's references to the other school and delete it.
    void blockedDeleteWaysOutThroughTheDialog()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("ways.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        for (const Request &request : sampleDistrictRequests())
            QVERIFY(session->engine().handle(request).status < 300);
        AppSession *raw = session.get();
        const std::string school = idOf(*raw, "/ed-fi/schools?schoolId=255901001");
        const std::string other = idOf(*raw, "/ed-fi/schools?schoolId=255901044");
        auto documentCount = [raw] {
            std::int64_t total = 0;
            for (const ResourceCount &count : raw->engine().resourceCounts())
                total += count.documents;
            return total;
        };
        const std::int64_t stored = documentCount();
        const std::int64_t blockers = raw->engine().referrers(school, 1, 0).total;
        MainWindow window(std::move(session));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.navigateTo(QString::fromStdString(school)));

        int deleted = 0;
        whenModalDialogOpens([&](QWidget *modal) {
            auto *dialog = qobject_cast<BlockedDeleteDialog *>(modal);
            QVERIFY(dialog);
            // Grouped by resource and field, with counts that add up to every blocker.
            int listed = 0;
            for (int i = 0; i < dialog->blockersView()->topLevelItemCount(); ++i)
                listed += dialog->blockersView()->topLevelItem(i)->childCount();
            QCOMPARE(listed, static_cast<int>(blockers));
            saveScreenshot(dialog, "blocked-delete.png");
            QTest::mouseClick(dialog->cascadeButton(), Qt::LeftButton);
            QTreeWidget *tree = dialog->cascadeView();
            QVERIFY(tree->isVisible());
            int previewed = 0;
            for (int i = 0; i < tree->topLevelItemCount(); ++i)
                previewed += tree->topLevelItem(i)->childCount();
            deleted = previewed;
            QCOMPARE(previewed, static_cast<int>(dialog->cascadePreview().nodes.size()));
            int direct = 0;
            for (const DependentNode &node : dialog->cascadePreview().nodes)
                direct += node.parent == 0 ? 1 : 0;
            QCOMPARE(direct, static_cast<int>(blockers));
            int controls = 0;
            const QStringList nameless = namelessControls(dialog, controls);
            QVERIFY2(nameless.isEmpty(), qPrintable(nameless.join("; ")));
            QVERIFY(dialog->confirmButton()->isEnabled());
            QVERIFY(dialog->confirmButton()->text().contains(QLocale().toString(previewed)));
            // Nothing cut: the button says the whole count once laid out.
            QTRY_VERIFY(dialog->confirmButton()->width() >= dialog->confirmButton()->sizeHint().width());
            saveScreenshot(dialog, "cascade-preview.png");
            QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        });
        window.deleteDocument();
        QVERIFY(deleted > blockers);
        QCOMPARE(raw->request("GET", "/ed-fi/schools/" + school).status, 404);
        QCOMPARE(documentCount(), stored - deleted);
        QVERIFY(raw->engine().check().clean());

        // Edit > Undo last operation puts every document back.
        QAction *undoAction = menuAction(window, "&Undo last operation");
        QVERIFY(undoAction);
        Prompt::setNextAnswer(QMessageBox::Yes);
        undoAction->trigger();
        QTRY_COMPARE(raw->request("GET", "/ed-fi/schools/" + school).status, 200);
        QCOMPARE(documentCount(), stored);

        // Move the references to the other school, then delete it.
        QVERIFY(window.navigateTo(QString::fromStdString(school)));
        bool moved = false;
        whenModalDialogOpens([&](QWidget *modal) {
            auto *dialog = qobject_cast<BlockedDeleteDialog *>(modal);
            QVERIFY(dialog);
            QTest::mouseClick(dialog->repointButton(), Qt::LeftButton);
            QComboBox *target = dialog->repointTarget();
            QCOMPARE(target->count(), 1); // the other school; never the school itself
            target->setCurrentIndex(0);
            QTRY_VERIFY(dialog->confirmButton()->isEnabled());
            QVERIFY(dialog->repointView()->topLevelItemCount() > blockers);
            QTRY_VERIFY(dialog->confirmButton()->width() >= dialog->confirmButton()->sizeHint().width());
            saveScreenshot(dialog, "repoint-preview.png");
            QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
            moved = true;
        });
        window.deleteDocument();
        QVERIFY(moved);
        QCOMPARE(raw->request("GET", "/ed-fi/schools/" + school).status, 404);
        QVERIFY(raw->engine().referrers(other, 1, 0).total > blockers);
        QVERIFY(raw->engine().check().clean());
    }

    // The issue's walk-through: a School and a Course typed in through the form (the Course's
    // reference chosen with the picker), a blocked delete, jump to the blocker, delete it, then the School.
    void endToEndThroughWidgets()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("e2e.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        seedDescriptors(*session);
        AppSession *raw = session.get();
        MainWindow window(std::move(session));
        window.resize(1400, 900);
        window.show();
        QApplication::setActiveWindow(&window); // keyboard shortcuts follow the focus of the active window
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QAbstractItemModelTester tester(window.documentModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        DocumentEditor &editor = *window.editor();

        // A School, through the form.
        QVERIFY(window.selectResource(raw->resourceByName("Ed-Fi", "School")));
        QTest::keySequence(&window, QKeySequence::New);
        QTRY_VERIFY(child<QLineEdit>(editor, "$.schoolId") != nullptr);
        QTest::keyClicks(child<QLineEdit>(editor, "$.schoolId"), "255901");
        QTest::keyClicks(child<QLineEdit>(editor, "$.nameOfInstitution"), "Grand Bend High School");
        QTest::mouseClick(child<QPushButton>(editor, "$.educationOrganizationCategories#add"), Qt::LeftButton);
        child<QComboBox>(editor, "$.educationOrganizationCategories[0].educationOrganizationCategoryDescriptor")
            ->setCurrentText("uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School");
        QTest::mouseClick(child<QPushButton>(editor, "$.gradeLevels#add"), Qt::LeftButton);
        child<QComboBox>(editor, "$.gradeLevels[0].gradeLevelDescriptor")
            ->setCurrentText("uri://ed-fi.org/GradeLevelDescriptor#Ninth grade");
        QTRY_VERIFY(editor.canSave());
        QTest::mouseClick(child<QPushButton>(editor, "saveButton"), Qt::LeftButton);
        const std::string schoolId = idOf(*raw, "/ed-fi/schools");
        QVERIFY(!schoolId.empty());
        QTRY_COMPARE(window.documentModel()->totalCount(), 1);

        // A Course whose EducationOrganization is chosen with the picker.
        QVERIFY(window.selectResource(raw->resourceByName("Ed-Fi", "Course")));
        window.newDocument();
        QTRY_VERIFY(child<QLineEdit>(editor, "$.courseCode") != nullptr);
        QTest::keyClicks(child<QLineEdit>(editor, "$.courseCode"), "ALG-1");
        QTest::keyClicks(child<QLineEdit>(editor, "$.courseTitle"), "Algebra I");
        QTest::keyClicks(child<QLineEdit>(editor, "$.numberOfParts"), "1");
        auto *picker = child<QLineEdit>(editor, "$.educationOrganizationReference");
        picker->setFocus();
        QTest::keyClicks(picker, "2559");
        QAbstractItemView *popup = picker->findChild<QCompleter *>()->popup();
        QTRY_VERIFY(popup->isVisible());
        popup->setCurrentIndex(popup->model()->index(0, 0));
        QTest::keyClick(popup, Qt::Key_Return);
        QTRY_COMPARE(child<QLineEdit>(editor, "$.educationOrganizationReference.educationOrganizationId")->text(),
                     QStringLiteral("255901"));
        QTRY_VERIFY(editor.canSave());
        QTest::mouseClick(child<QPushButton>(editor, "saveButton"), Qt::LeftButton);
        const std::string courseId = idOf(*raw, "/ed-fi/courses");
        QVERIFY(!courseId.empty());

        // Delete the School: refused, the dialog names the Course, and Go to opens it.
        QVERIFY(window.navigateTo(QString::fromStdString(schoolId)));
        bool dialogChecked = false;
        whenModalDialogOpens([&](QWidget *modal) {
            auto *dialog = qobject_cast<BlockedDeleteDialog *>(modal);
            QVERIFY(dialog);
            QTreeWidget *list = dialog->blockersView();
            QCOMPARE(list->topLevelItemCount(), 1);
            QCOMPARE(list->topLevelItem(0)->text(0), QStringLiteral("Course"));
            list->setCurrentItem(list->topLevelItem(0)->child(0));
            QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("goToBlocker")), Qt::LeftButton);
            dialogChecked = true;
        });
        window.deleteDocument();
        QVERIFY(dialogChecked);
        QCOMPARE(raw->request("GET", "/ed-fi/schools/" + schoolId).status, 200);
        QCOMPARE(window.editor()->documentId(), QString::fromStdString(courseId));

        // Del in a text field edits the text; Del on the documents table deletes the document.
        QApplication::setActiveWindow(&window); // the closed dialog took activation with it (offscreen)
        QVERIFY(QTest::qWaitForWindowActive(&window));
        auto *title = child<QLineEdit>(editor, "$.courseTitle");
        title->setFocus();
        QTest::keyClick(title, Qt::Key_Delete);
        QCOMPARE(raw->request("GET", "/ed-fi/courses/" + courseId).status, 200);
        QTRY_VERIFY(window.documentModel()->rowOfDocument(QString::fromStdString(courseId)) >= 0);
        window.documentView()->setFocus();
        Prompt::setNextAnswer(QMessageBox::Yes);
        QTest::keyClick(window.documentView(), Qt::Key_Delete);
        QCOMPARE(raw->request("GET", "/ed-fi/courses/" + courseId).status, 404);
        QVERIFY(window.navigateTo(QString::fromStdString(schoolId)));
        Prompt::setNextAnswer(QMessageBox::Yes);
        window.deleteDocument();
        QCOMPARE(raw->request("GET", "/ed-fi/schools/" + schoolId).status, 404);
    }

    // What a screen reader would announce for each control a steward can reach: nothing nameless.
    void everyControlHasAnAccessibleName()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("a11y.db"), {}, &error);
        MainWindow window(std::move(session));
        window.resize(1280, 800);
        window.show();
        window.loadSampleDistrict();
        QSignalSpy counted(&window, &MainWindow::countsRefreshed);
        window.refreshCounts();
        QVERIFY(counted.wait(10000));
        QTRY_VERIFY(window.documentModel()->totalCount() > 0);
        // With a document open, so that the editor's form and the references are walked too.
        auto *table = window.findChild<QTableView *>(QStringLiteral("documentTable"));
        QVERIFY(table);
        QTRY_VERIFY(table->model()->rowCount() > 0);
        table->setCurrentIndex(table->model()->index(0, 0));
        QTRY_VERIFY(!window.editor()->documentId().isEmpty());
        QTRY_VERIFY([&] {
            const QList<QLineEdit *> fields = window.editor()->findChildren<QLineEdit *>();
            return std::any_of(fields.begin(), fields.end(), [&](QLineEdit *f) { return f->isVisibleTo(&window); });
        }());
        int controls = 0;
        const QStringList nameless = namelessControls(&window, controls);
        QVERIFY2(nameless.isEmpty(), qPrintable(QString::number(nameless.size()) + " nameless: " + nameless.join("; ")));
        QVERIFY2(controls > 20, qPrintable(QString::number(controls)));
        qInfo("%d controls, each named", controls);
        // Every pane fits a 1280-pixel screen (a pane's minimum once pushed the window past it).
        QVERIFY2(window.minimumSizeHint().width() <= 1280, qPrintable(QString::number(window.minimumSizeHint().width())));
        QCOMPARE(window.width(), 1280);
    }

    // Every menu command can be reached from the keyboard: a mnemonic (unique in its menu) or a shortcut.
    void everyMenuActionHasAKeyboardWay()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("keys.db"), {}, &error);
        MainWindow window(std::move(session));
        QStringList problems;
        int actions = 0;
        std::function<void(QMenu *)> walk = [&](QMenu *menu) {
            QMap<QChar, QString> mnemonics;
            for (QAction *action : menu->actions()) {
                if (action->isSeparator() || !action->isVisible() || action->text().isEmpty())
                    continue;
                ++actions;
                const QString text = action->text();
                const qsizetype amp = text.indexOf(QLatin1Char('&'));
                if (amp >= 0 && amp + 1 < text.size()) {
                    const QChar key = text.at(amp + 1).toLower();
                    if (mnemonics.contains(key))
                        problems << QStringLiteral("'%1' and '%2' in %3 share Alt+%4")
                                        .arg(mnemonics[key], text, menu->title(), QString(key));
                    mnemonics.insert(key, text);
                } else if (action->shortcut().isEmpty()) {
                    problems << QStringLiteral("'%1' in %2 has neither a mnemonic nor a shortcut").arg(text, menu->title());
                }
                if (action->menu())
                    walk(action->menu());
            }
        };
        QMap<QChar, QString> top;
        for (QAction *action : window.menuBar()->actions()) {
            const QString text = action->text();
            const qsizetype amp = text.indexOf(QLatin1Char('&'));
            if (amp < 0)
                problems << QStringLiteral("menu '%1' has no mnemonic").arg(text);
            else if (top.contains(text.at(amp + 1).toLower()))
                problems << QStringLiteral("menus '%1' and '%2' share a mnemonic").arg(top[text.at(amp + 1).toLower()], text);
            else
                top.insert(text.at(amp + 1).toLower(), text);
            if (action->menu())
                walk(action->menu());
        }
        QVERIFY2(actions > 15, qPrintable(QString::number(actions)));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
    }

    void sampleDistrictFillsAnEmptyDatabase()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("sample.db"), {}, &error);
        AppSession *raw = session.get();
        MainWindow window(std::move(session));
        window.show();
        window.loadSampleDistrict();
        const Response schools = raw->request("GET", "/ed-fi/schools?totalCount=true");
        QCOMPARE(schools.header("Total-Count"), std::string("2"));
        const Response enrollments = raw->request("GET", "/ed-fi/studentSectionAssociations?totalCount=true");
        // Every enrollment the generated sample holds: 40 students, several sections each.
        std::size_t expectedEnrollments = 0;
        for (const Request &request : sampleDistrictRequests())
            expectedEnrollments += request.path == "/ed-fi/studentSectionAssociations" ? 1 : 0;
        QVERIFY(expectedEnrollments >= 40 * 4);
        QCOMPARE(enrollments.header("Total-Count"), std::to_string(expectedEnrollments));
        QSignalSpy counted(&window, &MainWindow::countsRefreshed);
        window.refreshCounts();
        QVERIFY(counted.wait(10000));
        QTRY_VERIFY(window.documentModel()->totalCount() == 2);
    }

    // Tools > Undo and history: the database's setting shown with its defaults, changed, kept.
    void undoRetentionIsSetFromTheToolsMenu()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("keep.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        AppSession *raw = session.get();
        MainWindow window(std::move(session));
        window.show();
        QAction *action = menuAction(window, "&Undo and history…");
        QVERIFY(action != nullptr);
        bool answered = false;
        whenModalDialogOpens([&answered](QWidget *dialog) {
            auto *operations = dialog->findChild<QSpinBox *>(QStringLiteral("undoKeepOperations"));
            auto *days = dialog->findChild<QSpinBox *>(QStringLiteral("undoKeepDays"));
            QVERIFY(operations != nullptr && days != nullptr);
            QCOMPARE(operations->value(), 100);
            QCOMPARE(days->value(), 30);
            int controls = 0;
            const QStringList nameless = namelessControls(dialog, controls);
            QVERIFY2(nameless.isEmpty(), qPrintable(nameless.join("; ")));
            saveScreenshot(dialog, "undo-retention.png");
            operations->setValue(0);
            days->setValue(14);
            answered = true;
            dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        });
        action->trigger();
        QVERIFY(answered);
        QCOMPARE(raw->undoRetention().operations, 0);
        QCOMPARE(raw->undoRetention().days, 14);
    }

    void syncDialogListsRefusalsAndOpensThem()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("sync.db"), {}, &error);
        AppSession *raw = session.get();
        seedDescriptors(*raw);
        post(*raw, "/ed-fi/schools", steward::test::Fixture::school(255901));
        const std::string schoolId = idOf(*raw, "/ed-fi/schools?schoolId=255901");
        // What a push left behind: the target refused the School.
        SyncState state(raw->database().connection());
        const SyncTarget target = state.ensureTarget("http://127.0.0.1:9", "district");
        state.recordFailure(target.targetId, {schoolId, 5, "Ed-Fi", "School", "upsert", 400,
                                              Json{{"detail", "Data validation failed."}}, {}});
        MainWindow window(std::move(session));
        window.show();

        SyncDialog dialog(*raw, &window);
        connect(&dialog, &SyncDialog::documentActivated, &window, [&window](const QString &id) { window.navigateTo(id); });
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        int controls = 0;
        const QStringList nameless = namelessControls(&dialog, controls);
        QVERIFY2(nameless.isEmpty(), qPrintable("nameless in the sync dialog: " + nameless.join("; ")));
        auto *url = child<QComboBox>(dialog, "syncUrl");
        QVERIFY(url != nullptr);
        QCOMPARE(url->currentText(), QStringLiteral("http://127.0.0.1:9"));
        QCOMPARE(child<QLineEdit>(dialog, "syncClient")->text(), QStringLiteral("district"));
        auto *failures = child<QTableWidget>(dialog, "syncFailures");
        QCOMPARE(failures->rowCount(), 1);
        QVERIFY2(failures->item(0, 2)->text().contains("255901"), qPrintable(failures->item(0, 2)->text()));
        QVERIFY(failures->item(0, 4)->text().contains("Data validation failed."));
        QSignalSpy activated(&dialog, &SyncDialog::documentActivated);
        const QRect cell = failures->visualItemRect(failures->item(0, 2));
        // Item views take a double-click only on the item the press landed on.
        QTest::mouseClick(failures->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(failures->viewport(), Qt::LeftButton, {}, cell.center());
        QTRY_COMPARE(activated.count(), 1);
        QCOMPARE(activated.at(0).at(0).toString(), QString::fromStdString(schoolId));
        QTRY_COMPARE(window.editor()->documentId(), QString::fromStdString(schoolId));

        // Pull from an address nobody answers: a clear message, nothing changed.
        url->setEditText(QStringLiteral("http://127.0.0.1:9"));
        child<QLineEdit>(dialog, "syncSecret")->setText(QStringLiteral("secret"));
        dialog.pull();
        QVERIFY2(child<QLabel>(dialog, "syncStatus")->text().contains("127.0.0.1:9"),
                 qPrintable(child<QLabel>(dialog, "syncStatus")->text()));
        QImage shot = dialog.grab().toImage();
        QVERIFY(!shot.isNull());
        shot.save(QDir::temp().filePath(QStringLiteral("steward-sync-dialog.png"))); // for a look by eye
    }

    // The sync dialog takes a district's certificate authority (a file chooser field), remembered for
    // each address on this computer, and refuses plain HTTP to another machine before anything is sent.
    void syncDialogTakesADistrictsAuthorityPerTarget()
    {
        QSettings().remove(QStringLiteral("sync/caCertificate")); // what an earlier run remembered
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("sync-ca.db"), {}, &error);
        AppSession *raw = session.get();
        SyncState state(raw->database().connection());
        state.ensureTarget("https://127.0.0.1:9", "district");
        state.ensureTarget("http://127.0.0.1:9", "other");
        MainWindow window(std::move(session));
        window.show();
        auto open = [&window, raw] {
            auto dialog = std::make_unique<SyncDialog>(*raw, &window);
            dialog->show();
            return dialog;
        };
        std::unique_ptr<SyncDialog> dialog = open();
        QVERIFY(QTest::qWaitForWindowExposed(dialog.get()));
        int controls = 0;
        const QStringList nameless = namelessControls(dialog.get(), controls);
        QVERIFY2(nameless.isEmpty(), qPrintable("nameless in the sync dialog: " + nameless.join("; ")));
        auto *url = child<QComboBox>(*dialog, "syncUrl");
        auto *caCert = child<QLineEdit>(*dialog, "syncCaCert");
        auto *status = child<QLabel>(*dialog, "syncStatus");
        QVERIFY(url && caCert && child<QPushButton>(*dialog, "syncCaCertBrowse"));
        child<QLineEdit>(*dialog, "syncSecret")->setText(QStringLiteral("secret"));

        url->setEditText(QStringLiteral("http://district.invalid"));
        dialog->pull();
        QVERIFY2(status->text().contains("plain HTTP to another machine"), qPrintable(status->text()));
        url->setCurrentIndex(url->findText(QStringLiteral("https://127.0.0.1:9")));
        const QString missing = dir.filePath("no-ca.crt");
        caCert->setText(missing);
        dialog->pull();
        QVERIFY2(status->text().contains(missing), qPrintable(status->text()));

        if (!steward::test::hasOpenssl())
            QSKIP("openssl is not installed: no certificate authority to remember");
        const steward::test::TlsFiles tls = steward::test::makeTlsFiles(dir.path(), "gui");
        QVERIFY2(tls.problem.isEmpty(), qPrintable(tls.problem));
        caCert->setText(tls.caCert);
        dialog->pull(); // nobody answers on port 9: what matters is that the file was taken
        QVERIFY2(status->text().contains("127.0.0.1:9"), qPrintable(status->text()));

        dialog = open();
        url = child<QComboBox>(*dialog, "syncUrl");
        caCert = child<QLineEdit>(*dialog, "syncCaCert");
        url->setCurrentIndex(url->findText(QStringLiteral("http://127.0.0.1:9")));
        QCOMPARE(caCert->text(), QString());
        url->setCurrentIndex(url->findText(QStringLiteral("https://127.0.0.1:9")));
        QCOMPARE(caCert->text(), tls.caCert);
    }

    // An address replaced on one side and moved on the other: one row, each version whole with the fields
    // that differ in bold, decided "both items", and both addresses stored as typed.
    void itemConflictShownWholeAndBothKept()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("items.db"), {}, &error);
        AppSession *raw = session.get();
        seedDescriptors(*raw);
        for (const char *type : {"Physical", "Temporary"})
            post(*raw, "/ed-fi/addressTypeDescriptors",
                 {{"namespace", "uri://ed-fi.org/AddressTypeDescriptor"}, {"codeValue", type}, {"shortDescription", type}});
        post(*raw, "/ed-fi/stateAbbreviationDescriptors",
             {{"namespace", "uri://ed-fi.org/StateAbbreviationDescriptor"}, {"codeValue", "TX"}, {"shortDescription", "TX"}});
        auto address = [](const std::string &type, const std::string &street, const std::string &city) {
            return Json{{"addressTypeDescriptor", "uri://ed-fi.org/AddressTypeDescriptor#" + type},
                        {"streetNumberName", street},
                        {"city", city},
                        {"stateAbbreviationDescriptor", "uri://ed-fi.org/StateAbbreviationDescriptor#TX"},
                        {"postalCode", "78701"}};
        };
        Json base = test::Fixture::school(255901);
        base["addresses"] = Json::array({address("Physical", "1 Main St", "Austin")});
        Json mine = base;
        mine["addresses"] = Json::array({address("Temporary", "PO Box 4410", "Austin")});
        Json theirs = base;
        theirs["addresses"][0]["city"] = "Lakeside";
        post(*raw, "/ed-fi/schools", mine);
        const std::string id = idOf(*raw, "/ed-fi/schools?schoolId=255901");
        recordSyncConflict(*raw, id, "School", base, theirs, "changed on both sides: $.addresses[0] (the whole item)");

        MainWindow window(std::move(session));
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const std::vector<ConflictView> views = listConflicts(raw->engine());
        QCOMPARE(views.size(), std::size_t(1));
        ConflictDialog dialog(*raw, views[0], &window);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        int controls = 0;
        const QStringList nameless = namelessControls(&dialog, controls);
        QVERIFY2(nameless.isEmpty(), qPrintable("nameless in the conflict dialog: " + nameless.join("; ")));
        QTableWidget *fields = dialog.fields();
        QCOMPARE(fields->rowCount(), 1);
        // Named by its key: the item both sides changed is the physical address agreed on before.
        QCOMPARE(fields->item(0, 0)->text(), QStringLiteral("Address: Physical"));
        // Each version whole, by the form's labels; what differs in bold, and nothing else.
        auto *mineCell = qobject_cast<QLabel *>(fields->cellWidget(0, 2));
        auto *theirsCell = qobject_cast<QLabel *>(fields->cellWidget(0, 3));
        QVERIFY(mineCell && theirsCell);
        QVERIFY2(mineCell->text().contains("<b>Address type: Temporary</b>"), qPrintable(mineCell->text()));
        QVERIFY2(mineCell->text().contains("<b>Street number name: PO Box 4410</b>"), qPrintable(mineCell->text()));
        QVERIFY2(mineCell->text().contains("<b>City: Austin</b>"), qPrintable(mineCell->text()));
        QVERIFY2(mineCell->text().contains("Postal code: 78701") && !mineCell->text().contains("<b>Postal code"),
                 qPrintable(mineCell->text()));
        QVERIFY2(theirsCell->text().contains("<b>City: Lakeside</b>"), qPrintable(theirsCell->text()));
        auto *decision = dialog.findChild<QComboBox *>(QStringLiteral("conflictDecision0"));
        QVERIFY(decision);
        QCOMPARE(decision->count(), 4);
        QCOMPARE(decision->itemText(2), QStringLiteral("Both items"));
        QCOMPARE(decision->itemText(3), QStringLiteral("Agreed before"));
        dialog.decide(0, ConflictDialog::Decision::Both);
        saveScreenshot(&dialog, "conflict-dialog-item.png");
        QVERIFY2(dialog.apply(), qPrintable(dialog.error()));
        const Json stored = raw->request("GET", "/ed-fi/schools/" + id).body;
        QCOMPARE(stored["addresses"].size(), std::size_t(2));
        QCOMPARE(stored["addresses"][0]["streetNumberName"].get<std::string>(), std::string("PO Box 4410"));
        QCOMPARE(stored["addresses"][1]["city"].get<std::string>(), std::string("Lakeside"));
        QVERIFY(listConflicts(raw->engine()).empty());
        QVERIFY(raw->engine().check().clean());
    }

    // At 1280x800 the Data quality tab's filters read whole (or in a compact form that says the same),
    // and choosing the tab leaves the window as wide as it was.
    void dataQualityFiltersFitAt1280()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("quality.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        for (const Request &request : sampleDistrictRequests(2026, 4))
            QVERIFY(session->engine().handle(request).status < 300);
        // Drafts of several resources and fields, so that every filter has values.
        QFile drafts(dir.filePath("drafts.ndjson"));
        QVERIFY(drafts.open(QIODevice::WriteOnly));
        for (int i = 0; i < 6; ++i) {
            drafts.write(QByteArray::fromStdString(
                Json{{"resource", "ed-fi/students"},
                     {"body", {{"studentUniqueId", "D" + std::to_string(i)}, {"firstName", "Dee"},
                               {"lastSurname", "Draft"}, {"birthDate", "not a date"}}}}
                    .dump() + "\n"));
            drafts.write(QByteArray::fromStdString(
                Json{{"resource", "ed-fi/studentSchoolAssociations"},
                     {"body", {{"studentReference", {{"studentUniqueId", "NOBODY" + std::to_string(i)}}},
                               {"schoolReference", {{"schoolId", 1}}}, {"entryDate", "2025-08-20"},
                               {"entryGradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Tenth grade"}}}}
                    .dump() + "\n"));
        }
        drafts.close();
        steward::ImportOptions options;
        options.paths = {drafts.fileName().toStdString()};
        QVERIFY(steward::importFiles(session->engine(), session->model(), options).totals.drafts >= 6);
        MainWindow window(std::move(session));
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *tabs = window.findChild<QTabWidget *>();
        QVERIFY(tabs);
        tabs->setCurrentWidget(window.resultsGrid());
        QTRY_VERIFY(window.resultsGrid()->model()->rowCount() > 0);
        QTest::qWait(200);
        saveScreenshot(&window, "data-quality-1280.png");
        QCOMPARE(window.width(), 1280);
        // Every facet, by name (a renamed or missing one fails), fits its longest item once chosen.
        for (int f = 0; f < ResultsGridModel::kFacetCount; ++f) {
            auto *facet = window.resultsGrid()->findChild<QComboBox *>(QStringLiteral("facet%1").arg(f));
            QVERIFY2(facet != nullptr, qPrintable(QStringLiteral("no facet%1").arg(f)));
            QVERIFY2(facet->count() > 1, qPrintable(QStringLiteral("facet%1 has no values to choose").arg(f)));
            QStyleOptionComboBox option;
            option.initFrom(facet);
            const QRect text = facet->style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, facet);
            for (int item = 0; item < facet->count(); ++item) {
                const int needed = facet->fontMetrics().horizontalAdvance(facet->itemText(item));
                QVERIFY2(needed <= text.width(),
                         qPrintable(QStringLiteral("%1 shows '%2' in %3 px, needs %4")
                                        .arg(facet->objectName(), facet->itemText(item)).arg(text.width()).arg(needed)));
            }
        }
    }

    void syncConflictDecidedInItsDialogThenUndone()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("conflict.db"), {}, &error);
        AppSession *raw = session.get();
        const Json base{{"studentUniqueId", "S1"}, {"firstName", "Ann"}, {"lastSurname", "Lee"},
                        {"middleName", "Q"}, {"birthDate", "2010-05-04"}};
        Json mine = base;
        mine["middleName"] = "Y";
        Json theirs = base;
        theirs["middleName"] = "X";
        theirs["birthCity"] = "Austin";
        post(*raw, "/ed-fi/students", mine);
        const std::string id = idOf(*raw, "/ed-fi/students?studentUniqueId=S1");
        // What a sync left behind: the target changed middleName too, to something else.
        recordSyncConflict(*raw, id, "Student", base, theirs, "changed on both sides: $.middleName");
        MainWindow window(std::move(session));
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        // The Data quality tab lists it; opening it shows base, mine and theirs by the form's labels.
        ResultsGrid *grid = window.resultsGrid();
        QTRY_VERIFY(grid->model()->rowCount() > 0);
        int row = -1;
        for (int r = 0; r < grid->model()->rowCount(); ++r)
            if (grid->model()->rowAt(r).kind == QualityRow::Kind::Conflict)
                row = r;
        QVERIFY(row >= 0);
        QCOMPARE(grid->model()->rowAt(row).docId, id);
        bool applied = false;
        whenModalDialogOpens([&](QWidget *modal) {
            auto *dialog = qobject_cast<ConflictDialog *>(modal);
            QVERIFY(dialog);
            int controls = 0;
            const QStringList nameless = namelessControls(dialog, controls);
            QVERIFY2(nameless.isEmpty(), qPrintable("nameless in the conflict dialog: " + nameless.join("; ")));
            QTableWidget *fields = dialog->fields();
            QCOMPARE(fields->rowCount(), 1);
            QCOMPARE(fields->item(0, 0)->text(), QStringLiteral("Middle name"));
            QCOMPARE(fields->item(0, 1)->text(), QStringLiteral("Q"));
            QCOMPARE(fields->item(0, 2)->text(), QStringLiteral("Y"));
            QCOMPARE(fields->item(0, 3)->text(), QStringLiteral("X"));
            auto *decision = dialog->findChild<QComboBox *>(QStringLiteral("conflictDecision0"));
            QVERIFY(decision);
            decision->setCurrentIndex(static_cast<int>(ConflictDialog::Decision::Theirs));
            QCOMPARE(dialog->findChild<QLineEdit *>(QStringLiteral("conflictValue0"))->text(), QStringLiteral("X"));
            saveScreenshot(dialog, "conflict-dialog.png");
            QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("conflictApply")), Qt::LeftButton);
            applied = true;
        });
        const QModelIndex cell = grid->model()->index(row, 0);
        grid->view()->scrollTo(cell);
        const QRect rect = grid->view()->visualRect(cell);
        QTest::mouseClick(grid->view()->viewport(), Qt::LeftButton, {}, rect.center());
        QTest::mouseDClick(grid->view()->viewport(), Qt::LeftButton, {}, rect.center());
        QTRY_VERIFY(applied);
        QTRY_VERIFY(listConflicts(raw->engine()).empty());
        Json stored = raw->request("GET", "/ed-fi/students/" + id).body;
        QCOMPARE(stored["middleName"].get<std::string>(), std::string("X"));
        QCOMPARE(stored["birthCity"].get<std::string>(), std::string("Austin")); // their other change merged

        // Edit > Undo last operation: mine again, and the conflict open again.
        QAction *undoAction = menuAction(window, "&Undo last operation");
        QVERIFY(undoAction);
        Prompt::setNextAnswer(QMessageBox::Yes);
        undoAction->trigger();
        QTRY_COMPARE(raw->request("GET", "/ed-fi/students/" + id).body["middleName"].get<std::string>(), std::string("Y"));
        QCOMPARE(listConflicts(raw->engine()).size(), std::size_t(1));
        QVERIFY(raw->engine().check().clean());

        // The sync dialog lists it too, by the document and the field.
        SyncDialog dialog(*raw, &window);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *conflicts = child<QTableWidget>(dialog, "syncConflicts");
        QCOMPARE(conflicts->rowCount(), 1);
        QVERIFY2(conflicts->item(0, 0)->text().contains("S1"), qPrintable(conflicts->item(0, 0)->text()));
        QCOMPARE(conflicts->item(0, 2)->text(), QStringLiteral("Middle name"));
        saveScreenshot(&dialog, "sync-dialog-conflicts.png");
    }

    // The first window fits the screen it opens on; a saved one from a larger screen is shrunk into it.
    void theWindowFitsTheScreen()
    {
        const QRect laptop(0, 0, 1280, 800 - 30); // a panel takes some height
        const QRect first = firstWindowGeometry(laptop);
        QVERIFY2(laptop.contains(first), qPrintable(QStringLiteral("%1x%2+%3+%4").arg(first.width()).arg(first.height())
                                                      .arg(first.x()).arg(first.y())));
        QVERIFY(first.width() >= 1100 && first.height() >= 650); // and uses most of it
        const QRect large(0, 0, 1920, 1080 - 40);
        QCOMPARE(firstWindowGeometry(large).size(), QSize(1400, 860));
        QVERIFY(large.contains(firstWindowGeometry(large)));
        // Saved on 1920×1080, opened on the laptop: no larger than it, and inside it.
        const QRect saved(300, 100, 1600, 950);
        const QRect fitted = fittedInto(saved, laptop);
        QVERIFY(laptop.contains(fitted));
        QCOMPARE(fitted.size(), QSize(1280, 770));
        QCOMPARE(fittedInto(QRect(10, 10, 800, 600), laptop), QRect(10, 10, 800, 600)); // one that fits stays

        // The real first window, with no saved geometry, fits the screen it is on.
        QSettings().remove(QStringLiteral("window/geometry"));
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("fits.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow window(std::move(session));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QRect available = window.screen()->availableGeometry();
        if (available.width() < window.minimumSizeHint().width())
            QSKIP("This screen is narrower than the window can be; ctest runs this on a 1280x800 screen "
                  "(tests/offscreen-1280x800.json).");
        QVERIFY2(available.contains(window.geometry()),
                 qPrintable(QStringLiteral("window %1x%2 on a screen of %3x%4").arg(window.width()).arg(window.height())
                                .arg(available.width()).arg(available.height())));
    }

    // Descriptor fields read as code values in the form and the documents table, at 1280×800 and
    // 1920×1080 (pictures with STEWARD_SCREENSHOT_DIR): a Student, a School, a StudentSchoolAssociation.
    void descriptorsReadAsCodeValuesAtTwoScreenSizes()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("codes.db"), {}, &error);
        QVERIFY2(session, qPrintable(error));
        for (const Request &request : sampleDistrictRequests(2026, 4))
            QVERIFY(session->engine().handle(request).status < 300);
        AppSession *raw = session.get();
        MainWindow window(std::move(session));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
            window.resize(size);
            for (const char *endpoint : {"students", "schools", "studentSchoolAssociations"}) {
                const std::string id = idOf(*raw, std::string("/ed-fi/") + endpoint + "?limit=1");
                QVERIFY(window.navigateTo(QString::fromStdString(id)));
                QTRY_VERIFY(!window.editor()->findChildren<QComboBox *>().isEmpty());
                int descriptors = 0;
                const Json stored = raw->request("GET", std::string("/ed-fi/") + endpoint + "/" + id).body;
                for (QComboBox *combo : window.editor()->findChildren<QComboBox *>()) {
                    if (!combo->objectName().endsWith(QStringLiteral("Descriptor")) || combo->currentText().isEmpty())
                        continue;
                    ++descriptors;
                    // The code value of the stored URI shows (with its description after a dash where
                    // the code is short), the URI is what hovering says.
                    const std::string uri = valueAtConcretePath(stored, combo->objectName().toStdString());
                    QVERIFY2(!uri.empty(), qPrintable(combo->objectName()));
                    const QString code = QString::fromStdString(uri.substr(uri.find('#') + 1));
                    QVERIFY2(combo->currentText() == code || combo->currentText().startsWith(code + QStringLiteral(" — ")),
                             qPrintable(combo->objectName() + ": shows " + combo->currentText() + ", stored " +
                                        QString::fromStdString(uri)));
                    QCOMPARE(combo->toolTip(), QString::fromStdString(uri));
                }
                QVERIFY2(descriptors > 0, endpoint);
                auto *table = window.findChild<QTableView *>(QStringLiteral("documentTable"));
                QTRY_VERIFY(table->model()->rowCount() > 0
                            && table->model()->data(table->model()->index(0, 0), DocumentTableModel::LoadedRole).toBool());
                QTest::qWait(100); // painted as a steward sees it
                // A long natural key (an association's) does not widen the window past the size it was
                // given, at either size.
                QCOMPARE(window.size(), size);
                saveScreenshot(&window, QStringLiteral("%1-%2x%3.png").arg(QLatin1String(endpoint)).arg(size.width()).arg(size.height()));
            }
        }
        // The references pane names a descriptor by its code value too, the URI on hover.
        auto *outgoing = window.findChild<QTreeWidget *>(QStringLiteral("outgoingReferences"));
        QVERIFY(outgoing);
        bool sawDescriptor = false;
        for (int i = 0; i < outgoing->topLevelItemCount(); ++i) {
            const QTreeWidgetItem *item = outgoing->topLevelItem(i);
            if (!item->toolTip(2).startsWith(QStringLiteral("uri://")))
                continue;
            QVERIFY2(!item->text(2).startsWith(QStringLiteral("uri://")), qPrintable(item->text(2)));
            sawDescriptor = true;
        }
        QVERIFY(sawDescriptor);
        // The documents table's descriptor columns too: the last resource shown has some.
        auto *table = window.findChild<QTableView *>(QStringLiteral("documentTable"));
        QVERIFY(table);
        bool sawDescriptorColumn = false;
        for (int column = 0; column < table->model()->columnCount(); ++column) {
            const QString header = table->model()->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString();
            if (!header.endsWith(QStringLiteral("Descriptor")))
                continue;
            QTRY_VERIFY(!table->model()->data(table->model()->index(0, column)).toString().isEmpty());
            const QString shown = table->model()->data(table->model()->index(0, column)).toString();
            QVERIFY2(!shown.startsWith(QStringLiteral("uri://")), qPrintable(header + ": " + shown));
            QVERIFY(table->model()->data(table->model()->index(0, column), Qt::ToolTipRole).toString().startsWith(QStringLiteral("uri://")));
            sawDescriptorColumn = true;
        }
        QVERIFY(sawDescriptorColumn);
    }

    void checkDatabaseFromTheToolsMenu()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("check.db"), {}, &error);
        AppSession *raw = session.get();
        seedDescriptors(*raw);
        post(*raw, "/ed-fi/schools", steward::test::Fixture::school(255901));
        MainWindow window(std::move(session));
        window.show();
        Prompt::setNextAnswer(QMessageBox::Ok);
        window.checkDatabase();
        QVERIFY2(Prompt::lastText().contains("no problems found"), qPrintable(Prompt::lastText()));
        raw->database().connection().exec("PRAGMA foreign_keys=OFF; DELETE FROM alias_rows WHERE resource_key = (SELECT "
                                          "resource_key FROM resources WHERE resource = 'EducationOrganization'); "
                                          "PRAGMA foreign_keys=ON");
        Prompt::setNextAnswer(QMessageBox::Ok);
        window.checkDatabase();
        QVERIFY2(Prompt::lastText().contains("aliases"), qPrintable(Prompt::lastText()));
        Prompt::setNextAnswer(QMessageBox::Ok);
        window.checkDatabase(steward::CheckDepth::Full);
        QVERIFY2(Prompt::lastText().contains("aliases"), qPrintable(Prompt::lastText()));
    }

    // A database other accounts can read (chmod'ed 0644): the window says so in a banner, without
    // stopping anything, and its Make private button makes the database and its -wal and -shm 0600.
    // What the window saves (a view, a mapping, unmatched rows) is the owner's alone under the usual umask.
    void aDatabaseOthersCanReadOffersToMakeItPrivate()
    {
        const test::ScopedUmask usual(022);
        QTemporaryDir dir;
        const QString path = dir.filePath("shared.db");
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(path, {}, &error);
        QVERIFY2(session, qPrintable(error));
        for (const QString &file : {path, path + "-wal", path + "-shm"}) {
            QCOMPARE(test::modeOf(file), QStringLiteral("600"));
            QVERIFY(QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther));
        }
        MainWindow window(std::move(session));
        window.show();
        QVERIFY(!window.privacyBanner()->isHidden());
        const QString text = window.privacyBanner()->findChild<QLabel *>()->text();
        QVERIFY2(text.contains(path + " (mode 0644)") && text.contains("-wal (mode 0644)"), qPrintable(text));
        saveScreenshot(&window, "privacy-banner.png");
        auto *makePrivate = window.privacyBanner()->findChild<QPushButton *>(QStringLiteral("makePrivate"));
        QVERIFY(makePrivate != nullptr);
        QTest::mouseClick(makePrivate, Qt::LeftButton);
        QVERIFY(window.privacyBanner()->isHidden());
        for (const QString &file : {path, path + "-wal", path + "-shm"})
            QCOMPARE(test::modeOf(file), QStringLiteral("600"));
        window.switchDatabase(path, {});
        QVERIFY(window.privacyBanner()->isHidden());

        QVERIFY(window.resultsGrid()->exportView(dir.filePath("view.csv")));
        SpreadsheetImportDialog dialog(*window.session(), &window);
        QVERIFY(dialog.saveMapping(dir.filePath("mapping.json")));
        for (const char *file : {"view.csv", "mapping.json"})
            QVERIFY2(test::modeOf(dir.filePath(file)) == QStringLiteral("600"),
                     qPrintable(QString::fromLatin1(file) + " is " + test::modeOf(dir.filePath(file))));
    }

    // The check's progress label: the rest at the pace so far, nothing before the pace means anything.
    void timeLeftFollowsThePaceSoFar()
    {
        QCOMPARE(timeLeftText(10000, 250, 1000), QStringLiteral("about 30 s left"));
        QCOMPARE(timeLeftText(60000, 100, 1000), QStringLiteral("about 9 min left"));
        QCOMPARE(timeLeftText(500, 250, 1000), QString());    // under a second's work
        QCOMPARE(timeLeftText(10000, 5, 1000), QString());    // under a hundredth done
        QCOMPARE(timeLeftText(10000, 1000, 1000), QString()); // done
    }

    void runRulesFromTheToolsMenu()
    {
        QTemporaryDir dir;
        QString error;
        std::unique_ptr<AppSession> session = AppSession::open(dir.filePath("rules.db"), {}, &error);
        AppSession *raw = session.get();
        post(*raw, "/ed-fi/staffs", steward::Json{{"staffUniqueId", "T-9"}, {"firstName", "Grace"}, {"lastSurname", "Hopper"}});
        MainWindow window(std::move(session));
        window.show();
        QSignalSpy changed(&window, &MainWindow::ruleResultsChanged);
        Prompt::setNextAnswer(QMessageBox::Ok);
        window.runRules();
        QCOMPARE(changed.count(), 1);
        QVERIFY2(Prompt::lastText().contains("0 fatal, 0 error, 0 warning, 1 info"), qPrintable(Prompt::lastText()));
        QVERIFY2(Prompt::lastText().contains("STF-001 Staff T-9"), qPrintable(Prompt::lastText()));
        QCOMPARE(raw->database().connection().execAndGet("SELECT count(*) FROM rule_results").getInt(), 1);
    }

    void screenshotOfTheFirstRun()
    {
        QTemporaryDir home;
        const QString png = home.filePath("steward.png");
        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert("HOME", home.path());
        env.insert("XDG_DATA_HOME", home.filePath("data"));
        env.insert("XDG_CONFIG_HOME", home.filePath("config"));
        // A login session has a private runtime directory; without one Qt warns on stderr.
        QVERIFY(QDir(home.path()).mkdir("runtime"));
        QFile::setPermissions(home.filePath("runtime"),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        env.insert("XDG_RUNTIME_DIR", home.filePath("runtime"));
        app.setProcessEnvironment(env);
        app.start(steward::test::appPath(), {"--screenshot", png});
        QVERIFY(app.waitForFinished(60000));
        QCOMPARE(app.exitCode(), 0);
        // No errors in the terminal on a first run. The offscreen platform plugin says it cannot
        // pass size hints on to a window system, which a real display plugin does not.
        const QString errors = QString::fromUtf8(app.readAllStandardError())
                                   .remove("This plugin does not support propagateSizeHints()\n");
        QVERIFY2(errors.isEmpty(), qPrintable(errors));
        QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 800 && image.height() >= 500);
        // It shows records: owner-only, whatever the umask.
        QCOMPARE(QFile::permissions(png) & (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
                 QFile::Permissions());
        // A first run creates the database in the per-user data directory.
        QVERIFY(QFile::exists(home.filePath("data/steward/steward.db")));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
