#include "Engine.h"
#include "Text.h"

#include "BodyCodec.h"
#include "Clock.h"

#include "SearchTerms.h"

#include <QCryptographicHash>
#include <QDateTime>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <exception>
#include <cstdio>
#include <random>
#include <thread>

#include <pwd.h>
#include <unistd.h>

namespace steward {

namespace {

// Timestamps have one-second resolution; formatting once per second keeps bulk writes cheap.
std::string nowUtc()
{
    thread_local qint64 lastSecond = -1;
    thread_local std::string lastText;
    const QDateTime now = engineNow();
    const qint64 second = now.toSecsSinceEpoch();
    if (second != lastSecond) {
        lastSecond = second;
        lastText = now.toString(Qt::ISODate).toStdString();
    }
    return lastText;
}

// The change-log record of a document rewritten from one with referential id `before`: a key change
// when its identity moved.
ChangeRecord rewriteRecord(const Uuid &before, const StoredDocument &after, const std::string &actor,
                           const std::string &at)
{
    if (after.referentialId == before)
        return {"update", std::nullopt, actor, at};
    return {"key-change", before, actor, at};
}

std::string percentDecode(const std::string &text, bool plusIsSpace)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && hexDigitValue(text[i + 1]) >= 0
            && hexDigitValue(text[i + 2]) >= 0) {
            out += static_cast<char>(hexDigitValue(text[i + 1]) * 16 + hexDigitValue(text[i + 2]));
            i += 2;
        } else if (plusIsSpace && text[i] == '+') {
            out += ' ';
        } else {
            out += text[i];
        }
    }
    return out;
}

std::vector<std::string> splitPath(const std::string &path)
{
    std::vector<std::string> segments;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t slash = path.find('/', start);
        const std::size_t end = slash == std::string::npos ? path.size() : slash;
        if (end > start)
            segments.push_back(percentDecode(path.substr(start, end - start), false));
        if (slash == std::string::npos)
            break;
        start = slash + 1;
    }
    return segments;
}

// Ed-Fi ids travel in two spellings: ODS/API writes them as 32 hex digits, DMS (and Steward) as a
// hyphenated UUID. Either names the same document; anything else is left as it is (and not found).
std::string canonicalId(const std::string &id)
{
    auto isHex = [](char c) { return hexDigitValue(c) >= 0; };
    const std::string lower = lowerAscii(id);
    if (lower.size() == 32 && std::all_of(lower.begin(), lower.end(), isHex))
        return lower.substr(0, 8) + "-" + lower.substr(8, 4) + "-" + lower.substr(12, 4) + "-" + lower.substr(16, 4)
               + "-" + lower.substr(20);
    if (lower.size() == 36 && Uuid::parse(lower))
        return lower;
    return id;
}

bool isUuidText(const std::string &id)
{
    return Uuid::parse(canonicalId(id)).has_value();
}

// If-Match as ODS/API reads it: "*" matches any existing document, anything else the quoted etag.
bool ifMatchHolds(const std::string &ifMatch, const std::string &etag)
{
    return ifMatch.empty() || ifMatch == "*" || ifMatch == "\"" + etag + "\"";
}

// Why a PUT or DELETE cannot touch the document stored under the id, if it cannot: none of this
// resource there (404; 412 for If-Match: *, which promises one exists), or an If-Match it fails.
std::optional<Response> refuseWriteTo(const ResourceSchema &resource, const std::string &id,
                                      const std::optional<StoredDocument> &existing, const std::string &ifMatch)
{
    if (!existing || existing->resource != resource.resourceName || existing->project != resource.projectName()) {
        if (ifMatch == "*")
            return problem::preconditionFailed();
        return problem::notFound("No " + resource.resourceName + " with the id '" + id + "' exists.");
    }
    if (!ifMatchHolds(ifMatch, existing->etag))
        return problem::preconditionFailed();
    return std::nullopt;
}

std::string identityText(const DocumentIdentity &identity)
{
    std::string out;
    for (const IdentityElement &e : identity.elements)
        out += (out.empty() ? "" : ", ") + e.path.substr(2) + " = " + e.value;
    return out;
}

bool isSqliteConstraint(const SQLite::Exception &e)
{
    return (e.getErrorCode() & 0xff) == 19; // SQLITE_CONSTRAINT
}

// BEGIN IMMEDIATE for writes; a dry run (validate()) reads in a deferred transaction and never commits.
// Inside a batch, a request is a savepoint of the batch's transaction, except where the caller
// knows every refusal comes before the first write (a POST): a savepoint there made SQLite copy
// each page the document touched into a statement journal. Without one, an exception part way
// through the writes marks the batch broken, and the whole chunk is rolled back instead.
class WriteScope
{
public:
    enum class InBatch { Savepoint, RefusalsBeforeWrites };

