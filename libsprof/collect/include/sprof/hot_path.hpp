// What every load and store of a program built with sprof-cc reads and
// writes: its thread's HotPath. One definition for the three that touch it:
//  * the compiler plugin (sprof-lib/locality/access_plugin.cpp), which
//    inlines the fast path into the program's code: it takes the offsets
//    of the fields and the hash factor from this header;
//  * libsprof_access.so, which every sprof-cc program links, and the
//    runtime (libsprof_rt.so), which sprof_lib preloads over it: both define
//    the thread-local variable SPROF_HOT_PATH_VARIABLE (the runtime's comes
//    first in the dynamic linker's lookup, so the program, its libraries
//    and both sets of hooks all use that one);
//  * the reuse sampler and the runtime, which arm it.
// So the layout is pinned below: the plugin's inline code and the hooks
// built from this header must agree on it byte for byte.
//
// Kept free of the rest of sprof (the plugin is compiled against gcc's
// headers, which poison much of the C library).
#pragma once
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace sprof {

// Zero-initialised (but for the line size), a HotPath sends its first
// access to the slow path. The thread-local one starts disarmed instead
// (disarmed_hot_path()): a program built with sprof-cc and run without the
// runtime never leaves its fast path.
struct HotPath {
    std::atomic<uint64_t> count{0};  // accesses so far (the inline code adds a group's at its start);
                                     // the owner adds, a reader may look
    uint64_t next_event = 0;         // the slow path runs when count reaches this
    const uint8_t* filter = nullptr; // per bucket of lines: nonzero when one may be watched
    uint64_t filter_mask = 0;        // buckets − 1 (a power of two minus one)
    uint64_t line_mask = ~uint64_t{63};  // an address's line: address & line_mask (~(line size − 1))
    std::atomic<uint64_t> unseen_words{0};  // memcpy/memset/str* traffic the compiler did not instrument
};

// The layout the plugin's inline code assumes (it reads these offsets from
// this header, so a change here is a change of both sides, made on purpose).
static_assert(offsetof(HotPath, count) == 0 && sizeof(HotPath::count) == 8);
static_assert(offsetof(HotPath, next_event) == 8 && sizeof(HotPath::next_event) == 8);
static_assert(offsetof(HotPath, filter) == 16 && sizeof(HotPath::filter) == 8);
static_assert(offsetof(HotPath, filter_mask) == 24 && sizeof(HotPath::filter_mask) == 8);
static_assert(offsetof(HotPath, line_mask) == 32 && sizeof(HotPath::line_mask) == 8);
static_assert(offsetof(HotPath, unseen_words) == 40 && sizeof(HotPath) == 48 && alignof(HotPath) == 8);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

// The thread-local HotPath (initial-exec TLS), and its symbol's name for the plugin.
#define SPROF_HOT_PATH_VARIABLE __sprof_hot_path
#define SPROF_HOT_PATH_SYMBOL SPROF_STRING_OF(SPROF_HOT_PATH_VARIABLE)
#define SPROF_STRING_OF(x) SPROF_STRING_OF_TOKENS(x)
#define SPROF_STRING_OF_TOKENS(x) #x

// The filter's bucket of a line, from the address of its first byte: bits
// 32 and up of its product with an odd factor below 2^31 (an immediate
// operand of x86's imul, so the inline code needs no register for it),
// masked to the filter's size. Consecutive and strided lines spread over
// the buckets; no variable shift (x86 wants the count in %cl).
constexpr uint64_t kFilterHashFactor = 0x61c88647;  // 2^32 / golden ratio
inline uint64_t filter_bucket(uint64_t line_address, uint64_t filter_mask) {
    return ((line_address * kFilterHashFactor) >> 32) & filter_mask;
}

inline unsigned line_shift(const HotPath& h) { return static_cast<unsigned>(std::countr_zero(h.line_mask)); }

// Counts one access of the stream (its number, 1, 2, 3 …, goes to n) and
// says whether it needs the slow path. The plugin's inline code decides
// the same for a group of accesses (access_plugin.cpp), from the access's
// address (address & line_mask: the line's first byte), and leaves the
// doubtful ones to the hooks, which decide here.
inline bool count_access(HotPath& h, uint64_t line, uint64_t& n) {
    n = h.count.load(std::memory_order_relaxed) + 1;
    h.count.store(n, std::memory_order_relaxed);  // one owner: a plain add, readable by another thread
    return n >= h.next_event || h.filter[filter_bucket(line << line_shift(h), h.filter_mask)];
}

// The filter of a disarmed fast path: nothing watched. Each object that
// includes this header may have its own copy: only its zeros matter.
constexpr size_t kNothingWatchedSize = 4096;
alignas(64) inline constexpr uint8_t kNothingWatched[kNothingWatchedSize] = {};

// A fast path that never takes the slow path: no sample points, no watched
// lines, 64-byte lines. A thread's HotPath starts so (a constant initializer:
// the dynamic linker copies it into every thread).
constexpr HotPath disarmed_hot_path() {
    return HotPath{{0}, UINT64_MAX, kNothingWatched, kNothingWatchedSize - 1, ~uint64_t{63}, {0}};
}

// Points the fast path at nothing (keeps its counts and line size).
inline void disarm(HotPath& h) {
    h.next_event = UINT64_MAX;
    h.filter = kNothingWatched;
    h.filter_mask = kNothingWatchedSize - 1;
}

}  // namespace sprof

// The thread's HotPath (C linkage: the plugin names it by its symbol).
extern "C" __attribute__((visibility("default"), tls_model("initial-exec"))) __thread sprof::HotPath
    SPROF_HOT_PATH_VARIABLE;
// Defines it, disarmed (in libsprof_access.so and in the runtime).
// (The definition repeats the model: gcc takes a definition's own.)
#define SPROF_DEFINE_HOT_PATH                                                                         \
    constinit __thread sprof::HotPath SPROF_HOT_PATH_VARIABLE __attribute__((tls_model("initial-exec"))) = \
        sprof::disarmed_hot_path()
