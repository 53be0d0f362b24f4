// Miss-ratio curves and misses per function from a dataset's locality
// records: the model behind `sprof --mrc` (its views are in report_mrc.cpp).
//
// Sampled profiles: LRU by the time-local StatStack (statstack.hpp) over
// each thread's samples, cut into pieces and the pieces grouped into kinds
// (reuse_pieces.hpp); random replacement by StatCache (statcache.hpp), one
// equation per kind of piece of each thread's stream (per sampling window
// without positions), solved together, each reuse's accesses in between
// evicting at the rates of the kinds they lie in, with the thread's cache
// filling before its misses evict and its cold misses evicting as its
// footprint grows. Threads and kinds are combined weighted by their
// accesses.
// Exact profiles: the exact simulator's counts, summed over threads.
//
// Confidence bands (95 %):
// * LRU: bootstrap over samples — each kind's samples resampled with
//   replacement (a fixed seed per replicate; the replicates shared among
//   the CPUs), the whole model run on every replicate, percentiles 2.5 and
//   97.5. It is cheap here (one pass per replicate) and
//   also catches the noise of the stack-distance conversion, which a
//   binomial band on the share of missing samples ignores; the conversion
//   has no smooth influence function (a loop puts every sample at one
//   distance), so no analytic band fits it. Added in quadrature, the
//   model's own error: the distance to StatStack's conversion with one
//   distribution for the whole thread.
// * Random replacement: the delta method on each kind's equation
//   (statcache.hpp), normal, and the model's own error: the distance to
//   StatCache's single equation over each whole thread, the two added in
//   quadrature. A bootstrap would solve the equations anew per replicate,
//   200 times the model's cost.
// * LRU's also holds Wilson's binomial interval for the share of missing
//   samples, which alone has a width where nearly none or nearly all miss;
//   random replacement's that of the share never reused (the cold misses).
// * Exact: low = high = the miss ratio.
// Either way low ≤ miss_ratio ≤ high.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "locality_data.hpp"
#include "statstack.hpp"

namespace sprof::analyze {

enum class Policy { lru, random };
const char* to_string(Policy p);

struct CurvePoint {
    uint64_t lines = 0;  // cache size in lines
    double miss_ratio = 0, low = 0, high = 0;
};

struct CurveParams {
    Policy policy = Policy::lru;
    unsigned replicates = 200;  // bootstrap replicates (LRU)
    uint64_t seed = 1;          // of the bootstrap, so a report can be repeated
};

struct MissRatioCurve {
    std::vector<CurvePoint> points;  // ascending sizes
    std::string band;                // how low and high were found, for the report
};

// At the sizes of cache_sizes_in_lines (sampled) or those the exact run
// counted. Throws ProfileError when an exact profile has no counts for the
// policy.
MissRatioCurve miss_ratio_curve(const LocalityData& data, const CurveParams& params);

// The sizes a profile's curve is given at (see miss_ratio_curve).
std::vector<uint64_t> curve_sizes(const LocalityData& data, Policy policy);

// The LRU stack-distance model of one stream (StatStack), the one every
// view converts reuse distances with.
StackDistanceModel stack_model(const ReuseStream& s);

// Whether a reuse `distance` accesses after access `position` misses in an
// LRU cache of `lines` lines: its stack distance by the model is at least
// `lines`. A distance of kNoReuse (never reused, or a followed line that was
// not touched again) always misses. Every LRU question of the views —
// sample, tenure gap, reuse pair — is asked here.
bool lru_misses(const StackDistanceModel& m, uint64_t distance, uint64_t position, uint64_t lines);

// The miss probability of every sample of a stream in a cache of `lines`
// lines (LRU: 0 or 1; random replacement: StatCache's per piece); a sample
// never reused stands for the cold miss of its line's first access: 1.
std::vector<double> sample_miss_probabilities(const ReuseStream& s, Policy policy, uint64_t lines);

}  // namespace sprof::analyze
