#include "PostgresDesign.h"

#include "Engine.h"
#include "ImportSource.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <chrono>
#include <fstream>

#include <pwd.h>
#include <unistd.h>

using namespace steward;

namespace {

constexpr int kPartitions = 16;
constexpr std::int64_t kDocumentsPerTransaction = 50000; // as the import's chunks

// The design's tables, from its published description: documents by partition with their JSON as
// jsonb, an alias per referential id (a subclass has its superclass's too), and references from a
// document to the alias it points at; the foreign keys make a reference to nothing fail.
QString schemaSql()
{
    QString sql = QStringLiteral(
        "CREATE SCHEMA dms;"
        "CREATE TABLE dms.document (id BIGINT GENERATED ALWAYS AS IDENTITY, documentpartitionkey SMALLINT NOT NULL,"
        " documentuuid UUID NOT NULL, resourcename VARCHAR(256) NOT NULL, resourceversion VARCHAR(64) NOT NULL,"
        " isdescriptor BOOLEAN NOT NULL, projectname VARCHAR(256) NOT NULL, edfidoc JSONB NOT NULL,"
        " createdat TIMESTAMP NOT NULL DEFAULT now(), lastmodifiedat TIMESTAMP NOT NULL DEFAULT now(),"
        " PRIMARY KEY (documentpartitionkey, id)) PARTITION BY LIST (documentpartitionkey);"
        "CREATE UNIQUE INDEX ux_document_uuid ON dms.document (documentpartitionkey, documentuuid);"
        "CREATE TABLE dms.alias (id BIGINT GENERATED ALWAYS AS IDENTITY, referentialpartitionkey SMALLINT NOT NULL,"
        " referentialid UUID NOT NULL, documentid BIGINT NOT NULL, documentpartitionkey SMALLINT NOT NULL,"
        " PRIMARY KEY (referentialpartitionkey, id),"
        " FOREIGN KEY (documentpartitionkey, documentid) REFERENCES dms.document (documentpartitionkey, id)"
        " ON DELETE CASCADE) PARTITION BY LIST (referentialpartitionkey);"
        "CREATE UNIQUE INDEX ux_alias_referentialid ON dms.alias (referentialpartitionkey, referentialid);"
        "CREATE INDEX ix_alias_document ON dms.alias (documentpartitionkey, documentid);"
        "CREATE TABLE dms.reference (id BIGINT GENERATED ALWAYS AS IDENTITY, parentdocumentid BIGINT NOT NULL,"
        " parentdocumentpartitionkey SMALLINT NOT NULL, referentialpartitionkey SMALLINT NOT NULL,"
        " aliasid BIGINT NOT NULL, PRIMARY KEY (parentdocumentpartitionkey, id),"
        " FOREIGN KEY (parentdocumentpartitionkey, parentdocumentid) REFERENCES dms.document"
        " (documentpartitionkey, id) ON DELETE CASCADE,"
        " FOREIGN KEY (referentialpartitionkey, aliasid) REFERENCES dms.alias (referentialpartitionkey, id))"
        " PARTITION BY LIST (parentdocumentpartitionkey);"
        "CREATE INDEX ix_reference_alias ON dms.reference (referentialpartitionkey, aliasid);"
        "CREATE INDEX ix_reference_parent ON dms.reference (parentdocumentpartitionkey, parentdocumentid);");
    for (int p = 0; p < kPartitions; ++p)
        for (const char *table : {"document", "alias", "reference"})
            sql += QStringLiteral("CREATE TABLE dms.%1_%2 PARTITION OF dms.%1 FOR VALUES IN (%2);")
                       .arg(QString::fromLatin1(table))
                       .arg(p);
    return sql;
}

int partitionOf(const Uuid &uuid)
{
    return uuid.bytes.back() % kPartitions;
}

std::string quoted(const std::string &text)
{
    std::string out = "'";
    for (char c : text) {
        out += c;
        if (c == '\'')
            out += '\'';
    }
    return out + "'";
}

// Each document is one execution of a prepared statement (one round trip, as a request costs at
// least), 50,000 a transaction: the document, its aliases, and its references found through the aliases they point at.
// A generic plan: custom plans over 16 partitions took planning 2.7 ms each, more than the work.
// It is made on empty tables, where the planner chose a hash join over sequential scans of every
// alias partition: each reference lookup read all aliases, and the load slowed as it grew (EXPLAIN
// ANALYZE after 22,204 documents: 8.7 of 12.8 ms). Index lookups, as the design means them, are
// forced instead: 11% less time at 22,204 documents. (The load still slows as it grows: 11,102
// documents took 5.6 s, 22,204 took 13.1 s; EXPLAIN puts about 2 ms a document in the foreign-key
// checks on the partitioned tables.)
const char *const kPrepare =
    "SET enable_hashjoin = off;\nSET enable_mergejoin = off;\nSET enable_seqscan = off;\n"
    "SET plan_cache_mode = force_generic_plan;\n"
    "PREPARE put_document(smallint, uuid, text, boolean, text, jsonb, smallint[], uuid[], smallint[], uuid[]) AS "
    "WITH d AS (INSERT INTO dms.document (documentpartitionkey, documentuuid, resourcename, resourceversion, "
    "isdescriptor, projectname, edfidoc) VALUES ($1, $2, $3, '5.1.0', $4, $5, $6) RETURNING id, documentpartitionkey), "
    "a AS (INSERT INTO dms.alias (referentialpartitionkey, referentialid, documentid, documentpartitionkey) "
    "SELECT v.k, v.r, d.id, d.documentpartitionkey FROM d, unnest($7, $8) AS v(k, r)) "
    "INSERT INTO dms.reference (parentdocumentid, parentdocumentpartitionkey, referentialpartitionkey, aliasid) "
    "SELECT d.id, d.documentpartitionkey, al.referentialpartitionkey, al.id FROM d, unnest($9, $10) AS t(k, r) "
    "JOIN dms.alias al ON al.referentialpartitionkey = t.k AND al.referentialid = t.r;\n";

void writeDocumentSql(std::ofstream &out, const PreparedBody &prepared)
{
    const Uuid documentUuid = Uuid::parse(prepared.newId).value_or(Uuid());
    const ResourceSchema &resource = *prepared.resource;
    std::string aliasKeys = std::to_string(partitionOf(prepared.referentialId));
    std::string aliasIds = prepared.referentialId.toString();
    if (prepared.superclass) {
        const Uuid super = prepared.superclass->referentialId();
        aliasKeys += "," + std::to_string(partitionOf(super));
        aliasIds += "," + super.toString();
    }
    std::string targetKeys;
    std::string targetIds;
    for (const PreparedReference &reference : prepared.references)
        if (reference.referentialId) {
            targetKeys += (targetKeys.empty() ? "" : ",") + std::to_string(partitionOf(*reference.referentialId));
            targetIds += (targetIds.empty() ? "" : ",") + reference.referentialId->toString();
        }
    out << "EXECUTE put_document(" << partitionOf(documentUuid) << ", '" << prepared.newId << "', "
        << quoted(resource.resourceName) << ", " << (resource.isDescriptor ? "true" : "false") << ", "
        << quoted(resource.projectName()) << ", " << quoted(prepared.bodyText) << ", '{" << aliasKeys << "}', '{"
        << aliasIds << "}', '{" << targetKeys << "}', '{" << targetIds << "}');\n";
}

// PostgreSQL's server refuses to run as root: there it runs as the postgres account.
struct ServerUser
{
    bool asPostgres = false;
    uid_t uid = 0;
    gid_t gid = 0;
};

bool run(const ServerUser &user, const QString &program, const QStringList &arguments, std::string *error,
         int timeoutMs = 120000)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    if (user.asPostgres)
        process.start(QStringLiteral("runuser"), QStringList{"-u", "postgres", "--", program} + arguments);
    else
        process.start(program, arguments);
    if (!process.waitForFinished(timeoutMs) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        *error = program.toStdString() + " failed: " + process.readAll().trimmed().toStdString();
        return false;
    }
    return true;
}

