// steward-cli: the command-line face of the engine.
#include "Cli.h"
#include "CommandLine.h"
#include "ModelRecord.h"
#include "PrivateFiles.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QSaveFile>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <iostream>
#include <map>
#include <string_view>

using namespace steward;

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void onInterrupt(int)
{
    g_interrupted = 1;
}

const char *const kUsage =
    "Usage: steward-cli [--db PATH] [--schema PATH]... COMMAND [ARGS]\n"
    "\n"
    "Options:\n"
    "  --db PATH       the Steward database (SQLite); created when missing.\n"
    "                  Default: ~/.local/share/steward/steward.db\n"
    "  --schema PATH   an Ed-Fi ApiSchema JSON file: the core data standard first, then any\n"
    "                  extensions (repeatable). The database records the model it is opened\n"
    "                  with, files and all; without --schema it opens with that one (a new\n"
    "                  database: the embedded starter model). A model that would leave stored\n"
    "                  documents outside it is refused.\n"
    "  --help          show this help.  --version  show the version.\n"
    "\n"
    "Commands (steward-cli COMMAND --help for each):\n"
    "  requests [FILE|-]   answer one JSON request per line with Ed-Fi API semantics\n"
    "  order [--json]      print the load order of the model's resources\n"
    "  import FILE|DIR...  import documents (NDJSON, JSON, XML, batches; CSV and .xlsx with --mapping)\n"
    "  mapping suggest FILE --resource R   a first mapping of a spreadsheet's columns to a resource\n"
    "  export --out DIR    write a validated batch in load order\n"
    "  verify-batch DIR    check a batch's checksums and references\n"
    "  generate            write a generated sample district as NDJSON\n"
    "  sync pull|push|...  pull from and push to an Ed-Fi API (status, remember a secret)\n"
    "  changes [--follow]  print the change log as NDJSON\n"
    "  check               check the database's integrity and Steward's invariants\n"
    "  backup --to FILE    copy the database safely while it is in use\n"
    "  restore --from FILE  replace the database's content with a backup\n"
    "  make-private        make the database's files readable by their owner alone (0600)\n"
    "  tidy [--now]        the idle-time upkeep: free pages back, text indexes merged, VACUUM when due\n"
    "  serve [--port N]    answer Ed-Fi API requests over HTTP (OAuth2 client credentials)\n"
    "  clients add NAME    create a client for serve (also: clients list, clients remove NAME)\n"
    "  rules run|list|...  business rules: versioned rule packs, the state's results, acknowledgements\n"
    "  status [--strict]   per resource: documents, drafts, rule results, unsent changes; ready to submit?\n"
    "  submission sign|list  sign off what went out (a batch or a push) with the verdict then\n"
    "  report --out FILE.pdf  a page per school: documents, results by severity and rule, changes since\n"
    "  duplicates          list likely duplicate students/staff (also: duplicates distinct ID1 ID2)\n"
    "  merge --keep ID --drop ID   merge two documents: referrers move to the kept one\n"
    "  change-identity ID --set FIELD=VALUE   change identifying values; referrers follow\n"
    "  find WORD...        find documents of any resource by ids, codes and names\n"
    "  show ID             everything known about a record: problems, results, acknowledgements, conflicts\n"
    "  delete ID [--cascade]   delete a document; with --cascade, everything that depends on it too\n"
    "  repoint ID --to ID  move every reference to a document over to another one\n"
    "  causes [--json]     group drafts by root cause (missing document, unknown descriptor value)\n"
    "  fix SUBCOMMAND      bulk-edit a field, map descriptor values in drafts; undo any journaled edit\n"
    "\n"
    "Example: echo '{\"method\":\"GET\",\"path\":\"/ed-fi/schools\"}' | steward-cli requests\n";

} // namespace

std::unique_ptr<Model> CliContext::loadModel() const
{
    try {
        if (!schemaPaths.empty())
            return Model::loadFiles(schemaPaths);
        std::unique_ptr<Model> recorded = loadRecordedModelAt(resolvedDatabasePath());
        warnIfReadableByOthers();
        return recorded;
    } catch (const SchemaLoadError &e) {
        std::cerr << "steward-cli: schema error: " << e.what() << "\n";
        return nullptr;
    } catch (const SQLite::Exception &e) {
        std::cerr << "steward-cli: database error: " << resolvedDatabasePath() << ": " << e.what() << "\n";
        return nullptr;
    }
}

