#include "Validation.h"

#include "Identity.h"
#include "Text.h"

#include <QRegularExpression>
#include <QString>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>

namespace steward {

// Named, not anonymous: DocumentValidator::Compiled holds these types, and a class whose members
// have internal linkage is warned about once the file is compiled inside a unity batch.
namespace compiledschema {

// A group of values that must not repeat among the items of one array.
struct UniquenessGroup
{
    JsonPath arrayPath;                  // "$.gradeLevels" (the array itself)
    std::vector<JsonPath> relativePaths; // inside one item: "$.gradeLevelDescriptor"
};

// valijson 1.0 checks 'pattern' with std::regex, which has no lookbehind (Ed-Fi's descriptor
// patterns use one), and its 'date-time' demands a UTC offset, which Ed-Fi does not. Both
// keywords are taken out of the schema given to valijson and checked here instead.
void stripKeywordsValijsonCannotHandle(Json &schema)
{
    if (!schema.is_object())
        return;
    schema.erase("pattern");
    schema.erase("format");
    schema.erase("$schema");
    if (auto it = schema.find("properties"); it != schema.end() && it->is_object())
        for (auto &property : it->items())
            stripKeywordsValijsonCannotHandle(property.value());
    for (const char *key : {"items", "additionalProperties", "not", "contains"})
        if (auto it = schema.find(key); it != schema.end())
            stripKeywordsValijsonCannotHandle(*it);
    for (const char *key : {"allOf", "anyOf", "oneOf"})
        if (auto it = schema.find(key); it != schema.end() && it->is_array())
            for (Json &sub : *it)
                stripKeywordsValijsonCannotHandle(sub);
}

std::string lastSegment(const std::string &path)
{
    const std::size_t dot = path.find_last_of('.');
    std::string segment = dot == std::string::npos ? path : path.substr(dot + 1);
    const std::size_t bracket = segment.find('[');
    return bracket == std::string::npos ? segment : segment.substr(0, bracket);
}

std::string ordinal(std::size_t n)
{
    const std::size_t mod100 = n % 100;
    const char *suffix = "th";
    if (mod100 < 11 || mod100 > 13) {
        switch (n % 10) {
        case 1: suffix = "st"; break;
        case 2: suffix = "nd"; break;
        case 3: suffix = "rd"; break;
        default: break;
        }
    }
    return std::to_string(n) + suffix;
}

// "$.a[*].b" -> array "$.a", relative "$.b"; nullopt for paths without [*].
std::optional<std::pair<JsonPath, JsonPath>> splitAtLastArray(const JsonPath &path)
{
    const std::size_t prefix = path.arrayPrefixLength();
    if (prefix == 0)
        return std::nullopt;
    std::string arrayText = "$";
    std::string relativeText = "$";
    for (std::size_t i = 0; i < path.steps().size(); ++i) {
        const JsonPath::Step &step = path.steps()[i];
        std::string piece = step.isArray() ? "[*]" : "." + step.property;
        if (i + 1 < prefix)
            arrayText += piece;
        else if (i >= prefix)
            relativeText += piece;
    }
    return std::make_pair(JsonPath(arrayText), JsonPath(relativeText));
}

// JSON Schema patterns are ECMA-262, where '$' (without the multiline flag) matches only at the end
// of the text; PCRE's also matches before a final newline, which let "Ninth grade\n" past Ed-Fi's
// no-trailing-white-space pattern. Each '$' outside a character class becomes '\z'.
QString ecmaPattern(const std::string &pattern)
{
    std::string out;
    bool inClass = false;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '\\' && i + 1 < pattern.size()) {
            out += c;
            out += pattern[++i];
            continue;
        }
        if (inClass && c == ']')
            inClass = false;
        else if (!inClass && c == '[')
            inClass = true;
        else if (!inClass && c == '$') {
            out += "\\z";
            continue;
        }
        out += c;
    }
    return QString::fromStdString(out);
}

const Json *schemaForPath(const Json &root, const JsonPath &path)
{
    const Json *node = &root;
    for (const JsonPath::Step &step : path.steps()) {
        if (step.isArray()) {
            auto it = node->find("items");
            if (it == node->end())
                return nullptr;
            node = &*it;
        } else {
            auto props = node->find("properties");
            if (props == node->end() || !props->contains(step.property))
                return nullptr;
            node = &(*props)[step.property];
        }
    }
    return node;
}

