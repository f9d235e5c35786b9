#include "Search.h"

#include "SearchTerms.h"

#include <SQLiteCpp/Statement.h>

#include <QString>
#include <QStringList>

#include <algorithm>

namespace steward {

namespace {

// Enough candidates to bring the exact matches forward without reading every prefix match.
constexpr int kCandidatesPerHit = 4;
constexpr int kMaxCandidates = 400;

QStringList foldedWords(const std::string &text)
{
    return QString::fromStdString(text).toCaseFolded().split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

} // namespace

std::vector<SearchHit> searchDocuments(SQLite::Database &db, const std::string &typed, int limit)
{
    const std::string match = searchMatchExpression(typed);
    if (match.empty() || limit <= 0)
        return {};
    SQLite::Statement s(db, "SELECT d.id, d.project, d.resource, d.natural_key, s.terms FROM search_index s "
                            "JOIN documents d ON d.doc_key = s.rowid WHERE search_index MATCH ? LIMIT ?");
    s.bind(1, match);
    s.bind(2, std::min(kMaxCandidates, std::max(limit, limit * kCandidatesPerHit)));
    std::vector<SearchHit> hits;
    while (s.executeStep())
        hits.push_back({s.getColumn(0).getString(), s.getColumn(1).getString(), s.getColumn(2).getString(),
                        s.getColumn(3).getString(), s.getColumn(4).getString()});
    const QStringList words = foldedWords(typed);
    auto exact = [&words](const SearchHit &hit) {
        const QStringList terms = foldedWords(hit.terms);
        return std::any_of(words.begin(), words.end(), [&terms](const QString &word) { return terms.contains(word); });
    };
    std::stable_partition(hits.begin(), hits.end(), exact);
    if (static_cast<int>(hits.size()) > limit)
        hits.resize(static_cast<std::size_t>(limit));
    return hits;
}

} // namespace steward
