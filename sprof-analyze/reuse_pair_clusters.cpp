// The clusters and hints of reuse_pairs.hpp.
#include <algorithm>
#include <cmath>
#include <map>

#include "reuse_pairs.hpp"

namespace sprof::analyze {

namespace {

constexpr double kLowSpatialUse = 0.5;  // below: a layout hint

double norm(const std::vector<LocationShare>& v) {
    double sum = 0;
    for (const LocationShare& x : v) sum += x.share * x.share;
    return std::sqrt(sum);
}

// The lower of two spatial uses, either of them unknown (NaN) when nothing
// is known of it.
double lowest_spatial(const UseSum& a, const UseSum& b, uint32_t line_size) {
    const double x = a.spatial(line_size), y = b.spatial(line_size);
    if (std::isnan(x)) return y;
    if (std::isnan(y)) return x;
    return std::min(x, y);
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
    for (PairCluster& c : t.clusters) {
        double split = 0, informative = 0;
        size_t spans = 0;
        std::map<uint32_t, bool> uses;  // a use's statement counts once
        for (size_t i : c.pairs) {
            const ReusePair& pair = t.pairs[i];
            c.share += pair.share;
            c.reuse_use.add(pair.reuse_use);
            if (uses.try_emplace(pair.use, true).second) c.use_use.add(pair.use_use);
            spans += pair.spans;
            if (pair.informative == 0) continue;
            informative += pair.share;
            split += pair.share * static_cast<double>(pair.splits) / static_cast<double>(pair.informative);
        }
        c.split = informative > 0 ? split / informative : 0;
        // Without spans the code between is unknown: no loop hint. Spans of
        // one statement only are the same loop going round: tiling.
        std::string loop = spans == 0 ? "" : c.split > 0.5 ? "fusion" : "tiling";
        const double spatial = lowest_spatial(c.reuse_use, c.use_use, t.line_size);
        const bool layout = !std::isnan(spatial) && spatial < kLowSpatialUse;
        c.hint = layout ? (loop.empty() ? "layout" : loop + "+layout") : (loop.empty() ? "-" : loop);
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
