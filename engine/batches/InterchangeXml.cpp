#include "InterchangeXml.h"

#include "XmlInterchangeSource.h"
#include "XmlText.h"
#include "Text.h"

#include <QFile>
#include <QXmlStreamReader>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace steward {

namespace {

// One top-level element is held as a tree while it is mapped; these caps keep a runaway element
// (or a hostile file) from exhausting memory. Ed-Fi's largest documents are far below them.
constexpr qsizetype kMaxElementChars = 8 * 1024 * 1024;
constexpr std::size_t kMaxElementNodes = 200000;
constexpr int kMaxDepth = 64;
// id attributes remembered per file for ref attributes; each holds only an identity.
constexpr std::size_t kMaxIds = 200000;

struct XmlNode
{
    QString name; // local name
    QString namespaceUri;
    std::int64_t line = 0;
    QString id;  // the id attribute (ComplexObjectType, ReferenceType)
    QString ref; // the ref attribute (ReferenceType)
    QString text;
    std::vector<XmlNode> children;
};

std::string lower(const QString &text)
{
    return text.toLower().toStdString();
}

// A JSON Schema property a child element maps to.
struct PropertyMatch
{
    std::string property;
    const Json *schema = nullptr;
};

// The properties of one JSON Schema object, looked up the ways interchange names differ from
// JSON names (see findProperty).
struct PropertyIndex
{
    std::map<std::string, PropertyMatch> byLowerName;
    // Array properties by their lower-cased singular forms, longest first.
    std::vector<std::pair<std::string, PropertyMatch>> arraysBySingular;
};

// Where mapped values go: an object schema, the resource whose references are looked up by the
// JSON path of the object, and that path ("$", "$.classPeriods[*]").
struct Scope
{
    const Json *schema = nullptr;
    const ResourceSchema *resource = nullptr;
    std::string path;
};

// Problems found in one top-level element, each naming the element and line it is about.
class Problems
{
public:
    void add(const XmlNode &node, const std::string &message)
    {
        m_list.push_back("<" + node.name.toStdString() + "> on line " + std::to_string(node.line) + ": " +
                         message);
    }
    bool empty() const { return m_list.empty(); }
    std::string joined() const
    {
        std::string out;
        for (std::size_t i = 0; i < m_list.size(); ++i)
            out += (i ? "; " : "") + m_list[i];
        return out;
    }

private:
    std::vector<std::string> m_list;
};

// What an id attribute stands for: the identity of the element that carries it.
struct IdEntry
{
    std::string resourceName; // the element's resource (or a reference declaration's target)
    const ResourceSchema *resource = nullptr;
    Json identity; // a partial document holding the identity values at their identity paths
};

// Maps interchange elements to JSON documents by the model's JSON Schemas and reference paths.
class Mapper
{
public:
    Mapper(const Model &model, QString xmlNamespace) : m_model(model), m_namespace(std::move(xmlNamespace)) {}

    void setIds(const std::unordered_map<QString, IdEntry> *ids) { m_ids = ids; }
    // The school years met since the last call (see noteSchoolYear).
    std::vector<std::pair<const ResourceSchema *, int>> takeSchoolYears()
    {
        return std::exchange(m_schoolYears, {});
    }

    // The resource a top-level element stands for (the XSD's element names are the resource
    // names), preferring the core project when an extension has the same name.
    const ResourceSchema *findResource(const QString &element) const
    {
        const std::string name = element.toStdString();
        const ResourceSchema *found = nullptr;
        for (const auto &project : m_model.projects()) {
            const ResourceSchema *candidate = m_model.findByName(project->projectName, name);
            if (candidate != nullptr &&
                (found == nullptr || (found->project->isExtensionProject && !project->isExtensionProject)))
                found = candidate;
        }
        return found;
    }

    Json mapDocument(const XmlNode &node, const ResourceSchema &resource, Problems &problems)
    {
        Json body = Json::object();
        mapChildren(node, Scope{&resource.jsonSchema, &resource, "$"}, body, problems, {QString()});
        return body;
    }

