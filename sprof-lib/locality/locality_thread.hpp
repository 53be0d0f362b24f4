// One thread's locality collection, shared by the thread itself (its hooks)
// and the writer thread that drains it.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>

#include "sprof/exact_cache.hpp"
#include "sprof/reuse_sampler.hpp"
#include "sprof/spsc_ring.hpp"

namespace sprof::rt::locality {

// An allocation or a free by the program's own code (the __wrap_ hooks), in
// the order of one process-wide count: the epoch. A sample carries the
// epoch of its moment, so the writer, replaying the events in epoch order,
// finds the block the sampled address lay in then.
struct AllocationEvent {
    uint64_t epoch = 0;
    uint64_t address = 0;
    uint64_t size = 0;  // a free: 0
    uint64_t site = 0;  // the allocation call (run-time PC); a free: 0
};

// The process's allocation count: every allocation and free takes the next
// number. Sampled mode only (exact mode names no data).
uint64_t allocation_epoch();

// A spin lock the owner takes in its slow path (rarely: sample points,
// triggers, window ends) and the writer takes to close a thread.
class SpinLock {
public:
    void lock() {
        while (flag_.test_and_set(std::memory_order_acquire)) {
#if defined(__x86_64__)
            __builtin_ia32_pause();
#endif
        }
    }
    void unlock() { flag_.clear(std::memory_order_release); }

private:
    std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

struct ThreadState {
    pid_t tid = 0;
    std::string name;
    HotPath* hot = nullptr;  // the thread's own (thread-local); valid while not `closed`
    // One of the two, as the run's mode says.
    std::unique_ptr<ReuseSampler> sampler;  // sampled: the fast path enters it now and then
    std::unique_ptr<ExactCache> exact;      // exact: every access goes through it
    bool busy = false;       // the owner only: in its slow path (a signal handler of its own stays out)
    // The collection of a thread ends once: at its exit (by the thread), or
    // when the image ends under it (by the writer, which first sets `closing`
    // so the owner stops taking the lock). Whoever ends it, under the lock,
    // stores the totals below and sets `closed`; from then on the collector
    // is the writer's. The owner's very last touch is `exited`, after which
    // the writer may free the state.
    std::atomic<bool> closing{false};
    SpinLock lock;  // held by the owner in its slow path, and to end the collection
    std::atomic<bool> closed{false};
    std::atomic<bool> exited{false};
    uint64_t final_count = 0;
    uint64_t final_unseen = 0;
    // The thread's allocations and frees, for the writer; and its stack, which
    // holds its local variables.
    SpscRing<AllocationEvent> allocations{size_t{1} << 16};
    std::atomic<uint64_t> lost_allocations{0};
    FillingAlarm allocations_alarm;  // the owner's
    volatile bool in_allocation_hook = false;  // a signal handler's malloc inside ours is not recorded
    uint64_t stack_low = 0, stack_high = 0;
    // The writer's own: a THREAD record written, exact results written, and
    // what the profile says was dropped so far.
    bool named = false;
    bool written = false;
    uint64_t lost_written = 0, lost_allocations_written = 0;
};

constexpr unsigned kMaxLocalityThreads = 4096;
// Published by their threads, reclaimed by the writer after they exit.
extern std::atomic<ThreadState*> g_threads[kMaxLocalityThreads];

}  // namespace sprof::rt::locality
