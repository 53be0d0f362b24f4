// Where a thread's reuse distances change their distribution: the pieces
// of its stream that the time-local StatStack (statstack.hpp) converts each
// reuse with, and the accesses each sample stands for.
//
// Finding the pieces: binary segmentation with the two-sample
// Kolmogorov–Smirnov statistic. The samples of a stretch of the stream, in
// the order of their positions, are cut at the sample c that maximises
//
//     T(c) = √(n_l·n_r / n) · max_b |F_l(b) − F_r(b)|
//
// (n_l, n_r: the samples before c and from c on; F: the share of them whose
// distance falls in bin b or below; bins of half a doubling of the
// distance, and one for the samples never reused), when T(c) exceeds
// kPieceCutThreshold; then each side is cut again, until no cut passes.
// Each side of a cut keeps kMinPieceSamples samples or more.
//
// The trade-off: a piece's distribution comes from its own samples alone,
// so smaller pieces follow a phase more closely and convert with more
// noise. kMinPieceSamples bounds the noise (each P(D ≥ m) of a piece to
// ±1/(2√32) = ±0.09 at worst); the threshold keeps a stream that never
// changes in one piece: over n samples drawn from one distribution, the
// largest T(c) of all cuts exceeds 2.5 in fewer than 1 run in 200
// (simulated: 1,000 runs each of n = 1,000 and 5,000 and 300 of
// n = 20,000; the 99th percentile is 2.1–2.2). A phase that the test
// cannot tell from its neighbours (too few samples, or too alike) is
// converted with theirs: StatStack's assumption, within a piece.
//
// Kinds of pieces. A program that repeats its phases (a step of several
// loops, run 60 times) is cut at every phase change, and each piece's
// distribution rests on its own few hundred samples. Converting a long
// reuse adds up the pieces it spans; with every piece's own noise the stack
// distance of a reuse just beyond a cache size fell below it in one step in
// ten, and the LRU curve lost those misses (a 17.6 MB cyclic footprint at
// 16 MiB: 0.185 for 0.209, the exact value outside the band). So pieces
// whose distributions the two-sample test cannot tell apart (T ≤
// kKindThreshold, the test's 99 % level for one comparison) are one kind,
// and every model converts with the kind's pooled samples: each piece
// keeps its own place in time, and the repeated phase its thousands of
// samples. A piece joins the first kind it matches best, in the order of
// the stream, or starts a new one.
//
// The accesses a sample stands for (post-stratification). Within a thread,
// a sample taken 1 in R stands for R accesses, and a piece for as many
// accesses as its samples — a count with a relative error of 1/√n for n
// samples. But a piece cut where the distribution changes begins and ends
// at the change, to within one sampling gap, so its accesses are known
// from the positions: each piece holds the thread's weight in proportion
// to the accesses it spans (from halfway between its first sample and the
// one before, to halfway between its last and the one after; the first
// from the stream's start, the last to its end), shared among its samples
// in proportion to their window's accesses / samples.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sprof/profile.hpp"

namespace sprof::analyze {

constexpr size_t kMinPieceSamples = 32;
constexpr double kPieceCutThreshold = 2.5;
constexpr double kKindThreshold = 1.63;

// `distances`: a stream's samples in the order of their positions, kNoReuse
// for a sample never reused. Returns the index of each piece's first
// sample, ascending; the first is 0 (none for no samples).
std::vector<size_t> reuse_piece_starts(std::span<const uint64_t> distances);

// The kind of each piece (`starts` as reuse_piece_starts gives them),
// numbered in order of first appearance.
std::vector<uint32_t> reuse_piece_kinds(std::span<const uint64_t> distances, std::span<const size_t> starts);

}  // namespace sprof::analyze
