#include "ApiSchema.h"
#include "Text.h"

#include "Validation.h"

#include <QFile>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace steward {

SchemaLoadError::SchemaLoadError(const std::string &file, const std::string &jsonPath, const std::string &message)
    : std::runtime_error(file + ": " + (jsonPath.empty() ? std::string() : jsonPath + ": ") + message)
    , m_file(file)
    , m_jsonPath(jsonPath)
{
}

std::string toLower(std::string text)
{
    lowerAsciiInPlace(text);
    return text;
}

const std::string &ResourceSchema::projectName() const
{
    return project->projectName;
}

std::string ResourceSchema::resourceKey() const
{
    return project->projectEndpointName + "/" + endpointName;
}

std::string ResourceSchema::requestPath(const std::string &id) const
{
    std::string path = "/" + resourceKey();
    if (!id.empty())
        path += "/" + id;
    return path;
}

bool ResourceSchema::isDescriptorPath(const std::string &path) const
{
    for (const DescriptorMapping &descriptor : descriptors)
        if (descriptor.path.text() == path)
            return true;
    return false;
}

namespace {

std::string memberPath(const std::string &parent, const std::string &key)
{
    const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '_';
    });
    return plain ? parent + "." + key : parent + "['" + key + "']";
}

// Typed access to an ApiSchema document that reports the file and JSON path of every problem.
class SchemaReader
{
public:
    explicit SchemaReader(std::string file)
        : m_file(std::move(file))
    {
    }

    [[noreturn]] void fail(const std::string &path, const std::string &message) const
    {
        throw SchemaLoadError(m_file, path, message);
    }

    const Json &object(const Json &parent, const std::string &path, const std::string &key) const
    {
        auto it = parent.find(key);
        if (it == parent.end())
            fail(path, "required member '" + key + "' is missing");
        if (!it->is_object())
            fail(memberPath(path, key), "expected an object");
        return *it;
    }

    const Json *optionalObject(const Json &parent, const std::string &path, const std::string &key) const
    {
        auto it = parent.find(key);
        if (it == parent.end() || it->is_null())
            return nullptr;
        if (!it->is_object())
            fail(memberPath(path, key), "expected an object");
        return &*it;
    }

    std::string string(const Json &parent, const std::string &path, const std::string &key) const
    {
        auto it = parent.find(key);
        if (it == parent.end())
            fail(path, "required member '" + key + "' is missing");
        if (!it->is_string() || it->get_ref<const std::string &>().empty())
            fail(memberPath(path, key), "expected a non-empty string");
        return it->get<std::string>();
    }

    std::string optionalString(const Json &parent, const std::string &path, const std::string &key) const
    {
        auto it = parent.find(key);
        if (it == parent.end() || it->is_null())
            return {};
        if (!it->is_string())
            fail(memberPath(path, key), "expected a string");
        return it->get<std::string>();
    }

    bool boolean(const Json &parent, const std::string &path, const std::string &key, bool fallback) const
    {
        auto it = parent.find(key);
        if (it == parent.end() || it->is_null())
            return fallback;
        if (!it->is_boolean())
            fail(memberPath(path, key), "expected true or false");
        return it->get<bool>();
    }

    JsonPath jsonPath(const Json &value, const std::string &path) const
    {
        if (!value.is_string())
            fail(path, "expected a JSON path string");
        try {
            return JsonPath(value.get<std::string>());
        } catch (const std::invalid_argument &e) {
            fail(path, e.what());
        }
    }

    std::vector<JsonPath> jsonPaths(const Json &parent, const std::string &path, const std::string &key,
                                    bool required) const
    {
        std::vector<JsonPath> out;
        auto it = parent.find(key);
        if (it == parent.end() || it->is_null()) {
            if (required)
                fail(path, "required member '" + key + "' is missing");
            return out;
        }
        const std::string here = memberPath(path, key);
        if (!it->is_array())
            fail(here, "expected an array of JSON paths");
        for (std::size_t i = 0; i < it->size(); ++i)
            out.push_back(jsonPath((*it)[i], here + "[" + std::to_string(i) + "]"));
        return out;
    }

    std::set<std::string> pathSet(const Json &parent, const std::string &path, const std::string &key) const
    {
        std::set<std::string> out;
        for (const JsonPath &p : jsonPaths(parent, path, key, false))
            out.insert(p.text());
        return out;
    }

    const std::string &file() const { return m_file; }

private:
    std::string m_file;
};

