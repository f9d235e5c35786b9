#include "ReportRecords.h"

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <map>
#include <utility>

namespace steward {

namespace {

// What a value is called on the report, and where it goes: people first, then schools and districts,
// other named values, unnamed ones, dates last.
struct KeyPart
{
    int rank = 3;
    std::string label;
    std::string value;
};

const std::map<std::string, std::pair<int, std::string>> &partNames()
{
    static const std::map<std::string, std::pair<int, std::string>> names{
        {"studentUniqueId", {0, "student"}},   {"staffUniqueId", {0, "staff"}},
        {"contactUniqueId", {0, "contact"}},   {"parentUniqueId", {0, "parent"}},
        {"schoolId", {1, "school"}},           {"localEducationAgencyId", {1, "district"}},
        {"educationOrganizationId", {1, "organization"}},
        {"sectionIdentifier", {2, "section"}}, {"localCourseCode", {2, "course"}},
        {"courseCode", {2, "course"}},         {"sessionName", {2, "session"}},
        {"schoolYear", {2, "year"}},           {"calendarCode", {2, "calendar"}},
        {"classPeriodName", {2, "period"}},    {"classroomIdentificationCode", {2, "room"}},
    };
    return names;
}

bool looksLikeDate(const std::string &text)
{
    return text.size() == 10 && text[4] == '-' && text[7] == '-';
}

std::string leafText(const Json &value)
{
    if (!value.is_string())
        return value.dump();
    const std::string text = value.get<std::string>();
    // A descriptor URI reads as its code value.
    const std::size_t hash = text.find('#');
    return text.rfind("uri://", 0) == 0 && hash != std::string::npos ? text.substr(hash + 1) : text;
}

void collectParts(const Json &value, const std::string &field, std::vector<KeyPart> &parts)
{
    if (value.is_object()) {
        for (const auto &[name, member] : value.items())
            collectParts(member, name, parts);
        return;
    }
    if (value.is_array()) {
        for (const Json &item : value)
            collectParts(item, field, parts);
        return;
    }
    KeyPart part;
    part.value = leafText(value);
    if (auto named = partNames().find(field); named != partNames().end()) {
        part.rank = named->second.first;
        part.label = named->second.second;
    } else if (looksLikeDate(part.value)) {
        part.rank = 4;
    }
    const bool seen = std::any_of(parts.begin(), parts.end(), [&](const KeyPart &other) {
        return other.label == part.label && other.value == part.value;
    });
    if (!seen)
        parts.push_back(std::move(part));
}

std::string textOf(const Json &value)
{
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_number_integer())
        return value.dump();
    return {};
}

// The school a draft's body names, as the report's pages are keyed ("255901001").
std::string schoolOfDraft(const Json &body, const std::set<std::string> &knownSchools)
{
    if (!body.is_object())
        return {};
    if (auto school = body.find("schoolId"); school != body.end() && !textOf(*school).empty())
        return textOf(*school);
    for (const char *reference :
         {"schoolReference", "courseOfferingReference", "sectionReference", "sessionReference"})
        if (auto named = body.find(reference); named != body.end() && named->is_object())
            if (auto school = named->find("schoolId"); school != named->end() && !textOf(*school).empty())
                return textOf(*school);
    if (auto organization = body.find("educationOrganizationReference");
        organization != body.end() && organization->is_object())
        if (auto id = organization->find("educationOrganizationId"); id != organization->end())
            if (knownSchools.count(textOf(*id)) > 0)
                return textOf(*id);
    return {};
}

// The references that usually identify a record (a calendar or class-of year does not).
const std::set<std::string> kIdentifyingReferences{"studentReference", "staffReference", "schoolReference",
                                                   "sectionReference", "courseOfferingReference", "sessionReference",
                                                   "courseReference", "educationOrganizationReference"};

// A draft's identifying values, as far as its body gives them: the named ones at the top and in its
// references, and its dates of entry or beginning.
std::string draftKey(const Json &body)
{
    if (!body.is_object())
        return {};
    Json identityLike = Json::object();
    for (const auto &[name, member] : body.items()) {
        if (kIdentifyingReferences.count(name) > 0 || partNames().count(name) > 0 || name == "entryDate"
            || name == "beginDate")
            identityLike[name] = member;
    }
    return compactKey(identityLike);
}

std::string draftName(const Json &body)
{
    if (!body.is_object())
        return {};
    const std::string last = textOf(body.value("lastSurname", Json()));
    const std::string first = textOf(body.value("firstName", Json()));
    if (!last.empty())
        return last + (first.empty() ? "" : ", " + first);
    for (const char *field : {"nameOfInstitution", "courseTitle", "sessionName"})
        if (const std::string name = textOf(body.value(field, Json())); !name.empty())
            return name;
    return {};
}

// What stopped it, in the words of its problem: the field messages, else the problem's detail.
std::string draftMessage(const Json &problem)
{
    if (problem.is_null())
        return "Kept as a draft; it would be stored now (revalidate drafts).";
    std::string text;
    if (!problem.is_object())
        return "Kept as a draft.";
    if (auto errors = problem.find("validationErrors"); errors != problem.end() && errors->is_object())
        for (const auto &[path, messages] : errors->items())
            if (messages.is_array())
                for (const Json &message : messages)
                    if (message.is_string())
                        text += (text.empty() ? "" : " ") + message.get<std::string>();
    if (text.empty())
        text = problem.value("detail", std::string());
    if (auto errors = problem.find("errors"); text.empty() && errors != problem.end() && errors->is_array())
        for (const Json &message : *errors)
            if (message.is_string())
                text += (text.empty() ? "" : " ") + message.get<std::string>();
    return "Kept as a draft: " + (text.empty() ? std::string("the engine refused it.") : text);
}

} // namespace

