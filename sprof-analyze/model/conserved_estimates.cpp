#include "conserved_estimates.hpp"

#include <cmath>
#include <unordered_map>

namespace sprof::analyze {

std::vector<std::optional<double>> values_of(const Estimates& e) {
    std::vector<std::optional<double>> out;
    out.reserve(e.size());
    for (const auto& s : e) out.push_back(s ? std::optional<double>(s->value) : std::nullopt);
    return out;
}

namespace {

// `own` brought to `value`: its spread scaled with it (its own relative
// error kept), and whether the time's error applies, its own.
EstimateSpread scaled_to(const EstimateSpread& own, double value) {
    EstimateSpread s = own;
    s.value = value;
    if (own.sd_own && own.value > 0) s.sd_own = *own.sd_own * (value / own.value);
    return s;
}

// Whether a whole over parts whose own estimates add up to `own_sum` keeps
// them as they are: carry-forward's and self-sampled sums are the whole's to
// within the order they were added in.
bool adds_up_already(double whole, double own_sum) {
    return std::abs(whole - own_sum) <= 1e-12 * std::abs(whole);
}

// The run's total of event k over the functions whose own estimate of it is
// known, estimated at once as several functions' cells are (estimator.hpp):
// the run's measured total when every function is known. A function whose
// estimate is unknown (the event never live in it) keeps the run's rate ×
// its time out of it: nothing was measured there to share out.
std::optional<double> known_functions_total(const std::vector<Counts>& per_function,
                                            const std::vector<Estimates>& own, size_t k, Estimator e) {
    EventCell sum;
    EstimateBasis basis;  // several functions': their time exact
    for (size_t f = 0; f < per_function.size(); ++f) {
        if (!own[f][k]) continue;
        accumulate(sum, per_function[f].events[k]);
        basis.samples += per_function[f].samples;
        basis.time_ns += per_function[f].time_ns;
    }
    return estimate(sum, basis, e);
}

}  // namespace

std::vector<Estimates> function_estimates(const std::vector<Counts>& per_function, Estimator e) {
    std::vector<Estimates> out;
    out.reserve(per_function.size());
    for (const Counts& c : per_function) out.push_back(estimate_spreads(c, e));
    const size_t n_events = per_function.empty() ? 0 : per_function.front().events.size();
    for (size_t k = 0; k < n_events; ++k) {
        const auto whole = known_functions_total(per_function, out, k, e);
        double own_sum = 0;
        for (const Estimates& f : out)
            if (f[k]) own_sum += f[k]->value;
        // Nothing known, or nothing counted anywhere (the whole is then 0 too).
        if (!whole || own_sum <= 0 || adds_up_already(*whole, own_sum)) continue;
        const double scale = *whole / own_sum;
        for (Estimates& f : out)
            if (f[k]) f[k] = scaled_to(*f[k], f[k]->value * scale);
    }
    return out;
}

namespace {

// A function's parts' own estimates of one event, summed: the known ones'
// values and time, and the time of all.
struct OwnSums {
    double known_value = 0, known_ns = 0, all_ns = 0;
};

// What a part weighs in its function's split: its own estimate, or, unknown,
// its time at the rate of the parts known (of the whole when none is).
double weight(const std::optional<EstimateSpread>& own, double time_ns, const OwnSums& s,
              const std::optional<EstimateSpread>& whole) {
    if (own) return own->value;
    if (s.known_ns > 0) return s.known_value / s.known_ns * time_ns;
    return s.all_ns > 0 ? whole->value / s.all_ns * time_ns : 0;
}

}  // namespace

std::vector<Estimates> split_estimates(std::span<const FunctionPart> parts, const std::vector<Estimates>& whole,
                                       Estimator e) {
    std::vector<Estimates> own;
    own.reserve(parts.size());
    for (const FunctionPart& p : parts) own.push_back(estimate_spreads(*p.counts, e));
    // Per function and event: the parts' own sums, then their weights' sum.
    std::unordered_map<uint32_t, std::vector<OwnSums>> sums;
    for (size_t i = 0; i < parts.size(); ++i) {
        auto& s = sums.try_emplace(parts[i].function, own[i].size()).first->second;
        const auto ns = static_cast<double>(parts[i].counts->time_ns);
        for (size_t k = 0; k < own[i].size(); ++k) {
            s[k].all_ns += ns;
            if (!own[i][k]) continue;
            s[k].known_value += own[i][k]->value;
            s[k].known_ns += ns;
        }
    }
    std::unordered_map<uint32_t, std::vector<double>> weights;
    for (size_t i = 0; i < parts.size(); ++i) {
        const uint32_t f = parts[i].function;
        auto& w = weights.try_emplace(f, own[i].size()).first->second;
        for (size_t k = 0; k < own[i].size(); ++k)
            if (whole[f][k]) w[k] += weight(own[i][k], static_cast<double>(parts[i].counts->time_ns), sums.at(f)[k], whole[f][k]);
    }
    std::vector<Estimates> out;
    out.reserve(parts.size());
    for (size_t i = 0; i < parts.size(); ++i) {
        const uint32_t f = parts[i].function;
        Estimates share(own[i].size());
        for (size_t k = 0; k < share.size(); ++k) {
            const auto& all = whole[f][k];
            if (!all) continue;  // the function's is unknown: so are its parts'
            const double total_weight = weights.at(f)[k];
            const auto ns = static_cast<double>(parts[i].counts->time_ns);
            const double w = weight(own[i][k], ns, sums.at(f)[k], all);
            // No weight at all (no events, no time anywhere): the whole is 0
            // or shared by time.
            const double all_ns = sums.at(f)[k].all_ns;
            const double value = total_weight > 0 && adds_up_already(all->value, total_weight) ? w
                                 : total_weight > 0 ? w * (all->value / total_weight)
                                 : all_ns > 0       ? all->value * ns / all_ns
                                                    : 0;
            share[k] = own[i][k] ? scaled_to(*own[i][k], value) : EstimateSpread{value, std::nullopt};
        }
        out.push_back(std::move(share));
    }
    return out;
}

void add_estimates(EventSums& sums, const Estimates& part) {
    if (sums.size() < part.size()) sums.resize(part.size());
    for (size_t k = 0; k < part.size(); ++k)
        if (part[k]) sums[k] = sums[k].value_or(0) + part[k]->value;
}

Estimates as_estimates(const EventSums& sums, const Estimates& own) {
    Estimates out(sums.size());
    for (size_t k = 0; k < sums.size(); ++k) {
        if (!sums[k]) continue;
        out[k] = k < own.size() && own[k] ? scaled_to(*own[k], *sums[k]) : EstimateSpread{*sums[k], std::nullopt};
    }
    return out;
}

std::vector<std::vector<Estimates>> group_estimates(const Dataset& d, std::span<const std::vector<uint32_t>> groups,
                                                    Estimator e) {
    std::vector<size_t> group_of_source(d.sources.size(), groups.size());
    for (size_t g = 0; g < groups.size(); ++g)
        for (uint32_t s : groups[g]) group_of_source[s] = g;
    std::vector<std::vector<uint32_t>> intervals(groups.size());
    for (uint32_t i = 0; i < d.intervals.size(); ++i)
        if (const size_t g = group_of_source[d.interval_source[i]]; g < groups.size()) intervals[g].push_back(i);
    std::vector<std::vector<Counts>> per_function(groups.size());
    std::vector<FunctionPart> parts;
    for (size_t g = 0; g < groups.size(); ++g) {
        per_function[g] = by_function(d, intervals[g]);
        for (uint32_t f = 0; f < d.functions.size(); ++f)
            if (occurs(per_function[g][f])) parts.push_back({f, &per_function[g][f]});
    }
    auto shares = split_estimates(parts, function_estimates(by_function(d, all_intervals(d)), e), e);
    std::vector<std::vector<Estimates>> out(groups.size(),
                                            std::vector<Estimates>(d.functions.size(), Estimates(d.events.size())));
    size_t next = 0;
    for (size_t g = 0; g < groups.size(); ++g)
        for (uint32_t f = 0; f < d.functions.size(); ++f)
            if (occurs(per_function[g][f])) out[g][f] = std::move(shares[next++]);
    return out;
}

std::vector<RowEstimates> row_estimates(const Dataset& d, std::span<const TimeRow> rows, Estimator e,
                                        const std::vector<Estimates>* given) {
    const auto own = given ? std::vector<Estimates>() : function_estimates(by_function(d, rows), e);
    const auto& whole = given ? *given : own;
    std::vector<RowEstimates> out;
    out.reserve(rows.size());
    std::vector<FunctionPart> parts;
    for (const TimeRow& r : rows) {
        const std::span<const uint32_t> intervals(r.intervals);
        out.push_back({occurring_functions(d, intervals), {}, total(d, intervals), {}});
    }
    for (const RowEstimates& r : out)
        for (const FunctionCounts& f : r.functions) parts.push_back({f.function, &f.counts});
    auto shares = split_estimates(parts, whole, e);
    size_t next = 0;
    for (RowEstimates& r : out) {
        EventSums sums(d.events.size());
        for (size_t j = 0; j < r.functions.size(); ++j) {
            add_estimates(sums, shares[next]);
            r.of_function.push_back(std::move(shares[next++]));
        }
        r.estimates = as_estimates(sums, estimate_spreads(r.total, e));
    }
    return out;
}

}  // namespace sprof::analyze
