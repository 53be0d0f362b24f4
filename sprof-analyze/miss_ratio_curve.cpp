#include "miss_ratio_curve.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "sprof/cache_sizes.hpp"
#include "sprof/profile_io.hpp"
#include "statcache.hpp"
#include "statstack.hpp"

namespace sprof::analyze {

namespace {

constexpr double kZ95 = 1.959963984540054;  // two-sided 95 % quantile of the normal distribution
constexpr uint32_t kNeverReused = UINT32_MAX;

// One thread's samples for StatStack: its histogram and, per sample, the
// index of its distance in it (kNeverReused: no reuse).
struct LruStream {
    ReuseHistogram histogram;
    std::vector<uint32_t> group;
};

LruStream lru_stream(const ReuseStream& s) {
    LruStream out;
    std::vector<uint32_t> order(s.samples.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return s.samples[a].distance < s.samples[b].distance; });
    out.group.resize(s.samples.size());
    ReuseHistogram& h = out.histogram;
    for (uint32_t i : order) {
        const StreamSample& x = s.samples[i];
        if (x.distance == kNoReuse) {
            h.no_reuse += x.weight;
            out.group[i] = kNeverReused;
            continue;
        }
        if (h.distance.empty() || h.distance.back() != x.distance) {
            h.distance.push_back(x.distance);
            h.weight.push_back(0);
        }
        h.weight.back() += x.weight;
        out.group[i] = static_cast<uint32_t>(h.distance.size() - 1);
    }
    return out;
}

double total_weight(const ReuseHistogram& h) { return std::accumulate(h.weight.begin(), h.weight.end(), h.no_reuse); }

// Miss ratios of the LRU model over all streams: missing weight / weight.
std::vector<double> lru_ratios(const std::vector<ReuseHistogram>& histograms, const std::vector<uint64_t>& sizes) {
    std::vector<double> misses(sizes.size(), 0);
    double weight = 0;
    for (const ReuseHistogram& h : histograms) {
        const auto m = lru_miss_weights(h, expected_stack_distances(h), sizes);
        for (size_t k = 0; k < sizes.size(); ++k) misses[k] += m[k];
        weight += total_weight(h);
    }
    for (double& m : misses) m /= weight;
    return misses;
}

// The q-quantile of sorted values, interpolated between neighbours.
double quantile(const std::vector<double>& sorted, double q) {
    const double at = q * static_cast<double>(sorted.size() - 1);
    const size_t i = static_cast<size_t>(at);
    if (i + 1 >= sorted.size()) return sorted.back();
    return sorted[i] + (at - static_cast<double>(i)) * (sorted[i + 1] - sorted[i]);
}

MissRatioCurve sampled_lru_curve(const LocalityData& data, const std::vector<uint64_t>& sizes,
                                 const CurveParams& params) {
    std::vector<LruStream> streams;
    std::vector<ReuseHistogram> histograms;
    for (const ReuseStream& s : data.streams) {
        streams.push_back(lru_stream(s));
        histograms.push_back(streams.back().histogram);
    }
    const std::vector<double> estimate = lru_ratios(histograms, sizes);

    // Bootstrap: every replicate draws each thread's samples anew, with
    // replacement, and weighs each draw like the sample drawn.
    std::mt19937_64 rng(params.seed);
    std::vector<std::vector<double>> replicates(sizes.size());
    for (unsigned r = 0; r < params.replicates; ++r) {
        for (size_t si = 0; si < streams.size(); ++si) {
            const ReuseStream& s = data.streams[si];
            ReuseHistogram& h = histograms[si];
            std::fill(h.weight.begin(), h.weight.end(), 0.0);
            h.no_reuse = 0;
            std::uniform_int_distribution<size_t> pick(0, s.samples.size() - 1);
            for (size_t n = 0; n < s.samples.size(); ++n) {
                const size_t i = pick(rng);
                const uint32_t g = streams[si].group[i];
                (g == kNeverReused ? h.no_reuse : h.weight[g]) += s.samples[i].weight;
            }
        }
        const std::vector<double> ratios = lru_ratios(histograms, sizes);
        for (size_t k = 0; k < sizes.size(); ++k) replicates[k].push_back(ratios[k]);
    }

    MissRatioCurve curve;
    curve.band = fmt::format("bootstrap over samples, {} replicates, 95 %", params.replicates);
    for (size_t k = 0; k < sizes.size(); ++k) {
        CurvePoint p{sizes[k], estimate[k], estimate[k], estimate[k]};
        // The percentiles of a skewed statistic may both lie on one side of
        // the estimate: the band is widened to hold it.
        if (!replicates[k].empty()) {
            std::sort(replicates[k].begin(), replicates[k].end());
            p.low = std::min(p.low, quantile(replicates[k], 0.025));
            p.high = std::max(p.high, quantile(replicates[k], 0.975));
        }
        curve.points.push_back(p);
    }
    return curve;
}

MissRatioCurve sampled_random_curve(const LocalityData& data, const std::vector<uint64_t>& sizes) {
    std::vector<double> ratio(sizes.size(), 0), variance(sizes.size(), 0);
    double accesses = 0;
    for (const ReuseStream& s : data.streams)
        for (const StreamWindow& w : s.windows) accesses += static_cast<double>(w.accesses);
    for (const ReuseStream& s : data.streams)
        for (const StreamWindow& w : solving_windows(s)) {
            const WindowReuses reuses = bucket_window(s.samples_of(w));
            const double share = static_cast<double>(w.accesses) / accesses;
            double r = 1;  // R falls as the cache grows: each size starts from the last one's root
            for (size_t k = 0; k < sizes.size(); ++k) {
                r = solve_random_miss_ratio(reuses, sizes[k], r);
                ratio[k] += share * r;
                variance[k] += share * share * random_miss_ratio_variance(reuses, sizes[k], r);
            }
        }
    MissRatioCurve curve;
    curve.band = "delta method per sampling window, 95 %";
    for (size_t k = 0; k < sizes.size(); ++k) {
        const double half = kZ95 * std::sqrt(variance[k]);
        curve.points.push_back({sizes[k], ratio[k], std::fmax(0.0, ratio[k] - half), std::fmin(1.0, ratio[k] + half)});
    }
    return curve;
}

MissRatioCurve exact_curve(const LocalityData& data, Policy policy) {
    const ExactTotals& t = data.totals;
    const bool lru = policy == Policy::lru;
    const auto& lines = lru ? t.lines : t.random_lines;
    const auto& misses = lru ? t.lru_misses : t.random_misses;
    MissRatioCurve curve;
    curve.band = "exact";
    for (size_t k = 0; k < lines.size(); ++k) {
        const double r = t.accesses ? static_cast<double>(misses[k]) / static_cast<double>(t.accesses) : 0;
        curve.points.push_back({lines[k], r, r, r});
    }
    return curve;
}

// The miss probability of every sample of a stream in a cache of `lines` lines.
std::vector<double> sample_miss_probabilities(const ReuseStream& s, Policy policy, uint64_t lines) {
    std::vector<double> p(s.samples.size(), 1.0);
    if (policy == Policy::lru) {
        const StackDistanceModel model = stack_model(s);
        for (size_t i = 0; i < p.size(); ++i)
            if (const StreamSample& x = s.samples[i]; x.distance != kNoReuse)
                p[i] = model.expected(x.distance, x.position) >= static_cast<double>(lines) ? 1 : 0;
        return p;
    }
    for (const StreamWindow& w : solving_windows(s)) {
        const double r = solve_random_miss_ratio(bucket_window(s.samples_of(w)), lines);
        for (size_t i = w.first; i < w.first + w.count; ++i)
            if (s.samples[i].distance != kNoReuse)
                p[i] = random_miss_probability(static_cast<double>(s.samples[i].distance - 1), r, lines);
    }
    return p;
}

void sort_by_misses(FunctionMissTable& t) {
    std::sort(t.functions.begin(), t.functions.end(), [](const FunctionMisses& a, const FunctionMisses& b) {
        if (a.misses != b.misses) return a.misses > b.misses;
        if (a.accesses != b.accesses) return a.accesses > b.accesses;
        return a.function < b.function;
    });
}

FunctionMissTable exact_function_misses(const LocalityData& data, Policy policy, uint64_t lines) {
    const ExactTotals& t = data.totals;
    if (policy != Policy::lru)
        throw ProfileError("the exact run counted misses per function for LRU only: use --policy lru");
    auto at = std::find(t.lines.begin(), t.lines.end(), lines);
    if (at == t.lines.end())
        throw std::invalid_argument(fmt::format("the exact run counted no cache of {} lines", lines));
    const size_t k = static_cast<size_t>(at - t.lines.begin());
    FunctionMissTable out;
    out.lines = lines;
    out.accesses = static_cast<double>(t.accesses);
    out.misses = static_cast<double>(t.lru_misses[k]);
    for (const ExactFunction& f : t.functions)
        out.functions.push_back({f.function, static_cast<double>(f.accesses), static_cast<double>(f.lru_misses[k])});
    sort_by_misses(out);
    return out;
}

}  // namespace