std::string CliContext::resolvedDatabasePath() const
{
    return databasePath.empty() ? defaultDatabasePath() : databasePath;
}

namespace {

// A word the shell reads back as it is: quoted when it holds anything but the usual path characters.
std::string shellWord(const std::string &word)
{
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
        return std::isalnum(c) || std::string_view("_./:=@%+,-").find(static_cast<char>(c)) != std::string_view::npos;
    });
    if (plain)
        return word;
    std::string quoted = "'";
    for (const char c : word)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

} // namespace

std::string CliContext::suggestion(const std::string &rest) const
{
    std::string line = "steward-cli";
    if (!databasePath.empty())
        line += " --db " + shellWord(databasePath);
    for (const std::string &schema : schemaPaths)
        line += " --schema " + shellWord(schema);
    return line + " " + rest;
}

std::unique_ptr<Database> CliContext::openDatabase() const
{
    try {
        std::unique_ptr<Database> database = Database::open(resolvedDatabasePath());
        warnIfReadableByOthers();
        database->startBackgroundCheckpoints();
        return database;
    } catch (const StorageError &e) {
        std::cerr << "steward-cli: database error: " << e.what() << "\n";
        return nullptr;
    }
}

std::unique_ptr<Database> CliContext::openReadOnlyDatabase() const
{
    try {
        std::unique_ptr<Database> database = Database::open(resolvedDatabasePath(), Database::Access::ReadOnly);
        warnIfReadableByOthers();
        return database;
    } catch (const StorageError &e) {
        std::cerr << "steward-cli: database error: " << e.what() << "\n";
        return nullptr;
    }
}

void CliContext::warnIfReadableByOthers() const
{
    if (readableByOthersChecked)
        return;
    readableByOthersChecked = true;
    const std::vector<ExposedFile> exposed = exposedDatabaseFiles(resolvedDatabasePath());
    if (exposed.empty())
        return;
    const std::string command = "steward-cli" + (databasePath.empty() ? std::string() : " --db " + shellWord(databasePath));
    std::cerr << "steward-cli: warning: other accounts can read the student records in " << describeExposedFiles(exposed)
              << "; to make the database private (0600): " << command << " make-private\n";
}

bool CliContext::openModelAndDatabase(std::unique_ptr<Model> &model, std::unique_ptr<Database> &database) const
{
    ModelChoice choice;
    std::unique_ptr<Model> given;
    try {
        if (!schemaPaths.empty()) {
            choice.kind = ModelChoice::Kind::Files;
            choice.files = readSchemaTexts(schemaPaths);
            given = loadChosenModel(choice);
        }
    } catch (const SchemaLoadError &e) {
        std::cerr << "steward-cli: schema error: " << e.what() << "\n";
        return false;
    }
    database = openDatabase();
    if (!database)
        return false;
    ModelOpening opening;
    try {
        opening = openModel(*database, choice, false, std::move(given));
    } catch (const SchemaLoadError &e) {
        std::cerr << "steward-cli: schema error: " << e.what() << "\n";
        return false;
    } catch (const std::exception &e) {
        std::cerr << "steward-cli: database error: " << e.what() << "\n";
        return false;
    }
    if (!opening.model) {
        std::int64_t documents = 0;
        for (const ResourceDocuments &entry : opening.outside)
            documents += entry.documents;
        std::cerr << "steward-cli: --schema refused: " << documents << " stored document(s) of "
                  << opening.outside.size() << " resource(s) the given model does not have would fall outside it: "
                  << describeDocumentsOutside(opening.outside) << ". The database keeps its model, "
                  << describeRecordedModel(readRecordedModelFiles(database->connection()))
                  << "; give schema files that have those resources, or delete those documents first.\n";
        database.reset();
        return false;
    }
    if (opening.recorded)
        std::cerr << "steward-cli: " << database->path() << " now records its model: " << opening.model->describe()
                  << "\n";
    model = std::move(opening.model);
    return true;
}

InterruptGuard::InterruptGuard()
{
    g_interrupted = 0;
    m_previousInt = std::signal(SIGINT, onInterrupt);
    m_previousTerm = std::signal(SIGTERM, onInterrupt);
}

