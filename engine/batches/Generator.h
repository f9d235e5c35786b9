#pragma once

#include "Json.h"

#include <cstdint>
#include <functional>
#include <string>

namespace steward {

struct GeneratorOptions
{
    std::int64_t students = 100; // everything else in proportion (about 10 documents per student)
    std::uint32_t seed = 2026;
};

// A realistic, deterministic sample district for the starter model, in load order: descriptors,
// school years, state agency, districts, schools, calendars, grading periods, sessions, class
// periods, locations, courses, course offerings, sections, staff, students, school associations,
// staff and student section associations. The same options always give the same documents.
// emit(resource, body) gets "ed-fi/schools" style resource paths; returns the number emitted.
std::int64_t generateDistrict(const GeneratorOptions &options,
                              const std::function<void(const std::string &resource, const Json &body)> &emit);

} // namespace steward
