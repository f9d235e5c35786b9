// The indexes DocumentStore keeps beside the documents: the query index (query_values) with the SQL
// of collection queries that use it, and the find-anything index (search_index).
#include "DocumentStore.h"
#include "SearchTerms.h"

#include "ApiSchema.h"
#include "Database.h"

#include <sqlite3.h>

#include <map>
#include <tuple>

namespace steward {

namespace {

// A field is indexed under the paths it had when it was registered; other paths mean other values.
std::string pathsOf(const QueryField &field)
{
    std::string out;
    for (const QueryFieldPath &path : field.paths)
        out += (out.empty() ? "" : " ") + path.path.text();
    return out;
}

struct RegisteredField
{
    std::int64_t key = 0;
    std::string paths;
};

using Registry = std::map<std::tuple<std::string, std::string, std::string>, RegisteredField>;

Registry readRegistry(SQLite::Database &db)
{
    Registry registry;
    SQLite::Statement s(db, "SELECT field_key, project, resource, name, paths FROM query_fields");
    while (s.executeStep())
        registry[{s.getColumn(1).getString(), s.getColumn(2).getString(), s.getColumn(3).getString()}] =
            RegisteredField{s.getColumn(0).getInt64(), s.getColumn(4).getString()};
    return registry;
}

// The keys of the resource's fields the registry holds with the model's paths (0 for the others).
std::vector<std::int64_t> keysIn(const Registry &registry, const ResourceSchema &resource)
{
    std::vector<std::int64_t> keys;
    for (const auto &[name, field] : resource.queryFields) {
        auto it = registry.find({resource.projectName(), resource.resourceName, name});
        keys.push_back(it != registry.end() && it->second.paths == pathsOf(field) ? it->second.key : 0);
    }
    return keys;
}

bool isBusyOrReadOnly(const SQLite::Exception &e)
{
    const int code = e.getErrorCode() & 0xff;
    return code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_READONLY;
}

} // namespace


void DocumentStore::useQueryIndex(const Model &model)
{
    m_model = &model;
    m_fieldKeys.clear();
    Registry registry = readRegistry(m_db);
    bool missing = false;
    for (const ResourceSchema *resource : model.resources()) {
        std::vector<std::int64_t> keys = keysIn(registry, *resource);
        missing = missing || std::find(keys.begin(), keys.end(), 0) != keys.end();
        m_fieldKeys[resource] = std::move(keys);
    }
    if (!missing || sqlite3_db_readonly(m_db.getHandle(), "main") == 1)
        return;
    try {
        ImmediateTransaction transaction(m_db);
        std::unordered_map<const ResourceSchema *, std::vector<std::int64_t>> fieldKeys;
        for (const ResourceSchema *resource : model.resources())
            fieldKeys[resource] = registerQueryFields(*resource);
        transaction.commit();
        m_fieldKeys = std::move(fieldKeys);
    } catch (const SQLite::Exception &e) {
        // Another writer holds the database: the fields registered already serve, the rest scan.
        if (!isBusyOrReadOnly(e))
            throw;
    }
}

std::vector<std::int64_t> DocumentStore::registerQueryFields(const ResourceSchema &resource)
{
    SQLite::Statement find(m_db, "SELECT field_key, paths FROM query_fields WHERE project = ? AND resource = ? "
                                 "AND name = ?");
    std::vector<std::int64_t> keys;
    std::set<std::int64_t> fresh;
    for (const auto &[name, field] : resource.queryFields) {
        const std::string paths = pathsOf(field);
        find.reset();
        find.bind(1, resource.projectName());
        find.bind(2, resource.resourceName);
        find.bind(3, name);
        if (find.executeStep()) {
            const std::int64_t key = find.getColumn(0).getInt64();
            keys.push_back(key);
            if (find.getColumn(1).getString() == paths)
                continue;
            // The model moved the field: its values are those of its new paths.
            SQLite::Statement forget(m_db, "DELETE FROM query_values WHERE field_key = ?");
            forget.bind(1, key);
            forget.exec();
            SQLite::Statement repath(m_db, "UPDATE query_fields SET paths = ? WHERE field_key = ?");
            repath.bind(1, paths);
            repath.bind(2, key);
            repath.exec();
            fresh.insert(key);
            continue;
        }
        SQLite::Statement add(m_db, "INSERT INTO query_fields (project, resource, name, paths) VALUES (?, ?, ?, ?)");
        add.bind(1, resource.projectName());
        add.bind(2, resource.resourceName);
        add.bind(3, name);
        add.bind(4, paths);
        add.exec();
        keys.push_back(m_db.getLastInsertRowid());
        fresh.insert(keys.back());
    }
    if (!fresh.empty())
        fillQueryValues(resource, keys, fresh);
    return keys;
}

void DocumentStore::fillQueryValues(const ResourceSchema &resource, const std::vector<std::int64_t> &keys,
                                    const std::set<std::int64_t> &only)
{
    SQLite::Statement documents(m_db, "SELECT doc_key, body FROM documents WHERE project = ? AND resource = ?");
    documents.bind(1, resource.projectName());
    documents.bind(2, resource.resourceName);
    std::vector<std::int64_t> selected(keys.size(), 0);
    for (std::size_t i = 0; i < keys.size(); ++i)
        if (only.count(keys[i]) > 0)
            selected[i] = keys[i];
    while (documents.executeStep()) {
        const std::vector<QueryValue> values = queryValuesOfBody(resource, documents.getColumn(1).getString());
        writeQueryValues(documents.getColumn(0).getInt64(), selected, nullptr, &values);
    }
}

void DocumentStore::rebuildQueryIndex()
{
    if (m_model == nullptr)
        return;
    // Only this model's fields: another model's are kept by its own writes.
    SQLite::Statement forget(m_db, "DELETE FROM query_values WHERE field_key = ?");
    for (const auto &[resource, keys] : m_fieldKeys) {
        std::set<std::int64_t> all(keys.begin(), keys.end());
        all.erase(0);
        for (std::int64_t key : all) {
            forget.reset();
            forget.bind(1, key);
            forget.exec();
        }
        if (!all.empty())
            fillQueryValues(*resource, keys, all);
    }
}

std::int64_t DocumentStore::queryFieldKey(const ResourceSchema &resource, std::size_t position) const
{
    auto it = m_fieldKeys.find(&resource);
    return it == m_fieldKeys.end() || position >= it->second.size() ? 0 : it->second[position];
}

const DocumentStore::IndexedResource *DocumentStore::indexedResource(const std::string &project,
                                                                     const std::string &resource) const
{
    if (m_model == nullptr)
        return nullptr;
    auto it = m_fieldKeys.find(m_model->findByName(project, resource));
    return it == m_fieldKeys.end() ? nullptr : &*it;
}

std::int64_t DocumentStore::fieldKeyOf(const std::string &project, const std::string &resource,
                                       const std::string &field) const
{
    const IndexedResource *indexed = indexedResource(project, resource);
    if (indexed == nullptr)
        return 0;
    const std::map<std::string, QueryField> &fields = indexed->first->queryFields;
    auto named = fields.find(field);
    if (named == fields.end())
        return 0;
    return indexed->second[static_cast<std::size_t>(std::distance(fields.begin(), named))];
}

std::vector<QueryValue> DocumentStore::queryValuesOfBody(const ResourceSchema &resource, const std::string &body) const
{
    const Json parsed = Json::parse(body, nullptr, false);
    return parsed.is_object() ? queryValuesOf(resource, parsed) : std::vector<QueryValue>{};
}

void DocumentStore::writeQueryValues(std::int64_t docKey, const std::vector<std::int64_t> &keys,
                                     const std::vector<QueryValue> *before, const std::vector<QueryValue> *after)
{
    if (before != nullptr && after != nullptr && sameQueryValues(*before, *after))
        return;
    if (before != nullptr) {
        SQLite::Statement &remove = statement("DELETE FROM query_values WHERE field_key = ? AND value = ? AND doc = ?");
        for (const QueryValue &value : *before) {
            if (value.field >= keys.size() || keys[value.field] == 0)
                continue;
            remove.tryReset();
            remove.bind(1, keys[value.field]);
            bindJson(remove, 2, value.value);
            remove.bind(3, docKey);
            remove.exec();
        }
    }
    if (after != nullptr) {
        // Up to 16 rows a statement: a document's values cost one step, not one each. OR IGNORE: two
        // values equal without case are one row (the query compares them so).
        constexpr std::size_t kRowsPerStatement = 16;
        static const std::vector<std::string> kAddRows = [] {
            std::vector<std::string> sql(kRowsPerStatement + 1);
            for (std::size_t n = 1; n <= kRowsPerStatement; ++n) {
                sql[n] = "INSERT OR IGNORE INTO query_values (field_key, value, doc) VALUES (?, ?, ?)";
                for (std::size_t i = 1; i < n; ++i)
                    sql[n] += ", (?, ?, ?)";
            }
            return sql;
        }();
        std::vector<const QueryValue *> rows;
        rows.reserve(after->size());
        for (const QueryValue &value : *after)
            if (value.field < keys.size() && keys[value.field] != 0)
                rows.push_back(&value);
        for (std::size_t first = 0; first < rows.size(); first += kRowsPerStatement) {
            const std::size_t n = std::min(kRowsPerStatement, rows.size() - first);
            SQLite::Statement &add = statement(kAddRows[n].c_str());
            for (std::size_t i = 0; i < n; ++i) {
                const int base = static_cast<int>(3 * i);
                add.bind(base + 1, keys[rows[first + i]->field]);
                bindJson(add, base + 2, rows[first + i]->value);
                add.bind(base + 3, docKey);
            }
            add.exec();
        }
    }
}

const std::vector<QueryValue> &DocumentStore::queryValuesOfDocument(const ResourceSchema &resource,
                                                                   const StoredDocument &d,
                                                                   std::vector<QueryValue> &computed) const
{
    if (d.queryValues)
        return *d.queryValues;
    computed = queryValuesOfBody(resource, d.body);
    return computed;
}

namespace {

std::string searchTermsOfDocument(const StoredDocument &d)
{
    return d.searchTerms ? *d.searchTerms : searchTermsOf(Json::parse(d.body, nullptr, false));
}

} // namespace

void DocumentStore::rebuildSearchIndex()
{
    m_db.exec("DELETE FROM search_index");
    SQLite::Statement documents(m_db, "SELECT doc_key, body FROM documents");
    while (documents.executeStep()) {
        const std::string terms = searchTermsOf(Json::parse(documents.getColumn(1).getString(), nullptr, false));
        writeSearchTerms(documents.getColumn(0).getInt64(), nullptr, &terms);
    }
}

void DocumentStore::writeSearchTerms(std::int64_t docKey, const std::string *before, const std::string *after)
{
    if (before != nullptr && after != nullptr && *before == *after)
        return;
    if (before != nullptr && !before->empty()) {
        SQLite::Statement &remove = statement("DELETE FROM search_index WHERE rowid = ?");
        remove.bind(1, docKey);
        remove.exec();
    }
    if (after != nullptr && !after->empty()) {
        SQLite::Statement &add = statement("INSERT INTO search_index (rowid, terms) VALUES (?, ?)");
        add.bind(1, docKey);
        add.bindNoCopy(2, *after);
        add.exec();
    }
}

void DocumentStore::indexInserted(const StoredDocument &d)
{
    const std::string terms = searchTermsOfDocument(d);
    writeSearchTerms(d.docKey, nullptr, &terms);
    const IndexedResource *indexed = indexedResource(d.project, d.resource);
    if (indexed == nullptr)
        return;
    std::vector<QueryValue> computed;
    writeQueryValues(d.docKey, indexed->second, nullptr, &queryValuesOfDocument(*indexed->first, d, computed));
}

void DocumentStore::indexReplaced(const StoredDocument &d)
{
    SQLite::Statement &previous = statement("SELECT body FROM documents WHERE doc_key = ?");
    previous.bind(1, d.docKey);
    if (!previous.executeStep())
        return;
    const Json before = Json::parse(previous.getColumn(0).getString(), nullptr, false);
    previous.reset();
    const std::string termsBefore = searchTermsOf(before);
    const std::string termsAfter = searchTermsOfDocument(d);
    writeSearchTerms(d.docKey, &termsBefore, &termsAfter);
    const IndexedResource *indexed = indexedResource(d.project, d.resource);
    if (indexed == nullptr)
        return;
    const std::vector<QueryValue> valuesBefore =
        before.is_object() ? queryValuesOf(*indexed->first, before) : std::vector<QueryValue>{};
    std::vector<QueryValue> computed;
    writeQueryValues(d.docKey, indexed->second, &valuesBefore, &queryValuesOfDocument(*indexed->first, d, computed));
}

void DocumentStore::indexRemoved(const StoredDocument &d)
{
    const Json before = Json::parse(d.body, nullptr, false);
    const std::string terms = searchTermsOf(before);
    writeSearchTerms(d.docKey, &terms, nullptr);
    const IndexedResource *indexed = indexedResource(d.project, d.resource);
    if (indexed == nullptr)
        return;
    const std::vector<QueryValue> values =
        before.is_object() ? queryValuesOf(*indexed->first, before) : std::vector<QueryValue>{};
    writeQueryValues(d.docKey, indexed->second, &values, nullptr);
}

DocumentStore::QuerySql DocumentStore::querySql(const CollectionQuery &query)
{
    QuerySql sql;
    std::vector<Json> &bindings = sql.bindings;
    // Which filters the index answers, and one of them to read the documents in order from: the one
    // with the fewest rows (counted up to a cap), among those that compare one value.
    std::vector<std::int64_t> keys(query.filters.size(), 0);
    if (m_useQueryIndex && !query.onlyDocKey && !query.filters.empty())
        for (std::size_t i = 0; i < query.filters.size(); ++i)
            keys[i] = fieldKeyOf(query.project, query.resource, query.filters[i].field);
    auto oneValue = [&](std::size_t i) {
        const std::vector<CollectionQuery::Alternative> &alternatives = query.filters[i].alternatives;
        for (const CollectionQuery::Alternative &alt : alternatives)
            if (!(alt.value == alternatives.front().value))
                return false;
        return !alternatives.empty();
    };
    std::optional<std::size_t> driver;
    std::int64_t fewest = 0;
    int candidates = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
        candidates += keys[i] != 0 && oneValue(i) ? 1 : 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (keys[i] == 0 || !oneValue(i))
            continue;
        std::int64_t rows = 0;
        if (candidates > 1) {
            SQLite::Statement &estimate = statement("SELECT count(*) FROM (SELECT 1 FROM query_values WHERE "
                                                    "field_key = ? AND value = ? LIMIT 1000)");
            estimate.bind(1, keys[i]);
            bindJson(estimate, 2, query.filters[i].alternatives.front().value);
            estimate.executeStep();
            rows = estimate.getColumn(0).getInt64();
            estimate.reset();
        }
        if (!driver || rows < fewest) {
            driver = i;
            fewest = rows;
        }
    }