    WriteScope(SQLite::Database &db, DocumentStore &store, bool dryRun, bool inBatch, bool &batchBroken,
               InBatch mode = InBatch::Savepoint)
        : m_db(db)
        , m_store(store)
        , m_dryRun(dryRun)
        , m_inBatch(inBatch)
        , m_savepoint(!inBatch || dryRun || mode == InBatch::Savepoint)
        , m_batchBroken(batchBroken)
        , m_exceptionsAtStart(std::uncaught_exceptions())
    {
        if (m_savepoint) {
            m_db.exec(inBatch ? "SAVEPOINT request" : dryRun ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE");
            m_store.forgetTransactionRows();
        }
    }
    ~WriteScope()
    {
        if (!m_open)
            return;
        if (!m_savepoint) {
            if (std::uncaught_exceptions() > m_exceptionsAtStart)
                m_batchBroken = true;
            return;
        }
        m_store.forgetTransactionRows();
        try {
            m_db.exec(m_inBatch ? "ROLLBACK TO request; RELEASE request" : "ROLLBACK");
        } catch (...) {
        }
    }
    void commit()
    {
        m_open = false;
        if (!m_savepoint)
            return;
        if (m_inBatch)
            m_db.exec(m_dryRun ? "ROLLBACK TO request; RELEASE request" : "RELEASE request");
        else
            m_db.exec(m_dryRun ? "ROLLBACK" : "COMMIT");
    }

private:
    SQLite::Database &m_db;
    DocumentStore &m_store;
    bool m_dryRun;
    bool m_inBatch;
    bool m_savepoint;
    bool &m_batchBroken;
    int m_exceptionsAtStart;
    bool m_open = true;
};

// A prepared body's compressed forms go with it to the store, which then does not compress again.
void takeStoredForms(StoredDocument &document, const PreparedBody &prepared)
{
    document.storedBody = prepared.storedBody;
    document.storedIdentity = prepared.storedIdentity;
    // Only for the identity text it was worked out from (an update keeps the stored text).
    document.naturalKey = document.identity == prepared.identityText ? prepared.naturalKey : std::nullopt;
    document.storedWith = prepared.storedWith;
}

} // namespace

std::string currentOsUser()
{
    for (const char *name : {"USER", "LOGNAME"})
        if (const char *value = std::getenv(name); value && *value)
            return value;
    // A service, a container or `env -i` may set neither; the account is still known to the system.
    const uid_t uid = geteuid();
    std::vector<char> buffer(16384);
    passwd entry{};
    passwd *found = nullptr;
    if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found && found->pw_name
        && *found->pw_name)
        return found->pw_name;
    // An id without a name in the password database (a container's arbitrary uid): the id still says who.
    return "uid " + std::to_string(uid);
}

std::string canonicalDocumentId(const std::string &id)
{
    return canonicalId(id);
}

Engine::Engine(const Model &model, Database &database)
    : m_model(model)
    , m_database(database)
    , m_identity(model)
    , m_validator(model.validator())
    , m_store(database.connection(), database.codec(), database.indexKeyMemo())
{
    m_store.registerResources(model);
    m_store.useQueryIndex(model);
}

Engine::~Engine() = default;

void Engine::setAnswerQueriesByScan(bool scan)
{
    m_answerQueriesByScan = scan;
    m_store.setQueryIndexUse(!scan);
}

Response Engine::handle(const Request &request)
{
    return guarded([&] { return dispatch(request); });
}

Response Engine::handlePrepared(const PreparedBody &prepared, const std::string &actor)
{
    return guarded([&] {
        m_lastWriteChangeSeq = 0;
        return postPrepared(prepared, actor.empty() ? currentOsUser() : actor);
    });
}

Response Engine::restoreDocument(const ResourceSchema &resource, const std::string &id, const std::string &bodyText,
                                 const std::string &actor)
{
    return guarded([&] {
        m_lastWriteChangeSeq = 0;
        PreparedBody prepared = prepareBody(resource, Json::parse(bodyText));
        if (!prepared.refusal && prepared.bodyText != bodyText)
            return problem::make(400, problem::kBadRequest, "Bad Request",
                                 "The " + resource.resourceName + " " + id
                                     + " would not come back as it was stored: the model reads it differently now.");
        prepared.newId = canonicalId(id);
        prepared.mustCreate = true;
        return postPrepared(prepared, actor.empty() ? currentOsUser() : actor);
    });
}

Response Engine::guarded(const std::function<Response()> &work)
{
    try {
        return work();
    } catch (const StorageError &e) {
        if (e.kind() == StorageError::Kind::Busy)
            return problem::make(503, problem::kServiceUnavailable, "Service Unavailable", e.what());
        return problem::make(500, problem::kInternalError, "Internal Server Error", e.what());
    } catch (const SQLite::Exception &e) {
        if (isBusyError(e))
            return problem::make(503, problem::kServiceUnavailable, "Service Unavailable",
                                 "The database is busy; try again.");
        return problem::make(500, problem::kInternalError, "Internal Server Error",
                             std::string("Storage error: ") + e.what());
    } catch (const std::exception &e) {
        return problem::make(500, problem::kInternalError, "Internal Server Error", e.what());
    }
}

