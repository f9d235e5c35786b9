// README.md's commands, checked so that none can rot. Each fenced code block follows a line
//   <!-- check: run -->               run here, in order, all in one scratch folder (a reader's walk)
//   <!-- check: ci -->                every line is in .ci/run as it stands (CI runs it)
//   <!-- check: covered-by TEST... --> needs a server, a keychain or root: TEST exists, and every steward-cli
//                                     command, option and variable in it is a real one
// and a steward-cli or steward command quoted in the text must name real commands and options.
//
// How a `run` block runs: `$ ` lines are commands and the lines after one its expected output (in
// order, `…` matching anything; every line the command prints on stdout must match one of them);
// without `$ ` every line is a command. Each runs under bash with pipefail in the walk's folder (so
// a step sees what every earlier block made there), which has `build/` (this build tree), a fresh
// HOME, and the built steward-cli and steward first on PATH. Steps joined by && run one by one, except
// that a `scripts/` step is not run but must be in .ci/run (which runs it on every change).
// `steward` gets `--screenshot FILE` (it renders its window offscreen and exits) and must print
// nothing on stderr, as a first run must not. `build/` there is a folder of links to the build
// tree's entries but Testing/ and DartConfiguration.tcl (which names the real tree), so a README
// ctest writes its logs there and not over those of the ctest running this; it must pick its
// tests with -R (running all would run this one again).
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>

namespace {

const QString kSource = QStringLiteral(STEWARD_SOURCE_DIR);
const QString kBinary = QStringLiteral(STEWARD_BINARY_DIR);

QString readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

struct Block
{
    int line = 0; // of the opening fence, 1-based
    QString section;
    QString kind;
    QStringList arguments;
    QStringList lines;
};

struct Command
{
    int line = 0;
    QString text;
    QStringList expected;
};

struct Readme
{
    QList<Block> blocks;
    QList<std::pair<int, QString>> quoted; // inline `steward-cli ...` and `steward ...`
    QStringList problems;
};

Readme parseReadme()
{
    Readme readme;
    const QStringList lines = readText(kSource + "/README.md").split('\n');
    const QRegularExpression marker("^<!-- check: (.*) -->$");
    const QRegularExpression span("`([^`]+)`");
    const QRegularExpression indentedCommand("^    (\\$ |steward|build/|scripts/|ctest|cmake|curl)");
    QString section;
    Block *open = nullptr;
    for (int i = 0; i < lines.size(); ++i) {
        const QString &line = lines[i];
        if (open != nullptr) {
            if (line.startsWith("```"))
                open = nullptr;
            else
                open->lines << line;
            continue;
        }
        if (line.startsWith("```")) {
            Block block;
            block.line = i + 1;
            block.section = section;
            int previous = i - 1;
            while (previous >= 0 && lines[previous].trimmed().isEmpty())
                --previous;
            const QRegularExpressionMatch m =
                previous >= 0 ? marker.match(lines[previous]) : QRegularExpressionMatch();
            if (m.hasMatch()) {
                block.arguments = m.captured(1).split(' ', Qt::SkipEmptyParts);
                block.kind = block.arguments.takeFirst();
            } else {
                readme.problems << QStringLiteral(
                                       "README.md:%1: a code block without a <!-- check: ... --> line")
                                       .arg(i + 1);
            }
            readme.blocks << block;
            open = &readme.blocks.last();
            continue;
        }
        if (line.startsWith("## "))
            section = line;
        if (indentedCommand.match(line).hasMatch())
            readme.problems << QStringLiteral(
                                   "README.md:%1: an indented command; use a fenced block with a check line")
                                   .arg(i + 1);
        for (auto it = span.globalMatch(line); it.hasNext();) {
            const QString text = it.next().captured(1);
            if (text.startsWith("steward-cli ") || text.startsWith("steward "))
                readme.quoted.append({i + 1, text});
        }
    }
    return readme;
}

QList<Command> commandsOf(const Block &block)
{
    // Lines ending in a backslash continue on the next one.
    QList<std::pair<int, QString>> joined;
    for (int i = 0; i < block.lines.size(); ++i) {
        QString text = block.lines[i];
        const int first = block.line + 1 + i;
        while (text.endsWith('\\') && i + 1 < block.lines.size())
            text = text.chopped(1).trimmed() + ' ' + block.lines[++i].trimmed();
        joined.append({first, text});
    }
    const bool prompts = std::any_of(joined.begin(), joined.end(),
                                     [](const auto &line) { return line.second.startsWith("$ "); });
    QList<Command> commands;
    for (const auto &[number, text] : joined) {
        if (prompts && !text.startsWith("$ ")) {
            if (!commands.isEmpty() && !text.trimmed().isEmpty())
                commands.last().expected << text;
        } else if (!text.trimmed().isEmpty() && !text.trimmed().startsWith('#')) {
            commands << Command{number, prompts ? text.mid(2) : text, {}};
        }
    }
    return commands;
}

// `--name` as a whole word (not the start of --name-more).
bool mentions(const QString &text, const QString &word)
{
    return QRegularExpression("(?<![\\w-])" + QRegularExpression::escape(word) + "(?![\\w-])")
        .match(text)
        .hasMatch();
}

QString outputOf(const QString &program, const QStringList &args)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    process.setProcessEnvironment(env);
    process.start(program, args);
    process.waitForFinished(60000);
    return QString::fromUtf8(process.readAllStandardOutput());
}