InterruptGuard::~InterruptGuard()
{
    std::signal(SIGINT, m_previousInt);
    std::signal(SIGTERM, m_previousTerm);
}

bool InterruptGuard::interrupted() const
{
    return g_interrupted != 0;
}

int usageError(const std::string &command, const std::string &message)
{
    std::cerr << "steward-cli: " << message << " (see steward-cli " << (command.empty() ? "" : command + " ")
              << "--help)\n";
    return kExitUsage;
}

bool writeReportFile(const std::string &path, const Json &report)
{
    QSaveFile file(QString::fromStdString(path));
    // Reports quote input (file names, values) that need not be valid UTF-8; dump() threw on it.
    const std::string text = report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    if (!openPrivateForWriting(file) || file.write(text.data(), static_cast<qint64>(text.size())) < 0
        || !file.commit()) {
        std::cerr << "steward-cli: cannot write the report " << path << ": " << file.errorString().toStdString()
                  << "\n";
        return false;
    }
    return true;
}

bool parseCount(const std::string &text, int min, int max, int &out)
{
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
        return false;
    const int value = std::stoi(text);
    if (value < min || value > max)
        return false;
    out = value;
    return true;
}

bool wantsHelp(const std::vector<std::string> &args)
{
    for (const std::string &arg : args)
        if (arg == "--help" || arg == "-h")
            return true;
    return false;
}

// The report draws text into a PDF, which needs fonts and so a QGuiApplication; every other command
// stays a QCoreApplication that needs no display.
std::unique_ptr<QCoreApplication> makeApplication(int &argc, char *argv[])
{
    bool report = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--db" || arg == "--schema") {
            ++i;
            continue;
        }
        if (arg.rfind("-", 0) != 0) {
            report = arg == "report";
            break;
        }
    }
    if (!report)
        return std::make_unique<QCoreApplication>(argc, argv);
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
        && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    return std::make_unique<QGuiApplication>(argc, argv);
}

int main(int argc, char *argv[])
{
    const std::unique_ptr<QCoreApplication> app = makeApplication(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("steward"));
    QCoreApplication::setApplicationVersion(QStringLiteral(STEWARD_VERSION));

    CliContext context;
    std::string command;
    std::vector<std::string> arguments;
    std::vector<std::string> args(argv + 1, argv + argc);
    bool help = false;
    bool version = false;
    auto schema = [&context](const std::string &path) {
        context.schemaPaths.push_back(path);
        return std::string();
    };
    if (!CommandLine("")
             .flag("--help", help)
             .flag("--version", version)
             .text("--db", context.databasePath, "a path")
             .value("--schema", schema, "a path")
             .command(command, arguments)
             .parse(args))
        return kExitUsage;
    if (help || (command == "-h")) {
        std::cout << kUsage;
        return kExitOk;
    }
    if (version) {
        std::cout << "steward-cli " << STEWARD_VERSION << "\n";
        return kExitOk;
    }
    if (command.empty())
        return usageError("", "no command given");

    using Command = int (*)(const CliContext &, const std::vector<std::string> &);
    static const std::map<std::string, Command> commands = {
        {"requests", commandRequests}, {"order", commandOrder},         {"import", commandImport},
        {"export", commandExport},     {"verify-batch", commandVerifyBatch}, {"generate", commandGenerate},
        {"sync", commandSync},         {"changes", commandChanges},
        {"check", commandCheck},       {"backup", commandBackup},           {"restore", commandRestore},
        {"make-private", commandMakePrivate}, {"tidy", commandTidy},
        {"serve", commandServe},       {"clients", commandClients},
        {"rules", commandRules},
        {"status", commandStatus},     {"submission", commandSubmission}, {"report", commandReport},
        {"duplicates", commandDuplicates}, {"merge", commandMerge}, {"change-identity", commandChangeIdentity},
        {"causes", commandCauses},     {"delete", commandDelete},    {"find", commandFind}, {"show", commandShow},        {"mapping", commandMapping},           {"repoint", commandRepoint},
        {"fix", commandFix},
    };
    auto it = commands.find(command);
    if (it == commands.end())
        return usageError("", "unknown command '" + command + "'");
    return it->second(context, arguments);
}
