// Interchange XML against Ed-Fi's Grand Bend sample district in ../shared/edfi (skipped, visibly,
// when the published files are absent).
#include "ApiSchema.h"
#include "Importer.h"
#include "TestSupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTest>

#include <map>
#include <string>

using namespace steward;
using namespace steward::test;

class TestInterchangeXmlSample : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (sharedEdfiDir().isEmpty())
            QSKIP("../shared/edfi is not present: the published Ed-Fi files are not part of a fresh clone");
    }

    void sampleDistrictFiles()
    {
        const QString shared = sharedEdfiDir();
        Fixture f(Model::loadFiles({(shared + "/ds-5.1/ApiSchema.json").toStdString()}));
        ImportOptions options;
        const QString sample = shared + "/ds-5.1/SampleXML/";
        options.paths = {(shared + "/ds-5.1/Descriptors").toStdString()};
        // The district's own descriptors sit beside its data.
        for (const QString &name : QDir(sample).entryList({"*Descriptor.xml"}, QDir::Files, QDir::Name))
            options.paths.push_back((sample + name).toStdString());
        for (const char *name :
             {"EducationOrganization.xml", "EducationOrgCalendar.xml", "MasterSchedule.xml", "Standards.xml",
              "StaffAssociation.xml", "Student.xml", "StudentGradebook.xml"})
            options.paths.push_back((sample + name).toStdString());
        QElapsedTimer timer;
        timer.start();
        ImportReport report = importFiles(f.engine(), f.model(), options);
        qInfo("descriptors + 7 sample files: %lld created, %lld drafts in %lld ms",
              qlonglong(report.totals.created), qlonglong(report.totals.drafts), qlonglong(timer.elapsed()));
        QVERIFY2(report.completed, report.error.c_str());
        if (!report.drafts.empty())
            QFAIL(qPrintable(QString::fromStdString(std::to_string(report.drafts.size()) +
                                                    " drafts, the first: " + report.drafts.front().file +
                                                    ":" + std::to_string(report.drafts.front().line) + " " +
                                                    report.drafts.front().problem.dump())));
        // The element counts of these files: every one stored, nothing they reference is missing
        // (MasterSchedule.xml holds one CourseOffering twice, so one is unchanged).
        const std::map<std::string, std::int64_t> expected{
            {"ed-fi/schoolYearTypes", 1},
            {"ed-fi/educationServiceCenters", 1},
            {"ed-fi/localEducationAgencies", 1},
            {"ed-fi/schools", 3},
            {"ed-fi/courses", 84},
            {"ed-fi/locations", 56},
            {"ed-fi/classPeriods", 21},
            {"ed-fi/programs", 24},
            {"ed-fi/accountabilityRatings", 4},
            {"ed-fi/sessions", 6},
            {"ed-fi/gradingPeriods", 18},
            {"ed-fi/calendars", 1},
            {"ed-fi/calendarDates", 2},
            {"ed-fi/courseOfferings", 168},
            {"ed-fi/sections", 532},
            {"ed-fi/bellSchedules", 3},
            {"ed-fi/students", 960},
            {"ed-fi/people", 9},
            {"ed-fi/learningStandards", 5597},
            {"ed-fi/staffs", 68},
            {"ed-fi/staffSectionAssociations", 528},
            {"ed-fi/gradebookEntries", 10},
            {"ed-fi/studentGradebookEntries", 250},
        };
        QCOMPARE(report.byResource["ed-fi/courseOfferings"].unchanged, 1);
        for (const auto &[resource, count] : expected)
            QVERIFY2(report.byResource[resource].created == count,
                     qPrintable(QString::fromStdString(resource + ": " +
                                                       std::to_string(report.byResource[resource].created) +
                                                       " created, expected " + std::to_string(count))));

        // Every query field of every DS 5.1 resource the district fills: the indexes answer what a scan would.
        timer.restart();
        const IndexScanComparison comparison = compareIndexWithScan(f, 3);
        qInfo("%d queries compared with their scans in %lld ms", comparison.queries, qlonglong(timer.elapsed()));
        QVERIFY2(comparison.differences.empty(),
                 qPrintable(QString::number(comparison.differences.size()) + " differ, the first: "
                            + QString::fromStdString(comparison.differences.empty() ? "" : comparison.differences.front())));
        QVERIFY2(comparison.queries > 3000 && comparison.answeredWithDocuments * 3 > comparison.queries,
                 qPrintable(QStringLiteral("%1 queries, %2 with documents")
                                .arg(comparison.queries)
                                .arg(comparison.answeredWithDocuments)));
        QVERIFY2(f.engine().check().clean(), f.engine().check().toJson().dump().substr(0, 2000).c_str());
    }
};

QTEST_GUILESS_MAIN(TestInterchangeXmlSample)
#include "tst_interchangexml_sample.moc"
