#include "statstack.hpp"

#include <algorithm>

namespace sprof::analyze {

namespace {

// from[j] = weight of the samples at distance j or beyond (no reuse included);
// from[n] = the weight never reused.
std::vector<double> weight_from(const ReuseHistogram& h) {
    const size_t n = h.distance.size();
    std::vector<double> from(n + 1, h.no_reuse);
    for (size_t j = n; j-- > 0;) from[j] = from[j + 1] + h.weight[j];
    return from;
}

}  // namespace

std::vector<double> expected_stack_distances(const ReuseHistogram& h) {
    const size_t n = h.distance.size();
    std::vector<double> stack(n);
    if (n == 0) return stack;
    const std::vector<double> from = weight_from(h);
    const double total = from[0];
    // P(D > k) is a step function: 1 below the first distance d_0, and
    // from[j + 1] / total from d_j up to d_{j+1} − 1. Sum it step by step.
    double sum = static_cast<double>(h.distance[0] - 1);  // k = 0 … d_0 − 2
    stack[0] = sum;
    for (size_t j = 0; j + 1 < n; ++j) {
        // k = d_j − 1, where P(D > k) = P(D ≥ d_j); then k = d_j … d_{j+1} − 2.
        sum += (from[j] + static_cast<double>(h.distance[j + 1] - h.distance[j] - 1) * from[j + 1]) / total;
        stack[j + 1] = sum;
    }
    return stack;
}

StackDistanceModel::StackDistanceModel(const ReuseHistogram& h)
    : distance_(h.distance), stack_(expected_stack_distances(h)), from_(weight_from(h)) {
    const double total = from_.empty() ? 0 : from_[0];
    for (double& f : from_) f = total > 0 ? f / total : 0;
}

double StackDistanceModel::expected(uint64_t distance, uint64_t) const {
    if (distance <= 1) return 0;
    // j: the last distance of the histogram ≤ distance − 1. Σ_{k=0}^{d−2} P(D > k)
    // is E[S] up to d_j, then P(D ≥ d_j) for k = d_j − 1, then P(D > d_j)
    // for each k from d_j to d − 2.
    const auto after = std::upper_bound(distance_.begin(), distance_.end(), distance - 1);
    if (after == distance_.begin()) return static_cast<double>(distance - 1);  // P(D > k) = 1 below d_0
    const size_t j = static_cast<size_t>(after - distance_.begin()) - 1;
    return stack_[j] + from_[j] + static_cast<double>(distance - 1 - distance_[j]) * from_[j + 1];
}

std::vector<double> lru_miss_weights(const ReuseHistogram& h, std::span<const double> stack,
                                     std::span<const uint64_t> lines) {
    // E[S] grows with the distance, so the misses at each size are a suffix.
    const size_t n = h.distance.size();
    const std::vector<double> from = weight_from(h);
    std::vector<double> misses;
    misses.reserve(lines.size());
    size_t j = 0;
    for (uint64_t c : lines) {
        while (j < n && stack[j] < static_cast<double>(c)) ++j;
        misses.push_back(from[j]);
    }
    return misses;
}

}  // namespace sprof::analyze
