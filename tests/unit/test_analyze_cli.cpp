// The command line of `sprof`: what it reads into Options, the help, and the
// one-line usage errors scripts rely on (exit status 2 in main.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "cli.hpp"

using namespace sprof;
using namespace sprof::analyze;

namespace {

std::string usage_error(const std::vector<std::string>& args) {
    try {
        parse_command_line(args);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(no error)";
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

// The line of `text` that starts with `start`, or "".
std::string line_starting(const std::string& text, const std::string& start) {
    for (const auto& l : lines_of(text))
        if (l.starts_with(start)) return l;
    return "";
}

}  // namespace

TEST_CASE("cli: values of every kind land in the options") {
    CommandLine c = parse_command_line({"--phases=func:compress", "--phase-threshold", "0.25", "--min-phase=5",
                                        "--top", "3", "--format", "csv", "--estimator", "carry", "--rate",
                                        "a=page-faults/time", "--rate", "b=samples", "--no-default-rates", "--plot",
                                        "p.svg", "--plot-rate", "b", "--export", "chrome-trace", "t.json", "x.sprof",
                                        "--", "--info"});
    const Options& o = c.options;
    CHECK(c.help.empty());
    CHECK(o.report == "phases");
    CHECK(o.report_given);
    CHECK(o.phases.function == "compress");
    CHECK(o.phase_threshold == 0.25);
    CHECK(o.min_phase == 5);
    CHECK(o.top == 3);
    CHECK(o.format == Format::csv);
    CHECK(o.estimator == sprof::Estimator::carry);
    CHECK(o.rates == std::vector<std::string>{"a=page-faults/time", "b=samples"});
    CHECK_FALSE(o.default_rates);
    CHECK(o.outputs == std::vector<std::string>{"plot", "chrome-trace"});
    CHECK(o.plot_file == "p.svg");
    CHECK(o.plot_rate == "b");
    CHECK(o.export_files == std::map<std::string, std::string>{{"chrome-trace", "t.json"}});
    CHECK(o.profiles == std::vector<std::string>{"x.sprof", "--info"});  // after --, names only

    CommandLine flat = parse_command_line({"a.sprof", "b.sprof"});
    CHECK(flat.options.report == "flat");
    CHECK_FALSE(flat.options.report_given);
    CHECK(parse_command_line({"--phases", "a.sprof"}).options.phases.function.empty());  // bare: auto
    CHECK(parse_command_line({"--top", "1", "--top", "2", "a.sprof"}).options.top == 2);
    CHECK(parse_command_line({"--info", "--info", "a.sprof"}).options.report == "info");
    CommandLine cal = parse_command_line({"--calibrate", "-o", "m.json", "a.sprof", "b.sprof"});
    CHECK(cal.options.report == "calibrate");
    CHECK(cal.options.output == "m.json");
    CHECK(parse_command_line({"--predict", "m.json", "a.sprof"}).options.machine_file == "m.json");

    // Every export format at once, each to its own file; an output given alone is no report.
    CommandLine ex = parse_command_line({"--export", "pprof", "p.pb.gz", "--export", "gecko", "g.json", "--export",
                                         "chrome-trace", "t.json", "a.sprof"});
    CHECK(ex.options.outputs == std::vector<std::string>{"pprof", "gecko", "chrome-trace"});
    CHECK(ex.options.export_files ==
          std::map<std::string, std::string>{{"pprof", "p.pb.gz"}, {"gecko", "g.json"}, {"chrome-trace", "t.json"}});
    CHECK_FALSE(ex.options.report_given);
}

TEST_CASE("cli: usage errors are one line, in sprof's words") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{}, "no profile given (see sprof --help)"},
        {{"--bogus", "a.sprof"}, "unknown option '--bogus' (see sprof --help)"},
        {{"--info", "--bogus=3", "a.sprof"}, "unknown option '--bogus=3' (see sprof --help)"},
        {{"--help", "--bogus"}, "unknown option '--bogus' (see sprof --help)"},
        {{"--top"}, "--top needs a value"},
        {{"-o"}, "-o needs a value"},
        {{"--top", "many", "a.sprof"}, "invalid --top 'many' (a whole number below 2^64)"},
        {{"--top", "-1", "a.sprof"}, "invalid --top '-1' (a whole number below 2^64)"},
        {{"--top=", "a.sprof"}, "--top= has an empty value"},
        {{"--min-phase", "0", "a.sprof"}, "--min-phase must be at least 1"},
        {{"--phase-threshold", "2", "--phases", "a.sprof"}, "invalid --phase-threshold '2' (a number from 0 to 1)"},
        {{"--format", "xml", "a.sprof"}, "unknown format 'xml' (use text, csv or json)"},
        {{"--estimator", "magic", "a.sprof"}, "unknown estimator 'magic' (use coverage or carry)"},
        {{"--info=3", "a.sprof"}, "--info takes no value"},
        {{"--info", "--timeline", "a.sprof"}, "--timeline cannot be combined with another report"},
        {{"--warp", "--phases=auto", "a.sprof"}, "--phases cannot be combined with another report"},
        {{"--phases=bogus", "a.sprof"}, "--phases takes auto or func:NAME, not 'bogus'"},
        {{"--phases=func:", "a.sprof"}, "--phases takes auto or func:NAME, not 'func:'"},
        {{"--by-function", "a.sprof"}, "--by-function needs --timeline"},
        {{"--phase-threshold", "0.5", "a.sprof"}, "--phase-threshold needs --phases"},
        {{"-o", "m.json", "a.sprof"}, "--output needs --calibrate"},
        {{"--plot-rate", "CPI", "a.sprof"}, "--plot-rate needs --plot"},
        {{"--calibrate", "a.sprof"}, "--calibrate needs -o MACHINE.json"},
        {{"--export"}, "--export needs a value"},
        {{"--export", "chrome-trace"}, "--export chrome-trace needs an output file"},
        {{"--export", "pdf", "x.json", "a.sprof"}, "unknown export format 'pdf' (use chrome-trace, pprof, gecko or folded)"},
        {{"--export", "plot", "x.png", "a.sprof"}, "unknown export format 'plot' (use chrome-trace, pprof, gecko or folded)"},
        {{"--mrc", "--export", "pprof", "x.pb.gz", "a.sprof"}, "--export does not apply to --mrc"},
        {{"--plot", "x.pdf", "a.sprof"}, "--plot writes FILE.png or FILE.svg, not 'x.pdf'"},
        {{"help", "nosuch"}, "no report, output or option named 'nosuch' (see sprof --help)"},
        {{"--cache", "32K", "a.sprof"}, "--cache needs --mrc, --misses, --use, --data, --reuse-pairs or --html"},
        {{"--by", "function", "--mrc", "a.sprof"}, "--by needs --misses, --use, --data, --reuse-pairs or --html"},
        {{"--misses", "--cache", "32K,lots", "a.sprof"}, "invalid --cache 'lots' (a size in bytes: 32K, 1M or 4096)"},
        {{"--use", "--line-size", "96", "a.sprof"}, "invalid --line-size '96' (bytes, a power of two from 8 to 4096)"},
        {{"--data", "--by", "file", "a.sprof"}, "--by takes function, line or instruction, not 'file'"},
        {{"--misses", "--use", "a.sprof"}, "--use cannot be combined with another report"},
        {{"--reuse-pairs", "--plot", "x.png", "a.sprof"}, "--plot and --export do not apply to the locality views"},
        {{"--html", "site", "--export", "pprof", "x.pb.gz", "a.sprof"}, "--plot and --export do not apply to the locality views"},
        {{"--html"}, "--html needs a value"},
    };
    for (const auto& [args, message] : cases) {
        CAPTURE(args.empty() ? std::string("(none)") : args.front());
        CHECK(usage_error(args) == message);
    }
}

