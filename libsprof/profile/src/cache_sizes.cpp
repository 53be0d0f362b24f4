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

namespace {
template <size_t N>
std::vector<uint64_t> in_lines(const uint64_t (&bytes)[N], uint32_t line_size) {
    std::vector<uint64_t> lines;
    for (uint64_t b : bytes)
        if (b >= line_size) lines.push_back(b / line_size);
    return lines;
}
}  // namespace

std::vector<uint64_t> random_sizes_in_lines(uint32_t line_size) { return in_lines(kRandomReplacementBytes, line_size); }

std::vector<uint64_t> detail_sizes_in_lines(uint32_t line_size) { return in_lines(kDetailCacheBytes, line_size); }

}  // namespace sprof
