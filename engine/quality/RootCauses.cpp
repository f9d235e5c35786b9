// Root causes of drafts: what really holds each draft back, counted through the drafts that wait
// on other drafts, so a steward fixes one missing School instead of reading thousands of drafts.
#include "RootCauses.h"
#include "Text.h"

#include "Database.h"
#include "DocumentStore.h"
#include "Identity.h"
#include "LoadOrder.h"
#include "Protocol.h"
#include "Validation.h"

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace steward {

namespace {

// A reference or descriptor value a draft carries that nothing stored answers to.
struct MissingTarget
{
    Uuid referentialId;  // what a draft (or its superclass alias) would have to answer to
    std::string rootKey; // the cause it becomes when no draft answers to it
    bool isDescriptor = false;
    std::string project; // as the reference names it (may be abstract)
    std::string resource;
    Json identity;   // shaped like the target document
    std::string uri; // descriptors: the value as typed
};

struct DraftNode
{
    std::int64_t draftId = 0;
    std::string project;
    std::string resource;
    std::vector<MissingTarget> missing;
    std::optional<RootCause> ownProblem; // a problem of its own (schema, invalid JSON, ...): its cause template
    std::string storedProblemType;       // the type of the problem kept with the draft
    std::string storedProblemTitle;
    std::string storedProblemDetail;
    std::vector<std::size_t> causes;     // direct causes (indices into the builder's list)
    std::vector<std::size_t> waitsOn;    // drafts it needs stored first
    std::vector<std::size_t> dependents; // drafts that need it stored first
};

// "$.gradeLevels[3].gradeLevelDescriptor" -> "$.gradeLevels[*].gradeLevelDescriptor": drafts failing at
// the same place of different array items are one problem.
std::string genericPath(const std::string &path)
{
    std::string out;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (path[i] == '[') {
            std::size_t close = path.find(']', i);
            if (close != std::string::npos && close > i + 1
                && std::all_of(path.begin() + i + 1, path.begin() + close, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
                out += "[*]";
                i = close;
                continue;
            }
        }
        out += path[i];
    }
    return out;
}

std::string withoutSpacing(const std::string &text)
{
    std::string out;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c)))
            out += c;
    return out;
}

// Letters, digits and anything beyond ASCII (so accented code values still compare).
std::string withoutPunctuation(const std::string &text)
{
    std::string out;
    for (char c : text)
        if (std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80)
            out += c;
    return out;
}

void splitUri(const std::string &uri, std::string &namespaceText, std::string &codeValue)
{
    const std::size_t hash = uri.find('#');
    namespaceText = hash == std::string::npos ? std::string() : uri.substr(0, hash);
    codeValue = hash == std::string::npos ? uri : uri.substr(hash + 1);
}

// A draft's stored problem that missing references explain (and that a stored document may have
// answered since): unresolved references, and unknown descriptor values (a 400 "... does not exist.").
bool problemIsAboutReferences(const std::string &type, const std::string &detail)
{
    if (type == problem::kUnresolvedReference)
        return true;
    return type == problem::kBadRequest && detail.find("does not exist") != std::string::npos;
}

class CauseList
{
public:
    std::size_t add(RootCause &&cause)
    {
        auto it = m_byKey.find(cause.key);
        if (it != m_byKey.end())
            return it->second;
        m_byKey.emplace(cause.key, m_causes.size());
        m_causes.push_back(std::move(cause));
        return m_causes.size() - 1;
    }
    RootCause &operator[](std::size_t index) { return m_causes[index]; }
    std::vector<RootCause> &all() { return m_causes; }

private:
    std::map<std::string, std::size_t> m_byKey;
    std::vector<RootCause> m_causes;
};

std::string formatList(const std::vector<std::string> &items)
{
    std::string out;
    for (const std::string &item : items)
        out += (out.empty() ? "" : ", ") + item;
    return out;
}

} // namespace