    // The identity a top-level <XReference> (a reference declaration other elements point at with
    // ref) stands for; the target's name is set in entry.resourceName.
    bool mapDeclaration(const XmlNode &node, IdEntry &entry, Problems &problems)
    {
        const QString targetName = node.name.chopped(9) /* "Reference" */;
        const ResourceSchema *target = findResource(targetName);
        const Scope *scope = target ? &scopeFor(target->projectName(), target->resourceName) : nullptr;
        if (scope == nullptr || scope->schema == nullptr)
            return false;
        const XmlNode *identity = identityChild(node, problems);
        if (identity == nullptr)
            return false;
        entry.resourceName = target->resourceName;
        entry.resource = target;
        entry.identity = Json::object();
        mapChildren(*identity, *scope, entry.identity, problems, {QString()});
        return true;
    }

    // The identity values of a mapped document, for its id attribute.
    static Json identityOf(const ResourceSchema &resource, const Json &body)
    {
        Json identity = Json::object();
        for (const JsonPath &path : resource.identityPaths)
            if (const Json *value = path.resolve(body, {}))
                path.assign(identity, {}, *value);
        return identity;
    }

private:
    const PropertyIndex &indexFor(const Json &schema)
    {
        auto cached = m_indexes.find(&schema);
        if (cached != m_indexes.end())
            return cached->second;
        PropertyIndex &index = m_indexes[&schema];
        auto properties = schema.find("properties");
        if (properties == schema.end() || !properties->is_object())
            return index;
        for (auto it = properties->begin(); it != properties->end(); ++it) {
            const PropertyMatch match{it.key(), &it.value()};
            const std::string name = lower(QString::fromStdString(it.key()));
            index.byLowerName.emplace(name, match);
            if (it.value().value("type", "") != "array")
                continue;
            // Ed-Fi pluralizes collection names; the interchange repeats the singular element.
            std::vector<std::string> singulars{name};
            if (name.ends_with("ies"))
                singulars.push_back(name.substr(0, name.size() - 3) + "y");
            if (name.ends_with("ices")) // matrices
                singulars.push_back(name.substr(0, name.size() - 4) + "ix");
            if (name.ends_with("ses")) // diagnoses
                singulars.push_back(name.substr(0, name.size() - 3) + "sis");
            if (name.ends_with("es"))
                singulars.push_back(name.substr(0, name.size() - 2));
            if (name.ends_with("s"))
                singulars.push_back(name.substr(0, name.size() - 1));
            for (const std::string &singular : singulars)
                index.arraysBySingular.emplace_back(singular, match);
        }
        std::stable_sort(index.arraysBySingular.begin(), index.arraysBySingular.end(),
                         [](const auto &a, const auto &b) { return a.first.size() > b.first.size(); });
        return index;
    }

    // The property an element name stands for in an object schema. In order: the same name
    // (case aside: "CTEProgram" is "cteProgram"), the name plus "Descriptor" (<GradeLevel> holds a
    // gradeLevelDescriptor URI), plus "TypeReference" (<SchoolYear> is schoolYearTypeReference), a
    // collection named by the plural (<Address> repeated is addresses), and a collection whose name
    // lost a prefix that repeats its owner's name (<EducationOrganizationIdentificationCode> is
    // identificationCodes); repeated references (<ClassPeriodReference>) go to the collection too.
    std::optional<PropertyMatch> findProperty(const Json &schema, const QString &element)
    {
        if (std::optional<PropertyMatch> match = findPropertyAs(schema, element))
            return match;
        // A role name that repeats the start of the type's name is said once in JSON:
        // <FundFundDimensionReference> is fundDimensionReference.
        for (qsizetype end = 1; end <= element.size() / 2; ++end) {
            if (!element[end].isUpper())
                continue;
            const QString rest = element.mid(end);
            if (rest.startsWith(element.left(end)))
                return findPropertyAs(schema, rest);
        }
        return std::nullopt;
    }