TEST_CASE("cli: the locality views share --cache, --line-size and --by") {
    const Options o = parse_command_line({"--misses", "--cache", "32K,1M", "--line-size", "64", "--by", "function",
                                          "a.sprof"}).options;
    CHECK(o.report == "misses");
    CHECK(o.caches == std::vector<uint64_t>{32768, 1 << 20});
    CHECK(o.line_size == 64);
    CHECK(o.by == Granularity::function);
    CHECK(parse_command_line({"--mrc", "--cache=1M", "a.sprof"}).options.caches == std::vector<uint64_t>{1 << 20});
    CHECK(parse_command_line({"--reuse-pairs", "a.sprof"}).options.by == Granularity::line);
    const std::string h = parse_command_line({"help", "use"}).help;
    CHECK(line_starting(h, "  --cache SIZE[,SIZE] ").find("caches to answer for") != std::string::npos);
    CHECK(line_starting(h, "  --by function|line|instruction").size() > 0);
    CHECK(line_starting(parse_command_line({"help", "mrc"}).help, "  --by ").empty());
}

TEST_CASE("cli: sprof --help lists every report and output in one line each") {
    CommandLine c = parse_command_line({"--help"});
    const std::vector<std::pair<std::string, std::string>> listed = {
        {"(none)", "the flat profile"},
        {"--info", "metadata"},
        {"--timeline", "histogram interval"},
        {"--phases[=auto|func:NAME]", "program phases"},
        {"--warp", "workload vectors"},
        {"--calibrate", "seconds per event"},
        {"--predict MACHINE.json", "predicted run time"},
        {"--plot FILE.png|FILE.svg", "a rate over time"},
    };
    for (const auto& [option, words] : listed) {
        CAPTURE(option);
        CHECK(line_starting(c.help, "  " + option + " ").find(words) != std::string::npos);
    }
    // Too long for the first column: the help goes on the next line.
    const auto lines = lines_of(c.help);
    auto exp = std::find(lines.begin(), lines.end(), "  --export chrome-trace FILE.json");
    REQUIRE(exp != lines.end());
    CHECK((exp + 1)->find("Chrome trace events") != std::string::npos);
    CHECK(line_starting(c.help, "  --export pprof FILE.pb.gz ").find("go tool pprof") != std::string::npos);
    CHECK(line_starting(c.help, "  --export gecko FILE.json ").find("Firefox Profiler") != std::string::npos);
    CHECK(line_starting(c.help, "  --min-phase N ").find("shortest automatic phase") != std::string::npos);
    CHECK(parse_command_line({"-h"}).help == c.help);
    CHECK(parse_command_line({"help"}).help == c.help);
}

TEST_CASE("cli: help on one report: its usage, details and own options") {
    std::string h = parse_command_line({"help", "phases"}).help;
    CHECK(h.starts_with("usage: sprof --phases[=auto|func:NAME] [OPTION...] PROFILE...\n"));
    CHECK(line_starting(h, "  --phase-threshold F ").find("counts as running") == std::string::npos);  // wrapped
    CHECK(line_starting(h, "  --phase-threshold F ").find("share of an interval's time") != std::string::npos);
    CHECK(parse_command_line({"--phases", "--help"}).help == h);
    CHECK(parse_command_line({"help", "--phases"}).help == h);
    std::string cal = parse_command_line({"help", "calibrate"}).help;
    CHECK(line_starting(cal, "  -o, --output MACHINE.json ").find("(required)") != std::string::npos);
    CHECK(parse_command_line({"help", "flat"}).help.starts_with("usage: sprof [OPTION...] PROFILE...\n"));
    CHECK(parse_command_line({"help", "pprof"}).help.starts_with("usage: sprof --export pprof FILE.pb.gz [OPTION...] PROFILE...\n"));
    CHECK(parse_command_line({"help", "gecko"}).help.find("Firefox Profiler") != std::string::npos);
}
