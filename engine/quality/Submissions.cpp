#include "Submissions.h"

#include "ExternalResults.h"
#include "Readiness.h"
#include "Sync.h"
#include "Text.h"

#include "Clock.h"

#include <SQLiteCpp/Statement.h>


namespace steward {

namespace {

Json acknowledgementsJson(SQLite::Database &db)
{
    Json out = Json::array();
    for (const Acknowledgement &ack : acknowledgements(db))
        out.push_back({{"origin", ack.origin},
                       {"rule", ack.ruleId},
                       {"id", ack.docId},
                       {"reason", ack.reason},
                       {"by", ack.actor},
                       {"at", ack.at}});
    return out;
}

// Inside the caller's write transaction: the verdict and acknowledgements are those of this moment.
Submission record(SQLite::Database &db, const std::string &kind, const Json &what, std::int64_t seqFrom,
                  std::int64_t seqTo, const std::string &signedBy, const std::string &note)
{
    if (signedBy.find_first_not_of(" \t") == std::string::npos)
        throw SubmissionError("a sign-off needs the name of who signs off");
    Submission submission;
    submission.kind = kind;
    submission.what = what;
    submission.seqFrom = seqFrom;
    submission.seqTo = seqTo;
    submission.verdict = computeReadiness(db).toJson();
    submission.acknowledged = acknowledgementsJson(db);
    submission.signedBy = signedBy;
    submission.signedAt = engineNowText();
    submission.note = note;
    SQLite::Statement insert(db, "INSERT INTO submissions (kind, what, seq_from, seq_to, verdict, acknowledged,"
                                 " signed_by, signed_at, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, kind);
    insert.bind(2, dumpJson(what));
    insert.bind(3, seqFrom);
    insert.bind(4, seqTo);
    insert.bind(5, dumpJson(submission.verdict));
    insert.bind(6, dumpJson(submission.acknowledged));
    insert.bind(7, signedBy);
    insert.bind(8, submission.signedAt);
    insert.bind(9, note);
    insert.exec();
    submission.id = db.getLastInsertRowid();
    return submission;
}

Json parsedOrText(const std::string &text)
{
    JsonParseResult parsed = parseJson(text);
    return parsed.value ? *parsed.value : Json(text);
}

} // namespace

std::string Submission::summary() const
{
    std::string text = kind == "export" ? "export of batch " + what.value("batch", std::string())
                                        : "push to " + what.value("target", std::string());
    text += " (changes " + std::to_string(seqFrom) + " to " + std::to_string(seqTo) + "), signed off by "
            + signedBy + " at " + signedAt;
    return text;
}

Json Submission::toJson() const
{
    return Json{{"id", id},           {"kind", kind},         {"what", what},         {"seqFrom", seqFrom},
                {"seqTo", seqTo},     {"verdict", verdict},   {"acknowledged", acknowledged},
                {"signedBy", signedBy}, {"signedAt", signedAt}, {"note", note},       {"summary", summary()}};
}

Submission signOffExport(Database &database, const std::string &batchId, const std::string &signedBy,
                         const std::string &note)
{
    SQLite::Database &db = database.connection();
    ImmediateTransaction transaction(db);
    SQLite::Statement batch(db, std::string("SELECT batch_id, seq_from, seq_to, out_dir, manifest FROM batches")
                                    + (batchId.empty() ? " ORDER BY seq_to DESC, created_at DESC LIMIT 1"
                                                       : " WHERE batch_id = ?"));
    if (!batchId.empty())
        batch.bind(1, batchId);
    if (!batch.executeStep())
        throw SubmissionError(batchId.empty() ? "nothing was exported yet: export a batch, then sign it off"
                                              : "no exported batch has the id " + batchId);
    const std::string manifest = batch.getColumn(4).getString();
    const Json what{{"batch", batch.getColumn(0).getString()},
                    {"manifestSha256", sha256Hex(manifest)},
                    {"outDir", batch.getColumn(3).getString()}};
    Submission submission = record(db, "export", what, batch.getColumn(1).getInt64(), batch.getColumn(2).getInt64(),
                                   signedBy, note);
    transaction.commit();
    return submission;
}

Submission signOffPush(Database &database, const std::string &targetUrl, const std::string &signedBy,
                       const std::string &note)
{
    SQLite::Database &db = database.connection();
    ImmediateTransaction transaction(db);
    std::vector<std::tuple<std::string, std::string, std::int64_t>> found;
    for (const SyncTarget &target : SyncState(db).targets())
        if (targetUrl.empty() || target.url == targetUrl)
            found.emplace_back(target.url, target.client, target.pushCursor);
    if (found.empty())
        throw SubmissionError(targetUrl.empty() ? "nothing was pushed yet: this database has no sync target"
                                                : "no sync target has the URL " + targetUrl);
    if (found.size() > 1)
        throw SubmissionError("this database pushes to " + std::to_string(found.size())
                              + " targets; say which one (--push URL)");
    const auto &[url, client, cursor] = found.front();
    if (cursor == 0)
        throw SubmissionError("nothing was pushed to " + url + " yet: push, then sign it off");
    // The first change after the previous sign-off of a push to this target.
    SQLite::Statement previous(db, "SELECT coalesce(max(seq_to), 0) + 1 FROM submissions"
                                   " WHERE kind = 'push' AND json_extract(what, '$.target') = ?");
    previous.bind(1, url);
    previous.executeStep();
    const std::int64_t from = previous.getColumn(0).getInt64();
    if (cursor < from)
        throw SubmissionError("nothing was pushed to " + url + " since the last sign-off (change " +
                              std::to_string(from - 1) + ")");
    Submission submission = record(db, "push", Json{{"target", url}, {"client", client}}, from, cursor, signedBy, note);
    transaction.commit();
    return submission;
}

std::vector<Submission> submissions(SQLite::Database &db, int limit)
{
    SQLite::Statement query(db, "SELECT submission_id, kind, what, seq_from, seq_to, verdict, acknowledged, signed_by,"
                                " signed_at, note FROM submissions ORDER BY submission_id DESC"
                                    + (limit > 0 ? " LIMIT " + std::to_string(limit) : std::string()));
    std::vector<Submission> out;
    while (query.executeStep()) {
        Submission s;
        s.id = query.getColumn(0).getInt64();
        s.kind = query.getColumn(1).getString();
        s.what = parsedOrText(query.getColumn(2).getString());
        s.seqFrom = query.getColumn(3).getInt64();
        s.seqTo = query.getColumn(4).getInt64();
        s.verdict = parsedOrText(query.getColumn(5).getString());
        s.acknowledged = parsedOrText(query.getColumn(6).getString());
        s.signedBy = query.getColumn(7).getString();
        s.signedAt = query.getColumn(8).getString();
        s.note = query.getColumn(9).getString();
        out.push_back(std::move(s));
    }
    return out;
}

Json SubmissionStatus::toJson() const
{
    Json changed = Json::object();
    for (const auto &[name, count] : changedSince)
        changed[name] = count;
    return Json{{"last", last ? last->toJson() : Json()}, {"changedSince", changed}, {"changedTotal", changedTotal}};
}

SubmissionStatus submissionStatus(SQLite::Database &db)
{
    DeferredTransaction read(db);
    SubmissionStatus status;
    std::vector<Submission> last = submissions(db, 1);
    if (last.empty())
        return status;
    status.last = std::move(last.front());
    SQLite::Statement query(db, "SELECT project, resource, COUNT(DISTINCT id_key) FROM changes WHERE seq > ?"
                                " GROUP BY project, resource ORDER BY project, resource");
    query.bind(1, status.last->seqTo);
    while (query.executeStep()) {
        status.changedSince.emplace_back(query.getColumn(0).getString() + "/" + query.getColumn(1).getString(),
                                         query.getColumn(2).getInt64());
        status.changedTotal += query.getColumn(2).getInt64();
    }
    return status;
}

} // namespace steward
