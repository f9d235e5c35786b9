#pragma once

#include "Json.h"
#include "JsonPath.h"

#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace steward {

// A schema file that cannot be used: names the file and the JSON path inside it.
class SchemaLoadError : public std::runtime_error
{
public:
    SchemaLoadError(const std::string &file, const std::string &jsonPath, const std::string &message);
    const std::string &file() const { return m_file; }
    const std::string &jsonPath() const { return m_jsonPath; }

private:
    std::string m_file;
    std::string m_jsonPath;
};

struct ReferencePathPair
{
    JsonPath identityPath;  // in the target resource
    JsonPath referencePath; // in the referencing document
};

struct ReferenceMapping
{
    std::string name; // the documentPathsMapping key, e.g. "LocationSchool"
    std::string targetProjectName;
    std::string targetResourceName;
    bool isRequired = false;
    std::vector<ReferencePathPair> paths;
    JsonPath objectPath; // the reference object: "$.schoolReference", "$.classPeriods[*].classPeriodReference"
};

struct DescriptorMapping
{
    std::string name;
    std::string descriptorProjectName;
    std::string descriptorResourceName;
    JsonPath path;
};

struct EqualityConstraint
{
    JsonPath source;
    JsonPath target;
};

struct QueryFieldPath
{
    JsonPath path;
    std::string type; // "string", "number", "boolean", "date", "date-time", ...
};

struct QueryField
{
    std::string name;
    std::vector<QueryFieldPath> paths;
};

struct Project;
class DocumentValidator;

struct ResourceSchema
{
    const Project *project = nullptr;
    std::string resourceName;
    std::string endpointName;
    bool isDescriptor = false;
    bool isSchoolYearEnumeration = false;
    bool isSubclass = false;
    bool allowIdentityUpdates = false;
    std::string subclassType;
    std::string superclassProjectName;
    std::string superclassResourceName;
    std::string superclassIdentityPath;
    std::vector<JsonPath> identityPaths;
    std::vector<ReferenceMapping> references;
    std::vector<DescriptorMapping> descriptors;
    std::vector<EqualityConstraint> equalityConstraints;
    std::vector<std::vector<JsonPath>> arrayUniquenessConstraints;
    // Keys of collections inside collection items ("$.addresses[*].periods[*].beginDate"): whole paths.
    std::vector<std::vector<JsonPath>> nestedArrayUniquenessConstraints;
    std::set<std::string> numericPaths;
    std::set<std::string> booleanPaths;
    std::set<std::string> dateTimePaths;
    std::map<std::string, QueryField> queryFields; // keyed by lower-cased name
    Json jsonSchema;

    const std::string &projectName() const;
    // "ed-fi/schools": how import lines, batches and mappings name the resource.
    std::string resourceKey() const;
    // The API path of the collection ("/ed-fi/schools"), or of one document in it when id is given.
    std::string requestPath(const std::string &id = {}) const;
    // True when the value at this identity path of this resource is a descriptor URI.
    bool isDescriptorPath(const std::string &path) const;
};

struct AbstractResource
{
    std::string resourceName;
    std::vector<JsonPath> identityPaths;
    std::vector<const ResourceSchema *> subclasses;
};

struct Project
{
    std::string projectName;
    std::string projectEndpointName;
    std::string projectVersion;
    bool isExtensionProject = false;
    std::string sourceFile;
    std::map<std::string, std::unique_ptr<ResourceSchema>> resources; // keyed by lower-cased endpoint name
    std::map<std::string, AbstractResource> abstractResources;        // keyed by resource name
};

// The loaded data model: a core data standard plus any extensions.
class Model
{
public:
    Model();
    ~Model();
    Model(const Model &) = delete;
    Model &operator=(const Model &) = delete;

    // Each file is parsed and checked; throws SchemaLoadError on the first problem.
    static std::unique_ptr<Model> loadFiles(const std::vector<std::string> &paths);
    // ApiSchema texts with a display name each (for errors), as files or a database hold them.
    static std::unique_ptr<Model> loadTexts(const std::vector<std::pair<std::string, std::string>> &namedTexts);
    // The starter model compiled into the engine.
    static std::unique_ptr<Model> loadStarter();
    // The starter model's ApiSchema text, as this build carries it.
    static std::string starterText();
    // Parsed ApiSchema documents with a display name each (for errors).
    static std::unique_ptr<Model> loadDocuments(const std::vector<std::pair<std::string, Json>> &documents);

    const std::vector<std::unique_ptr<Project>> &projects() const { return m_projects; }
    const Project *findProjectByEndpoint(const std::string &projectEndpoint) const;
    const ResourceSchema *findByEndpoint(const std::string &projectEndpoint, const std::string &endpoint) const;
    // "ed-fi/schools", as import envelopes and batch manifests name resources; null without a '/'.
    const ResourceSchema *findByPath(const std::string &path) const;
    const ResourceSchema *findByName(const std::string &projectName, const std::string &resourceName) const;
    const AbstractResource *findAbstract(const std::string &projectName, const std::string &resourceName) const;
    // Every concrete resource of every project, in a stable order.
    std::vector<const ResourceSchema *> resources() const;
    std::string describe() const; // "Ed-Fi 5.1.0 + TPDM 1.1.0"
    // Every resource's JSON Schema, compiled when the model was loaded.
    const DocumentValidator &validator() const { return *m_validator; }

private:
    void addDocument(const std::string &file, const Json &document);
    void link();
    void addDescriptorsInsideReferences();

    std::vector<std::unique_ptr<Project>> m_projects;
    std::map<std::pair<std::string, std::string>, const ResourceSchema *> m_byName;
    std::unique_ptr<DocumentValidator> m_validator;
};

std::string toLower(std::string text);
// A schema file's bytes; throws SchemaLoadError naming the file when it cannot be read.
std::string readSchemaFile(const std::string &path);

} // namespace steward