    std::optional<PropertyMatch> findPropertyAs(const Json &schema, const QString &element)
    {
        const PropertyIndex &index = indexFor(schema);
        const std::string name = lower(element);
        for (const char *suffix : {"", "descriptor", "typereference"}) {
            auto it = index.byLowerName.find(name + suffix);
            if (it != index.byLowerName.end())
                return it->second;
        }
        for (const auto &[singular, match] : index.arraysBySingular)
            if (name == singular || name == singular + "reference")
                return match;
        for (const auto &[singular, match] : index.arraysBySingular) {
            for (const std::string &form : {singular, singular + "reference"}) {
                // Only at a word boundary of the element name: "...IdentificationCode", not "...ode".
                if (form.size() < name.size() && name.ends_with(form) &&
                    element[element.size() - qsizetype(form.size())].isUpper())
                    return match;
            }
        }
        return std::nullopt;
    }

    const ReferenceMapping *referenceAt(const ResourceSchema *resource, const std::string &path)
    {
        if (resource == nullptr)
            return nullptr;
        auto cached = m_references.find(resource);
        if (cached == m_references.end()) {
            cached = m_references.emplace(resource, std::map<std::string, const ReferenceMapping *>()).first;
            for (const ReferenceMapping &reference : resource->references)
                cached->second.emplace(reference.objectPath.text(), &reference);
        }
        auto it = cached->second.find(path);
        return it == cached->second.end() ? nullptr : it->second;
    }

    // Where a reference's identity is read: the target's schema, or for an abstract target
    // (EducationOrganization) a schema made from a subclass's plus the abstract identity.
    const Scope &scopeFor(const std::string &projectName, const std::string &resourceName)
    {
        const auto key = std::make_pair(projectName, resourceName);
        auto cached = m_targets.find(key);
        if (cached != m_targets.end())
            return cached->second;
        Scope &scope = m_targets[key];
        scope.path = "$";
        if (const ResourceSchema *concrete = m_model.findByName(projectName, resourceName)) {
            scope.schema = &concrete->jsonSchema;
            scope.resource = concrete;
            return scope;
        }
        const AbstractResource *abstract = m_model.findAbstract(projectName, resourceName);
        if (abstract == nullptr || abstract->subclasses.empty())
            return scope;
        const ResourceSchema *base = abstract->subclasses.front();
        Json synthetic =
            Json{{"type", "object"}, {"properties", base->jsonSchema.value("properties", Json::object())}};
        for (const JsonPath &path : abstract->identityPaths) {
            if (path.steps().size() != 1 || synthetic["properties"].contains(path.steps()[0].property))
                continue;
            // The subclass renames the abstract identity (educationOrganizationId is schoolId).
            Json property = Json{{"type", "string"}};
            if (base->superclassIdentityPath == path.text() && !base->identityPaths.empty()) {
                const std::string own = base->identityPaths.front().steps().front().property;
                property = base->jsonSchema["properties"].value(own, property);
            }
            synthetic["properties"][path.steps()[0].property] = property;
        }
        m_synthetic.push_back(std::make_unique<Json>(std::move(synthetic)));
        scope.schema = m_synthetic.back().get();
        scope.resource = base;
        return scope;
    }

    // The role-name prefixes an inline common's members take when Ed-Fi's JSON flattens them into
    // the owner: <AvailableCredits><CreditType> is availableCreditTypeDescriptor, <Name><FirstName>
    // is firstName. Longest first, the owner's own prefixes last.
    static std::vector<QString> wrapperPrefixes(const QString &element, const std::vector<QString> &outer)
    {
        std::vector<QString> prefixes;
        for (const QString &o : outer) {
            for (qsizetype end = element.size(); end > 0; --end)
                if (end == element.size() || element[end].isUpper())
                    prefixes.push_back(o + element.left(end));
        }
        for (const QString &o : outer)
            prefixes.push_back(o);
        return prefixes;
    }

    void mapChildren(const XmlNode &node, const Scope &scope, Json &body, Problems &problems,
                     const std::vector<QString> &prefixes)
    {
        if (!trimXmlSpace(node.text).isEmpty())
            problems.add(node, "holds text " + quoted(trimXmlSpace(node.text).toStdString()) +
                                   "; expected elements");
        for (const XmlNode &child : node.children)
            mapChild(child, scope, body, problems, prefixes);
    }

