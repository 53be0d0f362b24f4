// The help texts of `sprof`, made from the option tables.
#pragma once
#include <optional>
#include <string>

#include "report_kinds.hpp"

namespace sprof::analyze {

// `sprof --help`: every report and output in one line each, the shared options.
std::string general_help();
// `sprof help NAME`: one report or output, its details and its own options.
std::string report_help(const ReportKind& k);
// `sprof help NAME` for an option of every report with a longer text (ci):
// nullopt when there is none of that name.
std::optional<std::string> shared_option_help(const std::string& name);

}  // namespace sprof::analyze