std::string compactKey(const Json &identity)
{
    if (identity.is_object() && identity.size() == 2 && identity.contains("namespace")
        && identity.contains("codeValue"))
        return leafText(identity["codeValue"]);
    std::vector<KeyPart> parts;
    collectParts(identity, std::string(), parts);
    std::stable_sort(parts.begin(), parts.end(), [](const KeyPart &a, const KeyPart &b) { return a.rank < b.rank; });
    std::string out;
    for (const KeyPart &part : parts)
        out += (out.empty() ? "" : " · ") + (part.label.empty() ? part.value : part.label + " " + part.value);
    return out;
}

std::vector<ReportDraft> readReportDrafts(SQLite::Database &db, const std::set<std::string> &knownSchools)
{
    std::vector<ReportDraft> drafts;
    SQLite::Statement rows(db, "SELECT draft_id, resource, body_text, problem FROM drafts ORDER BY draft_id");
    while (rows.executeStep()) {
        const std::string draftId = std::to_string(rows.getColumn(0).getInt64());
        const JsonParseResult body = parseJson(rows.getColumn(2).getString());
        const JsonParseResult problem = parseJson(rows.getColumn(3).getString());
        const Json noBody;
        const Json &parsed = body.value ? *body.value : noBody;
        ReportDraft draft;
        draft.school = schoolOfDraft(parsed, knownSchools);
        if (rows.getColumn(1).getString() == "School" && parsed.is_object())
            draft.schoolName = textOf(parsed.value("nameOfInstitution", Json()));
        ReportPage::FixLine &line = draft.line;
        line.draft = true;
        line.name = draftName(parsed);
        line.naturalKey = draftKey(parsed);
        if (line.naturalKey.empty())
            line.naturalKey = "draft " + draftId;
        line.resource = rows.getColumn(1).getString();
        line.ruleId = "draft";
        line.severity = "fatal";
        line.message = draftMessage(problem.value ? *problem.value : Json());
        if (!body.value)
            line.message += " (its text is not JSON)";
        line.source = "Steward (draft " + draftId + ")";
        drafts.push_back(std::move(draft));
    }
    return drafts;
}

} // namespace steward
