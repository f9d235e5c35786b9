#include "Cli.h"
#include "CommandLine.h"
#include "RootCauses.h"

#include <iostream>

using namespace steward;

namespace {

// "3,114": stewards read these counts at a glance.
std::string withThousands(std::int64_t value)
{
    std::string digits = std::to_string(value < 0 ? -value : value);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return value < 0 ? "-" + out : out;
}

std::string plural(std::int64_t count, const std::string &one, const std::string &many)
{
    return withThousands(count) + " " + (count == 1 ? one : many);
}

// "blocks 3,114 drafts in 6 resources (Session 12, Section 480, ...)"
std::string blockedText(const RootCause &cause)
{
    std::string out = "blocks " + plural(cause.blocked, "draft", "drafts") + " in "
                      + plural(static_cast<std::int64_t>(cause.resources.size()), "resource", "resources") + " (";
    for (std::size_t i = 0; i < cause.resources.size(); ++i)
        out += (i == 0 ? "" : ", ") + cause.resources[i].resource + " " + withThousands(cause.resources[i].drafts);
    return out + ")";
}

std::string problemText(const RootCause &cause)
{
    const std::string drafts = withThousands(cause.direct) + " " + cause.resource + " draft" + (cause.direct == 1 ? "" : "s");
    if (cause.problem == "schema")
        return drafts + " fail the schema: " + cause.detail;
    if (cause.problem == "invalid-json")
        return drafts + (cause.direct == 1 ? " is " : " are ") + cause.detail;
    if (cause.problem == "unknown-resource")
        return drafts + ": " + cause.detail;
    if (cause.problem == "passes-now")
        return drafts + " would pass now (revalidate drafts to store them)";
    return drafts + " refused: " + cause.detail + " (" + cause.problemType + ")";
}

std::string causeText(const RootCause &cause)
{
    switch (cause.kind) {
    case RootCause::Kind::MissingDocument:
        return cause.resource + " " + cause.naturalKey + " missing: " + blockedText(cause);
    case RootCause::Kind::UnknownDescriptor: {
        std::string out = cause.resource + " '" + cause.naturalKey + "' unknown: " + blockedText(cause) + "; ";
        if (cause.suggestions.empty())
            return out + "no stored value is close";
        out += "closest: ";
        for (std::size_t i = 0; i < cause.suggestions.size(); ++i)
            out += (i == 0 ? "'" : ", '") + cause.suggestions[i].uri + "' (" + cause.suggestions[i].reason + ")";
        return out;
    }
    case RootCause::Kind::ReferenceCycle:
        return "Drafts waiting on each other in a cycle (" + cause.detail + "): " + blockedText(cause);
    case RootCause::Kind::DraftProblem:
        break;
    }
    return problemText(cause) + "; " + blockedText(cause);
}

// Matches "School", "schools" or "ed-fi/schools" against a resource, case-insensitively.
bool namesResource(const Model &model, const std::string &wanted, const std::string &project, const std::string &resource)
{
    const std::string lowered = toLower(wanted);
    if (lowered == toLower(resource))
        return true;
    if (const ResourceSchema *schema = model.findByName(project, resource))
        return lowered == toLower(schema->endpointName)
               || lowered == toLower(schema->resourceKey());
    return false;
}

} // namespace