// PCRE's \s without Unicode properties: these six ASCII characters, nothing else.
bool isPatternSpace(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

// The three patterns Ed-Fi puts on nearly every string, checked without a regex: one match per
// string value had cost a lock, a map lookup and a UTF-16 copy (tst_protocol compares these
// against QRegularExpression over many strings). Their '$' is '\z' (see ecmaPattern) and their '.'
// is PCRE's, which stops only at '\n'.
enum class KnownPattern
{
    Other,
    NoOuterSpaceOrEmpty, // ^(?!\s).*(?<!\s)$
    NoOuterSpace,        // ^(?!\s)(.*\S)$
    NotBlank,            // ^(?!\s*$).+
};

KnownPattern knownPattern(const std::string &pattern)
{
    if (pattern == R"(^(?!\s).*(?<!\s)$)")
        return KnownPattern::NoOuterSpaceOrEmpty;
    if (pattern == R"(^(?!\s)(.*\S)$)")
        return KnownPattern::NoOuterSpace;
    if (pattern == R"(^(?!\s*$).+)")
        return KnownPattern::NotBlank;
    return KnownPattern::Other;
}

// Byte-wise is exact: every byte of a multi-byte UTF-8 character is >= 0x80, never space nor '\n'.
bool matchesKnownPattern(KnownPattern pattern, const std::string &text)
{
    switch (pattern) {
    case KnownPattern::NoOuterSpaceOrEmpty:
        if (text.empty())
            return true;
        [[fallthrough]];
    case KnownPattern::NoOuterSpace:
        return !text.empty() && !isPatternSpace(text.front()) && !isPatternSpace(text.back())
               && text.find('\n') == std::string::npos;
    case KnownPattern::NotBlank:
        return !text.empty() && text.front() != '\n'
               && std::any_of(text.begin(), text.end(), [](char c) { return !isPatternSpace(c); });
    case KnownPattern::Other:
        break;
    }
    return false;
}

// The parts of a resource's JSON Schema the normalizer reads, looked up once per resource instead
// of once per value: the keyword lookups and pattern comparisons showed in import profiles.
struct NormalizerNode
{
    bool isSchema = false; // only object schemas are walked
    bool closed = false;   // additionalProperties: false
    std::map<std::string, NormalizerNode, std::less<>> properties;
    std::unique_ptr<NormalizerNode> items;
    std::optional<std::string> format;
    std::optional<std::string> pattern;
    KnownPattern knownPattern = KnownPattern::Other;
};

void buildNormalizerNode(const Json &schema, NormalizerNode &node)
{
    if (!schema.is_object())
        return;
    node.isSchema = true;
    const auto additional = schema.find("additionalProperties");
    node.closed = additional != schema.end() && additional->is_boolean() && !additional->get<bool>();
    if (const auto properties = schema.find("properties"); properties != schema.end() && properties->is_object())
        for (const auto &[name, propertySchema] : properties->items())
            buildNormalizerNode(propertySchema, node.properties[name]);
    if (const auto items = schema.find("items"); items != schema.end()) {
        node.items = std::make_unique<NormalizerNode>();
        buildNormalizerNode(*items, *node.items);
    }
    if (const auto format = schema.find("format"); format != schema.end() && format->is_string())
        node.format = format->get<std::string>();
    if (const auto pattern = schema.find("pattern"); pattern != schema.end() && pattern->is_string()) {
        node.pattern = pattern->get<std::string>();
        node.knownPattern = knownPattern(*node.pattern);
    }
}

// A resource's JSON Schema compiled for one walk that drops what the normalizer drops and checks
// what valijson and the normalizer check, for the documents that pass: most of an import's. Any
// keyword it does not know makes the resource go the full way every time; a document it refuses
// goes the full way too, which words the errors. The tests hold the two to the same verdicts.
struct CompiledProperty;

struct CompiledNode
{
    enum class Type
    {
        Any,
        Object,
        Array,
        String,
        Integer,
        Number,
        Boolean,
        Null,
    };
    Type type = Type::Any;
    bool closed = false;
    std::vector<CompiledProperty> properties; // sorted by name, as Json objects are
    std::vector<std::string> required;
    std::unique_ptr<CompiledNode> items;
    std::optional<std::uint64_t> minItems;
    std::optional<std::uint64_t> maxItems;
    bool uniqueItems = false;
    std::optional<std::uint64_t> minLength;
    std::optional<std::uint64_t> maxLength;
    std::optional<double> minimum;
    std::optional<double> maximum;
    std::optional<std::string> format;
    std::optional<std::string> pattern;
    KnownPattern knownPattern = KnownPattern::Other;
};

// Named rather than a std::pair: a pair may not hold a type still being defined.
struct CompiledProperty
{
    std::string name;
    CompiledNode node;
};

std::optional<std::uint64_t> unsignedKeyword(const Json &value, bool &ok)
{
    if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0)) {
        ok = false;
        return std::nullopt;
    }
    return value.get<std::uint64_t>();
}

