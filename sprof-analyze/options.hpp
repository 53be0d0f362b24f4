// The command line of `sprof`.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "phases.hpp"
#include "sprof/estimator.hpp"
#include "table.hpp"

namespace sprof::analyze {

// A bad command line: exit status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class Report { flat, info, timeline, phases, warp, calibrate, predict };

struct PhaseSpec {
    std::string function;  // empty = automatic detection
};

struct Options {
    std::vector<std::string> profiles;
    Report report = Report::flat;
    bool report_given = false;  // a report kind was asked for explicitly
    Estimator estimator = Estimator::coverage;
    Format format = Format::text;
    size_t top = 0;  // 0 = all
    std::vector<std::string> rates;
    bool default_rates = true;
    bool by_function = false;
    PhaseSpec phases;
    double phase_threshold = 0.1;  // share of an interval's time that counts as running
    unsigned min_phase = 3;        // intervals
    std::string plot_file;
    std::string plot_rate;
    std::string export_kind, export_file;
    std::string output;        // --calibrate's MACHINE.json
    std::string machine_file;  // --predict's MACHINE.json
    bool help = false;
};

// The phase parameters the options give.
PhaseParams phase_params(const Options& o);

// Throws UsageError with a one-line reason.
Options parse_options(const std::vector<std::string>& args);

extern const char* const kUsage;

}  // namespace sprof::analyze