    // A narrow change window (an incremental pull) is answered from the change-version index and
    // must not scan the whole resource; a wide one (a first pull) reads the resource in key order.
    // The unary '+' keeps SQLite from using the index the other way would use.
    constexpr std::int64_t kNarrowWindow = 100000;
    const bool window = query.hasChangeWindow();
    // Only a window reads the newest version: every other collection query goes without it.
    const std::int64_t upper = !window ? 0
                               : query.maxChangeVersion >= 0 ? query.maxChangeVersion
                                                             : newestChangeVersion();
    const bool narrow = !driver && window && upper - query.minChangeVersion <= kNarrowWindow;
    bool needsDocuments = !driver || window;
    std::string &where = sql.where;
    if (driver) {
        // The field's key names the resource, and its rows come in document order.
        sql.from = " FROM query_values q CROSS JOIN documents ON doc_key = q.doc";
        sql.orderColumn = "q.doc";
        where = " WHERE q.field_key = ? AND q.value = ?";
        bindings.push_back(keys[*driver]);
        bindings.push_back(query.filters[*driver].alternatives.front().value);
    } else {
        sql.from = " FROM documents";
        sql.orderColumn = "doc_key";
        where = narrow ? " WHERE +project = ? AND +resource = ?" : " WHERE project = ? AND resource = ?";
        bindings.push_back(query.project);
        bindings.push_back(query.resource);
        if (query.onlyDocKey) {
            where += " AND doc_key = ?";
            bindings.push_back(*query.onlyDocKey);
        }
        if (query.referencingAlias) {
            where += " AND doc_key IN (SELECT from_doc FROM refs WHERE to_alias = ?)";
            bindings.push_back(*query.referencingAlias);
        }
    }
    if (window) {
        where += narrow ? " AND change_seq BETWEEN ? AND ?" : " AND +change_seq BETWEEN ? AND ?";
        bindings.push_back(query.minChangeVersion);
        bindings.push_back(upper);
    }
    for (std::size_t i = 0; i < query.filters.size(); ++i) {
        if (driver && i == *driver)
            continue;
        const std::vector<CollectionQuery::Alternative> &alternatives = query.filters[i].alternatives;
        if (keys[i] != 0) {
            where += " AND EXISTS (SELECT 1 FROM query_values o WHERE o.field_key = ? AND o.doc = " + sql.orderColumn
                     + " AND o.value IN (";
            bindings.push_back(keys[i]);
            for (std::size_t a = 0; a < alternatives.size(); ++a) {
                where += a == 0 ? "?" : ", ?";
                bindings.push_back(alternatives[a].value);
            }
            where += "))";
            continue;
        }
        needsDocuments = true;
        std::string clause;
        for (const CollectionQuery::Alternative &alt : alternatives) {
            const std::string compare = alt.value.is_string() ? " = ? COLLATE NOCASE" : " = ?";
            if (!clause.empty())
                clause += " OR ";
            if (alt.arrayJsonPath.empty()) {
                clause += "json_extract(body, ?)" + compare;
                bindings.push_back(alt.jsonPath);
            } else {
                clause += "EXISTS (SELECT 1 FROM json_each(body, ?) AS item WHERE json_extract(item.value, ?)"
                          + compare + ")";
                bindings.push_back(alt.arrayJsonPath);
                bindings.push_back(alt.jsonPath);
            }
            bindings.push_back(alt.value);
        }
        where += " AND (" + clause + ")";
    }
    sql.countFrom = needsDocuments ? sql.from : " FROM query_values q";
    return sql;
}

} // namespace steward
