// The state's verdict worked offline: rule packs as versioned files (round trip, version diff,
// year and collection scope, ids never reused), a state portal's results matched to the sample
// district (matched and unmatched with reasons, "changed since", replace on re-import),
// acknowledgements and sign-offs, and the same through steward-cli.
#include "CliSupport.h"
#include "Exporter.h"
#include "ExternalResults.h"
#include "FileMode.h"
#include "Readiness.h"
#include "ReportReading.h"
#include "RowMapping.h"
#include "Rules.h"
#include "Submissions.h"
#include "TableExport.h"
#include "TestSupport.h"

#include <SQLiteCpp/Statement.h>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace steward;
using namespace steward::test;

namespace {

void writeFile(const QString &path, const std::string &text)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(text.data(), static_cast<qint64>(text.size()));
}

// "2021-08-23" -> "08/23/2021": how the made-up state portal writes dates.
std::string usDate(const std::string &iso)
{
    return iso.substr(5, 2) + "/" + iso.substr(8, 2) + "/" + iso.substr(0, 4);
}

std::string csvField(const std::string &text)
{
    if (text.find_first_of(",\"\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text)
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

// A results export in the layout a state portal gives: its own column names, severities as letters,
// records by the student's id, campus and entry date, one header row.
const char *const kStateHeader = "District ID,Campus ID,School Year,Record Type,Student ID,Entry Date,Rule Number,"
                                 "Error Level,Error Message,Run Date\n";

std::string stateRow(const std::string &campus, const std::string &recordType, const std::string &student,
                     const std::string &entryDate, const std::string &rule, const std::string &level,
                     const std::string &message)
{
    return "255901," + campus + ",2026," + recordType + "," + student + "," + entryDate + "," + rule + "," + level
           + "," + csvField(message) + ",2026-11-20\n";
}

const char *const kStateMapping = R"({
  "columns": {"rule": "Rule Number", "severity": "Error Level", "message": "Error Message",
              "schoolYear": "School Year", "school": "Campus ID", "resource": "Record Type", "runAt": "Run Date"},
  "severities": {"F": "fatal", "S": "error", "W": "warning"},
  "resources": {"ENROLL": "StudentSchoolAssociation", "STUDENT": "Student"},
  "keys": {
    "StudentSchoolAssociation": {"studentReference.studentUniqueId": {"column": "Student ID"},
                                 "schoolReference.schoolId": {"column": "Campus ID"},
                                 "entryDate": {"column": "Entry Date", "format": "MM/DD/YYYY"}},
    "Student": {"studentUniqueId": {"column": "Student ID"}}
  }
})";

struct Enrollment
{
    std::string id;
    std::string student;
    std::string school;
    std::string entryDate;
};

std::vector<Enrollment> enrollments(Fixture &f, int count)
{
    std::vector<Enrollment> out;
    for (const Json &doc : f.call("GET", "/ed-fi/studentSchoolAssociations?limit=" + std::to_string(count)).body)
        out.push_back({doc["id"].get<std::string>(), doc["studentReference"]["studentUniqueId"].get<std::string>(),
                       std::to_string(doc["schoolReference"]["schoolId"].get<long long>()),
                       doc["entryDate"].get<std::string>()});
    return out;
}

RulePack packFromText(const std::string &text, const Model &model)
{
    return parseRulePack("test pack", text, model);
}

Json starterJson(const Model &model)
{
    return *parseJson(loadStarterRulePack(model).content).value;
}

} // namespace

