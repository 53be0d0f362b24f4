// ExactTenures: every LRU tenure of every line at a few cache sizes.
#include <algorithm>
#include <bit>
#include <stdexcept>

#include "sprof/exact_cache.hpp"
#include "sprof/reuse_sampler.hpp"

namespace sprof {

ExactTenures::ExactTenures(std::vector<uint64_t> sizes, uint32_t line_size)
    : sizes_(std::move(sizes)), line_size_(line_size) {
    if (std::adjacent_find(sizes_.begin(), sizes_.end(), std::greater_equal<>()) != sizes_.end())
        throw std::invalid_argument("exact cache simulation: detail sizes must be strictly ascending");
    if (!std::has_single_bit(line_size)) throw std::invalid_argument("exact cache simulation: line size not a power of two");
    chunk_ = line_size > 64 ? line_size / 64 : 1;
}

void ExactTenures::close(const Open& t, size_t size, std::vector<std::vector<ExactUse>>& into) const {
    if (t.row >= into.size()) into.resize(t.row + 1, std::vector<ExactUse>(sizes_.size()));
    ExactUse& u = into[t.row][size];
    ++u.misses;
    u.used_bytes += static_cast<uint64_t>(std::popcount(t.used)) * chunk_;
    u.bytes += t.bytes;
}

void ExactTenures::access(uint64_t line, uint64_t stack, uint32_t row, uint64_t address, uint32_t size) {
    if (sizes_.empty()) return;
    auto [at, first] = first_open_.try_emplace(line, static_cast<uint32_t>(opens_.size()));
    if (first) opens_.resize(opens_.size() + sizes_.size());
    Open* open = &opens_[at->second];
    const uint64_t touched = chunks_touched(address, size, line_size_);
    const uint32_t bytes = std::max<uint32_t>(size, 1);
    for (size_t j = 0; j < sizes_.size(); ++j) {
        Open& t = open[j];
        if (stack >= sizes_[j]) {  // a miss (cold ones have stack kNoReuse): the line comes in anew
            if (t.row != UINT32_MAX) close(t, j, closed_);
            t = Open{row, bytes, touched};
        } else {  // a hit: every one is counted, however long the tenure (no cap as in a followed line)
            t.bytes += bytes;
            t.used |= touched;
        }
    }
}

std::vector<std::vector<ExactUse>> ExactTenures::uses() const {
    std::vector<std::vector<ExactUse>> all = closed_;
    for (size_t i = 0; i < opens_.size(); ++i)
        if (opens_[i].row != UINT32_MAX) close(opens_[i], i % sizes_.size(), all);
    return all;
}

}  // namespace sprof