// The path of the reference object: the longest common step prefix of its reference paths.
JsonPath referenceObjectPath(const std::vector<ReferencePathPair> &pairs)
{
    const auto &first = pairs.front().referencePath.steps();
    std::size_t common = first.size() - 1;
    for (const ReferencePathPair &pair : pairs) {
        const auto &steps = pair.referencePath.steps();
        std::size_t i = 0;
        while (i < common && i < steps.size() - 1 && steps[i].property == first[i].property)
            ++i;
        common = i;
    }
    std::string text = "$";
    for (std::size_t i = 0; i < common; ++i)
        text += first[i].isArray() ? std::string("[*]") : "." + first[i].property;
    return JsonPath(text);
}

void readSubclass(const SchemaReader &reader, const Json &node, const std::string &path,
                  ResourceSchema &resource)
{
    resource.subclassType = reader.string(node, path, "subclassType");
    resource.superclassProjectName = reader.string(node, path, "superclassProjectName");
    resource.superclassResourceName = reader.string(node, path, "superclassResourceName");
    resource.superclassIdentityPath = reader.optionalString(node, path, "superclassIdentityJsonPath");
    if (resource.subclassType != "association" && resource.superclassIdentityPath.empty())
        reader.fail(path, "a subclass of type '" + resource.subclassType
                              + "' needs 'superclassIdentityJsonPath'");
    if (!resource.superclassIdentityPath.empty())
        reader.jsonPath(Json(resource.superclassIdentityPath),
                        memberPath(path, "superclassIdentityJsonPath"));
}

void readIdentityPaths(const SchemaReader &reader, const Json &node, const std::string &path,
                       bool isExtension, ResourceSchema &resource)
{
    resource.identityPaths = reader.jsonPaths(node, path, "identityJsonPaths",
                                              !resource.isDescriptor && !isExtension);
    if (!resource.isDescriptor && !isExtension && resource.identityPaths.empty())
        reader.fail(memberPath(path, "identityJsonPaths"), "a resource needs at least one identity path");
    if (resource.isSubclass && resource.subclassType != "association" && resource.identityPaths.size() != 1)
        reader.fail(memberPath(path, "identityJsonPaths"),
                    "a subclass renames its identity to the superclass's, so it needs exactly one identity path");
}

DescriptorMapping readDescriptorMapping(const SchemaReader &reader, const Json &mapping,
                                        const std::string &here, const std::string &name)
{
    DescriptorMapping descriptor;
    descriptor.name = name;
    descriptor.descriptorProjectName = reader.string(mapping, here, "projectName");
    descriptor.descriptorResourceName = reader.string(mapping, here, "resourceName");
    auto pathIt = mapping.find("path");
    if (pathIt == mapping.end())
        reader.fail(here, "required member 'path' is missing");
    descriptor.path = reader.jsonPath(*pathIt, memberPath(here, "path"));
    return descriptor;
}

ReferenceMapping readReferenceMapping(const SchemaReader &reader, const Json &mapping,
                                      const std::string &here, const std::string &name)
{
    ReferenceMapping reference;
    reference.name = name;
    reference.targetProjectName = reader.string(mapping, here, "projectName");
    reference.targetResourceName = reader.string(mapping, here, "resourceName");
    reference.isRequired = reader.boolean(mapping, here, "isRequired", false);
    auto pairsIt = mapping.find("referenceJsonPaths");
    const std::string pairsPath = memberPath(here, "referenceJsonPaths");
    if (pairsIt == mapping.end() || !pairsIt->is_array() || pairsIt->empty())
        reader.fail(pairsPath, "expected a non-empty array");
    for (std::size_t i = 0; i < pairsIt->size(); ++i) {
        const Json &pair = (*pairsIt)[i];
        const std::string pairPath = pairsPath + "[" + std::to_string(i) + "]";
        if (!pair.is_object())
            reader.fail(pairPath, "expected an object");
        if (!pair.contains("identityJsonPath") || !pair.contains("referenceJsonPath"))
            reader.fail(pairPath, "needs 'identityJsonPath' and 'referenceJsonPath'");
        reference.paths.push_back({reader.jsonPath(pair["identityJsonPath"], memberPath(pairPath, "identityJsonPath")),
                                   reader.jsonPath(pair["referenceJsonPath"], memberPath(pairPath, "referenceJsonPath"))});
        // The reference object is found from the steps before the last; "$" has none (and
        // made referenceObjectPath index before the start).
        if (reference.paths.back().referencePath.steps().empty())
            reader.fail(memberPath(pairPath, "referenceJsonPath"),
                        "a reference path needs at least one property");
    }
    reference.objectPath = referenceObjectPath(reference.paths);
    return reference;
}

