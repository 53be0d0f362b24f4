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
        sum += w.weight[b] * (1 - s);
        if (!one_line) slope -= w.weight[b] * w.between[b] * log_q * s;
    }
    return {sum / w.total, slope / w.total};
}

}  // namespace

WindowReuses bucket_window(std::span<const StreamSample> samples) {
    struct Keyed {
        uint64_t key, between;
        double weight;
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
            reused.push_back({bucket_of(s.distance - 1), s.distance - 1, s.weight});
        }
    }
    std::sort(reused.begin(), reused.end(), [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
    for (size_t i = 0; i < reused.size(); ++i) {
        if (i == 0 || reused[i].key != reused[i - 1].key) {
            w.between.push_back(0);
            w.weight.push_back(0);
            w.weight2.push_back(0);
        }
        const double x = reused[i].weight;
        w.between.back() += x * static_cast<double>(reused[i].between);  // a sum until the end
        w.weight.back() += x;
        w.weight2.back() += x * x;
    }
    for (size_t b = 0; b < w.between.size(); ++b) w.between[b] /= w.weight[b];
    return w;
}

std::vector<StreamWindow> solving_windows(const ReuseStream& s) {
    std::vector<StreamWindow> out;
    bool open = false;  // the last entry still gathers windows
    for (const StreamWindow& w : s.windows) {
        if (!open) out.push_back({0, w.first, 0});
        out.back().accesses += w.accesses;
        out.back().count += w.count;
        open = out.back().count < kMinWindowSamples;
    }
    if (open && out.size() > 1) {  // a short tail joins the window before it
        out[out.size() - 2].accesses += out.back().accesses;
        out[out.size() - 2].count += out.back().count;
        out.pop_back();
    }
    return out;
}

CacheFill cache_fill(uint64_t lines, double footprint, double accesses) {
    if (footprint <= static_cast<double>(lines) || accesses <= 0) return {lines, 0, false};
    return {lines, static_cast<double>(lines) / accesses, true};
}

double eviction_ratio(double miss_ratio, const CacheFill& cache) {
    return cache.fills ? std::fmax(miss_ratio - cache.fill, 0.0) : 0.0;
}

double random_miss_probability(double between, double eviction_ratio, uint64_t lines) {
    return 1 - spared(eviction_ratio * between, log_spare(lines));
}

double solve_random_miss_ratio(const WindowReuses& w, const CacheFill& cache, double start) {
    if (w.total <= 0) return 0;
    const double cold = w.no_reuse / w.total;  // the root when no miss evicts
    if (!cache.fills) return cold;
    // In E = R − φ: the largest root of k(E) = g(E) − φ − E, concave, with k(1 − φ) ≤ 0.
    const double log_q = log_spare(cache.lines), phi = cache.fill;
    auto excess = [&](double e, double& descent) {
        const Equation q = evaluate(w, e, log_q);
        descent = 1 - q.slope;
        return q.g - phi - e;
    };
    double descent = 0;
    double e = std::fmin(std::fmax(start - phi, 0.0), 1.0);
    if (excess(e, descent) > 0) e = std::fmax(1 - phi, 0.0);  // started below the root
    for (int i = 0; i < kMaxIterations; ++i) {
        const double k = excess(e, descent);  // < 0 above the root
        if (k >= 0) return e + phi;           // at the root (up to rounding)
        // k < 0 with k' ≥ 0, or a tangent that meets 0 below E = 0: by
        // concavity no root at or below e, and none above it either.
        if (descent <= 0) return cold;
        const double next = e + k / descent;
        if (next < 0) return cold;
        if (e - next < kTolerance) return next + phi;
        e = next;
    }
    return e + phi;
}

double random_miss_ratio_variance(const WindowReuses& w, const CacheFill& cache, double miss_ratio) {
    if (w.samples < 2) return 0;  // one sample: no spread to measure
    const double log_q = log_spare(cache.lines), e = eviction_ratio(miss_ratio, cache);
    double squares = w.no_reuse2 * (1 - miss_ratio) * (1 - miss_ratio);
    for (size_t b = 0; b < w.between.size(); ++b) {
        const double m = 1 - spared(e * w.between[b], log_q);
        squares += w.weight2[b] * (m - miss_ratio) * (m - miss_ratio);
    }
    if (squares == 0) return 0;
    // dE/dR is 1 while misses evict, 0 where none does.
    const double descent = cache.fills && miss_ratio > cache.fill ? 1 - evaluate(w, e, log_q).slope : 1;
    if (descent <= 0) return std::numeric_limits<double>::infinity();
    const double n = static_cast<double>(w.samples);
    return squares / (w.total * w.total) / (descent * descent) * n / (n - 1);
}

}  // namespace sprof::analyze
