// The in-process sampler: per-thread state, the signal handler and the
// per-thread CPU-time timer. Everything the handler touches is preallocated.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <memory>

#include "sprof/backend.hpp"

namespace sprof::rt {

constexpr unsigned kRing = 256;        // samples buffered per thread between drains
constexpr unsigned kMaxThreads = 4096; // threads sampled over a process's life

// One sampled thread. The handler (in that thread) is the only producer, the
// writer thread the only consumer of the ring.
struct ThreadSlot {
    pid_t tid = 0;
    std::unique_ptr<TaskCounters> counters;
    int tick_fd = -1;   // the event whose overflow signals a tick: the counters' own, or own_timer_fd
    int own_timer_fd = -1;  // a task-clock timer of ours, for counters that take no ticks (cmdev)
    TickDither own_timer_dither;  // its periods
    std::atomic<uint64_t> head{0}, tail{0};
    std::atomic<uint64_t> lost{0};
    std::atomic<bool> exited{false};
    uint64_t exit_wall_ns = 0;
    RawSample ring[kRing];
};

// The table of slots; a slot is published once and reclaimed by the writer.
extern std::atomic<ThreadSlot*> g_slots[kMaxThreads];

// Chooses and installs the sampling signal. Returns the signal number or throws.
int install_handler();

// Starts sampling the calling thread: counters, timer, slot. Throws on failure.
void start_thread(Backend& backend, const TickPlan& ticks, int signo);
// Stops sampling the calling thread (thread exit, process end, fork child).
void stop_thread();
// In a forked child: forget the inherited slot without touching the parent's
// timer (the fd is shared with the parent).
void forget_thread();

}  // namespace sprof::rt
