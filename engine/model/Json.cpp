#include "Json.h"
#include "Text.h"

#include <QString>

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <vector>

namespace steward {

namespace {

struct DepthExceeded
{
};

// Whether no container in the text nests deeper than maxDepth, counting brackets outside strings.
// For text that is not JSON the answer may be anything; the parser then reports the error.
bool nestsAtMost(std::string_view text, int maxDepth)
{
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++depth > maxDepth)
                return false;
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return true;
}

// Texts up to this size are read by a parser each thread keeps (it keeps buffers for the largest it
// read); a larger one (a page a pull fetched, an ApiSchema file) gets a parser of its own, freed with
// it. That parser holds about nine bytes a byte of text, so larger texts (a 200 MB import) go
// nlohmann's way.
constexpr std::size_t kLargestQuickRead = 64 * 1024;
constexpr std::size_t kLargestOwnParserRead = 16 * 1024 * 1024;
// simdjson refuses what nests deeper than this, so that what it reads needs no depth check of its
// own (a pass over the text that cost 2% of an import); deeper text goes the checked way. Ed-Fi
// documents nest a few levels.
constexpr int kDeepestQuickRead = 64;

Json jsonOf(simdjson::dom::element element)
{
    using Type = simdjson::dom::element_type;
    switch (element.type()) {
    case Type::OBJECT: {
        Json object = Json::object();
        const simdjson::dom::object members = element.get_object().value_unsafe();
        for (const simdjson::dom::key_value_pair member : members)
            object[std::string(member.key)] = jsonOf(member.value); // the last of a repeated key, as nlohmann
        return object;
    }
    case Type::ARRAY: {
        Json array = Json::array();
        const simdjson::dom::array items = element.get_array().value_unsafe();
        for (const simdjson::dom::element item : items)
            array.push_back(jsonOf(item));
        return array;
    }
    case Type::INT64: {
        // nlohmann keeps a number without a sign as unsigned: the same values compare and print alike,
        // but a caller asking is_number_unsigned() gets the answer it always got.
        const std::int64_t value = element.get_int64().value_unsafe();
        return value >= 0 ? Json(static_cast<std::uint64_t>(value)) : Json(value);
    }
    case Type::UINT64:
        return Json(element.get_uint64().value_unsafe());
    case Type::DOUBLE:
        return Json(element.get_double().value_unsafe());
    case Type::STRING:
        return Json(std::string(element.get_string().value_unsafe()));
    case Type::BOOL:
        return Json(element.get_bool().value_unsafe());
    case Type::NULL_VALUE:
        break;
    }
    return Json(nullptr);
}

// simdjson reads a document of an import in about a third of nlohmann's time (107,395 documents:
// 1.4 us against 3.7 us each, the document built alike). It is stricter, never looser: whatever it
// refuses (a byte order mark, an integer beyond 64 bits, nesting deeper than kDeepestQuickRead, any
// error) nlohmann reads again, which also words the error; so the recursion is bounded.
// The thread's parser reads the text; root stays valid until its next call on the same thread.
bool quickParse(std::string_view text, simdjson::dom::element &root)
{
    thread_local simdjson::dom::parser parser;
    // Allocated for small texts; a larger one reallocates, and the depth limit stays through that.
    thread_local const bool ready = parser.allocate(4096, kDeepestQuickRead) == simdjson::SUCCESS;
    if (!ready)
        return false;
    thread_local std::string padded;
    padded.assign(text);
    padded.append(simdjson::SIMDJSON_PADDING, '\0');
    return parser.parse(padded.data(), text.size(), false).get(root) == simdjson::SUCCESS;
}

std::optional<Json> quickRead(std::string_view text)
{
    simdjson::dom::element root;
    if (text.size() <= kLargestQuickRead) {
        if (!quickParse(text, root))
            return std::nullopt;
        return jsonOf(root);
    }
    simdjson::dom::parser parser;
    if (parser.allocate(text.size(), kDeepestQuickRead) != simdjson::SUCCESS)
        return std::nullopt;
    const simdjson::padded_string padded(text);
    if (parser.parse(padded).get(root) != simdjson::SUCCESS)
        return std::nullopt;
    return jsonOf(root);
}

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
        // The guard's callback costs about a fifth of a parse; text that cannot reach the limit
        // (nearly all) is parsed without it.
        if (text.size() <= kLargestOwnParserRead && maxDepth >= kDeepestQuickRead)
            result.value = quickRead(text);
        if (result.value)
            ; // nests within kDeepestQuickRead: no depth to check
        else if (nestsAtMost(text, maxDepth))
            result.value = Json::parse(text.begin(), text.end(), nullptr, true, false);
        else
            result.value = Json::parse(text.begin(), text.end(), depthGuard, true, false);
    } catch (const DepthExceeded &) {
        result.error = "JSON nests deeper than " + std::to_string(maxDepth) + " levels";
    } catch (const Json::exception &e) {
        // Syntax errors (parse_error) and numbers beyond a double (out_of_range 406: "1e999") alike;
        // the latter escaped before and ended steward-cli. nlohmann's message names the byte
        // position or the offending token; only its "[json.exception.x.n] " tag is dropped.
        std::string message = e.what();
        const std::size_t tagEnd = message.find("] ");
        if (message.rfind("[json.exception.", 0) == 0 && tagEnd != std::string::npos)
            message = message.substr(tagEnd + 2);
        // The message quotes the bytes last read, which may be the very invalid UTF-8 it reports;
        // those became a draft's problem and the import report, whose dump() then threw.
        const QString text = QString::fromUtf8(message.data(), static_cast<qsizetype>(message.size()));
        result.error = "invalid JSON: " + text.toStdString();
    }
    return result;
}