void Engine::beginBatch()
{
    const Response begun = withWriteTransaction([this] {
        m_database.connection().exec("BEGIN IMMEDIATE");
        Response ok;
        ok.status = 200;
        return ok;
    });
    if (begun.status != 200)
        throw StorageError(StorageError::Kind::Busy, m_database.path() + ": " + begun.body.value("detail", std::string()));
    m_inBatch = true;
    m_batchBroken = false;
    m_aliasCache.clear();
    m_store.forgetTransactionRows();
    try {
        m_store.refreshAliasTracking(); // inside the lock: nobody can commit until this batch ends
    } catch (...) {
        rollbackBatch();
        throw;
    }
}

void Engine::trackReferentialIds(std::int64_t incoming)
{
    m_store.trackAliases(incoming);
}

void Engine::stopTrackingReferentialIds()
{
    m_store.stopTrackingAliases();
}

void Engine::commitBatch()
{
    if (m_batchBroken) {
        rollbackBatch();
        throw StorageError(StorageError::Kind::Io,
                           m_database.path() + ": a write failed part way through a document; its chunk was rolled back");
    }
    m_aliasCache.clear();
    // The batch ends only once COMMIT went through: one that fails (a deferred constraint, a full
    // disk) leaves the transaction open, and the caller's rollbackBatch() must still end it.
    m_database.connection().exec("COMMIT");
    m_inBatch = false;
}

void Engine::rollbackBatch()
{
    m_aliasCache.clear();
    m_store.forgetTransactionRows();
    if (!m_inBatch)
        return;
    m_inBatch = false;
    try {
        m_database.connection().exec("ROLLBACK");
    } catch (const SQLite::Exception &) {
        // SQLite already rolled back (an I/O error ends the transaction itself).
    }
}

Response Engine::validate(const Request &request)
{
    m_dryRun = true;
    Response response = handle(request);
    m_dryRun = false;
    return response;
}

Response Engine::dispatch(const Request &request)
{
    m_lastWriteChangeSeq = 0;
    const std::string &method = request.method;
    if (method != "GET" && method != "POST" && method != "PUT" && method != "DELETE")
        return problem::make(405, problem::kMethodNotAllowed, "Method Not Allowed",
                             "Method '" + method + "' is not supported; use GET, POST, PUT or DELETE.");
    // ODS/API reads under a snapshot when asked; a write cannot be made to one.
    if (method != "GET" && toLower(request.header("use-snapshot")) == "true") {
        Response refused = problem::make(405, problem::kMethodNotAllowed, "Method Not Allowed",
                                         "A request with 'Use-Snapshot: true' can only read (GET).");
        refused.headers.emplace_back("Allow", "GET");
        return refused;
    }
    // A PUT or DELETE may move or remove aliases, and one refused part way rolls back what it had
    // looked up since: remembered lookups are forgotten before and after.
    struct ForgetAliases
    {
        decltype(m_aliasCache) &cache;
        bool active;
        ~ForgetAliases()
        {
            if (active)
                cache.clear();
        }
    } forget{m_aliasCache, method == "PUT" || method == "DELETE"};
    if (forget.active)
        m_aliasCache.clear();

    std::string pathPart = request.path;
    std::string queryPart;
    if (const std::size_t q = pathPart.find('?'); q != std::string::npos) {
        queryPart = pathPart.substr(q + 1);
        pathPart = pathPart.substr(0, q);
    }
    const std::vector<std::string> segments = splitPath(pathPart);
    if (segments.size() == 3 && toLower(segments[0]) == "changequeries" && toLower(segments[1]) == "v1"
        && toLower(segments[2]) == "availablechangeversions") {
        if (method != "GET")
            return problem::make(405, problem::kMethodNotAllowed, "Method Not Allowed",
                                 "availableChangeVersions answers GET only.");
        return availableChangeVersions();
    }
    if (segments.size() < 2 || segments.size() > 3)
        return problem::notFound("The path '" + pathPart + "' is not of the form /{project}/{resource}[/{id}].");
    Target target;
    target.resource = m_model.findByEndpoint(segments[0], segments[1]);
    if (target.resource == nullptr) {
        if (m_model.findProjectByEndpoint(segments[0]) == nullptr)
            return problem::notFound("No project with the endpoint '" + segments[0] + "' is loaded.");
        return problem::notFound("The resource '" + segments[1] + "' does not exist in project '" + segments[0] + "'.");
    }
    if (segments.size() == 3)
        target.id = canonicalId(segments[2]);

    if (!queryPart.empty()) {
        std::size_t start = 0;
        while (start <= queryPart.size()) {
            const std::size_t amp = queryPart.find('&', start);
            const std::string pair = queryPart.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
            if (!pair.empty()) {
                const std::size_t eq = pair.find('=');
                const std::string name = percentDecode(pair.substr(0, eq), true);
                const std::string value = eq == std::string::npos ? "" : percentDecode(pair.substr(eq + 1), true);
                target.query[toLower(name)] = value;
                target.queryNames[toLower(name)] = name;
            }
            if (amp == std::string::npos)
                break;
            start = amp + 1;
        }
    }

    // Change Queries' feeds sit where an id would; ids are UUIDs, so the names cannot clash.
    const std::string lowerId = toLower(target.id);
    if (lowerId == "deletes" || lowerId == "keychanges") {
        if (method != "GET")
            return problem::make(405, problem::kMethodNotAllowed, "Method Not Allowed",
                                 "/" + segments[0] + "/" + segments[1] + "/" + segments[2] + " answers GET only.");
        return changeFeed(target, lowerId == "deletes" ? TrackedChangeKind::Delete : TrackedChangeKind::KeyChange);
    }
    if (method == "GET")
        return target.id.empty() ? getCollection(target, request) : getById(target, request);
    if (method == "POST") {
        if (!target.id.empty())
            return problem::make(405, problem::kMethodNotAllowed, "Method Not Allowed",
                                 "POST goes to the collection (/" + segments[0] + "/" + segments[1]
                                     + "), not to an item.");
        return post(target, request);
    }
    if (target.id.empty())
        return problem::make(405, problem::kMethodNotAllowed, "Method Not Allowed",
                             method + " needs an item id: /" + segments[0] + "/" + segments[1] + "/{id}.");
    return method == "PUT" ? put(target, request) : remove(target, request);
}

