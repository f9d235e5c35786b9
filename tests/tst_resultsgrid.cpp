// The "Data quality" grid: its model (under QAbstractItemModelTester), facet counts and filters,
// the bulk-edit and mapping dialogs from preview to apply to undo, double-click navigation, and
// the view exported to CSV and .xlsx and read back cell by cell.
#include "AppSession.h"
#include "ExternalResults.h"
#include "MainWindow.h"
#include "Prompt.h"
#include "ResultsGrid.h"
#include "ResultsGridModel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <SQLiteCpp/Database.h>

using namespace steward;

namespace {

constexpr int kWaitMs = 20000;
const std::string kNinth = "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade";

Json school(int schoolId, const std::string &name)
{
    return Json{{"schoolId", schoolId},
                {"nameOfInstitution", name},
                {"educationOrganizationCategories",
                 Json::array({{{"educationOrganizationCategoryDescriptor",
                                "uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}}})},
                {"gradeLevels", Json::array({{{"gradeLevelDescriptor", kNinth}}})}};
}

// RFC 4180 records back from text: quoted fields, doubled quotes, CRLF between records.
std::vector<std::vector<std::string>> parseCsv(const std::string &text)
{
    std::vector<std::vector<std::string>> records(1);
    std::string field;
    bool quoted = false;
    bool fieldStarted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"' && !fieldStarted) {
            quoted = true;
            fieldStarted = true;
        } else if (c == ',') {
            records.back().push_back(field);
            field.clear();
            fieldStarted = false;
        } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            records.back().push_back(field);
            field.clear();
            fieldStarted = false;
            records.emplace_back();
            ++i;
        } else {
            field += c;
            fieldStarted = true;
        }
    }
    if (records.back().empty() && field.empty())
        records.pop_back();
    return records;
}

QByteArray unzipMember(const QString &archive, const QString &member)
{
    QProcess unzip;
    unzip.start(QStringLiteral("unzip"), {QStringLiteral("-p"), archive, member});
    unzip.waitForFinished(30000);
    return unzip.readAllStandardOutput();
}

// Cell texts of the first worksheet by row and column (0-based), through the shared strings.
std::map<std::pair<int, int>, std::string> readXlsxCells(const QString &path)
{
    std::vector<std::string> shared;
    QXmlStreamReader strings(unzipMember(path, QStringLiteral("xl/sharedStrings.xml")));
    std::string current;
    bool inItem = false;
    while (!strings.atEnd()) {
        strings.readNext();
        if (strings.isStartElement() && strings.name() == QLatin1String("si")) {
            inItem = true;
            current.clear();
        } else if (strings.isStartElement() && strings.name() == QLatin1String("t") && inItem) {
            current += strings.readElementText().toStdString();
        } else if (strings.isEndElement() && strings.name() == QLatin1String("si")) {
            shared.push_back(current);
            inItem = false;
        }
    }
    std::map<std::pair<int, int>, std::string> cells;
    QXmlStreamReader sheet(unzipMember(path, QStringLiteral("xl/worksheets/sheet1.xml")));
    QString reference;
    QString type;
    while (!sheet.atEnd()) {
        sheet.readNext();
        if (sheet.isStartElement() && sheet.name() == QLatin1String("c")) {
            reference = sheet.attributes().value(QLatin1String("r")).toString();
            type = sheet.attributes().value(QLatin1String("t")).toString();
        } else if (sheet.isStartElement() && sheet.name() == QLatin1String("v")) {
            const QString value = sheet.readElementText();
            int column = 0;
            int i = 0;
            while (i < reference.size() && reference[i].isLetter())
                column = column * 26 + (reference[i++].unicode() - 'A' + 1);
            const int row = reference.mid(i).toInt() - 1;
            cells[{row, column - 1}] = type == QLatin1String("s") ? shared.at(value.toInt()) : value.toStdString();
        }
    }
    return cells;
}

QualityRow qualityRow(QualityRow::Kind kind, const std::string &severity, const std::string &resource,
                      const std::string &cause, const std::string &field, const std::string &message)
{
    QualityRow row;
    row.kind = kind;
    row.severity = severity;
    row.project = "Ed-Fi";
    row.resource = resource;
    row.key = kind == QualityRow::Kind::Draft ? "draft 1" : "255901";
    row.cause = cause;
    row.field = field;
    row.message = message;
    return row;
}

} // namespace

class TestResultsGrid : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<AppSession> m_session;
    std::string m_schoolId;

    Json post(const std::string &path, const Json &body)
    {
        const Response response = m_session->request("POST", path, body);
        if (response.status != 201 && response.status != 200)
            qWarning("POST %s answered %d: %s", path.c_str(), response.status, response.body.dump().c_str());
        return response.body;
    }

    std::int64_t schoolDraft(int schoolId, bool withName, const std::string &grade)
    {
        Json body = school(schoolId, "Draft " + std::to_string(schoolId));
        if (!withName)
            body.erase("nameOfInstitution");
        body["gradeLevels"][0]["gradeLevelDescriptor"] = grade;
        return m_session->saveDraft(*m_session->model().findByEndpoint("ed-fi", "schools"),
                                    QString::fromStdString(body.dump(2)), QString(), 0);
    }

    void waitLoaded(ResultsGridModel *model)
    {
        QSignalSpy loaded(model, &ResultsGridModel::loaded);
        model->reload();
        QVERIFY(loaded.wait(kWaitMs));
    }

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QString error;
        m_session = AppSession::open(m_dir->filePath(QStringLiteral("grid.db")), {}, &error);
        QVERIFY2(m_session, qPrintable(error));
        post("/ed-fi/gradeLevelDescriptors", Json{{"namespace", "uri://ed-fi.org/GradeLevelDescriptor"},
                                                   {"codeValue", "Ninth grade"},
                                                   {"shortDescription", "Ninth grade"}});
        post("/ed-fi/educationOrganizationCategoryDescriptors",
             Json{{"namespace", "uri://ed-fi.org/EducationOrganizationCategoryDescriptor"},
                  {"codeValue", "School"},
                  {"shortDescription", "School"}});
        const Response created = m_session->request("POST", "/ed-fi/schools", school(255901, "Grand Bend"));
        QCOMPARE(created.status, 201);
        m_schoolId = created.header("Location").substr(created.header("Location").rfind('/') + 1);
        // Two drafts missing a name, one with an unknown grade level (in two spellings).
        schoolDraft(1, false, kNinth);
        schoolDraft(2, false, kNinth);
        schoolDraft(3, true, "uri://ed-fi.org/GradeLevelDescriptor#9th");
        schoolDraft(4, true, "URI://ED-FI.ORG/GradeLevelDescriptor#9TH");
        // Rule results as the rules helper writes them.
        SQLite::Database db(m_session->databasePath().toStdString(), SQLite::OPEN_READWRITE);
        Database::registerFunctions(db);
        db.exec("INSERT INTO rule_results (pack_id, rule_id, severity, project, resource, doc_id, natural_key, "
                "message, found_at) VALUES "
                "('starter', 'school-has-website', 'warning', 'Ed-Fi', 'School', '" + m_schoolId
                + "', '255901', 'No web site', '2026-01-01T00:00:00Z'), "
                  "('starter', 'school-has-address', 'info', 'Ed-Fi', 'School', '" + m_schoolId
                + "', '255901', 'No address, \"physical\" or mailing', '2026-01-01T00:00:00Z')");
    }

