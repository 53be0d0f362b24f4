// Set-associative LRU: what cachegrind simulates, for the cross-check.
#include <stdexcept>

#include "sprof/exact_cache.hpp"

namespace sprof {

SetAssociativeLru::SetAssociativeLru(uint64_t sets, uint32_t ways) : sets_(sets), ways_(ways) {
    if (sets == 0 || ways == 0) throw std::invalid_argument("exact cache simulation: a cache needs at least one set and one way");
    lines_.resize(sets * ways);
    filled_.resize(sets, 0);
}

bool SetAssociativeLru::access(uint64_t line) {
    const uint64_t set = line % sets_;
    uint64_t* ways = &lines_[set * ways_];
    uint32_t& filled = filled_[set];
    uint32_t i = 0;
    while (i < filled && ways[i] != line) ++i;
    const bool miss = i == filled;
    if (miss) {
        if (filled < ways_) ++filled;
        i = filled - 1;  // a free way, or the least recent line, which goes
    }
    for (; i > 0; --i) ways[i] = ways[i - 1];
    ways[0] = line;
    return miss;
}

}  // namespace sprof
