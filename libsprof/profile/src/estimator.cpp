#include "sprof/estimator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace sprof {

Estimator parse_estimator(const std::string& s) {
    if (s == "coverage") return Estimator::coverage;
    if (s == "carry") return Estimator::carry;
    throw std::invalid_argument("unknown estimator '" + s + "' (use coverage or carry)");
}

const char* to_string(Estimator e) { return e == Estimator::coverage ? "coverage" : "carry"; }

namespace {

// The samples a coverage estimate's rate comes from: count Y, coverage X (ns)
// and spread Q (Σ d²/x).
struct RateSample {
    double y = 0, x = 0, q = 0;
};

// The fewest live samples a spread can be estimated from.
constexpr double kMinLiveSamples = 2;

RateSample rate_sample(const EventCell& c) {
    return {static_cast<double>(c.count), static_cast<double>(c.coverage_ns), c.sq};
}

std::optional<double> coverage_estimate(const RateSample& r, uint64_t time_ns) {
    if (r.x <= 0) return std::nullopt;
    return r.y * static_cast<double>(time_ns) / r.x;
}

// The variance of a coverage estimate from the samples it used (see the
// header); nullopt when the spread is unknown or fewer than two samples
// were live.
std::optional<double> coverage_variance(const RateSample& r, const EstimateBasis& b) {
    if (b.samples == 0 || b.time_ns == 0 || r.x <= 0 || !std::isfinite(r.q)) return std::nullopt;
    const double t = static_cast<double>(b.time_ns);
    const double x = std::min(r.x, t);
    const double mean_interval = t / static_cast<double>(b.samples);
    const double m = x / mean_interval;  // live samples used
    if (m < kMinLiveSamples) return std::nullopt;
    const double s = std::max(0.0, r.q - r.y * r.y / r.x);
    const double empirical = (t / x) * (t / x) * (1 - x / t) * mean_interval * s * m / (m - 1);
    const double one_unseen_event = (t - x) * t / (x * x);
    return std::max(empirical, one_unseen_event);
}

// The variance of where an entry's events lay (see the header): each
// entry's delta d, extrapolated by T/X, uniform between all here and none,
// for the entries and as many exits.
double boundary_variance(const EventCell& c, const EstimateBasis& b) {
    if (!b.one_function || c.coverage_ns == 0 || b.samples == 0 || !std::isfinite(c.entry_sq)) return 0;
    const double t = static_cast<double>(b.time_ns), x = static_cast<double>(c.coverage_ns);
    const double mean_interval = t / static_cast<double>(b.samples);
    return (t / x) * (t / x) * mean_interval * c.entry_sq * 2 / 3;
}

EstimateSpread self_sampled_spread(const EventCell& c) {
    // The stretches that entered the function: all its own or none, in every
    // call alike (where its events lie in a call is the same each time), so
    // uniform between the two for their sum, entry_count: the mean square
    // error of counting them all here is entry_count²/3. Those it ended are
    // entry_sq (extrapolate_self_sampled), independent of these.
    const auto entered = static_cast<double>(c.entry_count);
    const double variance = c.sq + c.entry_sq + entered * entered / 3;
    return {static_cast<double>(c.count),
            std::isfinite(variance) ? std::optional<double>(std::sqrt(std::max(0.0, variance))) : std::nullopt,
            false};
}

}  // namespace

std::optional<double> estimate(const EventCell& c, const EstimateBasis& b, Estimator e) {
    if (c.self_sampled) return static_cast<double>(c.count);
    if (e == Estimator::carry) {
        if (std::isnan(c.carry)) return std::nullopt;
        return c.carry;
    }
    return coverage_estimate(rate_sample(c), b.time_ns);
}

std::optional<EstimateSpread> estimate_spread(const EventCell& c, const EstimateBasis& b, Estimator e) {
    if (c.self_sampled) return self_sampled_spread(c);
    const RateSample r = rate_sample(c);
    const auto coverage = coverage_estimate(r, b.time_ns);
    const auto value = e == Estimator::coverage ? coverage : estimate(c, b, e);
    if (!value) return std::nullopt;
    EstimateSpread s{*value, std::nullopt};
    const auto variance = coverage_variance(r, b);
    if (!variance || !coverage) return s;
    const double bias = *value - *coverage;  // 0 for the coverage estimator itself
    s.sd_own = std::sqrt(*variance + boundary_variance(c, b) + bias * bias);
    return s;
}

