#pragma once
// Exact cache simulation of one thread's access stream: the reference every
// sampled locality figure is judged against. The runtime feeds it every load
// and store of an instrumented program, from the program's own threads (one
// simulator per thread, no locks); the cachegrind cross-check feeds it a
// recorded trace.
//
// Everything takes cache-line numbers (address / line size). Terms:
//  * stack distance of an access: distinct lines accessed since the previous
//    access to its line (a a → 0); a fully associative LRU cache of C lines
//    misses exactly when it is ≥ C or the access is the line's first (cold).
//  * reuse distance (StatCache): accesses since the previous access to the
//    same line, counting this one (a a → 1, a cyclic sweep of N lines → N),
//    the convention of ReuseSample::distance.
// First accesses have both distances kNoReuse.
//
// Per-access work allocates nothing in the steady state: tables grow
// geometrically with the number of distinct lines (or keys), never with the
// number of accesses. Not for signal handlers (growth allocates).

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include <tsl/robin_map.h>

#include "sprof/profile.hpp"

namespace sprof {

// Lines and keys are addresses shifted right or code addresses: their low
// bits are anything but random, and strided patterns (one line per page,
// say) would fall into a few buckets of a power-of-two table that keeps the
// low bits of an identity hash. The murmur3 finaliser spreads every input
// bit over the whole word for a few instructions.
struct LineHash {
    size_t operator()(uint64_t x) const noexcept {
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        x *= 0xc4ceb9fe1a85ec53ULL;
        x ^= x >> 33;
        return static_cast<size_t>(x);
    }
};

// Open addressing (robin hood, Debian's robin-map-dev): one probe into a
// flat array per access. With a million lines the simulator waits on that
// probe's cache miss most of its time; measured on a uniform stream over
// 1M lines: robin_map 2.5–2.9, absl::flat_hash_map 2.0–2.2,
// std::unordered_map (a node per entry, two misses) 1.1–1.2 M accesses/s.
template <typename Value>
using LineMap = tsl::robin_map<uint64_t, Value, LineHash>;

struct AccessDistances {
    uint64_t stack = kNoReuse;
    uint64_t reuse = kNoReuse;
};

// Exact stack and reuse distances, O(log n) per access (Bennett & Kruskal;
// Olken): every line remembers the time slot of its latest access, and a
// Fenwick tree over the slots marks which slots are some line's latest
// access; the stack distance is the number of marks after the line's own.
// When the slots run out the live marks are renumbered 0…n−1 in order
// (compaction) into a tree at least twice as large as the number of lines,
// so memory follows the distinct lines, not the accesses, and compaction
// costs O(1) amortised per access.
class StackDistances {
public:
    // `slots`: initial size of the tree (grows as needed); small values are
    // for tests that want compaction to happen often.
    explicit StackDistances(uint32_t slots = 1u << 16);

    AccessDistances access(uint64_t line);

    uint64_t accesses() const { return now_; }
    uint64_t distinct_lines() const { return latest_.size(); }
    uint64_t slots() const { return owner_.size(); }  // the tree's size now

private:
    struct Latest {
        uint64_t time;  // accesses() just after the line's latest access
        uint32_t slot;  // its slot in the tree
    };
    uint64_t marks_up_to(uint32_t slot) const;  // marks in slots [0, slot]
    void add_mark(uint32_t slot, uint32_t delta);
    void compact();

    LineMap<Latest> latest_;
    std::vector<uint32_t> tree_;   // Fenwick tree, 1-based: tree_[0] unused
    std::vector<uint64_t> owner_;  // slot → line whose access it was
    uint32_t next_slot_ = 0;
    uint64_t now_ = 0;
};

// The misses of fully associative LRU caches of every size of a grid, in one
// pass: a histogram of stack distances binned at the grid's sizes (misses(C)
// = accesses whose stack distance is ≥ C, cold ones included), kept per key
// (an opaque number the caller passes with each access, e.g. its PC; the
// caller maps keys to functions).
class ExactLruCurve {
public:
    // `sizes`: cache sizes in lines, ascending, e.g. cache_sizes_in_lines(64).
    explicit ExactLruCurve(std::vector<uint64_t> sizes, uint32_t slots = 1u << 16);

    struct Counted {
        AccessDistances distances;
        uint32_t row;  // the key's row: 0, 1, 2 … in the order keys first came
    };
    Counted access(uint64_t line, uint64_t key);
    uint64_t key_of_row(uint32_t row) const { return row_keys_[row]; }
    uint64_t accesses_of(uint32_t row) const;
    size_t rows() const { return row_keys_.size(); }

    uint64_t accesses() const { return distances_.accesses(); }
    const std::vector<uint64_t>& sizes() const { return sizes_; }
    std::vector<uint64_t> misses() const;  // one per size

    struct KeyCounts {
        uint64_t key = 0;
        uint64_t accesses = 0;
        std::vector<uint64_t> misses;  // one per size
    };
    std::vector<KeyCounts> keys() const;  // ordered by key

    // The thread's accesses, sizes and LRU misses (random-replacement fields
    // untouched).
    void fill(ExactCurve& curve) const;
    // Per function of thread `tid`: the keys' counts summed by
    // function_of(key), ordered by function id.
    std::vector<ExactFunction> functions(uint32_t tid, const std::function<uint32_t(uint64_t)>& function_of) const;

private:
    size_t bin(uint64_t stack_distance) const;
    KeyCounts counts_of(size_t row) const;

