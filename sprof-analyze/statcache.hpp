// StatCache (Berg & Hagersten, ISPASS 2004): the miss ratio R of a fully
// associative cache of L lines with random replacement, from the reuse
// distances sampled in one window.
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
// many lines as the cache holds). So only the misses beyond the fill evict:
// over a thread of A accesses and footprint F lines (the distinct lines it
// touches), min(L, F) misses fill, and spread over its accesses as the
// equation spreads everything,
//
//     E(R) = max(0, R − φ),   φ = min(L, F) / A      (F ≤ L: E = 0, R is the cold share)
//
// F is estimated from the samples: the weight of those never reused (a
// line's last access is never reused, so they stand for the lines), but at
// least one more than the largest expected LRU stack distance of a reuse
// (S distinct other lines lie between its pair): a loop sampled where no
// last pass was sampled still fills a cache smaller than the loop.
//
// The right side over N, g(E), is increasing and concave in E, so
// g(E) − φ − E has at most two roots in E ≥ 0; R is φ + the largest (R is
// the window's cold share when there is none: its misses never evict).
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

// The samples of a window as the equation reads them, each weighted by
// the accesses it stands for (samples of merged windows may differ).
struct WindowReuses {
    std::vector<double> between;  // per bucket: the weighted mean of d − 1
    std::vector<double> weight;   // per bucket: Σ w
    std::vector<double> weight2;  // per bucket: Σ w², for the variance
    double no_reuse = 0, no_reuse2 = 0;
    double total = 0;             // Σ w over all samples
    size_t samples = 0;
};

// Buckets samples in any order.
WindowReuses bucket_window(std::span<const StreamSample> samples);

// The windows StatCache solves its equation in. Per window, each phase of a
// program gets its own miss ratio; but the equation is not linear, and a
// window of a few samples has a biased root (one sample: 0 or nearly 1) and
// no spread to measure. So consecutive windows of a thread are solved
// together until they hold kMinWindowSamples (a short tail joins the last).
constexpr size_t kMinWindowSamples = 32;
std::vector<StreamWindow> solving_windows(const ReuseStream& s);

// A thread's cache of `lines` lines as the equation sees it: the share φ
// of the thread's accesses that fill it, or that it never fills.
struct CacheFill {
    uint64_t lines = 0;
    double fill = 0;    // φ = min(L, F) / A
    bool fills = true;  // false: F ≤ L, no miss ever evicts
};

// `footprint`: the thread's estimated distinct lines F; `accesses`: its A.
CacheFill cache_fill(uint64_t lines, double footprint, double accesses);

// The share of accesses that evict, E(R).
double eviction_ratio(double miss_ratio, const CacheFill& cache);

// The probability that a reuse with `between` accesses in between misses
// when a share `eviction_ratio` of all accesses evict: f(eviction_ratio · between).
double random_miss_probability(double between, double eviction_ratio, uint64_t lines);

// R for a thread's cache. `start`: where Newton's method begins, best at or
// above the root: 1, or R of a smaller cache (R falls as the cache grows).
double solve_random_miss_ratio(const WindowReuses& w, const CacheFill& cache, double start = 1);

// The sampling variance of R by the delta method: R solves the weighted
// mean of ψ(R) = f(E(R)·i) − R over the samples, so
// Var R ≈ Σ w²ψ² / (Σ w)² / (1 − g'(E)·E'(R))², times n/(n − 1).
double random_miss_ratio_variance(const WindowReuses& w, const CacheFill& cache, double miss_ratio);

}  // namespace sprof::analyze