uint64_t lost_tick_ns(const ProfileHeader& h) {
    const bool user_only = std::any_of(h.events.begin(), h.events.end(), [](const ProfileEvent& e) { return e.user_only; });
    return user_only && h.clock == "cpu" ? h.sample_interval_ns : 0;
}

uint32_t self_sampled_events(const ProfileHeader& h) {
    uint32_t mask = 0;
    for (size_t e = 0; e < h.events.size() && e < 32; ++e)
        if (h.events[e].self_sampled) mask |= 1u << e;
    return mask;
}

void extrapolate_self_sampled(Interval& iv, uint32_t self_sampled) {
    for (unsigned e = 0; e < 32; ++e) {
        if (!(self_sampled & (1u << e))) continue;
        uint64_t time = 0, live = 0;
        for (const FunctionCell& c : iv.cells) {
            if (e >= c.events.size()) continue;
            time += c.time_ns;
            live += c.events[e].coverage_ns;
        }
        // Never live at a tick (records only, or none): taken as counted.
        const double phi = live == 0 || live >= time ? 1.0 : static_cast<double>(live) / static_cast<double>(time);
        auto extrapolate = [&](EventCell& ec, bool spread, bool ticked) {
            if (ec.self_sampled) return;
            const double seen = static_cast<double>(ec.count);
            ec.count = static_cast<uint64_t>(std::llround(seen / phi));
            ec.entry_count = std::min(ec.count, static_cast<uint64_t>(std::llround(static_cast<double>(ec.entry_count) / phi)));
            // Never below a Poisson count's: k events seen say little of how
            // many a rotation missed when k is small (its 95 % upper bound
            // (√(k+1) + z/2)², as an sd of (bound − k)/z); none seen in a
            // function the ticks found is no proof of none: one unseen event,
            // as for a counted event.
            const double missed = (1 - phi) / (phi * phi);
            const double bound = std::pow(std::sqrt(seen + 1) + kZ95 / 2, 2);
            const double floor = seen > 0 ? missed * std::pow((bound - seen) / kZ95, 2) : ticked ? missed : 0;
            ec.sq = spread && std::isfinite(ec.sq) ? std::max(missed * ec.sq, floor) : 0;
            ec.entry_sq = spread && std::isfinite(ec.entry_sq) ? ec.entry_sq / (3 * phi * phi) : 0;
            ec.carry = NAN;
            ec.self_sampled = true;
        };
        for (FunctionCell& c : iv.cells)
            if (e < c.events.size()) extrapolate(c.events[e], true, c.samples > 0);
        for (LineCell& c : iv.lines)
            if (e < c.events.size()) extrapolate(c.events[e], false, false);
    }
}

double visit_time_variance(double d) {
    // A period X uniform on [1 − d, 1 + d]: E[X²] = 1 + d²/3, E[X³] = 1 + d².
    // The age A at a random moment has E[A] = E[X²]/2, E[A²] = E[X³]/3.
    const double mean_age = (1 + d * d / 3) / 2;
    return 2 * ((1 + d * d) / 3 - mean_age * mean_age);
}

std::optional<double> time_relative_sd(const EstimateBasis& b) {
    if (!b.one_function) return 0.0;
    if (b.entries == kUnknownEntries || b.samples == 0 || b.time_ns == 0) return std::nullopt;
    const double n = static_cast<double>(b.samples), k = static_cast<double>(std::min(b.entries, b.samples));
    const double mean_interval = static_cast<double>(b.time_ns) / n;
    const double lost = b.lost_tick_ns ? std::max(0.0, 1 - static_cast<double>(b.lost_tick_ns) / mean_interval) : 0;
    const double per_entry = std::max(visit_time_variance(b.tick_dither), k / n) + 2 * lost * (1 + lost);
    return std::sqrt(per_entry * k) * mean_interval / static_cast<double>(b.time_ns);
}

std::optional<Bounds> confidence_bounds(const EstimateSpread& s, std::optional<double> time_rel_sd) {
    if (!s.scales_with_time) time_rel_sd = 0.0;
    if (!s.sd_own || !time_rel_sd) return std::nullopt;
    const double time_sd = s.value * *time_rel_sd;
    const double sd = std::sqrt(*s.sd_own * *s.sd_own + time_sd * time_sd);
    if (!std::isfinite(sd)) return std::nullopt;
    return Bounds{std::max(0.0, s.value - kZ95 * sd), s.value + kZ95 * sd};
}

std::optional<Bounds> confidence_interval(const EventCell& c, const EstimateBasis& b, Estimator e) {
    const auto s = estimate_spread(c, b, e);
    if (!s) return std::nullopt;
    return confidence_bounds(*s, time_relative_sd(b));
}

