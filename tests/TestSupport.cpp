#include "TestSupport.h"


#include "SampleDistrict.h"
#include "Validation.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <algorithm>
#include <cctype>
#include <variant>

namespace steward::test {

QString sharedEdfiDir()
{
    const QString dir = sharedDir() + QStringLiteral("/edfi");
    return QFileInfo(dir + "/ds-5.1/ApiSchema.json").exists() ? QDir(dir).absolutePath() : QString();
}

namespace {

// A new database as Database::open makes one (every migration from version 0), made once per test
// program and copied for each fixture: its schema's ALTER TABLEs make SQLite parse the whole schema
// again each time, about a fifth of the CPU of suites that make hundreds of fixtures.
const QString &emptyDatabase()
{
    static QTemporaryDir dir;
    static const QString path = [] {
        const QString file = dir.filePath(QStringLiteral("empty.db"));
        const std::unique_ptr<Database> made = Database::open(file.toStdString());
        made->connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        return file;
    }();
    return path;
}

} // namespace

Fixture::Fixture(std::unique_ptr<Model> model)
    : m_model(model ? std::move(model) : Model::loadStarter())
{
    if (!QFile::copy(emptyDatabase(), QString::fromStdString(databasePath())))
        qFatal("cannot copy the empty database into %s", databasePath().c_str());
    m_database = Database::open(databasePath());
    m_engine = std::make_unique<Engine>(*m_model, *m_database);
}

Fixture::~Fixture()
{
    m_engine.reset();
    m_database.reset();
}

std::string Fixture::databasePath() const
{
    return m_dir.filePath(QStringLiteral("steward.db")).toStdString();
}

Response Fixture::call(const std::string &method, const std::string &path, const Json &body,
                       const std::map<std::string, std::string> &headers)
{
    Request request = Request::make(method, path, "test", body);
    for (const auto &[k, v] : headers)
        request.headers[toLower(k)] = v;
    return m_engine->handle(request);
}

namespace {

std::string queryValueText(const Json &value)
{
    return value.is_string() ? QUrl::toPercentEncoding(QString::fromStdString(value.get<std::string>())).toStdString()
                             : value.dump();
}

std::string flippedCase(std::string text)
{
    for (char &c : text)
        c = std::isupper(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                                                       : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

// Values of one query field to ask for: each document's, its case flipped, and one nobody has.
std::vector<Json> valuesToAsk(const QueryField &field, const std::vector<Json> &documents)
{
    std::vector<Json> out;
    for (const Json &document : documents) {
        for (const QueryFieldPath &path : field.paths) {
            for (const JsonPath::Match &match : path.path.select(document)) {
                const Json &value = *match.value;
                if (!value.is_primitive() || value.is_null())
                    continue;
                out.push_back(value);
                if (value.is_string() && flippedCase(value.get<std::string>()) != value.get<std::string>())
                    out.push_back(flippedCase(value.get<std::string>()));
            }
        }
    }
    const std::string &type = field.paths.front().type;
    if (type == "number" || type == "integer")
        out.push_back(987654321);
    else if (type == "date")
        out.push_back("1901-02-03");
    else if (type == "string")
        out.push_back("no document has this");
    return out;
}

} // namespace

IndexScanComparison compareIndexWithScan(Fixture &fixture, std::size_t documentsPerResource)
{
    IndexScanComparison comparison;
    auto ask = [&](const std::string &path) {
        fixture.engine().setAnswerQueriesByScan(false);
        const Response indexed = fixture.call("GET", path);
        fixture.engine().setAnswerQueriesByScan(true);
        const Response scanned = fixture.call("GET", path);
        fixture.engine().setAnswerQueriesByScan(false);
        ++comparison.queries;
        if (indexed.body.is_array() && !indexed.body.empty())
            ++comparison.answeredWithDocuments;
        if (indexed.status != scanned.status || indexed.body != scanned.body
            || indexed.header("Total-Count") != scanned.header("Total-Count"))
            comparison.differences.push_back(path + ": " + std::to_string(indexed.status) + " "
                                             + indexed.header("Total-Count") + " " + indexed.body.dump().substr(0, 300)
                                             + " | scan: " + std::to_string(scanned.status) + " "
                                             + scanned.header("Total-Count") + " "
                                             + scanned.body.dump().substr(0, 300));
    };
    for (const ResourceSchema *resource : fixture.model().resources()) {
        const std::string collection = resource->requestPath();
        const Json all = fixture.call("GET", collection + "?limit=500").body;
        if (!all.is_array() || all.empty())
            continue;
        // Documents spread over the collection: the first, the last and some between.
        std::vector<Json> sample;
        for (std::size_t i = 0; i < documentsPerResource; ++i)
            sample.push_back(all[(all.size() - 1) * i / std::max<std::size_t>(1, documentsPerResource - 1)]);
        std::vector<std::string> firstValues; // one "name=value" per field, for pairs
        for (const auto &[name, field] : resource->queryFields) {
            const std::vector<Json> values = valuesToAsk(field, sample);
            for (const Json &value : values)
                ask(collection + "?" + field.name + "=" + queryValueText(value) + "&totalCount=true&limit=500");
            if (!values.empty() && !(values.front().is_string() && values.front() == "no document has this"))
                firstValues.push_back(field.name + "=" + queryValueText(values.front()));
        }
        for (std::size_t i = 0; i + 1 < firstValues.size(); ++i)
            ask(collection + "?" + firstValues[i] + "&" + firstValues[i + 1] + "&totalCount=true&limit=500");
        if (!firstValues.empty()) {
            ask(collection + "?" + firstValues.front() + "&limit=2&offset=1");
            ask(collection + "?" + firstValues.back() + "&limit=1&offset=0&totalCount=true");
        }
    }
    return comparison;
}

std::string checkProblems(Fixture &fixture)
{
    std::string text;
    for (const IntegrityViolation &v : fixture.engine().check().violations)
        text += v.resource + " " + v.id + ": " + v.problem + "\n";
    return text;
}

std::string idFromLocation(const std::string &location)
{
    const std::size_t slash = location.find_last_of('/');
    return slash == std::string::npos ? std::string() : location.substr(slash + 1);
}

std::string Fixture::create(const std::string &path, const Json &body)
{
    Response r = call("POST", path, body);
    if (r.status != 201 && r.status != 200)
        qWarning("POST %s answered %d: %s", path.c_str(), r.status, r.body.dump().c_str());
    return idFromLocation(r.header("Location"));
}

void Fixture::loadSampleDistrict(unsigned seed, int studentsPerSchool)
{
    for (const Request &request : sampleDistrictRequests(seed, studentsPerSchool)) {
        const Response response = m_engine->handle(request);
        QVERIFY2(response.status < 300,
                 qPrintable(QString::fromStdString(request.path + ": " + response.body.dump())));
    }
}

void Fixture::seedDescriptors()
{
    const std::vector<std::pair<std::string, std::string>> descriptors = {
        {"gradeLevelDescriptors", "Ninth grade"},
        {"gradeLevelDescriptors", "Tenth grade"},
        {"educationOrganizationCategoryDescriptors", "School"},
        {"educationOrganizationCategoryDescriptors", "Local Education Agency"},
        {"localEducationAgencyCategoryDescriptors", "Independent"},
        {"termDescriptors", "Fall Semester"},
        {"courseIdentificationSystemDescriptors", "LEA course code"},
        {"academicSubjectDescriptors", "Mathematics"},
        {"programTypeDescriptors", "Bilingual"},
    };
    for (const auto &[endpoint, code] : descriptors) {
        std::string type = endpoint.substr(0, endpoint.size() - 1); // "gradeLevelDescriptor"
        type[0] = static_cast<char>(std::toupper(type[0]));
        create("/ed-fi/" + endpoint,
               Json{{"namespace", "uri://ed-fi.org/" + type}, {"codeValue", code}, {"shortDescription", code}});
    }
}

Json Fixture::school(int schoolId, const std::string &name)
{
    return Json{{"schoolId", schoolId},
                {"nameOfInstitution", name},
                {"educationOrganizationCategories",
                 Json::array({{{"educationOrganizationCategoryDescriptor",
                                "uri://ed-fi.org/EducationOrganizationCategoryDescriptor#School"}}})},
                {"gradeLevels",
                 Json::array({{{"gradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}}})}};
}

Json Fixture::schoolYear(int year)
{
    return Json{{"schoolYear", year}, {"currentSchoolYear", false}, {"schoolYearDescription", std::to_string(year)}};
}

Json Fixture::session(int schoolId, int year, const std::string &name)
{
    return Json{{"sessionName", name},
                {"schoolReference", {{"schoolId", schoolId}}},
                {"schoolYearTypeReference", {{"schoolYear", year}}},
                {"beginDate", "2021-08-23"},
                {"endDate", "2021-12-17"},
                {"termDescriptor", "uri://ed-fi.org/TermDescriptor#Fall Semester"},
                {"totalInstructionalDays", 80}};
}

Json Fixture::course(const std::string &code, int edOrgId)
{
    return Json{{"courseCode", code},
                {"courseTitle", "Algebra I"},
                {"numberOfParts", 1},
                {"identificationCodes",
                 Json::array({{{"identificationCode", code},
                               {"courseIdentificationSystemDescriptor",
                                "uri://ed-fi.org/CourseIdentificationSystemDescriptor#LEA course code"}}})},
                {"educationOrganizationReference", {{"educationOrganizationId", edOrgId}}}};
}

namespace {

// Every value's place in a document, as the steps to it (a key, or an index into an array).
using Place = std::vector<std::variant<std::string, std::size_t>>;

void collectPlaces(const Json &node, Place &at, std::vector<Place> &out)
{
    if (node.is_object()) {
        for (const auto &[key, value] : node.items()) {
            at.push_back(key);
            out.push_back(at);
            collectPlaces(value, at, out);
            at.pop_back();
        }
    } else if (node.is_array()) {
        for (std::size_t i = 0; i < node.size(); ++i) {
            at.push_back(i);
            out.push_back(at);
            collectPlaces(node[i], at, out);
            at.pop_back();
        }
    }
}

Json *parentOf(Json &document, const Place &place)
{
    Json *node = &document;
    for (std::size_t i = 0; i + 1 < place.size(); ++i)
        node = std::holds_alternative<std::string>(place[i]) ? &(*node)[std::get<std::string>(place[i])]
                                                            : &(*node)[std::get<std::size_t>(place[i])];
    return node;
}

Json &valueAt(Json &document, const Place &place)
{
    Json *parent = parentOf(document, place);
    return std::holds_alternative<std::string>(place.back()) ? (*parent)[std::get<std::string>(place.back())]
                                                            : (*parent)[std::get<std::size_t>(place.back())];
}

} // namespace

int compareCompiledSchemaWithFullWay(const Model &model, const ResourceSchema &resource, const Json &document,
                                     std::string &difference, std::size_t placesWanted)
{
    std::vector<Json> variants{document};
    Place at;
    std::vector<Place> allPlaces;
    collectPlaces(document, at, allPlaces);
    // Spread over the document when not all are taken.
    std::vector<Place> places;
    const std::size_t step = std::max<std::size_t>(1, allPlaces.size() / std::max<std::size_t>(1, placesWanted));
    for (std::size_t i = 0; i < allPlaces.size() && places.size() < placesWanted; i += step)
        places.push_back(allPlaces[i]);
    const std::vector<Json> replacements{nullptr,
                                         12345,
                                         -3.5,
                                         true,
                                         "",
                                         " padded",
                                         "padded ",
                                         "text",
                                         std::string(300, 'x'),
                                         // Lengths count characters, not bytes: 40 and 80 of two bytes each.
                                         [] { std::string t; for (int i = 0; i < 40; ++i) t += "\u00e9"; return t; }(),
                                         [] { std::string t; for (int i = 0; i < 80; ++i) t += "\u00e9"; return t; }(),
                                         std::string(1, '\n'),
                                         "2024-02-30",
                                         "2024-02-29",
                                         "12:30:00",
                                         Json::array(),
                                         Json::object()};
    for (const Place &place : places) {
        for (const Json &replacement : replacements) {
            Json variant = document;
            valueAt(variant, place) = replacement;
            variants.push_back(std::move(variant));
        }
        Json removed = document;
        Json *parent = parentOf(removed, place);
        if (std::holds_alternative<std::string>(place.back()))
            parent->erase(std::get<std::string>(place.back()));
        else
            parent->erase(std::get<std::size_t>(place.back()));
        variants.push_back(std::move(removed));
        Json probe = document;
        const Json &value = valueAt(probe, place);
        if (value.is_object()) {
            Json extra = document;
            valueAt(extra, place)["unknownProperty"] = "x";
            variants.push_back(std::move(extra));
        }
        if (value.is_array() && !value.empty()) {
            Json repeated = document;
            Json &array = valueAt(repeated, place);
            array.push_back(array.front());
            variants.push_back(std::move(repeated));
        }
    }
    Json extra = document;
    extra["unknownProperty"] = nullptr;
    variants.push_back(std::move(extra));

    const DocumentValidator &validator = model.validator();
    for (const Json &variant : variants) {
        Json quick = variant;
        Json full = variant;
        const bool passes = validator.passesCompiledSchema(resource, quick);
        const ValidationErrors errors = validator.schemaErrors(resource, full);
        if (passes != errors.empty() || (passes && quick != full)) {
            difference = resource.resourceName + ": the compiled walk says " + (passes ? "pass" : "fail")
                         + ", the full way " + (errors.empty() ? "pass" : "fail") + " for " + variant.dump()
                         + (passes ? " (bodies " + quick.dump() + " and " + full.dump() + ")" : std::string());
            return static_cast<int>(variants.size());
        }
    }
    return static_cast<int>(variants.size());
}

const char *const kBackBeforeResourceKeys =
    // Version 29's recorded model.
    "DROP TABLE model_files;"
    // Version 27's create check of a sync target.
    "ALTER TABLE sync_targets DROP COLUMN create_check;"
    "ALTER TABLE sync_targets DROP COLUMN parallel;"
    // Version 26's packs, imported results, acknowledgements and submissions (rule_results keeps
    // its wider CHECK, which an older version's rows all pass).
    "DROP VIEW imported_results; DROP TABLE external_results; DROP TABLE result_sources;"
    "DROP TABLE rule_packs; DROP TABLE acknowledgements; DROP TABLE submissions;"
    // Version 25's merge bases and conflicts.
    "DROP VIEW open_sync_conflicts; DROP TABLE sync_conflicts;"
    "ALTER TABLE sync_remote_ids DROP COLUMN base_etag; ALTER TABLE sync_remote_ids DROP COLUMN base_seq;"
    "ALTER TABLE sync_remote_ids DROP COLUMN base_text;"
    "DROP VIEW documents; DROP VIEW aliases; DROP VIEW changes;"
    "CREATE TABLE documents (doc_key INTEGER PRIMARY KEY, id TEXT NOT NULL, project TEXT NOT NULL, "
    "resource TEXT NOT NULL, referential_id BLOB NOT NULL, identity TEXT NOT NULL, body TEXT NOT NULL, "
    "etag TEXT NOT NULL, created_at TEXT NOT NULL, last_modified TEXT NOT NULL, natural_key TEXT NOT "
    "NULL DEFAULT '' COLLATE NOCASE, change_seq INTEGER);"
    "INSERT INTO documents SELECT d.doc_key, steward_id_text(d.id), r.project, r.resource, (SELECT "
    "a.referential_id FROM alias_rows a WHERE a.doc_key = d.doc_key AND a.resource_key = d.resource_key), "
    "d.identity, d.body, steward_hex_text(d.etag), coalesce(steward_time_text(d.created_at), ''), "
    "steward_time_text(d.last_modified), '', d.change_seq FROM document_rows d "
    "JOIN resources r USING (resource_key);"
    "CREATE TABLE aliases (alias_key INTEGER PRIMARY KEY, referential_id BLOB NOT NULL UNIQUE, doc_key "
    "INTEGER NOT NULL REFERENCES documents(doc_key) ON DELETE CASCADE, project TEXT NOT NULL, resource "
    "TEXT NOT NULL);"
    "INSERT INTO aliases SELECT a.alias_key, a.referential_id, a.doc_key, r.project, r.resource "
    "FROM alias_rows a JOIN resources r USING (resource_key);"
    "CREATE TABLE refs_v18 (from_doc INTEGER NOT NULL REFERENCES documents(doc_key) ON DELETE CASCADE, "
    "to_alias INTEGER NOT NULL REFERENCES aliases(alias_key) ON DELETE RESTRICT, PRIMARY KEY (from_doc, "
    "to_alias)) WITHOUT ROWID;"
    "INSERT INTO refs_v18 SELECT from_doc, to_alias FROM refs;"
    "CREATE TABLE changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, project TEXT NOT "
    "NULL, resource TEXT NOT NULL, id TEXT NOT NULL, referential_id BLOB NOT NULL, "
    "previous_referential_id BLOB, identity TEXT NOT NULL, body TEXT, etag TEXT, at TEXT NOT NULL, "
    "actor TEXT NOT NULL, source TEXT, previous_identity TEXT);"
    "INSERT INTO changes SELECT c.seq, c.op, r.project, r.resource, steward_id_text(coalesce(c.id, (SELECT d.id "
    "FROM document_rows d WHERE d.change_seq = c.seq))), c.referential_id, "
    "c.previous_referential_id, c.identity, c.body, steward_hex_text(c.etag), c.at, o.actor, nullif(o.source, ''), "
    "c.previous_identity FROM change_rows c JOIN resources r USING (resource_key) "
    "JOIN change_origins o USING (origin_key);"
    "DROP TABLE refs; DROP TABLE alias_rows; DROP TABLE document_rows; DROP TABLE change_rows;"
    "DROP TABLE change_origins;"
    "DROP TABLE resources;"
    "ALTER TABLE refs_v18 RENAME TO refs;"
    "CREATE INDEX refs_by_target ON refs(to_alias, from_doc);"
    "CREATE INDEX aliases_by_document ON aliases(doc_key);"
    "CREATE UNIQUE INDEX documents_by_id ON documents(id);"
    "CREATE INDEX documents_by_resource ON documents(project, resource, doc_key);"
    "CREATE INDEX documents_by_natural_key ON documents(project, resource, natural_key);"
    "CREATE INDEX documents_by_change ON documents(change_seq);"
    "CREATE INDEX changes_by_document ON changes(id, seq);"
    "CREATE INDEX changes_deletes ON changes(project, resource, seq) WHERE op = 'delete';"
    "CREATE INDEX changes_key_changes ON changes(project, resource, seq) WHERE op = 'key-change';";

} // namespace steward::test