// The references and descriptors of documentPathsMapping; other mappings are not read.
void readDocumentPathsMapping(const SchemaReader &reader, const Json &node, const std::string &path,
                              ResourceSchema &resource)
{
    const Json &mappings = reader.object(node, path, "documentPathsMapping");
    const std::string mappingsPath = memberPath(path, "documentPathsMapping");
    for (auto it = mappings.begin(); it != mappings.end(); ++it) {
        const std::string here = memberPath(mappingsPath, it.key());
        const Json &mapping = it.value();
        if (!mapping.is_object())
            reader.fail(here, "expected an object");
        if (!reader.boolean(mapping, here, "isReference", false))
            continue;
        if (reader.boolean(mapping, here, "isDescriptor", false)) {
            resource.descriptors.push_back(readDescriptorMapping(reader, mapping, here, it.key()));
            continue;
        }
        resource.references.push_back(readReferenceMapping(reader, mapping, here, it.key()));
    }
}

void readEqualityConstraints(const SchemaReader &reader, const Json &node, const std::string &path,
                             ResourceSchema &resource)
{
    auto constraintsIt = node.find("equalityConstraints");
    if (constraintsIt != node.end() && !constraintsIt->is_null()) {
        const std::string here = memberPath(path, "equalityConstraints");
        if (!constraintsIt->is_array())
            reader.fail(here, "expected an array");
        for (std::size_t i = 0; i < constraintsIt->size(); ++i) {
            const Json &c = (*constraintsIt)[i];
            const std::string cPath = here + "[" + std::to_string(i) + "]";
            if (!c.is_object() || !c.contains("sourceJsonPath") || !c.contains("targetJsonPath"))
                reader.fail(cPath, "needs 'sourceJsonPath' and 'targetJsonPath'");
            resource.equalityConstraints.push_back(
                {reader.jsonPath(c["sourceJsonPath"], memberPath(cPath, "sourceJsonPath")),
                 reader.jsonPath(c["targetJsonPath"], memberPath(cPath, "targetJsonPath"))});
        }
    }
}

// Newer ApiSchema files key a collection inside a collection item by `nestedConstraints`: paths relative
// to a `basePath` ("$.addresses[*]" and "$.periods[*].beginDate"), kept here as whole paths.
void readNestedUniquenessConstraints(const SchemaReader &reader, const Json &constraint, const std::string &path,
                                     ResourceSchema &resource)
{
    auto nestedIt = constraint.find("nestedConstraints");
    if (nestedIt == constraint.end() || nestedIt->is_null())
        return;
    const std::string here = memberPath(path, "nestedConstraints");
    if (!nestedIt->is_array())
        reader.fail(here, "expected an array");
    for (std::size_t i = 0; i < nestedIt->size(); ++i) {
        const Json &nested = (*nestedIt)[i];
        const std::string nPath = here + "[" + std::to_string(i) + "]";
        if (!nested.is_object() || !nested.contains("basePath") || !nested["basePath"].is_string())
            reader.fail(nPath, "needs a 'basePath' string");
        const std::string base = nested["basePath"].get<std::string>();
        std::vector<JsonPath> whole;
        for (const JsonPath &relative : reader.jsonPaths(nested, nPath, "paths", true))
            whole.push_back(reader.jsonPath(Json(base + relative.text().substr(1)), memberPath(nPath, "paths")));
        resource.nestedArrayUniquenessConstraints.push_back(std::move(whole));
        readNestedUniquenessConstraints(reader, nested, nPath, resource);
    }
}

void readArrayUniquenessConstraints(const SchemaReader &reader, const Json &node, const std::string &path,
                                    ResourceSchema &resource)
{
    auto uniquenessIt = node.find("arrayUniquenessConstraints");
    if (uniquenessIt != node.end() && !uniquenessIt->is_null()) {
        const std::string here = memberPath(path, "arrayUniquenessConstraints");
        if (!uniquenessIt->is_array())
            reader.fail(here, "expected an array");
        for (std::size_t i = 0; i < uniquenessIt->size(); ++i) {
            const Json &c = (*uniquenessIt)[i];
            const std::string cPath = here + "[" + std::to_string(i) + "]";
            if (!c.is_object())
                reader.fail(cPath, "expected an object");
            std::vector<JsonPath> paths = reader.jsonPaths(c, cPath, "paths", false);
            if (!paths.empty())
                resource.arrayUniquenessConstraints.push_back(std::move(paths));
            readNestedUniquenessConstraints(reader, c, cPath, resource);
        }
    }
}

