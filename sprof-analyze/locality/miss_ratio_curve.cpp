#include "miss_ratio_curve.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "sprof/cache_sizes.hpp"
#include "sprof/profile_io.hpp"
#include "statcache.hpp"
#include "statstack.hpp"

namespace sprof::analyze {

namespace {

constexpr double kZ95 = 1.959963984540054;  // two-sided 95 % quantile of the normal distribution

// The sizes of a curve (in lines, ascending) and how many of them a reuse
// of expected stack distance S misses at: those ≤ S (never reused, S = ∞:
// all). It answers for every sample of every bootstrap replicate, so S is
// looked up in a table by the top 16 bits of its double — the exponent and
// 4 bits of mantissa, 16 buckets per doubling. The grid has 4 sizes per
// doubling, whole lines apart, so a bucket holds at most one of them and
// one comparison finishes the count.
class SizeGrid {
public:
    explicit SizeGrid(const std::vector<uint64_t>& sizes) : sizes_(sizes.size()) {
        // Bucket 0 holds S < 1 (no size is below one line), the last S ≥ 2^64 and ∞.
        bucket_.push_back({0, kNone});
        for (uint64_t key = kOne; key < kOne + kBuckets - 2; ++key) {
            const double lo = std::bit_cast<double>(key << 48), hi = std::bit_cast<double>((key + 1) << 48);
            const auto first = std::lower_bound(sizes.begin(), sizes.end(), lo,
                                                [](uint64_t size, double x) { return static_cast<double>(size) < x; });
            const size_t base = static_cast<size_t>(first - sizes.begin());
            const size_t inside = static_cast<size_t>(std::count_if(
                first, sizes.end(), [hi](uint64_t size) { return static_cast<double>(size) < hi; }));
            if (inside > 1) throw std::logic_error("cache sizes closer than 1/16 of a doubling");
            bucket_.push_back({static_cast<uint32_t>(base), inside ? static_cast<double>(*first) : kNone});
        }
        bucket_.push_back({static_cast<uint32_t>(sizes_), kNone});
    }
    size_t size() const { return sizes_; }
    size_t missed(double stack) const {
        const int64_t key = static_cast<int64_t>(std::bit_cast<uint64_t>(stack) >> 48);
        const Bucket& b = bucket_[static_cast<size_t>(std::clamp<int64_t>(key - (kOne - 1), 0, kBuckets - 1))];
        return b.base + (stack >= b.inner);
    }

private:
    static constexpr int64_t kOne = 0x3ff0;         // the top 16 bits of 1.0
    static constexpr int64_t kBuckets = 64 * 16 + 2;  // below 1, 1 … 2^64 by sixteenths, above
    // No size inside: NaN, which no S (not even ∞) reaches.
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    struct Bucket {
        uint32_t base;  // sizes below the bucket
        double inner;   // the size inside it (NaN: none)
    };
    size_t sizes_;
    std::vector<Bucket> bucket_;
};

// The samples' effective number (Kish's): (Σ w)² / Σ w².
double effective_samples(const LocalityData& data) {
    double sum = 0, squares = 0;
    for (const ReuseStream& s : data.streams)
        for (const StreamSample& x : s.samples) {
            sum += x.weight;
            squares += x.weight * x.weight;
        }
    return squares > 0 ? sum * sum / squares : 0;
}

// Widens p to hold Wilson's 95 % score interval for a share of n samples
// (LRU: each sample misses or not). Where the share is near 0 or 1 — a data set that fits, whose few cold
// misses left no sample never reused — no replicate and no derivative sees
// any spread: the band was [0, 0] for an exact 0.0002 (a 23 KB loop, 2,000
// samples). Wilson's interval is the binomial one that holds there.
void hold_binomial_band(CurvePoint& p, double n) {
    if (n <= 0) return;
    const double z2 = kZ95 * kZ95, r = p.miss_ratio;
    const double centre = (r + z2 / (2 * n)) / (1 + z2 / n);
    const double half = kZ95 / (1 + z2 / n) * std::sqrt(r * (1 - r) / n + z2 / (4 * n * n));
    p.low = std::fmax(0.0, std::fmin(p.low, centre - half));
    p.high = std::fmin(1.0, std::fmax(p.high, centre + half));
}

// The stream as one piece: the models of the published papers (one
// distribution, one equation over the whole thread), the second opinion
// the bands hold beside the time-local ones.
ReuseStream whole_thread(const ReuseStream& s) {
    ReuseStream one = s;
    one.pieces = {0};
    one.piece_kinds = {0};
    return one;
}

// Widens p by the model's own error, taken as the distance to `other`, the
// whole thread's model, added in quadrature to each side's sampling error.
// Where the program's phases differ, the time-local model is the better one
// and its band spans both; where they agree (a program that never changes)
// the band is the sampling error's.
void add_model_error(CurvePoint& p, double other) {
    const double model = p.miss_ratio - other;
    p.low = std::fmax(0.0, p.miss_ratio - std::hypot(p.miss_ratio - p.low, model));
    p.high = std::fmin(1.0, p.miss_ratio + std::hypot(p.high - p.miss_ratio, model));
}

// Widens p to hold the binomial interval of the share of samples never
// reused (random replacement): the cold misses, which every miss ratio
// includes one for one. Where the data fits they are the whole miss ratio,
// and with no sample never reused the delta method saw no spread at all
// (a 23 KB loop: [0, 0] for an exact 0.0002).
void hold_cold_band(CurvePoint& p, double cold, double n) {
    CurvePoint share{0, cold, cold, cold};
    hold_binomial_band(share, n);
    p.low = std::fmax(0.0, std::fmin(p.low, p.miss_ratio - (cold - share.low)));
    p.high = std::fmin(1.0, std::fmax(p.high, p.miss_ratio + (share.high - cold)));
}

// Adds the weight of each sample that misses to every size it misses at
// (stack: each sample's E[S], ∞ for one never reused).
void add_lru_misses(std::span<const double> stack, std::span<const double> weight, const SizeGrid& grid,
                    std::vector<double>& misses) {
    // Weight missing at sizes [0, k), in four interleaved sums: neighbouring
    // samples mostly miss at the same sizes, and one sum made each add wait
    // for the last (the add was two fifths of this loop's time).
    constexpr size_t kLanes = 4;
    const size_t buckets = grid.size() + 1;
    std::vector<double> up_to(kLanes * buckets, 0);
    // No test for a zero weight (a third of a replicate's samples): adding
    // nothing is cheaper than a branch that goes either way.
    for (size_t i = 0; i < stack.size(); ++i) up_to[(i % kLanes) * buckets + grid.missed(stack[i])] += weight[i];
    double running = 0;
    for (size_t k = grid.size(); k-- > 0;) {
        for (size_t lane = 0; lane < kLanes; ++lane) running += up_to[lane * buckets + k + 1];
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
    std::vector<double> estimate(sizes.size(), 0), whole(sizes.size(), 0);
    double total = 0;
    for (const ReuseStream& s : data.streams) {
        models.push_back(stack_model(s));
        std::vector<double> weights;
        for (const StreamSample& x : s.samples) {
            weights.push_back(x.weight);
            total += x.weight;
        }
        add_lru_misses(models.back().sample_expected(), weights, grid, estimate);
        add_lru_misses(stack_model(whole_thread(s)).sample_expected(), weights, grid, whole);
    }
    for (double& m : estimate) m /= total;
    for (double& m : whole) m /= total;

    // Bootstrap: every replicate draws each kind's samples anew (the
    // pooled samples of its pieces, reuse_pieces.hpp), as many as it has,
    // with replacement (a kind's accesses are known: its weight stays about
    // the same), and weighs each draw like the sample drawn.
    // Replicate r draws from its own generator, seeded from the run's seed
    // and r, so the band is the same however the replicates are shared
    // among threads (with 200,000 samples a curve took 2.5 s on one).
    // A draw lands on a random sample of its kind: the kind's weights are
    // laid out in the kind's order and draws are counted there, so a draw
    // touches one small array instead of the stream's samples (with 140,000
    // samples the scattered reads were two thirds of the bootstrap's time).
    std::vector<std::vector<std::vector<double>>> kind_weights(models.size());
    for (size_t si = 0; si < models.size(); ++si)
        for (size_t k = 0; k < models[si].kinds(); ++k) {
            std::vector<double>& kw = kind_weights[si].emplace_back();
            for (const uint32_t i : models[si].kind_samples(k)) kw.push_back(data.streams[si].samples[i].weight);
        }
    std::vector<std::vector<double>> replicates(sizes.size(), std::vector<double>(params.replicates));
    const auto run_replicates = [&](unsigned first, unsigned step) {
        std::vector<StackDistanceModel> own = models;  // reweighted per replicate
        std::vector<double> w, stack;
        std::vector<uint32_t> draws;  // per sample of a piece, in the piece's order
        std::vector<double> drawn_weight;  // the same: draws × the sample's weight
        for (unsigned r = first; r < params.replicates; r += step) {
            std::mt19937_64 rng(params.seed ^ (uint64_t{r} * 0x9e3779b97f4a7c15ull));
            // Each 64-bit number gives two draws uniform in [0, n), the top
            // bits of 32-bit products (n < 2^32; the bias, below n / 2^32,
            // is under 10^-3 with 4 million samples in a piece).
            const auto draw = [&rng](std::vector<uint32_t>& count) {
                const uint64_t n = count.size();
                for (uint64_t left = n; left > 0; left -= left > 1 ? 2 : 1) {
                    const uint64_t x = rng();
                    ++count[((x & 0xffffffffu) * n) >> 32];
                    if (left > 1) ++count[((x >> 32) * n) >> 32];
                }
            };
            std::vector<double> misses(sizes.size(), 0);
            double drawn = 0;
            for (size_t si = 0; si < own.size(); ++si) {
                const ReuseStream& s = data.streams[si];
                w.resize(s.samples.size());  // every sample lies in a piece: all are set below
                for (size_t k = 0; k < own[si].kinds(); ++k) {
                    const std::span<const uint32_t> kind = own[si].kind_samples(k);
                    const std::vector<double>& kw = kind_weights[si][k];
                    draws.assign(kind.size(), 0);
                    draw(draws);
                    drawn_weight.resize(kind.size());
                    // Summed apart from `drawn`, which lived in memory here: every
                    // draw waited on the last one's store (half the loop's time).
                    double kind_drawn = 0;
                    for (size_t j = 0; j < kind.size(); ++j) {
                        drawn_weight[j] = draws[j] * kw[j];
                        w[kind[j]] = drawn_weight[j];
                        kind_drawn += drawn_weight[j];
                    }
                    drawn += kind_drawn;
                    own[si].reweight_kind(k, drawn_weight);
                }
                own[si].sample_expected(stack);
                add_lru_misses(stack, w, grid, misses);
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
    curve.band = fmt::format("bootstrap over samples, {} replicates, and the whole thread's conversion, 95 %",
                             params.replicates);
    for (size_t k = 0; k < sizes.size(); ++k) {
        CurvePoint p{sizes[k], estimate[k], estimate[k], estimate[k]};
        // The percentiles of a skewed statistic may both lie on one side of
        // the estimate: the band is widened to hold it.
        if (!replicates[k].empty()) {
            std::sort(replicates[k].begin(), replicates[k].end());
            p.low = std::min(p.low, quantile(replicates[k], 0.025));
            p.high = std::max(p.high, quantile(replicates[k], 0.975));
        }
        add_model_error(p, whole[k]);
        hold_binomial_band(p, effective_samples(data));
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

// A thread's solving windows bucketed for the equation, and the accesses each stands for.
struct RandomInput {
    std::vector<WindowReuses> windows;
    std::vector<double> accesses;
};

RandomInput random_input(const ReuseStream& s, const FootprintGrowth& growth) {
    RandomInput in;
    const SpanKinds spans(s);
    const std::vector<SolvingWindow> solving = solving_windows(s);
    for (size_t k = 0; k < solving.size(); ++k) {
        in.windows.push_back(bucket_window(solving[k].samples, static_cast<uint32_t>(k), spans, growth));
        in.accesses.push_back(solving[k].accesses);
    }
    return in;
}

MissRatioCurve sampled_random_curve(const LocalityData& data, const std::vector<uint64_t>& sizes) {
    std::vector<double> ratio(sizes.size(), 0), variance(sizes.size(), 0), whole(sizes.size(), 0);
    double accesses = 0;
    for (const ReuseStream& s : data.streams) accesses += stream_accesses(s);
    for (const ReuseStream& s : data.streams) {
        const double lines = footprint(s), own = stream_accesses(s);
        const FootprintGrowth growth(s);
        RandomInput in = random_input(s, growth);
        RandomInput all = random_input(whole_thread(s), growth);  // StatCache's single equation
        // R falls as the cache grows: each size starts from the last one's
        RandomSolution solution, whole_solution;
        for (size_t k = 0; k < sizes.size(); ++k) {
            const CacheFill cache = cache_fill(sizes[k], lines, growth, own);
            for (WindowReuses& w : in.windows) spare_cold(w, cache);
            solve_random_miss_ratios(in.windows, cache, solution);
            // Without positions the windows are sampling windows either way: no second model.
            for (WindowReuses& w : all.windows) spare_cold(w, cache);
            solve_random_miss_ratios(all.windows, cache, whole_solution);
            for (size_t j = 0; j < all.windows.size(); ++j)
                whole[k] += all.accesses[j] / accesses * whole_solution.miss_ratio[j];
            for (size_t j = 0; j < in.windows.size(); ++j) {
                const double share = in.accesses[j] / accesses;
                ratio[k] += share * solution.miss_ratio[j];
                variance[k] += share * share * random_miss_ratio_variance(in.windows, j, cache, solution);
            }
        }
    }
    MissRatioCurve curve;
    curve.band = "delta method per kind of piece of the stream and the whole run's equation, 95 %";
    double cold = 0, all = 0;
    for (const ReuseStream& s : data.streams)
        for (const StreamSample& x : s.samples) {
            all += x.weight;
            if (x.distance == kNoReuse) cold += x.weight;
        }
    const double n = effective_samples(data);
    for (size_t k = 0; k < sizes.size(); ++k) {
        const double half = kZ95 * std::sqrt(variance[k]);
        CurvePoint p{sizes[k], ratio[k], std::fmax(0.0, ratio[k] - half), std::fmin(1.0, ratio[k] + half)};
        add_model_error(p, whole[k]);
        if (all > 0) hold_cold_band(p, cold / all, n);
        curve.points.push_back(p);
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
        // A sample never reused has E[S] = ∞: it misses like the rest.
        const std::vector<double> stack = stack_model(s).sample_expected();
        for (size_t i = 0; i < p.size(); ++i) p[i] = stack[i] >= static_cast<double>(lines) ? 1 : 0;
        return p;
    }
    const FootprintGrowth growth(s);
    const CacheFill cache = cache_fill(lines, footprint(s), growth, stream_accesses(s));
    RandomInput in = random_input(s, growth);
    for (WindowReuses& w : in.windows) spare_cold(w, cache);
    RandomSolution solution;
    solve_random_miss_ratios(in.windows, cache, solution);
    const SpanKinds spans(s);
    std::vector<SpanPart> parts;
    const std::vector<SolvingWindow> solving = solving_windows(s);
    for (size_t k = 0; k < solving.size(); ++k) {
        const SolvingWindow& w = solving[k];
        for (size_t j = 0; j < w.samples.size(); ++j) {
            const StreamSample& x = w.samples[j];
            if (x.distance == kNoReuse) continue;
            const double cold = cache.fills ? growth.cold_evictions(lines, x.position, x.distance) : 0;
            parts.clear();
            spans.parts(x.position, x.distance, static_cast<uint32_t>(k), parts);
            p[w.index[j]] = random_miss_probability(parts, cold, solution.eviction, lines);
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