bool compileNode(const Json &schema, CompiledNode &node)
{
    if (!schema.is_object())
        return false;
    bool ok = true;
    for (const auto &[keyword, value] : schema.items()) {
        if (keyword == "description" || keyword == "title" || keyword == "$schema") {
            continue;
        } else if (keyword == "type") {
            static const std::map<std::string, CompiledNode::Type> kTypes{
                {"object", CompiledNode::Type::Object},   {"array", CompiledNode::Type::Array},
                {"string", CompiledNode::Type::String},   {"integer", CompiledNode::Type::Integer},
                {"number", CompiledNode::Type::Number},   {"boolean", CompiledNode::Type::Boolean},
                {"null", CompiledNode::Type::Null}};
            auto it = value.is_string() ? kTypes.find(value.get<std::string>()) : kTypes.end();
            if (it == kTypes.end())
                return false;
            node.type = it->second;
        } else if (keyword == "properties") {
            if (!value.is_object())
                return false;
            for (const auto &[name, propertySchema] : value.items()) {
                node.properties.push_back(CompiledProperty{name, CompiledNode()});
                if (!compileNode(propertySchema, node.properties.back().node))
                    return false;
            }
        } else if (keyword == "additionalProperties") {
            if (!value.is_boolean())
                return false;
            node.closed = !value.get<bool>();
        } else if (keyword == "required") {
            if (!value.is_array())
                return false;
            for (const Json &name : value) {
                if (!name.is_string())
                    return false;
                node.required.push_back(name.get<std::string>());
            }
        } else if (keyword == "items") {
            node.items = std::make_unique<CompiledNode>();
            if (!compileNode(value, *node.items))
                return false;
        } else if (keyword == "minItems") {
            node.minItems = unsignedKeyword(value, ok);
        } else if (keyword == "maxItems") {
            node.maxItems = unsignedKeyword(value, ok);
        } else if (keyword == "uniqueItems") {
            if (!value.is_boolean())
                return false;
            node.uniqueItems = value.get<bool>();
        } else if (keyword == "minLength") {
            node.minLength = unsignedKeyword(value, ok);
        } else if (keyword == "maxLength") {
            node.maxLength = unsignedKeyword(value, ok);
        } else if (keyword == "minimum" || keyword == "maximum") {
            if (!value.is_number())
                return false;
            (keyword == "minimum" ? node.minimum : node.maximum) = value.get<double>();
        } else if (keyword == "format" || keyword == "pattern") {
            if (!value.is_string())
                return false;
            (keyword == "format" ? node.format : node.pattern) = value.get<std::string>();
        } else {
            return false;
        }
    }
    if (node.pattern)
        node.knownPattern = knownPattern(*node.pattern);
    return ok;
}

// valijson's length of a string: its UTF-8 characters up to the first NUL.
std::uint64_t characterCount(const std::string &text)
{
    std::uint64_t count = 0;
    for (char c : text) {
        if (c == '\0')
            break;
        count += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    }
    return count;
}

} // namespace compiledschema

using namespace compiledschema;

// PCRE2 (QRegularExpression), not std::regex: libstdc++'s matcher recurses once per character of a
// repetition, so a time with a megabyte of fractional-second digits overflowed the stack.
bool matchesFormat(const std::string &format, const std::string &value)
{
    static const QString dateText = QStringLiteral(R"((\d{4})-(\d{2})-(\d{2}))");
    static const QString timeText = QStringLiteral(R"(([01]\d|2[0-3]):([0-5]\d):([0-5]\d|60)(\.\d+)?)")
                                    + QStringLiteral(R"(([Zz]|[+-]([01]\d|2[0-3]):?[0-5]\d)?)");
    static const QRegularExpression date(QRegularExpression::anchoredPattern(dateText));
    static const QRegularExpression dateTime(
        QRegularExpression::anchoredPattern(dateText + QStringLiteral("[Tt ]") + timeText));
    static const QRegularExpression time(QRegularExpression::anchoredPattern(timeText));
    if (format == "date" || format == "date-time") {
        const QRegularExpression &regex = format == "date" ? date : dateTime;
        const QRegularExpressionMatch match = regex.match(QString::fromStdString(value));
        return match.hasMatch()
               && isCalendarDay(match.captured(1).toInt(), match.captured(2).toInt(), match.captured(3).toInt());
    }
    if (format == "time")
        return time.match(QString::fromStdString(value)).hasMatch();
    return true; // formats Ed-Fi does not use are not enforced
}