StackDistanceModel stack_model(const ReuseStream& s) { return StackDistanceModel(lru_stream(s).histogram); }

const char* to_string(Policy p) { return p == Policy::lru ? "lru" : "random"; }

std::vector<uint64_t> curve_sizes(const LocalityData& data, Policy policy) {
    if (!data.exact) return cache_sizes_in_lines(data.line_size);
    return policy == Policy::lru ? data.totals.lines : data.totals.random_lines;
}

MissRatioCurve miss_ratio_curve(const LocalityData& data, const CurveParams& params) {
    const std::vector<uint64_t> sizes = curve_sizes(data, params.policy);
    if (data.exact) {
        if (sizes.empty())
            throw ProfileError(fmt::format("the exact run simulated no {} cache: use --policy lru",
                                           to_string(params.policy)));
        return exact_curve(data, params.policy);
    }
    return params.policy == Policy::lru ? sampled_lru_curve(data, sizes, params) : sampled_random_curve(data, sizes);
}

FunctionMissTable function_misses(const LocalityData& data, Policy policy, uint64_t lines) {
    if (data.exact) return exact_function_misses(data, policy, lines);
    FunctionMissTable out;
    out.lines = lines;
    std::unordered_map<uint32_t, size_t> at;  // function → its entry
    auto entry = [&](uint32_t f) -> FunctionMisses& {
        auto [it, added] = at.try_emplace(f, out.functions.size());
        if (added) out.functions.push_back({f, 0, 0});
        return out.functions[it->second];
    };
    for (const ReuseStream& s : data.streams) {
        const std::vector<double> p = sample_miss_probabilities(s, policy, lines);
        for (size_t i = 0; i < p.size(); ++i) {
            const StreamSample& x = s.samples[i];
            entry(x.sample_function).accesses += x.weight;
            entry(x.distance == kNoReuse ? x.sample_function : x.trigger_function).misses += x.weight * p[i];
            out.accesses += x.weight;
            out.misses += x.weight * p[i];
        }
    }
    sort_by_misses(out);
    return out;
}

}  // namespace sprof::analyze
