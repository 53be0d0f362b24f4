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
    double g = 0;      // the mean miss probability of the samples at R
    double slope = 0;  // g'(R)
};

Equation evaluate(const WindowReuses& w, double miss_ratio, double log_q) {
    double sum = w.no_reuse, slope = 0;
    const bool one_line = std::isinf(log_q);  // g is a step at R = 0: slope 0 above it
    for (size_t b = 0; b < w.between.size(); ++b) {
        const double s = spared(miss_ratio * w.between[b], log_q);
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

double random_miss_probability(double between, double miss_ratio, uint64_t lines) {
    return 1 - spared(miss_ratio * between, log_spare(lines));
}

double solve_random_miss_ratio(const WindowReuses& w, uint64_t lines, double start) {
    if (w.total <= 0) return 0;
    const double log_q = log_spare(lines);
    double r = std::fmin(std::fmax(start, 0.0), 1.0);
    for (int i = 0; i < kMaxIterations; ++i) {
        const Equation e = evaluate(w, r, log_q);
        const double excess = e.g - r;       // < 0 above the root
        const double descent = 1 - e.slope;  // > 0 above the root
        if (excess >= 0 || descent <= 0) return r;  // at the root (up to rounding)
        const double next = std::fmax(r + excess / descent, 0.0);
        if (r - next < kTolerance) return next;
        r = next;
    }
    return r;
}

double random_miss_ratio_variance(const WindowReuses& w, uint64_t lines, double miss_ratio) {
    if (w.samples < 2) return 0;  // one sample: no spread to measure
    const double log_q = log_spare(lines);
    double squares = w.no_reuse2 * (1 - miss_ratio) * (1 - miss_ratio);
    for (size_t b = 0; b < w.between.size(); ++b) {
        const double m = 1 - spared(miss_ratio * w.between[b], log_q);
        squares += w.weight2[b] * (m - miss_ratio) * (m - miss_ratio);
    }
    if (squares == 0) return 0;
    const double descent = 1 - evaluate(w, miss_ratio, log_q).slope;
    if (descent <= 0) return std::numeric_limits<double>::infinity();
    const double n = static_cast<double>(w.samples);
    return squares / (w.total * w.total) / (descent * descent) * n / (n - 1);
}

}  // namespace sprof::analyze