namespace {

// nlohmann's own text of a value, for what the quick writer leaves to it.
void appendAsNlohmannWrites(const Json &value, std::string &out)
{
    out += value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Bytes written as they are in ASCII text: not a control character, quote, backslash or non-ASCII.
constexpr std::array<bool, 256> kPlainAscii = [] {
    std::array<bool, 256> plain{};
    for (int byte = 0x20; byte < 0x80; ++byte)
        plain[byte] = byte != '"' && byte != '\\';
    return plain;
}();

void appendQuoted(const std::string &text, std::string &out)
{
    const auto isPlain = [](char c) { return kPlainAscii[static_cast<unsigned char>(c)]; };
    const auto firstOther = std::find_if_not(text.begin(), text.end(), isPlain);
    if (firstOther == text.end()) { // nearly every text
        out += '"';
        out += text;
        out += '"';
        return;
    }
    // Not UTF-8: nlohmann's writer replaces what is invalid, byte run by byte run.
    const bool ascii =
        std::all_of(firstOther, text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    if (!ascii && !simdjson::validate_utf8(text.data(), text.size())) {
        appendAsNlohmannWrites(Json(text), out);
        return;
    }
    out += '"';
    out.append(text.begin(), firstOther);
    const char *run = text.data() + (firstOther - text.begin());
    const char *const end = text.data() + text.size();
    for (const char *p = run; p != end; ++p) {
        const auto byte = static_cast<unsigned char>(*p);
        if (byte >= 0x20 && byte != '"' && byte != '\\')
            continue;
        out.append(run, p);
        run = p + 1;
        out += '\\';
        switch (byte) {
        case '"':
            out += '"';
            break;
        case '\\':
            out += '\\';
            break;
        case '\b':
            out += 'b';
            break;
        case '\t':
            out += 't';
            break;
        case '\n':
            out += 'n';
            break;
        case '\f':
            out += 'f';
            break;
        case '\r':
            out += 'r';
            break;
        default:
            out += "u00";
            appendLowerHex(out, &byte, 1);
        }
    }
    out.append(run, end);
    out += '"';
}

// The text nlohmann's dump(-1) gives, byte for byte (tst_json and fuzz_validator hold the two
// together), written without its per-byte UTF-8 state machine and output adapter: every stored
// document is written once this way, and nlohmann's writer was 5% of an import's CPU.
void appendJson(const Json &value, std::string &out)
{
    switch (value.type()) {
    case Json::value_t::object: {
        out += '{';
        bool first = true;
        for (const auto &[key, member] : value.get_ref<const Json::object_t &>()) {
            if (!first)
                out += ',';
            first = false;
            appendQuoted(key, out);
            out += ':';
            appendJson(member, out);
        }
        out += '}';
        return;
    }
    case Json::value_t::array: {
        out += '[';
        bool first = true;
        for (const Json &item : value.get_ref<const Json::array_t &>()) {
            if (!first)
                out += ',';
            first = false;
            appendJson(item, out);
        }
        out += ']';
        return;
    }
    case Json::value_t::string:
        appendQuoted(value.get_ref<const std::string &>(), out);
        return;
    case Json::value_t::boolean:
        out += value.get<bool>() ? "true" : "false";
        return;
    case Json::value_t::null:
        out += "null";
        return;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: {
        char digits[24];
        const std::to_chars_result written =
            value.is_number_unsigned()
                ? std::to_chars(digits, digits + sizeof digits, value.get<std::uint64_t>())
                : std::to_chars(digits, digits + sizeof digits, value.get<std::int64_t>());
        out.append(digits, written.ptr);
        return;
    }
    default: // floating point (its shortest form and ".0"), binary, discarded
        appendAsNlohmannWrites(value, out);
    }
}

} // namespace

std::string dumpJson(const Json &value)
{
    std::string out;
    out.reserve(256);
    appendJson(value, out);
    return out;
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

namespace {

// The leaves of dumpJson's text in the order the text gives them, as naturalKeyText walks the
// document. False when the text is not in that order (a key not after the one before it), so the
// caller takes the slow way.
class LeafWalk
{
public:
    std::string out;
    int topKeys = 0;
    std::optional<std::string_view> codeValue;
    std::optional<std::string_view> namespaceValue;

    bool walk(simdjson::dom::element element, bool topMember, std::string_view key, int depth)
    {
        using Type = simdjson::dom::element_type;
        switch (element.type()) {
        case Type::OBJECT: {
            const simdjson::dom::object members = element.get_object().value_unsafe();
            std::optional<std::string_view> last;
            for (const simdjson::dom::key_value_pair member : members) {
                if (last && !(*last < member.key))
                    return false; // not the order a document walks its members in
                last = member.key;
                if (depth == 0)
                    ++topKeys;
                if (!walk(member.value, depth == 0, member.key, depth + 1))
                    return false;
            }
            return true;
        }
        case Type::ARRAY: {
            const simdjson::dom::array items = element.get_array().value_unsafe();
            for (const simdjson::dom::element item : items)
                if (!walk(item, false, {}, depth + 1))
                    return false;
            return true;
        }
        case Type::STRING: {
            const std::string_view value = element.get_string().value_unsafe();
            if (topMember && key == "codeValue")
                codeValue = value;
            else if (topMember && key == "namespace")
                namespaceValue = value;
            leaf(value);
            return true;
        }
        case Type::INT64:
            leaf(std::to_string(element.get_int64().value_unsafe()));
            return true;
        case Type::UINT64:
            leaf(std::to_string(element.get_uint64().value_unsafe()));
            return true;
        case Type::DOUBLE:
            leaf(Json(element.get_double().value_unsafe()).dump());
            return true;
        case Type::BOOL:
            leaf(element.get_bool().value_unsafe() ? "true" : "false");
            return true;
        case Type::NULL_VALUE:
            leaf("null");
            return true;
        }
        return false;
    }

private:
    void leaf(std::string_view text)
    {
        if (!out.empty())
            out += " / ";
        out += text;
    }
};

} // namespace

std::string naturalKeyOfIdentityText(std::string_view identityText)
{
    // The natural-key index calls this for every document it stores and the documents view for
    // every row it reads: simdjson and a walk of its tape, about a tenth of building a document.
    LeafWalk leaves;
    simdjson::dom::element root;
    if (identityText.size() <= kLargestQuickRead && quickParse(identityText, root)
        && leaves.walk(root, false, {}, 0)) {
        const bool descriptorForm = root.type() == simdjson::dom::element_type::OBJECT && leaves.topKeys == 2
                                    && leaves.codeValue && leaves.namespaceValue;
        if (descriptorForm)
            return std::string(*leaves.namespaceValue) + "#" + std::string(*leaves.codeValue);
        return std::move(leaves.out);
    }
    JsonParseResult slow = parseJson(identityText);
    return slow.value ? naturalKeyText(*slow.value) : std::string();
}

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
