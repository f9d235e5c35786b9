#include "Identity.h"
#include "Text.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QUuid>

#include <cctype>
#include <cmath>
#include <cstring>
#include <cstdio>

namespace steward {

namespace {

const QUuid &edfiNamespace()
{
    static const QUuid ns(QStringLiteral("edf1edf1-3df1-3df1-3df1-3df1edf1edf1"));
    return ns;
}

} // namespace

std::string Uuid::toString() const
{
    std::string out;
    out.reserve(36);
    // 8-4-4-4-12 hex digits
    appendLowerHex(out, bytes.data(), 4);
    out += '-';
    appendLowerHex(out, bytes.data() + 4, 2);
    out += '-';
    appendLowerHex(out, bytes.data() + 6, 2);
    out += '-';
    appendLowerHex(out, bytes.data() + 8, 2);
    out += '-';
    appendLowerHex(out, bytes.data() + 10, 6);
    return out;
}

int hexDigitValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

std::optional<Uuid> Uuid::parse(std::string_view text)
{
    if (text.size() != 36)
        return std::nullopt;
    Uuid out;
    std::size_t byte = 0;
    for (std::size_t i = 0; i < text.size();) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (text[i] != '-')
                return std::nullopt;
            ++i;
            continue;
        }
        const int high = hexDigitValue(text[i]);
        const int low = hexDigitValue(text[i + 1]);
        if (high < 0 || low < 0)
            return std::nullopt;
        out.bytes[byte++] = static_cast<std::uint8_t>(high << 4 | low);
        i += 2;
    }
    return out;
}

std::optional<Uuid> Uuid::parseCanonical(std::string_view text)
{
    if (text.size() != 36)
        return std::nullopt;
    for (char c : text)
        if (c >= 'A' && c <= 'F')
            return std::nullopt;
    return parse(text);
}

std::size_t UuidHash::operator()(const Uuid &id) const
{
    std::uint64_t h = 0;
    std::memcpy(&h, id.bytes.data(), sizeof h);
    return static_cast<std::size_t>(h);
}

Uuid Uuid::random()
{
    // Ids must be unique, not secret: a generator per thread, seeded from the system's, instead of a
    // system call per id (QUuid::createUuid's cost showed in import profiles).
    thread_local QRandomGenerator64 generator = [] {
        std::array<quint32, 16> seed{};
        QRandomGenerator::system()->fillRange(seed.data(), seed.size());
        return QRandomGenerator64(seed.data(), static_cast<qsizetype>(seed.size()));
    }();
    Uuid out;
    std::array<quint64, 2> words{generator.generate64(), generator.generate64()};
    std::memcpy(out.bytes.data(), words.data(), out.bytes.size());
    out.bytes[6] = static_cast<std::uint8_t>((out.bytes[6] & 0x0f) | 0x40); // version 4
    out.bytes[8] = static_cast<std::uint8_t>((out.bytes[8] & 0x3f) | 0x80); // RFC 4122 variant
    return out;
}

Uuid Uuid::edfiV5(const std::string &name)
{
    static const QByteArray ns = edfiNamespace().toRfc4122();
    QCryptographicHash sha1(QCryptographicHash::Sha1);
    sha1.addData(ns);
    sha1.addData(QByteArrayView(name.data(), static_cast<qsizetype>(name.size())));
    const QByteArrayView digest = sha1.resultView();
    Uuid out;
    std::memcpy(out.bytes.data(), digest.data(), out.bytes.size());
    out.bytes[6] = static_cast<std::uint8_t>((out.bytes[6] & 0x0f) | 0x50); // version 5
    out.bytes[8] = static_cast<std::uint8_t>((out.bytes[8] & 0x3f) | 0x80);
    return out;
}

std::string DocumentIdentity::referentialName() const
{
    std::size_t length = projectName.size() + resourceName.size();
    for (const IdentityElement &element : elements)
        length += element.path.size() + element.value.size() + 2;
    std::string name;
    name.reserve(length);
    name += projectName;
    name += resourceName;
    for (std::size_t i = 0; i < elements.size(); ++i) {
        if (i > 0)
            name += '#';
        name += elements[i].path;
        name += '=';
        name += elements[i].value;
    }
    return name;
}

std::string identityValueText(const Json &value)
{
    switch (value.type()) {
    case Json::value_t::string:
        return value.get<std::string>();
    case Json::value_t::boolean:
        return value.get<bool>() ? "true" : "false";
    case Json::value_t::number_integer:
        return std::to_string(value.get<std::int64_t>());
    case Json::value_t::number_unsigned:
        return std::to_string(value.get<std::uint64_t>());
    case Json::value_t::number_float: {
        const double d = value.get<double>();
        if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.0e15) {
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, "%.0f", d == 0.0 ? 0.0 : d);
            return buffer;
        }
        return value.dump(); // shortest text that reads back to the same double
    }
    default:
        return value.dump();
    }
}

