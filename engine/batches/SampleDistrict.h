#pragma once

#include "Protocol.h"

#include <vector>

namespace steward {

// A small made-up district for the starter model (descriptors, a state agency, a district, two
// schools, their sessions, courses, sections, staff, students and enrollments), as POST requests
// in load order. The same seed always gives the same district.
std::vector<Request> sampleDistrictRequests(unsigned seed = 2026, int studentsPerSchool = 20);

} // namespace steward
