// The ways out of a blocked delete: a cascading delete and a re-point, each previewed, applied in one
// transaction, journaled and undone byte for byte; merges and identity changes undone the same way.
#include "BulkEdit.h"
#include "Dependents.h"
#include "IdentityChange.h"
#include "Importer.h"
#include "TestSupport.h"

#include <QFile>

#include <QTest>

#include <SQLiteCpp/Database.h>

#include <map>
#include <set>

using namespace steward;
using namespace steward::test;

namespace {

// Every stored document's id, body and etag: what "byte for byte" compares.
std::map<std::string, std::pair<std::string, std::string>> snapshot(Fixture &f)
{
    std::unique_ptr<Database> reader = Database::open(f.databasePath(), Database::Access::ReadOnly);
    SQLite::Statement s(reader->connection(), "SELECT id, steward_text(body), etag FROM documents");
    std::map<std::string, std::pair<std::string, std::string>> out;
    while (s.executeStep())
        out[s.getColumn(0).getString()] = {s.getColumn(1).getString(), s.getColumn(2).getString()};
    return out;
}

std::string idByQuery(Fixture &f, const std::string &query)
{
    const Response r = f.call("GET", query);
    if (r.status != 200 || !r.body.is_array() || r.body.empty())
        return {};
    return r.body[0]["id"].get<std::string>();
}

UndoResult undo(Fixture &f, std::int64_t opId)
{
    BulkEditor editor(f.engine(), f.database());
    return editor.undo(opId);
}

} // namespace