// Reads after the numeric paths: a query field's type depends on them.
void readQueryFields(const SchemaReader &reader, const Json &node, const std::string &path,
                     ResourceSchema &resource)
{
    if (const Json *query = reader.optionalObject(node, path, "queryFieldMapping")) {
        const std::string here = memberPath(path, "queryFieldMapping");
        for (auto it = query->begin(); it != query->end(); ++it) {
            const std::string fieldPath = memberPath(here, it.key());
            if (!it->is_array())
                reader.fail(fieldPath, "expected an array");
            QueryField field;
            field.name = it.key();
            for (std::size_t i = 0; i < it->size(); ++i) {
                const Json &entry = (*it)[i];
                const std::string entryPath = fieldPath + "[" + std::to_string(i) + "]";
                if (!entry.is_object() || !entry.contains("path"))
                    reader.fail(entryPath, "needs 'path'");
                QueryFieldPath queryPath{reader.jsonPath(entry["path"], memberPath(entryPath, "path")),
                                         reader.optionalString(entry, entryPath, "type")};
                // The published files type some numbers as strings (every schoolYear); the value is
                // stored as a number, so it is compared as one.
                if (resource.numericPaths.count(queryPath.path.text()) && queryPath.type == "string")
                    queryPath.type = "number";
                field.paths.push_back(std::move(queryPath));
            }
            resource.queryFields[toLower(it.key())] = std::move(field);
        }
    }
}

// The query name ODS/API gives a value of a role-named reference: the reference's name, then the
// leaf, sharing the words they have in common ($.nextYearSchoolReference.schoolId -> nextYearSchoolId,
// $.parentLocalEducationAgencyReference.localEducationAgencyId -> parentLocalEducationAgencyId,
// $.sessionReference.schoolId -> sessionSchoolId).
std::string roleQueryName(const JsonPath &path)
{
    const std::vector<JsonPath::Step> &steps = path.steps();
    if (steps.size() < 2 || steps[steps.size() - 2].isArray())
        return {};
    std::string role = steps[steps.size() - 2].property;
    const std::string &leaf = steps.back().property;
    if (role.size() <= 9 || role.compare(role.size() - 9, 9, "Reference") != 0 || leaf.empty())
        return {};
    role.resize(role.size() - 9);
    std::string capitalized = leaf;
    capitalized[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(capitalized[0])));
    // The longest run of whole words the reference's name ends with and the leaf starts with.
    for (std::size_t shared = std::min(leaf.size(), role.size()); shared > 0; --shared) {
        const bool wordEnds = shared == leaf.size() || std::isupper(static_cast<unsigned char>(leaf[shared]));
        if (wordEnds && role.compare(role.size() - shared, shared, capitalized, 0, shared) == 0)
            return role + leaf.substr(shared);
    }
    return role + capitalized;
}

// The published files give a query name to one path only, and where an identity value and another
// reference's value share a leaf name they kept the other one: studentSchoolAssociations?schoolId
// filtered on the next year's school, localEducationAgencies?localEducationAgencyId on the parent
// agency. ODS/API gives identity values their plain names and role-named references role names,
// and clients find records by identity names (a delete looks each record up by them): so does this.
void giveIdentityValuesTheirNames(ResourceSchema &resource)
{
    for (const JsonPath &identity : resource.identityPaths) {
        const std::string leaf = identity.steps().empty() ? std::string() : identity.steps().back().property;
        auto named = resource.queryFields.find(toLower(leaf));
        if (leaf.empty() || named == resource.queryFields.end())
            continue;
        std::vector<QueryFieldPath> &paths = named->second.paths;
        // Two identity values of one leaf name (a CourseOffering's school and its session's school)
        // hold one value: the name already answers for both.
        const auto isIdentity = [&resource](const QueryFieldPath &p) {
            return std::any_of(resource.identityPaths.begin(), resource.identityPaths.end(),
                               [&p](const JsonPath &identityPath) { return p.path == identityPath; });
        };
        if (std::any_of(paths.begin(), paths.end(), isIdentity))
            continue;
        std::string type = paths.empty() ? std::string("string") : paths.front().type;
        if (resource.numericPaths.count(identity.text()) && type == "string")
            type = "number";
        for (QueryFieldPath &displaced : paths) {
            const std::string roleName = roleQueryName(displaced.path);
            if (!roleName.empty() && resource.queryFields.count(toLower(roleName)) == 0)
                resource.queryFields[toLower(roleName)] = QueryField{roleName, {displaced}};
        }
        named = resource.queryFields.find(toLower(leaf));
        named->second.paths = {QueryFieldPath{identity, type}};
    }
}

void readJsonSchema(const SchemaReader &reader, const Json &node, const std::string &path,
                    ResourceSchema &resource)
{
    resource.jsonSchema = reader.object(node, path, "jsonSchemaForInsert");
    // Compared as JSON: Json::value("type", "") threw type_error when 'type' was not a string.
    auto typeIt = resource.jsonSchema.find("type");
    if (typeIt == resource.jsonSchema.end() || *typeIt != "object")
        reader.fail(memberPath(path, "jsonSchemaForInsert"), "expected a JSON Schema of type 'object'");
    // Extensions merge under 'properties', which threw type_error when it was not an object.
    reader.optionalObject(resource.jsonSchema, memberPath(path, "jsonSchemaForInsert"), "properties");
}

