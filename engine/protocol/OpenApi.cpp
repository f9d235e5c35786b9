#include "OpenApi.h"

#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace steward {

namespace {

const char *const kIdentity = "x-Ed-Fi-isIdentity";
const char *const kSecurityScheme = "oauth2_client_credentials";

// The names of the parameters every collection and change feed shares, as components.parameters keys.
const char *const kPagingParameters[] = {"offset", "limit", "MinChangeVersion", "MaxChangeVersion", "totalCount"};

std::string upperFirst(std::string text)
{
    if (!text.empty())
        text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    return text;
}

std::string lowerFirst(std::string text)
{
    if (!text.empty())
        text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
    return text;
}

// Clients build schema names from the URL's namespace this way: runs of '-' and '_' break words,
// each word is capitalized (a letter after a non-letter starts a word, the others are lowered), the
// breaks are dropped and the first letter lowered: "ed-fi" -> "edFi", "tpdm" -> "tpdm".
std::string camelNamespace(const std::string &ns)
{
    std::string out;
    bool previousIsLetter = false;
    for (char c : ns) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (c == '-' || c == '_' || c == ' ') {
            previousIsLetter = false;
            continue;
        }
        if (std::isalpha(u)) {
            out += static_cast<char>(previousIsLetter ? std::tolower(u) : std::toupper(u));
            previousIsLetter = true;
        } else {
            out += c;
            previousIsLetter = false;
        }
    }
    return lowerFirst(out);
}

// The singular clients derive from an endpoint to find its schema: "...ies" -> "...y",
// "people" -> "person", otherwise the last letter dropped ("staffs" -> "staff").
std::string clientSingular(const std::string &endpoint)
{
    if (endpoint.ends_with("ies"))
        return endpoint.substr(0, endpoint.size() - 3) + "y";
    if (endpoint == "people")
        return "person";
    return endpoint.empty() ? endpoint : endpoint.substr(0, endpoint.size() - 1);
}

// A name for one item of an array property. No client derives these, so it only has to read well.
std::string itemSingular(const std::string &property)
{
    if (property.ends_with("ies") && property.size() > 3)
        return property.substr(0, property.size() - 3) + "y";
    if (property.ends_with("sses") || property.ends_with("xes") || property.ends_with("ches")
        || property.ends_with("shes"))
        return property.substr(0, property.size() - 2);
    if (property.ends_with("s") && !property.ends_with("ss") && property.size() > 1)
        return property.substr(0, property.size() - 1);
    return property;
}

// Component keys may hold letters, digits, '.', '-' and '_' only.
std::string safeName(std::string name)
{
    for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_')
            c = '_';
    return name;
}

Json refTo(const std::string &schemaName)
{
    return Json{{"$ref", "#/components/schemas/" + schemaName}};
}

Json parameterRef(const std::string &name)
{
    return Json{{"$ref", "#/components/parameters/" + name}};
}

Json responseRef(const std::string &name)
{
    return Json{{"$ref", "#/components/responses/" + name}};
}

const Json *member(const Json &object, const std::string &key)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

bool hasProperties(const Json *schema)
{
    const Json *properties = schema ? member(*schema, "properties") : nullptr;
    return properties != nullptr && properties->is_object();
}

std::string stringMember(const Json *object, const std::string &key)
{
    const Json *value = object ? member(*object, key) : nullptr;
    return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

// The schema of the value at a path of the model's JSON paths, or null.
const Json *schemaAt(const Json &schema, const JsonPath &path)
{
    const Json *node = &schema;
    for (const JsonPath::Step &step : path.steps()) {
        if (step.isArray()) {
            node = member(*node, "items");
        } else {
            const Json *properties = member(*node, "properties");
            node = properties ? member(*properties, step.property) : nullptr;
        }
        if (node == nullptr)
            return nullptr;
    }
    return node;
}

bool isNonNegativeInteger(const Json &value)
{
    return value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0);
}

bool isSchemaType(const std::string &type)
{
    static const std::set<std::string> types = {"array", "boolean", "integer", "number", "object", "string"};
    return types.count(type) > 0;
}

void sanitizeSchema(Json &schema);

void sanitizeSchemaList(Json &schema, const char *key)
{
    auto it = schema.find(key);
    if (it == schema.end())
        return;
    if (!it->is_array() || it->empty()) {
        schema.erase(key);
        return;
    }
    for (Json &sub : *it)
        sanitizeSchema(sub);
}

