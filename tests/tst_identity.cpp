// Referential ids must be byte-identical to the Ed-Fi Data Management Service's.
#include "Identity.h"
#include "TestSupport.h"

#include <QTest>
#include <QUuid>

#include <thread>

using namespace steward;

class TestIdentity : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void specExamples()
    {
        QCOMPARE(Uuid::edfiV5("Ed-FiSchool$.schoolId=123").toString(),
                 std::string("3af6ad85-1212-5833-be6f-f8df6f4d6402"));
        QCOMPARE(Uuid::edfiV5("Ed-FiGradeLevelDescriptor$.descriptor=uri://ed-fi.org/gradeleveldescriptor#ninth grade")
                     .toString(),
                 std::string("9531a840-f733-5616-8729-6607476329fb"));
    }

    void schoolDocumentAndSuperclass()
    {
        auto model = Model::loadStarter();
        IdentityCalculator calc(*model);
        const ResourceSchema *school = model->findByEndpoint("ed-fi", "schools");
        QVERIFY(school);
        auto own = calc.documentIdentity(*school, Json{{"schoolId", 123}});
        QVERIFY(own);
        QCOMPARE(own->referentialId().toString(), std::string("3af6ad85-1212-5833-be6f-f8df6f4d6402"));
        auto super = calc.superclassIdentity(*school, *own);
        QVERIFY(super);
        QCOMPARE(super->referentialName(), std::string("Ed-FiEducationOrganization$.educationOrganizationId=123"));
    }

    void descriptorDocument()
    {
        auto model = Model::loadStarter();
        IdentityCalculator calc(*model);
        const ResourceSchema *grade = model->findByEndpoint("ed-fi", "gradeLevelDescriptors");
        auto id = calc.documentIdentity(*grade, Json{{"namespace", "uri://ed-fi.org/GradeLevelDescriptor"},
                                                     {"codeValue", "Ninth grade"}});
        QCOMPARE(id->referentialId().toString(), std::string("9531a840-f733-5616-8729-6607476329fb"));
    }

    void sectionThroughReferences()
    {
        // Expected value computed independently from the name the protocol defines:
        // "Ed-FiSection$.courseOfferingReference.localCourseCode=ALG-1#...#$.sectionIdentifier=ALG-1-S1".
        auto model = Model::loadStarter();
        IdentityCalculator calc(*model);
        const ResourceSchema *section = model->findByEndpoint("ed-fi", "sections");
        const Json body = {{"sectionIdentifier", "ALG-1-S1"},
                           {"courseOfferingReference",
                            {{"localCourseCode", "ALG-1"},
                             {"schoolId", 255901},
                             {"schoolYear", 2022},
                             {"sessionName", "2021-2022 Fall Semester"}}}};
        auto id = calc.documentIdentity(*section, body);
        QCOMPARE(id->referentialId().toString(), std::string("113baaf0-4df9-592f-a757-75ad77d3a9d0"));

        // A reference from a StudentSectionAssociation yields the same id as the Section's own.
        const ResourceSchema *ssa = model->findByEndpoint("ed-fi", "studentSectionAssociations");
        const Json enrollment = {{"sectionReference",
                                  {{"localCourseCode", "ALG-1"},
                                   {"schoolId", 255901},
                                   {"schoolYear", 2022},
                                   {"sectionIdentifier", "ALG-1-S1"},
                                   {"sessionName", "2021-2022 Fall Semester"}}}};
        for (const ReferenceMapping &ref : ssa->references)
            if (ref.targetResourceName == "Section")
                QCOMPARE(calc.referenceIdentity(ref, enrollment, {})->referentialId(), id->referentialId());
    }

    void oneReferencePathFeedsTwoIdentityPaths()
    {
        // A CourseOffering reference's schoolId fills both the school's and the session's.
        auto model = Model::loadStarter();
        IdentityCalculator calc(*model);
        const ResourceSchema *section = model->findByEndpoint("ed-fi", "sections");
        const Json body = {{"courseOfferingReference",
                            {{"localCourseCode", "ALG-1"}, {"schoolId", 1}, {"schoolYear", 2022}, {"sessionName", "F"}}}};
        for (const ReferenceMapping &ref : section->references) {
            if (ref.targetResourceName != "CourseOffering")
                continue;
            auto target = calc.referenceIdentity(ref, body, {});
            QCOMPARE(target->referentialName(),
                     std::string("Ed-FiCourseOffering$.localCourseCode=ALG-1#$.schoolReference.schoolId=1#"
                                 "$.sessionReference.schoolId=1#$.sessionReference.schoolYear=2022#"
                                 "$.sessionReference.sessionName=F"));
            const ResourceSchema *offering = model->findByEndpoint("ed-fi", "courseOfferings");
            auto own = calc.documentIdentity(*offering, Json{{"localCourseCode", "ALG-1"},
                                                             {"schoolReference", {{"schoolId", 1}}},
                                                             {"sessionReference",
                                                              {{"schoolId", 1}, {"schoolYear", 2022}, {"sessionName", "F"}}}});
            QCOMPARE(own->referentialId(), target->referentialId());
        }
    }

    void descriptorValuesInIdentitiesAreLowerCased()
    {
        auto model = Model::loadStarter();
        IdentityCalculator calc(*model);
        const ResourceSchema *program = model->findByEndpoint("ed-fi", "programs");
        auto id = calc.documentIdentity(*program,
                                        Json{{"educationOrganizationReference", {{"educationOrganizationId", 255901}}},
                                             {"programName", "Bilingual"},
                                             {"programTypeDescriptor", "uri://ed-fi.org/ProgramTypeDescriptor#Bilingual"}});
        QCOMPARE(id->referentialId().toString(), std::string("2df32e4d-4db6-5e32-a129-1e0505562882"));
    }

    void canonicalNumbers()
    {
        QCOMPARE(identityValueText(Json::parse("12.50")), std::string("12.5"));
        QCOMPARE(identityValueText(Json::parse("0.0")), std::string("0"));
        QCOMPARE(identityValueText(Json::parse("-0.0")), std::string("0"));
        QCOMPARE(identityValueText(Json::parse("255901")), std::string("255901"));
        QCOMPARE(identityValueText(Json::parse("3.0")), std::string("3"));
        QCOMPARE(identityValueText(Json::parse("18446744073709551615")), std::string("18446744073709551615"));
        QCOMPARE(identityValueText(Json(true)), std::string("true"));
        QCOMPARE(identityValueText(Json("a b")), std::string("a b"));
        QCOMPARE(Uuid::edfiV5("Ed-FiDecimalKeyResource$.decimalKey=" + identityValueText(Json::parse("12.50")))
                     .toString(),
                 std::string("12d60ded-705a-54c4-bd28-72360ee129f4"));
    }

    void uuidText()
    {
        const std::string text = "3af6ad85-1212-5833-be6f-f8df6f4d6402";
        QCOMPARE(Uuid::parse(text)->toString(), text);
        QVERIFY(!Uuid::parse("3af6ad85-1212-5833-be6f-f8df6f4d640"));
        QVERIFY(!Uuid::parse("3af6ad85x1212-5833-be6f-f8df6f4d6402"));
        QVERIFY(Uuid::random() != Uuid::random());
        // Random ids are RFC 4122 version 4, as QUuid reads them, and differ between threads.
        for (int i = 0; i < 100; ++i) {
            const std::string id = Uuid::random().toString();
            QCOMPARE(QUuid::fromString(QString::fromStdString(id)).version(), QUuid::Random);
            QCOMPARE(QUuid::fromString(QString::fromStdString(id)).variant(), QUuid::DCE);
        }
        // Each thread seeds its own generator: two fresh threads' first ids differ.
        Uuid first;
        Uuid second;
        std::thread([&first] { first = Uuid::random(); }).join();
        std::thread([&second] { second = Uuid::random(); }).join();
        QVERIFY(first != second);
    }
};

QTEST_GUILESS_MAIN(TestIdentity)
#include "tst_identity.moc"
