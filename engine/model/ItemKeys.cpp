// One table of data and the rule that reads it: which fields identify an item of an Ed-Fi collection.
//
// Ed-Fi's newer ApiSchema files state it per collection (`arrayUniquenessConstraints`); the DS 4 and
// DS 5.0/5.1 files do not. For those, the key is what the ODS/API's child table of the collection has in
// its primary key besides the parent's columns (EducationOrganizationAddress: AddressTypeDescriptorId,
// City, PostalCode, StateAbbreviationDescriptorId, StreetNumberName), written here by the collection's
// JSON name. Collections not in the table that are one descriptor or one reference (gradeLevels,
// classPeriods, ...) are keyed by it, as their child tables are.
#include "ItemKeys.h"

#include "ApiSchema.h"

#include <algorithm>
#include <initializer_list>

namespace steward {

namespace {

struct KnownCollection
{
    const char *collection; // the array's property name
    std::initializer_list<const char *> key;
    std::initializer_list<const char *> stable;
};

// A collection name may hold items of several shapes (identificationCodes of an education organization,
// a course, an assessment, ...): the first row whose key fields the item schema has is the one.
// The stable part is the item's kind (a type or an identification system), never a value a steward
// corrects; a key of one field has none, since changing it makes another item.
const KnownCollection kKnownCollections[] = {
    {"academicHonors",
     {"academicHonorCategoryDescriptor", "honorDescription"},
     {"academicHonorCategoryDescriptor"}},
    {"additionalImmunizations", {"immunizationName"}, {}},
    {"addresses",
     {"addressTypeDescriptor", "city", "postalCode", "stateAbbreviationDescriptor", "streetNumberName"},
     {"addressTypeDescriptor"}},
    {"alternativeCourseIdentificationCodes", {"courseIdentificationSystemDescriptor"}, {}},
    {"authors", {"author"}, {}},
    {"cohortYears", {"cohortYearTypeDescriptor", "schoolYearTypeReference"}, {"cohortYearTypeDescriptor"}},
    {"creditsByCourses", {"courseSetName"}, {}},
    {"creditsByCreditCategories", {"creditCategoryDescriptor"}, {}},
    {"creditsBySubjects", {"academicSubjectDescriptor"}, {}},
    {"dates", {"date"}, {}},
    {"derivativeSourceLearningResourceMetadataURIs", {"derivativeSourceLearningResourceMetadataURI"}, {}},
    {"derivativeSourceURIs", {"derivativeSourceURI"}, {}},
    {"diplomas", {"diplomaAwardDate", "diplomaTypeDescriptor"}, {"diplomaTypeDescriptor"}},
    {"displacedStudents", {"crisisEventReference"}, {}},
    {"earnedAdditionalCredits", {"additionalCreditTypeDescriptor"}, {}},
    {"electronicMails",
     {"electronicMailAddress", "electronicMailTypeDescriptor"},
     {"electronicMailTypeDescriptor"}},
    {"endorsements", {"endorsement"}, {}},
    {"externalEvaluators", {"externalEvaluator"}, {}},
    {"externalParticipants",
     {"disciplineIncidentParticipationCodeDescriptor", "firstName", "lastSurname"},
     {}},
    {"federalFunds", {"fiscalYear"}, {}},
    {"gradePointAverages", {"gradePointAverageTypeDescriptor"}, {}},
    {"identificationCodes", {"educationOrganizationIdentificationSystemDescriptor"}, {}},
    {"identificationCodes", {"assessmentIdentificationSystemDescriptor"}, {}},
    {"identificationCodes", {"courseIdentificationSystemDescriptor"}, {}},
    {"identificationCodes", {"staffIdentificationSystemDescriptor"}, {}},
    {"identificationCodes", {"contentStandardName", "identificationCode"}, {"contentStandardName"}},
    {"identificationDocuments",
     {"identificationDocumentUseDescriptor", "personalInformationVerificationDescriptor"},
     {"identificationDocumentUseDescriptor"}},
    {"indicators", {"indicatorDescriptor"}, {}},
    {"institutionTelephones", {"institutionTelephoneNumberTypeDescriptor"}, {}},
    {"internationalAddresses", {"addressTypeDescriptor"}, {}},
    {"interventionEffectivenesses",
     {"diagnosisDescriptor", "gradeLevelDescriptor", "populationServedDescriptor"},
     {}},
    {"items", {"assessmentItemReference"}, {}},
    {"learningResourceMetadataURIs", {"learningResourceMetadataURI"}, {}},
    {"matrices", {"matrixElement"}, {}},
    {"meetingTimes", {"endTime", "startTime"}, {}},
    {"otherNames", {"otherNameTypeDescriptor"}, {}},
    {"partialCourseTranscriptAwards", {"awardDate"}, {}},
    {"performanceLevels",
     {"assessmentReportingMethodDescriptor", "performanceLevelDescriptor"},
     {"assessmentReportingMethodDescriptor"}},
    {"periods", {"beginDate"}, {}},
    {"periods", {"assessmentPeriodDescriptor"}, {}},
    {"personalIdentificationDocuments",
     {"identificationDocumentUseDescriptor", "personalInformationVerificationDescriptor"},
     {"identificationDocumentUseDescriptor"}},
    {"possibleResponses", {"responseValue"}, {}},
    {"programParticipationStatuses",
     {"participationStatusDescriptor", "statusBeginDate"},
     {"participationStatusDescriptor"}},
    {"responseChoices", {"sortOrder"}, {}},
    {"scoreResults", {"assessmentReportingMethodDescriptor"}, {}},
    {"studentIdentificationCodes",
     {"assigningOrganizationIdentificationCode", "studentIdentificationSystemDescriptor"},
     {"studentIdentificationSystemDescriptor"}},
    {"studentIndicators", {"indicatorName"}, {}},
    {"surveyQuestionMatrixElementResponses", {"matrixElement"}, {}},
    {"telephones", {"telephoneNumber", "telephoneNumberTypeDescriptor"}, {"telephoneNumberTypeDescriptor"}},
    {"uris", {"uri"}, {}},
    {"values", {"surveyQuestionResponseValueIdentifier"}, {}},
};

// The schema at a generic path ("$.addresses[*]") of a resource's JSON Schema, or null.
const Json *schemaAt(const Json &root, const std::string &genericPath)
{
    const Json *at = &root;
    std::size_t i = 1; // past "$"
    while (i < genericPath.size()) {
        if (genericPath.compare(i, 3, "[*]") == 0) {
            auto items = at->find("items");
            if (items == at->end())
                return nullptr;
            at = &*items;
            i += 3;
            continue;
        }
        if (genericPath[i] != '.')
            return nullptr;
        const std::size_t end = genericPath.find_first_of(".[", i + 1);
        const std::string name =
            genericPath.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
        auto properties = at->find("properties");
        if (properties == at->end() || !properties->is_object() || !properties->contains(name))
            return nullptr;
        at = &(*properties)[name];
        i = end == std::string::npos ? genericPath.size() : end;
    }
    return at;
}

// The collection's property name: "addresses" of "$.addresses[*]", "periods" of "$.addresses[*].periods[*]".
std::string collectionName(const std::string &genericItemPath)
{
    const std::string array = genericItemPath.substr(0, genericItemPath.size() - 3); // without "[*]"
    const std::size_t dot = array.rfind('.');
    return dot == std::string::npos ? array : array.substr(dot + 1);
}

// The schema's own key: the constraint paths that are fields of this collection's items.
std::vector<std::string> keyFromSchema(const ResourceSchema &resource, const std::string &genericItemPath)
{
    const std::string prefix = genericItemPath + ".";
    std::vector<std::string> fields;
    for (const auto *constraints :
         {&resource.arrayUniquenessConstraints, &resource.nestedArrayUniquenessConstraints})
        for (const std::vector<JsonPath> &group : *constraints)
            for (const JsonPath &path : group) {
                if (path.text().compare(0, prefix.size(), prefix) != 0 ||
                    path.text().find('[', prefix.size()) != std::string::npos)
                    continue;
                // A key field inside a reference ("schoolReference.schoolId") keys by the whole reference.
                std::string field = path.text().substr(prefix.size());
                field = field.substr(0, field.find('.'));
                if (std::find(fields.begin(), fields.end(), field) == fields.end())
                    fields.push_back(field);
            }
    return fields;
}

bool hasAll(const Json &properties, std::initializer_list<const char *> fields)
{
    return std::all_of(fields.begin(), fields.end(),
                       [&properties](const char *field) { return properties.contains(field); });
}

bool isDescriptorOrReference(const std::string &field, const Json &schema)
{
    const std::string type = schema.value("type", std::string());
    return (type == "string" && field.ends_with("Descriptor")) ||
           (type == "object" && field.ends_with("Reference"));
}

} // namespace

const char *itemKeySourceName(ItemKey::Source source)
{
    switch (source) {
    case ItemKey::Source::Schema:
        return "the schema's arrayUniquenessConstraints";
    case ItemKey::Source::EdFiTable:
        return "Steward's table of Ed-Fi collection keys";
    case ItemKey::Source::SingleMember:
        return "the one descriptor or reference the item is";
    case ItemKey::Source::RequiredFields:
        return "every field the item requires";
    }
    return "";
}

ItemKey itemKeyOf(const ResourceSchema *resource, const std::string &genericItemPath)
{
    ItemKey key;
    if (resource == nullptr)
        return key;
    key.fields = keyFromSchema(*resource, genericItemPath);
    const Json *item = schemaAt(resource->jsonSchema, genericItemPath);
    const Json *properties =
        item != nullptr && item->contains("properties") ? &(*item)["properties"] : nullptr;
    const std::string collection = collectionName(genericItemPath);
    auto knownRow = [&]() -> const KnownCollection * {
        if (properties == nullptr)
            return nullptr;
        for (const KnownCollection &row : kKnownCollections)
            if (collection == row.collection && hasAll(*properties, row.key))
                return &row;
        return nullptr;
    };
    if (!key.fields.empty()) {
        key.source = ItemKey::Source::Schema;
        // The table's stable part still applies to a schema's key that holds it.
        for (const KnownCollection &row : kKnownCollections) {
            if (collection != row.collection || row.stable.size() == 0 ||
                !std::all_of(row.stable.begin(), row.stable.end(), [&key](const char *field) {
                    return std::find(key.fields.begin(), key.fields.end(), field) != key.fields.end();
                }))
                continue;
            key.stable.assign(row.stable.begin(), row.stable.end());
            break;
        }
        return key;
    }
    if (const KnownCollection *row = knownRow()) {
        key.fields.assign(row->key.begin(), row->key.end());
        key.stable.assign(row->stable.begin(), row->stable.end());
        key.source = ItemKey::Source::EdFiTable;
        return key;
    }
    if (item == nullptr || properties == nullptr)
        return key;
    std::vector<std::string> required;
    if (item->contains("required"))
        for (const Json &name : (*item)["required"])
            if (name.is_string() && properties->contains(name.get<std::string>()))
                required.push_back(name.get<std::string>());
    if (required.size() == 1 && isDescriptorOrReference(required.front(), (*properties)[required.front()])) {
        key.fields = required;
        key.source = ItemKey::Source::SingleMember;
        return key;
    }
    // Unknown to the table (an extension's collection): every required field, so that a change of any
    // of them makes another item; a merge then never carries an edit across a guess.
    for (const std::string &field : required) {
        const std::string type = (*properties)[field].value("type", std::string());
        if (type != "array")
            key.fields.push_back(field);
    }
    key.source = ItemKey::Source::RequiredFields;
    return key;
}

} // namespace steward
