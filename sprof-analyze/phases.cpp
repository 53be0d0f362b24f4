#include "phases.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sprof::analyze {

namespace {

// Functions beyond this many (by total time) share one "other" dimension:
// a phase is characterised by its main functions.
constexpr size_t kMaxFunctionDims = 32;
// Rates weigh less than the time shares: they are noisier per interval.
constexpr double kRateWeight = 0.5;
// A rate of rare events (a few context switches per interval) is mostly
// Poisson noise: its weight is lowered until its noise variance is no more
// than this, the sampling noise of a function's time share at ~50 samples.
constexpr double kRateNoiseBudget = 0.005;
// Two phases whose mean vectors differ by less than this (squared distance)
// are never told apart: about a tenth of the time moving between functions.
constexpr double kMinDistinct = 0.02;
// Penalty per segment in units of noise variance × ln(rows) (BIC-like).
constexpr double kPenaltyPerNoise = 3.0;

double squared_distance(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
    return s;
}

std::vector<double> mean_of(const Features& x, size_t first, size_t last) {
    std::vector<double> m(x.dims, 0.0);
    for (size_t r = first; r < last; ++r)
        for (size_t k = 0; k < x.dims; ++k) m[k] += x.at(r, k);
    for (double& v : m) v /= static_cast<double>(last - first);
    return m;
}

// Noise variance of the rows (summed over dimensions): half the mean squared
// step between neighbours, leaving out the largest tenth of the steps (the
// change points). A median would underestimate the few-dimensional,
// skewed noise of sampled shares.
double noise_variance(const Features& x) {
    if (x.rows < 2) return 0;
    std::vector<double> steps;
    for (size_t r = 1; r < x.rows; ++r) {
        double s = 0;
        for (size_t k = 0; k < x.dims; ++k) s += std::pow(x.at(r, k) - x.at(r - 1, k), 2);
        steps.push_back(s);
    }
    std::sort(steps.begin(), steps.end());
    const size_t kept = std::max<size_t>(1, steps.size() * 9 / 10);
    double sum = 0;
    for (size_t i = 0; i < kept; ++i) sum += steps[i];
    return sum / static_cast<double>(kept) / 2;
}

}  // namespace

std::vector<size_t> segment(const Features& x, size_t min_length, double penalty) {
    const size_t n = x.rows, dims = x.dims;
    min_length = std::max<size_t>(min_length, 1);
    // No dimension: every cost is 0 and no boundary pays its penalty (and
    // PELT would prune nothing: rows² steps).
    if (n < 2 * min_length || dims == 0) return {};
    // Prefix sums: the cost of rows [a, b) is Σ|x|² − |Σx|²/(b−a).
    std::vector<double> sum((n + 1) * dims, 0.0), sumsq(n + 1, 0.0);
    for (size_t r = 0; r < n; ++r) {
        double q = 0;
        for (size_t k = 0; k < dims; ++k) {
            double v = x.at(r, k);
            sum[(r + 1) * dims + k] = sum[r * dims + k] + v;
            q += v * v;
        }
        sumsq[r + 1] = sumsq[r] + q;
    }
    auto cost = [&](size_t a, size_t b) {
        double s = 0;
        for (size_t k = 0; k < dims; ++k) {
            double t = sum[b * dims + k] - sum[a * dims + k];
            s += t * t;
        }
        return sumsq[b] - sumsq[a] - s / static_cast<double>(b - a);
    };
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> best(n + 1, inf);
    std::vector<size_t> previous(n + 1, 0);
    best[0] = -penalty;
    std::vector<size_t> candidates;
    std::vector<double> value;
    for (size_t s = min_length; s <= n; ++s) {
        size_t t_new = s - min_length;
        if (best[t_new] < inf) candidates.push_back(t_new);
        value.resize(candidates.size());
        double f = inf;
        for (size_t i = 0; i < candidates.size(); ++i) {
            value[i] = best[candidates[i]] + cost(candidates[i], s);
            if (value[i] + penalty < f) {
                f = value[i] + penalty;
                previous[s] = candidates[i];
            }
        }
        best[s] = f;
        // PELT pruning: a start that is already worse than ending here can
        // never become the best start of a later segment.
        size_t kept = 0;
        for (size_t i = 0; i < candidates.size(); ++i)
            if (value[i] <= f) candidates[kept++] = candidates[i];
        candidates.resize(kept);
    }
    std::vector<size_t> bounds;
    for (size_t s = previous[n]; s > 0; s = previous[s]) bounds.push_back(s);
    std::reverse(bounds.begin(), bounds.end());
    return bounds;
}

