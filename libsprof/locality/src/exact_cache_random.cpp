// Fully associative caches with random replacement, one or several sizes.
#include <stdexcept>

#include "sprof/exact_cache.hpp"

namespace sprof {

RandomReplacementCache::RandomReplacementCache(uint64_t lines, uint64_t seed) : capacity_(lines), random_(seed) {
    if (lines == 0) throw std::invalid_argument("exact cache simulation: a cache of 0 lines");
}

bool RandomReplacementCache::access(uint64_t line) {
    if (slot_of_.find(line) != slot_of_.end()) return false;
    ++misses_;
    if (resident_.size() < capacity_) {
        slot_of_.emplace(line, resident_.size());
        resident_.push_back(line);
        return true;
    }
    // A uniform victim by multiply-high (Lemire): unlike
    // std::uniform_int_distribution its result is specified, so a seed
    // gives the same victims with every standard library; the bias,
    // capacity / 2^64, is far below anything measurable.
    const uint64_t victim = static_cast<uint64_t>((static_cast<unsigned __int128>(random_()) * capacity_) >> 64);
    slot_of_.erase(resident_[victim]);
    resident_[victim] = line;
    slot_of_.emplace(line, victim);
    return true;
}

RandomReplacementCurve::RandomReplacementCurve(const std::vector<uint64_t>& sizes, uint64_t seed) {
    caches_.reserve(sizes.size());
    // A seed per cache: the sizes' victims are independent draws.
    for (size_t i = 0; i < sizes.size(); ++i) caches_.emplace_back(sizes[i], seed + i);
}

void RandomReplacementCurve::access(uint64_t line) {
    for (auto& cache : caches_) cache.access(line);
}

void RandomReplacementCurve::fill(ExactCurve& curve) const {
    curve.random_lines.clear();
    curve.random_misses.clear();
    for (const auto& cache : caches_) {
        curve.random_lines.push_back(cache.lines());
        curve.random_misses.push_back(cache.misses());
    }
}

}  // namespace sprof
