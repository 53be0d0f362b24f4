// What every load and store of a program built with sprof-cc reads and
// writes: its thread's HotPath. One definition for the three that touch it:
//  * the compiler plugin (sprof-cc/access_plugin.cpp), which
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

// As initialised here, a HotPath sends its first access to the slow path.
// The thread-local one starts disarmed instead (disarmed_hot_path()): a
// program built with sprof-cc and run without the runtime never leaves its
// fast path.
//
// The count runs down: `until_event` is the number of accesses that pass
// before the next event (a sample point or a window's end, access number
// `next_event`), so the inline code takes a group's m numbers and tests for
// the event in one instruction and a jump (until_event −= m; the group holds
// the event when the result is negative). The count of accesses so far is
// next_event − 1 − until_event (counted()); moving the event keeps it
// (set_next_event()).
struct HotPath {
    std::atomic<int64_t> until_event{0};  // the owner subtracts, a reader may look
    uint64_t next_event = 1;              // the number of the next access that takes the slow path for itself
    const uint8_t* filter = nullptr;      // per 64-byte granule of memory: nonzero when a watched line may lie there
    uint64_t filter_mask = 0;             // granules − 1 (a power of two minus one)
    uint64_t line_mask = ~uint64_t{63};   // an address's line: address & line_mask (~(line size − 1))
    std::atomic<uint64_t> unseen_words{0};  // memcpy/memset/str* traffic the compiler did not instrument
};

// The layout the plugin's inline code assumes (it reads these offsets from
// this header, so a change here is a change of both sides, made on purpose).
static_assert(offsetof(HotPath, until_event) == 0 && sizeof(HotPath::until_event) == 8);
static_assert(offsetof(HotPath, next_event) == 8 && sizeof(HotPath::next_event) == 8);
static_assert(offsetof(HotPath, filter) == 16 && sizeof(HotPath::filter) == 8);
static_assert(offsetof(HotPath, filter_mask) == 24 && sizeof(HotPath::filter_mask) == 8);
static_assert(offsetof(HotPath, line_mask) == 32 && sizeof(HotPath::line_mask) == 8);
static_assert(offsetof(HotPath, unseen_words) == 40 && sizeof(HotPath) == 48 && alignof(HotPath) == 8);
static_assert(std::atomic<int64_t>::is_always_lock_free && std::atomic<uint64_t>::is_always_lock_free);

// The thread-local HotPath (initial-exec TLS), and its symbol's name for the
// plugin. The name carries the layout's version: a program built for
// another layout then fails to start ("undefined symbol") instead of
// counting wrong.
#define SPROF_HOT_PATH_VARIABLE __sprof_hot_path_2
#define SPROF_HOT_PATH_SYMBOL SPROF_STRING_OF(SPROF_HOT_PATH_VARIABLE)
#define SPROF_STRING_OF(x) SPROF_STRING_OF_TOKENS(x)
#define SPROF_STRING_OF_TOKENS(x) #x

// The filter has a byte per 64-byte granule of memory, whatever the line
// size: granule (address >> 6) & filter_mask. The inline code needs no
// line mask and no multiply for it, just a shift and a mask, and the
// granules of nearby addresses are neighbours, so one 2-, 4- or 8-byte
// probe covers a run of accesses at small offsets from one pointer. A
// watched line marks every granule it covers (lines of 128 bytes or more:
// several); smaller lines share one. The filter's last kFilterPad bytes
// repeat its first ones, so a probe that starts near the end reads the
// granules it wraps around to.
constexpr unsigned kFilterGranuleShift = 6;
constexpr size_t kFilterPad = 8;
inline uint64_t filter_bucket(uint64_t address, uint64_t filter_mask) {
    return (address >> kFilterGranuleShift) & filter_mask;
}

inline unsigned line_shift(const HotPath& h) { return static_cast<unsigned>(std::countr_zero(h.line_mask)); }

// The accesses counted so far.
inline uint64_t counted(const HotPath& h) {
    return h.next_event - 1 - static_cast<uint64_t>(h.until_event.load(std::memory_order_relaxed));
}

// Moves the next event to access `event`, keeping the count: one add to
// until_event, so a signal handler's accesses in between stay counted.
inline void set_next_event(HotPath& h, uint64_t event) {
    h.until_event.fetch_add(static_cast<int64_t>(event - h.next_event), std::memory_order_relaxed);
    h.next_event = event;
}

// Counts one access of the stream (its number, 1, 2, 3 …, goes to n) and
// says whether it needs the slow path. The plugin's inline code decides
// the same for a group of accesses (access_plugin.cpp) and leaves the
// doubtful ones to the hooks, which decide here.
inline bool count_access(HotPath& h, uint64_t address, uint64_t& n) {
    const int64_t left = h.until_event.load(std::memory_order_relaxed) - 1;
    h.until_event.store(left, std::memory_order_relaxed);  // one owner: a plain subtraction, readable by another thread
    n = h.next_event - 1 - static_cast<uint64_t>(left);
    return left < 0 || h.filter[filter_bucket(address, h.filter_mask)];
}

// The filter of a disarmed fast path: nothing watched. Each object that
// includes this header may have its own copy: only its zeros matter.
constexpr size_t kNothingWatchedSize = 4096;
alignas(64) inline constexpr uint8_t kNothingWatched[kNothingWatchedSize + kFilterPad] = {};

// Where a disarmed fast path puts its next event: beyond any count a
// thread reaches (2^62 accesses), with room below 2^63 for until_event.
constexpr uint64_t kNoEvent = uint64_t{1} << 62;

// A fast path that never takes the slow path: no sample points, no watched
// lines, 64-byte lines. A thread's HotPath starts so (a constant initializer:
// the dynamic linker copies it into every thread).
constexpr HotPath disarmed_hot_path() {
    return HotPath{{static_cast<int64_t>(kNoEvent - 1)}, kNoEvent, kNothingWatched, kNothingWatchedSize - 1,
                   ~uint64_t{63}, {0}};
}

// Points the fast path at nothing (keeps its counts and line size).
inline void disarm(HotPath& h) {
    set_next_event(h, counted(h) + kNoEvent);
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