class TestVerdict : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void rulePackRoundTripGivesTheSameResults()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const RulePack builtIn = loadStarterRulePack(f.model());
        const RuleRunReport first = runRules(builtIn, f.model(), f.database(), {});
        QVERIFY(!first.cancelled);
        const std::vector<RuleResult> before = readRuleResults(f.database().connection());

        // Exported as a file, imported into another database with the same documents: the same results.
        QTemporaryDir dir;
        const QString file = dir.filePath("pack.json");
        writeFile(file, starterJson(f.model()).dump(2));
        Fixture other;
        other.loadSampleDistrict(2026, 3);
        const RulePack fromFile = loadRulePack(file.toStdString(), other.model());
        QCOMPARE(fromFile.content, builtIn.content);
        const RulePackImport imported = importRulePack(other.database(), fromFile, "tester", other.model());
        QVERIFY(!imported.alreadyStored);
        QVERIFY(imported.previousVersion.empty());
        const RulePack stored = resolveRulePack(&other.database().connection(), builtIn.id, other.model());
        QCOMPARE(stored.version, builtIn.version);
        runRules(stored, other.model(), other.database(), {});
        const std::vector<RuleResult> after = readRuleResults(other.database().connection());
        QCOMPARE(after.size(), before.size());
        for (std::size_t i = 0; i < after.size(); ++i) {
            QCOMPARE(after[i].ruleId, before[i].ruleId);
            QCOMPARE(after[i].naturalKey, before[i].naturalKey);
            QCOMPARE(after[i].message, before[i].message);
        }
        // Importing the same file again stores nothing new.
        QVERIFY(importRulePack(other.database(), fromFile, "tester", other.model()).alreadyStored);
    }

    void aNewerVersionShowsWhatChanged()
    {
        Fixture f;
        const RulePack v1 = loadStarterRulePack(f.model());
        importRulePack(f.database(), v1, "tester", f.model());
        Json next = starterJson(f.model());
        next["pack"]["version"] = "1.2.0";
        Json &rules = next["rules"];
        rules[0]["severity"] = "error"; // ENR-001: fatal -> error
        const std::string removed = rules[1]["id"].get<std::string>();
        rules.erase(1);
        Json added = rules[0];
        added["id"] = "ENR-900";
        added["severity"] = "warning";
        rules.push_back(added);
        rules[2]["message"] = rules[2]["message"].get<std::string>() + " Check it.";
        const RulePack v2 = packFromText(next.dump(), f.model());
        const RulePackImport outcome = importRulePack(f.database(), v2, "tester", f.model());
        QCOMPARE(outcome.previousVersion, v1.version);
        std::map<std::string, RulePackChange> byRule;
        for (const RulePackChange &change : outcome.changes)
            byRule[change.ruleId] = change;
        QCOMPARE(byRule.size(), std::size_t(4));
        QCOMPARE(byRule["ENR-001"].kind, std::string("severity"));
        QCOMPARE(byRule["ENR-001"].from, std::string("fatal"));
        QCOMPARE(byRule["ENR-001"].to, std::string("error"));
        QCOMPARE(byRule[removed].kind, std::string("removed"));
        QCOMPARE(byRule["ENR-900"].kind, std::string("added"));
        QCOMPARE(byRule[rules[2]["id"].get<std::string>()].kind, std::string("changed"));
        QCOMPARE(storedRulePacks(f.database().connection()).size(), std::size_t(2));
        QCOMPARE(resolveRulePack(&f.database().connection(), v1.id, f.model()).version, std::string("1.2.0"));
        QCOMPARE(resolveRulePack(&f.database().connection(), v1.id + "@" + v1.version, f.model()).version, v1.version);

        // A rule id is never reused: not for another resource, not after it was retired.
        Json reuse = next;
        reuse["pack"]["version"] = "1.3.0";
        reuse["rules"].push_back(reuse["rules"][0]);
        reuse["rules"].back()["id"] = removed;
        QVERIFY_THROWS_EXCEPTION(RulePackError,
                                 importRulePack(f.database(), packFromText(reuse.dump(), f.model()), "t", f.model()));
        Json otherResource = next;
        otherResource["pack"]["version"] = "1.3.0";
        for (Json &rule : otherResource["rules"])
            if (rule["id"] == "ENR-900") {
                rule["resource"] = "Session";
                rule["sql"] = "SELECT id FROM sessions WHERE endDate < beginDate";
                rule["message"] = "Ends before it begins.";
                rule.erase("dependsOn");
            }
        try {
            importRulePack(f.database(), packFromText(otherResource.dump(), f.model()), "t", f.model());
            QFAIL("an id used for another resource was accepted");
        } catch (const RulePackError &e) {
            QVERIFY2(std::string(e.what()).find("never reused") != std::string::npos, e.what());
        }
        // The same version with other content is refused; nothing of it was stored.
        Json sameVersion = next;
        sameVersion["rules"][0]["title"] = "Another title";
        QVERIFY_THROWS_EXCEPTION(RulePackError,
                                 importRulePack(f.database(), packFromText(sameVersion.dump(), f.model()), "t", f.model()));
        QCOMPARE(storedRulePacks(f.database().connection()).size(), std::size_t(2));
        QVERIFY(compareVersions("1.10.0", "1.9.2") > 0);
        QVERIFY(compareVersions("2026.1", "2026.1.0") == 0);
    }

    void yearAndCollectionScopeThePack()
    {
        Fixture f;
        Json pack = starterJson(f.model());
        pack["rules"][0]["schoolYears"] = Json::array({2025});
        pack["rules"][1]["schoolYears"] = Json::array({2026, 2027});
        const RulePack all = packFromText(pack.dump(), f.model());
        const std::size_t roster = static_cast<std::size_t>(
            std::count_if(all.rules.begin(), all.rules.end(), [](const Rule &r) { return !r.collections.empty(); }));
        QVERIFY(roster > 0);
        QCOMPARE(scopedRulePack(all, 2026, "").rules.size(), all.rules.size() - 1);
        QCOMPARE(scopedRulePack(all, 2025, "").rules.size(), all.rules.size() - 1);
        QCOMPARE(scopedRulePack(all, 2030, "").rules.size(), all.rules.size() - 2);
        QCOMPARE(scopedRulePack(all, 0, "fall enrollment").rules.size(), all.rules.size() - roster);
        QCOMPARE(scopedRulePack(all, 0, "Class roster").rules.size(), all.rules.size());
        QVERIFY(scopedRulePack(all, 2026, "").hash != all.hash);
        pack["rules"][0]["schoolYears"] = Json::array({"2025"});
        QVERIFY_THROWS_EXCEPTION(RulePackError, packFromText(pack.dump(), f.model()));
    }

    void stateResultsMatchTheSampleDistrict()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        const std::vector<Enrollment> some = enrollments(f, 4);
        QCOMPARE(some.size(), std::size_t(4));
        std::string csv = kStateHeader;
        csv += stateRow(some[0].school, "ENROLL", some[0].student, usDate(some[0].entryDate), "40100-0007", "F",
                        "Entry date is after the last day of school, please check");
        csv += stateRow(some[1].school, "ENROLL", some[1].student, usDate(some[1].entryDate), "40100-0012", "W",
                        "Entry grade level differs from last year's grade + 1");
        csv += stateRow(some[2].school, "STUDENT", some[2].student, "", "10010-0033", "S", "Missing home language");
        csv += stateRow(some[3].school, "ENROLL", some[3].student, usDate(some[3].entryDate), "40100-0012", "W",
                        "Entry grade level differs from last year's grade + 1");
        // Three that match nothing: an unknown student, an entry date not stored, an unmapped record type.
        csv += stateRow(some[0].school, "ENROLL", "999999999", usDate(some[0].entryDate), "40100-0007", "F", "x");
        csv += stateRow(some[0].school, "ENROLL", some[0].student, "01/02/2003", "40100-0007", "F", "x");
        csv += stateRow(some[0].school, "ATTEND", some[0].student, "", "50000-0001", "W", "x");
        QTemporaryDir dir;
        writeFile(dir.filePath("fall.csv"), csv);
        writeFile(dir.filePath("map.json"), kStateMapping);
        const ResultsMapping mapping = loadResultsMapping(dir.filePath("map.json").toStdString(), f.model());
        ResultsImportOptions options;
        options.actor = "tester";
        const ResultsImportReport report = importExternalResults(f.database(), f.model(),
                                                                 dir.filePath("fall.csv").toStdString(), &mapping, options);
        QCOMPARE(report.rows, std::int64_t(7));
        QCOMPARE(report.matched, std::int64_t(4));
        QCOMPARE(report.unmatched.size(), std::size_t(3));
        QVERIFY2(report.unmatched[0].reason.find("no stored StudentSchoolAssociation") != std::string::npos,
                 report.unmatched[0].reason.c_str());
        QVERIFY2(report.unmatched[1].reason.find("2003-01-02") != std::string::npos, report.unmatched[1].reason.c_str());
        QVERIFY2(report.unmatched[2].reason.find("record type 'ATTEND' is not a resource") != std::string::npos, report.unmatched[2].reason.c_str());
        QCOMPARE(report.unmatched[0].row, std::int64_t(6));
        QCOMPARE(report.bySeverity.at("fatal"), std::int64_t(3));
        QCOMPARE(report.bySeverity.at("error"), std::int64_t(1));
        QVERIFY(!report.replaced);

        QualityResultFilter imported;
        imported.kind = "imported";
        imported.records = QualityResultFilter::Records::Matched;
        std::vector<QualityResult> results = readQualityResults(f.database().connection(), imported);
        QCOMPARE(results.size(), std::size_t(4));
        QCOMPARE(results[0].docId, some[0].id);
        QCOMPARE(results[0].severity, std::string("fatal"));
        QVERIFY2(results[0].originLabel.find("state, file fall.csv, run 2026-11-20") != std::string::npos,
                 results[0].originLabel.c_str());
        for (const QualityResult &r : results)
            QVERIFY(!r.changedSince);

        // Readiness counts them; the fatal blocks, the error blocks, the warnings block until acknowledged.
        ReadinessReport readiness = computeReadiness(f.database().connection());
        QVERIFY(!readiness.ready);
        QCOMPARE(readiness.unmatchedImported, std::int64_t(3));

        // An edit of the first enrollment: its result now says it changed since the state's run.
        Json body = f.call("GET", "/ed-fi/studentSchoolAssociations/" + some[0].id).body;
        body.erase("id");
        body.erase("_etag");
        body.erase("_lastModifiedDate");
        body["exitWithdrawDate"] = "2026-06-01";
        QCOMPARE(f.call("PUT", "/ed-fi/studentSchoolAssociations/" + some[0].id, body).status, 204);
        results = readQualityResults(f.database().connection(), imported);
        QVERIFY(results[0].changedSince);
        QVERIFY(!results[1].changedSince);
        const ResourceReadiness *ssa = nullptr;
        readiness = computeReadiness(f.database().connection());
        for (const ResourceReadiness &r : readiness.resources)
            if (r.resource == "StudentSchoolAssociation")
                ssa = &r;
        QVERIFY(ssa != nullptr);
        QCOMPARE(ssa->awaitingResubmit, std::int64_t(1));

        // The state's next run: the fixed enrollment is gone, one warning stays, one is new.
        std::string newer = kStateHeader;
        newer += stateRow(some[1].school, "ENROLL", some[1].student, usDate(some[1].entryDate), "40100-0012", "W",
                          "Entry grade level differs from last year's grade + 1");
        newer += stateRow(some[2].school, "STUDENT", some[2].student, "", "10010-0040", "W", "Unusual name");
        writeFile(dir.filePath("fall-2.csv"), newer);
        const ResultsImportReport second = importExternalResults(
            f.database(), f.model(), dir.filePath("fall-2.csv").toStdString(), &mapping, options);
        QVERIFY(second.replaced);
        QCOMPARE(second.still, std::int64_t(1));
        QCOMPARE(second.added, std::int64_t(1));
        QCOMPARE(second.fixed, std::int64_t(3));
        QCOMPARE(readQualityResults(f.database().connection(), imported).size(), std::size_t(2));
        QCOMPARE(resultSources(f.database().connection()).size(), std::size_t(1));
    }

    void aBadRowRefusesTheWholeFile()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 2);
        const std::vector<Enrollment> some = enrollments(f, 1);
        QTemporaryDir dir;
        writeFile(dir.filePath("map.json"), kStateMapping);
        const ResultsMapping mapping = loadResultsMapping(dir.filePath("map.json").toStdString(), f.model());
        std::string csv = kStateHeader;
        csv += stateRow(some[0].school, "ENROLL", some[0].student, usDate(some[0].entryDate), "R-1", "W", "fine");
        writeFile(dir.filePath("good.csv"), csv);
        importExternalResults(f.database(), f.model(), dir.filePath("good.csv").toStdString(), &mapping, {});
        csv += stateRow(some[0].school, "ENROLL", some[0].student, usDate(some[0].entryDate), "R-2", "Q", "odd level");
        writeFile(dir.filePath("bad.csv"), csv);
        try {
            importExternalResults(f.database(), f.model(), dir.filePath("bad.csv").toStdString(), &mapping, {});
            QFAIL("a row with an unknown severity was accepted");
        } catch (const ResultsImportError &e) {
            QVERIFY2(std::string(e.what()).find("row 3: severity 'Q'") != std::string::npos, e.what());
        }
        // The earlier results of the source are still there, whole.
        QCOMPARE(readQualityResults(f.database().connection()).size(), std::size_t(1));
        // A mapping naming a column the file lacks says which.
        Json wrong = *parseJson(kStateMapping).value;
        wrong["columns"]["message"] = "Message Text";
        const ResultsMapping wrongMapping = parseResultsMapping(wrong, f.model());
        try {
            importExternalResults(f.database(), f.model(), dir.filePath("good.csv").toStdString(), &wrongMapping, {});
            QFAIL("a missing column was accepted");
        } catch (const ResultsImportError &e) {
            QVERIFY2(std::string(e.what()).find("'Message Text' (message)") != std::string::npos, e.what());
        }
    }

    void jsonLinesFindRecordsByIdAndByKey()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 2);
        const std::vector<Enrollment> some = enrollments(f, 2);
        Json byKey{{"rule", "K-1"},
                   {"severity", "warning"},
                   {"message", "by key"},
                   {"resource", "ed-fi/studentSchoolAssociations"},
                   {"key",
                    {{"studentReference", {{"studentUniqueId", some[1].student}}},
                     {"schoolReference", {{"schoolId", std::stoll(some[1].school)}}},
                     {"entryDate", some[1].entryDate}}}};
        Json byId{{"rule", "I-1"}, {"severity", "F"}, {"message", "by id"}, {"id", some[0].id}};
        Json missingId{{"rule", "I-2"}, {"severity", "info"}, {"message", "gone"}, {"id", "00000000-0000-4000-8000-000000000000"}};
        QTemporaryDir dir;
        writeFile(dir.filePath("r.jsonl"), byKey.dump() + "\n" + byId.dump() + "\n\n" + missingId.dump() + "\n");
        ResultsImportOptions options;
        options.source = "vendor check";
        const ResultsImportReport report =
            importExternalResults(f.database(), f.model(), dir.filePath("r.jsonl").toStdString(), nullptr, options);
        QCOMPARE(report.rows, std::int64_t(3));
        QCOMPARE(report.matched, std::int64_t(2));
        QCOMPARE(report.unmatched.size(), std::size_t(1));
        QCOMPARE(report.unmatched[0].row, std::int64_t(4));
        QualityResultFilter filter;
        filter.origin = "vendor check";
        filter.records = QualityResultFilter::Records::Matched;
        const std::vector<QualityResult> results = readQualityResults(f.database().connection(), filter);
        QCOMPARE(results.size(), std::size_t(2));
        QCOMPARE(results[0].docId, some[0].id);
        QCOMPARE(results[1].docId, some[1].id);
        QCOMPARE(results[1].resource, std::string("StudentSchoolAssociation"));
    }

    void acknowledgeThenSignOff()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 2);
        const std::vector<Enrollment> some = enrollments(f, 2);
        QTemporaryDir dir;
        std::string csv = kStateHeader;
        csv += stateRow(some[0].school, "ENROLL", some[0].student, usDate(some[0].entryDate), "W-1", "W", "a warning");
        csv += stateRow(some[1].school, "ENROLL", some[1].student, usDate(some[1].entryDate), "F-1", "F", "a fatal");
        writeFile(dir.filePath("s.csv"), csv);
        writeFile(dir.filePath("map.json"), kStateMapping);
        const ResultsMapping mapping = loadResultsMapping(dir.filePath("map.json").toStdString(), f.model());
        importExternalResults(f.database(), f.model(), dir.filePath("s.csv").toStdString(), &mapping, {});

        ReadinessReport readiness = computeReadiness(f.database().connection());
        QVERIFY(!readiness.ready);
        QVERIFY(QString::fromStdString(readiness.verdictText()).contains("1 unacknowledged warning in StudentSchoolAssociation"));
        QVERIFY_THROWS_EXCEPTION(ResultsImportError, acknowledgeResult(f.database(), "", "W-1", some[0].id, " ", "a"));
        try {
            acknowledgeResult(f.database(), "", "F-1", some[1].id, "we disagree", "A. Steward");
            QFAIL("a fatal was acknowledged");
        } catch (const ResultsImportError &e) {
            QVERIFY2(std::string(e.what()).find("only a warning can be acknowledged") != std::string::npos, e.what());
        }
        const Acknowledgement ack = acknowledgeResult(f.database(), "", "W-1", some[0].id,
                                                      "Grade repeated on purpose (retention)", "A. Steward");
        QCOMPARE(ack.origin, std::string("state"));
        readiness = computeReadiness(f.database().connection());
        QVERIFY(!QString::fromStdString(readiness.verdictText()).contains("unacknowledged"));
        QVERIFY(QString::fromStdString(readiness.verdictText()).contains("1 fatal result in StudentSchoolAssociation"));

        // Sign-off needs something that went out.
        QVERIFY_THROWS_EXCEPTION(SubmissionError, signOffExport(f.database(), "", "A. Steward", ""));
        ExportOptions exportOptions;
        exportOptions.outDir = dir.filePath("batch").toStdString();
        const ExportResult exported = exportBatch(f.database(), f.model(), exportOptions);
        QVERIFY2(exported.ok, exported.error.c_str());
        QVERIFY_THROWS_EXCEPTION(SubmissionError, signOffExport(f.database(), "", " ", ""));
        const Submission signedOff = signOffExport(f.database(), "", "A. Steward", "Fall snapshot");
        QCOMPARE(signedOff.what["batch"].get<std::string>(), exported.batchId);
        QCOMPARE(signedOff.seqFrom, exported.seqFrom);
        QCOMPARE(signedOff.seqTo, exported.seqTo);
        QFile manifest(dir.filePath("batch/" + QString::fromStdString(exported.batchId) + "/manifest.json"));
        if (!manifest.exists())
            manifest.setFileName(dir.filePath("batch/manifest.json"));
        QVERIFY2(manifest.open(QIODevice::ReadOnly), qPrintable(manifest.fileName()));
        QCOMPARE(signedOff.what["manifestSha256"].get<std::string>(),
                 QCryptographicHash::hash(manifest.readAll(), QCryptographicHash::Sha256).toHex().toStdString());
        QCOMPARE(signedOff.verdict["ready"].get<bool>(), false);
        QCOMPARE(signedOff.acknowledged.size(), std::size_t(1));
        QCOMPARE(signedOff.acknowledged[0]["reason"].get<std::string>(), std::string("Grade repeated on purpose (retention)"));

        SubmissionStatus status = submissionStatus(f.database().connection());
        QVERIFY(status.last.has_value());
        QCOMPARE(status.changedTotal, std::int64_t(0));
        QCOMPARE(f.call("DELETE", "/ed-fi/studentSchoolAssociations/" + some[1].id).status, 204);
        status = submissionStatus(f.database().connection());
        QCOMPARE(status.changedTotal, std::int64_t(1));

        // A push: the range since the previous push sign-off up to the target's push cursor.
        QVERIFY_THROWS_EXCEPTION(SubmissionError, signOffPush(f.database(), "", "A. Steward", ""));
        f.database().connection().exec("INSERT INTO sync_targets (url, client, push_cursor) VALUES "
                                       "('https://state.example/api', 'district', 40)");
        const Submission pushed = signOffPush(f.database(), "", "A. Steward", "");
        QCOMPARE(pushed.seqFrom, std::int64_t(1));
        QCOMPARE(pushed.seqTo, std::int64_t(40));
        QVERIFY_THROWS_EXCEPTION(SubmissionError, signOffPush(f.database(), "", "A. Steward", "")); // nothing new
        f.database().connection().exec("UPDATE sync_targets SET push_cursor = 55");
        const Submission again = signOffPush(f.database(), "https://state.example/api", "B. Steward", "");
        QCOMPARE(again.seqFrom, std::int64_t(41));
        QCOMPARE(again.seqTo, std::int64_t(55));
        QCOMPARE(submissions(f.database().connection()).size(), std::size_t(3));
    }

    // A vendor's file names students by the vendor's ids: import finds them through the codes of
    // StudentEducationOrganizationAssociation, reports the rate, stops under --min-match, and lists
    // the rows it could not place with their row numbers.
    void studentIdsFromAnotherSystemAreMatched()
    {
        Fixture f;
        f.loadSampleDistrict(2026, 3);
        f.create("/ed-fi/studentIdentificationSystemDescriptors",
                 Json{{"namespace", "uri://ed-fi.org/StudentIdentificationSystemDescriptor"},
                      {"codeValue", "Local"},
                      {"shortDescription", "Local"}});
        const std::vector<Enrollment> some = enrollments(f, 10);
        QCOMPARE(some.size(), std::size_t(10));
        std::set<std::string> students;
        for (const Enrollment &e : some) {
            if (!students.insert(e.student).second)
                continue;
            f.create("/ed-fi/studentEducationOrganizationAssociations",
                     Json{{"educationOrganizationReference", {{"educationOrganizationId", std::stoll(e.school)}}},
                          {"studentReference", {{"studentUniqueId", e.student}}},
                          {"studentIdentificationCodes",
                           Json::array({{{"studentIdentificationSystemDescriptor",
                                          "uri://ed-fi.org/StudentIdentificationSystemDescriptor#Local"},
                                         {"assigningOrganizationIdentificationCode", "VENDOR"},
                                         {"identificationCode", "V-" + e.student}}})}});
        }
        std::string csv = "Vendor ID,Campus,Entry Date,Grade\n";
        for (const Enrollment &e : some) {
            const Json body = f.call("GET", "/ed-fi/studentSchoolAssociations/" + e.id).body;
            csv += "V-" + e.student + "," + e.school + "," + usDate(e.entryDate) + ","
                   + body["entryGradeLevelDescriptor"].get<std::string>() + "\n";
        }
        csv += "V-NOBODY," + some[0].school + "," + usDate(some[0].entryDate) + ",uri://ed-fi.org/GradeLevelDescriptor#x\n";
        QTemporaryDir dir;
        writeFile(dir.filePath("vendor.csv"), csv);
        // Built as JSON here: a raw string literal in the class body trips moc.
        const Json vendorMapping{
            {"studentIds",
             {{"column", "Vendor ID"},
              {"system", "uri://ed-fi.org/StudentIdentificationSystemDescriptor#Local"},
              {"assigningOrganization", "VENDOR"}}},
            {"documents",
             Json::array({{{"resource", "ed-fi/studentSchoolAssociations"},
                           {"fields",
                            {{"schoolReference.schoolId", {{"column", "Campus"}}},
                             {"entryDate", {{"column", "Entry Date"}, {"format", "MM/DD/YYYY"}}},
                             {"entryGradeLevelDescriptor", {{"column", "Grade"}}}}}}})}};
        writeFile(dir.filePath("map.json"), vendorMapping.dump(2));

        RowMapping mapping = loadRowMapping(dir.filePath("map.json").toStdString(), f.model());
        loadStudentIdCodes(f.database().connection(), f.model(), mapping);
        const StudentIdMatch match = matchStudentIds(dir.filePath("vendor.csv").toStdString(), mapping);
        QCOMPARE(match.rows, std::int64_t(11));
        QCOMPARE(match.matched, std::int64_t(10));
        QCOMPARE(match.unmatched.size(), std::size_t(1));
        QCOMPARE(match.unmatched[0].row.number, std::int64_t(12));
        QVERIFY2(match.unmatched[0].why.find("no student has the Local id 'V-NOBODY'") != std::string::npos,
                 match.unmatched[0].why.c_str());

        // Nothing may change when the rate is too low: not a document, not a draft.
        auto changeLogAndDrafts = [&f] {
            SQLite::Statement count(f.database().connection(),
                                    "SELECT (SELECT coalesce(max(seq), 0) FROM change_rows), (SELECT count(*) FROM drafts)");
            count.executeStep();
            return std::make_pair(count.getColumn(0).getInt64(), count.getColumn(1).getInt64());
        };
        const auto before = changeLogAndDrafts();
        const QString db = QString::fromStdString(f.databasePath());
        CliRun run = runCli({"--db", db, "import", dir.filePath("vendor.csv"), "--mapping", dir.filePath("map.json"),
                             "--min-match", "0.95", "--unmatched-out", dir.filePath("unmatched.csv")},
                            {});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stderrText.contains("10 of 11 rows found their student by Vendor ID (90.9%)")
                     && run.stderrText.contains("nothing was imported"),
                 qPrintable(run.stderrText));
        QFile unmatched(dir.filePath("unmatched.csv"));
        QVERIFY(unmatched.open(QIODevice::ReadOnly));
        const QByteArray unmatchedText = unmatched.readAll();
        QVERIFY2(unmatchedText.startsWith("row,reason,Vendor ID,Campus,Entry Date,Grade\r\n12,"), unmatchedText.constData());
        QVERIFY(unmatchedText.contains("V-NOBODY"));
        QVERIFY(changeLogAndDrafts() == before);

        // At a rate the steward accepts: the ten are applied, the one without a student is a draft that says why.
        run = runCli({"--db", db, "import", dir.filePath("vendor.csv"), "--mapping", dir.filePath("map.json"),
                      "--min-match", "0.9", "--report", dir.filePath("report.json")},
                     {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        QVERIFY2(run.stderrText.contains("0 kept as drafts") == false && run.stderrText.contains("1 kept as drafts"),
                 qPrintable(run.stderrText));
        QFile reportFile(dir.filePath("report.json"));
        QVERIFY(reportFile.open(QIODevice::ReadOnly));
        const Json report = Json::parse(reportFile.readAll().toStdString());
        const Json &totals = report["totals"];
        QCOMPARE(totals["created"].get<int>() + totals["updated"].get<int>() + totals["unchanged"].get<int>(), 10);
        QVERIFY2(report.dump().find("no student has the Local id 'V-NOBODY'") != std::string::npos,
                 report.dump().substr(0, 2000).c_str());
        QVERIFY(QFile::exists(dir.filePath("vendor.csv.unmatched.csv")));
    }

    // The report's checks read what poppler gives: a word cut off the page's left or top edge has a
    // negative coordinate and counts; a PDF with no words at all is no pass.
    void reportChecksCountWordsOffThePage()
    {
        const QString head = QStringLiteral("<doc><page width=\"612.000000\" height=\"792.000000\">");
        const QString inside = QStringLiteral("<word xMin=\"30.0\" yMin=\"30.0\" xMax=\"60.0\" yMax=\"40.0\">inside</word>");
        const QString footer =
            QStringLiteral("<word xMin=\"30.0\" yMin=\"700.0\" xMax=\"60.0\" yMax=\"710.0\">page</word>"
                           "<word xMin=\"62.0\" yMin=\"700.0\" xMax=\"70.0\" yMax=\"710.0\">1</word>"
                           "<word xMin=\"72.0\" yMin=\"700.0\" xMax=\"80.0\" yMax=\"710.0\">of</word>"
                           "<word xMin=\"82.0\" yMin=\"700.0\" xMax=\"90.0\" yMax=\"710.0\">1</word>");
        const std::vector<PdfPage> fine = parsePdfWords(head + inside + footer + "</page></doc>");
        QVERIFY2(wordsOutsideOrOverlapping(fine, 18.0).empty(), wordsOutsideOrOverlapping(fine, 18.0).c_str());
        QVERIFY(footerPagesWrong(fine).empty());
        const QString cutLeft = QStringLiteral("<word xMin=\"-4.5\" yMin=\"30.0\" xMax=\"12.0\" yMax=\"40.0\">cut</word>");
        const QString cutTop = QStringLiteral("<word xMin=\"30.0\" yMin=\"-2.0\" xMax=\"60.0\" yMax=\"8.0\">cut</word>");
        for (const QString &cut : {cutLeft, cutTop}) {
            const std::vector<PdfPage> pages = parsePdfWords(head + inside + cut + "</page></doc>");
            QCOMPARE(pages.at(0).words.size(), std::size_t(2));
            const std::string found = wordsOutsideOrOverlapping(pages, 18.0);
            QVERIFY2(found.find("'cut' lies outside the margins") != std::string::npos, found.c_str());
        }
        const std::vector<PdfPage> empty = parsePdfWords(head + "</page></doc>");
        QCOMPARE(empty.size(), std::size_t(1));
        QVERIFY(!wordsOutsideOrOverlapping(empty, 18.0).empty());
        QVERIFY(!wordsOutsideOrOverlapping({}, 18.0).empty());
        QVERIFY(!footerPagesWrong(parsePdfWords(head + inside + "</page></doc>")).empty());
    }

    // A district with drafts and enough of the state's results to run each school over several pages:
    // a draft is on the page of the school it names (and in the .xlsx fix list with that school), one that
    // names none on the district-wide page; every continuation page names its school, every footer says
    // "page N of M", and no id takes more than two lines.
    void reportPlacesDraftsAndNamesEveryPage()
    {
        for (const char *tool : {"pdftotext", "pdfinfo", "unzip"})
            if (QStandardPaths::findExecutable(QLatin1String(tool)).isEmpty())
                QSKIP("poppler-utils and unzip are needed to read the report back");
        QTemporaryDir dir;
        const QString db = dir.filePath("d.db");
        CliRun run = runCli({"generate", "--scale", "1500", "--seed", "7", "--out", dir.filePath("district.ndjson")}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        run = runCli({"--db", db, "import", dir.filePath("district.ndjson")}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        run = runCli({"--db", db, "requests"},
                     QByteArray("{\"method\":\"GET\",\"path\":\"/ed-fi/studentSchoolAssociations?limit=500\"}\n"
                                "{\"method\":\"GET\",\"path\":\"/ed-fi/studentSchoolAssociations?limit=500&offset=1000\"}\n"));
        QCOMPARE(run.responses.size(), std::size_t(2));
        std::string csv = kStateHeader;
        std::set<std::string> schools;
        int enrollment = 0;
        for (const Json &page : run.responses)
            for (const Json &doc : page["body"]) {
                const std::string school = std::to_string(doc["schoolReference"]["schoolId"].get<long long>());
                schools.insert(school);
                if (enrollment++ % 4 == 0)
                    csv += stateRow(school, "ENROLL", doc["studentReference"]["studentUniqueId"].get<std::string>(),
                                    usDate(doc["entryDate"].get<std::string>()), "40100-0012", "W",
                                    "Entry grade level differs from last year's grade + 1");
            }
        QCOMPARE(schools.size(), std::size_t(2));
        const std::string namedSchool = *schools.rbegin();
        writeFile(dir.filePath("state.csv"), csv);
        writeFile(dir.filePath("map.json"), kStateMapping);
        run = runCli({"--db", db, "rules", "import-results", dir.filePath("state.csv"), "--mapping", dir.filePath("map.json")}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        // Two drafts: an enrollment of a student not stored, at the second school; a course of an
        // organization that does not exist (no school: district-wide).
        const Json enrollmentDraft{{"resource", "ed-fi/studentSchoolAssociations"},
                                   {"body",
                                    {{"studentReference", {{"studentUniqueId", "699001"}}},
                                     {"schoolReference", {{"schoolId", std::stoll(namedSchool)}}},
                                     {"entryDate", "2025-08-20"},
                                     {"entryGradeLevelDescriptor", "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade"}}}};
        const Json courseDraft{{"resource", "ed-fi/courses"},
                               {"body",
                                {{"courseCode", "ART-9"}, {"courseTitle", "Art"}, {"numberOfParts", 1},
                                 {"identificationCodes", Json::array()},
                                 {"educationOrganizationReference", {{"educationOrganizationId", 9999}}}}}};
        writeFile(dir.filePath("drafts.ndjson"), enrollmentDraft.dump() + "\n" + courseDraft.dump() + "\n");
        run = runCli({"--db", db, "import", dir.filePath("drafts.ndjson")}, {});
        QVERIFY2(run.exitCode == 0 && run.stderrText.contains("2 kept as drafts"), qPrintable(run.stderrText));

        const QString pdf = dir.filePath("report.pdf");
        const QString fixList = dir.filePath("fix.xlsx");
        run = runCli({"--db", db, "report", "--out", pdf, "--fix-list", fixList}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        // Schools counted as schools: the district-wide records are no school.
        QVERIFY2(run.stdoutText.contains(" page(s), 2 school(s) and the district-wide records, "), qPrintable(run.stdoutText));
        const std::vector<PdfPage> pages = readPdfWords(pdf);
        QVERIFY2(run.stdoutText.contains(QStringLiteral(": %1 page(s)").arg(pages.size())), qPrintable(run.stdoutText));
        QProcess info;
        info.start(QStringLiteral("pdfinfo"), {pdf});
        QVERIFY(info.waitForFinished(60000));
        QVERIFY(QString::fromUtf8(info.readAllStandardOutput())
                    .contains(QRegularExpression(QStringLiteral("Pages:\\s+%1\\n").arg(pages.size()))));

        std::string wrong = wordsOutsideOrOverlapping(pages, 18.0);
        QVERIFY2(wrong.empty(), wrong.c_str());
        wrong = footerPagesWrong(pages);
        QVERIFY2(wrong.empty(), wrong.c_str());
        std::vector<QString> sections;
        int continued = 0;
        wrong = continuationsUnnamed(pages, sections, continued);
        QVERIFY2(wrong.empty(), wrong.c_str());
        QVERIFY2(continued >= 4, qPrintable(QString::number(continued))); // each school runs over pages
        int idCells = 0;
        wrong = idsOverTwoLines(pages, idCells);
        QVERIFY2(wrong.empty(), wrong.c_str());

        // The drafts: each once, on the page of the school it names, or the district-wide one.
        const QString enrollmentKey = QString::fromStdString("student 699001 · school " + namedSchool + " · 2025-08-20");
        int found = 0;
        const int enrollmentPage = pageWith(pages, enrollmentKey, &found);
        QVERIFY2(enrollmentPage >= 0 && found == 1, qPrintable(enrollmentKey + " found " + QString::number(found)));
        QVERIFY2(sections[static_cast<std::size_t>(enrollmentPage)].endsWith(QString::fromStdString("(" + namedSchool + ")")),
                 qPrintable(sections[static_cast<std::size_t>(enrollmentPage)]));
        const QString courseKey = QStringLiteral("organization 9999 · course ART-9");
        const int coursePage = pageWith(pages, courseKey, &found);
        QVERIFY2(coursePage >= 0 && found == 1, qPrintable(courseKey + " found " + QString::number(found)));
        QCOMPARE(sections[static_cast<std::size_t>(coursePage)], QStringLiteral("District-wide records"));

        // The fix list as a spreadsheet: the same lines, the drafts with their schools.
        const std::vector<QStringList> rows = readXlsxRows(fixList);
        QVERIFY(rows.size() > 200);
        QVERIFY2(idCells >= static_cast<int>(rows.size()) - 1, qPrintable(QString::number(idCells)));
        const QStringList header = rows.front();
        const auto schoolColumn = header.indexOf(QStringLiteral("School"));
        const auto idColumn = header.indexOf(QStringLiteral("ID"));
        const auto ruleColumn = header.indexOf(QStringLiteral("Rule"));
        QVERIFY(schoolColumn >= 0 && idColumn >= 0 && ruleColumn >= 0);
        std::map<QString, QString> draftSchools;
        for (const QStringList &row : rows)
            if (row.value(ruleColumn) == QStringLiteral("draft"))
                draftSchools[row.value(idColumn)] = row.value(schoolColumn);
        QCOMPARE(draftSchools.size(), std::size_t(2));
        QVERIFY2(draftSchools[enrollmentKey].endsWith(QString::fromStdString("(" + namedSchool + ")")),
                 qPrintable(draftSchools[enrollmentKey]));
        QCOMPARE(draftSchools[courseKey], QStringLiteral("District-wide records"));
    }

    // The report names students, and so do the fix lists, the rows a state's file could not place and a
    // view saved as CSV or .xlsx: under the usual umask each is the owner's alone, also when it replaces
    // an earlier file that other accounts could read.
    void reportsFixListsAndUnmatchedRowsAreOwnerOnly()
    {
        const ScopedUmask usual(022);
        QTemporaryDir dir;
        const QString db = dir.filePath("d.db");
        CliRun run = runCli({"generate", "--scale", "1", "--seed", "7", "--out", dir.filePath("district.ndjson")}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        run = runCli({"--db", db, "import", dir.filePath("district.ndjson")}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        writeFile(dir.filePath("state.csv"), kStateHeader + stateRow("255901", "STUDENT", "0000", "", "10010-0033", "S", "Nobody"));
        writeFile(dir.filePath("map.json"), kStateMapping);
        run = runCli({"--db", db, "rules", "import-results", dir.filePath("state.csv"), "--mapping", dir.filePath("map.json"),
                      "--unmatched-out", dir.filePath("unmatched.csv")},
                     {});
        QVERIFY2(run.exitCode == 0 && run.stdoutText.contains("1 matched nothing"), qPrintable(run.stdoutText + run.stderrText));
        writeFile(dir.filePath("fix-list.csv"), "an earlier fix list\n");
        QCOMPARE(modeOf(dir.filePath("fix-list.csv")), QStringLiteral("644"));
        for (const char *fixList : {"fix-list.xlsx", "fix-list.csv"}) {
            run = runCli({"--db", db, "report", "--out", dir.filePath(fixList) + ".pdf", "--fix-list", dir.filePath(fixList)}, {});
            QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        }
        const TextTable view{{"student", "problem"}, {{"604822", "no home language"}}};
        writeCsv(dir.filePath("view.csv").toStdString(), view);
        writeXlsx(dir.filePath("view.xlsx").toStdString(), view);
        for (const char *file : {"unmatched.csv", "fix-list.xlsx.pdf", "fix-list.xlsx", "fix-list.csv.pdf", "fix-list.csv",
                                 "view.csv", "view.xlsx"})
            QVERIFY2(modeOf(dir.filePath(file)) == QStringLiteral("600"),
                     qPrintable(QString::fromLatin1(file) + " is " + modeOf(dir.filePath(file))));
        QCOMPARE(QDir(dir.path()).entryList({"*.part"}, QDir::Files | QDir::Hidden), QStringList());
    }

    void throughTheCli()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath("d.db");
        CliRun run = runCli({"generate", "--scale", "1", "--seed", "7", "--out", dir.filePath("district.ndjson")}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        run = runCli({"--db", db, "import", dir.filePath("district.ndjson")}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        const QString pack = dir.filePath("starter.json");
        run = runCli({"--db", db, "rules", "export", "--out", pack}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        QFile packFile(pack);
        QVERIFY(packFile.open(QIODevice::ReadOnly));
        Json edited = Json::parse(packFile.readAll().toStdString());
        packFile.close();
        QCOMPARE(edited["pack"]["id"].get<std::string>(), std::string("steward-starter"));
        run = runCli({"--db", db, "rules", "import", pack}, {});
        QVERIFY2(run.exitCode == 0 && run.stdoutText.contains("Stored steward-starter"), qPrintable(run.stdoutText + run.stderrText));
        edited["pack"]["version"] = "9.0.0";
        edited["rules"][0]["severity"] = "warning";
        writeFile(pack, edited.dump(2));
        run = runCli({"--db", db, "rules", "import", pack}, {});
        QVERIFY2(run.stdoutText.contains("ENR-001 severity fatal -> warning"), qPrintable(run.stdoutText + run.stderrText));
        run = runCli({"--db", db, "rules", "packs"}, {});
        QVERIFY2(run.stdoutText.contains("steward-starter 9.0.0"), qPrintable(run.stdoutText));
        run = runCli({"--db", db, "rules", "diff", "starter", "steward-starter"}, {});
        QVERIFY2(run.stdoutText.contains("1 change(s)"), qPrintable(run.stdoutText + run.stderrText));
        run = runCli({"--db", db, "rules", "list", "--pack", "steward-starter", "--collection", "Fall enrollment"}, {});
        QVERIFY2(run.exitCode == 0 && !run.stdoutText.contains("SEC-001"), qPrintable(run.stdoutText));
        run = runCli({"--db", db, "rules", "run", "--pack", "steward-starter", "--year", "2026"}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        run = runCli({"--db", db, "rules", "list", "--year", "26"}, {});
        QCOMPARE(run.exitCode, 2);

        // A state's results: a first mapping suggested from the file, then read with it.
        run = runCli({"--db", db, "requests"},
                     QByteArray("{\"method\":\"GET\",\"path\":\"/ed-fi/studentSchoolAssociations?limit=1\"}\n"));
        QVERIFY2(run.responses.size() == 1, qPrintable(run.stdoutText + run.stderrText));
        const Json first = run.responses[0]["body"][0];
        const std::string student = first["studentReference"]["studentUniqueId"].get<std::string>();
        const std::string school = std::to_string(first["schoolReference"]["schoolId"].get<long long>());
        const std::string entry = first["entryDate"].get<std::string>();
        std::string csv = kStateHeader;
        csv += stateRow(school, "ENROLL", student, usDate(entry), "40100-0012", "W", "Grade differs");
        csv += stateRow(school, "ENROLL", "0000", usDate(entry), "40100-0007", "F", "Nobody");
        writeFile(dir.filePath("state.csv"), csv);
        run = runCli({"--db", db, "mapping", "suggest", dir.filePath("state.csv"), "--results", "--resource",
                      "ed-fi/studentSchoolAssociations"},
                     {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        const Json suggested = Json::parse(run.stdoutText.toStdString());
        QCOMPARE(suggested["columns"]["rule"].get<std::string>(), std::string("Rule Number"));
        QCOMPARE(suggested["columns"]["severity"].get<std::string>(), std::string("Error Level"));
        QCOMPARE(suggested["keys"]["StudentSchoolAssociation"]["studentReference.studentUniqueId"]["column"]
                     .get<std::string>(),
                 std::string("Student ID"));
        writeFile(dir.filePath("map.json"), kStateMapping);
        run = runCli({"--db", db, "mapping", "check", dir.filePath("map.json"), "--results", dir.filePath("state.csv")}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        run = runCli({"--db", db, "rules", "import-results", dir.filePath("state.csv"), "--mapping", dir.filePath("map.json"),
                      "--unmatched-out", dir.filePath("unmatched.csv")},
                     {});
        QVERIFY2(run.exitCode == 0 && run.stdoutText.contains("1 matched to stored records, 1 matched nothing"),
                 qPrintable(run.stdoutText + run.stderrText));
        QFile unmatched(dir.filePath("unmatched.csv"));
        QVERIFY(unmatched.open(QIODevice::ReadOnly));
        QVERIFY(unmatched.readAll().startsWith("row,rule,reason\r\n3,40100-0007,"));
        run = runCli({"--db", db, "rules", "results", "--kind", "imported", "--json"}, {});
        QCOMPARE(run.responses.size(), std::size_t(2));
        const std::string docId = run.responses[0]["id"].get<std::string>().empty()
                                      ? run.responses[1]["id"].get<std::string>()
                                      : run.responses[0]["id"].get<std::string>();
        run = runCli({"--db", db, "rules", "ack", "40100-0012", QString::fromStdString(docId), "--reason",
                      "Retained on purpose", "--by", "A. Steward"},
                     {});
        QVERIFY2(run.exitCode == 0 && run.stdoutText.contains("Acknowledged 40100-0012 (state)"),
                 qPrintable(run.stdoutText + run.stderrText));
        run = runCli({"--db", db, "rules", "ack", "40100-0012", QString::fromStdString(docId)}, {});
        QCOMPARE(run.exitCode, 2);

        run = runCli({"--db", db, "submission", "sign", "--by", "A. Steward"}, {});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stderrText.contains("nothing was exported yet"), qPrintable(run.stderrText));
        run = runCli({"--db", db, "export", "--out", dir.filePath("out")}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        run = runCli({"--db", db, "submission", "sign", "--by", "A. Steward", "--note", "Fall"}, {});
        QVERIFY2(run.exitCode == 0 && run.stdoutText.contains("signed off by A. Steward"), qPrintable(run.stdoutText + run.stderrText));
        // Export and sign-off in one step.
        run = runCli({"--db", db, "export", "--out", dir.filePath("out-2"), "--sign-off", "A. Steward"}, {});
        QVERIFY2(run.exitCode == 0 && run.stderrText.contains("submission #2: export of batch " + run.stdoutText.trimmed()),
                 qPrintable(run.stdoutText + run.stderrText));
        run = runCli({"--db", db, "submission", "list", "--json"}, {});
        QCOMPARE(Json::parse(run.stdoutText.toStdString()).size(), std::size_t(2));
        run = runCli({"--db", db, "status", "--submission"}, {});
        QVERIFY2(run.stdoutText.contains("Last submission: export of batch") && run.stdoutText.contains("nothing changed since"),
                 qPrintable(run.stdoutText + run.stderrText));

        // A student's record names no school: the state's result on it goes to the campus its row names
        // (where the student is enrolled), not to the district-wide records.
        writeFile(dir.filePath("state-2.csv"),
                  kStateHeader + stateRow(school, "STUDENT", student, "", "10010-0033", "S", "Missing home language"));
        run = runCli({"--db", db, "rules", "import-results", dir.filePath("state-2.csv"), "--mapping",
                      dir.filePath("map.json"), "--source", "state-2"},
                     {});
        QVERIFY2(run.exitCode == 0 && run.stdoutText.contains("1 matched to stored records"),
                 qPrintable(run.stdoutText + run.stderrText));

        // A state's file whose student column is named like no Ed-Fi field: placed by its values.
        QByteArray morePeople;
        for (int i = 1; i <= 4; ++i)
            morePeople += QByteArray::fromStdString(
                Json{{"method", "POST"},
                     {"path", "/ed-fi/students"},
                     {"body", {{"studentUniqueId", "T" + std::to_string(i)}, {"firstName", "Tia"},
                               {"lastSurname", "Moss"}, {"birthDate", "2012-01-0" + std::to_string(i)}}}}
                    .dump() + "\n");
        QVERIFY(runCli({"--db", db, "requests"}, morePeople).exitCode == 0);
        run = runCli({"--db", db, "requests"}, QByteArray("{\"method\":\"GET\",\"path\":\"/ed-fi/students?limit=20\"}\n"));
        std::string tsds = "District,Campus,Rule Number,Severity,TSDS Unique ID,Last Name,Message,Validation Date\n";
        int tsdsRows = 0;
        for (const Json &each : run.responses.at(0)["body"]) {
            tsds += "255901," + school + ",10010-0040," + (tsdsRows % 2 == 0 ? "SW" : "F") + "," +
                    each["studentUniqueId"].get<std::string>() + "," + each["lastSurname"].get<std::string>() +
                    ",Check the name,2026-11-20\n";
            ++tsdsRows;
        }
        tsds += "255901," + school + ",10010-0040,F,999999901,Nobody,Check the name,2026-11-20\n";
        QVERIFY(tsdsRows >= 4);
        writeFile(dir.filePath("tsds.csv"), tsds);
        run = runCli({"--db", db, "mapping", "suggest", dir.filePath("tsds.csv"), "--results", "--resource", "ed-fi/students"},
                     {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        Json drafted = Json::parse(run.stdoutText.toStdString());
        QCOMPARE(drafted["keys"]["Student"]["studentUniqueId"]["column"].get<std::string>(), std::string("TSDS Unique ID"));
        QVERIFY2(run.stderrText.contains(QStringLiteral("%1 of %2 values are stored studentUniqueIds").arg(tsdsRows).arg(tsdsRows + 1)),
                 qPrintable(run.stderrText));
        // SW is no severity it knows: listed with its rows and the severity its letters suggest, not mapped.
        QVERIFY2(run.stderrText.contains("severity 'SW' in") && run.stderrText.contains("suggest warning: confirm"),
                 qPrintable(run.stderrText));
        QVERIFY(!drafted["severities"].contains("SW"));
        drafted["severities"]["SW"] = "warning"; // the steward confirms
        writeFile(dir.filePath("tsds-map.json"), drafted.dump(2));
        writeFile(dir.filePath("tsds-hand.json"),
                  R"({"columns": {"rule": "Rule Number", "severity": "Severity", "message": "Message", "school": "Campus"},
                      "resource": "Student", "severities": {"F": "fatal", "SW": "warning"},
                      "keys": {"Student": {"studentUniqueId": {"column": "TSDS Unique ID"}}}})");
        QString matched[2];
        for (int i = 0; i < 2; ++i) {
            run = runCli({"--db", db, "rules", "import-results", dir.filePath("tsds.csv"), "--mapping",
                          dir.filePath(i == 0 ? "tsds-map.json" : "tsds-hand.json"), "--source", "tsds"},
                         {});
            QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
            matched[i] = run.stdoutText.section(QLatin1Char('\n'), 0, 0).section(QLatin1Char(':'), 1);
        }
        QCOMPARE(matched[0], matched[1]);
        QVERIFY2(matched[0].contains(QStringLiteral("%1 matched to stored records").arg(tsdsRows)), qPrintable(matched[0]));

        // A state whose file names students by its own ids (stored as identification codes): the column is
        // found by its values, and the rows reach their students through the codes.
        QByteArray codes = QByteArray::fromStdString(
            Json{{"method", "POST"},
                 {"path", "/ed-fi/studentIdentificationSystemDescriptors"},
                 {"body", {{"namespace", "uri://ed-fi.org/StudentIdentificationSystemDescriptor"}, {"codeValue", "State"},
                           {"shortDescription", "State"}}}}
                .dump() + "\n");
        std::string wise = "District,Campus,Rule,Severity,WSN,Message\n";
        for (int i = 1; i <= 4; ++i) {
            codes += QByteArray::fromStdString(
                Json{{"method", "POST"},
                     {"path", "/ed-fi/studentEducationOrganizationAssociations"},
                     {"body", {{"studentReference", {{"studentUniqueId", "T" + std::to_string(i)}}},
                               {"educationOrganizationReference", {{"educationOrganizationId", std::stoll(school)}}},
                               {"studentIdentificationCodes",
                                Json::array({{{"assigningOrganizationIdentificationCode", "WI"},
                                              {"identificationCode", "W100" + std::to_string(i)},
                                              {"studentIdentificationSystemDescriptor",
                                               "uri://ed-fi.org/StudentIdentificationSystemDescriptor#State"}}})}}}}
                    .dump() + "\n");
            wise += "255901," + school + ",5001,W,W100" + std::to_string(i) + ",Check the ethnicity\n";
        }
        wise += "255901," + school + ",5001,W,W9999,Check the ethnicity\n";
        run = runCli({"--db", db, "requests"}, codes);
        QVERIFY2(run.exitCode == 0 && run.responses.size() == 5 && run.responses[4]["status"].get<int>() == 201,
                 qPrintable(run.stdoutText));
        writeFile(dir.filePath("wise.csv"), wise);
        run = runCli({"--db", db, "mapping", "suggest", dir.filePath("wise.csv"), "--results", "--resource", "ed-fi/students"},
                     {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        const Json wiseMapping = Json::parse(run.stdoutText.toStdString());
        QCOMPARE(wiseMapping["studentIds"]["column"].get<std::string>(), std::string("WSN"));
        QCOMPARE(wiseMapping["studentIds"]["system"].get<std::string>(),
                 std::string("uri://ed-fi.org/StudentIdentificationSystemDescriptor#State"));
        QVERIFY2(run.stderrText.contains("4 of 5 values are stored identification codes"), qPrintable(run.stderrText));
        writeFile(dir.filePath("wise-map.json"), wiseMapping.dump(2));
        run = runCli({"--db", db, "rules", "import-results", dir.filePath("wise.csv"), "--mapping",
                      dir.filePath("wise-map.json"), "--source", "wise"},
                     {});
        QVERIFY2(run.exitCode == 0 && run.stdoutText.contains("4 matched to stored records, 1 matched nothing"),
                 qPrintable(run.stdoutText + run.stderrText));
        QVERIFY2(run.stdoutText.contains("W9999"), qPrintable(run.stdoutText));

        // The report: a summary page and a page per school (and the district-wide records).
        const QString pdf = dir.filePath("report.pdf");
        const QString fixList = dir.filePath("fix.csv");
        run = runCli({"--db", db, "report", "--out", pdf, "--fix-list", fixList}, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        const QRegularExpressionMatch pages = QRegularExpression(QStringLiteral(": (\\d+) page")).match(run.stdoutText);
        QVERIFY2(pages.hasMatch(), qPrintable(run.stdoutText));
        QVERIFY(pages.captured(1).toInt() >= 3);
        QFile written(pdf);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QVERIFY(written.read(5) == "%PDF-");
        written.close();
        if (QStandardPaths::findExecutable(QStringLiteral("pdfinfo")).isEmpty()
            || QStandardPaths::findExecutable(QStringLiteral("pdftoppm")).isEmpty())
            QSKIP("poppler-utils (pdfinfo, pdftotext, pdftoppm) are not installed: the PDF's pages and text are not read back");
        QProcess info;
        info.start(QStringLiteral("pdfinfo"), {pdf});
        QVERIFY(info.waitForFinished(60000));
        const QString infoText = QString::fromUtf8(info.readAllStandardOutput());
        QVERIFY2(infoText.contains(QRegularExpression(QStringLiteral("Pages:\\s+") + pages.captured(1) + "\\n")),
                 qPrintable(infoText));
        QProcess text;
        // In drawing order (-raw): a table cell's words stay together however its column wraps them.
        text.start(QStringLiteral("pdftotext"), {QStringLiteral("-raw"), pdf, QStringLiteral("-")});
        QVERIFY(text.waitForFinished(60000));
        // NFKC: the PDF's text has ligatures ("ﬀ") where the words have two letters.
        // Simplified: a phrase the layout wraps reads the same.
        const QString pdfText =
            QString::fromUtf8(text.readAllStandardOutput()).normalized(QString::NormalizationForm_KC).simplified();
        for (const char *phrase : {"Submission report", "Results by rule", "40100-0012", "District-wide records",
                                   "signed off by A. Steward", "To fix", "Acknowledged warnings", "Retained on purpose"})
            QVERIFY2(pdfText.contains(QLatin1String(phrase)), qPrintable(phrase + (": " + pdfText.left(3000))));
        // The fix list, one line per failing record: the student's result on its campus, with its row.
        QFile fixes(fixList);
        QVERIFY(fixes.open(QIODevice::ReadOnly));
        const QStringList fixLines = QString::fromUtf8(fixes.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QVERIFY2(fixLines.value(0).startsWith(QStringLiteral("School,Name,ID,Resource,Rule,Severity,Message,Source")),
                 qPrintable(fixLines.value(0)));
        bool onCampus = false;
        for (const QString &line : fixLines)
            if (line.contains(QStringLiteral(",Student,10010-0033,error,")))
                onCampus = line.contains(QString::fromStdString("(" + school + ")")) &&
                           line.contains(QStringLiteral("state file state-2.csv, row 2"));
        QVERIFY2(onCampus, qPrintable(fixLines.join(QStringLiteral("\n"))));
        // Nothing cut, nothing clipped: every word lies inside the page's margins and on no other word.
        const std::vector<PdfPage> pdfPages = readPdfWords(pdf);
        QCOMPARE(static_cast<int>(pdfPages.size()), pages.captured(1).toInt());
        const std::string outside = wordsOutsideOrOverlapping(pdfPages, 18.0);
        QVERIFY2(outside.empty(), outside.c_str());
        const std::string footers = footerPagesWrong(pdfPages);
        QVERIFY2(footers.empty(), footers.c_str());
        QProcess render;
        render.start(QStringLiteral("pdftoppm"),
                     {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("60"), pdf, dir.filePath("page")});
        QVERIFY(render.waitForFinished(120000));
        QCOMPARE(render.exitCode(), 0);
        QVERIFY(QDir(dir.path()).entryList({QStringLiteral("page-*.png")}).size() == pages.captured(1).toInt());
        if (const QByteArray keep = qgetenv("STEWARD_REPORT_PNG_DIR"); !keep.isEmpty())
            for (const QString &png : QDir(dir.path()).entryList({QStringLiteral("page-*.png")}))
                QFile::copy(dir.filePath(png), QDir(QString::fromLocal8Bit(keep)).filePath(png));
    }
};

QTEST_GUILESS_MAIN(TestVerdict)
#include "tst_verdict.moc"
