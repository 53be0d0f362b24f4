// One thread's locality collection, shared by the thread itself (its hooks)
// and the writer thread that drains it.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>

#include "sprof/exact_cache.hpp"
#include "sprof/reuse_sampler.hpp"

namespace sprof::rt::locality {

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
    HotPath* hot = nullptr;  // the thread's own (thread-local); valid until `exited`
    // One of the two, as the run's mode says.
    std::unique_ptr<ReuseSampler> sampler;  // sampled: the fast path enters it now and then
    std::unique_ptr<ExactCache> exact;      // exact: every access goes through it
    bool busy = false;       // the owner only: in its slow path (a signal handler of its own stays out)
    // The writer ends the collection of a thread that still runs (the image
    // ends): it sets `closing`, after which the owner no longer takes the lock,
    // then takes it itself and sets `closed`.
    std::atomic<bool> closing{false};
    SpinLock lock;           // held by the owner in its slow path; guards what follows
    bool closed = false;     // the collection is over: the owner leaves the collector alone
    std::atomic<bool> exited{false};  // the thread is gone (set under the lock); its totals are below
    uint64_t final_count = 0;
    uint64_t final_unseen = 0;
    // The writer's own: a THREAD record written, exact results written.
    bool named = false;
    bool written = false;
};

constexpr unsigned kMaxLocalityThreads = 4096;
// Published by their threads, reclaimed by the writer after they exit.
extern std::atomic<ThreadState*> g_threads[kMaxLocalityThreads];

}  // namespace sprof::rt::locality
