// One of two headers named table.h (the other in ../left/): a report must
// tell them apart by more than their name.
#pragma once
#include <vector>

namespace right {

inline long sum(const std::vector<long>& v) {
    long s = 0;
    for (size_t i = 0; i < v.size(); i += 3) s += v[i] & 7;  /* right: sum */
    return s;
}

}  // namespace right