std::vector<DescriptorSuggestion> suggestDescriptorValues(const std::string &unknownUri,
                                                          const std::vector<std::string> &storedUris,
                                                          std::size_t limit)
{
    std::string unknownNamespace;
    std::string unknownCode;
    splitUri(unknownUri, unknownNamespace, unknownCode);
    std::vector<DescriptorSuggestion> candidates;
    for (const std::string &stored : storedUris) {
        if (stored == unknownUri)
            continue;
        DescriptorSuggestion s;
        s.uri = stored;
        splitUri(stored, s.namespaceText, s.codeValue);
        s.distance = editDistance(lowerAscii(unknownCode), lowerAscii(s.codeValue))
                     + editDistance(lowerAscii(unknownNamespace), lowerAscii(s.namespaceText));
        // The cheapest normalization that makes the two the same says what differs.
        const bool sameIgnoringCase = lowerAscii(unknownUri) == lowerAscii(stored);
        const bool sameIgnoringSpacing = lowerAscii(withoutSpacing(unknownUri)) == lowerAscii(withoutSpacing(stored));
        const bool sameIgnoringPunctuation =
            lowerAscii(withoutPunctuation(unknownUri)) == lowerAscii(withoutPunctuation(stored));
        if (sameIgnoringCase || sameIgnoringSpacing || sameIgnoringPunctuation) {
            std::vector<std::string> differs;
            const std::string unknownBare = sameIgnoringSpacing ? withoutSpacing(unknownUri) : withoutPunctuation(unknownUri);
            const std::string storedBare = sameIgnoringSpacing ? withoutSpacing(stored) : withoutPunctuation(stored);
            if (sameIgnoringCase ? unknownUri != stored : unknownBare != storedBare)
                differs.push_back("case");
            if (!sameIgnoringCase)
                differs.push_back(sameIgnoringSpacing ? "spacing" : "spacing or punctuation");
            s.closeness = sameIgnoringCase ? 0 : sameIgnoringSpacing ? 1 : 2;
            s.reason = "differs only in " + (differs.empty() ? std::string("case") : differs[0])
                       + (differs.size() > 1 ? " and " + differs[1] : std::string());
        } else {
            // Within reach: about half the longer code value, so "9th grade" finds "Ninth grade" but
            // "Kindergarten" does not offer "Twelfth grade".
            const int reach = std::max<int>(2, static_cast<int>(std::max(unknownCode.size(), s.codeValue.size()) / 2));
            if (s.distance > reach)
                continue;
            s.closeness = 3;
            s.reason = "edit distance " + std::to_string(s.distance);
            if (lowerAscii(unknownNamespace) != lowerAscii(s.namespaceText))
                s.reason += " (another namespace)";
        }
        candidates.push_back(std::move(s));
    }
    std::stable_sort(candidates.begin(), candidates.end(), [](const DescriptorSuggestion &a, const DescriptorSuggestion &b) {
        if (a.closeness != b.closeness)
            return a.closeness < b.closeness;
        if (a.distance != b.distance)
            return a.distance < b.distance;
        return a.uri < b.uri;
    });
    if (candidates.size() > limit)
        candidates.resize(limit);
    return candidates;
}

std::string RootCause::kindName() const
{
    switch (kind) {
    case Kind::MissingDocument:
        return "missing-document";
    case Kind::UnknownDescriptor:
        return "unknown-descriptor";
    case Kind::DraftProblem:
        return "draft-problem";
    case Kind::ReferenceCycle:
        return "reference-cycle";
    }
    return "draft-problem";
}

