// Two threads allocating as fast as they can: one fills a std::map, the
// other a std::unordered_map, N keys each (a node allocation per key, and
// the unordered map's bucket arrays as it grows). Their allocations come
// faster than the runtime's writer drains them, the samples too: the test
// of a runtime that loses nothing (tests/integration/loc_nothing_lost.sh).
// Built by that test with sprof-c++.
//
// usage: two_maps N   prints the two maps' sizes and key sums
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>
#include <unordered_map>

int main(int argc, char** argv) {
    const long n = argc > 1 ? std::atol(argv[1]) : 1'000'000;
    std::map<long, long> ordered;
    std::unordered_map<long, long> hashed;
    // Keys in a scrambled order (an odd multiplier modulo a power of two
    // visits each key once), so the tree's nodes are not touched in order.
    auto key = [](long i) { return (i * 2654435761L) & ((1L << 40) - 1); };
    std::thread other([&] {
        for (long i = 0; i < n; ++i) hashed[key(i)] = i;
    });
    for (long i = 0; i < n; ++i) ordered[key(i)] = i;
    other.join();
    long sum_ordered = 0, sum_hashed = 0;
    for (const auto& [k, v] : ordered) sum_ordered += v;
    for (const auto& [k, v] : hashed) sum_hashed += v;
    std::printf("%zu %zu %ld %ld\n", ordered.size(), hashed.size(), sum_ordered, sum_hashed);
    return 0;
}
