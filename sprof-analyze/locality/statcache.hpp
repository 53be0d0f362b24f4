// StatCache (Berg & Hagersten, ISPASS 2004): the miss ratio R of a fully
// associative cache of L lines with random replacement, from the reuse
// distances sampled in one window (solving_windows: a piece of the stream).
//
// Between a sampled access and its trigger lie d − 1 other accesses
// (statstack.hpp has the distance convention). Each of them evicts a
// random line with probability E, ours with probability 1/L; so the
// trigger misses with probability f(E·(d − 1)), f(n) = 1 − (1 − 1/L)^n. A
// sample never reused always misses. Over the window's N samples the miss
// ratio must reproduce itself:
//
//     R·N = Σ_i h(i)·f(E(R)·i)      (h(i): samples with i accesses in between)
//
// StatCache's own equation has E = R: every miss evicts, as in a cache
// that is full from the start. But a thread's cache starts empty, and its
// first L misses fill it without evicting anything; where the data (nearly)
// fits, those are most of the misses, and E = R about doubled the cold
// misses (measured: 0.09 against 0.008 for uniformly random loads over as
// many lines as the cache holds). A reuse misses only after an eviction, so
// the misses that fill are cold ones (a line's first access), as far as
// there are L of them. The cold misses beyond those evict when they happen:
// as the thread's footprint F(t), the distinct lines among its accesses up
// to t, grows past L. The trigger therefore misses with probability
//
//     f(E·(d − 1) + C),   C = max(0, F(p + d − 1) − L) − max(0, F(p) − L)
//     E(R) = max(0, R − c − φ),   φ = max(0, L − K) / A
//
// for a sample at access p: E the reuse misses, spread over the window as
// the equation spreads everything, C the cold misses between the pair that
// evict. c is the window's cold share (its samples never reused), K the
// thread's cold misses and A its accesses; φ is the part of the fill left
// to reuse misses when there are fewer than L cold ones (a loop sampled
// where no last pass was). Spread over the whole thread as E is, the cold
// evictions would fall into the time of data that fit, and the misses they
// caused would evict in turn (tests/unit/test_analyze_mrc.cpp holds such a
// run; how the curves compare with the exact simulators, then and now:
// docs/LOCALITY-COLLECTION.md and bench/RESULTS.md).
//
// K and F are estimated from the samples (FootprintGrowth). A line's last
// access is never reused and a line has as many first accesses as last
// ones, so the samples never reused stand for the cold misses: K is their
// weight. The samples at or before t whose next access comes after t (or
// never) are each the last access before t to some line, and each line
// touched by then has one such access: their weight estimates F(t) without
// bias (at t = A, K). Its noise is that of the few dozen samples that
// cross t, and F never falls, so F is their least-squares non-decreasing
// fit (pool adjacent violators, each value weighted by the accesses it
// holds for), at most K. Profiles without positions spread the cold
// evictions evenly: C = max(0, K − L)·(d − 1)/A. A thread whose footprint
// fits never evicts (R is its cold share): the footprint is K, but at least
// one more than the largest expected LRU stack distance of a reuse (S
// distinct other lines lie between its pair), so a loop sampled where no
// last pass was sampled still fills a cache smaller than the loop.
//
// The right side over N, g(E), is increasing and concave in E, so
// g(E) − c − φ − E has at most two roots in E ≥ 0; R is g at the largest
// (g(0) when there is none: its reuse misses never evict).
// Newton's method started at or above that root descends monotonically
// onto it (the tangent of a concave function lies above it), so the solver
// needs neither a bracket nor a damping factor.
//
// Distances are bucketed: exact below 256, then 32 buckets per doubling
// (relative width 1/32), each represented by the mean of its distances. As
// f is concave, a bucket's f at its mean exceeds the mean of its f by at
// most δ²/8 · max_u u²e^{−u} = δ²/(2e²) ≈ 7·10⁻⁵ in g (δ = 1/32), which
// moves R by that over 1 − g'(R): far below the sampling error of a window.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "locality_data.hpp"

