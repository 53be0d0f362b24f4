// `sprof --reuse-pairs` (Beyls & D'Hollander's RDVIS): reference pairs —
// the location of a sampled access (the use) and of the next access to its
// line (the reuse) — with their reuse-distance histograms; the pairs whose
// reuses miss in an LRU cache (capacity misses), heaviest first, as many as
// hold `cover` of those misses; for each, the code that runs between use
// and reuse, and the pairs clustered by that code with a hint per cluster.
//
// The code between: the samples of the same thread whose positions lie
// between a missing reuse's use and reuse (position, position + distance)
// are what ran in between, sampled. Per pair at most `spans` of its missing
// reuses are looked at (evenly over them), and of each at most
// `span_samples` samples (evenly over the span); each span's locations
// count as one vote, so the pair's `between` is the mean share of each
// location over its spans.
//
// Clusters (RDVIS's basic-block vectors): pairs, heaviest first, join the
// first cluster whose first pair's `between` has a cosine similarity of at
// least `similarity` with theirs, else start one.
//
// Hints per pair, from the pair's own evidence (and per cluster, from its
// pairs' evidence pooled):
//  * fusion: use and reuse lie in two loops run one after the other — the
//    code between splits into a part before and a part after, each with
//    locations of its own (code_splits), in most of the spans that tell;
//  * tiling: the code between interleaves, or is the use's own statement
//    going round (use and reuse one statement): one loop nest goes round
//    with a footprint larger than the cache;
//  * layout: the lines the reuses bring in, or those the use's statement
//    brings in, have a spatial use below one half (padding, cold fields, a
//    structure of arrays would help); added to the others as "+layout".
// A span tells only when it holds kMinSpanSamples samples or more (fewer
// cannot tell two loops from one that interleaves them), and not when it
// holds one statement of a pair of two (the span from the last use to the
// first reuse holds the reuse's loop only). A loop hint needs the share of
// splitting spans p among n that tell to be clear of one half by two
// binomial standard errors (|p − ½| ≥ 1/√n, so n ≥ 4); a layout hint
// kMinTenures tenures. Without them the hint says so, with the sampling
// period that would give kMinSpans spans of kMinSpanSamples samples. A pair
// whose misses are fewer than min_miss_share of all reuses gets no hint
// ("-"): there is little to gain (a tiled matrix multiply's heaviest pair
// misses in 0.27 % of the reuses at 32 KiB, the naive one's in 6.3 %).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "code_location.hpp"
#include "locality_data.hpp"
#include "reuse_outcomes.hpp"

namespace sprof::analyze {

struct PairParams {
    uint64_t lines = 512;                // the cache, in lines
    Granularity by = Granularity::line;
    bool user_frames = false;  // --user-frames (location_of)
    double cover = 0.9;                  // heavy pairs hold at least this share of the capacity misses
    size_t spans = 64;                   // spans looked at per pair
    size_t span_samples = 256;           // samples looked at per span
    double similarity = 0.5;             // cosine similarity that joins a cluster
    double split_tolerance = 0.1;        // share of a span's samples that may lie on the wrong side of a split
    double min_miss_share = 0.01;        // a pair (cluster) whose misses are fewer of all reuses gets no hint
};

struct LocationShare {
    uint32_t location = 0;
    double share = 0;
};

struct ReusePair {
    uint32_t use = 0, reuse = 0;         // indices into PairTable::locations
    uint64_t samples = 0;                // its reuse samples
    double reuses = 0;                   // accesses they stand for
    double misses = 0;                   // of those, missing in the cache
    double share = 0;                    // of all capacity misses
    std::vector<double> histogram;       // reuses per distance bucket b: [2^b, 2^(b+1))
    UseSum reuse_use;                    // the tenures its missing reuses started
    UseSum use_use;                      // the tenures the use's statement started (any pair)
    std::vector<LocationShare> between;  // the code between, largest share first
    size_t spans = 0;                    // spans looked at that held samples
    size_t informative = 0;              // of those, the spans that tell (see above)
    size_t splits = 0;                   // of those, whose code splits into two parts
    uint64_t missing_samples = 0;        // its samples whose reuse misses (the spans there are)
    uint64_t median_distance = 0;        // of those samples' reuses
    std::string hint;                    // from its own evidence, as PairCluster::hint
    uint64_t rerun_period = 0;           // without the evidence for a loop hint: a sampling period that would give it
    uint32_t cluster = 0;                // index into PairTable::clusters
};

struct PairCluster {
    std::vector<size_t> pairs;           // indices into PairTable::pairs
    double share = 0;                    // of all capacity misses
    // fusion, tiling, layout, fusion+layout, tiling+layout, "-" (the
    // evidence says neither), or "too few samples: --locality=N" (+layout)
    std::string hint;
    uint64_t rerun_period = 0;           // as ReusePair's, for the pooled evidence
    double split = 0;                    // share of its informative spans (weighted by pair) that split
    UseSum reuse_use, use_use;
};

struct PairTable {
    uint64_t lines = 0;
    uint32_t line_size = 0;
    uint64_t sample_period = 0;          // of the samples: what a rerun period is measured against
    std::vector<Location> locations;
    bool positions = false;              // samples have positions: the code between is known
    double reuses = 0;                   // every reuse (accesses the samples stand for)
    double capacity_misses = 0;          // of those, missing in the cache
    size_t all_pairs = 0;                // pairs with a capacity miss
    std::vector<ReusePair> pairs;        // the heavy ones, largest share first
    std::vector<PairCluster> clusters;   // largest share first

    // The share of reuses whose distance exceeds the cache (RDVIS's long reuses).
    double long_reuse_share() const { return reuses > 0 ? capacity_misses / reuses : 0; }
};

// Throws ProfileError for an exact profile (it holds no samples).
PairTable reuse_pairs(const Dataset& d, const LocalityData& l, const PairParams& p);

// Pieces of the above, for their tests:
// Whether a sequence of locations splits into a part before and a part
// after that do not interleave: a cut after which each location lies
// mostly on one side, the locations of each side holding at least
// `tolerance` of the elements there, and at most `tolerance` of them on
// their location's other side.
bool code_splits(std::span<const uint32_t> sequence, double tolerance);
// Cosine similarity of two sparse vectors (0 when either is empty).
double cosine_similarity(const std::vector<LocationShare>& a, const std::vector<LocationShare>& b);
// Clusters and hints of t.pairs (sets t.clusters, each pair's cluster and hint).
void cluster_pairs(PairTable& t, const PairParams& p);
constexpr size_t kMinSpanSamples = 8;  // samples a span needs to tell
constexpr size_t kMinSpans = 8;        // spans a rerun aims at
constexpr uint64_t kMinTenures = 8;    // tenures a layout hint needs

}  // namespace sprof::analyze
