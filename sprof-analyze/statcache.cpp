#include "statcache.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace sprof::analyze {

namespace {

constexpr uint64_t kExactBelow = 256;             // accesses in between counted exactly below this
constexpr int kBucketBits = 5;                    // 2^5 = 32 buckets per doubling above it
constexpr int kExactBits = std::bit_width(kExactBelow) - 1;
constexpr double kTolerance = 1e-12;              // of R: far below any sampling error
constexpr int kMaxIterations = 200;               // Newton converges in a handful; 0 as root converges linearly

uint64_t bucket_of(uint64_t between) {
    if (between < kExactBelow) return between;
    const int exponent = std::bit_width(between) - 1;
    const uint64_t mantissa = (between >> (exponent - kBucketBits)) & ((uint64_t{1} << kBucketBits) - 1);
    return kExactBelow + (static_cast<uint64_t>(exponent - kExactBits) << kBucketBits) + mantissa;
}

// log(1 − 1/L): a replacement spares a given line with probability 1 − 1/L.
double log_spare(uint64_t lines) {
    return lines <= 1 ? -std::numeric_limits<double>::infinity() : std::log1p(-1.0 / static_cast<double>(lines));
}

// (1 − 1/L)^n: the line survives n replacements.
double spared(double n, double log_q) { return n > 0 ? std::exp(n * log_q) : 1.0; }

struct Equation {
    double g = 0;      // the mean miss probability of the samples at E
    double slope = 0;  // g'(E)
};

Equation evaluate(const WindowReuses& w, double eviction_ratio, double log_q) {
    double sum = w.no_reuse, slope = 0;
    const bool one_line = std::isinf(log_q);  // g is a step at R = 0: slope 0 above it
    for (size_t b = 0; b < w.between.size(); ++b) {
        const double s = spared(eviction_ratio * w.between[b], log_q);
        sum += w.weight[b] - w.spared[b] * s;
        if (!one_line) slope -= w.spared[b] * w.between[b] * log_q * s;
    }
    return {sum / w.total, slope / w.total};
}

// c + φ: the share of accesses whose misses are no part of E, in window w.
double not_evicting(const WindowReuses& w, const CacheFill& cache) { return w.no_reuse / w.total + cache.fill; }

// The position `distance` accesses after `position`, saturated (a hostile profile).
uint64_t after(uint64_t position, uint64_t distance) {
    return distance > std::numeric_limits<uint64_t>::max() - position ? std::numeric_limits<uint64_t>::max()
                                                                      : position + distance;
}

}  // namespace

