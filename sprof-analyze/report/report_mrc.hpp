// sprof --mrc: the miss-ratio curve of a dataset's locality records as
// text, CSV (cache_bytes,miss_ratio,low,high) or JSON, or drawn by gnuplot;
// with cache sizes, the misses per function in those caches. The numbers
// come from miss_ratio_curve.hpp; these are only its views.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "dataset.hpp"
#include "miss_ratio_curve.hpp"
#include "table.hpp"

namespace sprof::analyze {

struct MrcParams {
    CurveParams curve;               // policy and bootstrap
    std::vector<uint64_t> caches{};  // bytes; given: misses per function in caches of these sizes
    uint32_t line_size = 0;          // the line size expected (0: the run's)
    size_t top = 0;                  // per-function rows shown (0 = all)
    Format format = Format::text;
    NameStyle names = NameStyle::collapsed;  // in text tables
};

// Throws ProfileError (exit status 1) for a dataset without usable locality
// records and std::invalid_argument (exit status 2) for a cache size the
// profile cannot answer.
void report_mrc(const Dataset& d, const MrcParams& p, std::ostream& out);

// The curve and its band on a log axis of bytes, into FILE.png or FILE.svg.
void plot_mrc(const Dataset& d, const MrcParams& p, const std::string& file);

}  // namespace sprof::analyze