namespace sprof::analyze {

// The thread's footprint as it grows, F(t), and its cold misses K, from
// its samples (above).
class FootprintGrowth {
public:
    explicit FootprintGrowth(const ReuseStream& s);
    double cold_misses() const { return cold_; }
    // What a pair's cold evictions rest on, whatever the cache: the
    // footprint at the sample and just before its trigger (without
    // positions: the share (d − 1)/A of the run between them), found once
    // for the many cache sizes of a curve.
    struct Span {
        double from = 0, to = 0;
    };
    Span span(uint64_t position, uint64_t distance) const;
    // C: the cold misses among the accesses between a sample at `position`
    // and its trigger `distance` later that evict in a cache of `lines` lines.
    double cold_evictions(uint64_t lines, const Span& span) const;
    double cold_evictions(uint64_t lines, uint64_t position, uint64_t distance) const {
        return cold_evictions(lines, span(position, distance));
    }

private:
    double at(uint64_t access) const;  // F(access)

    double cold_ = 0, accesses_ = 0;
    bool timed_ = false;          // the samples have positions
    std::vector<uint64_t> from_;  // the first access of each step of the fit, ascending
    std::vector<double> value_;   // F from there on
};

// A thread's cache of `lines` lines as the equation sees it: the share φ
// of the thread's accesses whose misses fill it beyond its cold misses, or
// that it never fills; and when its cold misses evict.
struct CacheFill {
    uint64_t lines = 0;
    double fill = 0;    // φ = max(0, L − K) / A
    bool fills = true;  // false: the footprint ≤ L, no miss ever evicts
    const FootprintGrowth* growth = nullptr;  // null: no cold miss evicts
};

// `footprint`: the thread's estimated distinct lines; `accesses`: its A.
CacheFill cache_fill(uint64_t lines, double footprint, const FootprintGrowth& growth, double accesses);

// Where the accesses between a pair lie: how many in pieces of each kind
// (the stream's solving windows, below).
struct SpanPart {
    uint32_t kind = 0;
    double accesses = 0;
};

// A stream's pieces and their kinds, to cut a pair's span by kind.
class SpanKinds {
public:
    explicit SpanKinds(const ReuseStream& s);
    // The accesses between a sample at `position` and its trigger `distance`
    // later, per kind, appended to `out`. Without positions they all lie in
    // the sample's own solving window, `own`.
    void parts(uint64_t position, uint64_t distance, uint32_t own, std::vector<SpanPart>& out) const;

private:
    bool timed_ = false;
    std::vector<uint64_t> starts_;
    std::vector<uint32_t> kinds_;
};

// The samples of a solving window as the equation reads them, each
// weighted by the accesses it stands for (samples of merged windows may
// differ). Reuses whose accesses in between lie in pieces of one kind are
// bucketed by that kind and their distance (the bucket's mean stands for
// them); one that spans pieces of several kinds is an entry of its own.
struct WindowReuses {
    struct Entry {
        uint32_t first = 0, count = 0;  // its parts: parts[first, first + count)
        double weight = 0;              // Σ w
        // Σ w·(1 − 1/L)^C, the weight whose lines the cold evictions
        // between the pair spare (spare_cold); Σ w without them
        double spared = 0;
        double weight2 = 0;  // Σ w², for the variance
    };
    std::vector<Entry> entries;
    std::vector<SpanPart> parts;
    double no_reuse = 0, no_reuse2 = 0;
    double total = 0;  // Σ w over all samples
    size_t samples = 0;
    // Each reused sample: its entry, weight, and what its cold evictions rest on.
    struct Pair {
        uint32_t entry;
        double weight;
        FootprintGrowth::Span span;
    };
    std::vector<Pair> pairs;
};

// The windows StatCache solves its equation in, each with its own
// eviction rate, so that a program's phases get their own miss ratios.
// They are the kinds of the stream's pieces (reuse_pieces.hpp), where its
// distances are alike, as the equation assumes within a window; a sampling
// window of 10^8 accesses held a setup and the loop after it, and their one
// eviction rate took the setup's few evictions into the loop's reuses (the
// pointer chase's 2 MiB cache: 0.757 for 0.772, mean of 5 runs at 1 in
// 10^4; now 0.769). Without positions (profiles before format 1.5) they
// are the sampling windows. The equation is not linear: a window of a few
// samples has a biased root (one sample: 0 or nearly 1) and no spread to
// measure, so consecutive sampling windows of a thread are solved together
// until they hold kMinWindowSamples (a short tail joins the last), and a
// piece holds kMinPieceSamples or more unless the stream is one piece.
//
// The windows are solved together, not each on its own. A reuse's
// accesses in between lie in the pieces it spans, and each evicts at the
// rate of its own piece's kind: the trigger misses with probability
//
//     f(Σ_κ E_κ·a_κ + C)      (a_κ: the accesses in between in pieces of kind κ)
//
// Solved each alone, a window took its own rate for every access in
// between: a loop that reads one field of each struct of a large array,
// after loops that work on data that stays cached, reuses its lines a
// whole step later, across those loops; with its own eviction rate (it
// misses nearly always) for the whole step, the struct reads missed 19 in
// 20 times in a random-replacement cache of 16 MiB that holds them 6 times
// in 7 (a 17.6 MB cyclic footprint: 0.166 for 0.0255; StatCache's single
// equation over the whole run, 0.024). The system is solved by
// Gauss–Seidel: each window's root (Newton, as for one) with the others'
// rates held, until no rate moves. Each equation's right side rises with
// every rate, so started at or above the largest solution (rates of 1, or a
// smaller cache's) every step stays above it and the rates descend onto it.
constexpr size_t kMinWindowSamples = 32;
struct SolvingWindow {
    double accesses = 0;                // Σ w: the accesses its samples stand for
    std::vector<uint32_t> index;        // its samples: ReuseStream::samples[index[j]] …
    std::vector<StreamSample> samples;  // … and their copies, in that order
};
// Window k is kind k of the stream's pieces (or the k-th group of
// sampling windows without positions); a kind may be empty.
std::vector<SolvingWindow> solving_windows(const ReuseStream& s);

// Buckets window `own`'s samples (in any order); `growth` is their thread's.
WindowReuses bucket_window(std::span<const StreamSample> samples, uint32_t own, const SpanKinds& spans,
                           const FootprintGrowth& growth);

// Sets w.spared for `cache` (the thread's whose growth w was bucketed with).
void spare_cold(WindowReuses& w, const CacheFill& cache);

// Every window's miss ratio and eviction rate (the share of accesses that
// evict, E(R)) in one cache. Passed back in to solve the next (larger)
// cache from there.
struct RandomSolution {
    std::vector<double> miss_ratio, eviction;
};
void solve_random_miss_ratios(const std::vector<WindowReuses>& windows, const CacheFill& cache,
                              RandomSolution& solution);

// The probability that a reuse misses whose accesses in between are
// `parts`, with `cold_evictions` cold misses among them that evict, when
// the windows evict at `eviction`: f(Σ_κ E_κ·a_κ + C).
double random_miss_probability(std::span<const SpanPart> parts, double cold_evictions,
                               std::span<const double> eviction, uint64_t lines);

// The sampling variance of window k's R by the delta method, the other
// windows' rates held: R solves the weighted mean of ψ(R) = f(E·a + C) − R
// over the samples, so Var R ≈ Σ w²ψ² / (Σ w)² / (1 − g'(E)·E'(R))²,
// times n/(n − 1).
double random_miss_ratio_variance(const std::vector<WindowReuses>& windows, size_t k, const CacheFill& cache,
                                  const RandomSolution& solution);

}  // namespace sprof::analyze