IdentityCalculator::IdentityCalculator(const Model &model)
    : m_model(model)
{
    // An identity value is a descriptor URI when the path is a descriptor of the resource, or
    // a reference path whose target identity path is one (followed through references of references).
    std::vector<const ResourceSchema *> resources = model.resources();
    for (const ResourceSchema *resource : resources)
        for (const DescriptorMapping &descriptor : resource->descriptors)
            m_descriptorIdentityPaths[{resource->projectName(), resource->resourceName}].insert(descriptor.path.text());
    for (bool changed = true; changed;) {
        changed = false;
        for (const ResourceSchema *resource : resources) {
            auto &paths = m_descriptorIdentityPaths[{resource->projectName(), resource->resourceName}];
            for (const ReferenceMapping &reference : resource->references)
                for (const ReferencePathPair &pair : reference.paths)
                    if (!paths.count(pair.referencePath.text())
                        && carriesDescriptor(reference.targetProjectName, reference.targetResourceName,
                                             pair.identityPath.text())) {
                        paths.insert(pair.referencePath.text());
                        changed = true;
                    }
        }
    }
    // Asked for every identity value of every document and reference: answered once here, not by
    // looking names up each time.
    for (const ResourceSchema *resource : resources) {
        std::vector<bool> &identityLowered = m_identityValuesLowered[resource];
        for (const JsonPath &path : resource->identityPaths)
            identityLowered.push_back(carriesDescriptor(resource->projectName(), resource->resourceName, path.text()));
        for (const ReferenceMapping &reference : resource->references) {
            std::vector<bool> &referenceLowered = m_referenceValuesLowered[&reference];
            for (const ReferencePathPair &pair : reference.paths)
                referenceLowered.push_back(carriesDescriptor(reference.targetProjectName, reference.targetResourceName,
                                                             pair.identityPath.text()));
        }
    }
}

bool IdentityCalculator::lowersValue(const std::vector<bool> *known, std::size_t index, const std::string &projectName,
                                     const std::string &resourceName, const std::string &identityPath) const
{
    if (known && index < known->size())
        return (*known)[index];
    return carriesDescriptor(projectName, resourceName, identityPath);
}

bool IdentityCalculator::carriesDescriptor(const std::string &projectName, const std::string &resourceName,
                                           const std::string &identityPath) const
{
    auto it = m_descriptorIdentityPaths.find({projectName, resourceName});
    if (it != m_descriptorIdentityPaths.end() && it->second.count(identityPath))
        return true;
    if (const AbstractResource *abstract = m_model.findAbstract(projectName, resourceName))
        for (const ResourceSchema *subclass : abstract->subclasses)
            if (carriesDescriptor(subclass->projectName(), subclass->resourceName, identityPath))
                return true;
    return false;
}

DocumentIdentity IdentityCalculator::descriptorIdentity(const std::string &projectName,
                                                        const std::string &resourceName, const std::string &uri)
{
    return DocumentIdentity{projectName, resourceName, {{"$.descriptor", toLower(uri)}}};
}

std::optional<DocumentIdentity> IdentityCalculator::documentIdentity(const ResourceSchema &resource,
                                                                     const Json &body,
                                                                     std::string *missingPath) const
{
    if (resource.isDescriptor) {
        auto ns = body.find("namespace");
        auto code = body.find("codeValue");
        if (ns == body.end() || !ns->is_string() || code == body.end() || !code->is_string()) {
            if (missingPath)
                *missingPath = ns == body.end() || !ns->is_string() ? "$.namespace" : "$.codeValue";
            return std::nullopt;
        }
        return descriptorIdentity(resource.projectName(), resource.resourceName,
                                  ns->get<std::string>() + "#" + code->get<std::string>());
    }
    DocumentIdentity identity{resource.projectName(), resource.resourceName, {}};
    identity.elements.reserve(resource.identityPaths.size());
    const auto lowered = m_identityValuesLowered.find(&resource);
    const std::vector<bool> *known = lowered == m_identityValuesLowered.end() ? nullptr : &lowered->second;
    for (std::size_t i = 0; i < resource.identityPaths.size(); ++i) {
        const JsonPath &path = resource.identityPaths[i];
        const Json *value = path.resolve(body, {});
        if (value == nullptr || value->is_null() || value->is_structured()) {
            if (missingPath)
                *missingPath = path.text();
            return std::nullopt;
        }
        std::string text = identityValueText(*value);
        if (lowersValue(known, i, resource.projectName(), resource.resourceName, path.text()))
            text = toLower(text);
        identity.elements.push_back({path.text(), std::move(text)});
    }
    return identity;
}