class HelpTexts
{
public:
    const QString &cli(const QString &command = {})
    {
        auto it = m_cli.find(command);
        if (it == m_cli.end())
            it = m_cli
                     .emplace(command,
                              outputOf(STEWARD_CLI_PATH, command.isEmpty() ? QStringList{"--help"}
                                                                           : QStringList{command, "--help"}))
                     .first;
        return it->second;
    }
    const QString &app()
    {
        if (m_app.isEmpty())
            m_app = outputOf(STEWARD_APP_PATH, {"--help"});
        return m_app;
    }
    QStringList commands()
    {
        QStringList names;
        bool inCommands = false;
        for (const QString &line : cli().split('\n')) {
            if (line.startsWith("Commands"))
                inCommands = true;
            else if (line.isEmpty())
                inCommands = false;
            else if (inCommands && line.startsWith("  "))
                names << line.trimmed().section(' ', 0, 0);
        }
        return names;
    }

private:
    std::map<QString, QString> m_cli;
    QString m_app;
};

// What is wrong with a steward-cli or steward command line, or empty. Placeholders in capitals
// (COMMAND, PATH) are taken as they are; options must be named by the command's --help, variables
// by that help or one of the given test sources.
QString commandProblem(const QString &line, HelpTexts &help, const QStringList &testSources = {})
{
    QString text = line;
    text.remove(QRegularExpression("\\s+#.*$"));
    QStringList words = text.split(' ', Qt::SkipEmptyParts);
    QStringList variables;
    const QRegularExpression assignment("^([A-Z_][A-Z0-9_]*)=");
    while (!words.isEmpty() && assignment.match(words.first()).hasMatch())
        variables << assignment.match(words.takeFirst()).captured(1);
    if (words.isEmpty())
        return {};
    const QString program = words.takeFirst().section('/', -1);
    const QRegularExpression placeholder("^[A-Z][A-Z_.]*$");
    QString helpText;
    if (program == "steward") {
        helpText = help.app();
    } else if (program == "steward-cli") {
        while (words.size() >= 2 && (words.first() == "--db" || words.first() == "--schema"))
            words.remove(0, 2);
        if (!words.isEmpty() && !words.first().startsWith("--")) {
            const QString command = words.takeFirst();
            if (placeholder.match(command).hasMatch())
                return {};
            if (!help.commands().contains(command))
                return "steward-cli has no command '" + command + "'";
            helpText = help.cli(command);
        } else {
            helpText = help.cli();
        }
    }
    if (!helpText.isEmpty()) {
        for (const QString &word : words) {
            const QString option = word.section('=', 0, 0);
            if (option.startsWith("--") && option != "--help" && option != "--version" &&
                !mentions(helpText, option))
                return program + " --help does not name " + option;
        }
    }
    for (const QString &variable : variables) {
        const bool named = mentions(helpText, variable) || std::any_of(testSources.begin(), testSources.end(),
                                                                       [&variable](const QString &source) {
                                                                           return mentions(source, variable);
                                                                       });
        if (!named)
            return variable + " is named by neither the command's --help nor the tests that cover it";
    }
    return {};
}

struct Step
{
    int exitCode = -1;
    QString output;   // stdout and stderr as they came
    QString printed;  // stdout alone
    QString errors;   // stderr alone
};

