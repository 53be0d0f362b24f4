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

// Exact mode simulates LRU at every size of the grid, and a few sizes in
// more detail: random replacement (what StatCache models) at an L1, an L2,
// an LLC slice and a whole LLC; and per instruction the misses and tenures
// of LRU caches (ExactInstruction) at those and a 1 MiB cache. Sampled
// profiles are modelled at any size; these are where exact runs check them.
constexpr uint64_t kRandomReplacementBytes[] = {32 << 10, 256 << 10, 2 << 20, 16 << 20};
constexpr uint64_t kDetailCacheBytes[] = {32 << 10, 256 << 10, 1 << 20, 2 << 20, 16 << 20};

// Those of a list above that hold at least one line, in lines.
std::vector<uint64_t> random_sizes_in_lines(uint32_t line_size);
std::vector<uint64_t> detail_sizes_in_lines(uint32_t line_size);

}  // namespace sprof
