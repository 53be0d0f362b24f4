#include "reuse_pairs.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <unordered_map>


namespace sprof::analyze {

namespace {

// A pair while it is counted: the table's row and the reuses that missed.
struct Counting {
    ReusePair pair;
    std::vector<std::pair<const ReuseStream*, const StreamSample*>> missing;
};

// Each stream's samples in the order of their positions, to find the
// samples between a use and its reuse.
class ByPosition {
public:
    const std::vector<uint32_t>& of(const ReuseStream& s) {
        auto [it, added] = order_.try_emplace(&s);
        if (added) {
            it->second.resize(s.samples.size());
            std::iota(it->second.begin(), it->second.end(), 0u);
            std::sort(it->second.begin(), it->second.end(),
                      [&](uint32_t a, uint32_t b) { return s.samples[a].position < s.samples[b].position; });
        }
        return it->second;
    }

private:
    std::unordered_map<const ReuseStream*, std::vector<uint32_t>> order_;
};

// The code between the missing reuses of a pair: spans evenly over them,
// samples evenly over each span; which spans tell (reuse_pairs.hpp).
void code_between(Counting& c, ByPosition& by_position, LocationIndex& index, const PairParams& p) {
    ReusePair& pair = c.pair;
    std::vector<uint64_t> distances;
    for (const auto& m : c.missing) distances.push_back(m.second->distance);
    std::nth_element(distances.begin(), distances.begin() + distances.size() / 2, distances.end());
    pair.missing_samples = distances.size();
    pair.median_distance = distances.empty() ? 0 : distances[distances.size() / 2];
    std::map<uint32_t, double> votes;
    const size_t n_spans = std::min(p.spans, c.missing.size());
    for (size_t j = 0; j < n_spans; ++j) {
        // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
        const ReuseStream* s = c.missing[j * c.missing.size() / n_spans].first;
        const StreamSample* x = c.missing[j * c.missing.size() / n_spans].second;
        const std::vector<uint32_t>& order = by_position.of(*s);
        auto position = [&](uint32_t i) { return s->samples[i].position; };
        auto lo = std::upper_bound(order.begin(), order.end(), x->position,
                                   [&](uint64_t v, uint32_t i) { return v < position(i); });
        auto hi = std::lower_bound(lo, order.end(), x->position + x->distance,
                                   [&](uint32_t i, uint64_t v) { return position(i) < v; });
        const size_t n = static_cast<size_t>(hi - lo);
        if (n == 0) continue;
        const size_t m = std::min(n, p.span_samples);
        std::vector<uint32_t> sequence;
        for (size_t k = 0; k < m; ++k) sequence.push_back(index.of(s->samples[*(lo + k * n / m)].sample));
        for (uint32_t loc : sequence) votes[loc] += 1.0 / static_cast<double>(m);
        ++pair.spans;
        if (m < kMinSpanSamples) continue;  // too few to tell two loops from one
        const bool one_statement = std::all_of(sequence.begin(), sequence.end(),
                                               [&](uint32_t loc) { return loc == sequence.front(); });
        // One statement between tells of a loop going round only when it is
        // the pair's one statement; between a pair of two, it is the edge
        // of one of the two loops.
        if (one_statement && !(pair.use == pair.reuse && sequence.front() == pair.use)) continue;
        ++pair.informative;
        pair.splits += code_splits(sequence, p.split_tolerance);
    }
    for (const auto& [loc, v] : votes) pair.between.push_back({loc, v / static_cast<double>(pair.spans)});
    std::sort(pair.between.begin(), pair.between.end(), [](const LocationShare& a, const LocationShare& b) {
        return a.share != b.share ? a.share > b.share : a.location < b.location;
    });
}

}  // namespace

PairTable reuse_pairs(const Dataset& d, const LocalityData& l, const PairParams& p) {
    require_sampled(d, l, "reuse samples", "--reuse-pairs");
    PairTable t;
    t.lines = p.lines;
    t.line_size = l.line_size;
    t.sample_period = l.sample_period;
    t.positions = l.positions;
    LocationIndex index(d, p.by, p.user_frames);
    std::map<std::pair<uint32_t, uint32_t>, Counting> pairs;
    std::unordered_map<uint32_t, UseSum> statement;  // location → the tenures it started
    const uint64_t sizes[] = {p.lines};
    visit_reuses(l, Policy::lru, sizes, [&](const ReuseStream& s, const StreamSample& x, std::span<const ReuseOutcome> o) {
        if (x.distance == kNoReuse) return;
        const uint32_t use = index.of(x.sample), reuse = index.of(x.trigger);
        Counting& c = pairs[{use, reuse}];
        ReusePair& pair = c.pair;
        pair.use = use;
        pair.reuse = reuse;
        ++pair.samples;
        pair.reuses += x.weight;
        t.reuses += x.weight;
        const size_t bucket = static_cast<size_t>(std::bit_width(x.distance) - 1);
        if (pair.histogram.size() <= bucket) pair.histogram.resize(bucket + 1, 0);
        pair.histogram[bucket] += x.weight;
        if (o[0].miss == 0) return;
        pair.misses += x.weight * o[0].miss;
        t.capacity_misses += x.weight * o[0].miss;
        c.missing.push_back({&s, &x});
        if (o[0].state) {
            pair.reuse_use.add(*o[0].state, x.weight * o[0].miss, l.line_size);
            statement[reuse].add(*o[0].state, x.weight * o[0].miss, l.line_size);
        }
    });

    std::vector<Counting*> ranked;
    for (auto& [key, c] : pairs)
        if (c.pair.misses > 0) ranked.push_back(&c);
    t.all_pairs = ranked.size();
    std::sort(ranked.begin(), ranked.end(), [](const Counting* a, const Counting* b) {
        if (a->pair.misses != b->pair.misses) return a->pair.misses > b->pair.misses;
        return std::tie(a->pair.use, a->pair.reuse) < std::tie(b->pair.use, b->pair.reuse);
    });
    ByPosition by_position;
    double covered = 0;
    for (Counting* c : ranked) {
        if (covered >= p.cover * t.capacity_misses) break;
        covered += c->pair.misses;
        c->pair.share = c->pair.misses / t.capacity_misses;
        if (auto u = statement.find(c->pair.use); u != statement.end()) c->pair.use_use = u->second;
        if (t.positions) code_between(*c, by_position, index, p);
        t.pairs.push_back(std::move(c->pair));
    }
    for (uint32_t i = 0; i < index.size(); ++i) t.locations.push_back(index[i]);
    cluster_pairs(t, p);
    return t;
}

}  // namespace sprof::analyze
