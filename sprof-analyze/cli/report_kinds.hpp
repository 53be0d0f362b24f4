// The reports and outputs of `sprof`, one entry each in report_kinds.cpp:
// adding one is adding its entry there and its view in a file of its own.
// The command line (cli.cpp) and the help (help.cpp) come from this table.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "option_spec.hpp"
#include "reports.hpp"

namespace sprof::analyze {

struct ReportKind {
    std::string name{};     // "phases": `sprof help phases`
    OptionSpec option{};    // the option that asks for it (no names: the default report)
    bool output = false;  // writes a file beside the report on stdout (--plot, --export)
    // An export format: asked for by `--export NAME FILE`, one option shared by
    // every format (option.value shows NAME and its file); an output too.
    bool exported = false;
    std::string details{};  // what `sprof help NAME` tells beyond the option's line
    std::vector<OptionSpec> options{};          // its own: given without it, a usage error
    // Reads the time line. A report of whole profiles (false) gets them folded
    // while they are read, unless an output asks for the time line, so a job
    // of many ranks fits in memory.
    bool timeline = true;
    void (*check)(const Options&) = nullptr;  // usage checks once the whole line is read
    // One of the two: it reads the merged profiles, or it reads its files itself.
    void (*run)(const Context&) = nullptr;
    void (*run_alone)(const Options&, std::ostream&) = nullptr;
    // Its view of two runs side by side (--compare BEFORE AFTER); null: none.
    void (*compare)(const Context& before, const Context& after) = nullptr;
};

// Reports first (the default one first), then outputs.
const std::vector<ReportKind>& report_kinds();

// An option that several reports take (the locality reports' --cache,
// --line-size, --by): given without any of them, a usage error.
struct GroupOption {
    OptionSpec option;
    std::vector<std::string> reports;  // names of the ReportKinds that take it
};
const std::vector<GroupOption>& group_options();
// nullptr when there is none of that name.
const ReportKind* find_report_kind(const std::string& name);
// The names of the export formats, for messages: "chrome-trace, pprof or gecko".
std::string export_format_names();

}  // namespace sprof::analyze
