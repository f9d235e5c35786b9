#pragma once

#include "ApiSchema.h"
#include "Json.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace steward {

// A 16-byte RFC 4122 UUID. Stored as a BLOB; shown in its canonical lower-case text form.
// The value of a hexadecimal digit, either case; -1 for any other character.
int hexDigitValue(char c);

struct Uuid
{
    std::array<std::uint8_t, 16> bytes{};

    std::string toString() const;
    static std::optional<Uuid> parse(std::string_view text);
    // Only the form toString() gives (lower case, with hyphens): its bytes give the same text back.
    static std::optional<Uuid> parseCanonical(std::string_view text);
    static Uuid random();
    // UUIDv5 (SHA-1) of name in the Ed-Fi namespace edf1edf1-3df1-3df1-3df1-3df1edf1edf1.
    static Uuid edfiV5(const std::string &name);
    bool operator==(const Uuid &other) const { return bytes == other.bytes; }
    bool operator!=(const Uuid &other) const { return bytes != other.bytes; }
    bool operator<(const Uuid &other) const { return bytes < other.bytes; }
};

// Referential ids are SHA-1 (or random) bytes already: the first eight make a good hash.
struct UuidHash
{
    std::size_t operator()(const Uuid &id) const;
};

struct IdentityElement
{
    std::string path;  // "$.schoolId"
    std::string value; // its text as it enters the referential id
};

// The natural key of a document (or of a reference's target) under one resource name.
struct DocumentIdentity
{
    std::string projectName;
    std::string resourceName;
    std::vector<IdentityElement> elements;

    // "Ed-FiSchool$.schoolId=123": the name hashed into the referential id.
    std::string referentialName() const;
    Uuid referentialId() const { return Uuid::edfiV5(referentialName()); }
};

// Text of a JSON scalar as Ed-Fi identities use it: strings without quotes, numbers canonical
// (12.50 -> 12.5, 0.0 -> 0), booleans true/false.
std::string identityValueText(const Json &value);

// One reference or descriptor value a document body carries, as the model declares it. Found by
// IdentityCalculator::referencesIn, which every reader of references shares (the write path's
// resolution, the references pane, root causes of drafts).
struct BodyReference
{
    std::string path;                              // "$.schoolReference", "$.gradeLevels[0].gradeLevelDescriptor"
    const ReferenceMapping *reference = nullptr;   // set for a reference to a document
    const DescriptorMapping *descriptor = nullptr; // set for a descriptor value
    const Json *value = nullptr;                   // the reference object, or the descriptor URI string
    std::vector<std::size_t> indices;              // the occurrence's [*] indices
    std::optional<DocumentIdentity> identity;      // the target's identity; nullopt when the reference is partial

    bool isDescriptor() const { return descriptor != nullptr; }
    const std::string &targetProject() const;
    const std::string &targetResource() const;
};

// A natural key as Change Queries list it ("keyValues"): one flat object of the identity's leaf
// values ({"schoolId":1,"studentUniqueId":"9","entryDate":"..."}). A leaf name two references share
// with different values keeps the first; the other is prefixed with its reference ("sessionSchoolId").
Json keyValuesOf(const Json &identityObject);

class IdentityCalculator
{
public:
    explicit IdentityCalculator(const Model &model);

    // The document's own identity; nullopt (with missingPath set) when an identity value is absent.
    std::optional<DocumentIdentity> documentIdentity(const ResourceSchema &resource, const Json &body,
                                                     std::string *missingPath = nullptr) const;
    // The identity a subclass document also answers to under its superclass's name, if any.
    std::optional<DocumentIdentity> superclassIdentity(const ResourceSchema &resource,
                                                       const DocumentIdentity &own) const;
    // The natural key as a JSON object shaped like the document ({"schoolId":1} or nested references).
    Json identityObject(const ResourceSchema &resource, const Json &body) const;
    // Identity of the target of one reference occurrence; [*] steps bound to indices.
    std::optional<DocumentIdentity> referenceIdentity(const ReferenceMapping &reference, const Json &body,
                                                      const std::vector<std::size_t> &indices) const;
    // Every descriptor value (strings only), then every reference occurrence (objects only), in
    // model order; the body must outlive the result.
    std::vector<BodyReference> referencesIn(const ResourceSchema &resource, const Json &body) const;
    static DocumentIdentity descriptorIdentity(const std::string &projectName, const std::string &resourceName,
                                               const std::string &uri);

    // Identity paths of a resource (or abstract resource) whose values are descriptor URIs.
    bool carriesDescriptor(const std::string &projectName, const std::string &resourceName,
                           const std::string &identityPath) const;

private:
    // carriesDescriptor, worked out ahead for the index-th path when known holds it.
    bool lowersValue(const std::vector<bool> *known, std::size_t index, const std::string &projectName,
                     const std::string &resourceName, const std::string &identityPath) const;

    const Model &m_model;
    std::map<std::pair<std::string, std::string>, std::set<std::string>> m_descriptorIdentityPaths;
    // Per resource's identity paths and per reference's path pairs, in their order.
    std::unordered_map<const ResourceSchema *, std::vector<bool>> m_identityValuesLowered;
    std::unordered_map<const ReferenceMapping *, std::vector<bool>> m_referenceValuesLowered;
};

} // namespace steward
