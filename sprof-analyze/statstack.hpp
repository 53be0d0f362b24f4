// StatStack (Eklöv & Hagersten, ISPASS 2010): LRU miss ratios of a fully
// associative cache from sampled reuse distances alone.
//
// Convention (profile.hpp): the distance d of a reuse is the number of
// accesses from the sampled access to the next access to its line, counting
// that access; consecutive accesses to one line have d = 1, and d − 1 other
// accesses lie between. An LRU cache of C lines misses the trigger exactly
// when at least C distinct other lines were accessed in between (its stack
// distance S ≥ C).
//
// StatStack estimates S from the reuse-distance distribution of the same
// stream. An access between the pair, m accesses before the trigger
// (1 ≤ m ≤ d − 1), adds a distinct line when it is the last access to its
// line before the trigger, i.e. when its own forward reuse distance is at
// least m. With P the distribution of forward distances (samples never
// reused count as infinite):
//
//     E[S(d)] = Σ_{m=1}^{d−1} P(D ≥ m) = Σ_{k=0}^{d−2} P(D > k)
//
// A cyclic sweep over N lines (every d = N) gives E[S] = N − 1: misses below
// N lines, hits from N lines on, as an LRU cache does.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace sprof::analyze {

// A stream's reuse distances, weighted by the accesses each sample stands for.
struct ReuseHistogram {
    std::vector<uint64_t> distance;  // distinct, ascending, finite
    std::vector<double> weight;      // per distance
    double no_reuse = 0;             // weight of the samples never reused
};

// E[S(d)] for every distance of the histogram (non-decreasing).
std::vector<double> expected_stack_distances(const ReuseHistogram& h);

// E[S] of a reuse of any distance in one stream: what every view that asks
// "does this reuse (or this gap of a followed line) miss in a cache of C
// lines?" asks — per-sample misses, tenures, reuse pairs. `position` is the
// access the reuse starts at (ReuseSample::position), for a model that
// converts with the samples of its time; this one converts with the
// stream's whole distribution and does not use it.
class StackDistanceModel {
public:
    explicit StackDistanceModel(const ReuseHistogram& h);
    double expected(uint64_t distance, uint64_t position) const;

private:
    std::vector<uint64_t> distance_;
    std::vector<double> stack_;  // E[S] at each distance_
    std::vector<double> from_;   // share of the weight at distance_[j] or beyond (no reuse included)
};

// The weight that misses in an LRU cache of each size (in lines, ascending):
// samples never reused and those whose expected stack distance is ≥ the size.
std::vector<double> lru_miss_weights(const ReuseHistogram& h, std::span<const double> stack,
                                     std::span<const uint64_t> lines);

}  // namespace sprof::analyze
