// The engine's reads: a document by id, a collection page (query parameters, lookups that pin a
// referential id, the query index), Change Queries' versions and their deletes and key changes.
#include "Engine.h"
#include "Text.h"

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <cmath>

namespace steward {

Json Engine::documentForClient(const StoredDocument &document) const
{
    Json body = Json::parse(document.body);
    body["id"] = document.id;
    body["_etag"] = document.etag;
    body["_lastModifiedDate"] = document.lastModified;
    return body;
}

Response Engine::getById(const Target &target, const Request &)
{
    DeferredTransaction read(m_database.connection());
    std::optional<StoredDocument> document = m_store.findById(target.id);
    if (!document || document->resource != target.resource->resourceName
        || document->project != target.resource->projectName())
        return problem::notFound("No " + target.resource->resourceName + " with the id '" + target.id + "' exists.");
    Response response;
    response.status = 200;
    response.headers.emplace_back("ETag", quotedEtag(document->etag));
    response.body = documentForClient(*document);
    return response;
}

namespace {

bool parseCount(const std::string &text, std::int64_t &out)
{
    if (text.empty() || text.size() > 18 || !std::all_of(text.begin(), text.end(), ::isdigit))
        return false;
    out = std::stoll(text);
    return true;
}

// The parameters every collection and change feed shares (ODS/API's names, matched without case).
// Answers whether the name was one of them; `refusal` is set when its value is not acceptable.
bool readPagingParameter(const std::string &name, const std::string &value, CollectionQuery &query,
                         bool &totalCount, std::optional<Response> &refusal)
{
    if (name == "limit" || name == "pagesize") {
        if (!parseCount(value, query.limit) || query.limit > 500)
            refusal = problem::parameterFailed("Limit must be omitted or set to a numeric value between 0 and 500.");
    } else if (name == "offset") {
        if (!parseCount(value, query.offset))
            refusal = problem::parameterFailed("Offset must be omitted or set to a non-negative numeric value.");
    } else if (name == "totalcount") {
        const std::string lower = toLower(value);
        if (lower != "true" && lower != "false")
            refusal = problem::parameterFailed("TotalCount must be omitted or set to true or false.");
        totalCount = lower == "true";
    } else if (name == "minchangeversion" || name == "maxchangeversion") {
        std::int64_t version = 0;
        if (!parseCount(value, version))
            refusal = problem::parameterFailed((name == "minchangeversion" ? "MinChangeVersion" : "MaxChangeVersion")
                                      + std::string(" must be omitted or set to a non-negative integer."));
        (name == "minchangeversion" ? query.minChangeVersion : query.maxChangeVersion) = version;
    } else {
        return false;
    }
    return true;
}

CollectionQuery collectionOf(const ResourceSchema &resource)
{
    CollectionQuery query;
    query.project = resource.projectName();
    query.resource = resource.resourceName;
    return query;
}

// A query value of the type its field has; a value that cannot be one is refused, not compared.
std::optional<Json> typedQueryValue(const std::string &type, const std::string &value)
{
    if (type == "number" || type == "integer") {
        char *end = nullptr;
        const double number = std::strtod(value.c_str(), &end);
        if (value.empty() || end == nullptr || *end != '\0' || !std::isfinite(number)
            || (type == "integer" && number != std::trunc(number)))
            return std::nullopt;
        return number == std::trunc(number) && std::fabs(number) < 9e15 ? Json(static_cast<std::int64_t>(number))
                                                                       : Json(number);
    }
    if (type == "boolean") {
        const std::string lower = toLower(value);
        if (lower != "true" && lower != "false")
            return std::nullopt;
        return Json(lower == "true");
    }
    if ((type == "date" || type == "date-time" || type == "time") && !matchesFormat(type, value))
        return std::nullopt;
    return Json(value);
}

std::string typeDescription(const std::string &type)
{
    if (type == "number" || type == "integer")
        return type == "integer" ? "an integer" : "a number";
    if (type == "boolean")
        return "true or false";
    return describeFormat(type);
}

} // namespace

Response Engine::getCollection(const Target &target, const Request &)
{
    CollectionQuery query = collectionOf(*target.resource);
    bool totalCount = false;
    for (const auto &[name, value] : target.query) {
        std::optional<Response> refusal;
        if (readPagingParameter(name, value, query, totalCount, refusal)) {
            if (refusal)
                return *refusal;
        } else if (name == "pagetoken") {
            const QByteArray decoded =
                QByteArray::fromBase64(QByteArray::fromStdString(value), QByteArray::Base64UrlEncoding);
            std::int64_t key = 0;
            if (!decoded.startsWith("k:") || !parseCount(decoded.mid(2).toStdString(), key) || key <= 0)
                return problem::parameterFailed("pageToken '" + value + "' is not a token this server issued.");
            query.afterDocKey = key;
        } else {
            auto field = target.resource->queryFields.find(name);
            if (field == target.resource->queryFields.end())
                return problem::parameterFailed("The query parameter '" + target.queryNames.at(name)
                                       + "' is not a query field of " + target.resource->resourceName + ".");
            CollectionQuery::Filter filter;
            filter.field = name;
            std::vector<CollectionQuery::Alternative> &alternatives = filter.alternatives;
            for (const QueryFieldPath &path : field->second.paths) {
                CollectionQuery::Alternative alt;
                std::optional<Json> typed = typedQueryValue(path.type, value);
                if (!typed)
                    return problem::parameterFailed("The value '" + value + "' of '" + field->second.name + "' is not "
                                           + typeDescription(path.type) + ".");
                alt.value = std::move(*typed);
                auto split = path.path.arrayPrefixLength();
                if (split == 0) {
                    alt.jsonPath = path.path.text();
                } else {
                    alt.arrayJsonPath = concretePath(path.path, {}, split - 1);
                    std::string rest = "$";
                    for (std::size_t i = split; i < path.path.steps().size(); ++i)
                        rest += path.path.steps()[i].isArray() ? "[0]" : "." + path.path.steps()[i].property;
                    alt.jsonPath = rest;
                }
                alternatives.push_back(std::move(alt));
            }
            query.filters.push_back(std::move(filter));
        }
    }
    if (query.afterDocKey > 0 && query.offset > 0)
        return problem::parameterFailed("Use either pageToken or offset, not both.");

    DeferredTransaction read(m_database.connection());
    if (!m_answerQueriesByScan)
        narrowByLookups(*target.resource, target, query);
    std::vector<StoredDocument> rows = m_store.query(query, true);
    const bool more = static_cast<std::int64_t>(rows.size()) > query.limit;
    if (more)
        rows.pop_back();
    Response response;
    response.status = 200;
    if (totalCount)
        response.headers.emplace_back("Total-Count", std::to_string(m_store.count(query)));
    if (more && !rows.empty()) {
        const QByteArray token =
            QByteArray("k:" + QByteArray::number(static_cast<qlonglong>(rows.back().docKey)))
                .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
        response.headers.emplace_back("Next-Page-Token", token.toStdString());
    }
    response.body = Json::array();
    for (const StoredDocument &row : rows)
        response.body.push_back(documentForClient(row));
    return response;
}

namespace {

// The query's value for a document path, typed, when one query field names exactly that path; and
// whether it has letters (strings compare without case, so such a value can match more than one
// referential id and is left to the filters).
struct PinnedValue
{
    Json value;
    bool hasLetters = false;
};

std::optional<PinnedValue> pinnedValue(const ResourceSchema &resource, const std::map<std::string, std::string> &query,
                                       const JsonPath &path)
{
    for (const auto &[name, field] : resource.queryFields) {
        if (field.paths.size() != 1 || !(field.paths.front().path == path))
            continue;
        auto given = query.find(name);
        if (given == query.end())
            return std::nullopt;
        std::optional<Json> value = typedQueryValue(field.paths.front().type, given->second);
        if (!value)
            return std::nullopt;
        const bool letters = value->is_string() && !resource.isDescriptorPath(path.text())
                             && std::any_of(given->second.begin(), given->second.end(),
                                            [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
        return PinnedValue{std::move(*value), letters};
    }
    return std::nullopt;
}

} // namespace

void Engine::narrowByLookups(const ResourceSchema &resource, const Target &target, CollectionQuery &query)
{
    if (resource.isDescriptor)
        return;
    // A query that names every identity value (students?studentUniqueId=..., the way clients find a
    // record before they update or delete it) is one document's referential id: the filters then run
    // on that row alone instead of over the whole resource.
    Json body = Json::object();
    bool whole = !resource.identityPaths.empty();
    for (const JsonPath &identityPath : resource.identityPaths) {
        std::optional<PinnedValue> pinned = pinnedValue(resource, target.query, identityPath);
        if (!pinned || pinned->hasLetters) {
            whole = false;
            break;
        }
        identityPath.assign(body, {}, pinned->value);
    }
    if (whole) {
        if (std::optional<DocumentIdentity> identity = m_identity.documentIdentity(resource, body)) {
            std::optional<StoredDocument> found = m_store.findByReferentialId(identity->referentialId());
            query.onlyDocKey = found ? found->docKey : 0;
            return;
        }
    }
    // A query that names every value of one reference (studentSectionAssociations?studentUniqueId=...)
    // can only match documents that reference that target: the references' reverse index lists them.
    for (const ReferenceMapping &reference : resource.references) {
        if (reference.objectPath.hasArrayStep())
            continue;
        Json referencing = Json::object();
        bool pinnedAll = !reference.paths.empty();
        for (const ReferencePathPair &pair : reference.paths) {
            std::optional<PinnedValue> pinned = pinnedValue(resource, target.query, pair.referencePath);
            if (!pinned || pinned->hasLetters) {
                pinnedAll = false;
                break;
            }
            pair.referencePath.assign(referencing, {}, pinned->value);
        }
        if (!pinnedAll)
            continue;
        std::optional<DocumentIdentity> targetIdentity = m_identity.referenceIdentity(reference, referencing, {});
        if (!targetIdentity)
            continue;
        // Every stored reference resolves, so when the target is not stored nothing references it.
        std::optional<AliasKeys> alias = m_store.findAliasKeys(targetIdentity->referentialId());
        if (!alias) {
            query.onlyDocKey = 0;
            return;
        }
        query.referencingAlias = alias->aliasKey;
        return;
    }
}

Response Engine::availableChangeVersions()
{
    DeferredTransaction read(m_database.connection());
    Response response;
    response.status = 200;
    // The change log keeps every change from the first, so the oldest version is always available.
    response.body = Json{{"oldestChangeVersion", 0}, {"newestChangeVersion", m_store.newestChangeVersion()}};
    return response;
}

Response Engine::changeFeed(const Target &target, TrackedChangeKind kind)
{
    CollectionQuery query = collectionOf(*target.resource);
    bool totalCount = false;
    for (const auto &[name, value] : target.query) {
        std::optional<Response> refusal;
        if (!readPagingParameter(name, value, query, totalCount, refusal))
            return problem::parameterFailed("The query parameter '" + target.queryNames.at(name)
                                   + "' is not one of offset, limit, totalCount, minChangeVersion, maxChangeVersion.");
        if (refusal)
            return *refusal;
    }
    DeferredTransaction read(m_database.connection());
    Response response;
    response.status = 200;
    if (totalCount)
        response.headers.emplace_back("Total-Count", std::to_string(m_store.countTrackedChanges(kind, query)));
    response.body = Json::array();
    for (const TrackedChange &change : m_store.trackedChanges(kind, query)) {
        Json item{{"id", change.id}, {"changeVersion", change.changeVersion}};
        if (kind == TrackedChangeKind::Delete) {
            item["keyValues"] = keyValuesOf(Json::parse(change.identity));
        } else {
            item["oldKeyValues"] = keyValuesOf(Json::parse(change.previousIdentity));
            item["newKeyValues"] = keyValuesOf(Json::parse(change.identity));
        }
        response.body.push_back(std::move(item));
    }
    return response;
}

} // namespace steward