std::optional<Bounds> derived_interval(const DerivedValue& g, std::span<const DerivedInput> inputs,
                                       std::span<const size_t> used, std::optional<double> time_rel_sd) {
    std::vector<std::optional<double>> x;
    for (const auto& in : inputs) x.push_back(in.value);
    const auto centre = g(x);
    if (!centre) return std::nullopt;
    bool timed = false;
    for (size_t i : used) {
        if (i >= inputs.size() || !inputs[i].value || !inputs[i].sd) return std::nullopt;
        timed = timed || inputs[i].scales_with_time;
    }
    // Half the change of g across ±1 sd of one error: its share of g's sd.
    double variance = 0;
    auto add_difference = [&](const std::vector<std::optional<double>>& up,
                              const std::vector<std::optional<double>>& down) {
        const auto hi = g(up), lo = g(down);
        if (!hi || !lo) return false;
        variance += (*hi - *lo) * (*hi - *lo) / 4;
        return true;
    };
    for (size_t i : used) {
        if (*inputs[i].sd == 0) continue;
        auto up = x, down = x;
        up[i] = *x[i] + *inputs[i].sd;
        down[i] = *x[i] - *inputs[i].sd;
        if (!add_difference(up, down)) return std::nullopt;
    }
    if (timed) {
        if (!time_rel_sd) return std::nullopt;
        auto up = x, down = x;
        for (size_t i : used)
            if (inputs[i].scales_with_time) up[i] = *x[i] * (1 + *time_rel_sd), down[i] = *x[i] * (1 - *time_rel_sd);
        if (!add_difference(up, down)) return std::nullopt;
    }
    const double sd = std::sqrt(variance);
    if (!std::isfinite(sd)) return std::nullopt;
    return Bounds{*centre - kZ95 * sd, *centre + kZ95 * sd};
}

namespace {

// Unknown (NaN) + anything = unknown: a spread is known only if every part's is.
double add_known(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : a + b; }

// Two self-sampled cells' entry_sq, the squares of the errors of their
// stretches charged elsewhere, added (sign 1) or one taken out of the other
// (−1): the errors add up, not in quadrature (a function's events lie at the
// same place in each call, in every interval and thread), so their roots do.
double add_roots(double a, double b, double sign) {
    if (std::isnan(a) || std::isnan(b)) return NAN;
    const double root = std::sqrt(std::max(0.0, a)) + sign * std::sqrt(std::max(0.0, b));
    return root > 0 ? root * root : 0.0;
}

}  // namespace

void accumulate(EventCell& a, const EventCell& b) {
    a.self_sampled = a.self_sampled || b.self_sampled;
    a.count += b.count;
    a.coverage_ns += b.coverage_ns;
    // Unknown + known = known: the unknown part contributed nothing measurable.
    if (std::isnan(a.carry)) a.carry = b.carry;
    else if (!std::isnan(b.carry)) a.carry += b.carry;
    a.sq = add_known(a.sq, b.sq);
    a.entry_count += b.entry_count;
    a.entry_coverage_ns += b.entry_coverage_ns;
    a.entry_sq = a.self_sampled ? add_roots(a.entry_sq, b.entry_sq, 1) : add_known(a.entry_sq, b.entry_sq);
}

uint64_t add_entries(uint64_t a, uint64_t b) {
    return a == kUnknownEntries || b == kUnknownEntries ? kUnknownEntries : a + b;
}

void withdraw(EventCell& a, const EventCell& b) {
    a.count -= std::min(a.count, b.count);
    a.coverage_ns -= std::min(a.coverage_ns, b.coverage_ns);
    if (!std::isnan(a.carry) && !std::isnan(b.carry)) a.carry -= b.carry;
    a.sq = add_known(a.sq, -b.sq);
    a.entry_sq = a.self_sampled ? add_roots(a.entry_sq, b.entry_sq, -1) : add_known(a.entry_sq, -b.entry_sq);
    if (!std::isnan(a.sq)) a.sq = std::max(a.sq, 0.0);
    if (!std::isnan(a.entry_sq)) a.entry_sq = std::max(a.entry_sq, 0.0);
    // The entries' part is a part of the rest.
    a.entry_count = std::min(a.entry_count - std::min(a.entry_count, b.entry_count), a.count);
    a.entry_coverage_ns =
        std::min(a.entry_coverage_ns - std::min(a.entry_coverage_ns, b.entry_coverage_ns), a.coverage_ns);
}

}  // namespace sprof
