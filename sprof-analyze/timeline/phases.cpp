#include "phases.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sprof/estimator.hpp"  // lost_tick_ns

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
// Two phases that differ by less than this are never told apart: a tenth of
// the time moving from one function to another (2 × 0.1², see
// difference_that_matters), or rates as far apart.
constexpr double kMinDistinct = 0.02;
// Penalty per segment in units of noise variance × ln(rows) (BIC-like).
constexpr double kPenaltyPerNoise = 3.0;

double squared_distance(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
    return s;
}

double weight_of(const Features& x, size_t first, size_t last) {
    double w = 0;
    for (size_t r = first; r < last; ++r) w += x.weight(r);
    return w;
}

// The weighted mean of rows [first, last).
std::vector<double> mean_of(const Features& x, size_t first, size_t last) {
    std::vector<double> m(x.dims, 0.0);
    for (size_t r = first; r < last; ++r)
        for (size_t k = 0; k < x.dims; ++k) m[k] += x.weight(r) * x.at(r, k);
    const double w = weight_of(x, first, last);
    if (w > 0)
        for (double& v : m) v /= w;
    return m;
}

// Noise variance of a full row (summed over dimensions) from the steps
// between neighbours: a step between rows of weights a and b has a variance
// of (1/a + 1/b) × that, so 2× for full rows. Steps across the given segment
// starts are left out (they are the segments' differences, not noise), and
// so is the largest tenth of the rest (the change points among them, while
// the segments are not known yet). A median would underestimate the
// few-dimensional, skewed noise of sampled shares.
double noise_variance(const Features& x, const std::vector<size_t>& starts = {}) {
    if (x.rows < 2) return 0;
    std::vector<double> steps;
    for (size_t r = 1; r < x.rows; ++r) {
        const double a = x.weight(r - 1), b = x.weight(r);
        if (a <= 0 || b <= 0) continue;  // a row without time tells nothing of the noise
        if (std::binary_search(starts.begin(), starts.end(), r)) continue;
        double s = 0;
        for (size_t k = 0; k < x.dims; ++k) s += std::pow(x.at(r, k) - x.at(r - 1, k), 2);
        steps.push_back(s / (1 / a + 1 / b) * 2);
    }
    if (steps.empty()) return 0;
    std::sort(steps.begin(), steps.end());
    const size_t kept = std::max<size_t>(1, steps.size() * 9 / 10);
    double sum = 0;
    for (size_t i = 0; i < kept; ++i) sum += steps[i];
    return sum / static_cast<double>(kept) / 2;
}

// Each row's weight: its samples (or time) against a full row's, the median
// (rows of H ticks, or of fixed length, are nearly all alike), at most 1. A row's
// shares are the shares of its samples, so their noise goes with the number
// of samples, not with the time they stand for. The last row of a run holds
// what was left when the program ended — a few samples, in its exit path —
// and, as a full row, its noise alone split the last phase in two. And in a
// user-space-only profile a wait spent in system calls keeps a sample or
// two of its 25 ticks (the kernel drops the rest): an MPI barrier's rows of
// one polling function each, then of another, were a full row's evidence
// each and split the wait into two phases.
std::vector<double> row_weights(const std::vector<uint64_t>& row_amounts) {
    std::vector<uint64_t> sorted;
    for (uint64_t n : row_amounts)
        if (n > 0) sorted.push_back(n);
    if (sorted.empty()) return std::vector<double>(row_amounts.size(), 1.0);
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    const double full = static_cast<double>(sorted[sorted.size() / 2]);
    std::vector<double> w;
    w.reserve(row_amounts.size());
    for (uint64_t n : row_amounts) w.push_back(std::min(1.0, static_cast<double>(n) / full));
    return w;
}

}  // namespace

