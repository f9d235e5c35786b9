#include "Json.h"

namespace steward {

namespace {

struct DepthExceeded
{
};

} // namespace

JsonParseResult parseJson(std::string_view text, const JsonParseLimits &limits)
{
    JsonParseResult result;
    if (text.size() > limits.maxBytes) {
        result.error = "input is " + std::to_string(text.size()) + " bytes, over the limit of "
                       + std::to_string(limits.maxBytes) + " bytes";
        return result;
    }
    const int maxDepth = limits.maxDepth;
    auto depthGuard = [maxDepth](int depth, Json::parse_event_t event, Json &) {
        // depth counts the container being opened; the document itself is depth 1 once opened.
        if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start)
            && depth >= maxDepth)
            throw DepthExceeded{};
        return true;
    };
    try {
        result.value = Json::parse(text.begin(), text.end(), depthGuard, true, false);
    } catch (const DepthExceeded &) {
        result.error = "JSON nests deeper than " + std::to_string(maxDepth) + " levels";
    } catch (const Json::parse_error &e) {
        // nlohmann's message already names the byte position and the offending token.
        std::string message = e.what();
        const std::string prefix = "[json.exception.parse_error.101] ";
        if (message.rfind(prefix, 0) == 0)
            message = message.substr(prefix.size());
        result.error = "invalid JSON: " + message;
    }
    return result;
}

std::string dumpJson(const Json &value)
{
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

namespace {

void appendLeaves(const Json &value, std::string &out)
{
    if (value.is_object()) {
        for (const auto &item : value.items())
            appendLeaves(item.value(), out);
        return;
    }
    if (value.is_array()) {
        for (const Json &item : value)
            appendLeaves(item, out);
        return;
    }
    if (!out.empty())
        out += " / ";
    out += value.is_string() ? value.get<std::string>() : value.dump();
}

} // namespace

std::string naturalKeyText(const Json &identity)
{
    if (identity.is_object() && identity.size() == 2 && identity.contains("namespace")
        && identity.contains("codeValue") && identity["namespace"].is_string() && identity["codeValue"].is_string())
        return identity["namespace"].get<std::string>() + "#" + identity["codeValue"].get<std::string>();
    std::string out;
    appendLeaves(identity, out);
    return out;
}

} // namespace steward