Response Engine::withWriteTransaction(const std::function<Response()> &work)
{
    // Seeded once per thread: opening std::random_device on every write showed up in profiles.
    thread_local std::mt19937 jitter(std::random_device{}());
    int delay = m_retry.firstDelayMs;
    for (int attempt = 0;; ++attempt) {
        try {
            return work();
        } catch (const SQLite::Exception &e) {
            if (!isBusyError(e))
                throw;
            if (attempt >= m_retry.retries)
                return problem::make(503, problem::kServiceUnavailable, "Service Unavailable",
                                     "The database stayed locked by another program for too long ("
                                         + std::to_string(attempt + 1)
                                         + " attempts); nothing was written. Try again.");
        }
        std::uniform_int_distribution<int> spread(delay / 2, delay);
        std::this_thread::sleep_for(std::chrono::milliseconds(spread(jitter)));
        delay = std::min(delay * 2, m_retry.maxDelayMs);
    }
}

std::vector<PreparedReference> Engine::prepareReferences(const ResourceSchema &resource, const Json &body) const
{
    std::vector<BodyReference> referencesFound = m_identity.referencesIn(resource, body);
    std::vector<PreparedReference> out;
    out.reserve(referencesFound.size());
    for (BodyReference &found : referencesFound) {
        PreparedReference reference;
        reference.path = std::move(found.path);
        reference.isDescriptor = found.isDescriptor();
        reference.targetResource = found.targetResource();
        if (reference.isDescriptor && found.value->is_string())
            reference.descriptorValue = found.value->get<std::string>();
        if (found.identity)
            reference.referentialId = found.identity->referentialId();
        out.push_back(std::move(reference));
    }
    return out;
}

std::optional<AliasKeys> Engine::lookupAlias(const Uuid &referentialId)
{
    if (!m_inBatch)
        return m_store.findAliasKeys(referentialId);
    if (auto cached = m_aliasCache.find(referentialId); cached != m_aliasCache.end())
        return cached->second;
    std::optional<AliasKeys> alias = m_store.findAliasKeys(referentialId);
    // Only what exists is remembered: a miss may be written later in the same batch.
    if (alias && m_aliasCache.size() < 200000)
        m_aliasCache.emplace(referentialId, *alias);
    return alias;
}

std::optional<Response> Engine::resolveReferences(const ResourceSchema &resource, const Json &body,
                                                  Resolved &resolved)
{
    return resolveReferences(prepareReferences(resource, body), resolved);
}

