#include "BenchSupport.h"

#include "Database.h"
#include "Engine.h"
#include "Generator.h"
#include "Importer.h"
#include "ImportSource.h"

#include <QProcess>

#include <cstdio>

#include <fstream>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <memory>
#include <string>

#include <sys/resource.h>

namespace {

double cpuSecondsOf(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
           + static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

} // namespace

double seconds(Clock::time_point from, Clock::time_point to)
{
    return std::chrono::duration<double>(to - from).count();
}

double processCpuSeconds()
{
    return cpuSecondsOf(RUSAGE_SELF);
}

double threadCpuSeconds()
{
    return cpuSecondsOf(RUSAGE_THREAD);
}

double procStatusMb(const char *field)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    const std::string prefix = field;
    while (std::getline(status, line))
        if (line.rfind(prefix, 0) == 0)
            return std::stod(line.substr(prefix.size())) / 1024.0;
    return 0;
}

bool resetPeakRss()
{
#ifdef __GLIBC__
    // Freed memory an earlier phase left in malloc's arenas is not the next phase's.
    malloc_trim(0);
#endif
    std::ofstream clearRefs("/proc/self/clear_refs");
    clearRefs << "5";
    clearRefs.flush();
    return static_cast<bool>(clearRefs);
}

std::int64_t writeDistrictFile(const std::string &path, std::int64_t students)
{
    steward::GeneratorOptions generator;
    generator.students = students;
    std::ofstream out(path);
    return steward::generateDistrict(generator, [&out](const std::string &resource, const steward::Json &body) {
        out << steward::envelopeLine(resource, body) << '\n';
    });
}

std::int64_t writeDistrictDatabase(const std::string &ndjsonPath, const std::string &databasePath,
                                   std::int64_t students)
{
    const std::int64_t documents = writeDistrictFile(ndjsonPath, students);
    std::unique_ptr<steward::Model> model = steward::Model::loadStarter();
    std::unique_ptr<steward::Database> database = steward::Database::open(databasePath);
    steward::Engine engine(*model, *database);
    steward::ImportOptions options;
    options.paths = {ndjsonPath};
    steward::importFiles(engine, *model, options);
    return documents;
}

quint16 startServe(QProcess &process, const QString &cliPath, const std::string &databasePath,
                   const QStringList &arguments)
{
    process.setProgram(cliPath);
    process.setArguments(QStringList{"--db", QString::fromStdString(databasePath), "serve", "--port", "0"} + arguments);
    process.start();
    quint16 port = 0;
    // "Serving http://127.0.0.1:PORT (Ctrl-C stops)"
    while (port == 0 && process.waitForReadyRead(30000)) {
        const QString line = QString::fromUtf8(process.readAllStandardOutput());
        port = static_cast<quint16>(line.mid(line.lastIndexOf(':') + 1).section(' ', 0, 0).toUInt());
    }
    if (port == 0)
        std::fprintf(stderr, "serve did not start: %s\n", process.readAllStandardError().constData());
    return port;
}

namespace {

// "2021-08-23" -> "08/23/2021", as the portal writes dates.
std::string usDate(const std::string &iso)
{
    return iso.size() < 10 ? iso : iso.substr(5, 2) + "/" + iso.substr(8, 2) + "/" + iso.substr(0, 4);
}

} // namespace

void writePortalResultsHeader(std::ostream &csv)
{
    csv << "Campus ID,School Year,Record Type,Ed-Fi Id,Student ID,Entry Date,Rule Number,Error Level,Error Message\n";
}

void writePortalResultsRow(std::ostream &csv, std::int64_t row, const PortalEnrollment &e, const std::string &schoolYear)
{
    const char *level = row % 10 < 2 ? "F" : row % 10 < 3 ? "S" : "W";
    const std::string rule = "40100-" + std::to_string(1000 + row % 37);
    if (row % 10 == 9) // matches nothing: a student the district does not have
        csv << e.school << "," << schoolYear << ",ENROLL,,X" << row << "," << usDate(e.entryDate) << "," << rule << ","
            << level << ",Unknown student\n";
    else if (row % 10 >= 7) // by Ed-Fi id
        csv << e.school << "," << schoolYear << ",ENROLL," << e.id << ",,," << rule << "," << level << ",Checked by id\n";
    else
        csv << e.school << "," << schoolYear << ",ENROLL,," << e.student << "," << usDate(e.entryDate) << "," << rule
            << "," << level << ",Entry grade level differs from last year's grade + 1\n";
}

steward::Json portalResultsMapping()
{
    return steward::Json{
        {"columns",
         {{"rule", "Rule Number"},
          {"severity", "Error Level"},
          {"message", "Error Message"},
          {"schoolYear", "School Year"},
          {"school", "Campus ID"},
          {"id", "Ed-Fi Id"},
          {"resource", "Record Type"}}},
        {"severities", {{"F", "fatal"}, {"S", "error"}, {"W", "warning"}}},
        {"resources", {{"ENROLL", "StudentSchoolAssociation"}}},
        {"keys",
         {{"StudentSchoolAssociation",
           {{"studentReference.studentUniqueId", {{"column", "Student ID"}}},
            {"schoolReference.schoolId", {{"column", "Campus ID"}}},
            {"entryDate", {{"column", "Entry Date"}, {"format", "MM/DD/YYYY"}}}}}}}};
}