int commandCauses(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args)) {
        std::cout << "Usage: steward-cli [--db PATH] [--schema PATH]... causes [--json] [--limit N] [--resource R]\n"
                     "\n"
                     "Groups every draft by its root cause and ranks the causes by how many drafts each holds\n"
                     "back, counted through drafts that wait on other drafts (a missing School blocks its\n"
                     "Sessions, which block their Sections, which block the section enrollments):\n"
                     "  School 255901044 missing: blocks 3,114 drafts in 6 resources (Section 480, ...)\n"
                     "  GradeLevelDescriptor '...#9th grade' unknown: blocks 57 drafts in 1 resource (...);\n"
                     "      closest: '...#Ninth grade' (edit distance 3)\n"
                     "  42 Student drafts fail the schema: $.birthDate; blocks 42 drafts in 1 resource (...)\n"
                     "Creating or importing the root document, then revalidating drafts, clears its branch.\n"
                     "Unknown descriptor values come with the closest stored values (same but for case,\n"
                     "spacing or punctuation first, then by edit distance). The database is only read.\n"
                     "\n"
                     "Options:\n"
                     "  --json         print {\"drafts\":N,\"causeCount\":N,\"causes\":[{\"kind\",\"key\",\"resource\",\n"
                     "                 \"blocked\",\"direct\",\"resources\",\"directDraftIds\",\"blockedDraftIds\",\n"
                     "                 \"suggestions\",...}]}.\n"
                     "  --limit N      show the first N causes only (default 20; 0 shows all).\n"
                     "  --resource R   only causes that involve resource R (its root is an R or it blocks R\n"
                     "                 drafts); R is a name (Section) or endpoint (ed-fi/sections).\n"
                     "\n"
                     "Example: steward-cli --db district.db causes --limit 5\n";
        return kExitOk;
    }
    bool json = false;
    std::int64_t limitAsked = 20;
    std::string resourceFilter;
    if (!CommandLine("causes")
             .flag("--json", json)
             .wholeNumber("--limit", limitAsked)
             .text("--resource", resourceFilter, "a resource name")
             .parse(args))
        return kExitUsage;
    const std::size_t limit = static_cast<std::size_t>(limitAsked);
    std::unique_ptr<Model> model = context.loadModel();
    if (!model)
        return kExitUsage;
    if (!resourceFilter.empty()) {
        bool known = false;
        for (const ResourceSchema *resource : model->resources())
            known = known || namesResource(*model, resourceFilter, resource->projectName(), resource->resourceName);
        for (const auto &project : model->projects())
            known = known || project->abstractResources.count(resourceFilter) > 0;
        if (!known)
            return usageError("causes", "the model has no resource '" + resourceFilter + "'");
    }
    std::unique_ptr<Database> database;
    RootCauseReport report;
    try {
        database = Database::open(context.resolvedDatabasePath(), Database::Access::ReadOnly);
        context.warnIfReadableByOthers();
        report = findRootCauses(*model, database->connection());
    } catch (const StorageError &e) {
        std::cerr << "steward-cli: database error: " << e.what() << "\n";
        return kExitFailed;
    } catch (const SQLite::Exception &e) {
        std::cerr << "steward-cli: cannot read " << context.resolvedDatabasePath() << ": " << e.what() << "\n";
        return kExitFailed;
    }
    if (!resourceFilter.empty()) {
        std::vector<RootCause> kept;
        for (RootCause &cause : report.causes) {
            bool involved = namesResource(*model, resourceFilter, cause.project, cause.resource);
            for (const CauseResourceCount &count : cause.resources)
                involved = involved || namesResource(*model, resourceFilter, count.project, count.resource);
            if (involved)
                kept.push_back(std::move(cause));
        }
        report.causes = std::move(kept);
    }
    if (json) {
        std::cout << report.toJson(limit).dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    if (report.drafts == 0) {
        std::cout << "No drafts: nothing is held back.\n";
        return kExitOk;
    }
    std::cout << plural(report.drafts, "draft", "drafts") << ", "
              << plural(static_cast<std::int64_t>(report.causes.size()), "root cause", "root causes")
              << (resourceFilter.empty() ? "" : " involving " + resourceFilter) << ", most blocking first:\n";
    std::size_t shown = 0;
    for (const RootCause &cause : report.causes) {
        if (limit > 0 && shown >= limit)
            break;
        std::cout << "  " << causeText(cause) << "\n";
        ++shown;
    }
    if (shown < report.causes.size())
        std::cout << "... and " << withThousands(static_cast<std::int64_t>(report.causes.size() - shown))
                  << " more (--limit 0 shows all)\n";
    return kExitOk;
}
