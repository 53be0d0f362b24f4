// ExactLruCurve: LRU misses at every grid size from one histogram of stack
// distances per key; ExactCache: what exact mode simulates for one thread.
#include <algorithm>
#include <bit>
#include <map>
#include <stdexcept>

#include "sprof/exact_cache.hpp"

namespace sprof {

ExactLruCurve::ExactLruCurve(std::vector<uint64_t> sizes, uint32_t slots)
    : distances_(slots), sizes_(std::move(sizes)), bins_(sizes_.size() + 1) {
    if (std::adjacent_find(sizes_.begin(), sizes_.end(), std::greater_equal<>()) != sizes_.end())
        throw std::invalid_argument("exact cache simulation: cache sizes must be strictly ascending");
    // The smallest distance of bit width w is 2^(w−1) (0 for w = 0).
    for (int w = 0; w <= 64; ++w) {
        const uint64_t smallest = w == 0 ? 0 : uint64_t{1} << (w - 1);
        first_bin_.push_back(static_cast<uint32_t>(std::upper_bound(sizes_.begin(), sizes_.end(), smallest) - sizes_.begin()));
    }
}

size_t ExactLruCurve::bin(uint64_t stack_distance) const {
    // The number of sizes ≤ the distance: the access misses in exactly
    // those caches (kNoReuse is ≥ every size).
    size_t b = first_bin_[std::bit_width(stack_distance)];
    while (b < sizes_.size() && sizes_[b] <= stack_distance) ++b;
    return b;
}

ExactLruCurve::Counted ExactLruCurve::access(uint64_t line, uint64_t key) {
    const AccessDistances d = distances_.access(line);
    auto [it, first] = rows_.try_emplace(key, static_cast<uint32_t>(row_keys_.size()));
    if (first) {
        row_keys_.push_back(key);
        histograms_.resize(histograms_.size() + bins_, 0);
    }
    ++histograms_[it->second * bins_ + bin(d.stack)];
    return {d, it->second};
}

namespace {
// Misses at size j = the accesses in bins after j.
void add_misses(const uint64_t* histogram, size_t bins, uint64_t& accesses, std::vector<uint64_t>& misses) {
    uint64_t beyond = 0;
    for (size_t b = bins - 1; b >= 1; --b) {
        beyond += histogram[b];
        misses[b - 1] += beyond;
    }
    accesses += beyond + histogram[0];
}
}  // namespace

ExactLruCurve::KeyCounts ExactLruCurve::counts_of(size_t row) const {
    KeyCounts counts{row_keys_[row], 0, std::vector<uint64_t>(sizes_.size(), 0)};
    add_misses(&histograms_[row * bins_], bins_, counts.accesses, counts.misses);
    return counts;
}

uint64_t ExactLruCurve::accesses_of(uint32_t row) const {
    const uint64_t* histogram = &histograms_[row * bins_];
    uint64_t accesses = 0;
    for (size_t b = 0; b < bins_; ++b) accesses += histogram[b];
    return accesses;
}

std::vector<uint64_t> ExactLruCurve::misses() const {
    std::vector<uint64_t> misses(sizes_.size(), 0);
    uint64_t accesses = 0;
    for (size_t row = 0; row < row_keys_.size(); ++row) add_misses(&histograms_[row * bins_], bins_, accesses, misses);
    return misses;
}

std::vector<ExactLruCurve::KeyCounts> ExactLruCurve::keys() const {
    std::vector<KeyCounts> keys;
    keys.reserve(row_keys_.size());
    for (size_t row = 0; row < row_keys_.size(); ++row) keys.push_back(counts_of(row));
    std::sort(keys.begin(), keys.end(), [](const KeyCounts& a, const KeyCounts& b) { return a.key < b.key; });
    return keys;
}

void ExactLruCurve::fill(ExactCurve& curve) const {
    curve.accesses = accesses();
    curve.lines = sizes_;
    curve.lru_misses = misses();
}

std::vector<ExactFunction> ExactLruCurve::functions(uint32_t tid,
                                                    const std::function<uint32_t(uint64_t)>& function_of) const {
    std::map<uint32_t, ExactFunction> by_function;
    for (size_t row = 0; row < row_keys_.size(); ++row) {
        const uint32_t function = function_of(row_keys_[row]);
        auto [it, first] = by_function.try_emplace(function);
        ExactFunction& f = it->second;
        if (first) f = {tid, function, 0, std::vector<uint64_t>(sizes_.size(), 0)};
        add_misses(&histograms_[row * bins_], bins_, f.accesses, f.lru_misses);
    }
    std::vector<ExactFunction> functions;
    functions.reserve(by_function.size());
    for (auto& [function, f] : by_function) functions.push_back(std::move(f));
    return functions;
}

ExactCache::ExactCache(Sizes sizes, uint32_t line_size, uint64_t seed)
    : lru_(std::move(sizes.lru)), random_(sizes.random, seed), tenures_(std::move(sizes.detail), line_size) {}

ExactCurve ExactCache::curve(uint32_t tid) const {
    ExactCurve curve;
    curve.tid = tid;
    lru_.fill(curve);
    random_.fill(curve);
    curve.detail_lines = tenures_.sizes();
    return curve;
}

std::vector<ExactInstruction> ExactCache::instructions(uint32_t tid,
                                                       const std::function<CodeRef(uint64_t)>& code_of) const {
    const std::vector<std::vector<ExactUse>> uses = tenures_.uses();
    std::vector<ExactInstruction> out;
    out.reserve(lru_.rows());
    for (uint32_t row = 0; row < lru_.rows(); ++row) {
        out.push_back(ExactInstruction{tid, code_of(lru_.key_of_row(row)), row < writes_.size() && writes_[row],
                                       lru_.accesses_of(row),
                                       row < uses.size() ? uses[row] : std::vector<ExactUse>(tenures_.sizes().size())});
    }
    return out;
}

}  // namespace sprof
