// Accesses and misses per place in the code, in caches of several sizes at
// once: the model behind `sprof --misses` (per function, line or
// instruction) and `sprof --mrc --cache` (per function).
//
// Sampled profiles: each sample stands for its window's accesses / samples
// and charges them, and their misses, to one location: its trigger's (the
// access that may miss, with the probability visit_reuses() gives; the
// triggers of evenly drawn samples are evenly drawn accesses), or, for a
// line never reused, the sampled access's (it stands for the unobserved
// cold miss of its line's first access). A row's misses are therefore at
// most its accesses.
// Exact profiles: the simulator's counts (LRU only).
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "code_location.hpp"
#include "locality_data.hpp"
#include "miss_ratio_curve.hpp"

namespace sprof::analyze {

struct CodeMisses {
    uint32_t key = 0;            // what the key function made of its instructions
    double accesses = 0;         // estimated when sampled
    std::vector<double> misses;  // one per cache size
};

struct CodeMissTable {
    std::vector<uint64_t> lines;  // cache sizes in lines
    double accesses = 0;          // all locations
    std::vector<double> misses;   // all locations, one per size
    std::vector<CodeMisses> rows; // most misses in the first cache first
};

// Groups instructions into rows: equal keys, one row.
using CodeKey = std::function<uint32_t(const CodeRef&)>;

// Per key, in caches of `lines` lines. An exact profile answers from its
// per-instruction counts (EXACT_INSTRUCTIONS), at its detail sizes only:
// std::invalid_argument naming them for another size, ProfileError for a
// policy other than LRU or a profile without them.
CodeMissTable code_misses(const LocalityData& data, Policy policy, std::span<const uint64_t> lines, const CodeKey& key);

// Per function (key: Dataset::functions index). An exact profile answers
// from its per-function counts (EXACT_FUNCTIONS), at the sizes of its curve.
CodeMissTable function_misses(const LocalityData& data, Policy policy, std::span<const uint64_t> lines);

// `sprof --misses`: per location (a function, line or instruction), LRU.
struct LocationMissParams {
    std::vector<uint64_t> lines{};  // cache sizes in lines
    Granularity by = Granularity::line;
    bool user_frames = false;  // --user-frames (location_of)
};
struct LocationMisses {
    std::vector<Location> locations;  // table.rows[i].key indexes these
    CodeMissTable table;
};
LocationMisses location_misses(const Dataset& d, const LocalityData& l, const LocationMissParams& p);

// Throws std::invalid_argument unless every size is one the exact run
// counted per instruction: "… at 32 KiB, 256 KiB, … only, not 48 KiB".
void require_detail_sizes(const LocalityData& data, std::span<const uint64_t> lines);

}  // namespace sprof::analyze
