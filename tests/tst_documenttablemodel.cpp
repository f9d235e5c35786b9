// The documents table at 100,000 rows: first rows at once, the key list in the background, chunks
// loaded where the view looks, prefix filter, sorting, refresh after a write, stale answers dropped,
// and a GUI thread that keeps running while all of it happens.
#include "DocumentTableModel.h"
#include "TestSupport.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <SQLiteCpp/Statement.h>

#include <functional>

using namespace steward;

namespace {

constexpr int kStudents = 100000;
constexpr int kWaitMs = 30000;

enum StudentColumn
{
    UniqueIdColumn,
    FirstNameColumn,
    LastSurnameColumn,
    BirthDateColumn,
    LastModifiedColumn,
};

struct GeneratedStudent
{
    std::string uniqueId;
    std::string firstName;
    std::string lastSurname;
    std::string birthDate;
    std::string lastModified;
};

// Student number n (1-based) of the generated database; the tests compute expectations from it.
GeneratedStudent generatedStudent(int number)
{
    static const char *const firstNames[]
        = {"Ana",  "Ben",   "Chloe", "Dmitri", "Esi", "Farah",  "Gus",   "Hana",  "Ivo",
           "Jun",  "Kofi",  "Lena",  "Mateo",  "Nia", "Omar",   "Priya", "Quinn", "Rosa",
           "Sven", "Tariq", "Uma",   "Vera",   "Wen", "Ximena", "Yusuf", "Zoe"};
    static const char *const lastSurnames[]
        = {"Abara",  "Bianchi",  "Castillo", "Dubois", "Eriksen",  "Fujita", "Garcia", "Haddad", "Ibrahim",
           "Jensen", "Kowalski", "Lopez",    "Moreau", "Nakamura", "Okafor", "Petrov", "Quispe"};
    GeneratedStudent s;
    s.uniqueId = QString::asprintf("S%07d", number).toStdString();
    s.firstName = firstNames[number % 26];
    s.lastSurname = lastSurnames[(number / 26) % 17];
    s.birthDate = QString::asprintf("20%02d-%02d-%02d", 5 + number % 10, 1 + number % 12, 1 + number % 28)
                      .toStdString();
    // Not in creation order, so sorting by it means something.
    const qint64 second = (static_cast<qint64>(number) * 7919) % 1000003;
    s.lastModified
        = QDateTime::fromSecsSinceEpoch(1700000000 + second, Qt::UTC).toString(Qt::ISODate).toStdString();
    return s;
}

// Students straight into the documents table (no aliases or refs: the table does not read them).
void generateStudents(const std::string &path, const Model &model, int count)
{
    const ResourceSchema *students = model.findByEndpoint("ed-fi", "students");
    const IdentityCalculator identities(model);
    std::unique_ptr<Database> database = Database::open(path);
    SQLite::Database &db = database->connection();
    ImmediateTransaction transaction(db);
    SQLite::Statement name(db, "INSERT INTO resources (project, resource) VALUES (?, ?) ON CONFLICT DO NOTHING");
    name.bind(1, students->projectName());
    name.bind(2, students->resourceName);
    name.exec();
    SQLite::Statement insert(db,
                             "INSERT INTO document_rows (id, resource_key, identity, body, etag, last_modified) "
                             "VALUES (steward_id_key(?), (SELECT resource_key FROM resources WHERE project = ? AND "
                             "resource = ?), ?, ?, steward_hex_key(?), steward_time_key(?))");
    // A document's referential id is its own alias's.
    SQLite::Statement alias(db, "INSERT INTO alias_rows (referential_id, doc_key, resource_key) "
                                "SELECT ?, doc_key, resource_key FROM document_rows WHERE doc_key = last_insert_rowid()");
    for (int number = 1; number <= count; ++number) {
        const GeneratedStudent s = generatedStudent(number);
        const Json body{{"studentUniqueId", s.uniqueId},
                        {"firstName", s.firstName},
                        {"lastSurname", s.lastSurname},
                        {"birthDate", s.birthDate},
                        {"birthCity", "Austin"}};
        const Json identity = identities.identityObject(*students, body);
        const Uuid referentialId = identities.documentIdentity(*students, body)->referentialId();
        insert.bind(1, Uuid::random().toString());
        insert.bind(2, students->projectName());
        insert.bind(3, students->resourceName);
        insert.bind(4, dumpJson(identity));
        insert.bind(5, dumpJson(body));
        insert.bind(6, QString::asprintf("%016x", number).toStdString());
        insert.bind(7, s.lastModified);
        insert.exec();
        insert.reset();
        alias.bind(1, referentialId.bytes.data(), static_cast<int>(referentialId.bytes.size()));
        alias.exec();
        alias.reset();
    }
    transaction.commit();
}

QString cell(const QAbstractItemModel &model, int row, int column)
{
    return model.data(model.index(row, column)).toString();
}

bool isLoaded(const QAbstractItemModel &model, int row)
{
    return model.data(model.index(row, 0), DocumentTableModel::LoadedRole).toBool();
}

bool waitUntil(const std::function<bool()> &condition, int timeoutMs = kWaitMs)
{
    return QTest::qWaitFor(condition, timeoutMs);
}

bool waitForKeys(const DocumentTableModel &model)
{
    return waitUntil([&] { return !model.isLoading() && model.totalCount() >= 0; });
}

// Asks for the rows (as a view would) and waits for all of them to arrive.
bool waitForRows(const DocumentTableModel &model, int first, int last)
{
    return waitUntil([&] {
        for (int row = first; row <= last; ++row)
            if (!isLoaded(model, row))
                return false;
        return true;
    });
}

} // namespace

