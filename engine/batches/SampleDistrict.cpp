#include "SampleDistrict.h"

#include "Generator.h"

#include <algorithm>

namespace steward {

std::vector<Request> sampleDistrictRequests(unsigned seed, int studentsPerSchool)
{
    // The generator makes two schools (Grand Bend High 255901001 and Grand Bend Middle 255901044)
    // for districts under 1,875 students, so the students are split evenly between those two.
    GeneratorOptions options;
    options.students = 2 * static_cast<std::int64_t>(std::max(studentsPerSchool, 0));
    options.seed = seed;
    std::vector<Request> out;
    generateDistrict(options, [&out](const std::string &resource, const Json &body) {
        out.push_back(Request::make("POST", "/" + resource, "sample district", body));
    });
    return out;
}

} // namespace steward
