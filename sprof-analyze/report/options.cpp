#include "options.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sprof/option_values.hpp"

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

std::vector<uint64_t> parse_cache_sizes(const std::string& option, const std::string& text) {
    std::vector<uint64_t> sizes;
    for (size_t start = 0; start <= text.size();) {
        const size_t end = std::min(text.find(',', start), text.size());
        const uint64_t bytes = parse_byte_size(option, text.substr(start, end - start));
        if (std::find(sizes.begin(), sizes.end(), bytes) != sizes.end())
            throw UsageError(fmt::format("{} names {} twice", option, format_bytes(bytes)));
        sizes.push_back(bytes);
        start = end + 1;
    }
    return sizes;
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