std::string describeFormat(const std::string &format)
{
    if (format == "date")
        return "a date (YYYY-MM-DD)";
    if (format == "date-time")
        return "a date and time (YYYY-MM-DDThh:mm:ss, optionally with a UTC offset)";
    if (format == "time")
        return "a time (hh:mm:ss)";
    return "'" + format + "'";
}


struct DocumentValidator::Compiled
{
    std::optional<CompiledNode> walk; // absent: the schema has a keyword the one walk does not know
    NormalizerNode normalizer;
    Json strippedSchema;
    valijson::Schema schema;
    std::vector<UniquenessGroup> uniqueness;
};

struct DocumentValidator::Cache
{
    const Model &model;
    std::mutex mutex;
    std::unordered_map<const ResourceSchema *, std::unique_ptr<Compiled>> compiled;
    mutable std::mutex regexMutex;
    mutable std::unordered_map<std::string, QRegularExpression> regexes;

    explicit Cache(const Model &m)
        : model(m)
    {
    }

    QRegularExpression regex(const std::string &pattern) const
    {
        std::lock_guard<std::mutex> lock(regexMutex);
        auto it = regexes.find(pattern);
        if (it == regexes.end())
            it = regexes.emplace(pattern, QRegularExpression(ecmaPattern(pattern))).first;
        return it->second;
    }
};

DocumentValidator::DocumentValidator(const Model &model)
    : m_cache(std::make_unique<Cache>(model))
{
}

DocumentValidator::~DocumentValidator() = default;

const DocumentValidator::Compiled &DocumentValidator::compiled(const ResourceSchema &resource) const
{
    std::lock_guard<std::mutex> lock(m_cache->mutex);
    auto it = m_cache->compiled.find(&resource);
    if (it != m_cache->compiled.end())
        return *it->second;

    auto compiled = std::make_unique<Compiled>();
    buildNormalizerNode(resource.jsonSchema, compiled->normalizer);
    compiled->walk.emplace();
    if (!compileNode(resource.jsonSchema, *compiled->walk))
        compiled->walk.reset();
    compiled->strippedSchema = resource.jsonSchema;
    stripKeywordsValijsonCannotHandle(compiled->strippedSchema);
    try {
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        valijson::adapters::NlohmannJsonAdapter adapter(compiled->strippedSchema);
        parser.populateSchema(adapter, compiled->schema);
    } catch (const std::exception &e) {
        throw SchemaLoadError(resource.project->sourceFile,
                              "$.resourceSchemas." + resource.endpointName + ".jsonSchemaForInsert",
                              std::string("cannot be compiled: ") + e.what());
    }

    // Ed-Fi rejects repeated items in arrays of references or descriptors even where the model
    // lists no arrayUniquenessConstraints; those arrays have items with a single property.
    std::set<std::string> seen;
    auto addGroup = [&](const std::vector<JsonPath> &paths) {
        std::optional<JsonPath> arrayPath;
        std::vector<JsonPath> relative;
        for (const JsonPath &path : paths) {
            auto split = splitAtLastArray(path);
            if (!split || (arrayPath && !(split->first == *arrayPath)))
                return;
            arrayPath = split->first;
            relative.push_back(split->second);
        }
        if (!arrayPath)
            return;
        std::string key = arrayPath->text();
        for (const JsonPath &r : relative)
            key += "|" + r.text();
        if (seen.insert(key).second)
            compiled->uniqueness.push_back({*arrayPath, relative});
    };
    for (const std::vector<JsonPath> &constraint : resource.arrayUniquenessConstraints)
        addGroup(constraint);
    auto singlePropertyItems = [&](const JsonPath &itemMemberPath) {
        auto split = splitAtLastArray(itemMemberPath);
        if (!split || split->second.steps().size() != 1)
            return false;
        const Json *arraySchema = schemaForPath(resource.jsonSchema, split->first);
        if (arraySchema == nullptr || !arraySchema->contains("items"))
            return false;
        const Json &items = (*arraySchema)["items"];
        return items.contains("properties") && items["properties"].size() == 1;
    };
    for (const DescriptorMapping &descriptor : resource.descriptors)
        if (singlePropertyItems(descriptor.path))
            addGroup({descriptor.path});
    for (const ReferenceMapping &reference : resource.references)
        if (singlePropertyItems(reference.objectPath)) {
            std::vector<JsonPath> paths;
            for (const ReferencePathPair &pair : reference.paths)
                paths.push_back(pair.referencePath);
            addGroup(paths);
        }

    const Compiled &result = *compiled;
    m_cache->compiled.emplace(&resource, std::move(compiled));
    return result;
}

