// The indexes DocumentStore keeps beside the documents: the query index (query_index) with the SQL
// of collection queries that use it, and the find-anything index (search_index).
#include "DocumentStore.h"
#include "SearchTerms.h"

#include "ApiSchema.h"
#include "Database.h"

#include <sqlite3.h>

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>
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

// A document's words, sorted and each once, as the index's text for it.
std::string joinWords(std::vector<std::string> &words)
{
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::string text;
    for (const std::string &word : words) {
        if (!text.empty())
            text += ' ';
        text += word;
    }
    return text;
}

// A word as an FTS5 query matches it (words hold only digits and letters; the quotes keep any
// future word from being read as query syntax).
std::string quotedWord(const std::string &word)
{
    return '"' + word + '"';
}

} // namespace


void DocumentStore::useQueryIndex(const Model &model)
{
    m_model = &model;
    Registry registry = readRegistry(m_db);
    bool missing = false;
    for (const ResourceSchema *resource : model.resources()) {
        const std::vector<std::int64_t> keys = keysIn(registry, *resource);
        missing = missing || std::find(keys.begin(), keys.end(), 0) != keys.end();
    }
    if (missing && sqlite3_db_readonly(m_db.getHandle(), "main") != 1) {
        try {
            ImmediateTransaction transaction(m_db);
            bool changed = false;
            for (const ResourceSchema *resource : model.resources())
                changed = registerQueryFields(*resource) || changed;
            // Another field means other words for the documents of its resource; the index is made
            // again from the documents rather than patched, so it never depends on what it held.
            if (changed) {
                loadQueryFields();
                fillQueryIndex();
            }
            transaction.commit();
        } catch (const SQLite::Exception &e) {
            // Another writer holds the database: the fields registered already serve, the rest scan.
            if (!isBusyOrReadOnly(e))
                throw;
        }
    }
    loadQueryFields();
}

bool DocumentStore::registerQueryFields(const ResourceSchema &resource)
{
    SQLite::Statement find(m_db, "SELECT field_key, paths FROM query_fields WHERE project = ? AND resource = ? "
                                 "AND name = ?");
    bool changed = false;
    for (const auto &[name, field] : resource.queryFields) {
        const std::string paths = pathsOf(field);
        find.reset();
        find.bind(1, resource.projectName());
        find.bind(2, resource.resourceName);
        find.bind(3, name);
        if (find.executeStep()) {
            if (find.getColumn(1).getString() == paths)
                continue;
            // The model moved the field: its values are those of its new paths.
            SQLite::Statement repath(m_db, "UPDATE query_fields SET paths = ? WHERE field_key = ?");
            repath.bind(1, paths);
            repath.bind(2, find.getColumn(0).getInt64());
            repath.exec();
            changed = true;
            continue;
        }
        SQLite::Statement add(m_db, "INSERT INTO query_fields (project, resource, name, paths) VALUES (?, ?, ?, ?)");
        add.bind(1, resource.projectName());
        add.bind(2, resource.resourceName);
        add.bind(3, name);
        add.bind(4, paths);
        add.exec();
        changed = true;
    }
    return changed;
}

void DocumentStore::loadQueryFields()
{
    m_indexedFields.clear();
    SQLite::Statement registered(m_db, "SELECT field_key, project, resource, name, paths FROM query_fields "
                                       "ORDER BY field_key");
    while (registered.executeStep()) {
        IndexedField field;
        field.key = registered.getColumn(0).getInt64();
        field.name = registered.getColumn(3).getString();
        std::istringstream paths(registered.getColumn(4).getString());
        std::string path;
        try {
            while (paths >> path)
                field.paths.emplace_back(path);
        } catch (const std::invalid_argument &) {
            field.paths.clear(); // a path this program cannot read gives no words, as it gives no values
        }
        m_indexedFields[{registered.getColumn(1).getString(), registered.getColumn(2).getString()}].push_back(
            std::move(field));
    }
    m_fieldKeys.clear();
    m_wordsFromModel.clear();
    if (m_model == nullptr)
        return;
    for (const ResourceSchema *resource : m_model->resources()) {
        std::vector<std::int64_t> keys;
        const std::vector<IndexedField> *indexed = indexedFieldsOf(resource->projectName(), resource->resourceName);
        for (const auto &[name, field] : resource->queryFields) {
            std::int64_t key = 0;
            for (std::size_t i = 0; indexed != nullptr && i < indexed->size(); ++i) {
                const IndexedField &candidate = (*indexed)[i];
                if (candidate.name == name && candidate.paths.size() == field.paths.size()
                    && std::equal(candidate.paths.begin(), candidate.paths.end(), field.paths.begin(),
                                  [](const JsonPath &a, const QueryFieldPath &b) { return a == b.path; }))
                    key = candidate.key;
            }
            keys.push_back(key);
        }
        // The values a writer works out from the model give the document's words when the registry
        // holds exactly the model's fields for the resource (the usual case); otherwise the words
        // come from the body through the registry's paths.
        const auto modelKeys =
            static_cast<std::size_t>(std::count_if(keys.begin(), keys.end(), [](std::int64_t k) { return k != 0; }));
        if (indexed != nullptr && modelKeys == indexed->size())
            m_wordsFromModel.insert(resource);
        m_fieldKeys[resource] = std::move(keys);
    }
}