// The later drafts' keywords 3.0 has an equivalent for: const, examples, type lists, numeric
// exclusive bounds.
void convertLaterDraftKeywords(Json &schema)
{
    if (schema.contains("const")) {
        const Json value = schema["const"];
        schema.erase("const");
        if (!schema.contains("enum"))
            schema["enum"] = Json::array({value});
    }
    if (schema.contains("examples")) {
        const Json examples = schema["examples"];
        schema.erase("examples");
        if (examples.is_array() && !examples.empty() && !schema.contains("example"))
            schema["example"] = examples[0];
    }
    if (schema.contains("type")) {
        const Json type = schema["type"];
        schema.erase("type");
        std::vector<std::string> types;
        bool nullable = false;
        for (const Json &entry : type.is_array() ? type : Json::array({type})) {
            if (entry == "null")
                nullable = true;
            else if (entry.is_string() && isSchemaType(entry.get<std::string>()))
                types.push_back(entry.get<std::string>());
        }
        if (types.size() == 1)
            schema["type"] = types.front();
        if (nullable)
            schema["nullable"] = true;
    }
    for (const auto &[exclusive, bound] : {std::pair<const char *, const char *>{"exclusiveMinimum", "minimum"},
                                           std::pair<const char *, const char *>{"exclusiveMaximum", "maximum"}}) {
        if (!schema.contains(exclusive))
            continue;
        const Json value = schema[exclusive];
        if (value.is_boolean())
            continue;
        schema.erase(exclusive);
        if (!value.is_number())
            continue;
        // A number is the later drafts' form: the bound itself, excluded.
        const bool isMinimum = std::string(bound) == "minimum";
        const Json *existing = member(schema, bound);
        const bool existingIsStricter = existing != nullptr && existing->is_number()
                                        && (isMinimum ? existing->get<double>() > value.get<double>()
                                                      : existing->get<double>() < value.get<double>());
        if (!existingIsStricter) {
            schema[bound] = value;
            schema[exclusive] = true;
        }
    }
}

// Only the keywords 3.0 knows, each with a value of the kind it takes.
void keepOpenApiKeywords(Json &schema)
{
    static const std::set<std::string> keywords = {
        "title", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
        "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties",
        "required", "enum", "type", "allOf", "oneOf", "anyOf", "not", "items", "properties",
        "additionalProperties", "description", "format", "default", "nullable", "readOnly", "writeOnly",
        "example", "deprecated"};
    static const std::set<std::string> booleans = {"uniqueItems", "nullable", "readOnly", "writeOnly",
                                                   "deprecated", "exclusiveMinimum", "exclusiveMaximum"};
    static const std::set<std::string> counts = {"maxLength", "minLength", "maxItems", "minItems",
                                                 "maxProperties", "minProperties"};
    static const std::set<std::string> texts = {"title", "pattern", "description", "format"};
    for (auto it = schema.begin(); it != schema.end();) {
        const std::string &key = it.key();
        bool keep = key.rfind("x-", 0) == 0 || keywords.count(key) > 0;
        if (keep && booleans.count(key))
            keep = it->is_boolean();
        else if (keep && counts.count(key))
            keep = isNonNegativeInteger(*it);
        else if (keep && texts.count(key))
            keep = it->is_string();
        else if (keep && (key == "minimum" || key == "maximum"))
            keep = it->is_number();
        else if (keep && key == "multipleOf")
            keep = it->is_number() && it->get<double>() > 0;
        else if (keep && key == "enum")
            keep = it->is_array() && !it->empty();
        it = keep ? std::next(it) : schema.erase(it);
    }
}

// The schemas inside this one: properties, items, additionalProperties, not, allOf, anyOf, oneOf.
void sanitizeSubschemas(Json &schema)
{
    if (auto properties = schema.find("properties"); properties != schema.end()) {
        if (properties->is_object())
            for (auto &[name, property] : properties->items())
                sanitizeSchema(property);
        else
            schema.erase("properties");
    }
    if (auto items = schema.find("items"); items != schema.end()) {
        if (items->is_array())
            *items = items->size() == 1 ? Json((*items)[0]) : Json::object();
        sanitizeSchema(*items);
    }
    if (schema.value("type", "") == "array" && !schema.contains("items"))
        schema["items"] = Json::object(); // 3.0 wants items beside type array
    if (auto additional = schema.find("additionalProperties"); additional != schema.end()) {
        if (additional->is_object())
            sanitizeSchema(*additional);
        else if (!(additional->is_boolean() && additional->get<bool>()))
            schema.erase("additionalProperties");
    }
    if (auto negated = schema.find("not"); negated != schema.end())
        sanitizeSchema(*negated);
    for (const char *key : {"allOf", "anyOf", "oneOf"})
        sanitizeSchemaList(schema, key);
}

void keepKnownRequired(Json &schema)
{
    // required: unique names, none of them missing from properties (clients look every one up there).
    if (auto required = schema.find("required"); required != schema.end()) {
        const Json *properties = member(schema, "properties");
        Json kept = Json::array();
        std::set<std::string> seen;
        if (required->is_array())
            for (const Json &name : *required)
                if (name.is_string() && (properties == nullptr || properties->contains(name.get<std::string>()))
                    && seen.insert(name.get<std::string>()).second)
                    kept.push_back(name);
        if (kept.empty())
            schema.erase("required");
        else
            *required = std::move(kept);
    }
}