std::optional<Response> Engine::resolveReferences(const std::vector<PreparedReference> &references,
                                                  Resolved &resolved)
{
    ValidationErrors descriptorErrors;
    ValidationErrors referenceErrors;
    for (const PreparedReference &found : references) {
        if (!found.referentialId) {
            // Schema validation requires every identity member of a reference it declares; a partial
            // reference can only come from a model whose schema does not say so.
            referenceErrors[found.path].push_back("The reference to " + found.targetResource + " is incomplete.");
            continue;
        }
        std::optional<AliasKeys> alias = lookupAlias(*found.referentialId);
        if (alias)
            resolved.aliasKeys.insert(alias->aliasKey);
        else if (found.isDescriptor)
            descriptorErrors[found.path].push_back(found.targetResource + " value '" + found.descriptorValue
                                                   + "' does not exist.");
        else
            referenceErrors[found.path].push_back("The referenced " + found.targetResource + " item does not exist.");
    }
    if (!descriptorErrors.empty()) {
        ValidationErrors all = descriptorErrors;
        for (const auto &[path, messages] : referenceErrors)
            all[path].insert(all[path].end(), messages.begin(), messages.end());
        std::string detail;
        for (const auto &[path, messages] : descriptorErrors)
            for (const std::string &m : messages)
                detail += (detail.empty() ? "" : " ") + m;
        return problem::make(400, problem::kBadRequest, "Bad Request", detail, all);
    }
    if (!referenceErrors.empty()) {
        std::set<std::string> names;
        for (const PreparedReference &found : references)
            if (!found.isDescriptor && referenceErrors.count(found.path))
                names.insert(found.targetResource);
        std::string list;
        for (const std::string &n : names)
            list += (list.empty() ? "" : ", ") + n;
        return problem::make(409, problem::kUnresolvedReference, "Unresolved Reference",
                             "The referenced " + list + " item(s) do not exist.", referenceErrors);
    }
    return std::nullopt;
}

void Engine::writeAliases(const ResourceSchema &resource, const StoredDocument &document,
                          const DocumentIdentity &own, bool isNew)
{
    writeAliases(resource, document, m_identity.superclassIdentity(resource, own), isNew);
}

void Engine::writeAliases(const ResourceSchema &resource, const StoredDocument &document,
                          const std::optional<DocumentIdentity> &super, bool isNew)
{
    if (isNew) {
        m_store.insertAlias(document.docKey, document.referentialId, resource.projectName(), resource.resourceName);
        if (super)
            m_store.insertAlias(document.docKey, super->referentialId(), super->projectName, super->resourceName);
        return;
    }
    // Identity changed: update alias rows in place so the integer keys other documents point at stay valid.
    for (const auto &[aliasKey, referentialId] : m_store.aliasesOf(document.docKey)) {
        std::optional<AliasRow> row = m_store.findAlias(referentialId);
        if (!row)
            continue;
        if (row->resource == resource.resourceName && row->project == resource.projectName())
            m_store.updateAlias(aliasKey, document.referentialId);
        else if (super)
            m_store.updateAlias(aliasKey, super->referentialId());
    }
}

PreparedBody Engine::preparePost(const ResourceSchema &resource, Json body) const
{
    std::optional<Response> refusal;
    if (!body.is_object())
        refusal = problem::dataValidationFailed({{"$", {"A JSON object body is required."}}});
    else if (body.contains("id"))
        refusal =
            problem::dataValidationFailed({{"$.id", {"id must not be supplied in a POST body; the server assigns it."}}});
    if (refusal) {
        PreparedBody refused;
        refused.resource = &resource;
        refused.refusal = std::move(refusal);
        return refused;
    }
    PreparedBody prepared = prepareBody(resource, std::move(body));
    prepared.newId = Uuid::random().toString();
    return prepared;
}

PreparedBody Engine::prepareBody(const ResourceSchema &resource, Json body) const
{
    PreparedBody prepared;
    prepared.resource = &resource;
    if (ValidationErrors errors = m_validator.validateSchema(resource, body); !errors.empty()) {
        prepared.refusal = problem::dataValidationFailed(errors);
        return prepared;
    }
    if (ValidationErrors errors = m_validator.validateConstraints(resource, body); !errors.empty()) {
        prepared.refusal = problem::dataValidationFailed(errors);
        return prepared;
    }
    std::string missing;
    prepared.identity = m_identity.documentIdentity(resource, body, &missing);
    if (!prepared.identity) {
        prepared.refusal = problem::dataValidationFailed({{missing, {"The identity value at " + missing + " is required."}}});
        return prepared;
    }
    prepared.referentialId = prepared.identity->referentialId();
    prepared.superclass = m_identity.superclassIdentity(resource, *prepared.identity);
    prepared.references = prepareReferences(resource, body);
    prepared.bodyText = dumpJson(body);
    const Json identityObject = m_identity.identityObject(resource, body);
    prepared.identityText = dumpJson(identityObject);
    // The very function the natural-key index calls, so the index holds what it would have worked out.
    prepared.naturalKey = naturalKeyOfIdentityText(prepared.identityText);
    prepared.etag = etagOf(prepared.bodyText);
    prepared.queryIndexText = m_store.queryIndexTextOf(resource, queryValuesOf(resource, body));
    prepared.searchTerms = searchTermsOf(body);
    if (BodyCodec *codec = m_database.codec())
        if (std::shared_ptr<const BodyDictionary> dictionary = codec->dictionaryOf(resource.projectName(),
                                                                                   resource.resourceName)) {
            prepared.storedBody = BodyCodec::compress(*dictionary, prepared.bodyText);
            prepared.storedIdentity = BodyCodec::compress(*dictionary, prepared.identityText);
            prepared.storedWith = BodyCodec::idOf(*dictionary);
        }
    return prepared;
}

