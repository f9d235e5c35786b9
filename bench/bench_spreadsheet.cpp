// A roster spreadsheet against the same documents as NDJSON: N rows of students (studentUniqueId,
// names, birth date as MM/DD/YYYY, sex as a local code mapped to a descriptor) imported through a
// mapping, and the same students as NDJSON lines, each into a fresh database; docs/s of both and the
// peak memory of each run (a child process per import, so one run's memory does not hide the other's).
// Usage: bench_spreadsheet [rows]   (default 100000)
#include "BenchSupport.h"
#include "Engine.h"
#include "ImportSource.h"
#include "Importer.h"
#include "RowMapping.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <chrono>
#include <cstdio>
#include <random>
#include <string>

using namespace steward;

namespace {

const char *const kSexes[] = {"F", "M"};
const char *const kSexUris[] = {"uri://ed-fi.org/SexDescriptor#Female", "uri://ed-fi.org/SexDescriptor#Male"};
const char *const kFirst[] = {"Ana", "Ben", "Chi", "Dara", "Eli", "Fay", "Gus", "Hana", "Ivo", "June"};
const char *const kLast[] = {"Nguyen", "Okafor", "Smith", "Garcia", "Lee", "Kowalski", "Haddad", "Silva"};

void writeInputs(const QString &dir, int rows)
{
    QFile csv(dir + "/roster.csv");
    QFile ndjson(dir + "/roster.ndjson");
    if (!csv.open(QIODevice::WriteOnly) || !ndjson.open(QIODevice::WriteOnly))
        std::exit(2);
    csv.write("Student ID,First Name,Last Name,Birth Date,Sex\r\n");
    std::mt19937 random(7);
    for (int i = 0; i < rows; ++i) {
        const std::string id = std::to_string(700000 + i);
        const char *first = kFirst[random() % 10];
        const char *last = kLast[random() % 8];
        const int month = 1 + static_cast<int>(random() % 12);
        const int day = 1 + static_cast<int>(random() % 28);
        const int sex = static_cast<int>(random() % 2);
        char date[16];
        std::snprintf(date, sizeof date, "%02d/%02d/2010", month, day);
        char iso[16];
        std::snprintf(iso, sizeof iso, "2010-%02d-%02d", month, day);
        csv.write(QByteArray::fromStdString(id + "," + first + "," + last + "," + date + "," + kSexes[sex] + "\r\n"));
        ndjson.write(QByteArray::fromStdString(envelopeLine("ed-fi/students", Json{{"studentUniqueId", id},
                                                                                  {"firstName", first},
                                                                                  {"lastSurname", last},
                                                                                  {"birthDate", iso},
                                                                                  {"birthSexDescriptor", kSexUris[sex]}})
                                               + "\n"));
    }
    QFile mapping(dir + "/map.json");
    mapping.open(QIODevice::WriteOnly);
    mapping.write(R"({"documents": [{"resource": "ed-fi/students", "fields": {
        "studentUniqueId": {"column": "Student ID"}, "firstName": {"column": "First Name"},
        "lastSurname": {"column": "Last Name"}, "birthDate": {"column": "Birth Date", "format": "MM/DD/YYYY"},
        "birthSexDescriptor": {"column": "Sex", "values": {"F": "uri://ed-fi.org/SexDescriptor#Female",
                                                           "M": "uri://ed-fi.org/SexDescriptor#Male"}}}}]})");
}

// In the child: import the descriptors, then the input (timed); prints "seconds documents peakMB".
int runImport(const std::string &dir, const std::string &input)
{
    std::unique_ptr<Model> model = Model::loadStarter();
    std::unique_ptr<Database> database = Database::open(dir + "/" + input + ".db");
    Engine engine(*model, *database);
    for (const char *uri : kSexUris) {
        const std::string code = std::string(uri).substr(std::string(uri).find('#') + 1);
        Request request{"POST", "/ed-fi/sexDescriptors", {}, Json{{"namespace", "uri://ed-fi.org/SexDescriptor"},
                                                                  {"codeValue", code}, {"shortDescription", code}},
                        "bench"};
        engine.handle(request);
    }
    ImportOptions options;
    options.paths = {dir + "/" + input};
    if (input.ends_with(".csv"))
        options.mapping = std::make_shared<RowMapping>(loadRowMapping(dir + "/map.json", *model));
    const Clock::time_point t0 = Clock::now();
    const ImportReport report = importFiles(engine, *model, options);
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("%.3f %lld %lld %.1f\n", seconds, static_cast<long long>(report.totals.created),
                static_cast<long long>(report.totals.drafts), procStatusMb("VmHWM:"));
    return report.completed ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc == 4 && std::string(argv[1]) == "--child")
        return runImport(argv[2], argv[3]);
    const int rows = argc > 1 ? std::max(10, std::atoi(argv[1])) : 100000;
    QTemporaryDir dir;
    writeInputs(dir.path(), rows);
    std::printf("Steward spreadsheet import: %d students, a CSV through a mapping against the same documents as "
                "NDJSON (baseline), each into a fresh database in its own process\n\n", rows);
    for (const char *input : {"roster.ndjson", "roster.csv", "roster.ndjson", "roster.csv"}) {
        QProcess child;
        child.start(QCoreApplication::applicationFilePath(), {"--child", dir.path(), input});
        child.waitForFinished(-1);
        double seconds = 0;
        long long created = 0;
        long long drafts = 0;
        double peak = 0;
        if (std::sscanf(child.readAllStandardOutput().constData(), "%lf %lld %lld %lf", &seconds, &created, &drafts,
                        &peak) != 4) {
            std::printf("%s: the import failed: %s\n", input, child.readAllStandardError().constData());
            return 1;
        }
        QFile::remove(dir.path() + "/" + input + ".db");
        QFile::remove(dir.path() + "/" + input + ".db-wal");
        QFile::remove(dir.path() + "/" + input + ".db-shm");
        std::printf("%-14s %7lld created %4lld drafts  %6.2f s  %8.0f docs/s  peak RSS %6.1f MB%s\n", input, created,
                    drafts, seconds, static_cast<double>(created) / seconds, peak,
                    std::string(input).ends_with(".ndjson") ? "   (baseline)" : "");
    }
    return 0;
}
