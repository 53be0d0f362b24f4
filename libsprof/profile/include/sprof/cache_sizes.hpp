#pragma once
// The cache sizes every miss-ratio curve is given at: 1 KiB to 1 GiB, four
// sizes per doubling. The exact simulator counts misses at these sizes and
// the model evaluates its curve at the same ones, so the two compare point
// by point.

#include <cstdint>
#include <vector>

namespace sprof {

constexpr uint64_t kMinCacheBytes = uint64_t{1} << 10;
constexpr uint64_t kMaxCacheBytes = uint64_t{1} << 30;
constexpr int kCacheSizesPerDoubling = 4;

// Cache sizes in lines of `line_size` bytes (a power of two), ascending,
// without repeats; sizes below one line are left out.
std::vector<uint64_t> cache_sizes_in_lines(uint32_t line_size);

}  // namespace sprof