const std::vector<DocumentStore::IndexedField> *DocumentStore::indexedFieldsOf(const std::string &project,
                                                                               const std::string &resource) const
{
    auto it = m_indexedFields.find({project, resource});
    return it == m_indexedFields.end() ? nullptr : &it->second;
}
std::int64_t DocumentStore::queryFieldKey(const ResourceSchema &resource, std::size_t position) const
{
    auto it = m_fieldKeys.find(&resource);
    return it == m_fieldKeys.end() || position >= it->second.size() ? 0 : it->second[position];
}

std::int64_t DocumentStore::fieldKeyOf(const std::string &project, const std::string &resource,
                                       const std::string &field) const
{
    if (m_model == nullptr)
        return 0;
    const ResourceSchema *schema = m_model->findByName(project, resource);
    if (schema == nullptr)
        return 0;
    auto named = schema->queryFields.find(field);
    if (named == schema->queryFields.end())
        return 0;
    return queryFieldKey(*schema, static_cast<std::size_t>(std::distance(schema->queryFields.begin(), named)));
}

std::vector<QueryIndexWord> DocumentStore::queryIndexWords(const std::string &project, const std::string &resource,
                                                           const Json &body) const
{
    std::vector<QueryIndexWord> out;
    const std::vector<IndexedField> *fields = indexedFieldsOf(project, resource);
    if (fields == nullptr || !body.is_object())
        return out;
    for (const IndexedField &field : *fields)
        for (const Json *value : fieldValuesOf(field.paths, body))
            out.push_back({field.key, field.name, *value, queryIndexToken(field.key, *value)});
    return out;
}

std::string DocumentStore::queryIndexText(const std::string &project, const std::string &resource,
                                          const Json &body) const
{
    std::vector<std::string> words;
    for (QueryIndexWord &word : queryIndexWords(project, resource, body))
        words.push_back(std::move(word.word));
    return joinWords(words);
}

std::optional<std::string> DocumentStore::queryIndexTextOf(const ResourceSchema &resource,
                                                           const std::vector<QueryValue> &values) const
{
    if (m_wordsFromModel.count(&resource) == 0)
        return std::nullopt;
    const std::vector<std::int64_t> &keys = m_fieldKeys.at(&resource);
    std::vector<std::string> words;
    words.reserve(values.size());
    for (const QueryValue &value : values)
        if (value.field < keys.size() && keys[value.field] != 0)
            words.push_back(queryIndexToken(keys[value.field], value.value));
    return joinWords(words);
}

std::string DocumentStore::queryIndexTextOfDocument(const StoredDocument &d) const
{
    if (d.queryIndexText)
        return *d.queryIndexText;
    return queryIndexText(d.project, d.resource, Json::parse(d.body, nullptr, false));
}

void DocumentStore::writeQueryIndex(std::int64_t docKey, const std::string &before, const std::string &after)
{
    if (before == after)
        return;
    // The index keeps no copy of what it was given (it is contentless): a document's words leave it
    // by being named again, which is why they are a function of the body and the registry alone.
    if (!before.empty()) {
        SQLite::Statement &remove =
            statement("INSERT INTO query_index (query_index, rowid, words) VALUES ('delete', ?, ?)");
        remove.bind(1, docKey);
        remove.bindNoCopy(2, before);
        remove.exec();
    }
    if (!after.empty()) {
        SQLite::Statement &add = statement("INSERT INTO query_index (rowid, words) VALUES (?, ?)");
        add.bind(1, docKey);
        add.bindNoCopy(2, after);
        add.exec();
    }
}