    void mapChild(const XmlNode &child, const Scope &scope, Json &body, Problems &problems,
                  const std::vector<QString> &prefixes)
    {
        if (child.namespaceUri != m_namespace) {
            problems.add(child, "XML namespace " + quoted(child.namespaceUri.toStdString()) +
                                    " differs from the interchange's " + quoted(m_namespace.toStdString()));
            return;
        }
        std::optional<PropertyMatch> match;
        for (const QString &prefix : prefixes)
            if ((match = findProperty(*scope.schema, prefix + child.name)))
                break;
        if (!match) {
            if (!child.children.empty() && !child.name.endsWith(QLatin1String("Reference"))) {
                // An inline common (<Name>, <BirthData>): the JSON holds its members in the owner.
                mapChildren(child, scope, body, problems, wrapperPrefixes(child.name, prefixes));
                return;
            }
            problems.add(child, "unknown element: " + describe(scope) + " has no property for it");
            return;
        }
        const std::string type = match->schema->value("type", "string");
        if (type != "array" && type != "object" && !child.children.empty()) {
            // An inline common named like one of its members (<AvailableCredits><Credits>): the
            // JSON holds its members in the owner (availableCredits, availableCreditTypeDescriptor).
            mapChildren(child, scope, body, problems, wrapperPrefixes(child.name, prefixes));
            return;
        }
        if (type == "array") {
            const Json &items = match->schema->contains("items") ? (*match->schema)["items"] : m_emptyObject;
            std::optional<Json> item =
                mapItem(child, items,
                        Scope{&items, scope.resource, scope.path + "." + match->property + "[*]"}, problems);
            if (!item)
                return;
            Json &array = body[match->property];
            if (!array.is_array())
                array = Json::array();
            array.push_back(std::move(*item));
            return;
        }
        if (body.contains(match->property)) {
            problems.add(child, "appears more than once (it is " + match->property + ")");
            return;
        }
        std::optional<Json> value = type == "object"
                                        ? mapObject(child, *match, scope, problems)
                                        : mapScalar(child, *match->schema, match->property, problems);
        if (value)
            body[match->property] = std::move(*value);
    }

    // One member of a collection. Text stands for an item with one member (<GradeLevel>uri</GradeLevel>
    // is {"gradeLevelDescriptor": uri}); an element named like the item's only reference is that
    // reference (<ClassPeriodReference> is {"classPeriodReference": {...}}); otherwise the
    // element's children are the item's members.
    std::optional<Json> mapItem(const XmlNode &child, const Json &items, const Scope &itemScope,
                                Problems &problems)
    {
        if (items.value("type", "object") != "object")
            return mapScalar(child, items, child.name.toStdString(), problems);
        const PropertyIndex &index = indexFor(items);
        std::optional<PropertyMatch> inner;
        if (child.children.empty()) {
            inner = findProperty(items, child.name);
            if (!inner && index.byLowerName.size() == 1)
                inner = index.byLowerName.begin()->second;
        } else if (auto it = index.byLowerName.find(lower(child.name));
                   it != index.byLowerName.end() && it->second.schema->value("type", "") == "object") {
            inner = it->second;
        }
        Json item = Json::object();
        if (!inner) {
            if (child.children.empty()) {
                problems.add(child, "holds text; expected the elements of an item of " + itemScope.path);
                return std::nullopt;
            }
            mapChildren(child, itemScope, item, problems, {QString()});
            return item;
        }
        const std::string type = inner->schema->value("type", "string");
        std::optional<Json> value = type == "object"
                                        ? mapObject(child, *inner, itemScope, problems)
                                        : mapScalar(child, *inner->schema, inner->property, problems);
        if (!value)
            return std::nullopt;
        item[inner->property] = std::move(*value);
        return item;
    }

    std::optional<Json> mapObject(const XmlNode &child, const PropertyMatch &match, const Scope &scope,
                                  Problems &problems)
    {
        const std::string path = scope.path + "." + match.property;
        if (const ReferenceMapping *reference = referenceAt(scope.resource, path))
            return mapReference(child, *reference, *match.schema, problems);
        if (child.children.empty()) {
            problems.add(child, "holds text; expected elements");
            return std::nullopt;
        }
        Json object = Json::object();
        mapChildren(child, Scope{match.schema, scope.resource, path}, object, problems, {QString()});
        return object;
    }

