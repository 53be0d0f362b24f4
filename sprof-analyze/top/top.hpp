// sprof top: a profile while a collector writes it, live (report_top.cpp).
#pragma once
#include <ostream>

#include "options.hpp"

namespace sprof::analyze {

void follow_profile(const Options& o, std::ostream& out);

}  // namespace sprof::analyze