std::vector<size_t> segment(const Features& x, double penalty) {
    const size_t n = x.rows, dims = x.dims;
    // No dimension: every cost is 0 and no boundary pays its penalty (and
    // PELT would prune nothing: rows² steps).
    if (n < 2 || dims == 0) return {};
    // Prefix sums: the cost of rows [a, b) with weights w is
    // Σw|x|² − |Σwx|²/Σw, the weighted sum of squares around their weighted mean.
    std::vector<double> sum((n + 1) * dims, 0.0), sumsq(n + 1, 0.0), weight(n + 1, 0.0);
    for (size_t r = 0; r < n; ++r) {
        const double w = x.weight(r);
        double q = 0;
        for (size_t k = 0; k < dims; ++k) {
            double v = x.at(r, k);
            sum[(r + 1) * dims + k] = sum[r * dims + k] + w * v;
            q += v * v;
        }
        sumsq[r + 1] = sumsq[r] + w * q;
        weight[r + 1] = weight[r] + w;
    }
    auto cost = [&](size_t a, size_t b) {
        const double w = weight[b] - weight[a];
        if (w <= 0) return 0.0;  // rows without time
        double s = 0;
        for (size_t k = 0; k < dims; ++k) {
            double t = sum[b * dims + k] - sum[a * dims + k];
            s += t * t;
        }
        return sumsq[b] - sumsq[a] - s / w;
    };
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> best(n + 1, inf);
    std::vector<size_t> previous(n + 1, 0);
    best[0] = -penalty;
    std::vector<size_t> candidates;
    std::vector<double> value;
    for (size_t s = 1; s <= n; ++s) {
        candidates.push_back(s - 1);
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
// segment's weighted sum of squares over rows is its rows' spread within
// their blocks (the same for every segmentation) plus that of the blocks'
// weighted means, each weighing its rows' total weight: the block means are
// segmented with the same penalty.
std::vector<size_t> bounded_segment(const Features& x, double penalty) {
    if (x.rows <= kMaxSegmentRows) return segment(x, penalty);
    const size_t block = (x.rows + kMaxSegmentRows - 1) / kMaxSegmentRows;
    Features means;
    means.rows = (x.rows + block - 1) / block;
    means.dims = x.dims;
    means.values.reserve(means.rows * means.dims);
    for (size_t b = 0; b < means.rows; ++b) {
        const size_t first = b * block, last = std::min(x.rows, first + block);
        const auto m = mean_of(x, first, last);
        means.values.insert(means.values.end(), m.begin(), m.end());
        means.weights.push_back(weight_of(x, first, last));
    }
    std::vector<size_t> bounds = segment(means, penalty);
    for (size_t& b : bounds) b *= block;
    return bounds;
}

}  // namespace

std::string phase_label(size_t k) {
    std::string s;
    for (++k; k > 0; k = (k - 1) / 26) s.insert(s.begin(), static_cast<char>('A' + (k - 1) % 26));
    return s;
}

namespace {

// Rows fewer than a phase are no phase: a segment shorter than the minimum
// phase length joins a neighbour — of all such joins, the one that adds
// least within-phase deviation first (Ward's criterion: weights a, b and
// means that lie d² apart add ab/(a+b)·d²). Segments of any length are found
// first and joined after: a minimum length inside the segmentation moved a
// boundary next to a short segment — a run's last fill row, 22 % of its time
// in the kernel's page faults (on a busy machine), then a 45 ms barrier wait
// and the exit, less than a row together, had to be a segment of three rows:
// the odd row went with the wait and ended fill's phase an interval early.
// Cheapest first, not shortest first: a row half compute, half fill, then
// two fill rows with 12 and 28 % of their time in the kernel were segments
// of 1 and 2 rows, and the one row, joined first to the two, made them a
// phase.
std::vector<size_t> merge_short_segments(const Features& x, std::vector<size_t> starts, size_t min_length) {
    const auto added_deviation = [&](size_t i, size_t j) {  // segments i and j as one
        const double a = weight_of(x, starts[i], starts[i + 1]), b = weight_of(x, starts[j], starts[j + 1]);
        if (a <= 0 || b <= 0) return 0.0;  // rows without time
        return a * b / (a + b) * squared_distance(mean_of(x, starts[i], starts[i + 1]), mean_of(x, starts[j], starts[j + 1]));
    };
    while (starts.size() > 2) {
        double cheapest = std::numeric_limits<double>::infinity();
        size_t removed = 0;  // the boundary between the two joined
        for (size_t i = 0; i + 1 < starts.size(); ++i) {
            if (starts[i + 1] - starts[i] >= min_length) continue;
            if (i > 0)
                if (const double d = added_deviation(i, i - 1); d < cheapest) cheapest = d, removed = i;
            if (i + 2 < starts.size())
                if (const double d = added_deviation(i, i + 1); d < cheapest) cheapest = d, removed = i + 1;
        }
        if (removed == 0) break;
        starts.erase(starts.begin() + static_cast<std::ptrdiff_t>(removed));
    }
    return starts;
}

// A kind of phase: the weighted mean of the rows that establish it, the
// mean of their untransformed function shares (Features::shares), and their
// weight.
struct Kind {
    std::vector<double> mean;
    std::vector<double> shares;
    double weight;  // in full rows
};

// The weighted mean of the given rows as a kind.
template <typename Rows>
Kind kind_of_rows(const Features& x, const Rows& rows) {
    Kind k{std::vector<double>(x.dims, 0.0), std::vector<double>(x.share_dims, 0.0), 0.0};
    for (const size_t r : rows) {
        const double w = x.weight(r);
        for (size_t j = 0; j < x.dims; ++j) k.mean[j] += w * x.at(r, j);
        for (size_t j = 0; j < x.share_dims; ++j) k.shares[j] += w * x.share(r, j);
        k.weight += w;
    }
    if (k.weight > 0) {
        for (double& v : k.mean) v /= k.weight;
        for (double& v : k.shares) v /= k.weight;
    }
    return k;
}

// How much two kinds differ where it matters to a reader: twice the square
// of the share of time that moved between functions (half the shares' L1
// distance) plus the squared distance of the other dimensions (rates).
// Significance is judged on the transformed shares, whose noise is alike
// at every share; whether a difference matters is not: under asin √p a
// function at 4 % of the time against 0.5 % is as far apart as one at 45 %
// against 55 %, and a fill loop's clock_gettime calls, 1 or 2 of 25 samples
// a row while the machine was busy and none after, made fill two phases.
double difference_that_matters(const Features& x, const Kind& a, const Kind& b) {
    double moved = 0;
    for (size_t j = 0; j < x.share_dims; ++j) moved += std::abs(a.shares[j] - b.shares[j]) / 2;
    double rest = 0;
    for (size_t j = x.share_dims; j < x.dims; ++j) rest += std::pow(a.mean[j] - b.mean[j], 2);
    return 2 * moved * moved + rest;
}

double squared_distance(const Features& x, size_t r, const std::vector<double>& m) {
    double d = 0;
    for (size_t j = 0; j < x.dims; ++j) d += std::pow(x.at(r, j) - m[j], 2);
    return d;
}

// Rows [first, last) without up to `drop` of the rows farthest from
// `target`, as long as those kept hold half a row's weight (or all the
// segment has): a kept row a tenth of an interval long — the exit at a
// run's end — would be evidence of nothing, and any kind would be within
// its noise. Half, not a whole row: a row shorter than the median row
// weighs a little under 1 (half of all full rows do), and alone it is a
// full row's evidence.
constexpr double kEvidenceWeight = 0.5;

Kind without_farthest(const Features& x, size_t first, size_t last, size_t drop, const std::vector<double>& target) {
    std::vector<std::pair<double, size_t>> by_distance;
    for (size_t r = first; r < last; ++r) by_distance.push_back({squared_distance(x, r, target), r});
    std::sort(by_distance.begin(), by_distance.end());
    const double enough = std::min(kEvidenceWeight, weight_of(x, first, last));
    double kept_weight = weight_of(x, first, last);
    size_t kept = by_distance.size();
    while (kept > 1 && by_distance.size() - kept < drop && kept_weight - x.weight(by_distance[kept - 1].second) >= enough)
        kept_weight -= x.weight(by_distance[--kept].second);
    std::vector<size_t> rows;
    for (size_t i = 0; i < kept; ++i) rows.push_back(by_distance[i].second);
    return kind_of_rows(x, rows);
}

// The kind a segment establishes: its mean without its min_length − 1 rows
// least like the rest, dropped one by one. A segment as long as the minimum
// phase length, or a little longer, can still differ from the phase next to
// it by a row or two unlike their neighbours — the program's start-up in the
// first interval, its exit in the last, a row half in each of two phases at
// their boundary (a first segment whose first row is half start-up is the
// kind of its other rows).
Kind kind_of(const Features& x, size_t first, size_t last, size_t min_length) {
    std::vector<size_t> rows(last - first);
    for (size_t r = first; r < last; ++r) rows[r - first] = r;
    Kind k = kind_of_rows(x, rows);
    for (size_t n = 1; n < min_length && n < last - first; ++n) k = without_farthest(x, first, last, n, k.mean);
    return k;
}

}  // namespace

std::vector<Phase> auto_phases(const Features& x, size_t min_length) {
    if (x.rows == 0) return {};
    min_length = std::max<size_t>(min_length, 1);
    const double floor_penalty = kMinDistinct * static_cast<double>(min_length) / 2;
    const auto penalty_for = [&](double noise) {
        return std::max(floor_penalty, kPenaltyPerNoise * noise * std::log(static_cast<double>(x.rows)));
    };
    const double penalty = penalty_for(noise_variance(x));
    std::vector<size_t> starts{0};
    for (size_t b : bounded_segment(x, penalty)) starts.push_back(b);
    starts.push_back(x.rows);
    starts = merge_short_segments(x, std::move(starts), min_length);

    // A segment gets the label of an earlier kind of phase when a boundary
    // between the two would not pay for itself (their difference is within
    // the noise for their lengths), or when they differ too little to matter
    // (difference_that_matters). The noise is judged once the segments are
    // known: from the steps within them, not across their boundaries (the
    // largest tenth of all steps, left out before, holds only some of the
    // change points: in a python3 run of six parts, 37 steps, the rest
    // raised the noise by 10–25 %, and python3's string work and sorting,
    // found as segments, got one label in 6 runs of 72, quiet and beside two
    // busy loops; 1 since). A kind still weighs the rows it keeps: judged on the whole
    // segment's weight, a run's last 2.5 rows (the end of an MPI rank's fill
    // and its barrier) became a kind of their own.
    const double label_penalty = penalty_for(noise_variance(x, starts));
    std::vector<Phase> phases;
    std::vector<Kind> kinds;
    for (size_t i = 0; i + 1 < starts.size(); ++i) {
        size_t label = kinds.size();
        double nearest = std::numeric_limits<double>::infinity();
        // The segment as a kind of its own: its mean without its rows least
        // like the rest (see Kind). Where the kernel dropped ticks, the
        // segment but for the rows least like each kind: a compute phase's
        // rows whose dropped share moved with the machine's load are then
        // still compute. Not with shares of samples: dropping the rows least
        // like the kind draws every segment towards it, and python3's sorting
        // took the label of the string work just before it (2 runs in 20).
        const Kind own = kind_of(x, starts[i], starts[i + 1], min_length);
        for (size_t l = 0; l < kinds.size(); ++l) {
            const Kind k = x.sampled_shares ? own
                                            : without_farthest(x, starts[i], starts[i + 1], min_length - 1, kinds[l].mean);
            if (k.weight <= 0) continue;  // rows without time
            const double dist = squared_distance(k.mean, kinds[l].mean);
            const double noise = label_penalty * (1 / k.weight + 1 / kinds[l].weight);
            const bool same = dist < noise || difference_that_matters(x, k, kinds[l]) < kMinDistinct;
            if (same && dist < nearest) nearest = dist, label = l;
        }
        if (label == kinds.size()) kinds.push_back(kind_of(x, starts[i], starts[i + 1], min_length));
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
    // In a user-space-only profile the kernel drops the ticks that land in
    // kernel mode, and the collector gives their time back to the functions
    // around them. A row's shares are of what was sampled — a function's
    // samples × the tick at most — and the dropped rest is a dimension of its
    // own: a wait in system calls is 95 % dropped time whichever function
    // its one sample a row falls in, and one phase. The dropped share is a
    // rate of the row — kernel seconds per second — and weighs as rates do:
    // it moves with the machine's load as well as with the program (a
    // rank's compute spent 8–16 % of its time in the kernel while five
    // tasks shared two CPUs, 0–8 % after; as a function's share, the two
    // were phases of their own).
    const bool any_dropped =
        std::any_of(d.sources.begin(), d.sources.end(), [](const Source& s) { return sprof::lost_tick_ns(s.profile.header) > 0; });
    const size_t fn_dims = n_fn + (order.size() > n_fn ? 1 : 0);
    const size_t dropped_dim = fn_dims;  // when any_dropped
    const size_t share_dims = fn_dims + (any_dropped ? 1 : 0);

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
    x.sampled_shares = !any_dropped;
    x.dims = share_dims + rate_dims.size();
    x.share_dims = fn_dims;
    x.values.assign(x.rows * x.dims, 0.0);
    std::vector<uint64_t> row_samples(rows.size(), 0), row_times(rows.size(), 0);
    std::vector<double> last_known(rate_dims.size(), 0.0);
    for (size_t r = 0; r < rows.size(); ++r) {
        double* row = x.values.data() + r * x.dims;  // no dimension at all: no values, no element to index
        uint64_t row_time = 0;
        for (uint32_t i : rows[r].intervals) {
            const uint64_t tick = lost_tick_ns(d, i);
            for (const FunctionCell& c : d.intervals[i].cells) {
                const uint64_t sampled = tick ? std::min(c.time_ns, c.samples * tick) : c.time_ns;
                // A function with no time overall has no dimension; without an
                // "other" dimension its index would be one past the shares.
                if (dim_of[c.function] < fn_dims) row[dim_of[c.function]] += static_cast<double>(sampled);
                if (any_dropped) row[dropped_dim] += static_cast<double>(c.time_ns - sampled);
                row_time += c.time_ns;
                row_samples[r] += c.samples;
                row_times[r] += c.time_ns;
            }
        }
        for (size_t k = 0; k < share_dims; ++k) row[k] = row_time ? row[k] / static_cast<double>(row_time) : 0;
        x.shares.insert(x.shares.end(), row, row + fn_dims);
        // A share of n samples varies by p(1 − p)/n: a big share's noise
        // would drown a small function's real change (python3's stripped
        // interpreter holds half of every row in one "[unknown]" share, and
        // string work and sorting differ in functions of 5–15 %: they were
        // one phase in most runs). asin √p varies by 1/(4n) whatever p is, so
        // each function's change counts by its significance (the
        // variance-stabilising transform of a binomial share). Not where the
        // kernel drops ticks: a share is then also the time given back to
        // the function, which moves with the machine's load, not as a
        // binomial share (steep near 1, the transform made a compute phase
        // with 0–4 of 25 ticks dropped two phases).
        if (x.sampled_shares)
            for (size_t k = 0; k < fn_dims; ++k) row[k] = std::asin(std::sqrt(row[k]));
        if (any_dropped) row[dropped_dim] *= kRateWeight;
        for (size_t j = 0; j < rate_dims.size(); ++j) {
            // An unknown rate keeps its last value: no information, no change.
            if (const auto& v = rate_rows[r][rate_dims[j]]) last_known[j] = std::clamp(*v / scale[j], -2.0, 2.0);
            row[share_dims + j] = last_known[j];
        }
    }
    // A row weighs its samples, and no more than its time: a row of 50
    // ticks that stand for 1 ms (sprof_pt's ticks bunched on a busy machine)
    // is as much evidence as the 1 ms they sampled, not as a full row's.
    x.weights = row_weights(row_samples);
    const auto time_weights = row_weights(row_times);
    for (size_t r = 0; r < x.rows; ++r) x.weights[r] = std::min(x.weights[r], time_weights[r]);
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