class TestDocumentTableModel : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<Model> m_model;
    const ResourceSchema *m_students = nullptr;
    QTemporaryDir m_dir;
    QString m_databasePath;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_model = Model::loadStarter();
        m_students = m_model->findByEndpoint("ed-fi", "students");
        QVERIFY(m_students != nullptr);
        m_databasePath = m_dir.filePath(QStringLiteral("students.db"));
        QElapsedTimer timer;
        timer.start();
        generateStudents(m_databasePath.toStdString(), *m_model, kStudents);
        qInfo("generated %d students in %lld ms", kStudents, timer.elapsed());
    }

    void firstRowsThenTotal()
    {
        DocumentTableModel model(m_databasePath, *m_model);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy totals(&model, &DocumentTableModel::totalCountChanged);

        model.setResource(m_students);
        QVERIFY(model.isLoading());
        QCOMPARE(model.totalCount(), -1);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), 5);
        // The form's labels, the JSON names in the tooltips.
        QCOMPARE(model.headerData(UniqueIdColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Student unique id"));
        QCOMPARE(model.headerData(UniqueIdColumn, Qt::Horizontal, Qt::ToolTipRole).toString(),
                 QStringLiteral("$.studentUniqueId"));
        QCOMPARE(model.headerData(FirstNameColumn, Qt::Horizontal).toString(), QStringLiteral("First name"));
        QCOMPARE(model.headerData(LastSurnameColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Last surname"));
        QCOMPARE(model.headerData(BirthDateColumn, Qt::Horizontal).toString(), QStringLiteral("Birth date"));
        QCOMPARE(model.headerData(LastModifiedColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Last modified"));

        QVERIFY(waitForKeys(model));
        // The first page came in on its own, before the key list added the rest.
        QVERIFY(inserted.size() >= 2);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(inserted.at(0).at(2).toInt(), 199);
        QCOMPARE(inserted.at(1).at(1).toInt(), 200);
        QCOMPARE(inserted.at(1).at(2).toInt(), kStudents - 1);
        QCOMPARE(model.totalCount(), qint64(kStudents));
        QCOMPARE(model.rowCount(), kStudents);
        QCOMPARE(totals.last().at(0).toLongLong(), qint64(kStudents));
        QVERIFY(!model.isLoading());

        const GeneratedStudent first = generatedStudent(1);
        QVERIFY(isLoaded(model, 0));
        QVERIFY(isLoaded(model, 199));
        QCOMPARE(cell(model, 0, UniqueIdColumn), QString::fromStdString(first.uniqueId));
        QCOMPARE(cell(model, 0, FirstNameColumn), QString::fromStdString(first.firstName));
        QCOMPARE(cell(model, 0, LastSurnameColumn), QString::fromStdString(first.lastSurname));
        QCOMPARE(cell(model, 0, BirthDateColumn), QString::fromStdString(first.birthDate));
        QCOMPARE(cell(model, 0, LastModifiedColumn), QString::fromStdString(first.lastModified));
        QCOMPARE(model.data(model.index(0, 0), DocumentTableModel::NaturalKeyRole).toString(),
                 QString::fromStdString(first.uniqueId));
        const QString id = model.documentId(0);
        QCOMPARE(id.size(), 36);
        QCOMPARE(model.data(model.index(0, 0), DocumentTableModel::DocumentIdRole).toString(), id);
        QCOMPARE(model.rowOfDocument(id), 0);

        // A row in the middle is a placeholder until its chunk arrives.
        QVERIFY(!isLoaded(model, 50000));
        QCOMPARE(cell(model, 50000, UniqueIdColumn), QStringLiteral("…"));
        QCOMPARE(model.documentId(50000), QString());
        QVERIFY(waitForRows(model, 50000, 50000));
        QCOMPARE(cell(model, 50000, UniqueIdColumn),
                 QString::fromStdString(generatedStudent(50001).uniqueId));
        QCOMPARE(cell(model, 50000, FirstNameColumn),
                 QString::fromStdString(generatedStudent(50001).firstName));
    }

    void scrollToTheEnd()
    {
        DocumentTableModel model(m_databasePath, *m_model);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResource(m_students);
        QVERIFY(waitForKeys(model));

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const int last = kStudents - 1;
        QVERIFY(!isLoaded(model, last));
        QVERIFY(waitForRows(model, last - 30, last));
        QVERIFY(!changed.isEmpty());
        const GeneratedStudent student = generatedStudent(kStudents);
        QCOMPARE(cell(model, last, UniqueIdColumn), QString::fromStdString(student.uniqueId));
        QCOMPARE(cell(model, last, FirstNameColumn), QString::fromStdString(student.firstName));
        QCOMPARE(cell(model, last, LastModifiedColumn), QString::fromStdString(student.lastModified));
        QCOMPARE(cell(model, last - 30, UniqueIdColumn),
                 QString::fromStdString(generatedStudent(kStudents - 30).uniqueId));
        QCOMPARE(model.rowOfDocument(model.documentId(last)), last);
    }

    void filterByNaturalKeyPrefix()
    {
        DocumentTableModel model(m_databasePath, *m_model);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFilter(QStringLiteral("s000012")); // before a resource: kept; lower case: matches anyway
        model.setResource(m_students);
        QCOMPARE(model.filter(), QStringLiteral("s000012"));
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(10));
        QCOMPARE(model.rowCount(), 10);
        for (int row = 0; row < 10; ++row)
            QCOMPARE(cell(model, row, UniqueIdColumn),
                     QString::fromStdString(generatedStudent(120 + row).uniqueId));

        model.setFilter(QStringLiteral("S0099"));
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(1000));
        QVERIFY(waitForRows(model, 990, 999));
        QCOMPARE(cell(model, 999, UniqueIdColumn), QStringLiteral("S0099999"));

        // LIKE wildcards in the prefix are plain characters.
        model.setFilter(QStringLiteral("S_00"));
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(0));
        model.setFilter(QStringLiteral("%"));
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(0));

        model.setFilter(QString());
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(kStudents));
    }

    void sortByColumns()
    {
        DocumentTableModel model(m_databasePath, *m_model);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResource(m_students);
        QVERIFY(waitForKeys(model));

        // The first identity column sorts by the natural key index.
        model.sort(UniqueIdColumn, Qt::DescendingOrder);
        QVERIFY(model.isLoading());
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(kStudents));
        QCOMPARE(cell(model, 0, UniqueIdColumn), QStringLiteral("S0100000"));
        QCOMPARE(cell(model, 1, UniqueIdColumn), QStringLiteral("S0099999"));
        QVERIFY(waitForRows(model, kStudents - 1, kStudents - 1));
        QCOMPARE(cell(model, kStudents - 1, UniqueIdColumn), QStringLiteral("S0000001"));

        // Another column sorts by its JSON path, ties by creation order in the same direction.
        int expectedNumber = 1;
        for (int number = 1; number <= kStudents; ++number)
            if (generatedStudent(number).firstName >= generatedStudent(expectedNumber).firstName)
                expectedNumber = number;
        model.sort(FirstNameColumn, Qt::DescendingOrder);
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(kStudents));
        QCOMPARE(cell(model, 0, UniqueIdColumn),
                 QString::fromStdString(generatedStudent(expectedNumber).uniqueId));
        QCOMPARE(cell(model, 0, FirstNameColumn), QStringLiteral("Zoe"));

        // Last modified, ascending; with a filter on top.
        int oldest = 1;
        for (int number = 1; number <= kStudents; ++number)
            if (generatedStudent(number).lastModified < generatedStudent(oldest).lastModified)
                oldest = number;
        model.sort(LastModifiedColumn, Qt::AscendingOrder);
        QVERIFY(waitForKeys(model));
        QCOMPARE(cell(model, 0, UniqueIdColumn), QString::fromStdString(generatedStudent(oldest).uniqueId));
        model.setFilter(QStringLiteral("S000002"));
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(10));
        for (int row = 1; row < 10; ++row)
            QVERIFY(cell(model, row - 1, LastModifiedColumn) <= cell(model, row, LastModifiedColumn));

        // No sort column: creation order again.
        model.setFilter(QString());
        model.sort(-1);
        QVERIFY(waitForKeys(model));
        QCOMPARE(cell(model, 0, UniqueIdColumn), QStringLiteral("S0000001"));
    }

    void refreshShowsAWriteFromTheEngine()
    {
        const QString path = m_dir.filePath(QStringLiteral("refresh.db"));
        QFile::remove(path);
        QVERIFY(QFile::copy(m_databasePath, path));
        // The writer is a second connection on the same file, as in the app.
        std::unique_ptr<Database> writer = Database::open(path.toStdString());
        Engine engine(*m_model, *writer);

        DocumentTableModel model(path, *m_model);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResource(m_students);
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(kStudents));

        const Response response = engine.handle(Request::make("POST", "/ed-fi/students", "test",
                                                              Json{{"studentUniqueId", "NEW-0001"},
                                                                   {"firstName", "Nova"},
                                                                   {"lastSurname", "Quill"},
                                                                   {"birthDate", "2010-05-05"}}));
        QCOMPARE(response.status, 201);
        const QString id = QString::fromStdString(test::idFromLocation(response.header("Location")));

        model.refresh();
        QVERIFY(model.isLoading());
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(kStudents + 1));
        QVERIFY(waitForRows(model, kStudents, kStudents));
        QCOMPARE(cell(model, kStudents, UniqueIdColumn), QStringLiteral("NEW-0001"));
        QCOMPARE(cell(model, kStudents, FirstNameColumn), QStringLiteral("Nova"));
        QCOMPARE(model.rowOfDocument(id), kStudents);

        model.setFilter(QStringLiteral("new-"));
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(1));
        QCOMPARE(model.documentId(0), id);
    }

    void staleResultsAreDropped()
    {
        DocumentTableModel model(m_databasePath, *m_model);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy totals(&model, &DocumentTableModel::totalCountChanged);

        // Three requests before any answer: only the last may show.
        model.setResource(m_students);
        model.setFilter(QStringLiteral("S00002"));
        model.setFilter(QStringLiteral("S000030"));
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(10));
        QCOMPARE(model.rowCount(), 10);
        for (int row = 0; row < 10; ++row)
            QCOMPARE(cell(model, row, UniqueIdColumn),
                     QString::fromStdString(generatedStudent(300 + row).uniqueId));
        for (const QList<QVariant> &signal : totals)
            QVERIFY2(signal.at(0).toLongLong() == 10, qPrintable(signal.at(0).toString()));

        // A slow sort overtaken by a fast one, then a filter change while chunks are on their way.
        totals.clear();
        model.setFilter(QString());
        model.sort(LastSurnameColumn, Qt::DescendingOrder);
        model.sort(UniqueIdColumn, Qt::AscendingOrder);
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(kStudents));
        QCOMPARE(cell(model, 0, UniqueIdColumn), QStringLiteral("S0000001"));
        QVERIFY(!isLoaded(model, 70000));          // asks for a chunk...
        model.setFilter(QStringLiteral("S00001")); // ...which must not land in the filtered rows
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(100));
        QVERIFY(waitForRows(model, 0, 99));
        for (int row = 0; row < 100; ++row)
            QCOMPARE(cell(model, row, UniqueIdColumn),
                     QString::fromStdString(generatedStudent(100 + row).uniqueId));
        for (const QList<QVariant> &signal : totals) {
            const qint64 count = signal.at(0).toLongLong();
            QVERIFY2(count == -1 || count == kStudents || count == 100, qPrintable(QString::number(count)));
        }

        // Answers already sent when the request changes: the loader could not hold them back, the
        // model must drop them. (The test blocks its own thread so the loader answers meanwhile.)
        totals.clear();
        model.setFilter(QStringLiteral("S00004"));
        QThread::msleep(500);
        model.setFilter(QStringLiteral("S000050"));
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(10));
        for (int row = 0; row < 10; ++row)
            QCOMPARE(cell(model, row, UniqueIdColumn),
                     QString::fromStdString(generatedStudent(500 + row).uniqueId));
        for (const QList<QVariant> &signal : totals) {
            const qint64 count = signal.at(0).toLongLong();
            QVERIFY2(count == -1 || count == 10, qPrintable(QString::number(count)));
        }
    }

    void guiThreadKeepsRunningWhileLoading()
    {
        DocumentTableModel model(m_databasePath, *m_model);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);

        QElapsedTimer clock;
        clock.start();
        std::vector<qint64> ticks;
        QTimer ticker;
        ticker.setInterval(10);
        connect(&ticker, &QTimer::timeout, this, [&] { ticks.push_back(clock.elapsed()); });
        ticker.start();

        // A sort by a JSON path reads every body: the slowest load there is.
        model.sort(LastSurnameColumn, Qt::DescendingOrder);
        const qint64 started = clock.elapsed();
        model.setResource(m_students);
        QVERIFY(model.isLoading());
        QVERIFY(waitForKeys(model));
        const qint64 finished = clock.elapsed();
        ticker.stop();
        QCOMPARE(model.totalCount(), qint64(kStudents));

        int ticksWhileLoading = 0;
        qint64 longestGap = 0;
        for (std::size_t i = 0; i < ticks.size(); ++i) {
            if (ticks[i] >= started && ticks[i] <= finished)
                ++ticksWhileLoading;
            if (i > 0)
                longestGap = std::max(longestGap, ticks[i] - ticks[i - 1]);
        }
        qInfo("loading took %lld ms; %d ticks meanwhile; longest gap between ticks %lld ms",
              finished - started, ticksWhileLoading, longestGap);
        QVERIFY(ticksWhileLoading > 0);
        QVERIFY(longestGap < 2000);
    }

    void tableViewScrolledToTheBottom()
    {
        DocumentTableModel model(m_databasePath, *m_model);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTableView view;
        view.setModel(&model);
        view.resize(900, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));

        model.setResource(m_students);
        QVERIFY(waitForKeys(model));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        view.scrollToBottom();

        // Only the view asks for rows here: wait for the chunk holding the last row to arrive.
        const int last = kStudents - 1;
        QVERIFY(waitUntil([&] {
            for (const QList<QVariant> &signal : changed)
                if (signal.at(1).value<QModelIndex>().row() == last)
                    return true;
            return false;
        }));
        const int top = view.rowAt(0);
        const int bottom = view.rowAt(view.viewport()->height() - 1);
        QVERIFY(top > 0);
        QCOMPARE(bottom == -1 ? last : bottom, last);
        QVERIFY(waitForRows(model, top, last));
        QCOMPARE(cell(model, last, UniqueIdColumn),
                 QString::fromStdString(generatedStudent(kStudents).uniqueId));
        QCOMPARE(view.model()->data(view.model()->index(top, UniqueIdColumn)).toString(),
                 QString::fromStdString(generatedStudent(top + 1).uniqueId));
    }

    void columnsOfOtherResources()
    {
        DocumentTableModel model(m_databasePath, *m_model);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto headers = [&] {
            QStringList out;
            for (int column = 0; column < model.columnCount(); ++column)
                out << model.headerData(column, Qt::Horizontal).toString();
            return out;
        };

        model.setResource(m_model->findByEndpoint("ed-fi", "sections"));
        QCOMPARE(headers(),
                 QStringList({"Local course code", "School id", "School year", "Session name", "Section identifier",
                              "Available credits", "Section name", "Sequence of course", "Last modified"}));
        // The JSON path is the header's tooltip.
        QCOMPARE(model.headerData(0, Qt::Horizontal, Qt::ToolTipRole).toString(),
                 QStringLiteral("$.courseOfferingReference.localCourseCode"));
        QVERIFY(waitForKeys(model));
        QCOMPARE(model.totalCount(), qint64(0));
        QCOMPARE(model.rowCount(), 0);

        model.setResource(m_model->findByEndpoint("ed-fi", "gradeLevelDescriptors"));
        QCOMPARE(headers(),
                 QStringList({"Namespace", "Code value", "Short description", "Description", "Effective begin date",
                              "Last modified"}));
        model.setResource(m_model->findByEndpoint("ed-fi", "schools"));
        QCOMPARE(headers(),
                 QStringList({"School id", "Name of institution", "Short name of institution", "Web site",
                              "Last modified"}));
        model.setResource(m_model->findByEndpoint("ed-fi", "courses"));
        QCOMPARE(headers(),
                 QStringList({"Course code", "Education organization id", "Course title", "Number of parts",
                              "Course description", "Last modified"}));
        QVERIFY(waitForKeys(model));

        model.setResource(nullptr);
        QCOMPARE(model.columnCount(), 0);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.isLoading());
        QCOMPARE(model.totalCount(), qint64(-1));
    }
};

QTEST_MAIN(TestDocumentTableModel)
#include "tst_documenttablemodel.moc"