WindowReuses bucket_window(std::span<const StreamSample> samples, const FootprintGrowth& growth) {
    struct Keyed {
        uint64_t key, between;
        const StreamSample* sample;
    };
    std::vector<Keyed> reused;
    WindowReuses w;
    for (const StreamSample& s : samples) {
        ++w.samples;
        w.total += s.weight;
        if (s.distance == kNoReuse) {
            w.no_reuse += s.weight;
            w.no_reuse2 += s.weight * s.weight;
        } else {
            reused.push_back({bucket_of(s.distance - 1), s.distance - 1, &s});
        }
    }
    std::sort(reused.begin(), reused.end(), [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
    for (size_t i = 0; i < reused.size(); ++i) {
        if (i == 0 || reused[i].key != reused[i - 1].key) {
            w.between.push_back(0);
            w.weight.push_back(0);
            w.weight2.push_back(0);
        }
        const StreamSample& x = *reused[i].sample;
        w.between.back() += x.weight * static_cast<double>(reused[i].between);  // a sum until the end
        w.weight.back() += x.weight;
        w.weight2.back() += x.weight * x.weight;
        w.pairs.push_back({static_cast<uint32_t>(w.between.size() - 1), x.weight, growth.span(x.position, x.distance)});
    }
    for (size_t b = 0; b < w.between.size(); ++b) w.between[b] /= w.weight[b];
    w.spared = w.weight;
    return w;
}

void spare_cold(WindowReuses& w, const CacheFill& cache) {
    w.spared = w.weight;
    if (!cache.fills || !cache.growth) return;
    const double log_q = log_spare(cache.lines);
    for (const WindowReuses::Pair& pair : w.pairs) {
        const double c = cache.growth->cold_evictions(cache.lines, pair.span);
        if (c > 0) w.spared[pair.bucket] -= pair.weight * (1 - spared(c, log_q));
    }
}

FootprintGrowth::FootprintGrowth(const ReuseStream& s) {
    for (const StreamWindow& w : s.windows) accesses_ += static_cast<double>(w.accesses);
    timed_ = s.positioned();
    // The estimate of F changes by +w at a sample and by −w at its trigger,
    // where its access stops being the last one to its line.
    std::vector<std::pair<uint64_t, double>> changes;
    for (const StreamSample& x : s.samples) {
        if (x.distance == kNoReuse) cold_ += x.weight;
        if (!timed_) continue;
        changes.emplace_back(x.position, x.weight);
        if (x.distance != kNoReuse) changes.emplace_back(after(x.position, x.distance), -x.weight);
    }
    if (!timed_) return;
    std::sort(changes.begin(), changes.end());
    const double end = std::fmax(accesses_, static_cast<double>(changes.back().first));
    // Pool adjacent violators: blocks of steps, each holding the mean of its
    // steps weighted by their accesses, until the blocks' means ascend.
    struct Block {
        uint64_t from;
        double sum, accesses;  // Σ value · accesses, Σ accesses
        double mean() const { return sum / accesses; }
    };
    std::vector<Block> blocks;
    double estimate = 0;
    for (size_t i = 0; i < changes.size();) {
        const uint64_t from = changes[i].first;
        for (; i < changes.size() && changes[i].first == from; ++i) estimate += changes[i].second;
        const double to = i < changes.size() ? static_cast<double>(changes[i].first) : end + 1;
        Block b{from, estimate * (to - static_cast<double>(from)), to - static_cast<double>(from)};
        while (!blocks.empty() && blocks.back().mean() > b.mean()) {
            b = {blocks.back().from, blocks.back().sum + b.sum, blocks.back().accesses + b.accesses};
            blocks.pop_back();
        }
        blocks.push_back(b);
    }
    for (const Block& b : blocks) {
        from_.push_back(b.from);
        value_.push_back(std::fmin(b.mean(), cold_));
    }
}

double FootprintGrowth::at(uint64_t access) const {
    const auto step = std::upper_bound(from_.begin(), from_.end(), access);
    return step == from_.begin() ? 0 : value_[static_cast<size_t>(step - from_.begin()) - 1];
}

FootprintGrowth::Span FootprintGrowth::span(uint64_t position, uint64_t distance) const {
    if (distance <= 1 || distance == kNoReuse) return {};
    if (!timed_) return {0, accesses_ > 0 ? static_cast<double>(distance - 1) / accesses_ : 0};
    return {at(position), at(after(position, distance - 1))};
}

double FootprintGrowth::cold_evictions(uint64_t lines, const Span& s) const {
    const double l = static_cast<double>(lines);
    if (cold_ <= l) return 0;
    if (!timed_) return (cold_ - l) * s.to;
    return std::fmax(s.to - l, 0.0) - std::fmax(s.from - l, 0.0);
}

std::vector<SolvingWindow> solving_windows(const ReuseStream& s) {
    std::vector<SolvingWindow> out;
    const auto add = [&](SolvingWindow& w, uint32_t i) {
        w.accesses += s.samples[i].weight;
        w.index.push_back(i);
        w.samples.push_back(s.samples[i]);
    };
    if (s.positioned() && !s.pieces.empty()) {
        out.resize(s.pieces.size());
        for (uint32_t i = 0; i < s.samples.size(); ++i) {
            const auto after_start = std::upper_bound(s.pieces.begin(), s.pieces.end(), s.samples[i].position);
            add(out[static_cast<size_t>(after_start - s.pieces.begin()) - 1], i);
        }
        std::erase_if(out, [](const SolvingWindow& w) { return w.index.empty(); });
        return out;
    }
    bool open = false;  // the last entry still gathers windows
    for (const StreamWindow& w : s.windows) {
        if (!open) out.emplace_back();
        for (size_t i = w.first; i < w.first + w.count; ++i) add(out.back(), static_cast<uint32_t>(i));
        open = out.back().index.size() < kMinWindowSamples;
    }
    if (open && out.size() > 1) {  // a short tail joins the window before it
        for (uint32_t i : out.back().index) add(out[out.size() - 2], i);
        out.pop_back();
    }
    return out;
}

CacheFill cache_fill(uint64_t lines, double footprint, const FootprintGrowth& growth, double accesses) {
    const double l = static_cast<double>(lines);
    if (footprint <= l || accesses <= 0) return {lines, 0, false, nullptr};
    return {lines, std::fmax(l - growth.cold_misses(), 0.0) / accesses, true, &growth};
}

double eviction_ratio(const WindowReuses& w, const CacheFill& cache, double miss_ratio) {
    return cache.fills && w.total > 0 ? std::fmax(miss_ratio - not_evicting(w, cache), 0.0) : 0.0;
}

double random_miss_probability(double between, double cold_evictions, double eviction_ratio, uint64_t lines) {
    return 1 - spared(eviction_ratio * between + cold_evictions, log_spare(lines));
}

double solve_random_miss_ratio(const WindowReuses& w, const CacheFill& cache, double start) {
    if (w.total <= 0) return 0;
    if (!cache.fills) return w.no_reuse / w.total;  // no miss ever evicts
    // In E = R − o, o = c + φ: the largest root of k(E) = g(E) − o − E,
    // concave, with k(1 − o) ≤ 0; g(0) when there is none.
    const double log_q = log_spare(cache.lines), o = not_evicting(w, cache);
    auto excess = [&](double e, double& descent) {
        const Equation q = evaluate(w, e, log_q);
        descent = 1 - q.slope;
        return q.g - o - e;
    };
    const double no_eviction = evaluate(w, 0, log_q).g;
    double descent = 0;
    double e = std::fmin(std::fmax(start - o, 0.0), 1.0);
    if (excess(e, descent) > 0) e = std::fmax(1 - o, 0.0);  // started below the root
    for (int i = 0; i < kMaxIterations; ++i) {
        const double k = excess(e, descent);  // < 0 above the root
        if (k >= 0) return e + o;             // at the root (up to rounding)
        // k < 0 with k' ≥ 0, or a tangent that meets 0 below E = 0: by
        // concavity no root at or below e, and none above it either.
        if (descent <= 0) return no_eviction;
        const double next = e + k / descent;
        if (next < 0) return no_eviction;
        if (e - next < kTolerance) return next + o;
        e = next;
    }
    return e + o;
}

double random_miss_ratio_variance(const WindowReuses& w, const CacheFill& cache, double miss_ratio) {
    if (w.samples < 2) return 0;  // one sample: no spread to measure
    const double log_q = log_spare(cache.lines), e = eviction_ratio(w, cache, miss_ratio);
    double squares = w.no_reuse2 * (1 - miss_ratio) * (1 - miss_ratio);
    for (size_t b = 0; b < w.between.size(); ++b) {
        const double m = 1 - w.spared[b] / w.weight[b] * spared(e * w.between[b], log_q);
        squares += w.weight2[b] * (m - miss_ratio) * (m - miss_ratio);
    }
    if (squares == 0) return 0;
    // dE/dR is 1 while misses evict, 0 where none does.
    const double descent = e > 0 ? 1 - evaluate(w, e, log_q).slope : 1;
    if (descent <= 0) return std::numeric_limits<double>::infinity();
    const double n = static_cast<double>(w.samples);
    return squares / (w.total * w.total) / (descent * descent) * n / (n - 1);
}

}  // namespace sprof::analyze
