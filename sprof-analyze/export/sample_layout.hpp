// How a histogram interval's samples are laid out on a time line (the Gecko
// export's samples). The profile knows how many of an interval's samples
// fell in each function, not in which order: each function's samples are
// spread evenly over the interval, interleaved with the others' in
// proportion, so any stretch of the interval shows the interval's shares.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace sprof::analyze {

// Item i appears counts[i] times; its j-th appearance belongs at
// (j + 1/2) / counts[i] of the span. The sequence is all appearances by
// that place (ties: the lower index first).
std::vector<uint32_t> interleave(std::span<const uint64_t> counts);

// counts scaled to sum to `limit` (largest remainder: the shares stay as
// near as whole numbers allow). Unchanged when they sum to `limit` or less.
std::vector<uint64_t> thin(std::span<const uint64_t> counts, uint64_t limit);

}  // namespace sprof::analyze