class TestDependents : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cascadePreviewThenDeleteThenUndoByteForByte()
    {
        Fixture f;
        f.loadSampleDistrict();
        const std::string school = idByQuery(f, "/ed-fi/schools?schoolId=255901001");
        QVERIFY(!school.empty());
        const auto before = snapshot(f);
        const std::int64_t direct = f.engine().referrers(school, 1, 0).total;
        QVERIFY(direct > 0);

        const CascadeDeleteResult preview = cascadeDelete(f.engine(), school, false);
        QVERIFY2(preview.ok, preview.error.c_str());
        QVERIFY(!preview.applied);
        QCOMPARE(preview.opId, 0);
        // The tree: the school, its direct blockers under it, and what depends on those further down.
        QCOMPARE(preview.nodes.front().id, school);
        std::int64_t underRoot = 0;
        std::set<std::string> ids;
        for (const DependentNode &node : preview.nodes) {
            underRoot += node.parent == 0 ? 1 : 0;
            ids.insert(node.id);
        }
        QCOMPARE(underRoot, direct);
        QCOMPARE(ids.size(), preview.nodes.size());
        QVERIFY(preview.nodes.size() > static_cast<std::size_t>(direct)); // sections have enrollments
        QCOMPARE(preview.deleteOrder.size(), preview.nodes.size());
        QCOMPARE(preview.deleteOrder.back(), std::size_t(0)); // the school goes last
        int counted = 0;
        for (const auto &[resource, count] : preview.countsByResource())
            counted += count;
        QCOMPARE(counted, static_cast<int>(preview.nodes.size()));
        // Every referrer is deleted before what it references.
        std::map<std::string, std::size_t> position;
        for (std::size_t i = 0; i < preview.deleteOrder.size(); ++i)
            position[preview.nodes[preview.deleteOrder[i]].id] = i;
        for (const DependentNode &node : preview.nodes)
            for (const Referrer &referrer : f.engine().referrers(node.id, 1000, 0).items)
                QVERIFY(position.at(referrer.id) < position.at(node.id));
        QVERIFY(snapshot(f) == before); // the preview wrote nothing

        const CascadeDeleteResult applied = cascadeDelete(f.engine(), school, true, &preview.nodes);
        QVERIFY2(applied.ok, applied.error.c_str());
        QVERIFY(applied.applied);
        QVERIFY(applied.opId > 0);
        for (const DependentNode &node : preview.nodes)
            QVERIFY(!f.engine().document(node.id));
        QCOMPARE(snapshot(f).size(), before.size() - preview.nodes.size());
        QCOMPARE(checkProblems(f), std::string());
        BulkEditor editor(f.engine(), f.database());
        const std::optional<EditOperation> op = editor.journal().lastUndoable();
        QVERIFY(op && op->opId == applied.opId);
        QCOMPARE(op->kind, std::string("cascade-delete"));
        QCOMPARE(op->itemCount, static_cast<std::int64_t>(preview.nodes.size()));

        const UndoResult undone = undo(f, applied.opId);
        QCOMPARE(undone.documentsRestored, static_cast<int>(preview.nodes.size()));
        QVERIFY(snapshot(f) == before);
        QCOMPARE(checkProblems(f), std::string());
        // The query index follows the restored documents too.
        QCOMPARE(idByQuery(f, "/ed-fi/schools?schoolId=255901001"), school);
        // Undone once only.
        QVERIFY_THROWS_EXCEPTION(EditRefused, undo(f, applied.opId));
    }

    void cascadeApplyRefusesWhenTheDependentsChangedSinceThePreview()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string school = f.create("/ed-fi/schools", Fixture::school(255901));
        f.create("/ed-fi/courses", Fixture::course("ALG-1", 255901));
        const CascadeDeleteResult preview = cascadeDelete(f.engine(), school, false);
        QVERIFY(preview.ok);
        QCOMPARE(preview.nodes.size(), std::size_t(2));
        f.create("/ed-fi/courses", Fixture::course("GEO-1", 255901));
        const CascadeDeleteResult applied = cascadeDelete(f.engine(), school, true, &preview.nodes);
        QVERIFY(!applied.ok);
        QVERIFY2(applied.error.find("changed since the preview") != std::string::npos, applied.error.c_str());
        QVERIFY(f.engine().document(school));
        QCOMPARE(f.call("GET", "/ed-fi/courses").body.size(), std::size_t(2));
    }

    void cascadeOfAnUnreferencedDocumentIsJustItsDelete()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string school = f.create("/ed-fi/schools", Fixture::school(1));
        const CascadeDeleteResult result = cascadeDelete(f.engine(), school, true);
        QVERIFY2(result.ok, result.error.c_str());
        QCOMPARE(result.nodes.size(), std::size_t(1));
        QVERIFY(!f.engine().document(school));
        const CascadeDeleteResult missing = cascadeDelete(f.engine(), school, false);
        QVERIFY(!missing.ok);
        QVERIFY(missing.error.find("no document with the id") != std::string::npos);
    }

    void undoIsRefusedWhenADeletedIdentityCameBack()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string school = f.create("/ed-fi/schools", Fixture::school(255901));
        f.create("/ed-fi/courses", Fixture::course("ALG-1", 255901));
        const CascadeDeleteResult applied = cascadeDelete(f.engine(), school, true);
        QVERIFY(applied.ok);
        // The steward types the School in again: its identity is taken, so the undo cannot put the old one back.
        const std::string again = f.create("/ed-fi/schools", Fixture::school(255901, "Typed again"));
        const auto before = snapshot(f);
        try {
            undo(f, applied.opId);
            QFAIL("the undo went ahead");
        } catch (const EditRefused &e) {
            const std::string message = e.what();
            QVERIFY2(message.find("nothing was changed") != std::string::npos, e.what());
            QVERIFY2(message.find("School " + school) != std::string::npos, e.what());
        }
        QVERIFY(snapshot(f) == before);
        QVERIFY(f.engine().document(again));
    }

    void repointMovesEveryReferrerThenDeletesAndUndoes()
    {
        Fixture f;
        f.loadSampleDistrict();
        const std::string from = idByQuery(f, "/ed-fi/schools?schoolId=255901001");
        const std::string to = idByQuery(f, "/ed-fi/schools?schoolId=255901044");
        QVERIFY(!from.empty() && !to.empty());
        const auto before = snapshot(f);
        const std::int64_t blockers = f.engine().referrers(from, 1, 0).total;
        QVERIFY(blockers > 0);

        const IdentityChangeResult preview = repointReferences(f.engine(), from, to, true, false);
        QVERIFY2(preview.ok, preview.error.c_str());
        QVERIFY(snapshot(f) == before);
        QCOMPARE(preview.steps.back().op, std::string("delete"));
        QCOMPARE(preview.steps.back().id, from);

        const IdentityChangeResult applied = repointReferences(f.engine(), from, to, true, true, &preview.steps);
        QVERIFY2(applied.ok, applied.error.c_str());
        QVERIFY(applied.opId > 0);
        QVERIFY(!f.engine().document(from));
        QCOMPARE(checkProblems(f), std::string());
        // Nothing points at the old identity any more; the sections and courses are the other school's now.
        QCOMPARE(f.call("GET", "/ed-fi/courses?educationOrganizationId=255901001").body.size(), std::size_t(0));
        QVERIFY(f.call("GET", "/ed-fi/sections?schoolId=255901044").body.size() > 0);

        undo(f, applied.opId);
        QVERIFY(snapshot(f) == before);
        QCOMPARE(checkProblems(f), std::string());
    }

    void repointWithoutDeleteLeavesTheDocumentUnreferenced()
    {
        Fixture f;
        f.seedDescriptors();
        const std::string a = f.create("/ed-fi/schools", Fixture::school(1, "A"));
        const std::string b = f.create("/ed-fi/schools", Fixture::school(2, "B"));
        f.create("/ed-fi/courses", Fixture::course("ALG-1", 1));
        const IdentityChangeResult result = repointReferences(f.engine(), a, b, false, true);
        QVERIFY2(result.ok, result.error.c_str());
        QVERIFY(f.engine().document(a));
        QCOMPARE(f.engine().referrers(a, 1, 0).total, 0);
        QCOMPARE(f.engine().referrers(b, 1, 0).total, 1);
        QCOMPARE(f.call("DELETE", "/ed-fi/schools/" + a).status, 204);
        // Across resources it is refused, naming both.
        const std::string course = idByQuery(f, "/ed-fi/courses");
        const IdentityChangeResult refused = repointReferences(f.engine(), course, b, false, true);
        QVERIFY(!refused.ok);
        QVERIFY2(refused.error.find("same resource") != std::string::npos, refused.error.c_str());
    }

    void mergeIsJournaledAndUndone()
    {
        Fixture f;
        f.loadSampleDistrict();
        const Response students = f.call("GET", "/ed-fi/students?limit=2");
        QCOMPARE(students.body.size(), std::size_t(2));
        const std::string keep = students.body[0]["id"];
        const std::string drop = students.body[1]["id"];
        const auto before = snapshot(f);
        const IdentityChangeResult merged = mergeDocuments(f.engine(), keep, drop, true);
        QVERIFY2(merged.ok, merged.error.c_str());
        QVERIFY(merged.opId > 0);
        QVERIFY(!f.engine().document(drop));
        undo(f, merged.opId);
        QVERIFY(snapshot(f) == before);
        QCOMPARE(checkProblems(f), std::string());
    }

    // Who and what wrote each version: an import file, a bulk fix, a cascading delete, its undo.
    void historySaysWhatWroteEachVersion()
    {
        Fixture f;
        f.seedDescriptors();
        QTemporaryDir dir;
        const QString file = dir.filePath("district.ndjson");
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            Json line = Json::object();
            line["resource"] = "ed-fi/schools";
            line["body"] = Fixture::school(5, "Five");
            out.write(QByteArray::fromStdString(line.dump() + "\n"));
        }
        ImportOptions options;
        options.paths = {file.toStdString()};
        options.actor = "alice";
        const ImportReport imported = importFiles(f.engine(), f.model(), options);
        QVERIFY2(imported.totals.created == 1, imported.toJson().dump().c_str());
        const std::string school = idByQuery(f, "/ed-fi/schools?schoolId=5");
        BulkEditor editor(f.engine(), f.database());
        editor.apply({{school}, {}}, {"$.nameOfInstitution", Json("Five Academy")}, "bob");
        const CascadeDeleteResult deleted = cascadeDelete(f.engine(), school, true, nullptr, "carol");
        QVERIFY(deleted.ok);
        undo(f, deleted.opId);
        // Writes after the scoped operations are not theirs.
        QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(6, "Six")).status, 201);

        const std::vector<HistoryEntry> history = f.engine().history(school);
        QCOMPARE(history.size(), std::size_t(4)); // newest first
        QCOMPARE(history[3].source, std::string("import district.ndjson"));
        QCOMPARE(history[3].actor, std::string("alice"));
        QCOMPARE(history[2].source, std::string("bulk fix"));
        QCOMPARE(history[2].actor, std::string("bob"));
        QCOMPARE(history[1].source, std::string("cascade delete"));
        QCOMPARE(history[1].actor, std::string("carol"));
        QCOMPARE(history[0].source, "undo of cascade-delete " + std::to_string(deleted.opId));
        QCOMPARE(f.engine().history(idByQuery(f, "/ed-fi/schools?schoolId=6")).front().source, std::string());
    }

    // Who and what made a change are a row of change_origins, written with the change: one a
    // rolled-back batch wrote is gone, and the next change with the same names writes it again.
    void changeOriginsSurviveRollbacks()
    {
        Fixture f;
        f.seedDescriptors();
        {
            const ChangeSourceScope source(f.engine(), "import first.ndjson");
            f.engine().beginBatch();
            QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(11)).status, 201);
            f.engine().rollbackBatch();
            QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(12)).status, 201);
            f.engine().beginBatch();
            QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(13)).status, 201);
            QCOMPARE(f.call("POST", "/ed-fi/schools", Fixture::school(14)).status, 201);
            f.engine().commitBatch();
        }
        QCOMPARE(f.engine().history(idByQuery(f, "/ed-fi/schools?schoolId=12")).front().source,
                 std::string("import first.ndjson"));
        QCOMPARE(f.engine().history(idByQuery(f, "/ed-fi/schools?schoolId=14")).front().source,
                 std::string("import first.ndjson"));
        QCOMPARE(f.engine().history(idByQuery(f, "/ed-fi/schools?schoolId=12")).front().actor,
                 f.engine().history(idByQuery(f, "/ed-fi/schools?schoolId=14")).front().actor);
        SQLite::Database &db = f.database().connection();
        QCOMPARE(db.execAndGet("SELECT count(*) FROM change_origins WHERE source = 'import first.ndjson'").getInt(), 1);
        QCOMPARE(db.execAndGet("SELECT count(*) FROM changes WHERE source IS NULL").getInt(),
                 db.execAndGet("SELECT count(*) FROM changes").getInt() - 3);
        QCOMPARE(checkProblems(f), std::string());
    }

    void journalTakesTheNewKindsAfterUpgrade()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("old.db");
        Database::open(path.toStdString());
        {
            // Version 11's journal: only bulk edits and mappings, one operation with an item.
            SQLite::Database db(path.toStdString(), SQLite::OPEN_READWRITE);
            Database::registerFunctions(db);
            db.exec(std::string("PRAGMA foreign_keys=OFF;") + kBackBeforeResourceKeys
                    + "DROP TABLE body_dictionaries; DROP TABLE query_index; CREATE TABLE query_values (field_key INTEGER NOT NULL, value NOT NULL COLLATE NOCASE, "
                    "doc INTEGER NOT NULL, PRIMARY KEY (field_key, value, doc)) WITHOUT ROWID;" // version 17's
                    "DROP TABLE search_index;" // version 13's
                    "ALTER TABLE changes DROP COLUMN previous_identity;" // version 15's
                    "ALTER TABLE changes DROP COLUMN source;" // version 14's
                    "DROP TABLE edit_operations;"
                    "CREATE TABLE edit_operations (op_id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL CHECK "
                    "(kind IN ('bulk-edit', 'map-descriptor')), summary TEXT NOT NULL, detail TEXT NOT NULL, "
                    "created_at TEXT NOT NULL, actor TEXT NOT NULL, undone_at TEXT, undone_by TEXT);"
                    "INSERT INTO edit_operations (kind, summary, detail, created_at, actor) VALUES "
                    "('bulk-edit', 'Set city', '{}', 't', 'a');"
                    "INSERT INTO edit_items (op_id, item, target, target_key, project, resource, before_text, "
                    "after_text) VALUES (1, 1, 'document', 'x', 'Ed-Fi', 'School', '{}', '{}');"
                    "PRAGMA user_version=11;");
        }
        std::unique_ptr<Database> upgraded = Database::open(path.toStdString());
        SQLite::Database &c = upgraded->connection();
        QCOMPARE(c.execAndGet("PRAGMA user_version").getInt(), Database::schemaVersion());
        QCOMPARE(c.execAndGet("SELECT count(*) FROM edit_items").getInt(), 1); // not cascaded away
        QCOMPARE(c.execAndGet("SELECT summary FROM edit_operations WHERE op_id = 1").getString(),
                 std::string("Set city"));
        c.exec("INSERT INTO edit_operations (kind, summary, detail, created_at, actor) VALUES "
               "('cascade-delete', 's', '{}', 't', 'a')");
        QVERIFY(!c.execAndGet("SELECT count(*) FROM pragma_foreign_key_check").getInt());
    }
};

QTEST_GUILESS_MAIN(TestDependents)
#include "tst_dependents.moc"
