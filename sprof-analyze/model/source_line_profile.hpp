// The flat profile per source line (sprof --lines): the analysis. Its view
// is report_lines.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "aggregate.hpp"
#include "conserved_estimates.hpp"
#include "dataset.hpp"

namespace sprof::analyze {

struct LineParams {
    // Which frame of inlined code is its line, and whose function; callee
    // needs a dataset that charge_inlined_code went over.
    InlineMode inline_mode = InlineMode::caller;
    std::string function;  // only the lines of this function; "" all
    Estimator estimator = Estimator::coverage;
};

// One source line of one function: its samples, time and events, and its
// share of the function's estimates (the flat report's; its lines add up to it).
struct LineRow {
    uint32_t function = 0;  // Dataset::functions
    SourceFrame frame;      // file and line (kNoString, 0: unknown: "??:0")
    Counts counts;
    Estimates estimates;
};

struct LineProfile {
    std::vector<LineRow> rows;  // most time first; for one function, in source order
    Counts total;               // everything sampled (every function), for shares
};

// Sums the line cells of every interval per (function, file, line); an
// interval without line cells (a profile without source lines) counts at
// "??:0" of each function; each function's estimates split over its lines
// (conserved_estimates.hpp). Throws std::invalid_argument when `function`
// names no function with samples.
LineProfile line_profile(const Dataset& d, const LineParams& p);

}  // namespace sprof::analyze