Response Engine::post(const Target &target, const Request &request)
{
    if (!request.body)
        return problem::dataValidationFailed({{"$", {"A JSON object body is required."}}});
    return postPrepared(preparePost(*target.resource, *request.body),
                        request.actor.empty() ? currentOsUser() : request.actor, request.header("if-match"));
}

Response Engine::postPrepared(const PreparedBody &prepared, const std::string &actor, const std::string &ifMatch)
{
    if (prepared.refusal)
        return *prepared.refusal;
    const ResourceSchema &resource = *prepared.resource;
    const std::string &bodyText = prepared.bodyText;
    const Uuid &referentialId = prepared.referentialId;

    return withWriteTransaction([&]() -> Response {
        WriteScope transaction(m_database.connection(), m_store, m_dryRun, m_inBatch, m_batchBroken,
                               WriteScope::InBatch::RefusalsBeforeWrites);
        Resolved resolved;
        if (std::optional<Response> failure = resolveReferences(prepared.references, resolved))
            return *failure;
        const std::string now = nowUtc();
        // A large import knows most of its documents are new without asking (DocumentStore::trackAliases).
        std::optional<StoredDocument> existing;
        if (m_store.mayHaveAlias(referentialId))
            existing = m_store.findByReferentialId(referentialId);
        Response response;
        if (existing) {
            if (existing->resource != resource.resourceName || existing->project != resource.projectName())
                return problem::identityConflict(resource.resourceName, "");
            if (prepared.mustCreate)
                return problem::identityConflict(resource.resourceName, "A " + existing->resource + " with this identity ("
                                                                   + naturalKeyText(Json::parse(existing->identity)) + ") is stored again, as "
                                                                   + existing->id + ".");
            // ODS/API's upsert honours If-Match when it would update: a client that last saw another
            // version (or, with a tag that matches nothing, none) must not overwrite this one.
            if (!ifMatchHolds(ifMatch, existing->etag))
                return problem::preconditionFailed();
            response.status = 200;
            if (m_dryRun) {
                response.headers.emplace_back("Location", resource.requestPath(existing->id));
                return response;
            }
            if (existing->body != bodyText) {
                existing->body = bodyText;
                existing->etag = prepared.etag;
                existing->queryIndexText = prepared.queryIndexText;
                existing->searchTerms = prepared.searchTerms;
                takeStoredForms(*existing, prepared);
                existing->lastModified = now;
                m_store.updateDocument(*existing, {"update", std::nullopt, actor, now});
                m_store.setReferences(existing->docKey, resolved.aliasKeys, true);
                m_lastWriteChangeSeq = existing->changeSeq;
            }
            response.headers.emplace_back("Location", resource.requestPath(existing->id));
            response.headers.emplace_back("ETag", quotedEtag(existing->etag));
        } else {
            if (prepared.superclass) {
                if (std::optional<AliasKeys> taken = lookupAlias(prepared.superclass->referentialId())) {
                    std::optional<StoredDocument> other = m_store.findByKey(taken->docKey);
                    return problem::identityConflict(resource.resourceName,
                                            "A " + (other ? other->resource : std::string("document"))
                                                + " with the same " + prepared.superclass->resourceName
                                                + " identity (" + identityText(*prepared.superclass)
                                                + ") already exists.");
                }
            }
            if (prepared.mustCreate && m_store.findById(prepared.newId))
                return problem::identityConflict(resource.resourceName, "The id " + prepared.newId + " is taken.");
            if (m_dryRun) {
                response.status = 201;
                return response;
            }
            StoredDocument document;
            document.id = prepared.newId;
            document.project = resource.projectName();
            document.resource = resource.resourceName;
            document.referentialId = referentialId;
            document.identity = prepared.identityText;
            document.body = bodyText;
            document.etag = prepared.etag;
            document.queryIndexText = prepared.queryIndexText;
            document.searchTerms = prepared.searchTerms;
            takeStoredForms(document, prepared);
            document.createdAt = now;
            document.lastModified = now;
            m_store.insertDocument(document, {"insert", std::nullopt, actor, now});
            writeAliases(resource, document, prepared.superclass, true);
            m_store.setReferences(document.docKey, resolved.aliasKeys, false);
            m_lastWriteChangeSeq = document.changeSeq;
            response.status = 201;
            response.headers.emplace_back("Location", resource.requestPath(document.id));
            response.headers.emplace_back("ETag", quotedEtag(document.etag));
        }
        transaction.commit();
        return response;
    });
}

