// The clusters and hints of reuse_pairs.hpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "reuse_pairs.hpp"

namespace sprof::analyze {

namespace {

constexpr double kLowSpatialUse = 0.5;  // below: a layout hint

double norm(const std::vector<LocationShare>& v) {
    double sum = 0;
    for (const LocationShare& x : v) sum += x.share * x.share;
    return std::sqrt(sum);
}

// The lower of two spatial uses, either of them unknown (NaN) when it
// rests on fewer than kMinTenures tenures.
double lowest_spatial(const UseSum& a, const UseSum& b, uint32_t line_size) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double x = a.samples >= kMinTenures ? a.spatial(line_size) : nan;
    const double y = b.samples >= kMinTenures ? b.spatial(line_size) : nan;
    if (std::isnan(x)) return y;
    if (std::isnan(y)) return x;
    return std::min(x, y);
}

// What a hint rests on: spans that tell, how many split, the tenures.
struct Evidence {
    double miss_share = 0;          // misses, of all reuses
    size_t spans = 0;               // looked at, with samples
    size_t informative = 0, splits = 0;
    uint64_t missing_samples = 0;   // spans there are
    uint64_t median_distance = 0;   // accesses a span holds
    UseSum reuse_use, use_use;
};

// 1, 2, 5, 10, 20, 50 … at most x (at least 1).
uint64_t round_down_125(double x) {
    uint64_t best = 1;
    for (uint64_t decade = 1; decade <= UINT64_MAX / 10; decade *= 10)
        for (uint64_t m : {1, 2, 5})
            if (static_cast<double>(decade * m) <= x) best = decade * m;
    return best;
}

// A sampling period that gives kMinSpans spans of kMinSpanSamples samples:
// spans hold median_distance / period samples, and there are
// missing_samples × sample_period / period of them.
uint64_t rerun_period(const Evidence& e, uint64_t sample_period) {
    const double by_span = static_cast<double>(e.median_distance) / kMinSpanSamples;
    const double by_count = static_cast<double>(e.missing_samples) * static_cast<double>(sample_period) / kMinSpans;
    return round_down_125(std::min({by_span, by_count, static_cast<double>(sample_period) / 2}));
}

// The hint and, without evidence for a loop hint, the period to rerun at.
std::pair<std::string, uint64_t> hint_of(const Evidence& e, uint32_t line_size, uint64_t sample_period,
                                         double min_miss_share) {
    if (e.miss_share < min_miss_share) return {"-", 0};  // little to gain
    const double spatial = lowest_spatial(e.reuse_use, e.use_use, line_size);
    const bool layout = !std::isnan(spatial) && spatial < kLowSpatialUse;
    // Without spans the code between is unknown (no positions): no loop hint.
    if (e.spans == 0) return {layout ? "layout" : "-", 0};
    const double n = static_cast<double>(e.informative);
    const double split = n > 0 ? static_cast<double>(e.splits) / n : 0.5;
    if (n == 0 || std::abs(split - 0.5) < 1 / std::sqrt(n)) {
        if (n >= kMinSpans) return {layout ? "layout" : "-", 0};  // enough spans, and they say neither
        const uint64_t period = rerun_period(e, sample_period);
        return {fmt::format("{}too few samples: --locality={}", layout ? "layout; " : "", period), period};
    }
    const std::string loop = split > 0.5 ? "fusion" : "tiling";
    return {layout ? loop + "+layout" : loop, 0};
}

Evidence evidence_of(const ReusePair& p, double reuses) {
    return {reuses > 0 ? p.misses / reuses : 0, p.spans, p.informative, p.splits, p.missing_samples,
            p.median_distance, p.reuse_use, p.use_use};
}

}  // namespace