Json RootCause::toJson() const
{
    Json out{{"kind", kindName()},  {"key", key},       {"project", project}, {"resource", resource},
             {"direct", direct},    {"blocked", blocked}, {"loadOrderRank", loadRank}};
    if (kind == Kind::MissingDocument) {
        out["naturalKey"] = naturalKey;
        out["identity"] = identity;
    }
    if (kind == Kind::UnknownDescriptor) {
        out["value"] = naturalKey;
        Json list = Json::array();
        for (const DescriptorSuggestion &s : suggestions)
            list.push_back({{"uri", s.uri},
                            {"namespace", s.namespaceText},
                            {"codeValue", s.codeValue},
                            {"distance", s.distance},
                            {"reason", s.reason}});
        out["suggestions"] = list;
    }
    if (kind == Kind::DraftProblem) {
        out["problem"] = problem;
        if (!problemType.empty())
            out["problemType"] = problemType;
    }
    if (!detail.empty())
        out["detail"] = detail;
    Json counts = Json::array();
    for (const CauseResourceCount &c : resources)
        counts.push_back({{"project", c.project}, {"resource", c.resource}, {"drafts", c.drafts}});
    out["resources"] = counts;
    out["directDraftIds"] = directDraftIds;
    out["blockedDraftIds"] = blockedDraftIds;
    return out;
}

std::vector<const RootCause *> RootCauseReport::fixList() const
{
    std::vector<const RootCause *> out;
    for (const RootCause &cause : causes)
        out.push_back(&cause);
    // causes is already ranked, so a stable sort by load order keeps most blocked first within a rank.
    std::stable_sort(out.begin(), out.end(),
                     [](const RootCause *a, const RootCause *b) { return a->loadRank < b->loadRank; });
    return out;
}

Json RootCauseReport::toJson(std::size_t limit) const
{
    Json list = Json::array();
    for (const RootCause &cause : causes) {
        if (limit > 0 && list.size() >= limit)
            break;
        list.push_back(cause.toJson());
    }
    return Json{{"drafts", drafts}, {"causeCount", causes.size()}, {"causes", list}};
}

namespace {

// The state the passes of findRootCauses share: the drafts as a graph, the causes found so far,
// and one read transaction over the documents and aliases they are checked against.
class RootCauseFinder
{
public:
    RootCauseFinder(const Model &model, SQLite::Database &db,
                    const std::function<bool(std::int64_t, std::int64_t)> &progress);

    RootCauseReport run();

private:
    int rankOf(const std::string &project, const std::string &resource) const;
    bool isStored(const Uuid &id);
    std::int64_t countDrafts();

    bool readDrafts(std::int64_t total);
    DraftNode readDraft(SQLite::Statement &row);
    void checkBody(DraftNode &node, RootCause &own, const ResourceSchema &resource, Json &body);
    MissingTarget missingTarget(const BodyReference &found, const Json &body) const;

    void linkDrafts();
    bool waitOnDraftsAnswering(const MissingTarget &missing, std::size_t index,
                               std::set<std::size_t> &waitsOn) const;
    std::size_t addMissingTargetCause(const MissingTarget &missing);
    RootCause storedProblemCause(const DraftNode &node) const;

    void countBlocked();
    void spread(std::size_t causeIndex, const std::vector<std::size_t> &start);
    void findCycles();
    std::size_t addCycleCause(const std::vector<std::size_t> &cycle);
    void addDescriptorSuggestions();

    const Model &m_model;
    SQLite::Database &m_db;
    const std::function<bool(std::int64_t, std::int64_t)> &m_progress;
    const IdentityCalculator m_identities;
    const LoadOrder m_order;
    DeferredTransaction m_read;
    DocumentStore m_store;

