// The raw sample: what one sampling tick of one thread yields. Filled in the
// signal handler (sprof_lib) or at a ptrace stop (sprof_pt); fixed size so the
// handler never allocates.
#pragma once
#include <cstdint>

namespace sprof {

constexpr unsigned kMaxEvents = 32;  // events per run (N); live set masks are 32-bit
// Frames of a call chain at most (--call-graph-depth); the kernel allows
// perf_event_max_stack of them (127 by default).
constexpr unsigned kMaxCallDepth = 128;

// The pc of a thread's tail: no tick, but what its counters counted from its
// last tick to its end (TaskCounters::tail), which goes to the function of
// its last sample. In a user-space-only profile the ticks the kernel dropped
// in a wait at a thread's end were otherwise lost with it.
constexpr uint64_t kTailPc = ~uint64_t{0};

struct RawSample {
    uint64_t pc = 0;         // program counter at the tick
    uint64_t wall_ns = 0;    // CLOCK_MONOTONIC at the tick
    uint64_t ref_ns = 0;     // reference time (thread CPU time) since the previous tick
    uint32_t live_mask = 0;  // bit e: event e was live during this sampling interval
    uint64_t delta[kMaxEvents]{};  // delta[e] valid where live_mask has bit e
    // Bit e: event e was live for only part of the interval (the live set
    // changed inside it), namely cover_ns[e] of its reference time; events
    // live but not partial were live for all of ref_ns.
    uint32_t partial_mask = 0;
    uint64_t cover_ns[kMaxEvents]{};
    // false: not a tick but the overflow record of an event that samples
    // itself (EventSpec::self_sampled), or several at one PC in a row. It has
    // no time (ref_ns 0, no partial_mask); live_mask and delta[] hold the
    // self-sampled events counted since the thread's previous record, which
    // happened along the stretch that ended at pc, and cover_ns[e] holds the
    // part of delta[e] whose place on that stretch is not known: all of an
    // event that did not overflow here, all but the last of the one that did.
    bool tick = true;
    // The user call chain the kernel recorded with the tick or record
    // (--call-graph): chain[0] is the sampled pc, then the return addresses
    // of its callers, innermost first. depth 0: none was asked for (or the
    // kernel had no user context to walk).
    uint32_t depth = 0;
    uint64_t chain[kMaxCallDepth];

    uint64_t coverage(unsigned e) const { return partial_mask & (1u << e) ? cover_ns[e] : ref_ns; }
};

}  // namespace sprof
