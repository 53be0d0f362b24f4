// An option of `sprof` as data: cli.cpp hands it to CLI11, help.cpp prints
// it. The options of one report or output sit in its ReportKind
// (report_kinds.hpp); the ones every report takes are shared_options().
#pragma once
#include <string>
#include <vector>

#include "options.hpp"

namespace sprof::analyze {

using OptionValues = std::vector<std::string>;

struct OptionSpec {
    std::string names{};     // CLI11 form: "-o,--output"; the last is the long name
    std::string value{};     // shown after the names in help: "N", "[=auto|func:NAME]"; "" for a flag
    int values = 0;        // how many values follow it; 0 for a flag
    std::string implicit{};  // non-empty: the value only as --name=VALUE, and this one without it
    std::string help{};      // one line; a '\n' continues it in the help column
    std::string details{};   // a shared option's longer text, for `sprof help NAME`; "" = none
    // Takes its values into the options; `option` is the long name, for
    // messages. Null: nothing but being given.
    void (*set)(Options& o, const std::string& option, const OptionValues& values) = nullptr;
};

// The long name ("--output" of "-o,--output").
std::string long_name(const OptionSpec& s);

// The options every report takes (shared_options.cpp).
const std::vector<OptionSpec>& shared_options();

}  // namespace sprof::analyze
