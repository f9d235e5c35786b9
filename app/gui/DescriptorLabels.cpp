#include "DescriptorLabels.h"

#include "Engine.h"
#include "Text.h"

#include <QStringList>

DescriptorLabels::DescriptorLabels(steward::Engine &engine)
    : m_engine(engine)
{
}

const std::vector<DescriptorLabels::Value> &DescriptorLabels::values(const std::string &project,
                                                                     const std::string &resource)
{
    const std::string key = project + '|' + resource;
    if (auto known = m_byResource.find(key); known != m_byResource.end())
        return known->second;
    std::vector<Value> &values = m_byResource[key];
    try {
        // A descriptor resource holds tens, at most a few thousand values: all of them, once.
        for (const steward::StoredDocument &document : m_engine.lookup(project, resource, {}, 100000)) {
            const steward::Json body = steward::Json::parse(document.body, nullptr, false);
            if (!body.is_object())
                continue;
            Value value;
            value.uri = body.value("namespace", std::string()) + '#' + body.value("codeValue", std::string());
            value.codeValue = QString::fromStdString(body.value("codeValue", std::string()));
            value.shortDescription = QString::fromStdString(body.value("shortDescription", std::string()));
            value.label = value.shortDescription.isEmpty()
                                  || value.shortDescription.compare(value.codeValue, Qt::CaseInsensitive) == 0
                              ? value.codeValue
                              : value.codeValue + QStringLiteral(" — ") + value.shortDescription;
            values.push_back(std::move(value));
        }
    } catch (const std::exception &) {
        // A label is a convenience: without it the URI shows as it is.
    }
    for (const Value &value : values)
        m_byUri[steward::lowerAscii(value.uri)] = &value;
    return values;
}

const DescriptorLabels::Value *DescriptorLabels::find(const std::string &uri)
{
    const std::string key = steward::lowerAscii(uri);
    if (auto known = m_byUri.find(key); known != m_byUri.end())
        return known->second;
    // The descriptor resource a URI belongs to is named by the path before '#' ("…/GradeLevelDescriptor").
    const std::size_t hash = uri.find('#');
    const std::size_t slash = uri.rfind('/', hash);
    if (hash == std::string::npos || slash == std::string::npos)
        return nullptr;
    const std::string name = steward::lowerAscii(uri.substr(slash + 1, hash - slash - 1));
    for (const steward::ResourceSchema *resource : m_engine.model().resources())
        if (resource->isDescriptor && steward::lowerAscii(resource->resourceName) == name
            && m_byResource.count(resource->projectName() + '|' + resource->resourceName) == 0) {
            values(resource->projectName(), resource->resourceName);
            if (auto known = m_byUri.find(key); known != m_byUri.end())
                return known->second;
        }
    return nullptr;
}

QString DescriptorLabels::label(const std::string &uri, bool *stored)
{
    const Value *value = find(uri);
    if (stored != nullptr)
        *stored = value != nullptr;
    return value != nullptr ? value->label : QString::fromStdString(uri);
}

std::string DescriptorLabels::uriFor(const std::string &project, const std::string &resource, const QString &text)
{
    const QString typed = text.trimmed();
    for (const Value &value : values(project, resource))
        if (value.label.compare(typed, Qt::CaseInsensitive) == 0 || value.codeValue.compare(typed, Qt::CaseInsensitive) == 0
            || QString::fromStdString(value.uri).compare(typed, Qt::CaseInsensitive) == 0)
            return value.uri;
    return text.toStdString();
}

QString DescriptorLabels::labelsIn(const std::string &naturalKey)
{
    // naturalKeyText joins an identity's values with " / "; a descriptor's value is its URI.
    QStringList parts = QString::fromStdString(naturalKey).split(QStringLiteral(" / "));
    for (QString &part : parts)
        if (part.contains(QStringLiteral("Descriptor#"), Qt::CaseInsensitive))
            part = label(part.toStdString());
    return parts.join(QStringLiteral(" / "));
}

void DescriptorLabels::forget()
{
    m_byUri.clear();
    m_byResource.clear();
}

QString descriptorCodeValue(const QString &uri)
{
    const qsizetype hash = uri.indexOf(QLatin1Char('#'));
    return hash < 0 ? uri : uri.mid(hash + 1);
}