void DocumentValidator::compileAll() const
{
    for (const ResourceSchema *resource : m_cache->model.resources())
        compiled(*resource);
}

namespace {

class Normalizer
{
public:
    Normalizer(const std::function<QRegularExpression(const std::string &)> &regex, ValidationErrors &errors)
        : m_regex(regex)
        , m_errors(errors)
    {
    }

    void walk(const NormalizerNode &schema, Json &value)
    {
        m_path = "$";
        walkAt(schema, value);
    }

private:
    // m_path is the value's path while walkAt runs: one buffer grown and cut back, since building a
    // path string for every value showed in import profiles and only an error needs one.
    void walkAt(const NormalizerNode &schema, Json &value)
    {
        if (!schema.isSchema)
            return;
        const std::size_t pathLength = m_path.size();
        if (value.is_object()) {
            for (auto it = value.begin(); it != value.end();) {
                const auto found = schema.properties.find(it.key());
                const NormalizerNode *propertySchema = found == schema.properties.end() ? nullptr : &found->second;
                if (it->is_null() || (schema.closed && propertySchema == nullptr)) {
                    it = value.erase(it);
                    continue;
                }
                if (propertySchema != nullptr) {
                    m_path += '.';
                    m_path += it.key();
                    walkAt(*propertySchema, it.value());
                    m_path.resize(pathLength);
                }
                ++it;
            }
        } else if (value.is_array()) {
            if (schema.items)
                for (std::size_t i = 0; i < value.size(); ++i) {
                    m_path += '[';
                    m_path += std::to_string(i);
                    m_path += ']';
                    walkAt(*schema.items, value[i]);
                    m_path.resize(pathLength);
                }
        } else if (value.is_string()) {
            checkString(schema, value.get_ref<const std::string &>());
        }
    }

    void checkString(const NormalizerNode &schema, const std::string &text)
    {
        if (schema.format && !matchesFormat(*schema.format, text))
            m_errors[m_path].push_back(lastSegment(m_path) + " must be " + describeFormat(*schema.format) + "; '" + text
                                       + "' is not.");
        if (!schema.pattern)
            return;
        bool matches = true;
        if (schema.knownPattern != KnownPattern::Other) {
            matches = matchesKnownPattern(schema.knownPattern, text);
        } else {
            const QRegularExpression regex = m_regex(*schema.pattern);
            matches = !regex.isValid() || regex.match(QString::fromStdString(text)).hasMatch();
        }
        if (!matches)
            m_errors[m_path].push_back(lastSegment(m_path) + " does not match the required pattern " + *schema.pattern
                                       + "."
                                       + (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))
                                                  || std::isspace(static_cast<unsigned char>(text.back()))
                                              ? " It must not start or end with white space."
                                              : ""));
    }

    std::function<QRegularExpression(const std::string &)> m_regex;
    ValidationErrors &m_errors;
    std::string m_path;
};

// The one walk over a compiled schema: drops nulls and the properties a closed object does not
// know (as the normalizer does), and answers whether every keyword holds.
class CompiledWalk
{
public:
    explicit CompiledWalk(const std::function<QRegularExpression(const std::string &)> &regex)
        : m_regex(regex)
    {
    }