void DocumentStore::fillQueryIndex()
{
    m_db.exec("INSERT INTO query_index (query_index) VALUES ('delete-all')");
    SQLite::Statement documents(m_db, "SELECT doc_key, project, resource, steward_text(body) FROM documents");
    while (documents.executeStep()) {
        const std::string words =
            queryIndexText(documents.getColumn(1).getString(), documents.getColumn(2).getString(),
                           Json::parse(documents.getColumn(3).getString(), nullptr, false));
        writeQueryIndex(documents.getColumn(0).getInt64(), std::string(), words);
    }
}

void DocumentStore::rebuildQueryIndex()
{
    loadQueryFields();
    fillQueryIndex();
}

bool DocumentStore::queryIndexHolds(std::int64_t docKey, const std::vector<std::string> &words)
{
    if (words.empty())
        return true;
    std::string match;
    for (const std::string &word : words)
        match += (match.empty() ? "" : " AND ") + quotedWord(word);
    SQLite::Statement &holds = statement("SELECT count(*) FROM query_index WHERE query_index MATCH ? AND rowid = ?");
    holds.bind(1, match);
    holds.bind(2, docKey);
    holds.executeStep();
    const bool found = holds.getColumn(0).getInt64() > 0;
    holds.reset();
    return found;
}

namespace {

std::uint64_t mixed(std::uint64_t value)
{
    // splitmix64's finalizer: every bit of the input moves about half of the output's.
    value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
    value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
    return value ^ (value >> 31);
}

std::int64_t fieldKeyOfWord(std::string_view word)
{
    // A word's leading digits are its field's key.
    std::int64_t key = 0;
    for (char c : word) {
        if (c < '0' || c > '9')
            break;
        key = key * 10 + (c - '0');
    }
    return key;
}

} // namespace

void QueryIndexFingerprint::add(std::int64_t docKey, std::string_view word)
{
    ++entries;
    hashSum += mixed(std::hash<std::string_view>()(word) ^ mixed(static_cast<std::uint64_t>(docKey)));
}

std::map<std::int64_t, QueryIndexFingerprint> DocumentStore::queryIndexFingerprints()
{
    // fts5vocab's instance table lists every (word, document) entry once, the index's detail=none
    // leaving column and offset empty.
    m_db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.steward_query_entries "
              "USING fts5vocab(main, query_index, instance)");
    std::map<std::int64_t, QueryIndexFingerprint> fingerprints;
    SQLite::Statement entries(m_db, "SELECT term, doc FROM temp.steward_query_entries");
    std::string word;
    std::int64_t key = 0;
    while (entries.executeStep()) {
        const SQLite::Column term = entries.getColumn(0);
        const std::string_view text(static_cast<const char *>(term.getBlob()), static_cast<std::size_t>(term.getBytes()));
        if (text != word) {
            word.assign(text);
            key = fieldKeyOfWord(word);
        }
        fingerprints[key].add(entries.getColumn(1).getInt64(), word);
    }
    return fingerprints;
}

