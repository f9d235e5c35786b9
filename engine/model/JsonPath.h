#pragma once

#include "Json.h"

#include <string>
#include <vector>

namespace steward {

// The JSON paths ApiSchema uses: "$.a.b[*].c". Property steps and "[*]" array steps only.
class JsonPath
{
public:
    struct Step
    {
        std::string property; // empty for an array step
        bool isArray() const { return property.empty(); }
    };

    struct Match
    {
        std::string concretePath; // "$.a.b[0].c"
        const Json *value;
        std::vector<std::size_t> indices; // one per [*] step, in order
    };

    JsonPath() = default;
    // Throws std::invalid_argument naming the path when it is not of the supported form.
    explicit JsonPath(const std::string &text);

    const std::string &text() const { return m_text; }
    const std::vector<Step> &steps() const { return m_steps; }
    bool hasArrayStep() const;
    // Number of leading steps up to and including the last "[*]" (0 when none).
    std::size_t arrayPrefixLength() const;

    // Every value at this path, in document order. Missing properties yield nothing.
    std::vector<Match> select(const Json &document) const;
    // The value at this path with [*] steps bound to the given indices, or nullptr.
    const Json *resolve(const Json &document, const std::vector<std::size_t> &indices) const;
    // Sets the value, creating objects on the way; [*] steps bound to indices. False when blocked.
    bool assign(Json &document, const std::vector<std::size_t> &indices, const Json &value) const;

    bool operator==(const JsonPath &other) const { return m_text == other.m_text; }

private:
    std::string m_text;
    std::vector<Step> m_steps;
};

// "$.a[2].b" from steps bound to indices, for error keys.
std::string concretePath(const JsonPath &path, const std::vector<std::size_t> &indices, std::size_t stepCount);

} // namespace steward
