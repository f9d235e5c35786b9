// Spreadsheets in: CSV dialects and .xlsx read row by row, mappings checked against the model, rows
// made into documents (formats, value maps, several resources a row), suggestions from headers, and
// imports where a bad row becomes a draft naming its row and column beside the good ones.
#include "Importer.h"
#include "RowMapping.h"
#include "Spreadsheet.h"
#include "TestSupport.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <xlsxwriter.h>

#include <algorithm>

using namespace steward;
using namespace steward::test;

namespace {

std::string write(QTemporaryDir &dir, const QString &name, const QByteArray &bytes)
{
    QFile file(dir.filePath(name));
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(name));
    return dir.filePath(name).toStdString();
}

std::vector<SheetRow> readAll(const std::string &path, char delimiter = 0, const std::string &sheet = {},
                              std::vector<std::string> *header = nullptr)
{
    std::string error;
    std::unique_ptr<SheetReader> reader = openSheet(path, delimiter, sheet, &error);
    if (!reader)
        qFatal("%s", error.c_str());
    if (header != nullptr)
        *header = reader->header();
    std::vector<SheetRow> rows;
    SheetRow row;
    while (reader->next(row))
        rows.push_back(row);
    if (!reader->error().empty())
        qFatal("%s", reader->error().c_str());
    return rows;
}

Json studentMapping(const std::string &format = "MM/DD/YYYY")
{
    Json fields = Json::object();
    fields["studentUniqueId"]["column"] = "Student ID";
    fields["firstName"]["column"] = "First Name";
    fields["lastSurname"]["column"] = "Last Name";
    fields["birthDate"]["column"] = "Birth Date";
    fields["birthDate"]["format"] = format;
    Json document = Json::object();
    document["resource"] = "ed-fi/students";
    document["fields"] = fields;
    Json mapping = Json::object();
    mapping["documents"] = Json::array({document});
    return mapping;
}

// JSON written with single quotes (the test's texts hold no apostrophe), read as JSON.
Json quoted(std::string text)
{
    std::replace(text.begin(), text.end(), '\'', '"');
    return Json::parse(text);
}

SheetRow row(std::int64_t number, std::vector<std::string> cells)
{
    return {number, std::move(cells)};
}

} // namespace

