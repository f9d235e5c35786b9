#include "JsonPath.h"

#include <stdexcept>

namespace steward {

JsonPath::JsonPath(const std::string &text)
    : m_text(text)
{
    if (text.rfind("$", 0) != 0)
        throw std::invalid_argument("JSON path '" + text + "' does not start with '$'");
    std::size_t pos = 1;
    while (pos < text.size()) {
        if (text.compare(pos, 3, "[*]") == 0) {
            m_steps.push_back(Step{});
            pos += 3;
            continue;
        }
        if (text[pos] != '.')
            throw std::invalid_argument("JSON path '" + text + "' has an unexpected character at offset "
                                        + std::to_string(pos));
        const std::size_t start = ++pos;
        while (pos < text.size() && text[pos] != '.' && text[pos] != '[')
            ++pos;
        if (pos == start)
            throw std::invalid_argument("JSON path '" + text + "' has an empty property name");
        m_steps.push_back(Step{text.substr(start, pos - start)});
    }
}

bool JsonPath::hasArrayStep() const
{
    for (const Step &step : m_steps)
        if (step.isArray())
            return true;
    return false;
}

std::size_t JsonPath::arrayPrefixLength() const
{
    std::size_t length = 0;
    for (std::size_t i = 0; i < m_steps.size(); ++i)
        if (m_steps[i].isArray())
            length = i + 1;
    return length;
}

namespace {

void collect(const Json &node, const std::vector<JsonPath::Step> &steps, std::size_t stepIndex,
             std::string &path, std::vector<std::size_t> &indices, std::vector<JsonPath::Match> &out)
{
    if (stepIndex == steps.size()) {
        out.push_back({path, &node, indices});
        return;
    }
    const JsonPath::Step &step = steps[stepIndex];
    const std::size_t pathLength = path.size();
    if (step.isArray()) {
        if (!node.is_array())
            return;
        for (std::size_t i = 0; i < node.size(); ++i) {
            path += "[" + std::to_string(i) + "]";
            indices.push_back(i);
            collect(node[i], steps, stepIndex + 1, path, indices, out);
            indices.pop_back();
            path.resize(pathLength);
        }
        return;
    }
    if (!node.is_object())
        return;
    auto it = node.find(step.property);
    if (it == node.end())
        return;
    path += "." + step.property;
    collect(*it, steps, stepIndex + 1, path, indices, out);
    path.resize(pathLength);
}

} // namespace

std::vector<JsonPath::Match> JsonPath::select(const Json &document) const
{
    std::vector<Match> out;
    std::string path = "$";
    std::vector<std::size_t> indices;
    collect(document, m_steps, 0, path, indices, out);
    return out;
}

const Json *JsonPath::resolve(const Json &document, const std::vector<std::size_t> &indices) const
{
    const Json *node = &document;
    std::size_t arrayStep = 0;
    for (const Step &step : m_steps) {
        if (step.isArray()) {
            if (!node->is_array() || arrayStep >= indices.size() || indices[arrayStep] >= node->size())
                return nullptr;
            node = &(*node)[indices[arrayStep++]];
        } else {
            if (!node->is_object())
                return nullptr;
            auto it = node->find(step.property);
            if (it == node->end())
                return nullptr;
            node = &*it;
        }
    }
    return node;
}

bool JsonPath::assign(Json &document, const std::vector<std::size_t> &indices, const Json &value) const
{
    Json *node = &document;
    std::size_t arrayStep = 0;
    for (const Step &step : m_steps) {
        if (step.isArray()) {
            if (!node->is_array() || arrayStep >= indices.size() || indices[arrayStep] >= node->size())
                return false;
            node = &(*node)[indices[arrayStep++]];
        } else {
            if (node->is_null())
                *node = Json::object();
            if (!node->is_object())
                return false;
            node = &(*node)[step.property];
        }
    }
    *node = value;
    return true;
}

std::string concretePath(const JsonPath &path, const std::vector<std::size_t> &indices, std::size_t stepCount)
{
    std::string out = "$";
    std::size_t arrayStep = 0;
    for (std::size_t i = 0; i < stepCount && i < path.steps().size(); ++i) {
        const JsonPath::Step &step = path.steps()[i];
        if (step.isArray())
            out += "[" + (arrayStep < indices.size() ? std::to_string(indices[arrayStep++]) : std::string("*"))
                   + "]";
        else
            out += "." + step.property;
    }
    return out;
}

} // namespace steward
