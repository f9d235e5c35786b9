// steward-cli mapping: spreadsheet mappings (how rows of a CSV or .xlsx become documents).
#include "Cli.h"
#include "CommandLine.h"

#include "Engine.h"
#include "ExternalResults.h"
#include "RowMapping.h"
#include "Spreadsheet.h"

#include <QFile>

#include <iostream>

using namespace steward;

namespace {

const char *const kMappingHelp =
    "Usage: steward-cli [--db PATH] [--schema PATH]... mapping suggest FILE --resource PROJECT/RESOURCE\n"
    "                   [--sheet NAME] [--rows N]\n"
    "       steward-cli [--schema PATH]... mapping check MAPPING [FILE]\n"
    "       steward-cli [--db PATH] [--schema PATH]... mapping suggest FILE --results [--resource PROJECT/RESOURCE]\n"
    "                   [--sheet NAME]\n"
    "       steward-cli [--schema PATH]... mapping check MAPPING --results [FILE]\n"
    "\n"
    "suggest  prints a first mapping (JSON) for a spreadsheet (.csv, .tsv, .txt or .xlsx) and one\n"
    "         resource: each column matched to a field by its header (case, spaces and punctuation set\n"
    "         aside: \"Student ID\" -> studentUniqueId, \"Birth Date\" -> birthDate), date formats found from\n"
    "         the values, and for descriptor columns a value map to the stored descriptor values the\n"
    "         cells name. What it could not place is listed on standard error. Edit it, then import:\n"
    "         steward-cli import FILE --mapping map.json\n"
    "check    reads a mapping against the model (and, with FILE, against its header) and says what\n"
    "         is wrong, naming the place.\n"
    "--results  the same for a results mapping: how a state portal's export of validation results\n"
    "         reads (rule, severity, message, school year, school, the record's Ed-Fi id or natural key\n"
    "         columns); steward-cli rules import-results FILE --mapping map.json reads it. With a\n"
    "         database, a column whose values are mostly stored studentUniqueIds (staffUniqueIds, schoolIds)\n"
    "         is proposed for that key whatever its header says, with the evidence (\"28 of 30 values are\n"
    "         stored studentUniqueIds\"), or, failing that, whose values are stored student identification\n"
    "         codes of one system (a studentIds crosswalk finds each row's student through them); a severity\n"
    "         word it does not know is listed with its rows and the\n"
    "         severity its letters suggest (SW -> warning?), for you to confirm; it is never mapped unasked.\n"
    "\n"
    "Options:\n"
    "  --resource PROJECT/RESOURCE   (suggest) the resource the rows become, as its endpoint: ed-fi/students\n"
    "  --sheet NAME                  (suggest) the .xlsx sheet to read (default: the first)\n"
    "  --rows N                      (suggest) rows read for formats and descriptor values (default 200)\n"
    "\n"
    "A mapping: {\"sheet\": \"Roster\", \"delimiter\": \";\", \"documents\": [{\"resource\": \"ed-fi/students\",\n"
    "  \"when\": {\"column\": \"Status\", \"equals\": \"Active\"},\n"
    "  \"fields\": {\"studentUniqueId\": {\"column\": \"Student ID\"},\n"
    "             \"birthDate\": {\"column\": \"Birth Date\", \"format\": \"MM/DD/YYYY\"},\n"
    "             \"birthSexDescriptor\": {\"column\": \"Sex\", \"values\": {\"M\": \"uri://ed-fi.org/SexDescriptor#Male\"}},\n"
    "             \"schoolReference.schoolId\": {\"constant\": 255901001},\n"
    "             \"gradeLevels[0].gradeLevelDescriptor\": {\"template\": \"uri://ed-fi.org/GradeLevelDescriptor#{Grade}\"}}}]}\n"
    "Several documents per row (a roster row -> Student and StudentSchoolAssociation) are written in\n"
    "load order. Formats: MM/DD/YYYY, M/D/YYYY, DD/MM/YYYY, D/M/YYYY, D.M.YYYY, DD.MM.YYYY, YYYY-MM-DD,\n"
    "MM-DD-YYYY, DD-MM-YYYY, YYYY/MM/DD, excel (serial day numbers); .xlsx date cells read as dates.\n"
    "Numbers: 1,234.5 (comma groups) or 1.234,5 (decimal comma) as a number field's format.\n"
    "\n"
    "Exit status: 0 done, 1 the mapping or file has a problem (named on standard error), 2 bad arguments.\n"
    "\n"
    "Example: steward-cli --db district.db mapping suggest roster.csv --resource ed-fi/students > map.json\n";

const ResourceSchema *resourceNamed(const Model &model, const std::string &name)
{
    return model.findByPath(!name.empty() && name.front() == '/' ? name.substr(1) : name);
}

// The rows a suggestion looks at: formats and codes come from them.
std::vector<SheetRow> firstRows(SheetReader &reader, int count)
{
    std::vector<SheetRow> rows;
    SheetRow row;
    while (static_cast<int>(rows.size()) < count && reader.next(row))
        rows.push_back(row);
    return rows;
}

std::unique_ptr<SheetReader> openOrSay(const std::string &path, char delimiter, const std::string &sheet)
{
    std::string error;
    std::unique_ptr<SheetReader> reader = openSheet(path, delimiter, sheet, &error);
    if (!reader)
        std::cerr << "steward-cli: mapping: " << error << "\n";
    return reader;
}

int resultsMapping(const CliContext &context, const Model &model, const std::string &action,
                   const std::vector<std::string> &positional, const std::string &resourceName, const std::string &sheet,
                   int sampleRows)
{
    if (action == "check") {
        if (positional.empty() || positional.size() > 2)
            return usageError("mapping", "mapping check --results takes MAPPING and optionally the results file");
        try {
            const ResultsMapping mapping = loadResultsMapping(positional[0], model);
            if (positional.size() == 2) {
                std::unique_ptr<SheetReader> reader = openOrSay(positional[1], mapping.delimiter, mapping.sheet);
                if (!reader)
                    return kExitFailed;
                checkResultsColumns(mapping, reader->header());
            }
            std::cout << positional[0] << ": a results mapping; fits"
                      << (positional.size() == 2 ? " " + positional[1] : std::string(" the model")) << "\n";
            return kExitOk;
        } catch (const std::runtime_error &e) {
            std::cerr << "steward-cli: mapping: " << e.what() << "\n";
            return kExitFailed;
        }
    }
    if (action != "suggest")
        return usageError("mapping", "unknown mapping action '" + action + "' (suggest, check)");
    if (positional.size() != 1)
        return usageError("mapping", "mapping suggest --results takes one results file");
    const ResourceSchema *resource = nullptr;
    if (!resourceName.empty() && (resource = resourceNamed(model, resourceName)) == nullptr)
        return usageError("mapping", "'" + resourceName + "' is not a resource of the model");
    std::unique_ptr<SheetReader> reader = openOrSay(positional[0], 0, sheet);
    if (!reader)
        return kExitFailed;
    const std::vector<SheetRow> rows = firstRows(*reader, sampleRows);
    // With a database, the stored identity values say which column is the student's (or staff member's,
    // or school's) id, whatever its header.
    std::unique_ptr<Database> database;
    if (resource != nullptr && QFile::exists(QString::fromStdString(context.resolvedDatabasePath())))
        database = context.openReadOnlyDatabase();
    ResultsMappingSuggestion suggestion =
        suggestResultsMapping(reader->header(), rows, resource, database ? &database->connection() : nullptr);
    if (!sheet.empty())
        suggestion.mapping["sheet"] = sheet;
    std::cout << suggestion.mapping.dump(2) << "\n";
    for (const std::string &line : suggestion.notes)
        std::cerr << "steward-cli: mapping: " << line << "\n";
    for (const std::string &line : suggestion.unmatched)
        std::cerr << "steward-cli: mapping: " << line << "\n";
    return kExitOk;
}

} // namespace

