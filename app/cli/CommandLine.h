#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

// One command's options, declared once, read by one loop: "--name VALUE" and "--name=VALUE" alike,
// and every mistake said in the same words ("--limit needs a number", "unknown option '--x'",
// "--limit takes a whole number from 1 to 1000, not 'x'"), followed by where the help is.
class CommandLine
{
public:
    // Checks a value: the problem with it, or an empty text when it was taken.
    using Take = std::function<std::string(const std::string &value)>;

    // command: the help a mistake points to ("sync" → steward-cli sync --help); scope, when set, ends
    // the unknown-option message ("for sync push").
    explicit CommandLine(std::string command, std::string scope = {});

    CommandLine &flag(const std::string &name, bool &target);
    CommandLine &flag(const std::string &name, std::function<void()> set);
    // missing: what the option needs, as its error says it ("a name": "--sign-off needs a name").
    CommandLine &text(const std::string &name, std::string &target, const std::string &missing = "a value");
    // Every argument up to the next option ("--id a b --id c"): one at least.
    CommandLine &list(const std::string &name, std::vector<std::string> &target);
    // Repeatable: each one adds its value.
    CommandLine &texts(const std::string &name, std::vector<std::string> &target, const std::string &missing = "a value");
    CommandLine &count(const std::string &name, int min, int max, int &target);
    // One of the words given ("--progress takes bar, json or none").
    CommandLine &choice(const std::string &name, std::string &target, const std::vector<std::string> &choices);
    // 0 or more, as large as it comes.
    CommandLine &wholeNumber(const std::string &name, std::int64_t &target);
    CommandLine &value(const std::string &name, Take take, const std::string &missing = "a value");
    // What is not an option (a word not starting with "--"); without this, such a word is a mistake.
    CommandLine &words(Take take);
    CommandLine &words(std::vector<std::string> &target);
    // Exactly one such word at most; a second one is the mistake `tooMany` says.
    CommandLine &word(std::string &target, const std::string &tooMany);

    // The first word names a command: it and everything after it are the command's, not these options'.
    CommandLine &command(std::string &name, std::vector<std::string> &rest);

    // Reads args from `from` on. On a mistake prints it (usageError) and returns false.
    bool parse(const std::vector<std::string> &args, std::size_t from = 0) const;

private:
    struct Option
    {
        std::string name;
        bool takesValue = false;
        std::string missing;
        Take take; // for a flag: called with an empty text
        bool takesList = false;
    };

    std::string problemIn(const std::vector<std::string> &args, std::size_t from) const;
    const Option *find(const std::string &name) const;

    std::string m_command;
    std::string m_scope;
    std::vector<Option> m_options;
    Take m_words;
    std::string *m_commandName = nullptr;
    std::vector<std::string> *m_commandArgs = nullptr;
};
