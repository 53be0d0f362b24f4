// --plot: what is plotted, apart from drawing it with gnuplot (plot.cpp), so
// tests and the fuzzer (fuzz/fuzz_profile.cpp) run all of it but gnuplot.
#pragma once
#include <utility>
#include <vector>

#include "phases.hpp"
#include "reports.hpp"

namespace sprof::analyze {

using Series = std::vector<std::pair<double, double>>;  // (seconds, value); NaN = unknown

struct PlotData {
    size_t rate = 0;                 // index into the RateSet
    std::vector<TimeRow> rows;
    std::vector<uint32_t> top;       // the functions drawn, most time first
    Series all;                      // the rate of all functions, per row
    std::vector<Series> functions;   // per `top` function
    std::vector<Phase> phases;
    std::vector<Series> phase_steps; // per phase: its momentary value as a step
};

// Throws std::invalid_argument for a rate that does not exist, runtime_error
// for a profile with no intervals.
PlotData plot_data(const Context& c);

}  // namespace sprof::analyze
