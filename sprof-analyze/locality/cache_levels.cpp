#include "cache_levels.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sprof/option_values.hpp"

namespace sprof::analyze {

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