Response Engine::put(const Target &target, const Request &request)
{
    const ResourceSchema &resource = *target.resource;
    if (!request.body || !request.body->is_object())
        return problem::dataValidationFailed({{"$", {"A JSON object body is required."}}});
    Json body = *request.body;
    if (auto idIt = body.find("id"); idIt != body.end()) {
        // ODS/API answers an id it cannot use with a plain bad request, before any validation.
        const std::string given = idIt->is_string() ? idIt->get<std::string>() : std::string();
        if (!idIt->is_string() || !isUuidText(given) || canonicalId(given) != target.id)
            return problem::make(400, problem::kBadRequest, "Bad Request",
                                 "The request could not be processed. See 'errors' for details.", {},
                                 {"Request body id must match the id in the url."});
        body.erase(idIt);
    }
    const PreparedBody prepared = prepareBody(resource, std::move(body));
    if (prepared.refusal)
        return *prepared.refusal;
    const std::string &bodyText = prepared.bodyText;
    const Uuid &referentialId = prepared.referentialId;
    const std::string actor = request.actor.empty() ? currentOsUser() : request.actor;
    const std::string ifMatch = request.header("if-match");

    return withWriteTransaction([&]() -> Response {
        WriteScope transaction(m_database.connection(), m_store, m_dryRun, m_inBatch, m_batchBroken);
        std::optional<StoredDocument> existing = m_store.findById(target.id);
        if (std::optional<Response> refusal = refuseWriteTo(resource, target.id, existing, ifMatch))
            return *refusal;
        const bool identityChanged = existing->referentialId != referentialId;
        if (identityChanged && !resource.allowIdentityUpdates)
            return problem::make(400, problem::kKeyChangeNotSupported, "Key Change Not Supported",
                                 "Identifying values for the " + resource.resourceName
                                     + " resource cannot be changed. Delete and recreate the resource item instead.");
        Resolved resolved;
        if (std::optional<Response> failure =
                resolveReferences(prepared.references, resolved))
            return *failure;
        if (identityChanged) {
            if (m_store.findByReferentialId(referentialId))
                return problem::identityConflict(resource.resourceName, "");
            if (prepared.superclass) {
                std::optional<AliasRow> taken = m_store.findAlias(prepared.superclass->referentialId());
                if (taken && taken->docKey != existing->docKey)
                    return problem::identityConflict(resource.resourceName, "");
            }
        }
        Response response;
        response.status = 204;
        if (m_dryRun || existing->body == bodyText) {
            response.headers.emplace_back("ETag", quotedEtag(existing->etag));
            return response;
        }
        const StoredDocument before = *existing;
        const std::string now = nowUtc();
        existing->body = bodyText;
        existing->etag = prepared.etag;
        existing->lastModified = now;
        existing->referentialId = referentialId;
        existing->identity = prepared.identityText;
        existing->queryIndexText = prepared.queryIndexText;
        takeStoredForms(*existing, prepared);
        try {
            m_store.updateDocument(*existing, rewriteRecord(before.referentialId, *existing, actor, now));
            if (identityChanged)
                writeAliases(resource, *existing, prepared.superclass, false);
        } catch (const SQLite::Exception &e) {
            if (isSqliteConstraint(e))
                return problem::identityConflict(resource.resourceName, "");
            throw;
        }
        m_store.setReferences(existing->docKey, resolved.aliasKeys, true);
        if (identityChanged)
            if (std::optional<Response> failure = cascadeIdentityChange(resource, before, *existing, actor, now, 0))
                return *failure;
        transaction.commit();
        m_lastWriteChangeSeq = existing->changeSeq;
        response.headers.emplace_back("ETag", quotedEtag(existing->etag));
        return response;
    });
}

std::optional<Response> Engine::cascadeIdentityChange(const ResourceSchema &resource, const StoredDocument &before,
                                                      const StoredDocument &after, const std::string &actor,
                                                      const std::string &now, int depth)
{
    if (depth > 32)
        return problem::make(500, problem::kInternalError, "Internal Server Error",
                             "Identity updates cascade deeper than 32 levels; nothing was written.");
    const Json oldBody = Json::parse(before.body);
    const Json newBody = Json::parse(after.body);
    if (!m_identity.documentIdentity(resource, oldBody))
        return std::nullopt;

    for (std::int64_t referrerKey : m_store.referencingDocKeys(after.docKey)) {
        std::optional<StoredDocument> referrer = m_store.findByKey(referrerKey);
        if (!referrer)
            continue;
        const ResourceSchema *referrerSchema = m_model.findByName(referrer->project, referrer->resource);
        if (referrerSchema == nullptr)
            continue;
        const Json referrerBody =
            redirectReferences(*referrerSchema, Json::parse(referrer->body), resource, oldBody, newBody);
        const StoredDocument referrerBefore = *referrer;
        std::optional<DocumentIdentity> newIdentity = m_identity.documentIdentity(*referrerSchema, referrerBody);
        if (!newIdentity)
            continue;
        referrer->body = dumpJson(referrerBody);
        if (referrer->body == referrerBefore.body)
            continue;
        referrer->etag = etagOf(referrer->body);
        referrer->lastModified = now;
        referrer->referentialId = newIdentity->referentialId();
        referrer->identity = dumpJson(m_identity.identityObject(*referrerSchema, referrerBody));
        const bool referrerIdentityChanged = referrer->referentialId != referrerBefore.referentialId;
        try {
            m_store.updateDocument(*referrer, rewriteRecord(referrerBefore.referentialId, *referrer, actor, now));
            if (referrerIdentityChanged)
                writeAliases(*referrerSchema, *referrer, *newIdentity, false);
        } catch (const SQLite::Exception &e) {
            if (isSqliteConstraint(e))
                return problem::identityConflict(referrerSchema->resourceName,
                                        "Updating the identity would give a " + referrerSchema->resourceName
                                            + " the same identity as another one (" + identityText(*newIdentity)
                                            + ").");
            throw;
        }
        if (referrerIdentityChanged)
            if (std::optional<Response> failure =
                    cascadeIdentityChange(*referrerSchema, referrerBefore, *referrer, actor, now, depth + 1))
                return failure;
    }
    return std::nullopt;
}