std::unique_ptr<ResourceSchema> readResource(const SchemaReader &reader, const Json &node, const std::string &path,
                                             const std::string &endpointName, const Project *project)
{
    if (!node.is_object())
        reader.fail(path, "expected an object");
    auto resource = std::make_unique<ResourceSchema>();
    resource->project = project;
    resource->endpointName = endpointName;
    resource->resourceName = reader.string(node, path, "resourceName");
    resource->isDescriptor = reader.boolean(node, path, "isDescriptor", false);
    resource->isSchoolYearEnumeration = reader.boolean(node, path, "isSchoolYearEnumeration", false);
    resource->isSubclass = reader.boolean(node, path, "isSubclass", false);
    resource->allowIdentityUpdates = reader.boolean(node, path, "allowIdentityUpdates", false);
    const bool isExtension = reader.boolean(node, path, "isResourceExtension", false);
    if (resource->isSubclass)
        readSubclass(reader, node, path, *resource);
    readIdentityPaths(reader, node, path, isExtension, *resource);

    readDocumentPathsMapping(reader, node, path, *resource);
    readEqualityConstraints(reader, node, path, *resource);
    readArrayUniquenessConstraints(reader, node, path, *resource);

    resource->numericPaths = reader.pathSet(node, path, "numericJsonPaths");
    resource->booleanPaths = reader.pathSet(node, path, "booleanJsonPaths");
    resource->dateTimePaths = reader.pathSet(node, path, "dateTimeJsonPaths");

    readQueryFields(reader, node, path, *resource);
    giveIdentityValuesTheirNames(*resource);
    readJsonSchema(reader, node, path, *resource);
    return resource;
}

// Rewrites "$._ext.x" to "$._ext.<project>.x" when an older file leaves out the project level.
std::string extensionPath(const std::string &text, const std::string &projectEndpoint)
{
    const std::string prefix = "$._ext.";
    if (text.rfind(prefix, 0) != 0 || text.rfind(prefix + projectEndpoint + ".", 0) == 0)
        return text;
    return prefix + projectEndpoint + "." + text.substr(prefix.size());
}

JsonPath extensionPath(const JsonPath &path, const std::string &projectEndpoint)
{
    return JsonPath(extensionPath(path.text(), projectEndpoint));
}

void addExtensionPaths(ResourceSchema &core, const ResourceSchema &extension, const std::string &projectEndpoint);

// Folds a resource extension (an extension project's additions to a core resource) into the core resource.
void mergeExtension(ResourceSchema &core, const ResourceSchema &extension, const std::string &projectEndpoint,
                    const SchemaReader &reader, const std::string &path)
{
    const Json *extProperties = nullptr;
    auto props = extension.jsonSchema.find("properties");
    if (props != extension.jsonSchema.end() && props->contains("_ext"))
        extProperties = &(*props)["_ext"];
    if (extProperties == nullptr)
        return;
    Json extSchema = *extProperties;
    Json &coreProperties = core.jsonSchema["properties"];
    if (extSchema.contains("properties") && extSchema["properties"].contains(projectEndpoint))
        extSchema = extSchema["properties"][projectEndpoint];
    Json &ext = coreProperties["_ext"];
    if (!ext.is_object())
        ext = Json{{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}};
    Json &merged = ext["properties"];
    if (!merged.is_null() && !merged.is_object())
        reader.fail(path, "cannot merge into " + core.resourceName
                              + ": its schema's '_ext.properties' is not an object");
    merged[projectEndpoint] = extSchema;
    try {
        addExtensionPaths(core, extension, projectEndpoint);
    } catch (const std::invalid_argument &e) {
        // The endpoint name becomes a step of every path: "a.b" or "x[0" would break them.
        reader.fail(path, "cannot merge into " + core.resourceName + ": the extension's paths under '_ext."
                              + projectEndpoint + "' are not valid JSON paths (" + e.what() + ")");
    }
}

