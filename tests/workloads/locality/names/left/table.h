// One of two headers named table.h (the other in ../right/): a report must
// tell them apart by more than their name.
#pragma once
#include <vector>

namespace left {

inline long sum(const std::vector<long>& v) {
    long s = 0;
    for (long x : v) s += x & 7;  /* left: sum */
    return s;
}

}  // namespace left
