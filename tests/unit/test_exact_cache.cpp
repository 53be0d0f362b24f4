#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <list>
#include <map>
#include <random>

#include "sprof/cache_sizes.hpp"
#include "sprof/exact_cache.hpp"

using namespace sprof;

namespace {

constexpr uint64_t kCold = kNoReuse;

// The textbook reference (Mattson et al. 1970): an LRU stack as a list,
// most recent first; an access's stack distance is its line's depth in the
// list. O(distinct lines) per access: slow, and obviously right.
struct MattsonStack {
    std::vector<uint64_t> stack;
    std::map<uint64_t, uint64_t> last_time;
    uint64_t now = 0;

    AccessDistances access(uint64_t line) {
        ++now;
        AccessDistances d;
        auto at = std::find(stack.begin(), stack.end(), line);
        if (at != stack.end()) {
            d.stack = static_cast<uint64_t>(at - stack.begin());
            d.reuse = now - last_time[line];
            stack.erase(at);
        }
        stack.insert(stack.begin(), line);
        last_time[line] = now;
        return d;
    }
};

// A fully associative LRU cache of `capacity` lines, simulated directly.
struct ListLru {
    size_t capacity;
    std::list<uint64_t> lines;
    bool access(uint64_t line) {
        auto at = std::find(lines.begin(), lines.end(), line);
        const bool miss = at == lines.end();
        if (!miss) lines.erase(at);
        else if (lines.size() == capacity) lines.pop_back();
        lines.push_front(line);
        return miss;
    }
};

// Random traces with reuse at every scale: mostly a hot set, sometimes a
// line anywhere in `lines`.
std::vector<uint64_t> skewed_trace(size_t accesses, uint64_t lines, uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<uint64_t> trace(accesses);
    for (auto& line : trace) {
        const uint64_t range = random() % 4 == 0 ? lines : lines / 16 + 1;
        line = (random() % range) * 7919;  // strided, as addresses of one field in an array are
    }
    return trace;
}

std::vector<uint64_t> cyclic_sweep(uint64_t lines, uint64_t rounds) {
    std::vector<uint64_t> trace;
    for (uint64_t r = 0; r < rounds; ++r)
        for (uint64_t l = 0; l < lines; ++l) trace.push_back(1000 + l);
    return trace;
}

}  // namespace

TEST_CASE("stack distances: hand-computed traces") {
    StackDistances sd;
    // a b c a b c
    const uint64_t expect_stack[] = {kCold, kCold, kCold, 2, 2, 2};
    const uint64_t expect_reuse[] = {kCold, kCold, kCold, 3, 3, 3};
    const uint64_t trace[] = {10, 11, 12, 10, 11, 12};
    for (int i = 0; i < 6; ++i) {
        AccessDistances d = sd.access(trace[i]);
        CHECK(d.stack == expect_stack[i]);
        CHECK(d.reuse == expect_reuse[i]);
    }
    // a a: nothing in between, the next access
    StackDistances twice;
    CHECK(twice.access(5).stack == kCold);
    AccessDistances d = twice.access(5);
    CHECK(d.stack == 0);
    CHECK(d.reuse == 1);
    // a b b b a: one distinct line, four accesses in between
    StackDistances repeated;
    for (uint64_t line : {1, 2, 2, 2}) repeated.access(line);
    d = repeated.access(1);
    CHECK(d.stack == 1);
    CHECK(d.reuse == 4);
    CHECK(repeated.accesses() == 5);
    CHECK(repeated.distinct_lines() == 2);
}

TEST_CASE("stack distances: a cyclic sweep of N lines reuses at N−1 distinct lines, N accesses") {
    const uint64_t n = 100;
    StackDistances sd(8);  // compacts and grows along the way
    uint64_t i = 0;
    for (uint64_t line : cyclic_sweep(n, 5)) {
        AccessDistances d = sd.access(line);
        if (i++ < n) {
            CHECK(d.stack == kCold);
        } else {
            CHECK(d.stack == n - 1);
            CHECK(d.reuse == n);
        }
    }
}