    StackDistances distances_;
    std::vector<uint64_t> sizes_;
    // bins_ counters per key row: bin b holds the distances in
    // [sizes_[b−1], sizes_[b]), bin 0 those below sizes_[0], the last bin
    // those ≥ the largest size and the cold accesses.
    size_t bins_;
    LineMap<uint32_t> rows_;        // key → row
    std::vector<uint64_t> row_keys_;
    std::vector<uint64_t> histograms_;  // rows × bins_
    // The first bin a stack distance of bit width w can fall in: its bin is
    // then a step or two away, where a binary search over the whole grid
    // took a fifth of the time on cache-resident streams.
    std::vector<uint32_t> first_bin_;  // 65 entries, w = 0 … 64
};

// A fully associative cache of `lines` lines that evicts a random line on a
// miss into a full cache (what StatCache models). Seeded: a run repeats.
class RandomReplacementCache {
public:
    RandomReplacementCache(uint64_t lines, uint64_t seed);

    bool access(uint64_t line);  // true on a miss

    uint64_t lines() const { return capacity_; }
    uint64_t misses() const { return misses_; }

private:
    uint64_t capacity_;
    uint64_t misses_ = 0;
    LineMap<uint64_t> slot_of_;      // resident line → its slot
    std::vector<uint64_t> resident_; // slot → line; grows to capacity_
    std::mt19937_64 random_;         // the standard's: the same victims everywhere
};

// Random replacement at several sizes side by side (no inclusion property:
// each size is its own cache), for ExactCurve::random_lines/random_misses.
class RandomReplacementCurve {
public:
    RandomReplacementCurve(const std::vector<uint64_t>& sizes, uint64_t seed);

    void access(uint64_t line);
    void fill(ExactCurve& curve) const;

private:
    std::vector<RandomReplacementCache> caches_;
};

// SIP's spatial and temporal use, exactly: in a fully associative LRU cache
// of each size (lines), every miss brings its line in and starts a tenure
// that lasts until the line's next miss. A tenure counts every access,
// however many (a sampled one follows at most kTenureAccesses): bytes read
// or written and the chunks of the line touched. Charged to the row
// (ExactLruCurve's key row) of the access that started it when it ends.
class ExactTenures {
public:
    ExactTenures(std::vector<uint64_t> sizes, uint32_t line_size);

    // An access by row `row` with LRU stack distance `stack` (kNoReuse: cold).
    void access(uint64_t line, uint64_t stack, uint32_t row, uint64_t address, uint32_t size);
    // The stream's use so far, every open tenure ended now: per row, one
    // ExactUse per size (rows the LRU curve never saw have none).
    std::vector<std::vector<ExactUse>> uses() const;
    const std::vector<uint64_t>& sizes() const { return sizes_; }

private:
    struct Open {
        uint32_t row = UINT32_MAX;  // UINT32_MAX: no tenure yet
        uint64_t bytes = 0;
        uint64_t used = 0;
    };
    void close(const Open& t, size_t size, std::vector<std::vector<ExactUse>>& into) const;

    std::vector<uint64_t> sizes_;
    uint32_t line_size_;
    uint32_t chunk_;
    LineMap<uint32_t> first_open_;  // line → its tenures' index in opens_ (sizes_.size() of them)
    std::vector<Open> opens_;
    std::vector<std::vector<ExactUse>> closed_;  // per row, per size
};

// A set-associative LRU cache (sets × ways; the set of a line is line mod
// sets), the kind cachegrind and real hardware simulate.
class SetAssociativeLru {
public:
    SetAssociativeLru(uint64_t sets, uint32_t ways);

    bool access(uint64_t line);  // true on a miss

    uint64_t sets() const { return sets_; }
    uint32_t ways() const { return ways_; }

private:
    uint64_t sets_;
    uint32_t ways_;
    std::vector<uint64_t> lines_;   // per set, ways_ entries, most recent first
    std::vector<uint32_t> filled_;  // per set, entries in use
};

// Everything exact mode simulates for one thread: LRU at every grid size
// (with per-key counts), random replacement at a few sizes, and the
// tenures of LRU caches at the detail sizes.
class ExactCache {
public:
    struct Sizes {
        std::vector<uint64_t> lru, random, detail;  // in lines, each ascending
    };
    ExactCache(Sizes sizes, uint32_t line_size, uint64_t seed);

    // An access by instruction `key` (its PC) of `size` bytes at `address`, within `line`.
    void access(uint64_t line, uint64_t key, uint64_t address, uint32_t size, bool write) {
        const ExactLruCurve::Counted c = lru_.access(line, key);
        if (c.row >= writes_.size()) writes_.resize(c.row + 1, false);
        if (write) writes_[c.row] = true;
        tenures_.access(line, c.distances.stack, c.row, address, size);
        random_.access(line);
    }

    ExactCurve curve(uint32_t tid) const;
    const ExactLruCurve& lru() const { return lru_; }
    // Per instruction (code_of maps a key to the profile's CodeRef): its
    // accesses and the use of the tenures it started at each detail size.
    std::vector<ExactInstruction> instructions(uint32_t tid, const std::function<CodeRef(uint64_t)>& code_of) const;

private:
    ExactLruCurve lru_;
    RandomReplacementCurve random_;
    ExactTenures tenures_;
    std::vector<bool> writes_;  // per row: the instruction wrote
};

}  // namespace sprof
