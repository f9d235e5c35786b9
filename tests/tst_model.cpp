#include "ApiSchema.h"
#include "ItemKeys.h"
#include "TestSupport.h"
#include "Validation.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace steward;

namespace {

Json minimalProject(const std::string &wrapperKind)
{
    const Json project = Json::parse(R"({"projectName":"Sample","projectEndpointName":"sample","projectVersion":"1.0.0",
      "isExtensionProject":false,"abstractResources":{"Thing":{"identityJsonPaths":["$.thingId"]}},
      "resourceSchemas":{
        "widgets":{"resourceName":"Widget","isDescriptor":false,"isSchoolYearEnumeration":false,"isSubclass":true,
          "subclassType":"domainEntity","superclassProjectName":"Sample","superclassResourceName":"Thing",
          "superclassIdentityJsonPath":"$.thingId","allowIdentityUpdates":false,"identityJsonPaths":["$.widgetId"],
          "documentPathsMapping":{},"equalityConstraints":[],
          "jsonSchemaForInsert":{"type":"object","properties":{"widgetId":{"type":"integer"}},"required":["widgetId"],
            "additionalProperties":false}},
        "gadgets":{"resourceName":"Gadget","isDescriptor":false,"isSchoolYearEnumeration":false,"isSubclass":false,
          "allowIdentityUpdates":false,"identityJsonPaths":["$.gadgetCode"],
          "documentPathsMapping":{"Thing":{"isReference":true,"isDescriptor":false,"projectName":"Sample",
            "resourceName":"Thing","referenceJsonPaths":[{"identityJsonPath":"$.thingId",
            "referenceJsonPath":"$.thingReference.thingId"}]}},
          "equalityConstraints":[],
          "queryFieldMapping":{"gadgetCode":[{"path":"$.gadgetCode","type":"string"}]},
          "jsonSchemaForInsert":{"type":"object","properties":{"gadgetCode":{"type":"string"},
            "thingReference":{"type":"object","properties":{"thingId":{"type":"integer"}},"required":["thingId"],
            "additionalProperties":false}},"required":["gadgetCode"],"additionalProperties":false}}}})");
    if (wrapperKind == "single")
        return Json{{"apiSchemaVersion", "1.0.0"}, {"projectSchema", project}};
    Json older = project;
    older.erase("projectEndpointName");
    return Json{{"apiSchemaVersion", "1.0.0"}, {"projectSchemas", {{"sample", older}}}};
}

std::string loadError(const Json &document)
{
    try {
        Model::loadDocuments({{"bad.json", document}});
    } catch (const SchemaLoadError &e) {
        return e.what();
    }
    return "no error";
}

} // namespace

class TestModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void starterModelCoversTheIssueList()
    {
        auto model = Model::loadStarter();
        for (const char *name :
             {"SchoolYearType", "StateEducationAgency", "LocalEducationAgency", "School", "Course", "Session",
              "CourseOffering", "Section", "ClassPeriod", "Location", "Calendar", "GradingPeriod", "Program", "Student",
              "Staff", "StudentSchoolAssociation", "StudentSectionAssociation", "StaffSectionAssociation",
              "AcademicWeek", "Survey"})
            QVERIFY2(model->findByName("Ed-Fi", name), name);
        int descriptors = 0;
        for (const ResourceSchema *r : model->resources())
            descriptors += r->isDescriptor ? 1 : 0;
        QVERIFY(descriptors >= 15);
        const AbstractResource *edOrg = model->findAbstract("Ed-Fi", "EducationOrganization");
        QVERIFY(edOrg);
        QCOMPARE(edOrg->subclasses.size(), std::size_t(3));
        bool surveyReferencesSession = false;
        for (const ReferenceMapping &ref : model->findByName("Ed-Fi", "Survey")->references)
            surveyReferencesSession = surveyReferencesSession || ref.targetResourceName == "Session";
        QVERIFY(surveyReferencesSession);
    }

    void bothWrappers()
    {
        for (const char *kind : {"single", "map"}) {
            auto model = Model::loadDocuments({{"sample.json", minimalProject(kind)}});
            const ResourceSchema *widget = model->findByEndpoint("sample", "WIDGETS");
            QVERIFY(widget);
            QCOMPARE(widget->superclassIdentityPath, std::string("$.thingId"));
            QCOMPARE(model->findAbstract("Sample", "Thing")->subclasses.size(), std::size_t(1));
            const ResourceSchema *gadget = model->findByEndpoint("sample", "gadgets");
            QCOMPARE(gadget->references.size(), std::size_t(1));
            QCOMPARE(gadget->references[0].objectPath.text(), std::string("$.thingReference"));
            QVERIFY(gadget->queryFields.count("gadgetcode"));
        }
    }

    // Newer ApiSchema files key collections inside collection items by nested constraints.
    void nestedArrayUniquenessConstraintsAreRead()
    {
        Json document = minimalProject("single");
        Json &gadget = document["projectSchema"]["resourceSchemas"]["gadgets"];
        gadget["jsonSchemaForInsert"]["properties"]["addresses"] = Json::parse(R"({"type":"array","items":{
            "type":"object","properties":{"addressTypeDescriptor":{"type":"string"},"city":{"type":"string"},
            "periods":{"type":"array","items":{"type":"object","properties":{"beginDate":{"type":"string"}}}}}}})");
        gadget["arrayUniquenessConstraints"] = Json::parse(R"([{"paths":["$.addresses[*].addressTypeDescriptor",
            "$.addresses[*].city"],"nestedConstraints":[{"basePath":"$.addresses[*]","paths":["$.periods[*].beginDate"]}]}])");
        auto model = Model::loadDocuments({{"nested.json", document}});
        const ResourceSchema *loaded = model->findByEndpoint("sample", "gadgets");
        QCOMPARE(loaded->arrayUniquenessConstraints.size(), std::size_t(1));
        QCOMPARE(loaded->nestedArrayUniquenessConstraints.size(), std::size_t(1));
        QCOMPARE(loaded->nestedArrayUniquenessConstraints[0][0].text(),
                 std::string("$.addresses[*].periods[*].beginDate"));
        const ItemKey addresses = itemKeyOf(loaded, "$.addresses[*]");
        QCOMPARE(addresses.source, ItemKey::Source::Schema);
        QCOMPARE(addresses.fields, (std::vector<std::string>{"addressTypeDescriptor", "city"}));
        QCOMPARE(addresses.stable, (std::vector<std::string>{"addressTypeDescriptor"})); // the table's stable part
        QCOMPARE(itemKeyOf(loaded, "$.addresses[*].periods[*]").fields, (std::vector<std::string>{"beginDate"}));

        // A nested constraint without its base path is named.
        gadget["arrayUniquenessConstraints"][0]["nestedConstraints"][0].erase("basePath");
        QCOMPARE(loadError(document),
                 std::string("bad.json: $.projectSchema.resourceSchemas.gadgets.arrayUniquenessConstraints[0]."
                             "nestedConstraints[0]: needs a 'basePath' string"));
    }

    void errorsNameFileAndPath()
    {
        Json noIdentity = minimalProject("single");
        noIdentity["projectSchema"]["resourceSchemas"]["gadgets"].erase("identityJsonPaths");
        QCOMPARE(loadError(noIdentity),
                 std::string("bad.json: $.projectSchema.resourceSchemas.gadgets: required member 'identityJsonPaths' "
                             "is missing"));

        Json badPath = minimalProject("single");
        badPath["projectSchema"]["resourceSchemas"]["gadgets"]["identityJsonPaths"][0] = "gadgetCode";
        QCOMPARE(loadError(badPath), std::string("bad.json: $.projectSchema.resourceSchemas.gadgets.identityJsonPaths[0]: "
                                                 "JSON path 'gadgetCode' does not start with '$'"));

        Json wrongType = minimalProject("map");
        wrongType["projectSchemas"]["sample"]["resourceSchemas"]["widgets"]["isSubclass"] = "yes";
        QCOMPARE(loadError(wrongType),
                 std::string("bad.json: $.projectSchemas.sample.resourceSchemas.widgets.isSubclass: expected true or false"));

        Json danglingTarget = minimalProject("single");
        danglingTarget["projectSchema"]["resourceSchemas"]["gadgets"]["documentPathsMapping"]["Thing"]["resourceName"] =
            "Nothing";
        QVERIFY(loadError(danglingTarget).find("references Sample resource 'Nothing'") != std::string::npos);

        QCOMPARE(loadError(Json::array()), std::string("bad.json: $: expected an ApiSchema object"));
        QVERIFY(loadError(Json::object()).find("not an ApiSchema file") != std::string::npos);

        Json badSchema = minimalProject("single");
        badSchema["projectSchema"]["resourceSchemas"]["gadgets"]["jsonSchemaForInsert"]["properties"]["gadgetCode"]
                 ["maxLength"] = "long";
        QVERIFY2(loadError(badSchema).find("gadgets.jsonSchemaForInsert: cannot be compiled") != std::string::npos,
                 loadError(badSchema).c_str());
    }

    // Inputs the fuzz harness fuzz_apischema found ending the loader (or later the engine) with
    // something other than a SchemaLoadError; fuzz/regressions/fuzz_apischema keeps them too.
    void oddSchemasAreLoadErrors()
    {
        Json typeNotAString = minimalProject("single");
        typeNotAString["projectSchema"]["resourceSchemas"]["gadgets"]["jsonSchemaForInsert"]["type"] = 5;
        QVERIFY(loadError(typeNotAString).find("expected a JSON Schema of type 'object'") != std::string::npos);

        Json pathWithoutSteps = minimalProject("single");
        pathWithoutSteps["projectSchema"]["resourceSchemas"]["gadgets"]["documentPathsMapping"]["Thing"]
                        ["referenceJsonPaths"][0]["referenceJsonPath"] = "$";
        QVERIFY2(loadError(pathWithoutSteps).find("referenceJsonPath: a reference path needs at least one property")
                     != std::string::npos,
                 loadError(pathWithoutSteps).c_str());

        Json propertiesNotAnObject = minimalProject("single");
        propertiesNotAnObject["projectSchema"]["resourceSchemas"]["gadgets"]["jsonSchemaForInsert"]["properties"] =
            Json::array();
        QVERIFY(loadError(propertiesNotAnObject).find("jsonSchemaForInsert.properties: expected an object")
                != std::string::npos);

        Json ownSuperclass = minimalProject("single");
        ownSuperclass["projectSchema"]["resourceSchemas"]["widgets"]["resourceName"] = "Thing";
        QVERIFY2(loadError(ownSuperclass).find("'Thing' names both a resource and an abstract resource")
                     != std::string::npos,
                 loadError(ownSuperclass).c_str());

        // isResourceExtension null reads as false, like every other optional flag.
        Json extensionNull = minimalProject("single");
        extensionNull["projectSchema"]["resourceSchemas"]["gadgets"]["isResourceExtension"] = nullptr;
        QCOMPARE(loadError(extensionNull), std::string("no error"));

        Json core = minimalProject("single");
        core["projectSchema"]["resourceSchemas"]["gadgets"]["jsonSchemaForInsert"]["properties"]["_ext"] =
            Json{{"type", "object"}, {"properties", 7}};
        const Json extension = Json::parse(R"({"projectSchema":{"projectName":"Ext","projectEndpointName":"ext",
          "isExtensionProject":true,"resourceSchemas":{"gadgets":{"resourceName":"Gadget","isResourceExtension":true,
          "documentPathsMapping":{},"jsonSchemaForInsert":{"type":"object","properties":{"_ext":{}}}}}}})");
        try {
            Model::loadDocuments({{"core.json", core}, {"ext.json", extension}});
            QFAIL("merged into '_ext.properties' that is not an object");
        } catch (const SchemaLoadError &e) {
            QVERIFY2(std::string(e.what()).find("cannot merge into Gadget") != std::string::npos, e.what());
        }
    }

    void unreadableAndMalformedFiles()
    {
        QTemporaryDir dir;
        const std::string truncated = dir.filePath("truncated.json").toStdString();
        std::ofstream(truncated) << R"({"projectSchema": {"projectName": )";
        try {
            Model::loadFiles({truncated});
            QFAIL("loaded a truncated file");
        } catch (const SchemaLoadError &e) {
            QCOMPARE(e.file(), truncated);
            QVERIFY(std::string(e.what()).find("invalid JSON") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(SchemaLoadError, Model::loadFiles({dir.filePath("missing.json").toStdString()}));
    }
};

QTEST_GUILESS_MAIN(TestModel)
#include "tst_model.moc"
