#include "DescriptorXml.h"

#include "XmlInterchangeSource.h"
#include "XmlText.h"
#include "Text.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace steward {

namespace {

// Far beyond any descriptor column (Description is 1024), so validation still reports the real
// limit, but a runaway text node cannot exhaust memory.
constexpr qsizetype kMaxValueChars = 1024 * 1024;

// Interchange elements the XSD allows in a descriptor that no Ed-Fi ApiSchema stores.
const std::set<QString> &knownUnstoredElements()
{
    static const std::set<QString> names{QStringLiteral("PriorDescriptor")};
    return names;
}

// "CodeValue" -> "codeValue": interchange element names are the JSON property names capitalized.
std::string propertyName(const QString &element)
{
    std::string name = element.toStdString();
    if (!name.empty() && name[0] >= 'A' && name[0] <= 'Z')
        name[0] = static_cast<char>(name[0] - 'A' + 'a');
    return name;
}

// "codeValue" -> "CodeValue", for messages about required properties.
std::string elementName(const std::string &property)
{
    std::string name = property;
    if (!name.empty() && name[0] >= 'a' && name[0] <= 'z')
        name[0] = static_cast<char>(name[0] - 'a' + 'A');
    return name;
}

class DescriptorXmlSource : public XmlInterchangeSource
{
public:
    using XmlInterchangeSource::XmlInterchangeSource;

private:
    std::string expectedRoot() const override { return "<InterchangeDescriptors>"; }

    std::string refuseRoot() const override
    {
        // Other interchanges hold no descriptors; one item says so instead of one per element.
        if (!m_rootName.startsWith(QLatin1String("InterchangeDescriptors")))
            return "not a descriptor interchange (expected <InterchangeDescriptors>); the file is not read";
        return {};
    }

    bool readTopElement(ImportItem &item) override
    {
        readDescriptor(item);
        return true;
    }

    // The descriptor resource named like the element, preferring the core project when an
    // extension defines the same name.
    const ResourceSchema *findDescriptor(const QString &element)
    {
        auto cached = m_resources.find(element);
        if (cached != m_resources.end())
            return cached->second;
        const std::string name = element.toStdString();
        const ResourceSchema *found = nullptr;
        for (const auto &project : m_model.projects()) {
            const ResourceSchema *candidate = m_model.findByName(project->projectName, name);
            if (candidate == nullptr || !candidate->isDescriptor)
                continue;
            if (found == nullptr || (found->project->isExtensionProject && !project->isExtensionProject))
                found = candidate;
        }
        m_resources.emplace(element, found);
        return found;
    }

    // The text of the current element; child elements are skipped and reported through nested.
    QString readText(bool &nested, bool &tooLong)
    {
        QString text;
        for (;;) {
            switch (m_xml.readNext()) {
            case QXmlStreamReader::Characters:
                if (text.size() + m_xml.text().size() <= kMaxValueChars)
                    text += m_xml.text();
                else
                    tooLong = true;
                break;
            case QXmlStreamReader::StartElement:
                nested = true;
                m_xml.skipCurrentElement();
                break;
            case QXmlStreamReader::EndElement:
            case QXmlStreamReader::Invalid:
                return text;
            default:
                break;
            }
        }
    }

    void readDescriptor(ImportItem &item)
    {
        const QString element = m_xml.name().toString();
        const std::int64_t line = m_xml.lineNumber();
        item.line = line;
        const ResourceSchema *resource = descriptorOfElement(item, element, line);
        if (resource == nullptr)
            return;
        item.resource = resource->resourceKey();
        Json body = Json::object();
        std::vector<std::string> problems;
        std::set<QString> seen;
        readFields(*resource, body, problems, seen);
        if (m_xml.hasError()) {
            malformed(item, element, line);
            return;
        }
        checkRequired(*resource, body, seen, problems);
        if (!problems.empty()) {
            item.error = where(line, element);
            for (std::size_t i = 0; i < problems.size(); ++i)
                item.error += (i ? "; " : "") + problems[i];
            return;
        }
        item.body = std::move(body);
    }