    bool passes(const CompiledNode &node, Json &value) const
    {
        using Type = CompiledNode::Type;
        switch (value.type()) {
        case Json::value_t::object:
            return (node.type == Type::Any || node.type == Type::Object) && passesObject(node, value);
        case Json::value_t::array:
            return (node.type == Type::Any || node.type == Type::Array) && passesArray(node, value);
        case Json::value_t::string:
            return (node.type == Type::Any || node.type == Type::String)
                   && passesString(node, value.get_ref<const std::string &>());
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned:
            return (node.type == Type::Any || node.type == Type::Integer || node.type == Type::Number)
                   && inRange(node, value.get<double>());
        case Json::value_t::number_float:
            return (node.type == Type::Any || node.type == Type::Number) && inRange(node, value.get<double>());
        case Json::value_t::boolean:
            return node.type == Type::Any || node.type == Type::Boolean;
        case Json::value_t::null:
            return node.type == Type::Any || node.type == Type::Null;
        default:
            return false;
        }
    }

private:
    bool passesObject(const CompiledNode &node, Json &value) const
    {
        bool ok = true;
        // Both are sorted by name: one pass over the two.
        auto property = node.properties.begin();
        for (auto it = value.begin(); it != value.end();) {
            const std::string &key = it.key();
            while (property != node.properties.end() && property->name < key)
                ++property;
            const bool known = property != node.properties.end() && property->name == key;
            if (it->is_null() || (node.closed && !known)) {
                it = value.erase(it);
                continue;
            }
            // Keep dropping after a failure: the full way then sees the body the normalizer leaves.
            if (ok && known && !passes(property->node, it.value()))
                ok = false;
            ++it;
        }
        if (!ok)
            return false;
        for (const std::string &name : node.required)
            if (!value.contains(name))
                return false;
        return true;
    }

    bool passesArray(const CompiledNode &node, Json &value) const
    {
        if ((node.minItems && value.size() < *node.minItems) || (node.maxItems && value.size() > *node.maxItems))
            return false;
        if (node.items)
            for (Json &item : value)
                if (!passes(*node.items, item))
                    return false;
        if (node.uniqueItems)
            for (std::size_t i = 1; i < value.size(); ++i)
                for (std::size_t j = 0; j < i; ++j)
                    if (value[i] == value[j])
                        return false;
        return true;
    }

    bool passesString(const CompiledNode &node, const std::string &text) const
    {
        if (node.minLength || node.maxLength) {
            const std::uint64_t length = characterCount(text);
            if ((node.minLength && length < *node.minLength) || (node.maxLength && length > *node.maxLength))
                return false;
        }
        if (node.format && !(*node.format == "date" ? isIsoDate(text) : matchesFormat(*node.format, text)))
            return false;
        if (!node.pattern)
            return true;
        if (node.knownPattern != KnownPattern::Other)
            return matchesKnownPattern(node.knownPattern, text);
        const QRegularExpression regex = m_regex(*node.pattern);
        return !regex.isValid() || regex.match(QString::fromStdString(text)).hasMatch();
    }

    static bool inRange(const CompiledNode &node, double number)
    {
        return !(node.minimum && number < *node.minimum) && !(node.maximum && number > *node.maximum);
    }

    const std::function<QRegularExpression(const std::string &)> &m_regex;
};

std::string contextToPath(const std::vector<std::string> &context)
{
    std::string path = "$";
    for (const std::string &segment : context) {
        if (segment == "<root>")
            continue;
        if (segment.size() >= 2 && segment.front() == '[' && segment.back() == ']') {
            const std::string inner = segment.substr(1, segment.size() - 2);
            const bool numeric = !inner.empty() && std::all_of(inner.begin(), inner.end(), ::isdigit);
            path += numeric ? segment : "." + inner;
        } else {
            path += "." + segment;
        }
    }
    return path;
}

std::string tidyNumbers(std::string message)
{
    static const std::regex trailingZeros(R"((\d+)\.0+\b)");
    return std::regex_replace(message, trailingZeros, "$1");
}

std::string expectedType(const Json &schema, const std::string &path)
{
    try {
        std::string pattern = path;
        // "$.a[0].b" -> "$.a[*].b"
        pattern = std::regex_replace(pattern, std::regex(R"(\[\d+\])"), "[*]");
        const Json *node = schemaForPath(schema, JsonPath(pattern));
        if (node && node->contains("type") && (*node)["type"].is_string())
            return (*node)["type"].get<std::string>();
    } catch (const std::exception &) {
    }
    return {};
}

} // namespace

std::optional<bool> matchesCommonPattern(const std::string &pattern, const std::string &text)
{
    const KnownPattern known = knownPattern(pattern);
    if (known == KnownPattern::Other)
        return std::nullopt;
    return matchesKnownPattern(known, text);
}