// The extension's descriptor, reference, type and constraint paths, moved under _ext.<project>.
void addExtensionPaths(ResourceSchema &core, const ResourceSchema &extension, const std::string &projectEndpoint)
{
    for (DescriptorMapping descriptor : extension.descriptors) {
        descriptor.path = extensionPath(descriptor.path, projectEndpoint);
        core.descriptors.push_back(std::move(descriptor));
    }
    for (ReferenceMapping reference : extension.references) {
        for (ReferencePathPair &pair : reference.paths)
            pair.referencePath = extensionPath(pair.referencePath, projectEndpoint);
        reference.objectPath = extensionPath(reference.objectPath, projectEndpoint);
        core.references.push_back(std::move(reference));
    }
    for (const std::string &p : extension.numericPaths)
        core.numericPaths.insert(extensionPath(p, projectEndpoint));
    for (const std::string &p : extension.booleanPaths)
        core.booleanPaths.insert(extensionPath(p, projectEndpoint));
    for (const std::string &p : extension.dateTimePaths)
        core.dateTimePaths.insert(extensionPath(p, projectEndpoint));
    for (const EqualityConstraint &c : extension.equalityConstraints)
        core.equalityConstraints.push_back(
            {extensionPath(c.source, projectEndpoint), extensionPath(c.target, projectEndpoint)});
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw SchemaLoadError(path, "", "cannot be read");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

Json parseSchemaText(const std::string &name, const std::string &text)
{
    JsonParseLimits limits;
    limits.maxBytes = 512u * 1024 * 1024;
    JsonParseResult parsed = parseJson(text, limits);
    if (!parsed.value)
        throw SchemaLoadError(name, "", parsed.error);
    return std::move(*parsed.value);
}

} // namespace

std::string readSchemaFile(const std::string &path)
{
    return readFile(path);
}

Model::Model() = default;
Model::~Model() = default;

std::unique_ptr<Model> Model::loadFiles(const std::vector<std::string> &paths)
{
    std::vector<std::pair<std::string, Json>> documents;
    for (const std::string &path : paths)
        documents.emplace_back(path, parseSchemaText(path, readFile(path)));
    return loadDocuments(documents);
}

std::unique_ptr<Model> Model::loadTexts(const std::vector<std::pair<std::string, std::string>> &namedTexts)
{
    std::vector<std::pair<std::string, Json>> documents;
    for (const auto &[name, text] : namedTexts)
        documents.emplace_back(name, parseSchemaText(name, text));
    return loadDocuments(documents);
}

std::string Model::starterText()
{
    const QString resourcePath = QStringLiteral(":/steward/starter-model/ApiSchema-Starter.json");
    QFile file(resourcePath);
    if (!file.open(QIODevice::ReadOnly))
        throw SchemaLoadError(resourcePath.toStdString(), "", "the embedded starter model is missing from this build");
    return file.readAll().toStdString();
}

std::unique_ptr<Model> Model::loadStarter()
{
    return loadTexts({{"starter model", starterText()}});
}

std::unique_ptr<Model> Model::loadDocuments(const std::vector<std::pair<std::string, Json>> &documents)
{
    auto model = std::make_unique<Model>();
    for (const auto &[name, document] : documents)
        model->addDocument(name, document);
    if (model->m_projects.empty())
        throw SchemaLoadError("(no file)", "", "no schema was given");
    model->link();
    // Compiling now turns a schema valijson cannot read into a load error instead of a failed request.
    model->m_validator = std::make_unique<DocumentValidator>(*model);
    model->m_validator->compileAll();
    return model;
}

