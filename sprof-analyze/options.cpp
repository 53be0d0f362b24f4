#include "options.hpp"

#include <algorithm>
#include <charconv>

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
