// The command line of `sprof`, read with CLI11 from the option tables
// (shared_options(), report_kinds()).
#pragma once
#include <string>
#include <vector>

#include "options.hpp"

namespace sprof::analyze {

// What the command line asks for: help to print, or else the options.
struct CommandLine {
    Options options;
    std::string help;  // non-empty: print this, nothing else
    bool quiet = false;  // -q: no warnings or notes (notes.hpp)
};

// Throws UsageError with a one-line reason.
CommandLine parse_command_line(const std::vector<std::string>& args);

}  // namespace sprof::analyze
