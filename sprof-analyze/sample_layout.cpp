#include "sample_layout.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sprof::analyze {

std::vector<uint32_t> interleave(std::span<const uint64_t> counts) {
    struct Place {
        double at;
        uint32_t item;
    };
    std::vector<Place> places;
    places.reserve(std::accumulate(counts.begin(), counts.end(), uint64_t{0}));
    for (uint32_t i = 0; i < counts.size(); ++i)
        for (uint64_t j = 0; j < counts[i]; ++j)
            places.push_back({(static_cast<double>(j) + 0.5) / static_cast<double>(counts[i]), i});
    std::stable_sort(places.begin(), places.end(), [](const Place& a, const Place& b) { return a.at < b.at; });
    std::vector<uint32_t> order;
    order.reserve(places.size());
    for (const Place& p : places) order.push_back(p.item);
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