std::optional<DocumentIdentity> IdentityCalculator::superclassIdentity(const ResourceSchema &resource,
                                                                       const DocumentIdentity &own) const
{
    if (!resource.isSubclass)
        return std::nullopt;
    DocumentIdentity identity = own;
    identity.projectName = resource.superclassProjectName;
    identity.resourceName = resource.superclassResourceName;
    if (resource.subclassType != "association" && identity.elements.size() == 1)
        identity.elements[0].path = resource.superclassIdentityPath;
    return identity;
}

namespace {

void flattenKeyValues(const Json &object, const std::string &prefix, Json &out)
{
    for (const auto &[name, value] : object.items()) {
        if (value.is_object()) {
            std::string inner = name;
            if (inner.size() > 9 && inner.compare(inner.size() - 9, 9, "Reference") == 0)
                inner.resize(inner.size() - 9);
            flattenKeyValues(value, inner, out);
            continue;
        }
        auto existing = out.find(name);
        if (existing == out.end() || *existing == value) {
            out[name] = value;
        } else {
            std::string qualified = prefix + name;
            if (!prefix.empty())
                qualified[prefix.size()] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
            out[qualified] = value;
        }
    }
}

} // namespace

Json keyValuesOf(const Json &identityObject)
{
    Json out = Json::object();
    if (identityObject.is_object())
        flattenKeyValues(identityObject, {}, out);
    return out;
}

Json IdentityCalculator::identityObject(const ResourceSchema &resource, const Json &body) const
{
    Json out = Json::object();
    if (resource.isDescriptor) {
        for (const char *key : {"namespace", "codeValue"})
            if (body.contains(key))
                out[key] = body[key];
        return out;
    }
    for (const JsonPath &path : resource.identityPaths)
        if (const Json *value = path.resolve(body, {}))
            path.assign(out, {}, *value);
    return out;
}

std::optional<DocumentIdentity> IdentityCalculator::referenceIdentity(const ReferenceMapping &reference,
                                                                      const Json &body,
                                                                      const std::vector<std::size_t> &indices) const
{
    DocumentIdentity identity{reference.targetProjectName, reference.targetResourceName, {}};
    identity.elements.reserve(reference.paths.size());
    const auto lowered = m_referenceValuesLowered.find(&reference);
    const std::vector<bool> *known = lowered == m_referenceValuesLowered.end() ? nullptr : &lowered->second;
    for (std::size_t i = 0; i < reference.paths.size(); ++i) {
        const ReferencePathPair &pair = reference.paths[i];
        const Json *value = pair.referencePath.resolve(body, indices);
        if (value == nullptr || value->is_null() || value->is_structured())
            return std::nullopt;
        std::string text = identityValueText(*value);
        if (lowersValue(known, i, reference.targetProjectName, reference.targetResourceName, pair.identityPath.text()))
            text = toLower(text);
        identity.elements.push_back({pair.identityPath.text(), std::move(text)});
    }
    return identity;
}

const std::string &BodyReference::targetProject() const
{
    return descriptor ? descriptor->descriptorProjectName : reference->targetProjectName;
}

const std::string &BodyReference::targetResource() const
{
    return descriptor ? descriptor->descriptorResourceName : reference->targetResourceName;
}

std::vector<BodyReference> IdentityCalculator::referencesIn(const ResourceSchema &resource, const Json &body) const
{
    std::vector<BodyReference> out;
    for (const DescriptorMapping &descriptor : resource.descriptors) {
        for (JsonPath::Match &match : descriptor.path.select(body)) {
            if (!match.value->is_string())
                continue;
            BodyReference found;
            found.path = std::move(match.concretePath);
            found.descriptor = &descriptor;
            found.value = match.value;
            found.indices = std::move(match.indices);
            found.identity = descriptorIdentity(descriptor.descriptorProjectName, descriptor.descriptorResourceName,
                                                match.value->get<std::string>());
            out.push_back(std::move(found));
        }
    }
    for (const ReferenceMapping &reference : resource.references) {
        for (JsonPath::Match &occurrence : reference.objectPath.select(body)) {
            if (!occurrence.value->is_object())
                continue;
            BodyReference found;
            found.path = std::move(occurrence.concretePath);
            found.reference = &reference;
            found.value = occurrence.value;
            found.indices = std::move(occurrence.indices);
            found.identity = referenceIdentity(reference, body, found.indices);
            out.push_back(std::move(found));
        }
    }
    return out;
}

} // namespace steward