int commandMapping(const CliContext &context, const std::vector<std::string> &args)
{
    if (wantsHelp(args) || args.empty()) {
        std::cout << kMappingHelp;
        return args.empty() ? kExitUsage : kExitOk;
    }
    const std::string action = args[0];
    std::vector<std::string> positional;
    std::string resourceName;
    std::string sheet;
    int sampleRows = 200;
    bool results = false;
    if (!CommandLine("mapping")
             .text("--resource", resourceName)
             .text("--sheet", sheet)
             .count("--rows", 1, 100000, sampleRows)
             .flag("--results", results)
             .words(positional)
             .parse(args, 1))
        return kExitUsage;
    std::unique_ptr<Model> model = context.loadModel();
    if (!model)
        return kExitUsage;

    if (results)
        return resultsMapping(context, *model, action, positional, resourceName, sheet, sampleRows);
    if (action == "check") {
        if (positional.empty() || positional.size() > 2)
            return usageError("mapping", "mapping check takes MAPPING and optionally the spreadsheet");
        try {
            const RowMapping mapping = loadRowMapping(positional[0], *model);
            if (positional.size() == 2) {
                std::string error;
                std::unique_ptr<SheetReader> reader = openSheet(positional[1], mapping.delimiter, mapping.sheet, &error);
                if (!reader) {
                    std::cerr << "steward-cli: mapping: " << error << "\n";
                    return kExitFailed;
                }
                checkColumns(mapping, reader->header());
            }
            std::cout << positional[0] << ": " << mapping.documents.size() << " document(s) per row; fits"
                      << (positional.size() == 2 ? " " + positional[1] : std::string(" the model")) << "\n";
            return kExitOk;
        } catch (const MappingError &e) {
            std::cerr << "steward-cli: mapping: " << e.what() << "\n";
            return kExitFailed;
        }
    }
    if (action != "suggest")
        return usageError("mapping", "unknown mapping action '" + action + "' (suggest, check)");
    if (positional.size() != 1)
        return usageError("mapping", "mapping suggest takes one spreadsheet");
    const ResourceSchema *resource = resourceNamed(*model, resourceName);
    if (resource == nullptr)
        return usageError("mapping", resourceName.empty() ? "--resource PROJECT/RESOURCE is required (ed-fi/students)"
                                                          : "'" + resourceName + "' is not a resource of the model");
    std::string error;
    std::unique_ptr<SheetReader> reader = openSheet(positional[0], 0, sheet, &error);
    if (!reader) {
        std::cerr << "steward-cli: mapping: " << error << "\n";
        return kExitFailed;
    }
    const std::vector<SheetRow> rows = firstRows(*reader, sampleRows);
    std::unique_ptr<Database> database = context.openDatabase();
    if (!database)
        return kExitUsage;
    auto storedDescriptors = [&database](const std::string &descriptor) {
        return storedDescriptorUris(database->connection(), descriptor);
    };
    MappingSuggestion suggestion = suggestRowMapping(*resource, reader->header(), rows, storedDescriptors);
    if (!sheet.empty())
        suggestion.mapping["sheet"] = sheet;
    std::cout << suggestion.mapping.dump(2) << "\n";
    for (const std::string &line : suggestion.unmatched)
        std::cerr << "steward-cli: mapping: " << line << "\n";
    return kExitOk;
}
