#include "cache_levels.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include <fmt/format.h>

#include "byte_size.hpp"
#include "options.hpp"

namespace sprof::analyze {

std::vector<uint64_t> parse_cache_sizes(const std::string& option, const std::string& text) {
    std::vector<uint64_t> sizes;
    for (size_t start = 0; start <= text.size();) {
        const size_t end = std::min(text.find(',', start), text.size());
        const uint64_t bytes = parse_byte_size(option, text.substr(start, end - start));
        if (std::find(sizes.begin(), sizes.end(), bytes) != sizes.end())
            throw std::invalid_argument(fmt::format("{} names {} twice", option, format_bytes(bytes)));
        sizes.push_back(bytes);
        start = end + 1;
    }
    return sizes;
}

uint32_t parse_line_size(const std::string& option, const std::string& text) {
    const unsigned long n = parse_count(option, text);
    if (n == 0 || n > (1u << 20) || !std::has_single_bit(n))
        throw std::invalid_argument(fmt::format("{} takes a power of two up to 1048576 (bytes), not '{}'", option, text));
    return static_cast<uint32_t>(n);
}

void check_line_size(const LocalityData& l, uint32_t asked) {
    if (asked && asked != l.line_size)
        throw std::invalid_argument(fmt::format("--line-size {}: the profile was collected with {}-byte lines (the "
                                                "line size is fixed at the run: sprof_lib --locality --line-size {})",
                                                asked, l.line_size, asked));
}

std::vector<uint64_t> cache_lines(const LocalityData& l, std::span<const uint64_t> bytes) {
    std::vector<uint64_t> lines;
    for (uint64_t b : bytes) {
        if (b < l.line_size)
            throw std::invalid_argument(fmt::format("--cache {}: smaller than one {}-byte line", format_bytes(b),
                                                    l.line_size));
        lines.push_back(b / l.line_size);
    }
    return lines;
}

std::string cache_label(uint64_t bytes) {
    static const char units[] = {'K', 'M', 'G', 'T'};
    std::string suffix;
    for (char u : units) {
        if (bytes % 1024 != 0) break;
        bytes /= 1024;
        suffix = std::string(1, u);
    }
    return std::to_string(bytes) + suffix;
}

}  // namespace sprof::analyze