Step runStep(const QString &step, const QString &folder)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HOME", folder + "/home");
    env.insert("XDG_RUNTIME_DIR", folder + "/runtime");
    for (const char *name : {"XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"})
        env.remove(QString::fromLatin1(name));
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("PATH", kBinary + "/app/cli:" + kBinary + "/app/gui:" + env.value("PATH"));
    process.setProcessEnvironment(env);
    process.setWorkingDirectory(folder);
    process.start("bash", {"-c", "set -o pipefail; " + step});
    Step result;
    if (!process.waitForFinished(300000)) {
        process.kill();
        process.waitForFinished();
        result.output = "did not finish in 5 minutes";
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.errors = QString::fromUtf8(process.readAllStandardError());
    result.printed = QString::fromUtf8(process.readAllStandardOutput());
    result.output = result.printed + result.errors;
    return result;
}

QString prepareFolder(const QTemporaryDir &root)
{
    const QString folder = root.filePath(QStringLiteral("walk"));
    QDir().mkpath(folder + "/home");
    QDir().mkpath(folder + "/runtime");
    QFile::setPermissions(folder + "/runtime", QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    // Links to the build tree's entries, except what makes CTest write its logs into the real one.
    QDir().mkpath(folder + "/build");
    const QDir tree(kBinary);
    for (const QString &entry : tree.entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot))
        if (entry != "Testing" && entry != "DartConfiguration.tcl")
            QFile::link(tree.filePath(entry), folder + "/build/" + entry);
    return folder;
}

// An expected line as a pattern: `…` matches anything, the rest is taken as written.
QRegularExpression expectedPattern(const QString &want)
{
    QStringList parts = want.split(QStringLiteral("…"));
    for (QString &part : parts)
        part = QRegularExpression::escape(part);
    return QRegularExpression("^" + parts.join(".*") + "$");
}

// A line printed on stdout that no expected line stands for (blank lines aside), or empty: the
// README shows all that the command prints.
QString unshownLine(const QStringList &expected, const QString &printed)
{
    QList<QRegularExpression> patterns;
    for (const QString &want : expected)
        patterns << expectedPattern(want);
    for (const QString &line : printed.split('\n')) {
        const bool shown = line.trimmed().isEmpty()
                           || std::any_of(patterns.begin(), patterns.end(), [&line](const QRegularExpression &p) {
                                  return p.match(line).hasMatch();
                              });
        if (!shown)
            return line;
    }
    return {};
}

// Each expected line, `…` matching anything, must match an output line after the previous one's.
QString unmatchedExpectation(const QStringList &expected, const QString &output)
{
    const QStringList lines = output.split('\n');
    int at = 0;
    for (const QString &want : expected) {
        const QRegularExpression pattern = expectedPattern(want);
        while (at < lines.size() && !pattern.match(lines[at]).hasMatch())
            ++at;
        if (at == lines.size())
            return want;
        ++at;
    }
    return {};
}

} // namespace

class TestReadme : public QObject
{
    Q_OBJECT

private:
    Readme m_readme;
    QString m_ciRun;
    HelpTexts m_help;

private Q_SLOTS:
    void initTestCase()
    {
        m_readme = parseReadme();
        m_ciRun = readText(kSource + "/.ci/run");
        QVERIFY(!m_ciRun.isEmpty());
        QVERIFY(m_readme.blocks.size() >= 8);
    }

    void everyCodeBlockSaysHowItIsChecked()
    {
        QVERIFY2(m_readme.problems.isEmpty(), qPrintable(m_readme.problems.join('\n')));
        for (const Block &block : m_readme.blocks)
            QVERIFY2(QStringList({"run", "ci", "covered-by"}).contains(block.kind),
                     qPrintable(
                         QStringLiteral("README.md:%1: unknown check '%2'").arg(block.line).arg(block.kind)));
    }

    // The two commands at the top: what a fresh machine runs.
    void readmeStartsWithTheRunAndTestCommands()
    {
        QVERIFY(m_readme.blocks.size() >= 2);
        QCOMPARE(m_readme.blocks[0].lines,
                 QStringList{"scripts/install-deps.sh && scripts/build.sh apps && build/app/gui/steward"});
        QCOMPARE(m_readme.blocks[0].kind, QStringLiteral("run"));
        QCOMPARE(m_readme.blocks[1].kind, QStringLiteral("ci"));
        QVERIFY(m_readme.blocks[1].lines.first().startsWith(
            "scripts/install-deps.sh && scripts/build.sh && ctest"));
    }

