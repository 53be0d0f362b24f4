#include "sprof/cache_sizes.hpp"

#include <cmath>

namespace sprof {

std::vector<uint64_t> cache_sizes_in_lines(uint32_t line_size) {
    std::vector<uint64_t> lines;
    for (uint64_t bytes = kMinCacheBytes; bytes <= kMaxCacheBytes; bytes *= 2) {
        for (int step = 0; step < kCacheSizesPerDoubling; ++step) {
            // bytes · 2^(step/k), rounded to whole lines: 1 KiB, 1.19 KiB, 1.41 KiB, 1.68 KiB, 2 KiB …
            double size = static_cast<double>(bytes) * std::exp2(static_cast<double>(step) / kCacheSizesPerDoubling);
            if (size > static_cast<double>(kMaxCacheBytes)) break;
            uint64_t n = static_cast<uint64_t>(std::llround(size / line_size));
            if (n >= 1 && (lines.empty() || n > lines.back())) lines.push_back(n);
        }
    }
    return lines;
}

}  // namespace sprof