// Rewrites a JSON Schema from the model into the subset OpenAPI 3.0 allows: keywords it lacks are
// converted where 3.0 has an equivalent (const, examples, type lists, numeric exclusive bounds) and
// dropped otherwise. additionalProperties: false goes too: the engine drops unknown members rather
// than refusing them, and a client validating against the document must not refuse more than that.
void sanitizeSchema(Json &schema)
{
    if (!schema.is_object()) {
        schema = Json::object();
        return;
    }
    convertLaterDraftKeywords(schema);
    keepOpenApiKeywords(schema);
    sanitizeSubschemas(schema);
    keepKnownRequired(schema);
}

// What one resource's conversion needs to know about it.
struct ResourceContext
{
    const ResourceSchema *resource = nullptr;
    std::string schemaName;
    std::map<std::string, const ReferenceMapping *> references; // by the reference object's path
    std::set<std::string> identityPaths;                          // "$.schoolId", "$.studentReference.studentUniqueId"

    bool isIdentityObject(const std::string &objectPath) const
    {
        for (const std::string &path : identityPaths)
            if (path.rfind(objectPath + ".", 0) == 0)
                return true;
        return false;
    }
};

// What every path of a resource names it by: its base path, operation id stems, tag, and the
// parts its operations share.
struct ResourceOperations
{
    std::string base;     // "/ed-fi/students"
    std::string plural;   // operation ids: "getStudents"
    std::string singular; // "postStudent"
    std::string name;     // "Student"
    Json tags;
    Json idParameter;
    Json requestBody;
    Json collectionParameters; // paging and Change Queries, shared with the feeds
};

// Builds one document: resources are added one by one, each adding its paths, tag and schemas.
class DocumentBuilder
{
public:
    DocumentBuilder(const Model &model, std::string serverUrl, std::string tokenUrl);

    void addResource(const ResourceSchema &resource);
    Json finish(const std::string &title, const std::string &version, const std::string &description) const;

private:
    Json resourceSchema(const ResourceContext &context);
    Json convertObject(const Json &schema, const std::string &path, const std::string &namePrefix,
                       const ResourceContext &context, bool isItem);
    std::string referenceSchema(const ReferenceMapping &reference, const Json &inlineSchema,
                                const ResourceContext &context, const std::string &property);
    std::string referenceSchemaName(const ReferenceMapping &reference) const;
    std::string uniqueName(const std::string &wanted) const;
    void addTrackedChangeSchemas(const ResourceContext &context);
    Json queryParameter(const ResourceContext &context, const QueryField &field) const;
    void addPaths(const ResourceContext &context);
    void addCollectionPath(const ResourceContext &context, const ResourceOperations &operations);
    void addItemPath(const ResourceContext &context, const ResourceOperations &operations);
    void addFeedPaths(const ResourceContext &context, const ResourceOperations &operations);
    Json components() const;

    const Model &m_model;
    std::string m_serverUrl;
    std::string m_tokenUrl;
    Json m_schemas = Json::object();
    Json m_paths = Json::object();
    Json m_tags = Json::array();
    std::set<std::string> m_tagNames;
};

