// sprof --mrc: the miss-ratio curve of a dataset's locality records as
// text, CSV (cache_bytes,miss_ratio,low,high) or JSON, or drawn by gnuplot;
// with a cache size, the misses per function in that cache. The numbers
// come from miss_ratio_curve.hpp; these are only its views.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>

#include "dataset.hpp"
#include "miss_ratio_curve.hpp"
#include "table.hpp"

namespace sprof::analyze {

struct MrcParams {
    CurveParams curve;          // policy and bootstrap
    uint64_t cache_bytes = 0;   // > 0: misses per function in a cache of this size
    size_t top = 0;             // per-function rows shown (0 = all)
    Format format = Format::text;
};

// Throws ProfileError (exit status 1) for a dataset without usable locality
// records and std::invalid_argument (exit status 2) for a cache size the
// profile cannot answer.
void report_mrc(const Dataset& d, const MrcParams& p, std::ostream& out);

// The curve and its band on a log axis of bytes, into FILE.png or FILE.svg.
void plot_mrc(const Dataset& d, const MrcParams& p, const std::string& file);

}  // namespace sprof::analyze
