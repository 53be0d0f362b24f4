// The caches the locality views answer for: `--cache SIZE[,SIZE]` and
// `--line-size N` (parsed in options.hpp), checked against the profile
// they are applied to.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "locality_data.hpp"

namespace sprof::analyze {

// Two levels at once when no --cache is given: a first-level data cache
// and a second-level one. Both are detail sizes of exact runs.
inline const std::vector<uint64_t> kDefaultCaches = {32 << 10, 1 << 20};

// Throws std::invalid_argument when `asked` (--line-size; 0: not given)
// is not the line size the profile was collected with: the records hold
// one line size, fixed when the program ran.
void check_line_size(const LocalityData& l, uint32_t asked);

// Each size in lines of the profile's line size. Throws
// std::invalid_argument for a size below one line.
std::vector<uint64_t> cache_lines(const LocalityData& l, std::span<const uint64_t> bytes);

// The suffix of a cache's columns: 32768 → "32K", 1048576 → "1M", 1536 → "1536".
std::string cache_label(uint64_t bytes);

}  // namespace sprof::analyze
