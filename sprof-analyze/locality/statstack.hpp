// StatStack (Eklöv & Hagersten, ISPASS 2010): LRU miss ratios of a fully
// associative cache from sampled reuse distances alone, converted with the
// distribution of the phase each reuse lies in.
//
// Convention (profile.hpp): the distance d of a reuse is the number of
// accesses from the sampled access to the next access to its line, counting
// that access; consecutive accesses to one line have d = 1, and d − 1 other
// accesses lie between. An LRU cache of C lines misses the trigger exactly
// when at least C distinct other lines were accessed in between (its stack
// distance S ≥ C).
//
// An access q between the sample (at position p) and its trigger (p + d)
// adds a distinct line when it is the last access to its line before the
// trigger, i.e. when its own forward distance D_q reaches p + d − q:
//
//     S = #{q : p < q < p + d, D_q ≥ p + d − q}
//
// StatStack takes every D_q from the distribution P of the stream's
// sampled distances (samples never reused count as infinite):
//
//     E[S(d)] = Σ_{m=1}^{d−1} P(D ≥ m) = E[min(D, d − 1)]
//
// A cyclic sweep over N lines (every d = N) gives E[S] = N − 1: misses below
// N lines, hits from N on, as an LRU cache does. But one distribution for a
// whole thread overestimates the stack distances of a phase with a smaller
// footprint than the rest of the run (a setup before the main loop, the
// sorting phase of a compressor) and underestimates those of a larger one.
//
// Time-local conversion. The stream is cut into pieces wherever its
// distribution of distances changes (reuse_pieces.hpp); each access between
// the pair draws its D from the distribution P_φ of the samples of its own
// piece φ, at its own distance from the trigger:
//
//     E[S] = Σ_{q=p+1}^{p+d−1} P_φ(q)(D ≥ p + d − q)
//          = Σ_φ G_φ(m_hi) − G_φ(m_lo − 1),   G_φ(t) = Σ_{m=1}^{t} P_φ(D ≥ m) = E_φ[min(D, t)]
//
// where [m_lo, m_hi] are the distances from the trigger of the accesses
// between the pair that lie in φ, and P_φ is the distribution of φ's kind:
// the samples of every piece like it (reuse_pieces.hpp). A reuse inside one piece is StatStack's
// formula with that piece's distribution; a stream of one piece is
// StatStack's. A reuse too short to have a sample in between needs none:
// its accesses draw from the piece they lie in.
//
// Why pieces and not just the samples between the pair: counting the
// sampled q with D_q ≥ p + d − q, each standing for its weight w, estimates
// S without bias but with a variance of about S·w — at 1 sample in 10^4 the
// stack distance of a reuse near a 4 KiB cache (64 lines) would be known to
// ±800 lines — and a reuse shorter than the sampling gap has no sample in
// between at all. A piece pools the samples of a whole phase instead and
// assumes its accesses alike (StatStack's assumption, made per phase
// instead of per thread); reuse_pieces.hpp has the trade-off between the
// two. Profiles older than format 1.5 have no positions: their streams are
// one piece, converted as StatStack does.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "locality_data.hpp"

namespace sprof::analyze {

// E[S] of a reuse of any distance at any position of one stream: what every
// view that asks "does this reuse (or this gap of a followed line) miss in
// a cache of C lines?" asks — the curve, per-sample misses, tenures, reuse
// pairs.
class StackDistanceModel {
public:
    // A stream's samples, weights and pieces (no pieces: one).
    explicit StackDistanceModel(const ReuseStream& s);

    // E[S] of the reuse of `distance` from the access at `position`.
    double expected(uint64_t distance, uint64_t position) const;

    // E[S] of each sample's own reuse (∞ for one never reused: it misses
    // in every cache), in the stream's order. Faster than expected() per
    // sample: each reuse's places in the pieces are found once. The second
    // form fills `out` (the bootstrap keeps one buffer for its replicates).
    std::vector<double> sample_expected() const;
    void sample_expected(std::vector<double>& out) const;

    // The same pieces with new weights (weights[i] ≥ 0 for the stream's
    // sample i): the bootstrap's replicates. reweight_kind gives kind k's
    // in the kind's order (that of kind_samples(k)), as the bootstrap
    // draws them.
    void reweight(std::span<const double> weights);
    void reweight_kind(size_t k, std::span<const double> in_kind_order);

    size_t pieces() const { return pieces_.size(); }
    size_t kinds() const { return kinds_.size(); }
    // The stream's samples of kind k (indices into ReuseStream::samples).
    std::span<const uint32_t> kind_samples(size_t k) const { return kinds_[k].sample; }

private:
    struct Piece {
        uint64_t start = 0;  // its first access
        uint32_t kind = 0;   // whose distribution its accesses draw from
    };
    // The samples of every piece of one kind (reuse_pieces.hpp), pooled.
    struct Kind {
        std::vector<uint64_t> distance;     // its samples' distances, ascending (kNoReuse last)
        std::vector<uint32_t> sample;       // the stream's index of each
        // Σ w and Σ w·d of the first k samples (k = 0 … n), side by side:
        // a term reads both, from anywhere in the kind.
        struct Below {
            double weight = 0, product = 0;
        };
        std::vector<Below> below;
        double weight = 0;  // Σ w of all its samples
    };
    // ± G_φ(t), with `below` = the kind's samples at distance ≤ t.
    struct Term {
        uint32_t kind = 0, below = 0;
        uint64_t t = 0;
        double sign = 1;
    };
    void add_terms(uint64_t distance, uint64_t position, std::vector<Term>& out) const;
    double value(const Term& term) const;

    std::vector<Piece> pieces_;
    std::vector<Kind> kinds_;
    std::vector<Term> own_terms_;       // of every sample's reuse
    std::vector<uint32_t> own_first_;   // sample i's terms: own_terms_[own_first_[i], own_first_[i + 1])
    std::vector<uint32_t> never_reused_;  // the samples never reused (E[S] = ∞)
};

}  // namespace sprof::analyze