    const XmlNode *identityChild(const XmlNode &node, Problems &problems)
    {
        if (node.children.size() == 1 && node.children.front().name.endsWith(QLatin1String("Identity")))
            return &node.children.front();
        problems.add(node, node.children.empty() ? "holds neither an identity nor a ref attribute"
                                                 : "expected one <...Identity> element in it");
        return nullptr;
    }

    // A reference object: the identity (or the element a ref attribute points at) is read as a
    // partial document of the target resource, then each identity value moves to the reference
    // property the ApiSchema pairs it with (sessionReference.schoolId -> courseOfferingReference.schoolId).
    std::optional<Json> mapReference(const XmlNode &child, const ReferenceMapping &reference,
                                     const Json &objectSchema, Problems &problems)
    {
        Json partial = Json::object();
        const QString text = trimXmlSpace(child.text);
        if (child.children.empty() && !text.isEmpty() && reference.paths.size() == 1) {
            // A reference with one identity value written as text: <SchoolYear>2021-2022</SchoolYear>.
            const std::string leaf = reference.paths.front().referencePath.steps().back().property;
            const Json &properties = objectSchema.value("properties", Json::object());
            std::optional<Json> value =
                mapScalar(child, properties.value(leaf, Json{{"type", "string"}}), leaf, problems);
            if (!value)
                return std::nullopt;
            Json object{{leaf, std::move(*value)}};
            noteSchoolYear(reference, object);
            return object;
        }
        if (child.children.empty() && !child.ref.isEmpty()) {
            if (!resolveRef(child, reference, partial, problems))
                return std::nullopt;
        } else {
            const XmlNode *identity = identityChild(child, problems);
            if (identity == nullptr)
                return std::nullopt;
            const Scope &target = scopeFor(reference.targetProjectName, reference.targetResourceName);
            if (target.schema == nullptr) {
                problems.add(child, describeModel() + " has no resource " + reference.targetResourceName);
                return std::nullopt;
            }
            mapChildren(*identity, target, partial, problems, {QString()});
        }
        Json object = Json::object();
        noteSchoolYear(reference, object);
        std::vector<std::string> missing;
        for (const ReferencePathPair &pair : reference.paths) {
            const std::string leaf = pair.referencePath.steps().back().property;
            if (const Json *value = pair.identityPath.resolve(partial, {}))
                object[leaf] = *value;
            else
                missing.push_back(pair.identityPath.text());
        }
        if (!missing.empty()) {
            std::string list;
            for (const std::string &m : missing)
                list += (list.empty() ? "" : ", ") + m;
            problems.add(child, "the identity of the " + reference.targetResourceName + " lacks " + list);
            return std::nullopt;
        }
        return object;
    }

    // School years are an enumeration in the XSD (SchoolYearType), so every one a file uses exists
    // as far as the interchange is concerned; the reader yields them as implied documents.
    void noteSchoolYear(const ReferenceMapping &reference, const Json &object)
    {
        if (reference.paths.size() != 1)
            return;
        const Scope &target = scopeFor(reference.targetProjectName, reference.targetResourceName);
        if (target.resource == nullptr || !target.resource->isSchoolYearEnumeration)
            return;
        auto value = object.find(reference.paths.front().referencePath.steps().back().property);
        if (value != object.end() && value->is_number_integer())
            m_schoolYears.emplace_back(target.resource, value->get<int>());
    }

