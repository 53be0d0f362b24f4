// What each sampled reuse does in caches of chosen sizes: whether its
// trigger misses, and — for LRU, when its trigger brought the line in and
// the line was followed — what the line's tenure held when the cache
// evicted it. The per-location, per-data-structure, use and reuse-pair
// views all read the samples through visit_reuses(), so they agree.
#pragma once
#include <cstdint>
#include <functional>
#include <span>

#include "locality_data.hpp"
#include "miss_ratio_curve.hpp"

namespace sprof::analyze {

struct ReuseOutcome {
    // Probability that the trigger misses (LRU: 0 or 1). A sample never
    // reused: 1, the cold miss of its line's first access it stands for.
    double miss = 0;
    // LRU, a trigger that misses and whose line was followed (Tenure): the
    // state of the tenure when the cache evicts the line (tenure_state).
    const TenureStep* state = nullptr;
};

// The state of a followed line's tenure in an LRU cache of `lines` lines:
// the line stays until the first gap whose stack distance is at least
// `lines` (lru_misses); the step of that gap holds what the tenure did
// until then. The gaps are converted as reuses starting at `from` (the
// trigger's position: the steps do not record where each gap started). A
// tenure whose last gap is a lower bound (aged) or unknown (capped, no
// reuse) ends there: nothing more of it is known.
const TenureStep& tenure_state(const Tenure& t, const StackDistanceModel& m, uint64_t from, uint64_t lines);

// visit(stream, sample, outcomes): outcomes[k] for the cache of lines[k].
using ReuseVisitor = std::function<void(const ReuseStream&, const StreamSample&, std::span<const ReuseOutcome>)>;

// Every sample of every stream of a sampled profile, in stream order.
void visit_reuses(const LocalityData& l, Policy policy, std::span<const uint64_t> lines, const ReuseVisitor& visit);

// SIP's use of the lines brought in, summed over tenures (each weighted by
// the accesses its sample stands for, or one per exact miss):
//   spatial use  = used bytes / (tenures × line size): the share of a
//                  line's bytes touched before it was evicted;
//   temporal use = bytes / used bytes − 1: how often each used byte was
//                  touched again (the first touch not counted).
// Every access of a tenure is counted: exactly in exact mode, weighted by
// the sampler's roulette (reuse_sampler.hpp) when sampled.
struct UseSum {
    double tenures = 0;     // lines brought in (misses) whose use is known
    double used_bytes = 0;  // Σ chunks touched × chunk size
    double bytes = 0;       // Σ bytes read or written, repeats counted
    uint64_t samples = 0;   // tenures the sums rest on (sampled: followed lines; exact: misses)

    void add(const TenureStep& s, double weight, uint32_t line_size);
    void add(const UseSum& o);
    double spatial(uint32_t line_size) const;  // 0 … 1; NaN without tenures
    double temporal() const;                   // ≥ 0; NaN without tenures
};

}  // namespace sprof::analyze