ValidationErrors DocumentValidator::validateSchema(const ResourceSchema &resource, Json &body) const
{
    if (passesCompiledSchema(resource, body))
        return {};
    return schemaErrors(resource, body);
}

bool DocumentValidator::passesCompiledSchema(const ResourceSchema &resource, Json &body) const
{
    const Compiled &schema = compiled(resource);
    if (!schema.walk || !body.is_object())
        return false;
    const std::function<QRegularExpression(const std::string &)> regex = [this](const std::string &p) {
        return m_cache->regex(p);
    };
    return CompiledWalk(regex).passes(*schema.walk, body);
}

ValidationErrors DocumentValidator::schemaErrors(const ResourceSchema &resource, Json &body) const
{
    ValidationErrors errors;
    if (!body.is_object()) {
        errors["$"].push_back("The request body must be a JSON object.");
        return errors;
    }
    const Compiled &schema = compiled(resource);
    Normalizer normalizer([this](const std::string &p) { return m_cache->regex(p); }, errors);
    normalizer.walk(schema.normalizer, body);

    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(body);
    if (!validator.validate(schema.schema, target, &results)) {
        valijson::ValidationResults::Error error;
        while (results.popError(error)) {
            const std::string &d = error.description;
            if (d.rfind("Failed to validate against schema associated with property", 0) == 0
                || d.rfind("Failed to validate item #", 0) == 0
                || d.rfind("Failed to validate against additional properties", 0) == 0
                || d.rfind("Failed to validate against child schema", 0) == 0)
                continue;
            std::string path = contextToPath(error.context);
            static const std::regex required(R"(^Missing required property '(.*)'\.$)");
            std::smatch match;
            if (std::regex_match(d, match, required)) {
                const std::string property = match[1];
                errors[path == "$" ? "$." + property : path + "." + property].push_back(property + " is required.");
            } else if (d == "Value type not permitted by 'type' constraint.") {
                const std::string type = expectedType(resource.jsonSchema, path);
                errors[path].push_back(lastSegment(path) + " must be of type " + (type.empty() ? "another type" : type)
                                       + ".");
            } else {
                errors[path].push_back(tidyNumbers(d));
            }
        }
    }
    return errors;
}

ValidationErrors DocumentValidator::validateConstraints(const ResourceSchema &resource, const Json &body) const
{
    ValidationErrors errors;
    for (const EqualityConstraint &constraint : resource.equalityConstraints) {
        std::vector<JsonPath::Match> matches = constraint.source.select(body);
        std::vector<JsonPath::Match> targets = constraint.target.select(body);
        matches.insert(matches.end(), targets.begin(), targets.end());
        std::vector<std::string> distinct;
        for (const JsonPath::Match &m : matches) {
            const std::string text = identityValueText(*m.value);
            if (std::find(distinct.begin(), distinct.end(), text) == distinct.end())
                distinct.push_back(text);
        }
        if (distinct.size() <= 1)
            continue;
        std::string values;
        for (const std::string &v : distinct)
            values += (values.empty() ? "'" : ", '") + v + "'";
        const std::string message = "All values supplied for '" + lastSegment(constraint.target.text())
                                    + "' must match. Review all references (including those higher up in the "
                                      "resource's data) and align the following conflicting values: "
                                    + values;
        for (const JsonPath *p : {&constraint.source, &constraint.target}) {
            std::vector<std::string> &list = errors[p->text()];
            if (std::find(list.begin(), list.end(), message) == list.end())
                list.push_back(message);
        }
    }

    for (const UniquenessGroup &group : compiled(resource).uniqueness) {
        for (const JsonPath::Match &array : group.arrayPath.select(body)) {
            if (!array.value->is_array())
                continue;
            std::set<std::vector<std::string>> seen;
            for (std::size_t i = 0; i < array.value->size(); ++i) {
                const Json &item = (*array.value)[i];
                std::vector<std::string> key;
                for (const JsonPath &relative : group.relativePaths) {
                    const Json *v = relative.resolve(item, {});
                    key.push_back(v ? toLower(identityValueText(*v)) : std::string("\x01"));
                }
                if (!seen.insert(key).second)
                    errors[array.concretePath].push_back("The " + ordinal(i + 1) + " item of the "
                                                         + lastSegment(array.concretePath)
                                                         + " has the same identifying values as another item "
                                                           "earlier in the list.");
            }
        }
    }
    return errors;
}

} // namespace steward
