#include "CommandLine.h"

#include "Cli.h"

CommandLine::CommandLine(std::string command, std::string scope)
    : m_command(std::move(command))
    , m_scope(std::move(scope))
{
}

CommandLine &CommandLine::flag(const std::string &name, bool &target)
{
    m_options.push_back({name, false, {}, [&target](const std::string &) {
                             target = true;
                             return std::string();
                         }});
    return *this;
}

CommandLine &CommandLine::flag(const std::string &name, std::function<void()> set)
{
    m_options.push_back({name, false, {}, [set = std::move(set)](const std::string &) {
                             set();
                             return std::string();
                         }});
    return *this;
}

CommandLine &CommandLine::text(const std::string &name, std::string &target, const std::string &missing)
{
    return value(name, [&target](const std::string &value) {
        target = value;
        return std::string();
    }, missing);
}

CommandLine &CommandLine::texts(const std::string &name, std::vector<std::string> &target, const std::string &missing)
{
    return value(name, [&target](const std::string &value) {
        target.push_back(value);
        return std::string();
    }, missing);
}

CommandLine &CommandLine::list(const std::string &name, std::vector<std::string> &target)
{
    texts(name, target, "at least one value");
    m_options.back().takesList = true;
    return *this;
}

CommandLine &CommandLine::count(const std::string &name, int min, int max, int &target)
{
    return value(name, [name, min, max, &target](const std::string &value) {
        if (parseCount(value, min, max, target))
            return std::string();
        return name + " takes a whole number from " + std::to_string(min) + " to " + std::to_string(max) + ", not '"
               + value + "'";
    }, "a number");
}

CommandLine &CommandLine::choice(const std::string &name, std::string &target,
                                  const std::vector<std::string> &choices)
{
    return value(name, [name, &target, choices](const std::string &value) {
        for (const std::string &choice : choices)
            if (value == choice) {
                target = value;
                return std::string();
            }
        std::string said;
        for (std::size_t i = 0; i < choices.size(); ++i)
            said += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
        return name + " takes " + said;
    });
}

CommandLine &CommandLine::wholeNumber(const std::string &name, std::int64_t &target)
{
    return value(name, [name, &target](const std::string &value) {
        if (!value.empty() && value.size() <= 18 && value.find_first_not_of("0123456789") == std::string::npos) {
            target = std::stoll(value);
            return std::string();
        }
        return name + " takes a whole number, not '" + value + "'";
    }, "a number");
}

CommandLine &CommandLine::value(const std::string &name, Take take, const std::string &missing)
{
    m_options.push_back({name, true, missing, std::move(take)});
    return *this;
}

CommandLine &CommandLine::words(Take take)
{
    m_words = std::move(take);
    return *this;
}

CommandLine &CommandLine::words(std::vector<std::string> &target)
{
    return words([&target](const std::string &word) {
        target.push_back(word);
        return std::string();
    });
}

CommandLine &CommandLine::word(std::string &target, const std::string &tooMany)
{
    return words([&target, tooMany](const std::string &word) {
        if (!target.empty())
            return tooMany;
        target = word;
        return std::string();
    });
}

CommandLine &CommandLine::command(std::string &name, std::vector<std::string> &rest)
{
    m_commandName = &name;
    m_commandArgs = &rest;
    return *this;
}

const CommandLine::Option *CommandLine::find(const std::string &name) const
{
    for (const Option &option : m_options)
        if (option.name == name)
            return &option;
    return nullptr;
}

std::string CommandLine::problemIn(const std::vector<std::string> &args, std::size_t from) const
{
    for (std::size_t i = from; i < args.size(); ++i) {
        const std::string &arg = args[i];
        if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
            if (m_commandName != nullptr) {
                *m_commandName = arg;
                m_commandArgs->assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
                return {};
            }
            if (!m_words)
                return "unexpected argument '" + arg + "'";
            if (std::string problem = m_words(arg); !problem.empty())
                return problem;
            continue;
        }
        const std::size_t equals = arg.find('=');
        const std::string name = arg.substr(0, equals);
        const Option *option = find(name);
        if (option == nullptr || (!option->takesValue && equals != std::string::npos))
            return "unknown option '" + arg + "'" + (m_scope.empty() ? "" : " for " + m_scope);
        std::string value;
        if (option->takesList && equals == std::string::npos) {
            bool took = false;
            for (; i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0; took = true)
                option->take(args[++i]);
            if (!took)
                return name + " needs " + option->missing;
            continue;
        }
        if (option->takesValue) {
            if (equals != std::string::npos)
                value = arg.substr(equals + 1);
            else if (i + 1 < args.size())
                value = args[++i];
            if (value.empty())
                return name + " needs " + option->missing;
        }
        if (std::string problem = option->take(value); !problem.empty())
            return problem;
    }
    return {};
}

bool CommandLine::parse(const std::vector<std::string> &args, std::size_t from) const
{
    const std::string problem = problemIn(args, from);
    if (problem.empty())
        return true;
    usageError(m_command, problem);
    return false;
}
