#include "SearchTerms.h"

#include <array>
#include <cctype>
#include <string_view>

namespace steward {

namespace {

constexpr std::size_t kMaxTerms = 64;
constexpr std::size_t kMaxValueLength = 200;

// Whether text ends with a lower-case suffix, in any case: a body's every key is asked, so no
// lowered copy is made.
bool endsWithInAnyCase(std::string_view text, std::string_view lowerSuffix)
{
    if (text.size() < lowerSuffix.size())
        return false;
    const std::string_view tail = text.substr(text.size() - lowerSuffix.size());
    for (std::size_t i = 0; i < tail.size(); ++i) {
        const char c = tail[i] >= 'A' && tail[i] <= 'Z' ? static_cast<char>(tail[i] - 'A' + 'a') : tail[i];
        if (c != lowerSuffix[i])
            return false;
    }
    return true;
}

// studentUniqueId, schoolId, sectionIdentifier, courseCode, identificationCode, codeValue, firstName,
// lastSurname, courseTitle, nameOfInstitution, electronicMailAddress...
bool isNameLike(std::string_view key)
{
    static constexpr std::array<std::string_view, 9> kEndings = {"id",   "identifier", "code",        "codevalue", "name",
                                                                 "surname", "title", "institution", "mailaddress"};
    for (std::string_view ending : kEndings)
        if (endsWithInAnyCase(key, ending))
            return true;
    return false;
}

void collect(const Json &object, std::string &out, std::size_t &count)
{
    for (auto it = object.begin(); it != object.end() && count < kMaxTerms; ++it) {
        const std::string &key = it.key();
        const Json &value = it.value();
        if (value.is_array()) {
            for (const Json &item : value)
                if (item.is_object())
                    collect(item, out, count);
            continue;
        }
        if (value.is_object() || key.ends_with("Reference") || !isNameLike(key))
            continue;
        std::string text;
        if (value.is_string())
            text = value.get<std::string>();
        else if (value.is_number_integer())
            text = value.dump();
        if (text.empty() || text.size() > kMaxValueLength || text.rfind("uri://", 0) == 0)
            continue;
        if (!out.empty())
            out += ' ';
        out += text;
        ++count;
    }
}

} // namespace

std::string searchTermsOf(const Json &body)
{
    std::string out;
    std::size_t count = 0;
    if (body.is_object())
        collect(body, out, count);
    return out;
}

std::string searchMatchExpression(const std::string &typed)
{
    // Words split as FTS5's unicode61 tokenizer splits ASCII (letters and digits are word characters);
    // bytes of other UTF-8 characters stay in the word. One token per quoted string: the index keeps
    // no positions (detail=none), so a phrase could not be asked.
    std::string expression;
    std::string word;
    auto flush = [&] {
        if (word.size() >= 2)
            expression += (expression.empty() ? "" : " AND ") + std::string("\"") + word + "\"*";
        word.clear();
    };
    for (char c : typed) {
        const unsigned char byte = static_cast<unsigned char>(c);
        if (byte >= 0x80 || std::isalnum(byte))
            word += c;
        else
            flush();
    }
    flush();
    return expression;
}

} // namespace steward