    bool resolveRef(const XmlNode &child, const ReferenceMapping &reference, Json &partial,
                    Problems &problems)
    {
        auto it = m_ids ? m_ids->find(child.ref) : std::unordered_map<QString, IdEntry>::const_iterator();
        if (m_ids == nullptr || it == m_ids->end()) {
            problems.add(child, "ref " + quoted(child.ref.toStdString()) +
                                    " names no element with that id in this file");
            return false;
        }
        const IdEntry &entry = it->second;
        partial = entry.identity;
        if (entry.resourceName == reference.targetResourceName)
            return true;
        // A subclass's element stands for its abstract superclass (a School for an EducationOrganization).
        if (entry.resource != nullptr &&
            entry.resource->superclassResourceName == reference.targetResourceName) {
            if (!entry.resource->superclassIdentityPath.empty() && !entry.resource->identityPaths.empty())
                if (const Json *value = entry.resource->identityPaths.front().resolve(entry.identity, {}))
                    JsonPath(entry.resource->superclassIdentityPath).assign(partial, {}, *value);
            return true;
        }
        problems.add(child, "ref " + quoted(child.ref.toStdString()) + " names a <" + entry.resourceName +
                                ">, not a <" + reference.targetResourceName + ">");
        return false;
    }

    // A value converted to the JSON type its schema gives. The interchange writes school years as
    // "2021-2022" (the XSD's SchoolYearType); the JSON holds the year the school year ends in.
    std::optional<Json> mapScalar(const XmlNode &child, const Json &schema, const std::string &property,
                                  Problems &problems)
    {
        if (!child.children.empty()) {
            problems.add(child, "holds elements; expected a value");
            return std::nullopt;
        }
        const std::string text = trimXmlSpace(child.text).toStdString();
        const std::string type = schema.value("type", "string");
        if (type == "integer") {
            std::int64_t value = 0;
            const char *end = text.data() + text.size();
            auto [ptr, ec] = std::from_chars(text.data(), end, value);
            if (ec == std::errc() && ptr == end)
                return Json(value);
            if (text.size() == 9 && text[4] == '-' &&
                lower(QString::fromStdString(property)).find("schoolyear") != std::string::npos) {
                int first = 0;
                int second = 0;
                auto a = std::from_chars(text.data(), text.data() + 4, first);
                auto b = std::from_chars(text.data() + 5, end, second);
                if (a.ec == std::errc() && b.ec == std::errc() && a.ptr == text.data() + 4 && b.ptr == end &&
                    second == first + 1)
                    return Json(second);
            }
            problems.add(child, quoted(text) + " is not an integer");
            return std::nullopt;
        }
        if (type == "number") {
            std::int64_t whole = 0;
            const char *end = text.data() + text.size();
            auto [ptr, ec] = std::from_chars(text.data(), end, whole);
            if (ec == std::errc() && ptr == end)
                return Json(whole);
            bool ok = false;
            const double value = QString::fromStdString(text).toDouble(&ok);
            if (ok && std::isfinite(value))
                return Json(value);
            problems.add(child, quoted(text) + " is not a number");
            return std::nullopt;
        }
        if (type == "boolean") {
            if (text == "true" || text == "1")
                return Json(true);
            if (text == "false" || text == "0")
                return Json(false);
            problems.add(child, quoted(text) + " is not a boolean (true, false, 1 or 0)");
            return std::nullopt;
        }
        if (schema.value("format", "") == "date" && !isIsoDate(text)) {
            problems.add(child, quoted(text) + " is not a date (YYYY-MM-DD)");
            return std::nullopt;
        }
        return Json(text);
    }

    std::string describe(const Scope &scope) const
    {
        const std::string name = scope.resource ? scope.resource->resourceName : std::string("the document");
        return scope.path == "$" ? name : name + " at " + scope.path;
    }
    std::string describeModel() const { return m_model.describe(); }

    const Model &m_model;
    QString m_namespace;
    const std::unordered_map<QString, IdEntry> *m_ids = nullptr;
    const Json m_emptyObject = Json::object();
    std::map<const Json *, PropertyIndex> m_indexes;
    std::map<const ResourceSchema *, std::map<std::string, const ReferenceMapping *>> m_references;
    std::map<std::pair<std::string, std::string>, Scope> m_targets;
    std::vector<std::unique_ptr<Json>> m_synthetic;
    std::vector<std::pair<const ResourceSchema *, int>> m_schoolYears;
};

class InterchangeXmlSource : public XmlInterchangeSource
{
public:
    using XmlInterchangeSource::XmlInterchangeSource;

private:
    std::string expectedRoot() const override { return "<Interchange...>"; }