    void cleanup()
    {
        m_session.reset();
        m_dir.reset();
    }

    void modelLoadsAndFacetsCount()
    {
        ResultsGridModel model(m_session->databasePath());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        waitLoaded(&model);
        // One row per draft field (a nameless draft: one field; an unknown descriptor: one field) + 2 rules.
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.columnCount(), int(ResultsGridModel::ColumnCount));

        const QList<QPair<QString, int>> severities = model.facetCounts(ResultsGridModel::Facet::Severity);
        QCOMPARE(severities.value(0), (QPair<QString, int>{QStringLiteral("fatal"), 4}));
        QCOMPARE(severities.size(), 3);
        const QList<QPair<QString, int>> fields = model.facetCounts(ResultsGridModel::Facet::Field);
        QVERIFY(fields.contains(QPair<QString, int>{QStringLiteral("$.gradeLevels[*].gradeLevelDescriptor"), 2}));

        model.setFacetFilter(ResultsGridModel::Facet::Kind, {QStringLiteral("rule")});
        QCOMPARE(model.rowCount(), 2);
        // A facet's counts follow the other facets' filters, not its own.
        QCOMPARE(model.facetCounts(ResultsGridModel::Facet::Severity).size(), 2);
        QCOMPARE(model.facetCounts(ResultsGridModel::Facet::Kind).size(), 2);
        model.setFacetFilter(ResultsGridModel::Facet::Severity, {QStringLiteral("info")});
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, ResultsGridModel::CauseColumn).data().toString(), QStringLiteral("school-has-address"));
        model.clearFilters();
        QCOMPARE(model.rowCount(), 6);

        model.sort(ResultsGridModel::SeverityColumn, Qt::DescendingOrder);
        QCOMPARE(model.index(0, ResultsGridModel::SeverityColumn).data().toString(), QStringLiteral("warning"));
        QCOMPARE(model.index(5, ResultsGridModel::SeverityColumn).data().toString(), QStringLiteral("fatal"));
    }

    void gridFacetCombosFilterTheView()
    {
        ResultsGrid grid(m_session.get());
        QAbstractItemModelTester tester(grid.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        waitLoaded(grid.model());
        QComboBox *kinds = grid.facetCombo(static_cast<int>(ResultsGridModel::Facet::Kind));
        QCOMPARE(kinds->itemText(0), QStringLiteral("Kind: all (6)"));
        const int draftIndex = kinds->findData(QStringLiteral("draft"));
        QCOMPARE(kinds->itemText(draftIndex), QStringLiteral("draft (4)"));
        kinds->setCurrentIndex(draftIndex);
        QCOMPARE(grid.model()->rowCount(), 4);
        // The other combos now count only drafts.
        QComboBox *severities = grid.facetCombo(static_cast<int>(ResultsGridModel::Facet::Severity));
        QCOMPARE(severities->count(), 2);
        QCOMPARE(severities->itemText(1), QStringLiteral("fatal (4)"));
        kinds->setCurrentIndex(0);
        QCOMPARE(grid.model()->rowCount(), 6);
    }

    void bulkEditPreviewApplyAndUndo()
    {
        ResultsGrid grid(m_session.get());
        QAbstractItemModelTester tester(grid.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        waitLoaded(grid.model());
        grid.model()->setFacetFilter(ResultsGridModel::Facet::Field, {QStringLiteral("$.nameOfInstitution")});
        QCOMPARE(grid.model()->rowCount(), 2);
        grid.view()->selectAll();
        const EditSelection selection = grid.selectedTargets();
        QCOMPARE(selection.draftIds.size(), std::size_t(2));
        QVERIFY(selection.documentIds.empty());

        FixDialog dialog(m_session.get(), FixDialog::Mode::Field, selection);
        dialog.setField(QStringLiteral("$.nameOfInstitution"));
        dialog.setValueText(QStringLiteral("Fixed, \"named\" school")); // not JSON: taken as a string
        QVERIFY(!dialog.applyButton()->isEnabled());
        QVERIFY(dialog.preview());
        QCOMPARE(dialog.previewTable()->rowCount(), 2);
        QCOMPARE(dialog.previewTable()->item(0, 3)->text(), QStringLiteral("(missing)"));
        QCOMPARE(dialog.previewTable()->item(0, 4)->text(), QStringLiteral("\"Fixed, \\\"named\\\" school\""));
        QCOMPARE(dialog.previewTable()->item(0, 5)->text(), QStringLiteral("valid"));
        QVERIFY(dialog.applyButton()->isEnabled());
        // Changing the edit takes the preview away: what is applied is always what was shown.
        dialog.setField(QStringLiteral("$.shortNameOfInstitution"));
        QVERIFY(!dialog.applyButton()->isEnabled());
        dialog.setField(QStringLiteral("$.nameOfInstitution"));
        QVERIFY(dialog.preview());

        QSignalSpy reloaded(grid.model(), &ResultsGridModel::loaded);
        QVERIFY(dialog.apply());
        QCOMPARE(dialog.result()->draftsStored, 2);
        QCOMPARE(m_session->request("GET", "/ed-fi/schools?schoolId=1").body.size(), std::size_t(1));
        grid.reload();
        QTRY_VERIFY_WITH_TIMEOUT(!grid.model()->isLoading() && reloaded.count() > 0, kWaitMs);
        grid.model()->clearFilters();
        QCOMPARE(grid.model()->rowCount(), 4); // the two fixed drafts left the grid

        // Edit > Undo last operation puts both drafts back.
        Prompt::setNextAnswer(QMessageBox::Yes);
        grid.undoLastFix();
        QVERIFY2(Prompt::lastText().contains(QStringLiteral("set $.nameOfInstitution")), qPrintable(Prompt::lastText()));
        QCOMPARE(m_session->request("GET", "/ed-fi/schools?schoolId=1").body.size(), std::size_t(0));
        QTRY_COMPARE_WITH_TIMEOUT(grid.model()->totalRows(), 6, kWaitMs);
        // Nothing left to undo: it says so.
        Prompt::setNextAnswer(QMessageBox::Ok);
        grid.undoLastFix();
        QCOMPARE(Prompt::lastText(), QStringLiteral("There is no operation to undo."));
    }

    void refusedPreviewCannotBeApplied()
    {
        ResultsGrid grid(m_session.get());
        waitLoaded(grid.model());
        grid.model()->setFacetFilter(ResultsGridModel::Facet::Kind, {QStringLiteral("rule")});
        grid.view()->selectAll();
        const EditSelection selection = grid.selectedTargets();
        QCOMPARE(selection.documentIds, std::vector<std::string>{m_schoolId}); // two results, one document
        FixDialog dialog(m_session.get(), FixDialog::Mode::Field, selection);
        dialog.setField(QStringLiteral("$.schoolId"));
        dialog.setValueText(QStringLiteral("7"));
        QVERIFY(dialog.preview());
        QCOMPARE(dialog.previewTable()->item(0, 5)->text(), QStringLiteral("refused"));
        QVERIFY(dialog.previewTable()->item(0, 6)->text().contains(QStringLiteral("identity of School")));
        QVERIFY(!dialog.applyButton()->isEnabled());
        QVERIFY(!dialog.apply());
    }

    void mapDescriptorDialogFixesBothSpellings()
    {
        FixDialog dialog(m_session.get(), FixDialog::Mode::Descriptor, {});
        dialog.setDescriptor(QStringLiteral("GradeLevelDescriptor"));
        dialog.setFromValue(QStringLiteral("uri://ed-fi.org/GradeLevelDescriptor#9th"));
        dialog.setToUri(QString::fromStdString(kNinth));
        QVERIFY(dialog.preview());
        int valid = 0;
        for (int r = 0; r < dialog.previewTable()->rowCount(); ++r)
            valid += dialog.previewTable()->item(r, 5)->text() == QLatin1String("valid") ? 1 : 0;
        QCOMPARE(valid, 2);
        QVERIFY(dialog.apply());
        QCOMPARE(dialog.result()->draftsStored, 2);
        QCOMPARE(m_session->request("GET", "/ed-fi/schools").body.size(), std::size_t(3));

        FixDialog unknown(m_session.get(), FixDialog::Mode::Descriptor, {});
        unknown.setDescriptor(QStringLiteral("GradeLevelDescriptor"));
        unknown.setFromValue(QStringLiteral("x"));
        unknown.setToUri(QStringLiteral("uri://ed-fi.org/GradeLevelDescriptor#Twelfth grade"));
        QVERIFY(!unknown.preview());
        QVERIFY(!unknown.applyButton()->isEnabled());
    }

    void doubleClickOpensTheDraftOrDocument()
    {
        ResultsGrid grid(m_session.get());
        grid.resize(900, 400);
        grid.show();
        QVERIFY(QTest::qWaitForWindowExposed(&grid));
        waitLoaded(grid.model());
        grid.model()->sort(ResultsGridModel::KindColumn, Qt::DescendingOrder); // rules first
        QSignalSpy documents(&grid, &ResultsGrid::openDocument);
        QSignalSpy drafts(&grid, &ResultsGrid::openDraft);
        const QRect first = grid.view()->visualRect(grid.model()->index(0, ResultsGridModel::KeyColumn));
        QTest::mouseClick(grid.view()->viewport(), Qt::LeftButton, {}, first.center());
        QTest::mouseDClick(grid.view()->viewport(), Qt::LeftButton, {}, first.center());
        QCOMPARE(documents.count(), 1);
        QCOMPARE(documents.at(0).at(0).toString().toStdString(), m_schoolId);
        const QRect last = grid.view()->visualRect(grid.model()->index(5, ResultsGridModel::KeyColumn));
        QTest::mouseClick(grid.view()->viewport(), Qt::LeftButton, {}, last.center());
        QTest::mouseDClick(grid.view()->viewport(), Qt::LeftButton, {}, last.center());
        QCOMPARE(drafts.count(), 1);
        QVERIFY(drafts.at(0).at(0).toLongLong() > 0);

        // Offscreen picture of the grid, for a look at how it reads.
        const QString shot = QDir(QStringLiteral(STEWARD_SCREENSHOT_DIR)).filePath(QStringLiteral("resultsgrid.png"));
        QVERIFY(grid.grab().save(shot));
    }

    // The state's results sit beside Steward's own: the source facet picks them out, and a warning
    // among them is acknowledged through the reason field and the button.
    void stateResultsWithTheSourceFacetAndAnAcknowledgement()
    {
        const QString file = m_dir->filePath(QStringLiteral("state.jsonl"));
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(Json{{"rule", "10010-0001"}, {"severity", "W"}, {"message", "Campus web site missing"}, {"id", m_schoolId}}
                          .dump()
                          .c_str());
            out.write("\n");
            out.write(Json{{"rule", "10010-0002"}, {"severity", "F"}, {"message", "Campus not in AskTED"}, {"id", m_schoolId}}
                          .dump()
                          .c_str());
            out.write("\n");
        }
        ResultsImportOptions options;
        options.runAt = "2099-01-01";
        const ResultsImportReport imported =
            importExternalResults(m_session->database(), m_session->model(), file.toStdString(), nullptr, options);
        QCOMPARE(imported.matched, std::int64_t(2));

        ResultsGrid grid(m_session.get());
        QAbstractItemModelTester tester(grid.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        grid.resize(1260, 520);
        grid.show();
        waitLoaded(grid.model());
        QCOMPARE(grid.model()->rowCount(), 8);
        QComboBox *source = grid.facetCombo(static_cast<int>(ResultsGridModel::Facet::Source));
        const int stateIndex = source->findText(QStringLiteral("state, file state.jsonl, run 2099-01-01 (2)"));
        QVERIFY2(stateIndex > 0, qPrintable(source->itemText(1)));
        source->setCurrentIndex(stateIndex);
        QCOMPARE(grid.model()->rowCount(), 2);

        int warningRow = -1;
        for (int r = 0; r < grid.model()->rowCount(); ++r)
            if (grid.model()->rowAt(r).severity == "warning")
                warningRow = r;
        QVERIFY(warningRow >= 0);
        QVERIFY(!grid.acknowledgeButton()->isEnabled());
        grid.view()->selectRow(warningRow);
        QVERIFY(!grid.acknowledgeButton()->isEnabled()); // no reason yet
        QTest::keyClicks(grid.acknowledgeReason(), QStringLiteral("Site goes live in January"));
        QVERIFY(grid.acknowledgeButton()->isEnabled());
        QSignalSpy reloaded(grid.model(), &ResultsGridModel::loaded);
        QTest::mouseClick(grid.acknowledgeButton(), Qt::LeftButton);
        QVERIFY(reloaded.wait(kWaitMs));
        QCOMPARE(grid.model()->rowCount(), 2);
        bool sawAcknowledged = false;
        for (int r = 0; r < grid.model()->rowCount(); ++r) {
            const QString status = grid.model()->index(r, ResultsGridModel::StatusColumn).data().toString();
            if (grid.model()->rowAt(r).severity == "warning") {
                QVERIFY2(status.startsWith(QStringLiteral("acknowledged by ")) && status.endsWith("Site goes live in January"),
                         qPrintable(status));
                sawAcknowledged = true;
            }
        }
        QVERIFY(sawAcknowledged);
        QVERIFY(grid.acknowledgeReason()->text().isEmpty());
        source->setCurrentIndex(0);
        QVERIFY(grid.grab().save(QDir(QStringLiteral(STEWARD_SCREENSHOT_DIR)).filePath(QStringLiteral("resultsgrid-state.png"))));
        // The fatal one cannot be: the button stays off for it.
        for (int r = 0; r < grid.model()->rowCount(); ++r)
            if (grid.model()->rowAt(r).severity == "fatal")
                grid.view()->selectRow(r);
        QTest::keyClicks(grid.acknowledgeReason(), QStringLiteral("We disagree"));
        QVERIFY(!grid.acknowledgeButton()->isEnabled());
        QCOMPARE(acknowledgements(m_session->database().connection()).size(), std::size_t(1));
    }

    void exportCsvAndXlsxReadBack()
    {
        ResultsGrid grid(m_session.get());
        std::vector<QualityRow> rows;
        rows.push_back(qualityRow(QualityRow::Kind::Rule, "warning", "School", "comma,rule", "",
                                  "Says \"hello\", twice"));
        rows.push_back(qualityRow(QualityRow::Kind::Draft, "fatal", "Student", "urn:ed-fi:api:bad-request",
                                  "$.addresses[*].city", "line one\nline two"));
        rows.push_back(qualityRow(QualityRow::Kind::Rule, "info", "Staff", "unicode", "$.name",
                                  "Zoë Ångström — 日本語 ✓"));
        grid.model()->setRows(rows);
        const TextTable expected = grid.model()->visibleTable();
        QCOMPARE(expected.rows.size(), std::size_t(3));
        QCOMPARE(expected.rows[1][ResultsGridModel::MessageColumn], std::string("line one\nline two"));

        const QString csv = m_dir->filePath(QStringLiteral("view.csv"));
        QVERIFY(grid.exportView(csv));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const std::string text = file.readAll().toStdString();
        QVERIFY(text.rfind("\xEF\xBB\xBF", 0) != 0); // plain UTF-8, no byte-order mark
        const std::vector<std::vector<std::string>> records = parseCsv(text);
        QCOMPARE(records.size(), std::size_t(4));
        QCOMPARE(records[0], expected.headers);
        for (std::size_t r = 0; r < expected.rows.size(); ++r)
            QCOMPARE(records[r + 1], expected.rows[r]);
        QVERIFY(text.find("\"Says \"\"hello\"\", twice\"") != std::string::npos);

        if (QStandardPaths::findExecutable(QStringLiteral("unzip")).isEmpty())
            QSKIP("unzip is not installed (scripts/install-deps.sh installs it); the .xlsx is not read back");
        const QString xlsx = m_dir->filePath(QStringLiteral("view.xlsx"));
        QVERIFY(grid.exportView(xlsx));
        const std::map<std::pair<int, int>, std::string> cells = readXlsxCells(xlsx);
        for (std::size_t c = 0; c < expected.headers.size(); ++c)
            QCOMPARE(cells.at({0, static_cast<int>(c)}), expected.headers[c]);
        int filled = 0;
        for (std::size_t r = 0; r < expected.rows.size(); ++r)
            for (std::size_t c = 0; c < expected.rows[r].size(); ++c) {
                const std::string &want = expected.rows[r][c];
                auto it = cells.find({static_cast<int>(r + 1), static_cast<int>(c)});
                if (want.empty()) {
                    QVERIFY(it == cells.end());
                } else {
                    QVERIFY2(it != cells.end(), qPrintable(QString::fromStdString(want)));
                    QCOMPARE(it->second, want);
                    ++filled;
                }
            }
        QCOMPARE(filled + 1, int(cells.size() - expected.headers.size()) + 1);

        // A folder that does not exist: told, and false.
        Prompt::setNextAnswer(QMessageBox::Ok);
        QVERIFY(!grid.exportView(m_dir->filePath(QStringLiteral("missing/view.xlsx"))));
        QVERIFY(Prompt::lastText().contains(QStringLiteral("missing/view.xlsx")));
    }
};

QTEST_MAIN(TestResultsGrid)
#include "tst_resultsgrid.moc"
