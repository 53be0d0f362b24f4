// A C++ program whose hot code is libstdc++'s: lookups in a std::map and a
// std::unordered_map, made by a class template of its own, so that its
// functions have the long names C++ gives them and its misses land on
// stl_tree.h and hashtable.h lines inlined into the user's code. Two
// headers named table.h (left/, right/) hold code of their own. Built with
// sprof-c++ by tests/integration/loc_names.sh and loc_html_cpp.sh, which
// find the lines below by their marker comments.
//
// usage: catalogue KEYS LOOKUPS   prints the sums it found
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <vector>

#include "left/table.h"
#include "right/table.h"

struct Record {
    long weight;
    long padding[5];  // a node per cache line and more: lookups miss
};

template <typename Key, typename Container>
struct Catalogue {
    Container items;

    __attribute__((noinline)) void fill(const std::vector<Key>& keys) {
        for (const Key& k : keys) items[k] = Record{k & 1023, {}};  /* user: fill */
    }

    __attribute__((noinline)) long total(const std::vector<Key>& wanted) const {
        long sum = 0;
        for (const Key& k : wanted) {
            auto it = items.find(k);  /* user: lookup */
            if (it != items.end()) sum += it->second.weight;
        }
        return sum;
    }
};

int main(int argc, char** argv) {
    const long keys = argc > 1 ? std::atol(argv[1]) : 100000;
    const long lookups = argc > 2 ? std::atol(argv[2]) : 1000000;
    // Keys in a scrambled order (an odd multiplier modulo a power of two
    // visits each once), so neighbouring lookups touch unrelated nodes.
    auto key = [](long i) { return (i * 2654435761L) & ((1L << 40) - 1); };
    std::vector<long> all(keys), wanted(lookups);
    for (long i = 0; i < keys; ++i) all[i] = key(i);
    for (long i = 0; i < lookups; ++i) wanted[i] = key((i * 7919) % keys);
    Catalogue<long, std::map<long, Record>> ordered;
    Catalogue<long, std::unordered_map<long, Record>> hashed;
    ordered.fill(all);
    hashed.fill(all);
    const long a = ordered.total(wanted), b = hashed.total(wanted);
    std::printf("%ld %ld %ld %ld\n", a, b, left::sum(wanted), right::sum(all));
    return 0;
}
