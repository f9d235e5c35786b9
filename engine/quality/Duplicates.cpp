#include "Duplicates.h"

#include "Clock.h"

#include <QString>

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace steward {

namespace {

const std::vector<std::string> kDefaultResources = {"Student", "Staff"};
constexpr int kMaxDistance = 2;

struct Person
{
    std::string id;
    std::string key;
    std::string name;
    std::string first;
    std::string last;
};

std::string displayName(const Json &body)
{
    std::string name;
    for (const char *field : {"firstName", "middleName", "lastSurname"})
        if (auto it = body.find(field); it != body.end() && it->is_string() && !it->get<std::string>().empty())
            name += (name.empty() ? "" : " ") + it->get<std::string>();
    return name;
}

std::string stringField(const Json &body, const char *field)
{
    auto it = body.find(field);
    return it != body.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

Json DuplicateCandidate::toJson() const
{
    return {{"project", project},   {"resource", resource},   {"birthDate", birthDate},
            {"distance", distance}, {"swapped", swapped},
            {"left", {{"id", leftId}, {"naturalKey", leftKey}, {"name", leftName}}},
            {"right", {{"id", rightId}, {"naturalKey", rightKey}, {"name", rightName}}}};
}

std::string normalizedName(const std::string &name)
{
    // NFKD splits "é" into "e" and a combining mark, which is then dropped with the punctuation.
    const QString decomposed = QString::fromStdString(name).normalized(QString::NormalizationForm_KD).toCaseFolded();
    QString out;
    bool pendingSpace = false;
    for (const QChar c : decomposed) {
        if (c.isLetterOrNumber()) {
            if (pendingSpace && !out.isEmpty())
                out += QLatin1Char(' ');
            pendingSpace = false;
            out += c;
        } else if (c.isSpace()) {
            pendingSpace = true;
        }
        // Marks and punctuation ("-", "'", ".") vanish: "O'Brien" and "OBrien" are the same name.
    }
    return out.toStdString();
}

std::vector<DuplicateCandidate> findDuplicateCandidates(SQLite::Database &db, const Model &model,
                                                         const std::vector<std::string> &resources)
{
    std::vector<const ResourceSchema *> schemas;
    for (const std::string &name : resources.empty() ? kDefaultResources : resources)
        for (const ResourceSchema *schema : model.resources())
            if (schema->resourceName == name && !schema->isDescriptor)
                schemas.push_back(schema);

    std::vector<DuplicateCandidate> out;
    DeferredTransaction read(db);
    for (const ResourceSchema *schema : schemas) {
        std::set<std::pair<std::string, std::string>> distinct;
        {
            SQLite::Statement query(db, "SELECT id_a, id_b FROM duplicate_decisions WHERE project = ? AND resource = ? "
                                        "AND decision = 'distinct'");
            query.bind(1, schema->projectName());
            query.bind(2, schema->resourceName);
            while (query.executeStep())
                distinct.insert({query.getColumn(0).getString(), query.getColumn(1).getString()});
        }
        // Ordered by birth date, so each date's people arrive together and are compared only with each other.
        SQLite::Statement query(db, "SELECT id, natural_key, steward_text(body), json_extract(steward_text(body), '$.birthDate') AS born "
                                    "FROM documents WHERE project = ? AND resource = ? AND born IS NOT NULL "
                                    "ORDER BY born, doc_key");
        query.bind(1, schema->projectName());
        query.bind(2, schema->resourceName);
        std::string groupDate;
        std::vector<Person> group;
        auto compareGroup = [&]() {
            for (std::size_t i = 0; i < group.size(); ++i) {
                for (std::size_t j = i + 1; j < group.size(); ++j) {
                    const Person &left = group[i];
                    const Person &right = group[j];
                    const int straight = editDistance(left.first + " " + left.last, right.first + " " + right.last,
                                                      kMaxDistance);
                    const int crossed = editDistance(left.first + " " + left.last, right.last + " " + right.first,
                                                     kMaxDistance);
                    if (std::min(straight, crossed) > kMaxDistance)
                        continue;
                    if (distinct.count({std::min(left.id, right.id), std::max(left.id, right.id)}))
                        continue;
                    DuplicateCandidate candidate;
                    candidate.project = schema->projectName();
                    candidate.resource = schema->resourceName;
                    candidate.leftId = left.id;
                    candidate.rightId = right.id;
                    candidate.leftKey = left.key;
                    candidate.rightKey = right.key;
                    candidate.leftName = left.name;
                    candidate.rightName = right.name;
                    candidate.birthDate = groupDate;
                    candidate.swapped = crossed < straight;
                    candidate.distance = std::min(straight, crossed);
                    out.push_back(std::move(candidate));
                }
            }
            group.clear();
        };
        while (query.executeStep()) {
            const std::string born = query.getColumn(3).getString();
            if (born != groupDate) {
                compareGroup();
                groupDate = born;
            }
            const Json body = Json::parse(query.getColumn(2).getString());
            group.push_back({query.getColumn(0).getString(), query.getColumn(1).getString(), displayName(body),
                             normalizedName(stringField(body, "firstName")),
                             normalizedName(stringField(body, "lastSurname"))});
        }
        compareGroup();
    }
    return out;
}

void markDistinct(Database &database, const std::string &firstId, const std::string &secondId,
                  const std::string &actor)
{
    if (firstId == secondId)
        throw StorageError(StorageError::Kind::Io, "duplicates: " + firstId + " and itself cannot be marked distinct");
    SQLite::Database &db = database.connection();
    ImmediateTransaction transaction(db);
    std::map<std::string, std::pair<std::string, std::string>> found;
    SQLite::Statement query(db, "SELECT id, project, resource FROM documents "
                                "WHERE id_key IN (steward_id_key(?), steward_id_key(?))");
    query.bind(1, firstId);
    query.bind(2, secondId);
    while (query.executeStep())
        found[query.getColumn(0).getString()] = {query.getColumn(1).getString(), query.getColumn(2).getString()};
    for (const std::string &id : {firstId, secondId})
        if (!found.count(id))
            throw StorageError(StorageError::Kind::Io,
                               database.path() + ": no document with the id '" + id + "' exists");
    if (found[firstId] != found[secondId])
        throw StorageError(StorageError::Kind::Io, database.path() + ": " + firstId + " is a "
                                                       + found[firstId].second + " and " + secondId + " a "
                                                       + found[secondId].second + "; only one resource's documents pair up");
    SQLite::Statement insert(db, "INSERT OR REPLACE INTO duplicate_decisions (project, resource, id_a, id_b, decision, "
                                 "decided_at, actor) VALUES (?, ?, ?, ?, 'distinct', ?, ?)");
    insert.bind(1, found[firstId].first);
    insert.bind(2, found[firstId].second);
    insert.bind(3, std::min(firstId, secondId));
    insert.bind(4, std::max(firstId, secondId));
    insert.bind(5, engineNowText());
    insert.bind(6, actor);
    insert.exec();
    transaction.commit();
}

} // namespace steward