    void rootAccepted() override
    {
        m_mapper = std::make_unique<Mapper>(m_model, m_rootNamespace);
        m_mapper->setIds(&m_ids);
        collectIds();
    }

    bool readTopElement(ImportItem &item) override
    {
        if (!readElement(item))
            return false;
        queueSchoolYears(item);
        return true;
    }

    bool takeQueued(ImportItem &item) override
    {
        if (m_queue.empty())
            return false;
        item = std::move(m_queue.front());
        m_queue.pop_front();
        return true;
    }

    void released() override
    {
        m_ids.clear();
        m_mapper.reset();
    }

    // Reads the element the reader is on, children included, within the caps. False when the XML
    // is malformed; tooLarge tells that parts past a cap were skipped.
    bool readTree(QXmlStreamReader &xml, XmlNode &node, int depth, qsizetype &chars, std::size_t &nodes,
                  bool &tooLarge)
    {
        node.name = xml.name().toString();
        node.namespaceUri = xml.namespaceUri().toString();
        node.line = xml.lineNumber();
        const QXmlStreamAttributes attributes = xml.attributes();
        node.id = attributes.value(QString(), QStringLiteral("id")).toString();
        node.ref = attributes.value(QString(), QStringLiteral("ref")).toString();
        for (;;) {
            switch (xml.readNext()) {
            case QXmlStreamReader::StartElement:
                if (depth + 1 >= kMaxDepth || ++nodes > kMaxElementNodes) {
                    tooLarge = true;
                    xml.skipCurrentElement();
                    break;
                }
                node.children.emplace_back();
                if (!readTree(xml, node.children.back(), depth + 1, chars, nodes, tooLarge))
                    return false;
                break;
            case QXmlStreamReader::Characters:
                if (xml.isWhitespace())
                    break;
                chars += xml.text().size();
                if (chars > kMaxElementChars)
                    tooLarge = true;
                else
                    node.text += xml.text();
                break;
            case QXmlStreamReader::EndElement:
                return true;
            case QXmlStreamReader::Invalid:
                return false;
            default:
                break;
            }
        }
    }

    // ref attributes may point forward (a Session's <GradingPeriodReference ref=...> before the
    // <GradingPeriod id=...>), so a first pass over the file records the identity behind every id.
    void collectIds()
    {
        QFile file(QString::fromStdString(m_path));
        if (!file.open(QIODevice::ReadOnly))
            return;
        QXmlStreamReader xml(&file);
        int depth = 0;
        while (!xml.atEnd()) {
            const QXmlStreamReader::TokenType token = xml.readNext();
            if (token == QXmlStreamReader::EndElement) {
                --depth;
                continue;
            }
            if (token != QXmlStreamReader::StartElement)
                continue;
            if (++depth != 2)
                continue;
            if (xml.attributes().value(QString(), QStringLiteral("id")).isEmpty()) {
                xml.skipCurrentElement();
                --depth;
                continue;
            }
            XmlNode node;
            qsizetype chars = 0;
            std::size_t nodes = 0;
            bool tooLarge = false;
            const bool wellFormed = readTree(xml, node, 0, chars, nodes, tooLarge);
            --depth;
            if (!wellFormed)
                return; // the main pass reports it
            if (tooLarge || node.namespaceUri != m_rootNamespace || m_ids.size() >= kMaxIds)
                continue;
            Problems ignored; // the main pass reports them
            IdEntry entry;
            if (const ResourceSchema *resource = m_mapper->findResource(node.name)) {
                const Json body = m_mapper->mapDocument(node, *resource, ignored);
                entry.resourceName = resource->resourceName;
                entry.resource = resource;
                entry.identity = Mapper::identityOf(*resource, body);
            } else if (!node.name.endsWith(QLatin1String("Reference")) ||
                       !m_mapper->mapDeclaration(node, entry, ignored)) {
                continue;
            }
            m_ids.emplace(node.id, std::move(entry));
        }
        m_mapper->takeSchoolYears(); // the main pass notes them with the elements that use them
    }