void Model::addDocument(const std::string &file, const Json &document)
{
    SchemaReader reader(file);
    if (!document.is_object())
        reader.fail("$", "expected an ApiSchema object");
    std::vector<std::pair<std::string, const Json *>> projectNodes;
    if (auto single = document.find("projectSchema"); single != document.end()) {
        if (!single->is_object())
            reader.fail("$.projectSchema", "expected an object");
        projectNodes.emplace_back("$.projectSchema", &*single);
    } else if (auto many = document.find("projectSchemas"); many != document.end()) {
        if (!many->is_object() || many->empty())
            reader.fail("$.projectSchemas", "expected an object with at least one project");
        for (auto it = many->begin(); it != many->end(); ++it) {
            if (!it->is_object())
                reader.fail(memberPath("$.projectSchemas", it.key()), "expected an object");
            projectNodes.emplace_back(memberPath("$.projectSchemas", it.key()), &it.value());
            if (!it->contains("projectEndpointName"))
                const_cast<Json &>(it.value())["projectEndpointName"] = it.key();
        }
    } else {
        reader.fail("$", "not an ApiSchema file: neither 'projectSchema' nor 'projectSchemas' is present");
    }

    for (const auto &[path, nodePtr] : projectNodes) {
        const Json &node = *nodePtr;
        auto project = std::make_unique<Project>();
        project->sourceFile = file;
        project->projectName = reader.string(node, path, "projectName");
        project->projectEndpointName = toLower(reader.string(node, path, "projectEndpointName"));
        project->projectVersion = reader.optionalString(node, path, "projectVersion");
        project->isExtensionProject = reader.boolean(node, path, "isExtensionProject", false);
        for (const auto &existing : m_projects)
            if (existing->projectEndpointName == project->projectEndpointName)
                reader.fail(path, "project '" + project->projectEndpointName + "' is already loaded from "
                                      + existing->sourceFile);

        if (const Json *abstracts = reader.optionalObject(node, path, "abstractResources")) {
            for (auto it = abstracts->begin(); it != abstracts->end(); ++it) {
                const std::string here = memberPath(memberPath(path, "abstractResources"), it.key());
                if (!it->is_object())
                    reader.fail(here, "expected an object");
                AbstractResource abstract;
                abstract.resourceName = it.key();
                abstract.identityPaths = reader.jsonPaths(it.value(), here, "identityJsonPaths", true);
                project->abstractResources[it.key()] = std::move(abstract);
            }
        }

        const Json &resources = reader.object(node, path, "resourceSchemas");
        const std::string resourcesPath = memberPath(path, "resourceSchemas");
        std::vector<std::unique_ptr<ResourceSchema>> extensions;
        std::vector<std::string> extensionPaths;
        for (auto it = resources.begin(); it != resources.end(); ++it) {
            const std::string here = memberPath(resourcesPath, it.key());
            std::unique_ptr<ResourceSchema> resource = readResource(reader, it.value(), here, it.key(), project.get());
            if (reader.boolean(it.value(), here, "isResourceExtension", false)) {
                extensions.push_back(std::move(resource));
                extensionPaths.push_back(here);
                continue;
            }
            const std::string key = toLower(it.key());
            if (project->resources.count(key))
                reader.fail(here, "endpoint '" + it.key() + "' appears twice (names are case-insensitive)");
            project->resources[key] = std::move(resource);
        }
        for (std::size_t i = 0; i < extensions.size(); ++i) {
            ResourceSchema *core = nullptr;
            for (const auto &other : m_projects)
                if (!other->isExtensionProject)
                    for (auto &[key, candidate] : other->resources)
                        if (candidate->resourceName == extensions[i]->resourceName)
                            core = candidate.get();
            if (core == nullptr)
                reader.fail(extensionPaths[i], "extends resource '" + extensions[i]->resourceName
                                                   + "', which no core project loaded before this file has");
            mergeExtension(*core, *extensions[i], project->projectEndpointName, reader, extensionPaths[i]);
        }
        m_projects.push_back(std::move(project));
    }
}

void Model::link()
{
    for (const auto &project : m_projects)
        for (const auto &[key, resource] : project->resources)
            m_byName[{project->projectName, resource->resourceName}] = resource.get();
    for (const auto &project : m_projects) {
        for (auto &[key, resource] : project->resources) {
            // A name must say which of the two it is; a resource that is its own superclass made
            // identity calculation (IdentityCalculator::carriesDescriptor) recurse without end.
            if (project->abstractResources.count(resource->resourceName))
                throw SchemaLoadError(project->sourceFile, "$.resourceSchemas." + resource->endpointName,
                                      "'" + resource->resourceName
                                          + "' names both a resource and an abstract resource");
            if (resource->isSubclass) {
                const Project *superProject = nullptr;
                for (const auto &p : m_projects)
                    if (p->projectName == resource->superclassProjectName)
                        superProject = p.get();
                if (superProject == nullptr)
                    throw SchemaLoadError(project->sourceFile, "$.resourceSchemas." + resource->endpointName,
                                          "superclass project '" + resource->superclassProjectName + "' is not loaded");
                auto abstractIt = const_cast<Project *>(superProject)->abstractResources.find(resource->superclassResourceName);
                if (abstractIt != superProject->abstractResources.end())
                    abstractIt->second.subclasses.push_back(resource.get());
            }
        }
    }
    // Some published extension files name their own project on references to core resources (TPDM
    // 1.1 says "TPDM" for Person and Section). Identities hash the owning project's name, so such a
    // target is re-homed to the one project that defines a resource of that name.
    auto owningProject = [this](const std::string &named, const std::string &resourceName) {
        if (findByName(named, resourceName) || findAbstract(named, resourceName))
            return named;
        std::string owner;
        for (const auto &p : m_projects) {
            bool has = p->abstractResources.count(resourceName) > 0;
            for (const auto &[k, r] : p->resources)
                has = has || r->resourceName == resourceName;
            if (has) {
                if (!owner.empty())
                    return named; // ambiguous: leave it for the error below
                owner = p->projectName;
            }
        }
        return owner.empty() ? named : owner;
    };
    for (const auto &project : m_projects) {
        for (auto &[key, resource] : project->resources) {
            for (ReferenceMapping &reference : resource->references)
                reference.targetProjectName = owningProject(reference.targetProjectName, reference.targetResourceName);
            for (DescriptorMapping &descriptor : resource->descriptors)
                descriptor.descriptorProjectName =
                    owningProject(descriptor.descriptorProjectName, descriptor.descriptorResourceName);
        }
    }
    // Every reference must point at something this model knows, or requests would fail obscurely later.
    for (const auto &project : m_projects) {
        for (const auto &[key, resource] : project->resources) {
            for (const ReferenceMapping &reference : resource->references) {
                if (!findByName(reference.targetProjectName, reference.targetResourceName)
                    && !findAbstract(reference.targetProjectName, reference.targetResourceName))
                    throw SchemaLoadError(project->sourceFile,
                                          "$.resourceSchemas." + resource->endpointName + ".documentPathsMapping."
                                              + reference.name,
                                          "references " + reference.targetProjectName + " resource '"
                                              + reference.targetResourceName + "', which no loaded schema defines");
            }
        }
    }
    addDescriptorsInsideReferences();
}

