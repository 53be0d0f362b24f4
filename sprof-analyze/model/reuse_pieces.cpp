#include "reuse_pieces.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

namespace sprof::analyze {

namespace {

// Two bins per doubling: 1, 2, 3, 4–5, 6–7, 8–11, 12–15 …; never reused last.
uint32_t distance_bin(uint64_t d) {
    if (d == kNoReuse) return UINT32_MAX;
    const int top = std::bit_width(d) - 1;
    const uint32_t half = top > 0 ? static_cast<uint32_t>((d >> (top - 1)) & 1) : 0;
    return 2 * static_cast<uint32_t>(top) + half;
}

struct Cut {
    size_t at = 0;
    double statistic = 0;
};

// The statistic of cutting bin[lo, hi) at c, `left` the bins' counts in
// [lo, c) and `total` in [lo, hi).
double cut_statistic(const std::vector<double>& left, const std::vector<double>& total, size_t lo, size_t c,
                     size_t hi) {
    const double n = static_cast<double>(hi - lo), nl = static_cast<double>(c - lo), nr = n - nl;
    double below_left = 0, below_all = 0, gap = 0;
    for (size_t b = 0; b + 1 < left.size(); ++b) {  // the last bin holds everything: no gap there
        below_left += left[b];
        below_all += total[b];
        gap = std::max(gap, std::fabs(below_left / nl - (below_all - below_left) / nr));
    }
    return std::sqrt(nl * nr / n) * gap;
}

// Cuts tried in a segment: every one up to this many, then a grid of this
// many and every cut around the grid's best. The statistic changes little
// from one sample to the next, and a dense run's 200,000 samples took the
// analyzer a quarter of a second per curve to cut at every one.
constexpr size_t kCutsTried = 4096;

// The best cut of bin[lo, hi) (dense bin numbers below `bins`).
Cut best_cut(const std::vector<uint32_t>& bin, size_t lo, size_t hi, size_t bins) {
    Cut best;
    if (hi - lo < 2 * kMinPieceSamples) return best;
    std::vector<double> total(bins, 0), left(bins, 0);
    for (size_t i = lo; i < hi; ++i) ++total[bin[i]];
    const size_t first = lo + kMinPieceSamples, last = hi - kMinPieceSamples;  // the cuts allowed
    const size_t step = std::max<size_t>(1, (last - first + 1) / kCutsTried);
    // Tries the cuts first, first + every, … up to `to`, counting the bins left of each.
    auto scan = [&](size_t from, size_t to, size_t every) {
        std::fill(left.begin(), left.end(), 0.0);
        for (size_t i = lo; i < from; ++i) ++left[bin[i]];
        for (size_t c = from; c <= to; c += every) {
            if (const double t = cut_statistic(left, total, lo, c, hi); t > best.statistic) best = {c, t};
            for (size_t i = c; i < std::min(c + every, hi); ++i) ++left[bin[i]];
        }
    };
    scan(first, last, step);
    if (step > 1) scan(best.at > first + step ? best.at - step : first, std::min(best.at + step, last), 1);
    return best;
}

// The samples' bin numbers made dense (0 … bins − 1), so a statistic looks at the bins that occur only.
std::vector<uint32_t> dense_bins(std::span<const uint64_t> distances, size_t& bins) {
    std::vector<uint32_t> bin(distances.size());
    for (size_t i = 0; i < distances.size(); ++i) bin[i] = distance_bin(distances[i]);
    std::vector<uint32_t> used(bin);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    for (uint32_t& b : bin) b = static_cast<uint32_t>(std::lower_bound(used.begin(), used.end(), b) - used.begin());
    bins = used.size();
    return bin;
}

std::vector<size_t> piece_starts(const std::vector<uint32_t>& bin, size_t bins) {
    const size_t n = bin.size();
    std::vector<size_t> starts;
    if (n == 0) return starts;
    std::vector<std::pair<size_t, size_t>> todo{{0, n}};
    while (!todo.empty()) {
        const auto [lo, hi] = todo.back();
        todo.pop_back();
        const Cut c = best_cut(bin, lo, hi, bins);
        if (c.statistic > kPieceCutThreshold) {
            todo.emplace_back(lo, c.at);
            todo.emplace_back(c.at, hi);
        } else {
            starts.push_back(lo);
        }
    }
    std::sort(starts.begin(), starts.end());
    return starts;
}

// The two-sample statistic of two histograms over the same bins.
double histogram_statistic(const std::vector<double>& a, double na, const std::vector<double>& b, double nb) {
    double below_a = 0, below_b = 0, gap = 0;
    for (size_t k = 0; k + 1 < a.size(); ++k) {
        below_a += a[k];
        below_b += b[k];
        gap = std::max(gap, std::fabs(below_a / na - below_b / nb));
    }
    return std::sqrt(na * nb / (na + nb)) * gap;
}

// Kinds compared with each new piece: the most recent ones (a program
// rarely has more phases; a stream of thousands of unlike pieces stays
// linear in its pieces).
constexpr size_t kKindsCompared = 64;

}  // namespace

std::vector<size_t> reuse_piece_starts(std::span<const uint64_t> distances) {
    size_t bins = 0;
    const std::vector<uint32_t> bin = dense_bins(distances, bins);
    return piece_starts(bin, bins);
}

std::vector<uint32_t> reuse_piece_kinds(std::span<const uint64_t> distances, std::span<const size_t> starts) {
    size_t bins = 0;
    const std::vector<uint32_t> bin = dense_bins(distances, bins);
    struct Kind {
        std::vector<double> histogram;
        double samples = 0;
    };
    std::vector<Kind> kinds;
    std::vector<uint32_t> out;
    for (size_t k = 0; k < starts.size(); ++k) {
        const size_t first = starts[k], last = k + 1 < starts.size() ? starts[k + 1] : bin.size();
        Kind own{std::vector<double>(bins, 0), static_cast<double>(last - first)};
        for (size_t i = first; i < last; ++i) ++own.histogram[bin[i]];
        size_t best = kinds.size();
        double lowest = kKindThreshold;
        for (size_t j = kinds.size() > kKindsCompared ? kinds.size() - kKindsCompared : 0; j < kinds.size(); ++j) {
            const double t = histogram_statistic(own.histogram, own.samples, kinds[j].histogram, kinds[j].samples);
            if (t <= lowest) lowest = t, best = j;
        }
        if (best == kinds.size()) {
            kinds.push_back(std::move(own));
        } else {
            for (size_t b = 0; b < bins; ++b) kinds[best].histogram[b] += own.histogram[b];
            kinds[best].samples += own.samples;
        }
        out.push_back(static_cast<uint32_t>(best));
    }
    return out;
}

}  // namespace sprof::analyze
