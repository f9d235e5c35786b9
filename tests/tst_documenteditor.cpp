// The document editor through its real widgets: form, JSON tab, validation, drafts, picker, history.
#include "AppSession.h"
#include "DocumentEditor.h"
#include "TestSupport.h"

#include <QAbstractItemView>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QCompleter>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

using steward::Json;

namespace {

const char *const kSchoolCategory = "uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School";
const char *const kNinthGrade = "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade";
const char *const kLeaCourseCode = "uri://ed-fi.org/CourseIdentificationSystemDescriptor#LEA course code";

Json school(int schoolId, const std::string &name)
{
    return Json{{"schoolId", schoolId},
                {"nameOfInstitution", name},
                {"educationOrganizationCategories", Json::array({{{"educationOrganizationCategoryDescriptor", kSchoolCategory}}})},
                {"gradeLevels", Json::array({{{"gradeLevelDescriptor", kNinthGrade}}})}};
}

} // namespace

class TestDocumentEditor : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<AppSession> m_session;

    std::string post(const std::string &path, const Json &body)
    {
        const steward::Response response = m_session->request("POST", path, body);
        if (response.status != 201 && response.status != 200)
            qWarning("POST %s answered %d: %s", path.c_str(), response.status, response.body.dump().c_str());
        return steward::test::idFromLocation(response.header("Location"));
    }

    const steward::ResourceSchema *resource(const char *name) const
    {
        return m_session->resourceByName("Ed-Fi", name);
    }

    std::unique_ptr<DocumentEditor> makeEditor()
    {
        auto editor = std::make_unique<DocumentEditor>(m_session.get());
        editor->resize(900, 760);
        editor->show();
        return editor;
    }

    template <typename T> static T *child(const QWidget &parent, const QString &name)
    {
        T *found = parent.findChild<T *>(name);
        if (found == nullptr)
            qWarning("no %s named %s", T::staticMetaObject.className(), qPrintable(name));
        return found;
    }

    static QStringList problemTexts(const DocumentEditor &editor)
    {
        QStringList out;
        auto *list = editor.findChild<QListWidget *>(QStringLiteral("problemsList"));
        for (int i = 0; list != nullptr && i < list->count(); ++i)
            out << list->item(i)->text();
        return out;
    }

    static bool anyStartsWith(const QStringList &texts, const QString &prefix)
    {
        for (const QString &t : texts)
            if (t.startsWith(prefix))
                return true;
        return false;
    }

    // Fills the fields of a Course except its reference.
    static void fillCourse(DocumentEditor &editor)
    {
        QTest::keyClicks(child<QLineEdit>(editor, "$.courseCode"), "ALG-1");
        QTest::keyClicks(child<QLineEdit>(editor, "$.courseTitle"), "Algebra I");
        QTest::keyClicks(child<QLineEdit>(editor, "$.numberOfParts"), "1");
        QTest::mouseClick(child<QPushButton>(editor, "$.identificationCodes#add"), Qt::LeftButton);
        QTest::keyClicks(child<QLineEdit>(editor, "$.identificationCodes[0].identificationCode"), "ALG-1");
        child<QComboBox>(editor, "$.identificationCodes[0].courseIdentificationSystemDescriptor")
            ->setCurrentText(kLeaCourseCode);
    }

    static void fillSchool(DocumentEditor &editor, const QString &id, const QString &name)
    {
        QTest::keyClicks(child<QLineEdit>(editor, "$.schoolId"), id);
        if (!name.isEmpty())
            QTest::keyClicks(child<QLineEdit>(editor, "$.nameOfInstitution"), name);
        QTest::mouseClick(child<QPushButton>(editor, "$.educationOrganizationCategories#add"), Qt::LeftButton);
        child<QComboBox>(editor, "$.educationOrganizationCategories[0].educationOrganizationCategoryDescriptor")
            ->setCurrentText(kSchoolCategory);
        QTest::mouseClick(child<QPushButton>(editor, "$.gradeLevels#add"), Qt::LeftButton);
        child<QComboBox>(editor, "$.gradeLevels[0].gradeLevelDescriptor")->setCurrentText(kNinthGrade);
    }

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        QString error;
        m_session = AppSession::open(m_dir->filePath(QStringLiteral("steward.db")), {}, &error);
        QVERIFY2(m_session, qPrintable(error));
        const std::vector<std::pair<std::string, std::string>> descriptors = {
            {"GradeLevelDescriptor", "Ninth grade"},
            {"GradeLevelDescriptor", "Tenth grade"},
            {"EducationOrganizationCategoryDescriptor", "School"},
            {"CourseIdentificationSystemDescriptor", "LEA course code"},
        };
        for (const auto &[type, code] : descriptors) {
            std::string endpoint = type + "s";
            endpoint[0] = static_cast<char>(std::tolower(endpoint[0]));
            QVERIFY(!post("/ed-fi/" + endpoint,
                          Json{{"namespace", "uri://ed-fi.org/" + type}, {"codeValue", code}, {"shortDescription", code}})
                         .empty());
        }
    }

    void cleanup()
    {
        m_session.reset();
        m_dir.reset();
    }

    void newSchoolIsSavedOnceValid()
    {
        auto editor = makeEditor();
        editor->newDocument(resource("School"));
        QCOMPARE(child<QLabel>(*editor, "headerLabel")->text(), QStringLiteral("New School"));
        auto *save = child<QPushButton>(*editor, "saveButton");
        QVERIFY(!save->isEnabled());
        QVERIFY(!editor->hasUnsavedChanges());

        QTest::keyClicks(child<QLineEdit>(*editor, "$.schoolId"), "255901");
        QTest::keyClicks(child<QLineEdit>(*editor, "$.nameOfInstitution"), "Grand Bend High School");
        QVERIFY(editor->hasUnsavedChanges());
        QTest::mouseClick(child<QPushButton>(*editor, "$.educationOrganizationCategories#add"), Qt::LeftButton);
        auto *category =
            child<QComboBox>(*editor, "$.educationOrganizationCategories[0].educationOrganizationCategoryDescriptor");
        QVERIFY(category);
        // The stored descriptors are offered by their code values, each standing for its URI.
        QVERIFY(category->findText(QStringLiteral("School")) >= 0);
        QCOMPARE(category->itemData(category->findText(QStringLiteral("School"))).toString(),
                 QString::fromLatin1(kSchoolCategory));
        category->setCurrentText(QStringLiteral("School"));
        editor->revalidateNow();
        QVERIFY(!editor->canSave()); // gradeLevels still missing
        QVERIFY(!save->isEnabled());
        QVERIFY(anyStartsWith(problemTexts(*editor), "$.gradeLevels: "));

        QSignalSpy validity(editor.get(), &DocumentEditor::validityChanged);
        QTest::mouseClick(child<QPushButton>(*editor, "$.gradeLevels#add"), Qt::LeftButton);
        auto *grade = child<QComboBox>(*editor, "$.gradeLevels[0].gradeLevelDescriptor");
        QVERIFY(grade);
        QCOMPARE(grade->count(), 2);
        grade->setCurrentText(kNinthGrade);
        QTRY_VERIFY(editor->canSave());
        QVERIFY(save->isEnabled());
        QVERIFY(!validity.isEmpty());
        QCOMPARE(validity.last().at(0).toBool(), true);

        QSignalSpy saved(editor.get(), &DocumentEditor::saved);
        QTest::mouseClick(save, Qt::LeftButton);
        QCOMPARE(saved.count(), 1);
        const QString id = saved.at(0).at(0).toString();
        QVERIFY(!id.isEmpty());
        QCOMPARE(editor->documentId(), id);
        QVERIFY(!editor->hasUnsavedChanges());
        QVERIFY(!editor->canSave());
        QCOMPARE(child<QLabel>(*editor, "headerLabel")->text(), QStringLiteral("School · 255901"));

        const steward::Response stored = m_session->request("GET", "/ed-fi/schools/" + id.toStdString());
        QCOMPARE(stored.status, 200);
        QCOMPARE(stored.body["schoolId"].get<int>(), 255901);
        QCOMPARE(QString::fromStdString(stored.body["nameOfInstitution"].get<std::string>()),
                 QStringLiteral("Grand Bend High School"));
        QCOMPARE(QString::fromStdString(stored.body["gradeLevels"][0]["gradeLevelDescriptor"].get<std::string>()),
                 QString::fromLatin1(kNinthGrade));

        // Editing the stored document again: a PUT with its etag.
        auto *name = child<QLineEdit>(*editor, "$.nameOfInstitution");
        name->selectAll();
        QTest::keyClicks(name, "Grand Bend HS");
        QTRY_VERIFY(editor->canSave());
        QVERIFY(editor->save());
        QCOMPARE(saved.count(), 2);
        QCOMPARE(QString::fromStdString(
                     m_session->request("GET", "/ed-fi/schools/" + id.toStdString()).body["nameOfInstitution"].get<std::string>()),
                 QStringLiteral("Grand Bend HS"));
    }

    void invalidSchoolShowsErrorsAndKeepsDraft()
    {
        auto editor = makeEditor();
        editor->newDocument(resource("School"));
        fillSchool(*editor, QStringLiteral("255901"), QString());
        auto *name = child<QLineEdit>(*editor, "$.nameOfInstitution");
        QTRY_VERIFY(name->property("invalid").toBool());
        QVERIFY(name->toolTip().contains(QStringLiteral("nameOfInstitution is required")));
        QVERIFY(problemTexts(*editor).contains(QStringLiteral("$.nameOfInstitution: nameOfInstitution is required.")));
        QVERIFY(!editor->canSave());
        QVERIFY(!child<QPushButton>(*editor, "saveButton")->isEnabled());
        QVERIFY(!child<QLineEdit>(*editor, "$.schoolId")->property("invalid").toBool());

        QSignalSpy draftSaved(editor.get(), &DocumentEditor::draftSaved);
        QTest::mouseClick(child<QPushButton>(*editor, "draftButton"), Qt::LeftButton);
        QCOMPARE(draftSaved.count(), 1);
        const qint64 draftId = draftSaved.at(0).at(0).toLongLong();
        QCOMPARE(editor->draftId(), draftId);
        const std::vector<steward::Draft> drafts = m_session->engine().drafts("Ed-Fi", "School");
        QCOMPARE(drafts.size(), std::size_t(1));
        QCOMPARE(drafts[0].draftId, draftId);
        QCOMPARE(QString::fromStdString(drafts[0].text), child<QPlainTextEdit>(*editor, "jsonEdit")->toPlainText());
        QVERIFY(drafts[0].problem["validationErrors"].contains("$.nameOfInstitution"));

        // Typing the name fixes it: Save stores it and the draft goes.
        QTest::keyClicks(name, "Grand Bend High School");
        QTRY_VERIFY(editor->canSave());
        QVERIFY(!name->property("invalid").toBool());
        QVERIFY(editor->save());
        QVERIFY(m_session->engine().drafts("Ed-Fi", "School").empty());
        QCOMPARE(editor->draftId(), qint64(0));
    }

    void courseDraftWaitsForItsSchool()
    {
        auto editor = makeEditor();
        editor->newDocument(resource("Course"));
        fillCourse(*editor);
        QTest::keyClicks(child<QLineEdit>(*editor, "$.educationOrganizationReference.educationOrganizationId"), "255901");
        auto *picker = child<QLineEdit>(*editor, "$.educationOrganizationReference");
        QTRY_VERIFY(picker->property("invalid").toBool());
        QVERIFY(problemTexts(*editor).contains(QStringLiteral(
            "$.educationOrganizationReference: The referenced EducationOrganization item does not exist.")));
        QVERIFY(!editor->canSave());
        QVERIFY(!child<QToolButton>(*editor, "$.educationOrganizationReference#goto")->isEnabled());
        QVERIFY(editor->saveAsDraft());
        const qint64 draftId = editor->draftId();
        QVERIFY(draftId > 0);
        const std::optional<steward::Draft> draft = m_session->engine().draft(draftId);
        QVERIFY(draft);
        QCOMPARE(draft->problem["status"].get<int>(), 409);

        // The School arrives; the reopened draft can be saved.
        const std::string schoolId = post("/ed-fi/schools", school(255901, "Grand Bend High School"));
        auto reopened = makeEditor();
        reopened->openDraft(draftId);
        QCOMPARE(reopened->draftId(), draftId);
        QCOMPARE(child<QLabel>(*reopened, "headerLabel")->text(), QStringLiteral("New Course"));
        QVERIFY(!child<QLabel>(*reopened, "draftNote")->isHidden());
        QTRY_VERIFY(reopened->canSave());
        QVERIFY(!child<QLineEdit>(*reopened, "$.educationOrganizationReference")->property("invalid").toBool());
        QTRY_VERIFY(child<QToolButton>(*reopened, "$.educationOrganizationReference#goto")->isEnabled());
        QSignalSpy navigate(reopened.get(), &DocumentEditor::navigateTo);
        QTest::mouseClick(child<QToolButton>(*reopened, "$.educationOrganizationReference#goto"), Qt::LeftButton);
        QCOMPARE(navigate.count(), 1);
        QCOMPARE(navigate.at(0).at(0).toString(), QString::fromStdString(schoolId));
        QVERIFY(reopened->save());
        QVERIFY(m_session->engine().drafts("Ed-Fi", "Course").empty());

        // The same wait, resolved by revalidating every draft.
        auto another = makeEditor();
        another->newDocument(resource("Course"));
        fillCourse(*another);
        QTest::keyClicks(child<QLineEdit>(*another, "$.educationOrganizationReference.educationOrganizationId"), "255902");
        QVERIFY(another->saveAsDraft());
        post("/ed-fi/schools", school(255902, "Grand Bend Middle School"));
        const steward::RevalidateReport report = m_session->revalidateDrafts({});
        QCOMPARE(report.promoted, 1);
        QCOMPARE(report.remaining, 0);
        QVERIFY(m_session->engine().drafts("Ed-Fi", "Course").empty());
        QCOMPARE(m_session->request("GET", "/ed-fi/courses?educationOrganizationId=255902").body.size(), std::size_t(1));
    }

    void pickerFillsTheReference()
    {
        const std::string schoolId = post("/ed-fi/schools", school(255901, "Grand Bend High School"));
        post("/ed-fi/schools", school(255950, "Grand Bend Elementary"));
        post("/ed-fi/schools", school(100, "Elsewhere"));
        auto editor = makeEditor();
        editor->newDocument(resource("Course"));
        fillCourse(*editor);

        auto *picker = child<QLineEdit>(*editor, "$.educationOrganizationReference");
        picker->setFocus();
        QTest::keyClicks(picker, "2559");
        auto *completer = picker->findChild<QCompleter *>();
        QVERIFY(completer);
        QAbstractItemView *popup = completer->popup();
        QTRY_VERIFY(popup->isVisible());
        QCOMPARE(popup->model()->rowCount(), 2); // the abstract EducationOrganization searches its subclasses
        QVERIFY(popup->model()->index(0, 0).data().toString().startsWith(QStringLiteral("255901 — Grand Bend High School")));
        popup->setCurrentIndex(popup->model()->index(0, 0));
        QTest::keyClick(popup, Qt::Key_Return);
        QTRY_VERIFY(!popup->isVisible());

        auto *eoId = child<QLineEdit>(*editor, "$.educationOrganizationReference.educationOrganizationId");
        QCOMPARE(eoId->text(), QStringLiteral("255901"));
        QCOMPARE(editor->currentBody()["educationOrganizationReference"]["educationOrganizationId"].get<int>(), 255901);
        QTRY_VERIFY(editor->canSave());
        auto *go = child<QToolButton>(*editor, "$.educationOrganizationReference#goto");
        QTRY_VERIFY(go->isEnabled());
        QSignalSpy navigate(editor.get(), &DocumentEditor::navigateTo);
        QTest::mouseClick(go, Qt::LeftButton);
        QCOMPARE(navigate.count(), 1);
        QCOMPARE(navigate.at(0).at(0).toString(), QString::fromStdString(schoolId));

        // The reference fields stay editable; choosing is one undo step.
        QVERIFY(eoId->isEnabled() && !eoId->isReadOnly());
        QVERIFY(editor->save());
        QCOMPARE(m_session->request("GET", "/ed-fi/courses?educationOrganizationId=255901").body.size(), std::size_t(1));
    }

    // A descriptor field shows the code value (with a description that says more), stores the URI,
    // keeps the URI on hover and in the JSON tab, finds values by code or description, and shows a
    // value no stored descriptor has whole, marked.
    void descriptorFieldsShowCodeValuesAndStoreUris()
    {
        QCOMPARE(m_session->request("POST", "/ed-fi/gradeLevelDescriptors",
                                    Json{{"namespace", "uri://ed-fi.org/GradeLevelDescriptor"},
                                         {"codeValue", "12"},
                                         {"shortDescription", "Twelfth grade"}})
                     .status,
                 201);
        auto editor = makeEditor();
        editor->newDocument(resource("School"));
        auto *json = child<QPlainTextEdit>(*editor, "jsonEdit");
        json->selectAll();
        json->insertPlainText(QStringLiteral("{\"schoolId\": 255950, \"nameOfInstitution\": \"Typed Grades\", "
                                             "\"educationOrganizationCategories\": "
                                             "[{\"educationOrganizationCategoryDescriptor\": \"%1\"}]}")
                                  .arg(QLatin1String(kSchoolCategory)));
        QTRY_COMPARE(child<QLineEdit>(*editor, "$.schoolId")->text(), QStringLiteral("255950"));
        QTest::mouseClick(child<QPushButton>(*editor, "$.gradeLevels#add"), Qt::LeftButton);
        auto *grade = child<QComboBox>(*editor, "$.gradeLevels[0].gradeLevelDescriptor");
        QVERIFY(grade);
        QStringList labels;
        for (int i = 0; i < grade->count(); ++i)
            labels << grade->itemText(i);
        QVERIFY2(labels.contains(QStringLiteral("Ninth grade")) && labels.contains(QStringLiteral("12 — Twelfth grade")),
                 qPrintable(labels.join(", ")));
        // Completion finds a value by its description, not only by how its URI starts.
        grade->completer()->setCompletionPrefix(QStringLiteral("twelfth"));
        QCOMPARE(grade->completer()->completionCount(), 1);
        QCOMPARE(grade->completer()->currentCompletion(), QStringLiteral("12 — Twelfth grade"));

        grade->setCurrentIndex(grade->findText(QStringLiteral("Ninth grade")));
        QTRY_VERIFY(json->toPlainText().contains(QLatin1String(kNinthGrade)));
        QVERIFY(!json->toPlainText().contains(QStringLiteral("\"Ninth grade\"")));
        QCOMPARE(grade->currentText(), QStringLiteral("Ninth grade"));
        QCOMPARE(grade->toolTip(), QString::fromLatin1(kNinthGrade));
        // Typed as its code value, without case: the same URI.
        grade->setEditText(QStringLiteral("ninth GRADE"));
        QTRY_VERIFY(json->toPlainText().contains(QLatin1String(kNinthGrade)));
        // Saved, what is stored is the descriptor's URI as the database spells it, not what was typed.
        QVERIFY(editor->save());
        const Json stored = m_session->request("GET", "/ed-fi/schools?schoolId=255950").body;
        QCOMPARE(stored.size(), std::size_t(1));
        QCOMPARE(stored[0]["gradeLevels"][0]["gradeLevelDescriptor"].get<std::string>(), std::string(kNinthGrade));

        // A URI no stored descriptor has (from the JSON tab, an import): shown whole, marked.
        const QString unknown = QStringLiteral("uri://ed-fi.org/GradeLevelDescriptor#Eleventh grade");
        QString text = json->toPlainText();
        text.replace(QLatin1String(kNinthGrade), unknown);
        json->selectAll();
        json->insertPlainText(text);
        QTRY_COMPARE(grade->currentText(), unknown);
        QVERIFY(grade->property("unknownValue").toBool());
        QVERIFY(grade->toolTip().contains(QStringLiteral("not a stored GradeLevelDescriptor value")));
    }

    void jsonTabReportsPositionsAndUndoes()
    {
        auto editor = makeEditor();
        editor->newDocument(resource("School"));
        auto *tabs = child<QTabWidget>(*editor, "tabs");
        auto *json = child<QPlainTextEdit>(*editor, "jsonEdit");
        tabs->setCurrentIndex(1);

        const QString good = QStringLiteral(
            "{\n  \"schoolId\": 255901,\n  \"nameOfInstitution\": \"Grand Bend\",\n"
            "  \"educationOrganizationCategories\": [{\"educationOrganizationCategoryDescriptor\": \"%1\"}],\n"
            "  \"gradeLevels\": [{\"gradeLevelDescriptor\": \"%2\"}]\n}")
                                 .arg(QLatin1String(kSchoolCategory), QLatin1String(kNinthGrade));
        json->selectAll();
        json->insertPlainText(good);
        QTRY_VERIFY(editor->canSave());
        QCOMPARE(child<QLineEdit>(*editor, "$.schoolId")->text(), QStringLiteral("255901"));
        QCOMPARE(child<QLineEdit>(*editor, "$.nameOfInstitution")->text(), QStringLiteral("Grand Bend"));
        editor->undoStack()->clear(); // a fresh start for the steps below

        // A missing comma after line 3: reported at the token that follows.
        QString bad = good;
        bad.replace(QStringLiteral("\"Grand Bend\",\n"), QStringLiteral("\"Grand Bend\"\n"));
        json->selectAll();
        json->insertPlainText(bad);
        editor->revalidateNow();
        QVERIFY(!editor->canSave());
        QVERIFY(editor->currentBody().is_null());
        const QStringList texts = problemTexts(*editor);
        QCOMPARE(texts.size(), 1);
        QVERIFY2(texts[0].startsWith(QStringLiteral("Line 4, column 3: ")), qPrintable(texts[0]));
        QVERIFY(!child<QLabel>(*editor, "formBanner")->isHidden());
        QVERIFY(!child<QLineEdit>(*editor, "$.schoolId")->isEnabled());

        // Clicking the problem puts the cursor there.
        auto *list = child<QListWidget>(*editor, "problemsList");
        json->moveCursor(QTextCursor::Start);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(0)).center());
        QCOMPARE(tabs->currentIndex(), 1);
        QCOMPARE(json->textCursor().blockNumber(), 3);
        QCOMPARE(json->textCursor().positionInBlock(), 2);

        // Undo brings the good text back; redo the bad one.
        auto *undo = child<QToolButton>(*editor, "undoButton");
        auto *redo = child<QToolButton>(*editor, "redoButton");
        QVERIFY(undo->isEnabled());
        QTest::mouseClick(undo, Qt::LeftButton);
        QCOMPARE(json->toPlainText(), good);
        QTRY_VERIFY(editor->canSave());
        QVERIFY(redo->isEnabled());
        QTest::mouseClick(redo, Qt::LeftButton);
        QCOMPARE(json->toPlainText(), bad);
        QTRY_VERIFY(anyStartsWith(problemTexts(*editor), QStringLiteral("Line 4, column 3: ")));
        QVERIFY(!editor->canSave());

        // Fixing it by typing re-enables validation and the form.
        QTextCursor cursor(json->document()->findBlockByNumber(2));
        cursor.movePosition(QTextCursor::EndOfBlock);
        json->setTextCursor(cursor);
        QTest::keyClick(json, Qt::Key_Comma);
        QTRY_VERIFY(editor->canSave());
        QVERIFY(child<QLineEdit>(*editor, "$.schoolId")->isEnabled());
        QVERIFY(child<QLabel>(*editor, "formBanner")->isHidden());
        QCOMPARE(json->toPlainText(), good);

        // A form edit shows in the JSON tab, pretty-printed, and is one undo step.
        tabs->setCurrentIndex(0);
        auto *name = child<QLineEdit>(*editor, "$.nameOfInstitution");
        QTest::keyClicks(name, " High");
        QTRY_VERIFY(json->toPlainText().contains(QStringLiteral("\n  \"nameOfInstitution\": \"Grand Bend High\",\n")));
        QTest::mouseClick(undo, Qt::LeftButton);
        QCOMPARE(name->text(), QStringLiteral("Grand Bend"));
        QTest::mouseClick(redo, Qt::LeftButton);
        QCOMPARE(name->text(), QStringLiteral("Grand Bend High"));
    }

    void undoShortcutUsesTheEditorStack()
    {
        auto editor = makeEditor();
        editor->newDocument(resource("School"));
        editor->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(editor.get()));
        auto *id = child<QLineEdit>(*editor, "$.schoolId");
        id->setFocus();
        QTRY_VERIFY(id->hasFocus());
        QTest::keyClicks(id, "12");
        QTest::keyClick(id, Qt::Key_Tab);
        auto *name = child<QLineEdit>(*editor, "$.nameOfInstitution");
        name->setFocus();
        QTest::keyClicks(name, "North");
        QCOMPARE(editor->undoStack()->count(), 2);
        QTest::keyClick(name, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(name->text(), QString());
        QCOMPARE(id->text(), QStringLiteral("12"));
        QTest::keyClick(name, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(name->text(), QStringLiteral("North"));
    }

    void saveShortcutInsideAWindowWithItsOwn()
    {
        // A main window's Ctrl+S must not make the editor's ambiguous: inside the editor, the editor saves.
        QWidget window;
        auto *layout = new QVBoxLayout(&window);
        auto *editor = new DocumentEditor(m_session.get());
        layout->addWidget(editor);
        auto *windowSave = new QAction(QStringLiteral("Save"), &window);
        windowSave->setShortcut(QKeySequence::Save);
        window.addAction(windowSave);
        QSignalSpy windowSaves(windowSave, &QAction::triggered);
        window.resize(900, 760);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        editor->newDocument(resource("School"));
        fillSchool(*editor, QStringLiteral("255901"), QStringLiteral("Grand Bend"));
        auto *name = child<QLineEdit>(*editor, "$.nameOfInstitution");
        name->setFocus();
        QTRY_VERIFY(name->hasFocus());
        QSignalSpy saved(editor, &DocumentEditor::saved);
        QTest::keyClick(name, Qt::Key_S, Qt::ControlModifier);
        QCOMPARE(saved.count(), 1);
        QCOMPARE(windowSaves.count(), 0);
        QCOMPARE(editor->documentId(), saved.at(0).at(0).toString());
    }

    void historyRestoresAnOlderVersion()
    {
        auto editor = makeEditor();
        editor->newDocument(resource("School"));
        fillSchool(*editor, QStringLiteral("255901"), QStringLiteral("Old Name"));
        QTRY_VERIFY(editor->canSave());
        QVERIFY(editor->save());
        auto *name = child<QLineEdit>(*editor, "$.nameOfInstitution");
        name->selectAll();
        QTest::keyClicks(name, "New Name");
        QTRY_VERIFY(editor->canSave());
        QVERIFY(editor->save());
        QVERIFY(!editor->hasUnsavedChanges());

        auto *tabs = child<QTabWidget>(*editor, "tabs");
        QVERIFY(tabs->isTabEnabled(2));
        tabs->setCurrentIndex(2);
        auto *history = child<QListWidget>(*editor, "historyList");
        QCOMPARE(history->count(), 2);
        QVERIFY(history->item(0)->text().contains(QStringLiteral("update")));
        QVERIFY2(history->item(0)->text().endsWith(QStringLiteral("edit in the app")), qPrintable(history->item(0)->text()));
        QVERIFY(history->item(1)->text().contains(QStringLiteral("insert")));
        // The newer version says what it changed, in the form's words, with the JSON path beside.
        auto *view = child<QPlainTextEdit>(*editor, "historyView");
        history->setCurrentRow(0);
        QVERIFY2(view->toPlainText().contains(
                     QStringLiteral("changed  Name of institution ($.nameOfInstitution): \"Old Name\" → \"New Name\"")),
                 qPrintable(view->toPlainText()));
        QVERIFY(view->toPlainText().contains(QStringLiteral("What changed since version #")));
        // Two versions selected are compared with each other (newer against older).
        history->item(1)->setSelected(true);
        QVERIFY2(view->toPlainText().contains(QStringLiteral("compared with version #")), qPrintable(view->toPlainText()));
        QVERIFY(view->toPlainText().contains(QStringLiteral("\"Old Name\" → \"New Name\"")));
        history->clearSelection();
        history->setCurrentRow(1);
        QVERIFY(view->toPlainText().contains(QStringLiteral("The first version.")));
        QVERIFY(view->toPlainText().contains(QStringLiteral("Old Name")));
        QSignalSpy dirty(editor.get(), &DocumentEditor::dirtyChanged);
        QTest::mouseClick(child<QPushButton>(*editor, "restoreButton"), Qt::LeftButton);
        QCOMPARE(name->text(), QStringLiteral("Old Name"));
        QVERIFY(editor->hasUnsavedChanges());
        QCOMPARE(dirty.count(), 1);
        QCOMPARE(tabs->currentIndex(), 0);
        QTRY_VERIFY(editor->canSave());

        // Revert is undoable and goes back to the stored version.
        QTest::mouseClick(child<QPushButton>(*editor, "revertButton"), Qt::LeftButton);
        QCOMPARE(name->text(), QStringLiteral("New Name"));
        QVERIFY(!editor->hasUnsavedChanges());
        editor->undoStack()->undo();
        QCOMPARE(name->text(), QStringLiteral("Old Name"));
    }

    void concurrentEditIsRefusedWithoutLosingText()
    {
        const std::string id = post("/ed-fi/schools", school(255901, "Grand Bend High School"));
        auto editor = makeEditor();
        editor->openDocument(QString::fromStdString(id));
        QCOMPARE(child<QLabel>(*editor, "headerLabel")->text(), QStringLiteral("School · 255901"));
        auto *name = child<QLineEdit>(*editor, "$.nameOfInstitution");
        QCOMPARE(name->text(), QStringLiteral("Grand Bend High School"));
        // Someone else changes it meanwhile.
        QCOMPARE(m_session->request("PUT", "/ed-fi/schools/" + id, school(255901, "Theirs")).status, 204);
        name->selectAll();
        QTest::keyClicks(name, "Mine");
        QTRY_VERIFY(editor->canSave());
        QVERIFY(!editor->save());
        QCOMPARE(name->text(), QStringLiteral("Mine"));
        QVERIFY(editor->hasUnsavedChanges());
        QVERIFY(child<QLabel>(*editor, "problemsSummary")->text().contains(QStringLiteral("changed elsewhere")));
    }

    void everyDs51ResourceGetsAForm()
    {
        const QString shared = steward::test::sharedEdfiDir();
        if (shared.isEmpty())
            QSKIP("../shared/edfi is not present");
        QString error;
        auto session = AppSession::open(m_dir->filePath(QStringLiteral("ds51.db")),
                                         {shared + "/ds-5.1/ApiSchema.json", shared + "/ds-5.1/ApiSchema-TPDM.json"},
                                         &error);
        QVERIFY2(session, qPrintable(error));
        DocumentEditor editor(session.get());
        editor.resize(900, 760);
        editor.show();
        QElapsedTimer timer;
        timer.start();
        int resources = 0;
        qint64 slowest = 0;
        QString slowestName;
        for (const steward::ResourceSchema *resource : session->model().resources()) {
            QElapsedTimer one;
            one.start();
            editor.newDocument(resource);
            ++resources;
            // Every member of the root object has its input or group, named by its path.
            for (const auto &member : resource->jsonSchema["properties"].items()) {
                const QString path = QStringLiteral("$.") + QString::fromStdString(member.key());
                QVERIFY2(editor.findChild<QWidget *>(path) != nullptr,
                         qPrintable(QString::fromStdString(resource->resourceName) + " " + path));
            }
            // One row in every top-level array builds its sub-form.
            for (const auto &member : resource->jsonSchema["properties"].items())
                if (member.value().value("type", std::string()) == "array")
                    if (auto *add = editor.findChild<QPushButton *>(QStringLiteral("$.%1#add").arg(QString::fromStdString(member.key()))))
                        add->click();
            QVERIFY(editor.currentBody().is_object());
            if (one.elapsed() > slowest) {
                slowest = one.elapsed();
                slowestName = QString::fromStdString(resource->resourceName);
            }
        }
        qInfo("%d resources in %lld ms; slowest %s, %lld ms", resources, static_cast<long long>(timer.elapsed()),
              qPrintable(slowestName), static_cast<long long>(slowest));
        QVERIFY(resources > 300);
        const QString dir = qEnvironmentVariable("STEWARD_SCREENSHOT_DIR");
        if (!dir.isEmpty()) {
            editor.newDocument(session->resourceByName("Ed-Fi", "StudentSchoolAssociation"));
            QTest::qWait(1000); // hundreds of replaced forms are being deleted first
            QVERIFY(editor.grab().save(dir + QStringLiteral("/editor-ssa.png")));
        }
    }

    void screenshot()
    {
        post("/ed-fi/schools", school(255901, "Grand Bend High School"));
        auto editor = makeEditor();
        editor->resize(860, 900);
        editor->newDocument(resource("School"));
        fillSchool(*editor, QStringLiteral("255902"), QString());
        QTest::mouseClick(child<QPushButton>(*editor, "$.addresses#add"), Qt::LeftButton);
        QTest::keyClicks(child<QLineEdit>(*editor, "$.addresses[0].city"), "Austin");
        QTest::keyClicks(child<QLineEdit>(*editor, "$.localEducationAgencyReference.localEducationAgencyId"), "255");
        QTRY_VERIFY(child<QLineEdit>(*editor, "$.nameOfInstitution")->property("invalid").toBool());
        const QString dir = qEnvironmentVariable("STEWARD_SCREENSHOT_DIR");
        if (!dir.isEmpty()) {
            QVERIFY(editor->grab().save(dir + QStringLiteral("/editor.png")));
            child<QTabWidget>(*editor, "tabs")->setCurrentIndex(1);
            QVERIFY(editor->grab().save(dir + QStringLiteral("/editor-json.png")));
        }

        auto course = makeEditor();
        course->resize(860, 700);
        course->newDocument(resource("Course"));
        fillCourse(*course);
        QTest::keyClicks(child<QLineEdit>(*course, "$.educationOrganizationReference.educationOrganizationId"), "255903");
        QTRY_VERIFY(child<QLineEdit>(*course, "$.educationOrganizationReference")->property("invalid").toBool());
        if (!dir.isEmpty())
            QVERIFY(course->grab().save(dir + QStringLiteral("/editor-course.png")));
    }
};

QTEST_MAIN(TestDocumentEditor)
#include "tst_documenteditor.moc"
