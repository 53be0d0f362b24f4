#include "statstack.hpp"

#include <algorithm>
#include <limits>

namespace sprof::analyze {

StackDistanceModel::StackDistanceModel(const ReuseStream& s) {
    const size_t n = s.samples.size();
    const std::vector<uint64_t> starts = s.pieces.empty() ? std::vector<uint64_t>{0} : s.pieces;
    pieces_.resize(starts.size());
    uint32_t kinds = 0;
    for (size_t k = 0; k < starts.size(); ++k) {
        pieces_[k].start = starts[k];
        pieces_[k].kind = k < s.piece_kinds.size() ? s.piece_kinds[k] : 0;
        kinds = std::max(kinds, pieces_[k].kind + 1);
    }
    kinds_.resize(kinds);
    for (uint32_t i = 0; i < n; ++i) {
        const auto after = std::upper_bound(starts.begin(), starts.end(), s.samples[i].position);
        kinds_[pieces_[static_cast<size_t>(after - starts.begin()) - 1].kind].sample.push_back(i);
    }
    for (Kind& kind : kinds_) {
        std::sort(kind.sample.begin(), kind.sample.end(),
                  [&](uint32_t a, uint32_t b) { return s.samples[a].distance < s.samples[b].distance; });
        for (uint32_t i : kind.sample) kind.distance.push_back(s.samples[i].distance);
    }
    std::vector<double> weights(n);
    for (size_t i = 0; i < n; ++i) weights[i] = s.samples[i].weight;
    reweight(weights);

    own_first_.reserve(n + 1);
    for (uint32_t i = 0; i < n; ++i) {
        const StreamSample& x = s.samples[i];
        own_first_.push_back(static_cast<uint32_t>(own_terms_.size()));
        if (x.distance != kNoReuse) add_terms(x.distance, x.position, own_terms_);
        else never_reused_.push_back(i);
    }
    own_first_.push_back(static_cast<uint32_t>(own_terms_.size()));
}

void StackDistanceModel::reweight(std::span<const double> weights) {
    std::vector<double> in_order;
    for (size_t k = 0; k < kinds_.size(); ++k) {
        in_order.clear();
        for (const uint32_t i : kinds_[k].sample) in_order.push_back(weights[i]);
        reweight_kind(k, in_order);
    }
}

void StackDistanceModel::reweight_kind(size_t k, std::span<const double> in_kind_order) {
    Kind& kind = kinds_[k];
    const size_t n = kind.sample.size();
    kind.below.resize(n + 1);
    kind.below[0] = {};
    for (size_t j = 0; j < n; ++j) {
        const double w = in_kind_order[j];
        // Never reused: never at or below a finite t, so its product is never read.
        const double d = kind.distance[j] == kNoReuse ? 0 : static_cast<double>(kind.distance[j]);
        kind.below[j + 1] = {kind.below[j].weight + w, kind.below[j].product + w * d};
    }
    kind.weight = kind.below[n].weight;
}

void StackDistanceModel::add_terms(uint64_t distance, uint64_t position, std::vector<Term>& out) const {
    if (distance <= 1 || pieces_.empty()) return;  // no access in between
    // The accesses in between: q = position + 1 … trigger − 1 (saturated for a hostile profile).
    const uint64_t trigger = distance > std::numeric_limits<uint64_t>::max() - position ? std::numeric_limits<uint64_t>::max()
                                                                                        : position + distance;
    const uint64_t first = position + 1, last = trigger - 1;
    // The piece holding the first access in between, then every later one that starts before the trigger.
    auto it = std::upper_bound(pieces_.begin(), pieces_.end(), first,
                               [](uint64_t q, const Piece& p) { return q < p.start; });
    size_t k = static_cast<size_t>(it - pieces_.begin()) - 1;  // pieces_[0].start == 0 ≤ first
    for (; k < pieces_.size() && pieces_[k].start <= last; ++k) {
        const Piece& piece = pieces_[k];
        const Kind& kind = kinds_[piece.kind];
        const uint64_t lo = std::max(first, piece.start);
        const uint64_t hi = k + 1 < pieces_.size() ? std::min(last, pieces_[k + 1].start - 1) : last;
        // Their distances from the trigger: m = trigger − q, from trigger − hi to trigger − lo.
        auto term = [&](uint64_t t, double sign) {
            const auto below = std::upper_bound(kind.distance.begin(), kind.distance.end(), t) - kind.distance.begin();
            out.push_back({piece.kind, static_cast<uint32_t>(below), t, sign});
        };
        term(trigger - lo, 1);
        if (trigger - hi > 1) term(trigger - hi - 1, -1);
    }
}

double StackDistanceModel::value(const Term& term) const {
    const Kind& kind = kinds_[term.kind];
    const double all = kind.weight, t = static_cast<double>(term.t);
    // A kind without weight (no sample drawn in a replicate) knows nothing: every access counts.
    if (all <= 0) return term.sign * t;
    const Kind::Below& below = kind.below[term.below];
    return term.sign * (below.product + t * (all - below.weight)) / all;
}

double StackDistanceModel::expected(uint64_t distance, uint64_t position) const {
    std::vector<Term> terms;
    add_terms(distance, position, terms);
    double sum = 0;
    for (const Term& term : terms) sum += value(term);
    return std::max(sum, 0.0);
}

std::vector<double> StackDistanceModel::sample_expected() const {
    std::vector<double> out;
    sample_expected(out);
    return out;
}

void StackDistanceModel::sample_expected(std::vector<double>& out) const {
    out.resize(own_first_.size() - 1);
    for (size_t i = 0; i < out.size(); ++i) {
        double sum = 0;
        for (uint32_t j = own_first_[i]; j < own_first_[i + 1]; ++j) sum += value(own_terms_[j]);
        out[i] = std::max(sum, 0.0);
    }
    for (const uint32_t i : never_reused_) out[i] = std::numeric_limits<double>::infinity();
}

}  // namespace sprof::analyze