TEST_CASE("stack distances: compaction keeps them exact (against the Mattson stack)") {
    // A tree of 4 slots compacts thousands of times on 100k accesses.
    for (uint32_t slots : {1u, 4u, 1u << 16}) {
        for (uint64_t lines : {40u, 3000u}) {
            CAPTURE(slots);
            CAPTURE(lines);
            StackDistances sd(slots);
            MattsonStack reference;
            size_t wrong = 0;
            for (uint64_t line : skewed_trace(100'000, lines, lines + slots)) {
                AccessDistances got = sd.access(line), want = reference.access(line);
                wrong += got.stack != want.stack || got.reuse != want.reuse;
            }
            CHECK(wrong == 0);
            CHECK(sd.distinct_lines() == reference.stack.size());
        }
    }
}

TEST_CASE("stack distances: memory follows the distinct lines, not the accesses") {
    StackDistances sd(4);
    for (uint64_t line : cyclic_sweep(1000, 1000)) sd.access(line);
    CHECK(sd.accesses() == 1'000'000);
    CHECK(sd.distinct_lines() == 1000);
    // Grown by doubling from 4 to at least twice the lines, and no further.
    CHECK(sd.slots() == 2048);
}

TEST_CASE("LRU curve: a cyclic sweep misses always below N lines and only cold at N") {
    const uint64_t n = 64, rounds = 10;
    ExactLruCurve curve({n - 2, n - 1, n, n + 1});
    for (uint64_t line : cyclic_sweep(n, rounds)) curve.access(line, 0);
    CHECK(curve.accesses() == n * rounds);
    CHECK(curve.misses() == std::vector<uint64_t>{n * rounds, n * rounds, n, n});
}

TEST_CASE("LRU curve at the grid sizes, per key, against the Mattson stack and direct LRU") {
    const std::vector<uint64_t> grid = cache_sizes_in_lines(64);
    const std::vector<uint64_t> trace = skewed_trace(100'000, 4000, 7);
    auto key_of = [](size_t i) { return uint64_t{0x401000} + 4 * (i % 5); };  // five "PCs"
    ExactLruCurve curve(grid, 16);
    MattsonStack reference;
    std::map<uint64_t, std::vector<uint64_t>> key_misses;
    std::map<uint64_t, uint64_t> key_accesses;
    std::vector<uint64_t> misses(grid.size(), 0);
    for (size_t i = 0; i < trace.size(); ++i) {
        curve.access(trace[i], key_of(i));
        const uint64_t distance = reference.access(trace[i]).stack;
        auto& km = key_misses[key_of(i)];
        km.resize(grid.size(), 0);
        ++key_accesses[key_of(i)];
        for (size_t s = 0; s < grid.size(); ++s) {
            if (distance >= grid[s]) {
                ++misses[s];
                ++km[s];
            }
        }
    }
    CHECK(curve.misses() == misses);
    // The curve has a shape: more misses in small caches, cold ones only in big.
    CHECK(misses.front() > 10 * misses.back());
    CHECK(misses.back() == reference.stack.size());

    auto keys = curve.keys();
    REQUIRE(keys.size() == 5);
    for (const auto& k : keys) {
        CAPTURE(k.key);
        CHECK(k.accesses == key_accesses[k.key]);
        CHECK(k.misses == key_misses[k.key]);
    }

    // Keys 0x401000 and 0x401008 in function 3, the rest in function 1.
    auto functions = curve.functions(42, [](uint64_t key) { return key == 0x401000 || key == 0x401008 ? 3u : 1u; });
    REQUIRE(functions.size() == 2);
    CHECK(functions[0].function == 1);
    CHECK(functions[1].function == 3);
    CHECK(functions[0].tid == 42);
    CHECK(functions[1].accesses == key_accesses[0x401000] + key_accesses[0x401008]);
    CHECK(functions[0].accesses + functions[1].accesses == trace.size());
    for (size_t s = 0; s < grid.size(); ++s)
        CHECK(functions[0].lru_misses[s] + functions[1].lru_misses[s] == misses[s]);

    // Stack distance ≥ C is exactly a miss of an LRU cache of C lines.
    for (size_t s : {size_t{0}, size_t{9}, size_t{17}}) {
        ListLru lru{grid[s], {}};
        uint64_t direct = 0;
        for (uint64_t line : trace) direct += lru.access(line);
        CHECK(direct == misses[s]);
    }

    ExactCurve out;
    curve.fill(out);
    CHECK(out.accesses == trace.size());
    CHECK(out.lines == grid);
    CHECK(out.lru_misses == misses);
}

TEST_CASE("LRU curve and random replacement: uniform accesses miss with probability 1 − C/M") {
    // Every access is uniform over M lines and independent of what the
    // cache holds, so once it is full a cache of C lines hits with
    // probability C/M exactly, whatever it evicts.
    const uint64_t m = 1000, accesses = 1'000'000;
    const std::vector<uint64_t> sizes = {100, 250, 500, 900};
    ExactLruCurve lru(sizes);
    RandomReplacementCurve random(sizes, 1);
    std::mt19937_64 draw(2);
    for (uint64_t i = 0; i < accesses; ++i) {
        const uint64_t line = draw() % m;
        lru.access(line, 0);
        random.access(line);
    }
    ExactCurve curve;
    lru.fill(curve);
    random.fill(curve);
    CHECK(curve.random_lines == sizes);
    for (size_t s = 0; s < sizes.size(); ++s) {
        const double p = 1.0 - static_cast<double>(sizes[s]) / m;
        const double tolerance = 5 * std::sqrt(p * (1 - p) / accesses) + 1e-4;  // 5 σ; + the filling
        CAPTURE(sizes[s]);
        CHECK(std::fabs(static_cast<double>(curve.lru_misses[s]) / accesses - p) < tolerance);
        CHECK(std::fabs(static_cast<double>(curve.random_misses[s]) / accesses - p) < tolerance);
    }
}

TEST_CASE("random replacement: exact cases of a cyclic sweep, and victim by victim against a plain list") {
    const uint64_t n = 50, rounds = 20;
    const auto trace = cyclic_sweep(n, rounds);
    auto misses_of = [&](uint64_t lines) {
        RandomReplacementCache cache(lines, 3);
        for (uint64_t line : trace) cache.access(line);
        return cache.misses();
    };
    CHECK(misses_of(n) == n);               // everything fits: cold misses only
    CHECK(misses_of(n + 10) == n);
    CHECK(misses_of(1) == n * rounds);      // one line: every access misses
    // Random replacement, unlike LRU, keeps part of a sweep a line too big.
    CHECK(misses_of(n - 1) < n * rounds / 2);

    // The same victims as a plain vector scanned linearly, drawn the
    // documented way (multiply-high of mt19937_64's output).
    for (uint64_t lines : {7u, 30u, 49u}) {
        CAPTURE(lines);
        RandomReplacementCache cache(lines, 11);
        std::mt19937_64 random(11);
        std::vector<uint64_t> resident;
        size_t differ = 0;
        for (uint64_t line : skewed_trace(20'000, 200, lines)) {
            bool miss = std::find(resident.begin(), resident.end(), line) == resident.end();
            if (miss && resident.size() < lines) {
                resident.push_back(line);
            } else if (miss) {
                resident[static_cast<uint64_t>((static_cast<unsigned __int128>(random()) * lines) >> 64)] = line;
            }
            differ += cache.access(line) != miss;
        }
        CHECK(differ == 0);
    }
}

TEST_CASE("set-associative LRU: hand-computed, and fully associative equals the stack distances") {
    SetAssociativeLru cache(2, 2);  // lines 0, 2, 4 … share set 0
    CHECK(cache.access(0));
    CHECK(cache.access(2));
    CHECK_FALSE(cache.access(0));
    CHECK(cache.access(4));        // evicts 2, the least recent
    CHECK_FALSE(cache.access(0));
    CHECK(cache.access(2));        // evicts 4
    CHECK(cache.access(1));        // set 1 is untouched by all that
    CHECK_FALSE(cache.access(0));

    SetAssociativeLru direct_mapped(4, 1);
    CHECK(direct_mapped.access(3));
    CHECK(direct_mapped.access(7));  // same set: evicts 3
    CHECK(direct_mapped.access(3));
    CHECK(direct_mapped.access(4));
    CHECK_FALSE(direct_mapped.access(3));

    const auto trace = skewed_trace(50'000, 2000, 5);
    const std::vector<uint64_t> sizes = {16, 64, 200};
    ExactLruCurve curve(sizes);
    std::vector<SetAssociativeLru> full;
    for (uint64_t c : sizes) full.emplace_back(1, static_cast<uint32_t>(c));
    std::vector<uint64_t> misses(sizes.size(), 0);
    for (uint64_t line : trace) {
        curve.access(line, 0);
        for (size_t s = 0; s < sizes.size(); ++s) misses[s] += full[s].access(line);
    }
    CHECK(curve.misses() == misses);
}

TEST_CASE("exact cache: one thread's curve, LRU and random fields") {
    ExactCache cache({.lru = {2, 4}, .random = {2, 4}, .detail = {2}}, 64, 9);
    for (uint64_t line : cyclic_sweep(3, 4)) cache.access(line, 0x10, line * 64, 8, false);
    ExactCurve curve = cache.curve(7);
    CHECK(curve.detail_lines == std::vector<uint64_t>{2});
    CHECK(curve.tid == 7);
    CHECK(curve.accesses == 12);
    CHECK(curve.lines == std::vector<uint64_t>{2, 4});
    CHECK(curve.lru_misses == std::vector<uint64_t>{12, 3});
    CHECK(curve.random_lines == std::vector<uint64_t>{2, 4});
    CHECK(curve.random_misses[1] == 3);
    CHECK(curve.random_misses[0] > 3);
    REQUIRE(cache.lru().keys().size() == 1);
    CHECK(cache.lru().keys()[0].key == 0x10);
}

TEST_CASE("exact cache: bad sizes are refused with a reason") {
    CHECK_THROWS_WITH_AS(ExactLruCurve({4, 4}), "exact cache simulation: cache sizes must be strictly ascending",
                         std::invalid_argument);
    CHECK_THROWS_AS(ExactLruCurve({8, 4}), std::invalid_argument);
    CHECK_THROWS_AS(RandomReplacementCache(0, 1), std::invalid_argument);
    CHECK_THROWS_AS(SetAssociativeLru(0, 8), std::invalid_argument);
    CHECK_THROWS_AS(SetAssociativeLru(64, 0), std::invalid_argument);
}

TEST_CASE("exact tenures against a hand-computed trace: the miss starts, the next miss ends") {
    // A cache of 2 lines. (line, offset, key): A0 A8 B0 A16 C0 D0 A0.
    // A0 misses (cold) and starts A's tenure; A8 and A16 hit (stack distances 0
    // and 1); C0 and D0 miss cold; the last A0 sees C and D since A16: stack
    // distance 2, a miss that ends A's first tenure (3 accesses, 24 bytes,
    // bytes 0-23) and starts its second. B, C, D and A's second tenure end
    // with the stream.
    ExactCache cache({.lru = {1, 2}, .random = {}, .detail = {2}}, 64, 1);
    struct A {
        uint64_t line;
        uint32_t offset;
        uint64_t key;
        bool write;
    };
    for (const A& a : {A{10, 0, 100, false}, A{10, 8, 101, false}, A{11, 0, 200, true}, A{10, 16, 102, false},
                       A{12, 0, 300, false}, A{13, 0, 400, false}, A{10, 0, 100, false}})
        cache.access(a.line, a.key, a.line * 64 + a.offset, 8, a.write);
    const auto ins = cache.instructions(5, [](uint64_t key) { return CodeRef{1, key}; });
    std::map<uint64_t, ExactInstruction> by_key;
    for (const auto& i : ins) by_key[i.pc.address] = i;
    REQUIRE(by_key.size() == 6);
    CHECK(by_key[100].accesses == 2);
    CHECK(by_key[100].at[0].misses == 2);
    CHECK(by_key[100].at[0].bytes == 24 + 8);
    CHECK(by_key[100].at[0].used_bytes == 24 + 8);
    CHECK_FALSE(by_key[100].write);
    CHECK(by_key[200].write);
    CHECK(by_key[200].at[0].misses == 1);
    for (uint64_t hit : {101u, 102u}) {
        CHECK(by_key[hit].accesses == 1);
        CHECK(by_key[hit].at[0].misses == 0);
        CHECK(by_key[hit].at[0].bytes == 0);
    }
    // Misses at the detail size are the LRU misses of the same size, per instruction.
    for (const auto& k : cache.lru().keys()) CHECK(by_key[k.key].at[0].misses == k.misses[1]);
}

TEST_CASE("exact tenures count every access of a tenure, 49 or 1000 of them") {
    // Line 3 read 8 bytes at a time, word after word (8 words, all 64
    // bytes): a stay of 49 accesses, evicted by a sweep of 4 other lines from
    // a cache of 4 lines, then a stay of 1000 accesses up to the end. By
    // hand: stay 1 reads 49 × 8 = 392 bytes of 64 (SIP's temporal use
    // 392 / 64 − 1 = 5.125); stay 2 8000 bytes (temporal use 124); the
    // sweep's 4 lines one miss each, 8 bytes.
    ExactCache cache({.lru = {4}, .random = {}, .detail = {4}}, 64, 1);
    auto stay = [&](uint32_t n) {
        for (uint32_t i = 0; i < n; ++i) cache.access(3, 7, 3 * 64 + 8 * (i % 8), 8, false);
    };
    stay(49);
    for (uint64_t other = 10; other < 14; ++other) cache.access(other, 9, other * 64, 8, false);
    const auto first = cache.instructions(1, [](uint64_t key) { return CodeRef{0, key}; });
    REQUIRE(first.size() == 2);
    const ExactInstruction& line3 = first[0].pc.address == 7 ? first[0] : first[1];
    CHECK(line3.at[0].misses == 1);
    CHECK(line3.at[0].bytes == 49 * 8);
    CHECK(line3.at[0].used_bytes == 64);
    stay(1000);
    const auto both = cache.instructions(1, [](uint64_t key) { return CodeRef{0, key}; });
    const ExactInstruction& again = both[0].pc.address == 7 ? both[0] : both[1];
    CHECK(again.accesses == 1049);
    CHECK(again.at[0].misses == 2);
    CHECK(again.at[0].bytes == (49 + 1000) * 8);
    CHECK(again.at[0].used_bytes == 2 * 64);
}

TEST_CASE("exact tenures on 128-byte lines count 2-byte chunks") {
    ExactCache cache({.lru = {4}, .random = {}, .detail = {4}}, 128, 1);
    cache.access(0, 1, 0, 1, false);    // chunk 0
    cache.access(0, 1, 127, 1, false);  // chunk 63
    const auto ins = cache.instructions(1, [](uint64_t key) { return CodeRef{0, key}; });
    CHECK(ins[0].at[0].used_bytes == 4);
    CHECK(ins[0].at[0].bytes == 2);
}
