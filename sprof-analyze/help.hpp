// The help texts of `sprof`, made from the option tables.
#pragma once
#include <string>

#include "report_kinds.hpp"

namespace sprof::analyze {

// `sprof --help`: every report and output in one line each, the shared options.
std::string general_help();
// `sprof help NAME`: one report or output, its details and its own options.
std::string report_help(const ReportKind& k);

}  // namespace sprof::analyze
