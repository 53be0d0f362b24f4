#include "sample_layout.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

namespace sprof::analyze {

std::vector<uint32_t> interleave(std::span<const uint64_t> counts) {
    // Merges the items' arithmetic sequences of places through a heap of
    // their next places: N log(items), not a sort of all N places.
    struct Next {
        double at;
        uint32_t item;
        uint64_t j;
        bool operator>(const Next& o) const { return at > o.at || (at == o.at && item > o.item); }
    };
    auto place = [&](uint32_t i, uint64_t j) { return (static_cast<double>(j) + 0.5) / static_cast<double>(counts[i]); };
    std::priority_queue<Next, std::vector<Next>, std::greater<Next>> next;
    uint64_t total = 0;
    for (uint32_t i = 0; i < counts.size(); ++i)
        if (counts[i] > 0) {
            next.push({place(i, 0), i, 0});
            total += counts[i];
        }
    std::vector<uint32_t> order;
    order.reserve(total);
    while (!next.empty()) {
        Next n = next.top();
        next.pop();
        order.push_back(n.item);
        if (++n.j < counts[n.item]) next.push({place(n.item, n.j), n.item, n.j});
    }
    return order;
}

std::vector<uint64_t> thin(std::span<const uint64_t> counts, uint64_t limit) {
    double sum = 0;  // in double: a hostile profile's counts may overflow 64 bits
    for (uint64_t c : counts) sum += static_cast<double>(c);
    std::vector<uint64_t> out(counts.begin(), counts.end());
    if (sum <= static_cast<double>(limit)) return out;
    const double scale = static_cast<double>(limit) / sum;
    std::vector<std::pair<double, uint32_t>> remainders;  // (fraction lost, item)
    uint64_t given = 0;
    for (uint32_t i = 0; i < counts.size(); ++i) {
        const double exact = static_cast<double>(counts[i]) * scale;
        out[i] = static_cast<uint64_t>(std::floor(exact));
        given += out[i];
        if (counts[i] > 0) remainders.push_back({exact - std::floor(exact), i});
    }
    // The samples left go to the largest remainders (ties: the lower index).
    std::stable_sort(remainders.begin(), remainders.end(), [](auto& a, auto& b) { return a.first > b.first; });
    for (size_t k = 0; k < remainders.size() && given < limit; ++k, ++given) ++out[remainders[k].second];
    return out;
}

}  // namespace sprof::analyze
