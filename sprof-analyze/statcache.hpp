// StatCache (Berg & Hagersten, ISPASS 2004): the miss ratio R of a fully
// associative cache of L lines with random replacement, from the reuse
// distances sampled in one window.
//
// Between a sampled access and its trigger lie d − 1 other accesses
// (statstack.hpp has the distance convention). Each of them misses with
// probability R, and each miss evicts a random line, ours with probability
// 1/L; so the trigger misses with probability f(R·(d − 1)),
// f(n) = 1 − (1 − 1/L)^n. A sample never reused always misses. Over the
// window's N samples the miss ratio must reproduce itself:
//
//     R·N = Σ_i h(i)·f(R·i)      (h(i): samples with i accesses in between)
//
// The right side over N, g(R), is increasing and concave in R, so g(R) − R
// has at most one root above 0; R is the largest root (0 when there is none).
// Newton's method started at or above that root descends monotonically onto
// it (the tangent of a concave function lies above it), so the solver needs
// neither a bracket nor a damping factor.
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

// The probability that a reuse with `between` accesses in between misses
// when a share `miss_ratio` of all accesses miss: f(miss_ratio · between).
double random_miss_probability(double between, double miss_ratio, uint64_t lines);

// R for a cache of `lines` lines. `start` must be at or above the root: 1,
// or R of a smaller cache (R falls as the cache grows).
double solve_random_miss_ratio(const WindowReuses& w, uint64_t lines, double start = 1);

// The sampling variance of R by the delta method: R solves the weighted
// mean of ψ(R) = f(R·i) − R over the samples, so
// Var R ≈ Σ w²ψ² / (Σ w)² / (1 − g'(R))², times n/(n − 1).
double random_miss_ratio_variance(const WindowReuses& w, uint64_t lines, double miss_ratio);

}  // namespace sprof::analyze
