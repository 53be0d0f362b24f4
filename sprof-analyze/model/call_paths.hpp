// Call paths (profiles recorded with -g): every stack's sums over the run,
// the functions' inclusive sums, the callers and callees of a function, and
// the paths as function names for flame graphs. A path's samples are
// counted once per function on it, however often recursion repeats it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "aggregate.hpp"
#include "dataset.hpp"

namespace sprof::analyze {

// Throws UsageError when no profile of the dataset has call paths: they
// are recorded with -g fp.
void require_call_paths(const Dataset& d);

// Each stack's sums over every interval (index: Dataset::stacks id).
std::vector<Counts> stack_totals(const Dataset& d);

// Each function's inclusive sums: of the stacks it is on (index: function id).
std::vector<Counts> inclusive_totals(const Dataset& d, const std::vector<Counts>& stacks);

// The functions next to NAME on its paths: its callers (the frame outside
// its outermost call on each path) or its callees (the frame inside it).
// kNoFunction stands for none: a path that begins at NAME (callers), the
// samples in NAME itself (callees).
enum class Neighbour { callers, callees };
struct NeighbourRow {
    uint32_t function = kNoFunction;
    Counts counts;
};
struct Neighbours {
    Counts inclusive;                // NAME's: every row's share is of this
    std::vector<NeighbourRow> rows;  // most time first
};
// Throws UsageError when no function is called NAME (names_function).
Neighbours neighbours(const Dataset& d, const std::vector<Counts>& stacks, const std::string& name, Neighbour side);

// The paths as function names, outermost first, with their samples; paths
// of equal names are one, as the FlameGraph tools' stackcollapse scripts
// write them.
struct FoldedPath {
    std::vector<uint32_t> functions;
    uint64_t samples = 0;
};
std::vector<FoldedPath> folded_paths(const Dataset& d, const std::vector<Counts>& stacks);

}  // namespace sprof::analyze
