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

// Window w's entries with the other windows' rates held: per entry, the
// evictions in pieces of other kinds and its accesses in its own window's kind.
struct Held {
    std::vector<double> other, own;
};

Held hold(const WindowReuses& w, uint32_t own, std::span<const double> eviction) {
    Held h{std::vector<double>(w.entries.size(), 0), std::vector<double>(w.entries.size(), 0)};
    for (size_t j = 0; j < w.entries.size(); ++j) {
        const WindowReuses::Entry& e = w.entries[j];
        for (uint32_t p = e.first; p < e.first + e.count; ++p) {
            const SpanPart& part = w.parts[p];
            if (part.kind == own) h.own[j] += part.accesses;
            else h.other[j] += eviction[part.kind] * part.accesses;
        }
    }
    return h;
}

Equation evaluate(const WindowReuses& w, const Held& h, double eviction_ratio, double log_q) {
    double sum = w.no_reuse, slope = 0;
    const bool one_line = std::isinf(log_q);  // g is a step at R = 0: slope 0 above it
    for (size_t j = 0; j < w.entries.size(); ++j) {
        const WindowReuses::Entry& e = w.entries[j];
        const double s = spared(h.other[j] + eviction_ratio * h.own[j], log_q);
        sum += e.weight - e.spared * s;
        if (!one_line) slope -= e.spared * h.own[j] * log_q * s;
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

WindowReuses bucket_window(std::span<const StreamSample> samples, uint32_t own, const SpanKinds& spans,
                           const FootprintGrowth& growth) {
    struct Keyed {
        uint64_t key;  // kind and bucket of a reuse within one kind; ~0 for one across kinds
        const StreamSample* sample;
        uint32_t first, count;  // its parts in `parts`
    };
    std::vector<Keyed> reused;
    std::vector<SpanPart> parts;
    WindowReuses w;
    for (const StreamSample& s : samples) {
        ++w.samples;
        w.total += s.weight;
        if (s.distance == kNoReuse) {
            w.no_reuse += s.weight;
            w.no_reuse2 += s.weight * s.weight;
            continue;
        }
        const auto first = static_cast<uint32_t>(parts.size());
        spans.parts(s.position, s.distance, own, parts);
        const auto count = static_cast<uint32_t>(parts.size() - first);
        const uint64_t key = count == 1 ? (uint64_t{parts[first].kind} << 32) +
                                              bucket_of(static_cast<uint64_t>(parts[first].accesses))
                             : count == 0 ? 0  // no access in between: always a hit
                                          : ~uint64_t{0};
        reused.push_back({key, &s, first, count});
    }
    std::stable_sort(reused.begin(), reused.end(), [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
    for (size_t i = 0; i < reused.size(); ++i) {
        const Keyed& r = reused[i];
        const StreamSample& x = *r.sample;
        const bool alone = r.key == ~uint64_t{0};
        if (i == 0 || alone || r.key != reused[i - 1].key) {
            w.entries.push_back({static_cast<uint32_t>(w.parts.size()), r.count, 0, 0, 0});
            for (uint32_t p = r.first; p < r.first + r.count; ++p) w.parts.push_back({parts[p].kind, 0});
        }
        WindowReuses::Entry& e = w.entries.back();
        // Bucketed: the parts hold Σ w·a until the end, then its mean.
        for (uint32_t p = 0; p < r.count; ++p) w.parts[e.first + p].accesses += x.weight * parts[r.first + p].accesses;
        e.weight += x.weight;
        e.weight2 += x.weight * x.weight;
        w.pairs.push_back({static_cast<uint32_t>(w.entries.size() - 1), x.weight, growth.span(x.position, x.distance)});
    }
    for (WindowReuses::Entry& e : w.entries) {
        for (uint32_t p = e.first; p < e.first + e.count; ++p) w.parts[p].accesses /= e.weight;
        e.spared = e.weight;
    }
    return w;
}

void spare_cold(WindowReuses& w, const CacheFill& cache) {
    for (WindowReuses::Entry& e : w.entries) e.spared = e.weight;
    if (!cache.fills || !cache.growth) return;
    const double log_q = log_spare(cache.lines);
    for (const WindowReuses::Pair& pair : w.pairs) {
        const double c = cache.growth->cold_evictions(cache.lines, pair.span);
        if (c > 0) w.entries[pair.entry].spared -= pair.weight * (1 - spared(c, log_q));
    }
}

SpanKinds::SpanKinds(const ReuseStream& s) : timed_(s.positioned() && !s.pieces.empty()) {
    if (!timed_) return;
    starts_ = s.pieces;
    kinds_ = s.piece_kinds;
    kinds_.resize(starts_.size(), 0);
}

void SpanKinds::parts(uint64_t position, uint64_t distance, uint32_t own, std::vector<SpanPart>& out) const {
    if (distance <= 1 || distance == kNoReuse) return;
    if (!timed_) {
        out.push_back({own, static_cast<double>(distance - 1)});
        return;
    }
    const uint64_t first = position + 1, last = after(position, distance) - 1;
    const size_t begin = out.size();
    auto k = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), first) - starts_.begin()) - 1;
    for (; k < starts_.size() && starts_[k] <= last; ++k) {
        const uint64_t lo = std::max(first, starts_[k]);
        const uint64_t hi = k + 1 < starts_.size() ? std::min(last, starts_[k + 1] - 1) : last;
        const double n = static_cast<double>(hi - lo + 1);
        // Pieces of one kind come back (a step's loops, step after step): one part per kind.
        auto same = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(begin), out.end(),
                                 [&](const SpanPart& p) { return p.kind == kinds_[k]; });
        if (same != out.end()) same->accesses += n;
        else out.push_back({kinds_[k], n});
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
        const auto kind = [&](size_t piece) { return piece < s.piece_kinds.size() ? s.piece_kinds[piece] : 0u; };
        for (size_t k = 0; k < s.pieces.size(); ++k) out.resize(std::max<size_t>(out.size(), kind(k) + 1));
        for (uint32_t i = 0; i < s.samples.size(); ++i) {
            const auto after_start = std::upper_bound(s.pieces.begin(), s.pieces.end(), s.samples[i].position);
            add(out[kind(static_cast<size_t>(after_start - s.pieces.begin()) - 1)], i);
        }
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

namespace {

double eviction_of(const WindowReuses& w, const CacheFill& cache, double miss_ratio) {
    return cache.fills && w.total > 0 ? std::fmax(miss_ratio - not_evicting(w, cache), 0.0) : 0.0;
}

struct Root {
    double miss_ratio, eviction;
};

// Window w's R with the other windows' rates held (h), by Newton's method
// from `start` (an eviction rate at or above the root).
Root solve_held(const WindowReuses& w, const Held& h, const CacheFill& cache, double start) {
    // In E = R − o, o = c + φ: the largest root of k(E) = g(E) − o − E,
    // concave, with k(1 − o) ≤ 0; g(0) when there is none.
    const double log_q = log_spare(cache.lines), o = not_evicting(w, cache);
    auto excess = [&](double e, double& descent) {
        const Equation q = evaluate(w, h, e, log_q);
        descent = 1 - q.slope;
        return q.g - o - e;
    };
    const double no_eviction = evaluate(w, h, 0, log_q).g;
    double descent = 0;
    double e = std::fmin(std::fmax(start, 0.0), 1.0);
    if (excess(e, descent) > 0) e = std::fmax(1 - o, 0.0);  // started below the root
    for (int i = 0; i < kMaxIterations; ++i) {
        const double k = excess(e, descent);  // < 0 above the root
        if (k >= 0) return {e + o, e};        // at the root (up to rounding)
        // k < 0 with k' ≥ 0, or a tangent that meets 0 below E = 0: by
        // concavity no root at or below e, and none above it either.
        if (descent <= 0) return {no_eviction, 0};
        const double next = e + k / descent;
        if (next < 0) return {no_eviction, 0};
        if (e - next < kTolerance) return {next + o, next};
        e = next;
    }
    return {e + o, e};
}

constexpr int kMaxSweeps = 500;  // Gauss–Seidel sweeps; a handful unless the windows hold each other up

}  // namespace

void solve_random_miss_ratios(const std::vector<WindowReuses>& windows, const CacheFill& cache,
                              RandomSolution& solution) {
    const size_t n = windows.size();
    if (solution.eviction.size() != n) solution.eviction.assign(n, 1.0);
    solution.miss_ratio.assign(n, 0);
    for (size_t k = 0; k < n; ++k)
        if (!cache.fills || windows[k].total <= 0) {  // no miss ever evicts
            solution.miss_ratio[k] = windows[k].total > 0 ? windows[k].no_reuse / windows[k].total : 0;
            solution.eviction[k] = 0;
        }
    if (!cache.fills) return;
    for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
        double moved = 0;
        for (size_t k = 0; k < n; ++k) {
            if (windows[k].total <= 0) continue;
            const Held h = hold(windows[k], static_cast<uint32_t>(k), solution.eviction);
            const Root r = solve_held(windows[k], h, cache, solution.eviction[k]);
            moved = std::fmax(moved, std::fabs(r.eviction - solution.eviction[k]));
            solution.eviction[k] = r.eviction;
            solution.miss_ratio[k] = r.miss_ratio;
        }
        if (moved < kTolerance || n == 1) break;
    }
}

double random_miss_probability(std::span<const SpanPart> parts, double cold_evictions,
                               std::span<const double> eviction, uint64_t lines) {
    double evictions = cold_evictions;
    for (const SpanPart& p : parts) evictions += eviction[p.kind] * p.accesses;
    return 1 - spared(evictions, log_spare(lines));
}

double random_miss_ratio_variance(const std::vector<WindowReuses>& windows, size_t k, const CacheFill& cache,
                                  const RandomSolution& solution) {
    const WindowReuses& w = windows[k];
    if (w.samples < 2) return 0;  // one sample: no spread to measure
    const double log_q = log_spare(cache.lines), r = solution.miss_ratio[k];
    const double e = eviction_of(w, cache, r);
    const Held h = hold(w, static_cast<uint32_t>(k), solution.eviction);
    double squares = w.no_reuse2 * (1 - r) * (1 - r);
    for (size_t j = 0; j < w.entries.size(); ++j) {
        const WindowReuses::Entry& x = w.entries[j];
        const double m = 1 - x.spared / x.weight * spared(h.other[j] + e * h.own[j], log_q);
        squares += x.weight2 * (m - r) * (m - r);
    }
    if (squares == 0) return 0;
    // dE/dR is 1 while misses evict, 0 where none does.
    const double descent = e > 0 ? 1 - evaluate(w, h, e, log_q).slope : 1;
    if (descent <= 0) return std::numeric_limits<double>::infinity();
    const double n = static_cast<double>(w.samples);
    return squares / (w.total * w.total) / (descent * descent) * n / (n - 1);
}

}  // namespace sprof::analyze
