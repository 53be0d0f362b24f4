#include "rates.hpp"

#include <algorithm>
#include <stdexcept>

namespace sprof::analyze {

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

std::vector<DefaultRate> default_rates(const std::vector<std::string>& events) {
    std::vector<DefaultRate> out;
    const bool instructions = has(events, "instructions");
    // Per millisecond of CPU time: task-clock counts nanoseconds of it; without
    // it, the reference time (seconds) stands in.
    const std::string per_ms = has(events, "task-clock") ? "/task-clock*1e6" : "/time/1e3";
    if (instructions && has(events, "cycles"))
        out.push_back({"CPI", "cycles/instructions", "cycles per instruction"});
    // Time events (task-clock, cpu-clock, msr/tsc/) are of none of the kinds
    // below: they get no rate of their own.
    for (const auto& e : events) {
        if (e == "instructions" || e == "cycles") continue;
        std::string lower = e;
        std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
        if (contains(lower, "miss") && instructions)
            out.push_back({e + "_per_instr", e + "/instructions", e + " per instruction"});
        else if (e == "page-faults")
            out.push_back({"faults_per_ms", e + per_ms, "page faults per ms"});
        else if (contains(lower, "fault"))
            out.push_back({e + "_per_ms", e + per_ms, e + " per ms"});
        else if (e == "context-switches")
            out.push_back({"cs_per_s", e + "/time", "context switches per s"});
        else if (e == "cpu-migrations")
            out.push_back({"migrations_per_s", e + "/time", "migrations per s"});
        else if (contains(lower, "miss"))
            out.push_back({e + "_per_ms", e + per_ms, e + " per ms"});
    }
    return out;
}

RateSet::RateSet(const std::vector<std::string>& events, const std::vector<std::string>& specs,
                 bool with_defaults)
    : variables_(events) {
    variables_.push_back("time");
    variables_.push_back("samples");
    // A default whose expression does not parse is left out, never an error:
    // names are matched longest first, so an event "page-faults/task" beside
    // task-clock makes "page-faults/task-clock*1e6" read as
    // "page-faults/task" "-clock". A profile may name its events anything; the
    // user can still define the rate with --rate.
    if (with_defaults)
        for (const auto& d : default_rates(events)) {
            try {
                add(d.name, d.expression, d.unit);
            } catch (const std::invalid_argument&) {
            }
        }
    for (const auto& spec : specs) {
        size_t eq = spec.find('=');
        if (eq == std::string::npos || eq == 0)
            throw std::invalid_argument("bad --rate '" + spec + "': expected NAME=EXPRESSION");
        std::string name = spec.substr(0, eq);
        if (name.find_first_of(" \t,\"") != std::string::npos)
            throw std::invalid_argument("bad --rate '" + spec +
                                        "': the name may not contain spaces, commas or quotes");
        std::erase_if(rates_, [&](const Rate& r) { return r.name == name; });
        add(name, spec.substr(eq + 1), "");
    }
}

void RateSet::add(const std::string& name, const std::string& expression, const std::string& unit) {
    try {
        rates_.push_back({name, expression, unit, RateExpr::parse(expression, variables_)});
    } catch (const RateExprError& e) {
        throw std::invalid_argument("bad rate " + name + "=" + expression + ": " + e.what());
    }
}

std::optional<size_t> RateSet::find(const std::string& name) const {
    for (size_t i = 0; i < rates_.size(); ++i)
        if (rates_[i].name == name) return i;
    return std::nullopt;
}

std::vector<std::optional<double>> RateSet::evaluate(const Counts& c, Estimator e) const {
    return evaluate(c, estimate_events(c, e));
}

std::vector<std::optional<double>> RateSet::evaluate(
    const Counts& c, const std::vector<std::optional<double>>& events) const {
    std::vector<std::optional<double>> values(events);
    values.resize(variables_.size() - 2);
    values.push_back(c.seconds());
    values.push_back(static_cast<double>(c.samples));
    std::vector<std::optional<double>> out;
    out.reserve(rates_.size());
    for (const auto& r : rates_) out.push_back(r.expr.evaluate(values));
    return out;
}

std::vector<std::optional<Bounds>> RateSet::intervals(
    const Counts& c, const std::vector<std::optional<EstimateSpread>>& events) const {
    // The variables as estimates: the events with their own errors, the
    // time (exact but for the time's error, which every event shares) and
    // the number of samples (exact).
    std::vector<DerivedInput> inputs;
    for (const auto& s : events)
        inputs.push_back(s ? DerivedInput{s->value, s->sd_own, s->scales_with_time}
                           : DerivedInput{std::nullopt, std::nullopt, true});
    inputs.resize(variables_.size() - 2);
    inputs.push_back({c.seconds(), 0.0, true});
    inputs.push_back({static_cast<double>(c.samples), 0.0, false});
    const auto time_rel_sd = time_relative_sd(c.basis());
    std::vector<std::optional<Bounds>> out;
    out.reserve(rates_.size());
    for (const auto& r : rates_) {
        const auto used = r.expr.variables();
        out.push_back(derived_interval([&](std::span<const std::optional<double>> v) { return r.expr.evaluate(v); },
                                       inputs, used, time_rel_sd));
    }
    return out;
}

}  // namespace sprof::analyze