    std::vector<DraftNode> m_drafts;
    std::unordered_map<Uuid, std::vector<std::size_t>, UuidHash> m_draftsByReferentialId;
    std::unordered_map<Uuid, bool, UuidHash> m_stored;
    CauseList m_causes;
    std::vector<std::size_t> m_seenBy;
    std::vector<bool> m_covered;
};

void rankMostBlockedFirst(std::vector<RootCause> &causes)
{
    std::stable_sort(causes.begin(), causes.end(), [](const RootCause &a, const RootCause &b) {
        if (a.blocked != b.blocked)
            return a.blocked > b.blocked;
        if (a.direct != b.direct)
            return a.direct > b.direct;
        if (a.loadRank != b.loadRank)
            return a.loadRank < b.loadRank;
        return a.key < b.key;
    });
}

RootCauseFinder::RootCauseFinder(const Model &model, SQLite::Database &db,
                                 const std::function<bool(std::int64_t, std::int64_t)> &progress)
    : m_model(model)
    , m_db(db)
    , m_progress(progress)
    , m_identities(model)
    , m_order(model)
    , m_read(db)
    , m_store(db)
{
}

RootCauseReport RootCauseFinder::run()
{
    RootCauseReport report;
    if (!readDrafts(countDrafts())) {
        report.cancelled = true;
        return report;
    }
    report.drafts = static_cast<std::int64_t>(m_drafts.size());
    linkDrafts();
    countBlocked();
    findCycles();
    addDescriptorSuggestions();

    report.causes = std::move(m_causes.all());
    rankMostBlockedFirst(report.causes);
    if (m_progress)
        m_progress(report.drafts, report.drafts);
    return report;
}

int RootCauseFinder::rankOf(const std::string &project, const std::string &resource) const
{
    if (const ResourceSchema *concrete = m_model.findByName(project, resource))
        return m_order.rankOf(concrete);
    int best = m_order.rankOf(nullptr);
    if (const AbstractResource *abstract = m_model.findAbstract(project, resource))
        for (const ResourceSchema *subclass : abstract->subclasses)
            best = std::min(best, m_order.rankOf(subclass));
    return best;
}

bool RootCauseFinder::isStored(const Uuid &id)
{
    auto it = m_stored.find(id);
    if (it == m_stored.end())
        it = m_stored.emplace(id, m_store.findAlias(id).has_value()).first;
    return it->second;
}

std::int64_t RootCauseFinder::countDrafts()
{
    std::int64_t total = 0;
    SQLite::Statement count(m_db, "SELECT count(*) FROM drafts");
    if (count.executeStep())
        total = count.getColumn(0).getInt64();
    return total;
}

// Pass 1: every draft's own identity, its problem of its own, and what it points at that is not stored.
// False when progress() asked to stop.
bool RootCauseFinder::readDrafts(std::int64_t total)
{
    m_drafts.reserve(static_cast<std::size_t>(total));
    SQLite::Statement all(m_db, "SELECT draft_id, project, resource, body_text, problem FROM drafts ORDER BY draft_id");
    while (all.executeStep()) {
        if (m_progress && !m_progress(static_cast<std::int64_t>(m_drafts.size()), total))
            return false;
        m_drafts.push_back(readDraft(all));
    }
    return true;
}

DraftNode RootCauseFinder::readDraft(SQLite::Statement &row)
{
    DraftNode node;
    node.draftId = row.getColumn(0).getInt64();
    node.project = row.getColumn(1).getString();
    node.resource = row.getColumn(2).getString();
    const std::string text = row.getColumn(3).getString();
    if (JsonParseResult storedProblem = parseJson(row.getColumn(4).getString());
        storedProblem.value && storedProblem.value->is_object()) {
        node.storedProblemType = storedProblem.value->value("type", std::string());
        node.storedProblemTitle = storedProblem.value->value("title", std::string());
        node.storedProblemDetail = storedProblem.value->value("detail", std::string());
    }
    const std::string where = node.project + "/" + node.resource;
    RootCause own;
    own.kind = RootCause::Kind::DraftProblem;
    own.project = node.project;
    own.resource = node.resource;
    own.loadRank = rankOf(node.project, node.resource);

    const ResourceSchema *resource = m_model.findByName(node.project, node.resource);
    JsonParseResult parsed = parseJson(text);
    if (resource == nullptr) {
        own.problem = "unknown-resource";
        own.key = "unknown-resource:" + where;
        own.detail = "the model has no resource " + node.resource;
        node.ownProblem = std::move(own);
    } else if (!parsed.value || !parsed.value->is_object()) {
        own.problem = "invalid-json";
        own.problemType = problem::kBadRequest;
        own.key = "invalid-json:" + where;
        own.detail = parsed.value ? "not a JSON object" : "not valid JSON";
        node.ownProblem = std::move(own);
    } else {
        Json body = *parsed.value;
        checkBody(node, own, *resource, body);
    }
    return node;
}

// A parsed draft of a known resource: its schema problem (own is the cause template), the identities
// other drafts may wait on, and the references nothing stored answers to.
void RootCauseFinder::checkBody(DraftNode &node, RootCause &own, const ResourceSchema &resource, Json &body)
{
    const std::size_t index = m_drafts.size();
    const std::string where = node.project + "/" + node.resource;
    ValidationErrors errors = m_model.validator().validateSchema(resource, body);
    if (errors.empty())
        errors = m_model.validator().validateConstraints(resource, body);
    if (!errors.empty()) {
        std::set<std::string> paths;
        for (const auto &[path, messages] : errors)
            paths.insert(genericPath(path));
        own.problem = "schema";
        own.problemType = problem::kDataValidationFailed;
        own.detail = formatList(std::vector<std::string>(paths.begin(), paths.end()));
        own.key = "schema:" + where + ":" + own.detail;
        node.ownProblem = std::move(own);
    }
    if (std::optional<DocumentIdentity> identity = m_identities.documentIdentity(resource, body)) {
        m_draftsByReferentialId[identity->referentialId()].push_back(index);
        if (std::optional<DocumentIdentity> super = m_identities.superclassIdentity(resource, *identity))
            m_draftsByReferentialId[super->referentialId()].push_back(index);
    }
    for (const BodyReference &found : m_identities.referencesIn(resource, body)) {
        if (!found.identity || isStored(found.identity->referentialId()))
            continue;
        node.missing.push_back(missingTarget(found, body));
    }
}

MissingTarget RootCauseFinder::missingTarget(const BodyReference &found, const Json &body) const
{
    MissingTarget missing;
    missing.referentialId = found.identity->referentialId();
    missing.isDescriptor = found.isDescriptor();
    missing.project = found.targetProject();
    missing.resource = found.targetResource();
    if (found.isDescriptor()) {
        missing.uri = found.value->get<std::string>();
        missing.rootKey = "descriptor:" + found.identity->referentialName();
    } else {
        missing.identity = Json::object();
        for (const ReferencePathPair &pair : found.reference->paths)
            if (const Json *value = pair.referencePath.resolve(body, found.indices))
                pair.identityPath.assign(missing.identity, {}, *value);
        // A School and an EducationOrganization with the same id are one missing thing.
        std::optional<DocumentIdentity> canonical;
        if (const ResourceSchema *target = m_model.findByName(missing.project, missing.resource))
            canonical = m_identities.superclassIdentity(*target, *found.identity);
        missing.rootKey = "document:" + (canonical ? *canonical : *found.identity).referentialName();
    }
    return missing;
}

// Pass 2: a missing target another draft answers to is an edge; any other is a root cause.
void RootCauseFinder::linkDrafts()
{
    for (std::size_t index = 0; index < m_drafts.size(); ++index) {
        DraftNode &node = m_drafts[index];
        std::set<std::size_t> direct;
        std::set<std::size_t> waitsOn;
        for (const MissingTarget &missing : node.missing) {
            if (waitOnDraftsAnswering(missing, index, waitsOn))
                continue;
            direct.insert(addMissingTargetCause(missing));
        }
        if (node.ownProblem) {
            direct.insert(m_causes.add(std::move(*node.ownProblem)));
        } else if (node.missing.empty()) {
            // Nothing missing and no problem of its own: either it would pass now (what held it back
            // has been stored since) or its stored problem is one the walk cannot see (a conflict).
            direct.insert(m_causes.add(storedProblemCause(node)));
        }
        node.causes.assign(direct.begin(), direct.end());
        node.waitsOn.assign(waitsOn.begin(), waitsOn.end());
        for (std::size_t other : waitsOn)
            m_drafts[other].dependents.push_back(index);
    }
}

// Adds to waitsOn the other drafts that answer to the target; false when none does.
bool RootCauseFinder::waitOnDraftsAnswering(const MissingTarget &missing, std::size_t index,
                                            std::set<std::size_t> &waitsOn) const
{
    bool answered = false;
    if (auto it = m_draftsByReferentialId.find(missing.referentialId); it != m_draftsByReferentialId.end())
        for (std::size_t other : it->second)
            if (other != index) {
                waitsOn.insert(other);
                answered = true;
            }
    return answered;
}

std::size_t RootCauseFinder::addMissingTargetCause(const MissingTarget &missing)
{
    RootCause cause;
    cause.kind = missing.isDescriptor ? RootCause::Kind::UnknownDescriptor : RootCause::Kind::MissingDocument;
    cause.key = missing.rootKey;
    cause.project = missing.project;
    cause.resource = missing.resource;
    cause.naturalKey = missing.isDescriptor ? missing.uri : naturalKeyText(missing.identity);
    cause.identity = missing.identity;
    cause.loadRank = rankOf(missing.project, missing.resource);
    const std::size_t at = m_causes.add(std::move(cause));
    // Name the most specific resource any draft asks for: "School 255901" rather than
    // "EducationOrganization 255901", so the fix list can open the right editor.
    RootCause &existing = m_causes[at];
    if (!missing.isDescriptor && m_model.findAbstract(existing.project, existing.resource)
        && m_model.findByName(missing.project, missing.resource)) {
        existing.project = missing.project;
        existing.resource = missing.resource;
        existing.identity = missing.identity;
        existing.naturalKey = naturalKeyText(missing.identity);
        existing.loadRank = rankOf(missing.project, missing.resource);
    }
    return at;
}

RootCause RootCauseFinder::storedProblemCause(const DraftNode &node) const
{
    RootCause own;
    own.kind = RootCause::Kind::DraftProblem;
    own.project = node.project;
    own.resource = node.resource;
    own.loadRank = rankOf(node.project, node.resource);
    const std::string where = node.project + "/" + node.resource;
    if (node.storedProblemType.empty() || problemIsAboutReferences(node.storedProblemType, node.storedProblemDetail)) {
        own.problem = "passes-now";
        own.key = "passes-now:" + where;
        own.detail = "nothing holds it back any more: revalidate drafts to store it";
    } else {
        own.problem = "refused";
        own.problemType = node.storedProblemType;
        own.key = "problem:" + where + ":" + node.storedProblemType;
        own.detail = node.storedProblemTitle;
    }
    return own;
}

// Pass 3: what each cause blocks, through the drafts that wait on drafts (each draft once per cause).
void RootCauseFinder::countBlocked()
{
    std::vector<std::vector<std::size_t>> directDrafts(m_causes.all().size());
    for (std::size_t index = 0; index < m_drafts.size(); ++index)
        for (std::size_t cause : m_drafts[index].causes)
            directDrafts[cause].push_back(index);
    m_seenBy.assign(m_drafts.size(), SIZE_MAX);
    m_covered.assign(m_drafts.size(), false);
    for (std::size_t causeIndex = 0; causeIndex < directDrafts.size(); ++causeIndex)
        spread(causeIndex, directDrafts[causeIndex]);
}

void RootCauseFinder::spread(std::size_t causeIndex, const std::vector<std::size_t> &start)
{
    RootCause &cause = m_causes[causeIndex];
    std::map<std::pair<std::string, std::string>, std::int64_t> perResource;
    std::deque<std::size_t> queue;
    for (std::size_t index : start) {
        cause.directDraftIds.push_back(m_drafts[index].draftId);
        if (m_seenBy[index] != causeIndex) {
            m_seenBy[index] = causeIndex;
            queue.push_back(index);
        }
    }
    cause.direct = static_cast<std::int64_t>(start.size());
    while (!queue.empty()) {
        const std::size_t index = queue.front();
        queue.pop_front();
        m_covered[index] = true;
        ++cause.blocked;
        cause.blockedDraftIds.push_back(m_drafts[index].draftId);
        ++perResource[{m_drafts[index].project, m_drafts[index].resource}];
        for (std::size_t dependent : m_drafts[index].dependents)
            if (m_seenBy[dependent] != causeIndex) {
                m_seenBy[dependent] = causeIndex;
                queue.push_back(dependent);
            }
    }
    std::sort(cause.blockedDraftIds.begin(), cause.blockedDraftIds.end());
    for (const auto &[name, count] : perResource)
        cause.resources.push_back({name.first, name.second, count});
    std::stable_sort(cause.resources.begin(), cause.resources.end(),
                     [](const CauseResourceCount &a, const CauseResourceCount &b) { return a.drafts > b.drafts; });
}

// Drafts no cause reached wait only on each other: follow what each waits on until a draft repeats;
// that cycle is the cause of everything that waits on it.
void RootCauseFinder::findCycles()
{
    for (std::size_t index = 0; index < m_drafts.size(); ++index) {
        if (m_covered[index])
            continue;
        std::vector<std::size_t> path;
        std::map<std::size_t, std::size_t> positionOnPath;
        std::size_t at = index;
        while (!positionOnPath.count(at) && !m_covered[at] && !m_drafts[at].waitsOn.empty()) {
            positionOnPath[at] = path.size();
            path.push_back(at);
            at = m_drafts[at].waitsOn.front();
        }
        if (m_covered[at])
            continue; // reached something a cause covers; its spread will have covered index too
        std::vector<std::size_t> cycle;
        if (auto it = positionOnPath.find(at); it != positionOnPath.end())
            cycle.assign(path.begin() + static_cast<std::ptrdiff_t>(it->second), path.end());
        else
            cycle.push_back(at);
        std::sort(cycle.begin(), cycle.end());
        spread(addCycleCause(cycle), cycle);
    }
}

std::size_t RootCauseFinder::addCycleCause(const std::vector<std::size_t> &cycle)
{
    RootCause cause;
    cause.kind = RootCause::Kind::ReferenceCycle;
    cause.project = m_drafts[cycle.front()].project;
    cause.resource = m_drafts[cycle.front()].resource;
    cause.loadRank = rankOf(cause.project, cause.resource);
    cause.key = "cycle:" + std::to_string(m_drafts[cycle.front()].draftId);
    std::vector<std::string> members;
    for (std::size_t member : cycle)
        members.push_back(m_drafts[member].resource + " draft " + std::to_string(m_drafts[member].draftId));
    cause.detail = formatList(members);
    return m_causes.add(std::move(cause));
}

// Suggestions for unknown descriptor values, from what the descriptor resource holds.
void RootCauseFinder::addDescriptorSuggestions()
{
    std::map<std::pair<std::string, std::string>, std::vector<std::string>> storedValues;
    for (RootCause &cause : m_causes.all()) {
        if (cause.kind != RootCause::Kind::UnknownDescriptor)
            continue;
        auto it = storedValues.find({cause.project, cause.resource});
        if (it == storedValues.end()) {
            std::vector<std::string> uris;
            SQLite::Statement values(m_db, "SELECT steward_text(identity) FROM documents WHERE project = ? AND resource = ?");
            values.bind(1, cause.project);
            values.bind(2, cause.resource);
            while (values.executeStep())
                if (JsonParseResult identity = parseJson(values.getColumn(0).getString()); identity.value)
                    uris.push_back(naturalKeyText(*identity.value));
            it = storedValues.emplace(std::make_pair(cause.project, cause.resource), std::move(uris)).first;
        }
        cause.suggestions = suggestDescriptorValues(cause.naturalKey, it->second);
    }
}

} // namespace

RootCauseReport findRootCauses(const Model &model, SQLite::Database &db,
                               const std::function<bool(std::int64_t, std::int64_t)> &progress)
{
    RootCauseFinder finder(model, db, progress);
    return finder.run();
}

} // namespace steward