Json Engine::redirectReferences(const ResourceSchema &referrer, Json referrerBody, const ResourceSchema &resource,
                                const Json &oldBody, const Json &newBody) const
{
    std::optional<DocumentIdentity> oldOwn = m_identity.documentIdentity(resource, oldBody);
    if (!oldOwn)
        return referrerBody;
    std::optional<DocumentIdentity> oldSuper = m_identity.superclassIdentity(resource, *oldOwn);
    for (const ReferenceMapping &reference : referrer.references) {
        const bool toSelf = reference.targetResourceName == resource.resourceName
                            && reference.targetProjectName == resource.projectName();
        const bool toSuper = resource.isSubclass && reference.targetResourceName == resource.superclassResourceName
                             && reference.targetProjectName == resource.superclassProjectName;
        if (!toSelf && !toSuper)
            continue;
        const Uuid oldTarget = toSelf ? oldOwn->referentialId() : oldSuper->referentialId();
        for (const JsonPath::Match &occurrence : reference.objectPath.select(referrerBody)) {
            std::optional<DocumentIdentity> current =
                m_identity.referenceIdentity(reference, referrerBody, occurrence.indices);
            if (!current || current->referentialId() != oldTarget)
                continue;
            for (const ReferencePathPair &pair : reference.paths) {
                const JsonPath &source =
                    toSuper && resource.subclassType != "association" && !resource.identityPaths.empty()
                        ? resource.identityPaths.front()
                        : pair.identityPath;
                if (const Json *value = source.resolve(newBody, {}))
                    pair.referencePath.assign(referrerBody, occurrence.indices, *value);
            }
        }
    }
    return referrerBody;
}

std::optional<StoredDocument> Engine::documentByIdentity(const ResourceSchema &resource, const Json &body)
{
    std::optional<DocumentIdentity> identity = m_identity.documentIdentity(resource, body);
    if (!identity)
        return std::nullopt;
    DeferredTransaction read(m_database.connection());
    return m_store.findByReferentialId(identity->referentialId());
}

std::optional<StoredDocument> Engine::documentByIdentity(const PreparedBody &prepared)
{
    if (!prepared.identity)
        return std::nullopt;
    DeferredTransaction read(m_database.connection());
    return m_store.findByReferentialId(prepared.referentialId);
}

Response Engine::remove(const Target &target, const Request &request)
{
    const ResourceSchema &resource = *target.resource;
    const std::string actor = request.actor.empty() ? currentOsUser() : request.actor;
    const std::string ifMatch = request.header("if-match");
    return withWriteTransaction([&]() -> Response {
        WriteScope transaction(m_database.connection(), m_store, m_dryRun, m_inBatch, m_batchBroken);
        std::optional<StoredDocument> existing = m_store.findById(target.id);
        if (std::optional<Response> refusal = refuseWriteTo(resource, target.id, existing, ifMatch))
            return *refusal;
        const std::int64_t count = m_store.countReferencing(existing->docKey);
        if (count > 0) {
            std::vector<std::string> types = m_store.referencingResourceTypes(existing->docKey);
            std::string list;
            for (std::size_t i = 0; i < types.size(); ++i)
                list += (i == 0 ? "" : ", ") + types[i];
            Response response = problem::make(
                409, problem::kDependentItemExists, "Dependent Item Exists",
                "The requested action cannot be performed because this item is referenced by existing " + list
                    + " item(s).");
            Json referencedBy = Json::array();
            for (const ReferencingDocument &d : m_store.referencing(existing->docKey, kReferencedByLimit))
                referencedBy.push_back(
                    Json{{"resource", d.resource}, {"id", d.id}, {"identity", Json::parse(d.identity)}});
            response.body["referencedBy"] = referencedBy;
            response.body["referencedByCount"] = count;
            return response;
        }
        if (m_dryRun) {
            Response response;
            response.status = 204;
            return response;
        }
        const std::int64_t seq = m_store.deleteDocument(*existing, actor, nowUtc());
        transaction.commit();
        m_lastWriteChangeSeq = seq;
        Response response;
        response.status = 204;
        return response;
    });
}

} // namespace steward
