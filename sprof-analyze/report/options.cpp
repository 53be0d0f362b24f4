#include "options.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

#include "byte_size.hpp"

namespace sprof::analyze {

bool Options::wants_output(const std::string& name) const {
    return std::find(outputs.begin(), outputs.end(), name) != outputs.end();
}

void Options::add_output(const std::string& name) {
    if (!wants_output(name)) outputs.push_back(name);
}

PhaseParams phase_params(const Options& o) {
    return {o.phases.function, o.phase_threshold, o.min_phase, o.estimator};
}

unsigned long parse_count(const std::string& option, const std::string& value) {
    unsigned long n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size())
        throw UsageError(option + " needs a non-negative integer, not '" + value + "'");
    return n;
}

double parse_fraction(const std::string& option, const std::string& value) {
    double x = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
    if (ec != std::errc() || end != value.data() + value.size() || !(x >= 0 && x <= 1))
        throw UsageError(option + " needs a number between 0 and 1, not '" + value + "'");
    return x;
}

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

Format parse_format(const std::string& value) {
    if (value == "text") return Format::text;
    if (value == "csv") return Format::csv;
    if (value == "json") return Format::json;
    throw UsageError("unknown format '" + value + "' (use text, csv or json)");
}

std::string parse_function_choice(const std::string& option, const std::string& value, const std::string& whole) {
    if (value.starts_with("func:") && value.size() > 5) return value.substr(5);
    if (value != whole) throw UsageError(option + " takes " + whole + " or func:NAME, not '" + value + "'");
    return {};
}

}  // namespace sprof::analyze