class TestSpreadsheet : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void csvDialectsAndEncodings()
    {
        QTemporaryDir dir;
        std::vector<std::string> header;
        // Comma, a byte-order mark, CRLF, a quoted cell with a delimiter, a doubled quote and a line break.
        const std::string comma = write(dir, "a.csv", "\xEF\xBB\xBFId,Name,Note\r\n1,\"Lee, Ann\",\"said \"\"hi\"\"\"\r\n"
                                                      "2,Bo,\"two\nlines\"\r\n\r\n3,Cy,\r\n");
        std::vector<SheetRow> rows = readAll(comma, 0, {}, &header);
        QCOMPARE(header, (std::vector<std::string>{"Id", "Name", "Note"}));
        QCOMPARE(rows.size(), std::size_t(3)); // the blank line is skipped
        QCOMPARE(rows[0].cells[1], std::string("Lee, Ann"));
        QCOMPARE(rows[0].cells[2], std::string("said \"hi\""));
        QCOMPARE(rows[1].cells[2], std::string("two\nlines"));
        QCOMPARE(rows[0].number, 2);
        QCOMPARE(rows[2].number, 6); // after a record spanning two lines and a blank line
        QCOMPARE(rows[2].cells[2], std::string());
        // Semicolons and tabs are found from the header; LF only; UTF-8 without a mark.
        rows = readAll(write(dir, "b.csv", "Id;Nom\n1;Élodie\n"), 0, {}, &header);
        QCOMPARE(header, (std::vector<std::string>{"Id", "Nom"}));
        QCOMPARE(rows[0].cells[1], std::string("Élodie"));
        rows = readAll(write(dir, "c.tsv", "Id\tName\n1\tAnn, Lee\n"), 0, {}, &header);
        QCOMPARE(rows[0].cells[1], std::string("Ann, Lee"));
        // A quote never closed is an error naming the row.
        std::string error;
        std::unique_ptr<SheetReader> reader = openSheet(write(dir, "d.csv", "Id,Name\n1,\"open\n2,x\n"), 0, {}, &error);
        QVERIFY(reader);
        SheetRow r;
        QVERIFY(!reader->next(r));
        QVERIFY2(reader->error().find("d.csv: row 2: a quoted cell is never closed") != std::string::npos,
                 reader->error().c_str());
        QVERIFY(!openSheet(write(dir, "e.csv", ""), 0, {}, &error));
        QVERIFY2(error.find("no header row") != std::string::npos, error.c_str());
    }

    void xlsxWrittenByLibxlsxwriterReadsBack()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("roster.xlsx").toStdString();
        lxw_workbook *workbook = workbook_new(path.c_str());
        workbook_add_worksheet(workbook, "Notes");
        lxw_worksheet *sheet = workbook_add_worksheet(workbook, "Roster");
        lxw_format *date = workbook_add_format(workbook);
        format_set_num_format(date, "mm/dd/yyyy");
        worksheet_write_string(sheet, 0, 0, "Student ID", nullptr);
        worksheet_write_string(sheet, 0, 1, "Last Name", nullptr);
        worksheet_write_string(sheet, 0, 2, "Birth Date", nullptr);
        worksheet_write_string(sheet, 0, 3, "Credits", nullptr);
        worksheet_write_number(sheet, 1, 0, 604822, nullptr);
        worksheet_write_string(sheet, 1, 1, "Nguyễn", nullptr);
        lxw_datetime birth = {2010, 8, 31, 0, 0, 0};
        worksheet_write_datetime(sheet, 1, 2, &birth, date);
        worksheet_write_number(sheet, 1, 3, 3.5, nullptr);
        // Row 3 left empty; row 4 has a gap in its cells.
        worksheet_write_string(sheet, 3, 0, "604823", nullptr);
        worksheet_write_string(sheet, 3, 2, "", nullptr);
        worksheet_write_number(sheet, 3, 2, 40179, date); // 2010-01-01 as a serial
        QCOMPARE(workbook_close(workbook), LXW_NO_ERROR);

        std::vector<std::string> header;
        std::vector<SheetRow> rows = readAll(path, 0, "Roster", &header);
        QCOMPARE(header, (std::vector<std::string>{"Student ID", "Last Name", "Birth Date", "Credits"}));
        QCOMPARE(rows.size(), std::size_t(2));
        QCOMPARE(rows[0].cells, (std::vector<std::string>{"604822", "Nguyễn", "2010-08-31", "3.5"}));
        QCOMPARE(rows[1].number, 4);
        QCOMPARE(rows[1].cells[0], std::string("604823"));
        QCOMPARE(rows[1].cells[1], std::string());
        QCOMPARE(rows[1].cells[2], std::string("2010-01-01"));
        // The first sheet by default (Notes, empty here); a sheet that is not there is named with those that are.
        std::string error;
        QVERIFY(!openSheet(path, 0, {}, &error));
        QVERIFY2(error.find("roster.xlsx: the sheet is empty (no header row)") != std::string::npos, error.c_str());
        QVERIFY(!openSheet(path, 0, "Missing", &error));
        QVERIFY2(error.find("no sheet named 'Missing' (its sheets: Notes, Roster)") != std::string::npos, error.c_str());
        QVERIFY(!openSheet(write(dir, "fake.xlsx", "not a zip"), 0, {}, &error));
        QVERIFY2(error.find("not an .xlsx file") != std::string::npos, error.c_str());
    }

    void everyDateFormat()
    {
        Fixture f;
        const std::vector<std::pair<std::string, std::string>> cases = {
            {"MM/DD/YYYY", "08/31/2010"}, {"M/D/YYYY", "8/31/2010"},  {"DD/MM/YYYY", "31/08/2010"},
            {"D/M/YYYY", "31/8/2010"},    {"D.M.YYYY", "31.8.2010"},  {"DD.MM.YYYY", "31.08.2010"},
            {"YYYY-MM-DD", "2010-08-31"}, {"MM-DD-YYYY", "08-31-2010"}, {"DD-MM-YYYY", "31-08-2010"},
            {"YYYY/MM/DD", "2010/08/31"}, {"excel", "40421"}};
        const std::vector<std::string> header{"Student ID", "First Name", "Last Name", "Birth Date"};
        for (const auto &[format, text] : cases) {
            const RowMapping mapping = parseRowMapping(studentMapping(format), f.model());
            const std::vector<MappedDocument> documents = mapRow(mapping, header, row(2, {"1", "Ann", "Lee", text}));
            QVERIFY2(documents.at(0).error.empty(), (format + ": " + documents[0].error).c_str());
            QCOMPARE(documents[0].body["birthDate"].get<std::string>(), std::string("2010-08-31"));
        }
        // An ISO date (an .xlsx date cell) passes whatever the format; a date that is not one is named.
        const RowMapping mapping = parseRowMapping(studentMapping("DD/MM/YYYY"), f.model());
        QCOMPARE(mapRow(mapping, header, row(2, {"1", "A", "B", "2010-08-31"}))[0].body["birthDate"].get<std::string>(),
                 std::string("2010-08-31"));
        const MappedDocument bad = mapRow(mapping, header, row(7, {"1", "A", "B", "31/02/2010"}))[0];
        QCOMPARE(bad.error, std::string("column 'Birth Date' (birthDate): '31/02/2010' is not a date in DD/MM/YYYY"));
        QCOMPARE(bad.body["birthDate"].get<std::string>(), std::string("31/02/2010")); // kept for the draft
        QCOMPARE(bad.body["studentUniqueId"].get<std::string>(), std::string("1"));
    }

    void numberFormats()
    {
        Fixture f;
        const RowMapping mapping = parseRowMapping(quoted("{'documents': [{'resource': 'ed-fi/staffs', 'fields': {"
                                                          "'staffUniqueId': {'column': 'Id'},"
                                                          "'yearsOfPriorProfessionalExperience': {'column': 'Pro', 'format': '1.234,5'},"
                                                          "'yearsOfPriorTeachingExperience': {'column': 'Teach', 'format': '1,234.5'}}}]}"),
                                                   f.model());
        const std::vector<std::string> header{"Id", "Pro", "Teach"};
        const MappedDocument staff = mapRow(mapping, header, row(2, {"207201", "1.234,5", "1,234.25"})).at(0);
        QVERIFY2(staff.error.empty(), staff.error.c_str());
        QCOMPARE(staff.body["yearsOfPriorProfessionalExperience"].get<double>(), 1234.5);
        QCOMPARE(staff.body["yearsOfPriorTeachingExperience"].get<double>(), 1234.25);
        const MappedDocument bad = mapRow(mapping, header, row(3, {"X", "1,2,3", ""})).at(0);
        QCOMPARE(bad.error, std::string("column 'Pro' (yearsOfPriorProfessionalExperience): '1,2,3' is not a number in 1.234,5"));
        // A whole number written as a decimal still is one.
        const RowMapping courses = parseRowMapping(quoted("{'documents': [{'resource': 'ed-fi/courses', 'fields': {"
                                                          "'numberOfParts': {'column': 'Parts'}}}]}"),
                                                   f.model());
        QCOMPARE(mapRow(courses, {"Parts"}, row(2, {"2.0"})).at(0).body["numberOfParts"].get<std::int64_t>(), 2);
        try {
            parseRowMapping(quoted("{'documents': [{'resource': 'ed-fi/courses', 'fields': {"
                                   "'numberOfParts': {'column': 'P', 'format': 'MM/DD/YYYY'}}}]}"),
                            f.model());
            QFAIL("a date format for a number was accepted");
        } catch (const MappingError &e) {
            QCOMPARE(std::string(e.what()), std::string("documents[0].fields.numberOfParts.format: 'MM/DD/YYYY' is not a "
                                                        "number format (1,234.5 or 1.234,5)"));
        }
    }

    void valueMapsTemplatesConstantsAndFilters()
    {
        Fixture f;
        const RowMapping mapping = parseRowMapping(quoted("{'documents': [ {'resource': 'ed-fi/schools', 'when': {'column': 'Kind', 'equals': 'school'}, 'fields': { 'schoolId': {'column': 'Id'}, 'nameOfInstitution': {'template': '{Name} #{Id}'}, 'gradeLevels[0].gradeLevelDescriptor': {'column': 'Grade', 'values': { '9': 'uri://ed-fi.org/GradeLevelDescriptor#Ninth grade'}}, 'educationOrganizationCategories[0].educationOrganizationCategoryDescriptor': {'constant': 'uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School'}}}]}"),
                                                   f.model());
        const std::vector<std::string> header{"id", "NAME", "Grade", "kind"}; // headers matched without case
        MappedDocument school = mapRow(mapping, header, row(2, {"255901", "Grand Bend", "9", "School"})).at(0);
        QVERIFY2(school.error.empty(), school.error.c_str());
        const Json expected = quoted("{'schoolId': 255901, 'nameOfInstitution': 'Grand Bend #255901', 'gradeLevels': [{'gradeLevelDescriptor': 'uri://ed-fi.org/GradeLevelDescriptor#Ninth grade'}], 'educationOrganizationCategories': [{'educationOrganizationCategoryDescriptor': 'uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School'}]}");
        JSON_COMPARE(school.body, expected);
        QVERIFY(mapRow(mapping, header, row(3, {"1", "x", "9", "District"})).empty()); // the filter
        const MappedDocument unmapped = mapRow(mapping, header, row(4, {"1", "x", "12", "school"})).at(0);
        QCOMPARE(unmapped.error, std::string("column 'Grade' (gradeLevels[0].gradeLevelDescriptor): '12' has no entry "
                                             "in the mapping's values"));
        const MappedDocument notNumber = mapRow(mapping, header, row(5, {"12a", "x", "9", "school"})).at(0);
        QCOMPARE(notNumber.error, std::string("column 'Id' (schoolId): '12a' is not a whole number"));
    }

    void mappingErrorsNameThePlace()
    {
        Fixture f;
        auto refusal = [&f](const std::string &text) {
            try {
                parseRowMapping(quoted(text), f.model());
            } catch (const MappingError &e) {
                return std::string(e.what());
            }
            return std::string("accepted");
        };
        QCOMPARE(refusal("{'documents': [{'resource': 'ed-fi/students', 'fields': {'birthday': {'column': 'B'}}}]}"),
                 std::string("documents[0].fields.birthday: Student has no field 'birthday' that takes a value (dotted "
                             "paths reach nested ones: schoolReference.schoolId, gradeLevels[0].gradeLevelDescriptor)"));
        QCOMPARE(refusal("{'documents': [{'resource': 'ed-fi/pupils', 'fields': {'x': {'column': 'B'}}}]}"),
                 std::string("documents[0].resource: 'ed-fi/pupils' is not a resource of the model (ed-fi/students)"));
        QCOMPARE(refusal("{'documents': [{'resource': 'ed-fi/students', 'fields': {'birthDate': {'column': 'B', 'constant': 1}}}]}"),
                 std::string("documents[0].fields.birthDate: give exactly one of column, constant or template"));
        QCOMPARE(refusal("{'documents': [{'resource': 'ed-fi/students', 'fields': {'birthDate': {'column': 'B', 'format': 'YY'}}}]}"),
                 std::string("documents[0].fields.birthDate.format: 'YY' is not a known date format (MM/DD/YYYY, "
                             "DD/MM/YYYY, D.M.YYYY, YYYY-MM-DD, excel...)"));
        QCOMPARE(refusal("{'documents': [{'resource': 'ed-fi/schools', 'fields': {'gradeLevels': {'column': 'B'}}}]}")
                     .substr(0, 60),
                 std::string("documents[0].fields.gradeLevels: School has no field 'gradeL"));
        const RowMapping mapping = parseRowMapping(studentMapping(), f.model());
        try {
            checkColumns(mapping, {"Student ID", "First Name", "Surname", "Birth Date"});
            QFAIL("a missing column was accepted");
        } catch (const MappingError &e) {
            QCOMPARE(std::string(e.what()), std::string("documents[0].fields.lastSurname: there is no column 'Last Name' "
                                                         "(the columns: 'Student ID', 'First Name', 'Surname', 'Birth Date')"));
        }
    }

    void suggestionsFromHeaders()
    {
        Fixture f;
        f.seedDescriptors();
        const ResourceSchema *students = f.model().findByEndpoint("ed-fi", "students");
        const std::vector<std::string> header{"STUDENT id", "first_name", "Last  Name", "Birth-Date", "Sex", "Locker"};
        const std::vector<SheetRow> rows{row(2, {"1", "Ann", "Lee", "31/08/2010", "F", "12"}),
                                         row(3, {"2", "Bo", "Ng", "01/09/2010", "m", "13"})};
        auto stored = [](const std::string &descriptor) {
            return descriptor == "SexDescriptor"
                       ? std::vector<std::string>{"uri://ed-fi.org/SexDescriptor#Female", "uri://ed-fi.org/SexDescriptor#Male"}
                       : std::vector<std::string>{};
        };
        const MappingSuggestion suggestion = suggestRowMapping(*students, header, rows, stored);
        const Json &fields = suggestion.mapping["documents"][0]["fields"];
        QCOMPARE(fields["studentUniqueId"]["column"].get<std::string>(), std::string("STUDENT id"));
        QCOMPARE(fields["firstName"]["column"].get<std::string>(), std::string("first_name"));
        QCOMPARE(fields["lastSurname"]["column"].get<std::string>(), std::string("Last  Name"));
        QCOMPARE(fields["birthDate"]["format"].get<std::string>(), std::string("DD/MM/YYYY"));
        QCOMPARE(fields["birthSexDescriptor"]["values"]["m"].get<std::string>(), std::string("uri://ed-fi.org/SexDescriptor#Male"));
        QCOMPARE(fields["birthSexDescriptor"]["values"]["F"].get<std::string>(), std::string("uri://ed-fi.org/SexDescriptor#Female"));
        QCOMPARE(suggestion.unmatched, (std::vector<std::string>{"column 'Locker': no field of Student has this name"}));
        // What it suggests is a mapping that parses.
        parseRowMapping(suggestion.mapping, f.model());
    }

    // A roster row makes a Student and its enrollment (written in load order whatever the mapping's
    // order); a bad row becomes drafts naming row and column while the good rows are stored.
    void importOneRowTwoResourcesWithABadRow()
    {
        Fixture f;
        f.seedDescriptors();
        f.create("/ed-fi/schools", Fixture::school(255901));
        QTemporaryDir dir;
        const std::string csv = write(dir, "roster.csv",
                                      "Student ID,First Name,Last Name,Birth Date\n"
                                      "900001,Ana,Nguyen,08/31/2010\n"
                                      "900002,Ben,Obi,13/45/2010\n"
                                      "900003,Chi,Lee,1/2/2011\n");
        Json mapping = quoted("{'documents': [ {'resource': 'ed-fi/studentSchoolAssociations', 'fields': { 'studentReference.studentUniqueId': {'column': 'Student ID'}, 'schoolReference.schoolId': {'constant': 255901}, 'entryDate': {'constant': '2025-08-20'}, 'entryGradeLevelDescriptor': {'constant': 'uri://ed-fi.org/GradeLevelDescriptor#Ninth grade'}}}]}");
        mapping["documents"].push_back(studentMapping()["documents"][0]);
        ImportOptions options;
        options.paths = {csv};
        options.mapping = std::make_shared<RowMapping>(parseRowMapping(mapping, f.model()));
        const ImportReport report = importFiles(f.engine(), f.model(), options);
        QVERIFY2(report.completed, report.error.c_str());
        QCOMPARE(report.totals.created, 4);
        QCOMPARE(report.totals.drafts, 2);
        QCOMPARE(f.call("GET", "/ed-fi/students?studentUniqueId=900003").body[0]["birthDate"].get<std::string>(),
                 std::string("2011-01-02"));
        QCOMPARE(f.call("GET", "/ed-fi/studentSchoolAssociations").body.size(), std::size_t(2));
        bool studentDraft = false;
        for (const ImportDraftEntry &draft : report.drafts) {
            QCOMPARE(draft.line, 3);
            QCOMPARE(draft.file, csv);
            if (draft.resource == "ed-fi/students") {
                studentDraft = true;
                const std::string detail = draft.problem.value("detail", std::string());
                QVERIFY2(detail.find("roster.csv:3: row 3, column 'Birth Date' (birthDate): '13/45/2010' is not a "
                                     "date in MM/DD/YYYY") != std::string::npos,
                         detail.c_str());
            }
        }
        QVERIFY(studentDraft);
        // The draft keeps the student as far as it was made, the bad date where it goes.
        const std::vector<Draft> drafts = f.engine().drafts("Ed-Fi", "Student");
        QCOMPARE(drafts.size(), std::size_t(1));
        QCOMPARE(Json::parse(drafts[0].text)["birthDate"].get<std::string>(), std::string("13/45/2010"));
        QCOMPARE(Json::parse(drafts[0].text)["lastSurname"].get<std::string>(), std::string("Obi"));

        // Without a mapping a spreadsheet is refused, saying how to make one.
        ImportOptions bare;
        bare.paths = {csv};
        const ImportReport refused = importFiles(f.engine(), f.model(), bare);
        QVERIFY(!refused.completed);
        QVERIFY2(refused.error.find("a spreadsheet is imported through a mapping") != std::string::npos,
                 refused.error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSpreadsheet)
#include "tst_spreadsheet.moc"