void DocumentStore::rebuildSearchIndex()
{
    m_db.exec("DELETE FROM search_index");
    SQLite::Statement documents(m_db, "SELECT doc_key, steward_text(body) FROM documents");
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

namespace {

std::string searchTermsOfDocument(const StoredDocument &d)
{
    return d.searchTerms ? *d.searchTerms : searchTermsOf(Json::parse(d.body, nullptr, false));
}

} // namespace

void DocumentStore::indexInserted(const StoredDocument &d)
{
    const std::string terms = searchTermsOfDocument(d);
    writeSearchTerms(d.docKey, nullptr, &terms);
    writeQueryIndex(d.docKey, std::string(), queryIndexTextOfDocument(d));
}

void DocumentStore::indexReplaced(const StoredDocument &d)
{
    SQLite::Statement &previous = statement("SELECT steward_text(body) FROM documents WHERE doc_key = ?");
    previous.bind(1, d.docKey);
    if (!previous.executeStep())
        return;
    const Json before = Json::parse(previous.getColumn(0).getString(), nullptr, false);
    previous.reset();
    const std::string termsBefore = searchTermsOf(before);
    const std::string termsAfter = searchTermsOfDocument(d);
    writeSearchTerms(d.docKey, &termsBefore, &termsAfter);
    writeQueryIndex(d.docKey, queryIndexText(d.project, d.resource, before), queryIndexTextOfDocument(d));
}

void DocumentStore::indexRemoved(const StoredDocument &d)
{
    const Json before = Json::parse(d.body, nullptr, false);
    const std::string terms = searchTermsOf(before);
    writeSearchTerms(d.docKey, &terms, nullptr);
    writeQueryIndex(d.docKey, queryIndexText(d.project, d.resource, before), std::string());
}

DocumentStore::QuerySql DocumentStore::querySql(const CollectionQuery &query)
{
    QuerySql sql;
    std::vector<Json> &bindings = sql.bindings;
    // The filters the index answers become one full-text query: each filter's values joined by OR,
    // the filters by AND. FTS5 walks the lists of the words together in document order, so the first
    // page reads about as many entries as it returns whichever filter is the narrowest.
    std::vector<bool> indexed(query.filters.size(), false);
    std::string match;
    if (m_useQueryIndex && !query.onlyDocKey)
        for (std::size_t i = 0; i < query.filters.size(); ++i) {
            const std::int64_t key = fieldKeyOf(query.project, query.resource, query.filters[i].field);
            if (key == 0 || query.filters[i].alternatives.empty())
                continue;
            std::vector<std::string> words;
            for (const CollectionQuery::Alternative &alt : query.filters[i].alternatives)
                words.push_back(quotedWord(queryIndexToken(key, alt.value)));
            std::sort(words.begin(), words.end());
            words.erase(std::unique(words.begin(), words.end()), words.end());
            std::string either;
            for (const std::string &word : words)
                either += (either.empty() ? "" : " OR ") + word;
            match += (match.empty() ? "(" : " AND (") + either + ")";
            indexed[i] = true;
        }
    const bool byIndex = !match.empty();

    // A narrow change window (an incremental pull) is answered from the change-version index and
    // must not scan the whole resource; a wide one (a first pull) reads the resource in key order.
    // The narrow way reads every change of the window, of every resource, for each page and sorts
    // the resource's share: a window that covers most of the history (a first pull: everything up
    // to the newest version) is wide however few changes the database has, or its pages cost the
    // whole history each. The unary '+' keeps SQLite from using the index the other way would use.
    constexpr std::int64_t kNarrowWindow = 100000;
    constexpr std::int64_t kNarrowShareOfHistory = 4; // at most a quarter of the versions up to its end
    const bool window = query.hasChangeWindow();
    // Only a window reads the newest version: every other collection query goes without it.
    const std::int64_t upper = !window ? 0
                               : query.maxChangeVersion >= 0 ? query.maxChangeVersion
                                                             : newestChangeVersion();
    const std::int64_t width = upper - query.minChangeVersion;
    const bool narrow = !byIndex && window && width <= kNarrowWindow && width * kNarrowShareOfHistory <= upper;
    bool needsDocuments = !byIndex || window;
    std::string &where = sql.where;
    if (byIndex) {
        // The fields' keys name the resource, and the matches come in document order.
        sql.from = " FROM query_index CROSS JOIN documents ON doc_key = query_index.rowid";
        sql.orderColumn = "query_index.rowid";
        where = " WHERE query_index MATCH ?";
        bindings.push_back(match);
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
        if (indexed[i])
            continue;
        const std::vector<CollectionQuery::Alternative> &alternatives = query.filters[i].alternatives;
        needsDocuments = true;
        std::string clause;
        for (const CollectionQuery::Alternative &alt : alternatives) {
            const std::string compare = alt.value.is_string() ? " = ? COLLATE NOCASE" : " = ?";
            if (!clause.empty())
                clause += " OR ";
            if (alt.arrayJsonPath.empty()) {
                clause += "json_extract(steward_text(body), ?)" + compare;
                bindings.push_back(alt.jsonPath);
            } else {
                clause += "EXISTS (SELECT 1 FROM json_each(steward_text(body), ?) AS item WHERE json_extract(item.value, ?)"
                          + compare + ")";
                bindings.push_back(alt.arrayJsonPath);
                bindings.push_back(alt.jsonPath);
            }
            bindings.push_back(alt.value);
        }
        where += " AND (" + clause + ")";
    }
    sql.countFrom = needsDocuments ? sql.from : " FROM query_index";
    return sql;
}

} // namespace steward