    // The descriptor the element names; null (the element skipped, item.error saying why) when it
    // is in another namespace or names none of the model's descriptors.
    const ResourceSchema *descriptorOfElement(ImportItem &item, const QString &element, std::int64_t line)
    {
        const bool rightNamespace = m_xml.namespaceUri() == m_rootNamespace;
        const ResourceSchema *resource = rightNamespace ? findDescriptor(element) : nullptr;
        if (resource != nullptr)
            return resource;
        m_xml.skipCurrentElement();
        if (m_xml.hasError()) {
            malformed(item, element, line);
            return nullptr;
        }
        if (!rightNamespace)
            item.error = where(line, element) + "XML namespace " + quoted(m_xml.namespaceUri().toString().toStdString())
                         + " differs from the interchange's " + quoted(m_rootNamespace.toStdString())
                         + "; the element is skipped";
        else
            item.error = where(line, element) + m_model.describe() + " has no descriptor named "
                         + element.toStdString() + "; the element is skipped";
        return nullptr;
    }

    // The descriptor's child elements into body; each one that cannot be taken adds a problem.
    void readFields(const ResourceSchema &resource, Json &body, std::vector<std::string> &problems,
                    std::set<QString> &seen)
    {
        static const Json kNoProperties = Json::object();
        auto propertiesIt = resource.jsonSchema.find("properties");
        const Json &properties = propertiesIt != resource.jsonSchema.end() && propertiesIt->is_object()
                                     ? *propertiesIt
                                     : kNoProperties;
        while (m_xml.readNextStartElement()) {
            const QString field = m_xml.name().toString();
            const std::int64_t fieldLine = m_xml.lineNumber();
            const bool fieldNamespaceOk = m_xml.namespaceUri() == m_rootNamespace;
            bool nested = false;
            bool tooLong = false;
            const QString text = readText(nested, tooLong);
            if (m_xml.hasError())
                return;
            const std::string fieldText = "<" + field.toStdString() + ">";
            const std::string property = propertyName(field);
            auto schemaIt = properties.find(property);
            if (!fieldNamespaceOk || (schemaIt == properties.end() && !knownUnstoredElements().count(field))) {
                problems.push_back("unexpected element " + fieldText + " on line " + std::to_string(fieldLine));
                continue;
            }
            if (!seen.insert(field).second) {
                problems.push_back(fieldText + " appears more than once");
                continue;
            }
            if (schemaIt == properties.end())
                continue; // allowed by the interchange schema, stored by no ApiSchema
            if (nested) {
                problems.push_back(fieldText + " holds elements; expected text");
                continue;
            }
            if (tooLong) {
                problems.push_back(fieldText + " is longer than " + std::to_string(kMaxValueChars) + " characters");
                continue;
            }
            // Leading and trailing whitespace is layout, not data (and Ed-Fi's patterns reject it).
            const std::string value = trimXmlSpace(text).toStdString();
            // Compared as JSON: Json::value threw type_error for a property schema that is not an
            // object (JSON Schema allows 'true') or a 'format' that is not a string.
            const bool isDate =
                schemaIt->is_object() && schemaIt->contains("format") && (*schemaIt)["format"] == "date";
            if (isDate && !isIsoDate(value)) {
                problems.push_back(fieldText + " " + quoted(value) + " is not a date (YYYY-MM-DD)");
                continue;
            }
            body[property] = value;
        }
    }

    // Every property the descriptor requires is there and not empty.
    static void checkRequired(const ResourceSchema &resource, const Json &body, const std::set<QString> &seen,
                              std::vector<std::string> &problems)
    {
        auto required = resource.jsonSchema.find("required");
        if (required == resource.jsonSchema.end() || !required->is_array())
            return;
        for (const Json &name : *required) {
            if (!name.is_string())
                continue;
            const std::string property = name.get<std::string>();
            auto value = body.find(property);
            if (value == body.end()) {
                if (!seen.count(QString::fromStdString(elementName(property))))
                    problems.push_back("missing <" + elementName(property) + ">");
            } else if (value->is_string() && value->get<std::string>().empty()) {
                problems.push_back("<" + elementName(property) + "> is empty");
            }
        }
    }

    std::map<QString, const ResourceSchema *> m_resources; // element name -> descriptor, or null
};

} // namespace

std::unique_ptr<ImportSource> openDescriptorXml(const std::string &path, const Model &model, std::string *error)
{
    auto source = std::make_unique<DescriptorXmlSource>(path, model);
    if (!source->open(error))
        return nullptr;
    return source;
}

} // namespace steward