DocumentBuilder::DocumentBuilder(const Model &model, std::string serverUrl, std::string tokenUrl)
    : m_model(model)
    , m_serverUrl(std::move(serverUrl))
    , m_tokenUrl(std::move(tokenUrl))
{
    m_schemas["link"] = Json{{"type", "object"},
                             {"readOnly", true},
                             {"properties", {{"rel", {{"type", "string"}, {"description", "The related resource."}}},
                                             {"href", {{"type", "string"}, {"description", "Its address."}}}}}};
    m_schemas["problemDetails"] = Json{
        {"type", "object"},
        {"description", "Why a request failed (Ed-Fi problem details)."},
        {"properties",
         {{"detail", {{"type", "string"}}},
          {"type", {{"type", "string"}, {"description", "urn:ed-fi:api:... naming the kind of problem."}}},
          {"title", {{"type", "string"}}},
          {"status", {{"type", "integer"}, {"format", "int32"}}},
          {"correlationId", {{"type", "string"}}},
          {"validationErrors",
           {{"type", "object"},
            {"description", "Messages keyed by the JSON path of the value they concern."},
            {"additionalProperties", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
          {"errors", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}};
}

void DocumentBuilder::addResource(const ResourceSchema &resource)
{
    ResourceContext context;
    context.resource = &resource;
    context.schemaName = openApiSchemaName(resource);
    for (const ReferenceMapping &reference : resource.references)
        context.references.emplace(reference.objectPath.text(), &reference);
    if (resource.isDescriptor) {
        context.identityPaths = {"$.namespace", "$.codeValue"};
    } else {
        for (const JsonPath &path : resource.identityPaths)
            context.identityPaths.insert(path.text());
    }
    m_schemas[context.schemaName] = Json::object(); // claimed before its parts take names
    m_schemas[context.schemaName] = resourceSchema(context);
    addTrackedChangeSchemas(context);
    addPaths(context);
    if (m_tagNames.insert(resource.endpointName).second) {
        std::string description = stringMember(&resource.jsonSchema, "description");
        m_tags.push_back(Json{{"name", resource.endpointName},
                              {"description", description.empty() ? resource.resourceName : description}});
    }
}

Json DocumentBuilder::resourceSchema(const ResourceContext &context)
{
    const ResourceSchema &resource = *context.resource;
    Json schema = resource.jsonSchema;
    sanitizeSchema(schema);
    Json out = convertObject(schema, "$", context.schemaName, context, false);
    Json &properties = out["properties"];
    if (!properties.contains("id"))
        properties["id"] = Json{{"type", "string"},
                                {"description", "The resource's identifier, assigned by the server."},
                                {"readOnly", true}};
    // No '<descriptor>Id': ODS/API stopped returning that surrogate key in 7.1, and neither does
    // the engine; a document must describe what is served.
    if (!properties.contains("_etag"))
        properties["_etag"] = Json{{"type", "string"},
                                   {"description", "A value that changes whenever the resource does."},
                                   {"readOnly", true}};
    if (!properties.contains("_lastModifiedDate"))
        properties["_lastModifiedDate"] = Json{{"type", "string"},
                                               {"format", "date-time"},
                                               {"description", "When the resource was last changed."},
                                               {"readOnly", true}};
    out["type"] = "object";
    return out;
}

Json DocumentBuilder::convertObject(const Json &schema, const std::string &path, const std::string &namePrefix,
                                    const ResourceContext &context, bool isItem)
{
    Json out = schema;
    const Json *properties = member(schema, "properties");
    if (properties == nullptr || !properties->is_object())
        return out;
    std::set<std::string> required;
    if (const Json *names = member(schema, "required"))
        for (const Json &name : *names)
            required.insert(name.get<std::string>());

    Json converted = Json::object();
    for (const auto &[name, property] : properties->items()) {
        const std::string childPath = path + "." + name;
        const std::string type = stringMember(&property, "type");
        const Json *items = member(property, "items");
        const auto reference = context.references.find(childPath);
        if (reference != context.references.end() && hasProperties(&property)) {
            Json ref = refTo(referenceSchema(*reference->second, property, context, name));
            if (context.isIdentityObject(childPath))
                ref[kIdentity] = true; // beside $ref, where schema readers ignore it and identity readers find it
            converted[name] = std::move(ref);
        } else if (type == "array" && hasProperties(items)) {
            // Items of objects are named schemas: clients follow items.$ref and fail on inline items.
            const std::string itemSchemaName = uniqueName(namePrefix + "_" + itemSingular(name));
            m_schemas[itemSchemaName] = Json::object();
            m_schemas[itemSchemaName] = convertObject(*items, childPath + "[*]", itemSchemaName, context, true);
            Json array = property;
            array["items"] = refTo(itemSchemaName);
            converted[name] = std::move(array);
        } else if (hasProperties(&property)) {
            // _ext adds nothing to names: "edFi_school_tpdm_..." rather than "..._ext_tpdm_...".
            converted[name] =
                convertObject(property, childPath, name == "_ext" ? namePrefix : namePrefix + "_" + name, context, false);
        } else {
            Json scalar = property;
            // An item's identity is not in the model; its required values stand in for it, so that a
            // client checking items for duplicates compares them on no more than the engine requires.
            const bool identity = isItem ? required.count(name) > 0 && type != "array" && type != "object"
                                         : context.identityPaths.count(childPath) > 0;
            if (identity)
                scalar[kIdentity] = true;
            converted[name] = std::move(scalar);
        }
    }
    out["properties"] = std::move(converted);
    return out;
}

std::string DocumentBuilder::referenceSchema(const ReferenceMapping &reference, const Json &inlineSchema,
                                             const ResourceContext &context, const std::string &property)
{
    // Every field of a reference is required, as ODS/API has it: a partial reference refers to nothing.
    Json properties = Json::object();
    Json required = Json::array();
    for (const auto &[name, field] : inlineSchema.at("properties").items()) {
        Json copy = field;
        copy[kIdentity] = true;
        properties[name] = std::move(copy);
        required.push_back(name);
    }
    properties["link"] = refTo("link");
    Json built{{"type", "object"}, {"properties", std::move(properties)}};
    if (!required.empty())
        built["required"] = std::move(required);

    auto fieldNames = [](const Json &schema) {
        std::set<std::string> names;
        for (const auto &[name, field] : schema.at("properties").items())
            names.insert(name);
        return names;
    };
    const std::string wanted = referenceSchemaName(reference);
    const auto existing = m_schemas.find(wanted);
    if (existing == m_schemas.end()) {
        m_schemas[wanted] = std::move(built);
        return wanted;
    }
    if (existing->is_object() && existing->contains("properties") && fieldNames(*existing) == fieldNames(built))
        return wanted;
    // The same target under other field names: a schema of its own.
    const std::string name = uniqueName(context.schemaName + "_" + property);
    m_schemas[name] = std::move(built);
    return name;
}

std::string DocumentBuilder::referenceSchemaName(const ReferenceMapping &reference) const
{
    std::string ns = toLower(reference.targetProjectName);
    for (const auto &project : m_model.projects())
        if (project->projectName == reference.targetProjectName)
            ns = project->projectEndpointName;
    const ResourceSchema *target = m_model.findByName(reference.targetProjectName, reference.targetResourceName);
    const std::string singular = target ? clientSingular(target->endpointName) : lowerFirst(reference.targetResourceName);
    return safeName(camelNamespace(ns) + "_" + singular + "Reference");
}

std::string DocumentBuilder::uniqueName(const std::string &wanted) const
{
    const std::string base = safeName(wanted);
    std::string name = base;
    for (int n = 2; m_schemas.contains(name); ++n)
        name = base + std::to_string(n);
    return name;
}

void DocumentBuilder::addTrackedChangeSchemas(const ResourceContext &context)
{
    const ResourceSchema &resource = *context.resource;
    // The change feeds name each identity value by its last step (Identity.h, keyValuesOf).
    Json keyProperties = Json::object();
    for (const std::string &text : context.identityPaths) {
        const JsonPath path(text);
        if (path.steps().empty() || path.steps().back().isArray())
            continue;
        const std::string &leaf = path.steps().back().property;
        if (keyProperties.contains(leaf))
            continue;
        Json property{{"type", "string"}};
        if (const Json *schema = schemaAt(resource.jsonSchema, path)) {
            Json copy = *schema;
            sanitizeSchema(copy);
            property = Json::object();
            for (const char *key : {"type", "format", "description"})
                if (copy.contains(key))
                    property[key] = copy[key];
        }
        keyProperties[leaf] = std::move(property);
    }
    const Json keyValues{{"type", "object"}, {"properties", keyProperties}};
    const Json id{{"type", "string"}, {"description", "The resource's identifier."}};
    const Json changeVersion{{"type", "integer"}, {"format", "int64"}, {"description", "The change's version."}};
    m_schemas["trackedChanges_" + context.schemaName + "Delete"] = Json{
        {"type", "object"},
        {"properties", {{"id", id}, {"changeVersion", changeVersion}, {"keyValues", keyValues}}}};
    m_schemas["trackedChanges_" + context.schemaName + "KeyChange"] =
        Json{{"type", "object"},
             {"properties",
              {{"id", id}, {"changeVersion", changeVersion}, {"oldKeyValues", keyValues}, {"newKeyValues", keyValues}}}};
}

// int32 only when the schema's own bounds keep the value inside it.
std::string integerFormat(const Json *leaf)
{
    const Json *minimum = leaf ? member(*leaf, "minimum") : nullptr;
    const Json *maximum = leaf ? member(*leaf, "maximum") : nullptr;
    if (minimum && maximum && minimum->is_number() && maximum->is_number()
        && minimum->get<double>() >= std::numeric_limits<std::int32_t>::min()
        && maximum->get<double>() <= std::numeric_limits<std::int32_t>::max())
        return "int32";
    return "int64";
}

Json DocumentBuilder::queryParameter(const ResourceContext &context, const QueryField &field) const
{
    const ResourceSchema &resource = *context.resource;
    const std::string pathType = field.paths.empty() ? std::string("string") : field.paths.front().type;
    const Json *leaf = field.paths.empty() ? nullptr : schemaAt(resource.jsonSchema, field.paths.front().path);
    const std::string leafType = stringMember(leaf, "type");
    // The engine reads the value as the field's path type says; "number" fields of integers are integers.
    Json schema{{"type", "string"}};
    if (pathType == "integer" || (pathType == "number" && leafType == "integer"))
        schema = Json{{"type", "integer"}, {"format", integerFormat(leaf)}};
    else if (pathType == "number")
        schema = Json{{"type", "number"}, {"format", "double"}};
    else if (pathType == "boolean")
        schema = Json{{"type", "boolean"}};
    else if (pathType == "date" || pathType == "date-time" || pathType == "time")
        schema = Json{{"type", "string"}, {"format", pathType}};

    std::string description = stringMember(leaf, "description");
    Json parameter{{"name", field.name},
                   {"in", "query"},
                   {"description", description.empty() ? "Matches " + field.name + "." : description},
                   {"schema", std::move(schema)}};
    bool identity = false;
    for (const QueryFieldPath &path : field.paths)
        identity = identity || context.identityPaths.count(path.path.text()) > 0;
    // A field named like an identity value is that value, whichever of its paths the model lists first.
    for (const std::string &text : context.identityPaths)
        identity = identity || text.ends_with("." + field.name);
    if (identity)
        parameter[kIdentity] = true;
    return parameter;
}

Json okResponse(const std::string &description, Json schema)
{
    return Json{{"description", description}, {"content", {{"application/json", {{"schema", std::move(schema)}}}}}};
}

Json errorResponses(std::initializer_list<std::pair<const char *, const char *>> statuses)
{
    Json out = Json::object();
    for (const auto &[status, name] : statuses)
        out[status] = responseRef(name);
    return out;
}

void DocumentBuilder::addPaths(const ResourceContext &context)
{
    const ResourceSchema &resource = *context.resource;
    const std::string ns = resource.project->projectEndpointName;
    ResourceOperations operations;
    operations.base = "/" + ns + "/" + resource.endpointName;
    // Operation ids are unique in the document: an extension project's carry its name.
    const std::string prefix = resource.project->isExtensionProject ? upperFirst(camelNamespace(ns)) : std::string();
    operations.plural = prefix + upperFirst(resource.endpointName);
    operations.singular = prefix + upperFirst(clientSingular(resource.endpointName));
    operations.name = resource.resourceName;
    operations.tags = Json::array({resource.endpointName});
    operations.idParameter = Json{{"name", "id"},
                                  {"in", "path"},
                                  {"required", true},
                                  {"description", "The resource's identifier (its 'id')."},
                                  {"schema", {{"type", "string"}}}};
    operations.requestBody = Json{
        {"description", "The " + operations.name + " to create or update, without its id."},
        {"required", true},
        {"content", {{"application/json", {{"schema", refTo(context.schemaName)}}}}},
        {"x-bodyName", operations.name}};
    operations.collectionParameters = Json::array();
    for (const char *parameter : kPagingParameters)
        operations.collectionParameters.push_back(parameterRef(parameter));
    addCollectionPath(context, operations);
    addItemPath(context, operations);
    addFeedPaths(context, operations);
}

// GET (a page, by query) and POST (an upsert) on the collection.
void DocumentBuilder::addCollectionPath(const ResourceContext &context, const ResourceOperations &operations)
{
    const ResourceSchema &resource = *context.resource;
    Json getParameters = operations.collectionParameters;
    getParameters.push_back(parameterRef("pageToken"));
    getParameters.push_back(parameterRef("pageSize"));
    static const std::set<std::string> reserved = {"offset", "limit", "totalcount", "minchangeversion",
                                                   "maxchangeversion", "pagetoken", "pagesize"};
    for (const auto &[key, field] : resource.queryFields)
        if (!reserved.count(key))
            getParameters.push_back(queryParameter(context, field));

    Json collectionOk = okResponse("The matching " + operations.name + " resources, a page at a time.",
                                   Json{{"type", "array"}, {"items", refTo(context.schemaName)}});
    collectionOk["headers"] = Json{
        {"Total-Count",
         {{"description", "How many resources match, when totalCount=true was asked for."},
          {"schema", {{"type", "integer"}, {"format", "int64"}}}}},
        {"Next-Page-Token",
         {{"description", "Send it back as pageToken for the next page; absent on the last page."},
          {"schema", {{"type", "string"}}}}}};
    Json collectionResponses =
        errorResponses({{"400", "BadRequest"}, {"401", "Unauthorized"}, {"403", "Forbidden"}, {"404", "NotFound"},
                        {"500", "Error"}});
    collectionResponses["200"] = collectionOk;

    Json postResponses = errorResponses({{"200", "Updated"}, {"201", "Created"}, {"400", "BadRequest"},
                                         {"401", "Unauthorized"}, {"403", "Forbidden"}, {"409", "Conflict"},
                                         {"412", "PreconditionFailed"}, {"500", "Error"}});
    m_paths[operations.base] = Json{
        {"get",
         {{"tags", operations.tags},
          {"summary", "Retrieves " + operations.name + " resources matching the query."},
          {"description", "Every query parameter that is given must match; paging by offset and limit or by "
                          "pageToken and pageSize."},
          {"operationId", "get" + operations.plural},
          {"parameters", getParameters},
          {"responses", collectionResponses}}},
        {"post",
         {{"tags", operations.tags},
          {"summary", "Creates or updates a " + operations.name + "."},
          {"description", "A resource whose identity matches an existing one replaces it (200); otherwise it is "
                          "created (201)."},
          {"operationId", "post" + operations.singular},
          {"requestBody", operations.requestBody},
          {"responses", postResponses}}}};
}

// GET, PUT and DELETE of one resource by its id.
void DocumentBuilder::addItemPath(const ResourceContext &context, const ResourceOperations &operations)
{
    const ResourceSchema &resource = *context.resource;
    Json byIdResponses = errorResponses({{"400", "BadRequest"}, {"401", "Unauthorized"}, {"403", "Forbidden"},
                                         {"404", "NotFound"}, {"500", "Error"}});
    byIdResponses["200"] = okResponse("The " + operations.name + ".", refTo(context.schemaName));
    Json putResponses = errorResponses({{"204", "Updated"}, {"400", "BadRequest"}, {"401", "Unauthorized"},
                                        {"403", "Forbidden"}, {"404", "NotFound"}, {"409", "Conflict"},
                                        {"412", "PreconditionFailed"}, {"500", "Error"}});
    Json deleteResponses = errorResponses({{"204", "Deleted"}, {"400", "BadRequest"}, {"401", "Unauthorized"},
                                           {"403", "Forbidden"}, {"404", "NotFound"}, {"409", "Conflict"},
                                           {"412", "PreconditionFailed"}, {"500", "Error"}});
    m_paths[operations.base + "/{id}"] = Json{
        {"get",
         {{"tags", operations.tags},
          {"summary", "Retrieves one " + operations.name + " by its id."},
          {"operationId", "get" + operations.plural + "ById"},
          {"parameters", Json::array({operations.idParameter, parameterRef("If-None-Match")})},
          {"responses", byIdResponses}}},
        {"put",
         {{"tags", operations.tags},
          {"summary", "Replaces one " + operations.name + " by its id."},
          {"description", resource.allowIdentityUpdates
                              ? "The body may change the identity; references to it follow."
                              : "The body must keep the resource's identity."},
          {"operationId", "put" + operations.singular},
          {"parameters", Json::array({operations.idParameter, parameterRef("If-Match")})},
          {"requestBody", operations.requestBody},
          {"responses", putResponses}}},
        {"delete",
         {{"tags", operations.tags},
          {"summary", "Deletes one " + operations.name + " by its id."},
          {"operationId", "delete" + operations.singular + "ById"},
          {"parameters", Json::array({operations.idParameter, parameterRef("If-Match")})},
          {"responses", deleteResponses}}}};
}

// Change Queries' deletes and keyChanges feeds.
void DocumentBuilder::addFeedPaths(const ResourceContext &context, const ResourceOperations &operations)
{
    const std::pair<const char *, const char *> feeds[] = {{"deletes", "Delete"}, {"keyChanges", "KeyChange"}};
    for (const auto &[feed, suffix] : feeds) {
        Json responses = errorResponses({{"400", "BadRequest"}, {"401", "Unauthorized"}, {"403", "Forbidden"},
                                         {"404", "NotFound"}, {"500", "Error"}});
        const std::string what = std::string(feed) == "deletes" ? "deleted" : "whose identity changed";
        responses["200"] = okResponse("The " + operations.name + " resources " + what + " in the change version window.",
                                      Json{{"type", "array"},
                                           {"items", refTo("trackedChanges_" + context.schemaName + suffix)}});
        m_paths[operations.base + "/" + feed] = Json{
            {"get",
             {{"tags", operations.tags},
              {"summary", "Lists the " + operations.name + " resources " + what + "."},
              {"operationId", std::string(feed) + operations.plural},
              {"parameters", operations.collectionParameters},
              {"responses", responses}}}};
    }
}

Json DocumentBuilder::components() const
{
    auto query = [](const std::string &name, const std::string &description, Json schema) {
        return Json{{"name", name}, {"in", "query"}, {"description", description}, {"schema", std::move(schema)}};
    };
    Json parameters{
        {"offset", query("offset", "How many resources to skip before the page starts.",
                         {{"type", "integer"}, {"format", "int32"}, {"minimum", 0}, {"default", 0}})},
        {"limit", query("limit", "The most resources to return in one page.",
                        {{"type", "integer"}, {"format", "int32"}, {"minimum", 0}, {"maximum", 500}, {"default", 25}})},
        {"MinChangeVersion", query("minChangeVersion", "Only resources changed at or after this change version.",
                                   {{"type", "integer"}, {"format", "int64"}, {"minimum", 0}})},
        {"MaxChangeVersion", query("maxChangeVersion", "Only resources changed at or before this change version.",
                                   {{"type", "integer"}, {"format", "int64"}, {"minimum", 0}})},
        {"totalCount", query("totalCount", "Whether to send the number of matching resources in the Total-Count header.",
                             {{"type", "boolean"}, {"default", false}})},
        {"pageToken", query("pageToken", "The Next-Page-Token of the previous page, to page without offsets.",
                            {{"type", "string"}})},
        {"pageSize", query("pageSize", "The most resources to return in one page, with pageToken.",
                           {{"type", "integer"}, {"format", "int32"}, {"minimum", 0}, {"maximum", 500}, {"default", 25}})},
        {"If-None-Match", {{"name", "If-None-Match"},
                           {"in", "header"},
                           {"description", "An ETag the client already has."},
                           {"schema", {{"type", "string"}}}}},
        {"If-Match", {{"name", "If-Match"},
                      {"in", "header"},
                      {"description", "The resource's ETag: the change is made only while the resource still has it."},
                      {"schema", {{"type", "string"}}}}}};

    const Json problem{{"application/json", {{"schema", refTo("problemDetails")}}}};
    auto failure = [&problem](const std::string &description) {
        return Json{{"description", description}, {"content", problem}};
    };
    Json responses{
        {"Created", {{"description", "The resource was created; its address is in the Location header."}}},
        {"Updated", {{"description", "The resource was updated."}}},
        {"Deleted", {{"description", "The resource was deleted."}}},
        {"BadRequest", failure("The request was not valid; the body says why.")},
        {"Unauthorized", failure("The request has no valid bearer token; get one from the token URL.")},
        {"Forbidden", failure("The request is not allowed for this client.")},
        {"NotFound", failure("No such resource.")},
        {"Conflict", failure("The request conflicts with the stored data (an unresolved reference, a dependent "
                             "resource, or an identity taken).")},
        {"PreconditionFailed", failure("The resource's ETag no longer matches If-Match.")},
        {"Error", failure("An unexpected error on the server.")}};

    Json securitySchemes{
        {kSecurityScheme,
         {{"type", "oauth2"},
          {"description", "OAuth 2.0 client credentials: POST the token URL with HTTP Basic client_id:client_secret "
                          "and grant_type=client_credentials."},
          {"flows", {{"clientCredentials", {{"tokenUrl", m_tokenUrl}, {"scopes", Json::object()}}}}}}}};
    return Json{{"schemas", m_schemas},
                {"parameters", std::move(parameters)},
                {"responses", std::move(responses)},
                {"securitySchemes", std::move(securitySchemes)}};
}

Json DocumentBuilder::finish(const std::string &title, const std::string &version,
                             const std::string &description) const
{
    Json document = Json::object();
    document["openapi"] = "3.0.1";
    document["info"] = Json{{"title", title}, {"version", version.empty() ? std::string("0") : version},
                            {"description", description}};
    document["servers"] = Json::array({Json{{"url", m_serverUrl.empty() ? std::string("/data/v3") : m_serverUrl}}});
    document["tags"] = m_tags;
    document["paths"] = m_paths;
    document["components"] = components();
    document["security"] = Json::array({Json{{kSecurityScheme, Json::array()}}});
    return document;
}

const Project *coreProject(const Model &model)
{
    for (const auto &project : model.projects())
        if (!project->isExtensionProject)
            return project.get();
    return model.projects().empty() ? nullptr : model.projects().front().get();
}

// An extension project's own document, unless its name would shadow one of the two shared ones.
bool hasOwnDocument(const Project &project)
{
    const std::string name = toLower(project.projectName);
    return project.isExtensionProject && project.projectEndpointName != "resources"
           && project.projectEndpointName != "descriptors" && name != "resources" && name != "descriptors";
}

} // namespace

std::string openApiSchemaName(const ResourceSchema &resource)
{
    return camelNamespace(resource.project->projectEndpointName) + "_" + clientSingular(resource.endpointName);
}

std::vector<OpenApiDocumentInfo> openApiDocuments(const Model &model)
{
    const std::string prefix = "/metadata/data/v3/";
    std::vector<OpenApiDocumentInfo> out = {{"Resources", "resources", prefix + "resources/swagger.json"},
                                            {"Descriptors", "descriptors", prefix + "descriptors/swagger.json"}};
    for (const auto &project : model.projects())
        if (hasOwnDocument(*project))
            out.push_back({project->projectName, project->projectEndpointName,
                           prefix + project->projectEndpointName + "/swagger.json"});
    return out;
}

std::optional<Json> openApiDocument(const Model &model, const std::string &section, const std::string &serverUrl,
                                    const std::string &tokenUrl)
{
    const std::string key = toLower(section);
    std::string token = tokenUrl;
    if (token.empty()) {
        const std::size_t data = serverUrl.find("/data/v3");
        token = (data == std::string::npos ? std::string() : serverUrl.substr(0, data)) + "/oauth/token";
    }
    DocumentBuilder builder(model, serverUrl, token);
    const Project *core = coreProject(model);
    const std::string coreVersion = core ? core->projectVersion : std::string();
    if (key == "resources" || key == "descriptors") {
        const bool descriptors = key == "descriptors";
        for (const ResourceSchema *resource : model.resources())
            if (resource->isDescriptor == descriptors)
                builder.addResource(*resource);
        const std::string what = descriptors ? "Descriptors" : "Resources";
        return builder.finish((core ? core->projectName + " " : std::string()) + what, coreVersion,
                              "The " + toLower(what) + " of the " + model.describe()
                                  + " data model, extensions included, as this Steward serves them.");
    }
    for (const auto &project : model.projects()) {
        if (!hasOwnDocument(*project) || project->projectEndpointName != key)
            continue;
        for (const auto &[endpoint, resource] : project->resources)
            builder.addResource(*resource);
        return builder.finish(project->projectName, project->projectVersion,
                              "The resources and descriptors of the " + project->projectName
                                  + " extension, as this Steward serves them.");
    }
    return std::nullopt;
}

} // namespace steward