    // The school years the element used that this file has not yielded yet go first, as implied
    // documents ({"schoolYear":2022,"currentSchoolYear":false,"schoolYearDescription":"2021-2022"}).
    void queueSchoolYears(ImportItem &item)
    {
        if (!m_mapper)
            return;
        const std::vector<std::pair<const ResourceSchema *, int>> years = m_mapper->takeSchoolYears();
        if (!item.body)
            return; // an element that could not be read implies nothing
        for (const auto &[resource, year] : years) {
            if (!m_schoolYearsYielded.insert(year).second)
                continue;
            ImportItem implied;
            implied.file = m_path;
            implied.line = item.line;
            implied.resource = resource->resourceKey();
            implied.implied = true;
            Json body = Json::object();
            const Json &properties = resource->jsonSchema.value("properties", Json::object());
            for (const JsonPath &path : resource->identityPaths)
                path.assign(body, {}, Json(year));
            if (properties.contains("currentSchoolYear"))
                body["currentSchoolYear"] = false;
            if (properties.contains("schoolYearDescription"))
                body["schoolYearDescription"] = std::to_string(year - 1) + "-" + std::to_string(year);
            implied.body = std::move(body);
            m_queue.push_back(std::move(implied));
        }
        if (m_queue.empty())
            return;
        m_queue.push_back(std::move(item));
        item = std::move(m_queue.front());
        m_queue.pop_front();
    }

    // Maps the top-level element the reader is on. False when it yields no item (a reference
    // declaration, which only lends its identity to ref attributes).
    bool readElement(ImportItem &item)
    {
        XmlNode node;
        qsizetype chars = 0;
        std::size_t nodes = 0;
        bool tooLarge = false;
        const std::int64_t line = m_xml.lineNumber();
        const QString element = m_xml.name().toString();
        item.line = line;
        if (!readTree(m_xml, node, 0, chars, nodes, tooLarge)) {
            malformed(item, element, line);
            return true;
        }
        if (node.namespaceUri != m_rootNamespace) {
            item.error = where(line, element) + "XML namespace " + quoted(node.namespaceUri.toStdString()) +
                         " differs from the interchange's " + quoted(m_rootNamespace.toStdString()) +
                         "; the element is skipped";
            return true;
        }
        if (tooLarge) {
            item.error = where(line, element) + "the element is larger than an import reads (" +
                         std::to_string(kMaxElementChars) + " characters, " +
                         std::to_string(kMaxElementNodes) + " elements, depth " + std::to_string(kMaxDepth) +
                         "); it is skipped";
            return true;
        }
        const ResourceSchema *resource = m_mapper->findResource(element);
        if (resource == nullptr) {
            if (element.endsWith(QLatin1String("Reference")) && element.size() > 9) {
                // A reference declaration (the XSD allows <SectionReference> at the top of some
                // interchanges); its id, if any, was recorded by collectIds.
                Problems problems;
                IdEntry entry;
                if (m_mapper->mapDeclaration(node, entry, problems) || !problems.empty()) {
                    if (problems.empty())
                        return false;
                    item.error = where(line, element) + problems.joined();
                    return true;
                }
            }
            item.error = where(line, element) + m_model.describe() + " has no resource named " +
                         element.toStdString() + "; the element is skipped";
            return true;
        }
        item.resource = resource->resourceKey();
        Problems problems;
        Json body = m_mapper->mapDocument(node, *resource, problems);
        if (!problems.empty()) {
            item.error = where(line, element) + problems.joined();
            return true;
        }
        item.body = std::move(body);
        return true;
    }

    std::unordered_map<QString, IdEntry> m_ids;
    std::unique_ptr<Mapper> m_mapper;
    std::deque<ImportItem> m_queue;     // items ready before the reader moves on
    std::set<int> m_schoolYearsYielded; // per file; the importer drops repeats across files
};

} // namespace

std::unique_ptr<ImportSource> openInterchangeXml(const std::string &path, const Model &model,
                                                 std::string *error)
{
    auto source = std::make_unique<InterchangeXmlSource>(path, model);
    if (!source->open(error))
        return nullptr;
    return source;
}

} // namespace steward
