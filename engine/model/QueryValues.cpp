#include "QueryValues.h"
#include "Text.h"

#include "ApiSchema.h"

#include <QCryptographicHash>

#include <algorithm>
#include <charconv>

namespace steward {

namespace {

// A value's equality key as the store compares it: the type's rank, then the number or the
// ASCII-lower-cased text (booleans are the numbers 0 and 1, as SQLite stores them).
struct ValueKey
{
    int rank = 0; // 0 number, 1 text
    double number = 0;
    std::string text;

    bool operator==(const ValueKey &other) const
    {
        return rank == other.rank && number == other.number && text == other.text;
    }
};

ValueKey keyOf(const Json &value)
{
    ValueKey key;
    if (value.is_boolean()) {
        key.number = value.get<bool>() ? 1 : 0;
    } else if (value.is_number()) {
        key.number = value.get<double>();
    } else {
        key.rank = 1;
        key.text = value.get<std::string>();
        lowerAsciiInPlace(key.text);
    }
    return key;
}

void collectScalars(const Json &node, const std::vector<JsonPath::Step> &steps, std::size_t stepIndex,
                    std::vector<const Json *> &out)
{
    if (stepIndex == steps.size()) {
        if (node.is_string() || node.is_number() || node.is_boolean())
            out.push_back(&node);
        return;
    }
    const JsonPath::Step &step = steps[stepIndex];
    if (step.isArray()) {
        if (node.is_array())
            for (const Json &item : node)
                collectScalars(item, steps, stepIndex + 1, out);
        return;
    }
    if (!node.is_object())
        return;
    auto it = node.find(step.property);
    if (it != node.end())
        collectScalars(*it, steps, stepIndex + 1, out);
}


// Gathers one field's values from its paths, each once.
class FieldValues
{
public:
    void clear()
    {
        m_found.clear();
        m_seen.clear();
    }
    void collect(const JsonPath &path, const Json &body) { collectScalars(body, path.steps(), 0, m_found); }
    // The distinct values collected, in document order.
    template <typename Visit> void forEachDistinct(Visit visit)
    {
        for (const Json *value : m_found) {
            ValueKey key = keyOf(*value);
            if (std::find(m_seen.begin(), m_seen.end(), key) != m_seen.end())
                continue;
            m_seen.push_back(std::move(key));
            visit(*value);
        }
    }

private:
    std::vector<const Json *> m_found;
    std::vector<ValueKey> m_seen;
};

} // namespace

std::vector<QueryValue> queryValuesOf(const ResourceSchema &resource, const Json &body)
{
    std::vector<QueryValue> out;
    FieldValues values;
    std::uint32_t position = 0;
    for (const auto &[name, field] : resource.queryFields) {
        values.clear();
        for (const QueryFieldPath &path : field.paths)
            values.collect(path.path, body);
        values.forEachDistinct([&](const Json &value) { out.push_back({position, value}); });
        ++position;
    }
    return out;
}

std::vector<const Json *> fieldValuesOf(const std::vector<JsonPath> &paths, const Json &body)
{
    FieldValues values;
    for (const JsonPath &path : paths)
        values.collect(path, body);
    std::vector<const Json *> out;
    values.forEachDistinct([&](const Json &value) { out.push_back(&value); });
    return out;
}

std::string queryIndexToken(std::int64_t fieldKey, const Json &value)
{
    // Hex keeps any text one word of the index's ASCII tokenizer; past this length a value is held
    // by its SHA-1 instead (still exact in practice, and a word stays short).
    constexpr std::size_t kLongestText = 1024;
    std::string text;
    char kind = 't';
    if (value.is_boolean() || value.is_number()) {
        kind = 'n';
        double number = value.is_boolean() ? (value.get<bool>() ? 1.0 : 0.0) : value.get<double>();
        if (number == 0)
            number = 0; // -0 and 0 compare equal
        char digits[32];
        const std::to_chars_result written = std::to_chars(digits, digits + sizeof digits, number);
        text.assign(digits, written.ptr);
    } else {
        text = value.get<std::string>();
        lowerAsciiInPlace(text);
        if (text.size() > kLongestText) {
            kind = 'h';
            text = QCryptographicHash::hash(QByteArrayView(text.data(), static_cast<qsizetype>(text.size())),
                                            QCryptographicHash::Sha1)
                       .toStdString();
        }
    }
    std::string token = std::to_string(fieldKey);
    token.reserve(token.size() + 1 + 2 * text.size());
    token += kind;
    appendLowerHex(token, text.data(), text.size());
    return token;
}

} // namespace steward
