// splitmix64 (Steele, Lea, Flood): a 64-bit generator of a few instructions
// per number with good statistics, and a seed mixer: consecutive seeds give
// unrelated streams.
#pragma once
#include <cstdint>

namespace sprof {

// The next number of the stream whose state is `state`.
inline uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace sprof