void Model::addDescriptorsInsideReferences()
{
    // A reference can carry a descriptor URI as part of its target's identity (a Staff's
    // personReference.sourceSystemDescriptor). The published files list such a value only as part of
    // the reference, yet ODS/API and DMS check it as a descriptor, before references (stage 3).
    for (const auto &project : m_projects) {
        for (auto &[key, resource] : project->resources) {
            std::vector<DescriptorMapping> found;
            for (const ReferenceMapping &reference : resource->references) {
                std::vector<const ResourceSchema *> targets;
                if (const ResourceSchema *target = findByName(reference.targetProjectName, reference.targetResourceName))
                    targets.push_back(target);
                else if (const AbstractResource *abstract =
                             findAbstract(reference.targetProjectName, reference.targetResourceName))
                    targets = abstract->subclasses;
                for (const ReferencePathPair &pair : reference.paths) {
                    for (const ResourceSchema *target : targets) {
                        auto descriptor = std::find_if(target->descriptors.begin(), target->descriptors.end(),
                                                       [&](const DescriptorMapping &d) {
                                                           return d.path == pair.identityPath;
                                                       });
                        if (descriptor == target->descriptors.end())
                            continue;
                        const bool known = std::any_of(resource->descriptors.begin(), resource->descriptors.end(),
                                                       [&](const DescriptorMapping &d) {
                                                           return d.path == pair.referencePath;
                                                       });
                        if (!known)
                            found.push_back({reference.name + "." + descriptor->name,
                                             descriptor->descriptorProjectName,
                                             descriptor->descriptorResourceName, pair.referencePath});
                        break;
                    }
                }
            }
            resource->descriptors.insert(resource->descriptors.end(), found.begin(), found.end());
        }
    }
}

const Project *Model::findProjectByEndpoint(const std::string &projectEndpoint) const
{
    const std::string key = toLower(projectEndpoint);
    for (const auto &project : m_projects)
        if (project->projectEndpointName == key)
            return project.get();
    return nullptr;
}

const ResourceSchema *Model::findByEndpoint(const std::string &projectEndpoint, const std::string &endpoint) const
{
    const Project *project = findProjectByEndpoint(projectEndpoint);
    if (project == nullptr)
        return nullptr;
    auto it = project->resources.find(toLower(endpoint));
    return it == project->resources.end() ? nullptr : it->second.get();
}

const ResourceSchema *Model::findByPath(const std::string &path) const
{
    const std::size_t slash = path.find('/');
    return slash == std::string::npos ? nullptr : findByEndpoint(path.substr(0, slash), path.substr(slash + 1));
}

const ResourceSchema *Model::findByName(const std::string &projectName, const std::string &resourceName) const
{
    auto it = m_byName.find({projectName, resourceName});
    return it == m_byName.end() ? nullptr : it->second;
}

const AbstractResource *Model::findAbstract(const std::string &projectName, const std::string &resourceName) const
{
    for (const auto &project : m_projects) {
        if (project->projectName != projectName)
            continue;
        auto it = project->abstractResources.find(resourceName);
        if (it != project->abstractResources.end())
            return &it->second;
    }
    return nullptr;
}

std::vector<const ResourceSchema *> Model::resources() const
{
    std::vector<const ResourceSchema *> out;
    for (const auto &project : m_projects)
        for (const auto &[key, resource] : project->resources)
            out.push_back(resource.get());
    return out;
}

std::string Model::describe() const
{
    std::string out;
    for (const auto &project : m_projects) {
        if (!out.empty())
            out += " + ";
        out += project->projectName + (project->projectVersion.empty() ? "" : " " + project->projectVersion);
    }
    return out;
}

} // namespace steward