bool code_splits(std::span<const uint32_t> sequence, double tolerance) {
    // A cut k puts each location on the side holding most of its elements;
    // the elements on its other side are out of place. The code splits
    // when some cut leaves each side locations of its own with at least
    // `tolerance` of the elements, and at most `tolerance` of the elements
    // out of place. (Without the first, a location met once at an end of
    // the span would split any code.)
    std::map<uint32_t, size_t> total, left;
    for (uint32_t loc : sequence) ++total[loc];
    const double part = tolerance * static_cast<double>(sequence.size());
    for (size_t k = 1; k < sequence.size(); ++k) {
        ++left[sequence[k - 1]];
        size_t misplaced = 0, before = 0, after = 0;
        for (const auto& [loc, n] : total) {
            const auto it = left.find(loc);
            const size_t l = it == left.end() ? 0 : it->second, r = n - l;
            misplaced += std::min(l, r);
            if (l > r) before += l;
            if (r > l) after += r;
        }
        if (static_cast<double>(misplaced) <= part && static_cast<double>(std::min(before, after)) >= part)
            return true;
    }
    return false;
}

double cosine_similarity(const std::vector<LocationShare>& a, const std::vector<LocationShare>& b) {
    const double na = norm(a), nb = norm(b);
    if (na == 0 || nb == 0) return 0;
    std::map<uint32_t, double> of_a;
    for (const LocationShare& x : a) of_a[x.location] += x.share;
    double dot = 0;
    for (const LocationShare& y : b)
        if (auto it = of_a.find(y.location); it != of_a.end()) dot += it->second * y.share;
    return dot / (na * nb);
}

void cluster_pairs(PairTable& t, const PairParams& p) {
    t.clusters.clear();
    for (size_t i = 0; i < t.pairs.size(); ++i) {
        ReusePair& pair = t.pairs[i];
        size_t c = 0;
        for (; c < t.clusters.size(); ++c)
            if (cosine_similarity(t.pairs[t.clusters[c].pairs.front()].between, pair.between) >= p.similarity) break;
        if (c == t.clusters.size()) t.clusters.emplace_back();
        t.clusters[c].pairs.push_back(i);
        pair.cluster = static_cast<uint32_t>(c);
    }
    for (ReusePair& pair : t.pairs)
        std::tie(pair.hint, pair.rerun_period) =
            hint_of(evidence_of(pair, t.reuses), t.line_size, t.sample_period, p.min_miss_share);
    for (PairCluster& c : t.clusters) {
        double split = 0, informative = 0;
        Evidence pooled;
        std::map<uint32_t, bool> uses;  // a use's statement counts once
        for (size_t i : c.pairs) {
            const ReusePair& pair = t.pairs[i];
            c.share += pair.share;
            if (t.reuses > 0) pooled.miss_share += pair.misses / t.reuses;
            pooled.reuse_use.add(pair.reuse_use);
            if (uses.try_emplace(pair.use, true).second) pooled.use_use.add(pair.use_use);
            pooled.spans += pair.spans;
            pooled.informative += pair.informative;
            pooled.splits += pair.splits;
            pooled.missing_samples += pair.missing_samples;
            pooled.median_distance = std::max(pooled.median_distance, pair.median_distance);
            if (pair.informative == 0) continue;
            informative += pair.share;
            split += pair.share * static_cast<double>(pair.splits) / static_cast<double>(pair.informative);
        }
        c.reuse_use = pooled.reuse_use;
        c.use_use = pooled.use_use;
        c.split = informative > 0 ? split / informative : 0;
        std::tie(c.hint, c.rerun_period) = hint_of(pooled, t.line_size, t.sample_period, p.min_miss_share);
    }
    // Largest share first; the pairs' indices follow.
    std::vector<size_t> order(t.clusters.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return t.clusters[a].share > t.clusters[b].share; });
    std::vector<PairCluster> sorted;
    std::vector<uint32_t> new_index(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        new_index[order[i]] = static_cast<uint32_t>(i);
        sorted.push_back(std::move(t.clusters[order[i]]));
    }
    t.clusters = std::move(sorted);
    for (ReusePair& pair : t.pairs) pair.cluster = new_index[pair.cluster];
}

}  // namespace sprof::analyze