namespace {

// PELT prunes little in a long steady stretch, so optimal segmentation costs
// up to rows² steps: 100,000 rows took minutes. Beyond this many rows the
// means of blocks of consecutive rows are segmented instead.
constexpr size_t kMaxSegmentRows = 4096;

// segment() with a bounded cost: boundaries fall on block starts. A
// segment's sum of squares over rows is its rows' spread within their blocks
// (the same for every segmentation) plus `block` × that of the block means,
// so the block means are segmented with penalty / block.
std::vector<size_t> bounded_segment(const Features& x, size_t min_length, double penalty) {
    if (x.rows <= kMaxSegmentRows) return segment(x, min_length, penalty);
    const size_t block = (x.rows + kMaxSegmentRows - 1) / kMaxSegmentRows;
    Features means;
    means.rows = (x.rows + block - 1) / block;
    means.dims = x.dims;
    means.values.assign(means.rows * means.dims, 0.0);
    for (size_t b = 0; b < means.rows; ++b) {
        const size_t first = b * block, last = std::min(x.rows, first + block);
        for (size_t r = first; r < last; ++r)
            for (size_t k = 0; k < x.dims; ++k) means.values[b * x.dims + k] += x.at(r, k);
        for (size_t k = 0; k < x.dims; ++k) means.values[b * x.dims + k] /= static_cast<double>(last - first);
    }
    std::vector<size_t> bounds = segment(means, (min_length + block - 1) / block, penalty / static_cast<double>(block));
    for (size_t& b : bounds) b *= block;
    return bounds;
}

}  // namespace

std::string phase_label(size_t k) {
    std::string s;
    for (++k; k > 0; k = (k - 1) / 26) s.insert(s.begin(), static_cast<char>('A' + (k - 1) % 26));
    return s;
}

std::vector<Phase> auto_phases(const Features& x, size_t min_length) {
    if (x.rows == 0) return {};
    min_length = std::max<size_t>(min_length, 1);
    const double floor_penalty = kMinDistinct * static_cast<double>(min_length) / 2;
    const double penalty = std::max(
        floor_penalty, kPenaltyPerNoise * noise_variance(x) * std::log(static_cast<double>(x.rows)));
    std::vector<size_t> starts{0};
    for (size_t b : bounded_segment(x, min_length, penalty)) starts.push_back(b);
    starts.push_back(x.rows);

    // A segment gets the label of an earlier kind of phase when a boundary
    // between the two would not pay for itself (their difference is within
    // the noise for their lengths), or when they differ too little to matter.
    struct Kind {
        std::vector<double> mean;
        double length;
    };
    std::vector<Phase> phases;
    std::vector<Kind> kinds;
    for (size_t i = 0; i + 1 < starts.size(); ++i) {
        auto m = mean_of(x, starts[i], starts[i + 1]);
        const double n = static_cast<double>(starts[i + 1] - starts[i]);
        size_t label = kinds.size();
        double nearest = std::numeric_limits<double>::infinity();
        for (size_t l = 0; l < kinds.size(); ++l) {
            double dist = squared_distance(m, kinds[l].mean);
            double same = std::max(kMinDistinct, penalty * (n + kinds[l].length) / (n * kinds[l].length));
            if (dist < same && dist < nearest) nearest = dist, label = l;
        }
        if (label == kinds.size()) kinds.push_back({m, n});
        std::string name = phase_label(label);
        if (!phases.empty() && phases.back().label == name) phases.back().last = starts[i + 1];
        else phases.push_back({starts[i], starts[i + 1], name});
    }
    return phases;
}