QString serverBinaries()
{
    const QByteArray fromEnvironment = qgetenv("STEWARD_PG_BIN");
    if (!fromEnvironment.isEmpty())
        return QString::fromLocal8Bit(fromEnvironment);
    QDir versions(QStringLiteral("/usr/lib/postgresql"));
    QStringList found = versions.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (auto it = found.crbegin(); it != found.crend(); ++it)
        if (QFile::exists(versions.filePath(*it + "/bin/initdb")))
            return versions.filePath(*it + "/bin");
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("initdb"));
    return onPath.isEmpty() ? QString() : QFileInfo(onPath).absolutePath();
}

} // namespace

PostgresDesignResult measurePostgresDesign(const QString &workDir, const Model &model, const Engine &engine,
                                           const std::string &input)
{
    PostgresDesignResult result;
    const QString bin = serverBinaries();
    if (bin.isEmpty()) {
        result.skipped = "PostgreSQL's server programs (initdb, pg_ctl) are not installed";
        return result;
    }
    ServerUser user;
    if (geteuid() == 0) {
        const passwd *account = getpwnam("postgres");
        if (account == nullptr) {
            result.skipped = "running as root, and there is no postgres account to run the server as";
            return result;
        }
        user = {true, account->pw_uid, account->pw_gid};
    }

    // Prepared beforehand, untimed: the design is measured with its validation already done.
    const QString sqlPath = workDir + "/postgres-design.sql";
    std::int64_t written = 0;
    {
        std::ofstream out(sqlPath.toStdString());
        std::string error;
        std::unique_ptr<ImportSource> source = openImportSource(input, model, &error);
        ImportItem item;
        out << kPrepare << "BEGIN;\n";
        while (source && source->next(item)) {
            const ResourceSchema *resource = model.findByPath(item.resource);
            if (resource != nullptr && item.body) {
                const PreparedBody prepared = engine.preparePost(*resource, std::move(*item.body));
                if (!prepared.refusal) {
                    writeDocumentSql(out, prepared);
                    if (++written % kDocumentsPerTransaction == 0)
                        out << "COMMIT;\nBEGIN;\n";
                }
            }
            item = ImportItem();
        }
        out << "COMMIT;\n";
    }

    QTemporaryDir serverDir(QDir::tempPath() + "/steward-pg-XXXXXX");
    const QString data = serverDir.filePath("data");
    const QString socket = serverDir.path();
    if (user.asPostgres && chown(socket.toLocal8Bit().constData(), user.uid, user.gid) != 0) {
        result.skipped = "cannot hand " + socket.toStdString() + " to the postgres account";
        return result;
    }
    std::string error;
    if (!run(user, bin + "/initdb", {"-D", data, "-U", "bench", "-A", "trust", "-E", "UTF8", "--no-sync"}, &error)) {
        result.skipped = error;
        return result;
    }
    if (!run(user, bin + "/pg_ctl",
             {"-D", data, "-w", "-l", serverDir.filePath("server.log"), "-o",
              "-k " + socket + " -c listen_addresses='' -c fsync=on -c synchronous_commit=on -c shared_buffers=128MB",
              "start"},
             &error)) {
        result.skipped = error;
        return result;
    }
    const QString psql = bin + "/psql";
    const QStringList connect{"-q", "-X", "-v", "ON_ERROR_STOP=1", "-h", socket, "-U", "bench", "-d", "postgres"};
    const ServerUser client; // psql runs as this program's user
    if (run(client, psql, connect + QStringList{"-c", schemaSql()}, &error)) {
        const auto t0 = std::chrono::steady_clock::now();
        if (run(client, psql, connect + QStringList{"-f", sqlPath}, &error, 3600000)) {
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            result.ran = true;
            result.docsPerSecond = static_cast<double>(written) / seconds;
            QProcess size;
            size.start(psql, connect + QStringList{"-At", "-c", "SELECT pg_database_size('postgres')"});
            size.waitForFinished();
            result.megabytes = size.readAllStandardOutput().trimmed().toDouble() / 1e6;
        }
    }
    if (!result.ran)
        result.skipped = error;
    std::string stopError;
    run(user, bin + "/pg_ctl", {"-D", data, "-w", "-m", "fast", "stop"}, &stopError);
    QFile::remove(sqlPath);
    return result;
}
