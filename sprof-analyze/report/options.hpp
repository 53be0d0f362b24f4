// What the command line of `sprof` asked for (cli.cpp fills it), and the
// conversions of its values.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "code_location.hpp"
#include "dataset.hpp"
#include "miss_ratio_curve.hpp"
#include "phases.hpp"
#include "sprof/estimator.hpp"
#include "sprof/option_values.hpp"
#include "table.hpp"

namespace sprof::analyze {

struct PhaseSpec {
    std::string function;  // empty = automatic detection
};

struct Options {
    std::vector<std::string> profiles;
    std::vector<std::string> compare_before;  // --compare BEFORE: `profiles` are the run after
    std::string report = "flat";       // the name of a ReportKind (report_kinds.hpp)
    bool report_given = false;         // a report was asked for explicitly
    std::vector<std::string> outputs;  // names of the output kinds asked for (--plot, --export)
    Estimator estimator = Estimator::coverage;
    InlineMode inline_mode = InlineMode::caller;  // --no-inline (default) or --inline
    bool inline_given = false;                    // one of the two was given
    bool ci = false;  // --ci: a 95 % confidence interval beside every estimate
    bool salvage = false;  // --salvage: damaged records passed over, not an error
    Format format = Format::text;
    NameStyle names = NameStyle::collapsed;  // --names: function names in text tables
    size_t top = 0;  // 0 = all
    std::vector<std::string> rates;
    bool default_rates = true;
    bool by_function = false;
    bool inclusive = false;        // --inclusive: the flat report's inclusive columns (call paths)
    std::string path_function;     // --callers NAME, --callees NAME
    PhaseSpec phases;
    std::string lines_function;    // --lines=func:NAME; "" = every line
    double phase_threshold = 0.1;  // share of an interval's time that counts as running
    unsigned min_phase = 3;        // intervals
    std::string plot_file;
    std::string html_dir;  // --html DIR
    std::string plot_rate;
    std::map<std::string, std::string> export_files;  // export format (--export KIND FILE) → its file
    std::string output;        // --calibrate's MACHINE.json
    std::string machine_file;  // --predict's MACHINE.json
    Policy policy = Policy::lru;  // --mrc's cache
    std::vector<uint64_t> caches;  // --cache SIZE[,SIZE] in bytes; empty: not given
    uint32_t line_size = 0;        // --line-size: the line size the locality views expect (0: the run's)
    Granularity by = Granularity::line;  // --by: how the locality views group the code
    bool user_frames = false;            // --user-frames: a line in library code is its user's call site
    unsigned wait_s = 10;         // --follow: how long a profile may take to appear

    bool wants_output(const std::string& name) const;
    void add_output(const std::string& name);  // once, however often it is given
};

// The phase parameters the options give.
PhaseParams phase_params(const Options& o);

// Values of options the analyzer alone takes (the values every tool takes,
// counts, fractions, sizes, durations: sprof/option_values.hpp); each throws
// UsageError naming `option` and the value.
Format parse_format(const std::string& value);
// --cache: "32K,1M" → {32768, 1048576}, in the order given; each as
// parse_byte_size reads it, no size twice (one parser for every locality report).
std::vector<uint64_t> parse_cache_sizes(const std::string& option, const std::string& text);
// A report's choice of all or one function: `whole` (e.g. "auto", "all")
// gives "", "func:NAME" gives NAME.
std::string parse_function_choice(const std::string& option, const std::string& value, const std::string& whole);

}  // namespace sprof::analyze
