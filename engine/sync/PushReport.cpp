#include "PushReport.h"

#include <algorithm>
#include <map>

namespace steward {

namespace {

// A refusal's reason as a group's name: the status and what the target said, without what differs per
// document (its validation errors, the request).
std::string refusalReason(const PushOutcome &outcome)
{
    std::string said;
    // Meadowlark's problems: {"error": {"message": "Reference validation failed", "failures": [...]}}.
    if (outcome.problem.is_object() && outcome.problem.contains("error") && outcome.problem["error"].is_object() &&
        outcome.problem["error"].contains("message") && outcome.problem["error"]["message"].is_string())
        said = outcome.problem["error"]["message"].get<std::string>();
    for (const char *field : {"title", "detail", "error", "type"})
        if (outcome.problem.is_object() && outcome.problem.contains(field) && outcome.problem[field].is_string()) {
            const std::string text = outcome.problem[field].get<std::string>();
            if (said.find(text) == std::string::npos)
                said += (said.empty() ? "" : " ") + text;
            if (said.size() > 160)
                break;
        }
    if (said.size() > 200)
        said = said.substr(0, 197) + "...";
    return (outcome.status == 0 ? std::string("no answer") : "HTTP " + std::to_string(outcome.status)) +
           (said.empty() ? std::string() : ": " + said);
}

std::string documentName(const PushOutcome &outcome)
{
    return outcome.resource + " " + naturalKeyText(outcome.identity);
}

} // namespace

std::vector<PushReport::Group> PushReport::groups() const
{
    std::map<std::string, std::string> names; // local id -> resource and natural key
    for (const PushOutcome &outcome : outcomes)
        names[outcome.id] = documentName(outcome);
    std::vector<Group> out;
    std::map<std::string, std::map<std::string, int>> waitedFor; // reason -> id -> count
    auto groupOf = [&out](const std::string &reason) -> Group & {
        for (Group &group : out)
            if (group.reason == reason)
                return group;
        out.push_back({reason, 0, {}, {}});
        return out.back();
    };
    for (const PushOutcome &outcome : outcomes) {
        if (outcome.accepted || (outcome.conflict && !outcome.replaced))
            continue; // conflicts are listed by steward-cli sync conflicts
        std::string reason;
        if (!outcome.waitingFor.empty())
            reason = "not sent: they reference a document the target refused or a conflict holds back";
        else if (outcome.replaced)
            reason = "created over a record the target had of the same identity (it answered 200): kept as "
                     "conflicts";
        else if (outcome.cannotTell)
            reason = "not created: the target cannot tell whether it has them (--allow-blind-creates)";
        else
            reason = refusalReason(outcome) +
                     (outcome.stillRefused ? " (refused before and unchanged since: not sent again; "
                                             "--retry-refused sends them)"
                                           : "");
        Group &group = groupOf(reason);
        ++group.count;
        if (group.examples.size() < 3)
            group.examples.push_back(documentName(outcome));
        if (!outcome.waitingFor.empty())
            ++waitedFor[reason][outcome.waitingFor];
    }
    for (Group &group : out) {
        std::vector<std::pair<int, std::string>> behind;
        for (const auto &[id, count] : waitedFor[group.reason])
            behind.emplace_back(count, id);
        std::sort(behind.begin(), behind.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
        for (const auto &[count, id] : behind)
            group.behind.push_back(names.count(id) ? names[id] : id);
    }
    std::stable_sort(out.begin(), out.end(), [](const Group &a, const Group &b) { return a.count > b.count; });
    return out;
}

Json PushReport::toJson() const
{
    Json failures = Json::array();
    for (const PushOutcome &outcome : outcomes)
        if (!outcome.accepted)
            failures.push_back(Json{{"operation", operationName(outcome.operation)},
                                    {"resource", outcome.resource},
                                    {"id", outcome.id},
                                    {"identity", outcome.identity},
                                    {"status", outcome.status},
                                    {"problem", outcome.problem}});
    Json grouped = Json::array();
    for (const Group &group : groups())
        grouped.push_back(
            Json{{"reason", group.reason}, {"count", group.count}, {"behind", group.behind}, {"examples", group.examples}});
    Json out{{"plan", plan.toJson()},
             {"dryRun", dryRun},
             {"accepted", accepted},
             {"sent", sent},
             {"refused", refused},
             {"stillRefused", stillRefused},
             {"cannotTell", cannotTell},
             {"replaced", replaced},
             {"conflicts", conflicts},
             {"waiting", waiting},
             {"createCheck", createCheck},
             {"groups", grouped},
             {"parallel", parallel},
             {"pushedBack", pushedBack},
             {"fewestInFlight", fewestInFlight},
             {"cursorBefore", cursorBefore},
             {"cursorAfter", cursorAfter},
             {"completed", completed},
             {"cancelled", cancelled},
             {"failures", failures}};
    if (!error.empty())
        out["error"] = error;
    return out;
}


const char *const kNewDocumentTag = "steward-new-document";


} // namespace steward