Features row_features(const Dataset& d, const std::vector<TimeRow>& rows, const RateSet& rates,
                      Estimator e) {
    // The functions with most time overall get a dimension each.
    std::vector<uint64_t> fn_time(d.functions.size(), 0);
    for (const Interval& iv : d.intervals)
        for (const FunctionCell& c : iv.cells) fn_time[c.function] += c.time_ns;
    std::vector<uint32_t> order;
    for (uint32_t f = 0; f < fn_time.size(); ++f)
        if (fn_time[f] > 0) order.push_back(f);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return fn_time[a] > fn_time[b]; });
    const size_t n_fn = std::min(order.size(), kMaxFunctionDims);
    std::vector<size_t> dim_of(d.functions.size(), n_fn);  // n_fn = "other"
    for (size_t i = 0; i < n_fn; ++i) dim_of[order[i]] = i;
    const size_t share_dims = n_fn + (order.size() > n_fn ? 1 : 0);

    // Rates per row; a rate becomes a dimension when it is ever non-zero.
    std::vector<std::vector<std::optional<double>>> rate_rows;
    for (const TimeRow& r : rows) {
        Counts c = total(d, std::span<const uint32_t>(r.intervals));
        rate_rows.push_back(rates.evaluate(c, e));
    }
    std::vector<double> scale;  // 95th percentile of |rate|
    std::vector<size_t> rate_dims;
    for (size_t k = 0; k < rates.size(); ++k) {
        std::vector<double> v;
        for (const auto& rr : rate_rows)
            if (rr[k]) v.push_back(std::abs(*rr[k]));
        if (v.empty()) continue;
        size_t q = std::min(v.size() - 1, v.size() * 95 / 100);
        std::nth_element(v.begin(), v.begin() + q, v.end());
        if (v[q] > 0) rate_dims.push_back(k), scale.push_back(v[q]);
    }

    Features x;
    x.rows = rows.size();
    x.dims = share_dims + rate_dims.size();
    x.values.assign(x.rows * x.dims, 0.0);
    std::vector<double> last_known(rate_dims.size(), 0.0);
    for (size_t r = 0; r < rows.size(); ++r) {
        double* row = x.values.data() + r * x.dims;  // no dimension at all: no values, no element to index
        uint64_t row_time = 0;
        for (uint32_t i : rows[r].intervals)
            for (const FunctionCell& c : d.intervals[i].cells) {
                // A function with no time overall has no dimension; without an
                // "other" dimension its index would be one past the shares.
                if (dim_of[c.function] < share_dims) row[dim_of[c.function]] += static_cast<double>(c.time_ns);
                row_time += c.time_ns;
            }
        for (size_t k = 0; k < share_dims; ++k) row[k] = row_time ? row[k] / static_cast<double>(row_time) : 0;
        for (size_t j = 0; j < rate_dims.size(); ++j) {
            // An unknown rate keeps its last value: no information, no change.
            if (const auto& v = rate_rows[r][rate_dims[j]]) last_known[j] = std::clamp(*v / scale[j], -2.0, 2.0);
            row[share_dims + j] = last_known[j];
        }
    }
    for (size_t j = 0; j < rate_dims.size() && x.rows > 1; ++j) {
        const size_t k = share_dims + j;
        double mssd = 0;  // mean squared successive difference: 2 × noise variance
        for (size_t r = 1; r < x.rows; ++r) mssd += std::pow(x.at(r, k) - x.at(r - 1, k), 2);
        mssd /= static_cast<double>(x.rows - 1);
        double weight = mssd > 0 ? std::min(kRateWeight, std::sqrt(2 * kRateNoiseBudget / mssd)) : kRateWeight;
        for (size_t r = 0; r < x.rows; ++r) x.values[r * x.dims + k] *= weight;
    }
    return x;
}

std::vector<Phase> state_phases(const std::vector<bool>& running) {
    std::vector<Phase> phases;
    for (size_t r = 0; r < running.size(); ++r) {
        const char* label = running[r] ? "running" : "idle";
        if (!phases.empty() && phases.back().label == label) phases.back().last = r + 1;
        else phases.push_back({r, r + 1, label});
    }
    return phases;
}

std::vector<Phase> find_phases(const Dataset& d, const std::vector<TimeRow>& rows, const RateSet& rates,
                               const PhaseParams& p) {
    if (p.function.empty()) return auto_phases(row_features(d, rows, rates, p.estimator), p.min_length);
    std::vector<bool> chosen(d.functions.size(), false);
    bool any = false;
    for (size_t f = 0; f < d.functions.size(); ++f) any |= chosen[f] = names_function(d.functions[f], p.function);
    if (!any) throw std::invalid_argument("--phases=func:" + p.function + ": no function of that name in the profile");
    std::vector<bool> running;
    for (const TimeRow& r : rows) {
        uint64_t mine = 0, all = 0;
        for (uint32_t i : r.intervals)
            for (const FunctionCell& c : d.intervals[i].cells) {
                all += c.time_ns;
                if (chosen[c.function]) mine += c.time_ns;
            }
        running.push_back(all > 0 && static_cast<double>(mine) > p.threshold * static_cast<double>(all));
    }
    return state_phases(running);
}

}  // namespace sprof::analyze
