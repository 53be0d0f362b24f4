#include "miss_ratio_curve.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <span>
#include <thread>

#include <fmt/format.h>

#include "sprof/cache_sizes.hpp"
#include "sprof/profile_io.hpp"
#include "statcache.hpp"
#include "statstack.hpp"

namespace sprof::analyze {

namespace {

constexpr double kZ95 = 1.959963984540054;  // two-sided 95 % quantile of the normal distribution

// The sizes of a curve (in lines, ascending) and which of them a reuse of
// expected stack distance S misses at: those ≤ S (a sample never reused:
// all).
class SizeGrid {
public:
    explicit SizeGrid(const std::vector<uint64_t>& sizes) : size_(sizes.begin(), sizes.end()) {}
    size_t size() const { return size_.size(); }
    // How many sizes are ≤ stack, by a binary search without branches (it
    // runs for every sample of every bootstrap replicate).
    size_t missed(double stack) const {
        size_t k = 0;
        for (size_t step = std::bit_floor(size_.size()); step > 0; step >>= 1)
            if (k + step <= size_.size() && size_[k + step - 1] <= stack) k += step;
        return k;
    }

private:
    std::vector<double> size_;
};

// Adds the weight of each sample that misses to every size it misses at.
void add_lru_misses(const ReuseStream& s, std::span<const double> stack, std::span<const double> weight,
                    const SizeGrid& grid, std::vector<double>& misses) {
    std::vector<double> up_to(grid.size() + 1, 0);  // weight missing at sizes [0, k)
    for (size_t i = 0; i < s.samples.size(); ++i) {
        if (weight[i] == 0) continue;
        up_to[s.samples[i].distance == kNoReuse ? grid.size() : grid.missed(stack[i])] += weight[i];
    }
    double running = 0;
    for (size_t k = grid.size(); k-- > 0;) {
        running += up_to[k + 1];
        misses[k] += running;
    }
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
    const SizeGrid grid(sizes);
    std::vector<StackDistanceModel> models;
    std::vector<double> estimate(sizes.size(), 0);
    double total = 0;
    for (const ReuseStream& s : data.streams) {
        models.push_back(stack_model(s));
        std::vector<double> weights;
        for (const StreamSample& x : s.samples) {
            weights.push_back(x.weight);
            total += x.weight;
        }
        add_lru_misses(s, models.back().sample_expected(), weights, grid, estimate);
    }
    for (double& m : estimate) m /= total;

    // Bootstrap: every replicate draws each piece's samples anew, as many
    // as it has, with replacement (a piece's accesses are known: its weight
    // stays about the same), and weighs each draw like the sample drawn.
    // Replicate r draws from its own generator, seeded from the run's seed
    // and r, so the band is the same however the replicates are shared
    // among threads (with 200,000 samples a curve took 2.5 s on one).
    std::vector<std::vector<double>> replicates(sizes.size(), std::vector<double>(params.replicates));
    const auto run_replicates = [&](unsigned first, unsigned step) {
        std::vector<StackDistanceModel> own = models;  // reweighted per replicate
        std::vector<double> w;
        for (unsigned r = first; r < params.replicates; r += step) {
            std::mt19937_64 rng(params.seed ^ (uint64_t{r} * 0x9e3779b97f4a7c15ull));
            const auto pick = [&rng](size_t n) {  // uniform in [0, n): the top bits of a 64-bit product
                return static_cast<size_t>((static_cast<unsigned __int128>(rng()) * n) >> 64);
            };
            std::vector<double> misses(sizes.size(), 0);
            double drawn = 0;
            for (size_t si = 0; si < own.size(); ++si) {
                const ReuseStream& s = data.streams[si];
                w.assign(s.samples.size(), 0.0);
                for (size_t k = 0; k < own[si].pieces(); ++k) {
                    const std::span<const uint32_t> piece = own[si].piece_samples(k);
                    for (size_t n = 0; n < piece.size(); ++n) {
                        const uint32_t i = piece[pick(piece.size())];
                        w[i] += s.samples[i].weight;
                        drawn += s.samples[i].weight;
                    }
                }
                own[si].reweight(w);
                add_lru_misses(s, own[si].sample_expected(), w, grid, misses);
            }
            for (size_t k = 0; k < sizes.size(); ++k) replicates[k][r] = misses[k] / drawn;
        }
    };
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, std::max(params.replicates, 1u));
    std::vector<std::thread> helpers;
    for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(run_replicates, t, threads);
    run_replicates(0, threads);
    for (std::thread& t : helpers) t.join();

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

// A thread's footprint in lines, whether StatCache's cache fills
// (statcache.hpp): the weight of its samples never reused, or one more
// than the largest E[S] of its reuses if that is more.
double footprint(const ReuseStream& s) {
    const std::vector<double> stack = stack_model(s).sample_expected();
    double never = 0, widest = 0;
    for (size_t i = 0; i < s.samples.size(); ++i) {
        if (s.samples[i].distance == kNoReuse) never += s.samples[i].weight;
        else widest = std::fmax(widest, stack[i]);
    }
    return std::fmax(never, widest + 1);
}

double stream_accesses(const ReuseStream& s) {
    double a = 0;
    for (const StreamWindow& w : s.windows) a += static_cast<double>(w.accesses);
    return a;
}

MissRatioCurve sampled_random_curve(const LocalityData& data, const std::vector<uint64_t>& sizes) {
    std::vector<double> ratio(sizes.size(), 0), variance(sizes.size(), 0);
    double accesses = 0;
    for (const ReuseStream& s : data.streams) accesses += stream_accesses(s);
    for (const ReuseStream& s : data.streams) {
        const double lines = footprint(s), own = stream_accesses(s);
        const FootprintGrowth growth(s);
        for (const SolvingWindow& w : solving_windows(s)) {
            WindowReuses reuses = bucket_window(w.samples);
            const std::vector<FootprintGrowth::Span> spans = growth.spans(w.samples);
            const double share = w.accesses / accesses;
            double r = 1;  // R falls as the cache grows: each size starts from the last one's root
            for (size_t k = 0; k < sizes.size(); ++k) {
                const CacheFill cache = cache_fill(sizes[k], lines, growth, own);
                spare_cold(reuses, w.samples, spans, cache);
                r = solve_random_miss_ratio(reuses, cache, r);
                ratio[k] += share * r;
                variance[k] += share * share * random_miss_ratio_variance(reuses, cache, r);
            }
        }
    }
    MissRatioCurve curve;
    curve.band = "delta method per piece of the stream, 95 %";
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

}  // namespace

StackDistanceModel stack_model(const ReuseStream& s) { return StackDistanceModel(s); }

bool lru_misses(const StackDistanceModel& m, uint64_t distance, uint64_t position, uint64_t lines) {
    return distance == kNoReuse || m.expected(distance, position) >= static_cast<double>(lines);
}

std::vector<double> sample_miss_probabilities(const ReuseStream& s, Policy policy, uint64_t lines) {
    std::vector<double> p(s.samples.size(), 1.0);
    if (policy == Policy::lru) {
        const std::vector<double> stack = stack_model(s).sample_expected();
        for (size_t i = 0; i < p.size(); ++i)
            if (s.samples[i].distance != kNoReuse) p[i] = stack[i] >= static_cast<double>(lines) ? 1 : 0;
        return p;
    }
    const FootprintGrowth growth(s);
    const CacheFill cache = cache_fill(lines, footprint(s), growth, stream_accesses(s));
    for (const SolvingWindow& w : solving_windows(s)) {
        WindowReuses reuses = bucket_window(w.samples);
        const std::vector<FootprintGrowth::Span> spans = growth.spans(w.samples);
        spare_cold(reuses, w.samples, spans, cache);
        const double e = eviction_ratio(reuses, cache, solve_random_miss_ratio(reuses, cache));
        for (size_t j = 0; j < w.samples.size(); ++j) {
            const StreamSample& x = w.samples[j];
            if (x.distance == kNoReuse) continue;
            const double cold = cache.fills ? growth.cold_evictions(lines, spans[j]) : 0;
            p[w.index[j]] = random_miss_probability(static_cast<double>(x.distance - 1), cold, e, lines);
        }
    }
    return p;
}

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

}  // namespace sprof::analyze