    void ciBlocksAreWhatCiRuns()
    {
        for (const Block &block : m_readme.blocks) {
            if (block.kind != "ci")
                continue;
            for (const Command &command : commandsOf(block))
                QVERIFY2(m_ciRun.contains(command.text),
                         qPrintable(QStringLiteral("README.md:%1: not in .ci/run: %2")
                                        .arg(command.line)
                                        .arg(command.text)));
        }
    }

    void coveredBlocksNameRealTestsCommandsAndOptions()
    {
        const QString testList = readText(kSource + "/tests/CMakeLists.txt");
        for (const Block &block : m_readme.blocks) {
            if (block.kind != "covered-by")
                continue;
            QVERIFY2(!block.arguments.isEmpty(),
                     qPrintable(QStringLiteral("README.md:%1: covered-by names no test").arg(block.line)));
            QStringList sources;
            for (const QString &test : block.arguments) {
                const QRegularExpression registered(
                    "(add_test\\(NAME |steward_add_test\\(|steward_add_gui_test\\()" +
                    QRegularExpression::escape(test) + "\\s");
                QVERIFY2(
                    registered.match(testList).hasMatch(),
                    qPrintable(QStringLiteral("README.md:%1: no CTest test %2").arg(block.line).arg(test)));
                sources << readText(kSource + "/tests/" + test + ".cpp");
            }
            for (const Command &command : commandsOf(block)) {
                const QString problem = commandProblem(command.text, m_help, sources);
                QVERIFY2(problem.isEmpty(),
                         qPrintable(QStringLiteral("README.md:%1: %2").arg(command.line).arg(problem)));
            }
        }
    }

    void quotedCommandsAreRealOnes()
    {
        QVERIFY(!m_readme.quoted.isEmpty());
        for (const auto &[line, text] : m_readme.quoted) {
            const QString problem = commandProblem(text, m_help);
            QVERIFY2(problem.isEmpty(),
                     qPrintable(QStringLiteral("README.md:%1: `%2`: %3").arg(line).arg(text, problem)));
        }
    }

    // One folder for the whole walk, as a reader has: a block that reuses a name an earlier one made
    // (an export into its batch folder) fails here as it does for them.
    void runBlocksRun()
    {
        QTemporaryDir root;
        const QString folder = prepareFolder(root);
        int ran = 0;
        for (const Block &block : m_readme.blocks) {
            if (block.kind != "run")
                continue;
            for (const Command &command : commandsOf(block)) {
                const QString where = QStringLiteral("README.md:%1: ").arg(command.line);
                QString output;
                QString printed;
                for (QString step : command.text.split(" && ")) {
                    step = step.trimmed();
                    if (step.startsWith("scripts/")) {
                        QVERIFY2(m_ciRun.contains(step), qPrintable(where + step + " is not in .ci/run"));
                        continue;
                    }
                    const QString program = step.section(' ', 0, 0);
                    const bool app = program == "steward" || program.endsWith("/steward");
                    if (app)
                        step +=
                            QStringLiteral(" --screenshot %1/window-%2.png").arg(folder).arg(command.line);
                    else if (program == "ctest")
                        QVERIFY2(step.contains(" -R "),
                                 qPrintable(where + "ctest must pick its tests with -R"));
                    const Step result = runStep(step, folder);
                    QVERIFY2(result.exitCode == 0,
                             qPrintable(where + step + QStringLiteral(" exited %1:\n").arg(result.exitCode) +
                                        result.output));
                    // The offscreen platform plugin's note that it has no window system to pass
                    // size hints to is not the app's; anything else on stderr is.
                    const QString errors =
                        QString(result.errors).remove("This plugin does not support propagateSizeHints()\n");
                    if (app)
                        QVERIFY2(errors.isEmpty(), qPrintable(where + step + " wrote on stderr:\n" + errors));
                    if (program == "ctest")
                        QVERIFY2(result.output.contains("100% tests passed"),
                                 qPrintable(where + result.output));
                    output += result.output;
                    printed += result.printed;
                    ++ran;
                }
                const QString missing = unmatchedExpectation(command.expected, output);
                QVERIFY2(missing.isEmpty(),
                         qPrintable(where + "expected a line like\n  " + missing + "\nin\n" + output));
                const QString unshown = command.expected.isEmpty() ? QString() : unshownLine(command.expected, printed);
                QVERIFY2(unshown.isEmpty(),
                         qPrintable(where + "prints a line the README does not show:\n  " + unshown));
            }
        }
        QVERIFY(ran >= 15);
    }
};

QTEST_GUILESS_MAIN(TestReadme)
#include "tst_readme.moc"
