// The collecting side of the access hooks: each thread's fast path on its
// own thread-local HotPath, its slow path into its sampler, and the start
// and end of a thread's collection. The hooks' entry points are included at
// the end: preloaded, they take the place of libsprof_access.so's no-ops.
// The HotPath defined here takes the place of libsprof_access.so's too, so
// the fast path that the compiler plugin inlined into the program and the
// hooks (called by the inline code's slow branch, and by code compiled
// without the plugin) count on the same one.
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "../runtime.hpp"
#include "locality_runtime.hpp"
#include "sprof/cache_sizes.hpp"
#include "sprof/proc.hpp"
#include "sprof/splitmix.hpp"
#include "locality_thread.hpp"

// Disarmed until thread_start() arms it: a thread the runtime does not collect
// never leaves the fast path.
SPROF_DEFINE_HOT_PATH;

namespace sprof::rt::locality {

std::atomic<ThreadState*> g_threads[kMaxLocalityThreads];

namespace {

struct Settings {
    bool on = false;
    bool exact = false;
    bool sampler_on = false;  // sampled mode: allocations are recorded
    SamplerSettings sampler;
    uint64_t line_mask = 0;  // ~(line size − 1)
    uint64_t seed = 0;
    ExactCache::Sizes exact_sizes;  // LRU at every size of the grid; random replacement and tenures in detail
};
Settings g_settings;
std::atomic<uint64_t> g_thread_ordinal{0};
std::atomic<uint64_t> g_allocation_epoch{0};

__thread ThreadState* tls_state __attribute__((tls_model("initial-exec"))) = nullptr;

HotPath& hot() { return SPROF_HOT_PATH_VARIABLE; }

// The slow path: a thread not collected (or not yet) is disarmed; a signal
// handler that interrupts the slow path of its thread counts its accesses
// but samples none.
// Its arguments in registers, so the fast path needs no stack frame.
__attribute__((noinline)) void slow_access(uint64_t n, uint64_t line, uint64_t address, uint32_t size, bool write,
                                           void* return_address) {
    const Access a{address, reinterpret_cast<uint64_t>(return_address) - 1, size, write,  // pc: inside the call
                   g_allocation_epoch.load(std::memory_order_relaxed)};
    ThreadState* t = tls_state;
    if (!t) {
        disarm(hot());
        return;
    }
    if (t->busy) return;
    if (t->closing.load(std::memory_order_relaxed)) {
        disarm(hot());
        return;
    }
    t->busy = true;
    t->lock.lock();
    bool wake = false;
    if (t->closed.load(std::memory_order_relaxed)) disarm(hot());
    else if (t->sampler) wake = t->sampler->access(hot(), n, line, a);
    else t->exact->access(line, a.pc, a.address, a.size, a.write);
    t->lock.unlock();
    t->busy = false;
    if (wake) wake_writer();
}

inline void note_line(uint64_t line, uint64_t address, uint32_t size, bool write, void* pc) {
    if (uint64_t n; count_access(hot(), address, n)) [[unlikely]]
        slow_access(n, line, address, size, write, pc);
}

// A range across lines: one access per line it touches, as a cache sees it.
__attribute__((noinline)) void note_lines(uint64_t start, uint64_t end, uint32_t shift, bool write, void* pc) {
    for (uint64_t line = start >> shift; line <= (end - 1) >> shift; ++line) {
        const uint64_t from = std::max(start, line << shift);
        const uint64_t to = std::min(end, (line + 1) << shift);
        note_line(line, from, static_cast<uint32_t>(to - from), write, pc);
    }
}

// gcc calls the _range hooks for unaligned accesses of a few bytes (sqlite3:
// ~10^7 a second), nearly all within one line: that case saves no registers.
void note_range(const volatile void* p, size_t size, bool write, void* pc) {
    if (size == 0) return;
    const auto start = reinterpret_cast<uint64_t>(p);
    const uint32_t shift = line_shift(hot());
    if (start >> shift == (start + size - 1) >> shift) [[likely]]
        note_line(start >> shift, start, static_cast<uint32_t>(size), write, pc);
    else
        note_lines(start, start + size, shift, write, pc);
}

// Accesses of 1 to 8 bytes are naturally aligned (gcc calls the _range
// hooks otherwise) and lines are at least 8 bytes: one line each.
template <unsigned Size>
[[gnu::always_inline]] inline void note_access(const volatile void* p, bool write, void* pc) {
    if constexpr (Size <= 8) {
        const auto address = reinterpret_cast<uint64_t>(p);
        note_line(address >> line_shift(hot()), address, Size, write, pc);
    } else {
        note_range(p, Size, write, pc);
    }
}

void note_allocation(uint64_t address, uint64_t size, uint64_t site) {
    ThreadState* t = tls_state;
    if (!t || !g_settings.sampler_on || t->in_allocation_hook) return;
    t->in_allocation_hook = true;
    const uint64_t epoch = g_allocation_epoch.fetch_add(1, std::memory_order_relaxed) + 1;
    if (!t->allocations.push(AllocationEvent{epoch, address, size, site}))
        t->lost_allocations.fetch_add(1, std::memory_order_relaxed);
    // A program that allocates fast (sqlite3: ~10^6 a second) fills the
    // ring between two periodic drains: wake the writer once per filling.
    if (t->allocations_alarm.rings(t->allocations.half_full())) wake_writer();
    t->in_allocation_hook = false;
}

inline void note_alloc(void* block, size_t size, void* site) {
    if (block) note_allocation(reinterpret_cast<uint64_t>(block), std::max<size_t>(size, 1),
                               reinterpret_cast<uint64_t>(site) - 1);  // inside the call
}

inline void note_free(uintptr_t block) {
    if (block) note_allocation(block, 0, 0);
}

inline void note_unseen(size_t bytes) {
    hot().unseen_words.store(hot().unseen_words.load(std::memory_order_relaxed) + (bytes + 7) / 8,
                               std::memory_order_relaxed);
}

// Where the calling thread's stack lies (its local variables' data object).
void find_stack(ThreadState& t) {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    void* low = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &low, &size) == 0) {
        t.stack_low = reinterpret_cast<uint64_t>(low);
        t.stack_high = t.stack_low + size;
    }
    pthread_attr_destroy(&attr);
}

}  // namespace

uint64_t allocation_epoch() { return g_allocation_epoch.load(std::memory_order_relaxed); }

void start(const LocalityRun& run) {
    g_settings.exact = run.mode == "exact";
    g_settings.sampler_on = !g_settings.exact;
    g_settings.sampler = SamplerSettings{run.line_size, run.sample_period, run.window_accesses};
    g_settings.seed = run.seed;
    g_settings.exact_sizes = {cache_sizes_in_lines(run.line_size), random_sizes_in_lines(run.line_size),
                              detail_sizes_in_lines(run.line_size)};
    g_settings.line_mask = ~uint64_t{run.line_size - 1};
    g_settings.on = true;
}

bool active() { return g_settings.on; }

void thread_start() {
    if (!g_settings.on || tls_state) return;
    auto t = std::make_unique<ThreadState>();
    t->tid = gettid();
    t->name = thread_name(t->tid);  // now: a short thread may be gone before the writer asks
    t->hot = &hot();
    find_stack(*t);
    // The n-th thread to start samples at the same points in every run with
    // this seed (the main thread is the first).
    uint64_t mixer = g_settings.seed ^ g_thread_ordinal.fetch_add(1);
    const uint64_t seed = splitmix64(mixer);
    if (g_settings.exact) t->exact = std::make_unique<ExactCache>(g_settings.exact_sizes, g_settings.sampler.line_size, seed);
    else t->sampler = std::make_unique<ReuseSampler>(g_settings.sampler, t->tid, seed);
    for (auto& slot : g_threads) {
        ThreadState* expected = nullptr;
        if (slot.compare_exchange_strong(expected, t.get())) {
            HotPath& h = hot();
            h.until_event.store(static_cast<int64_t>(h.next_event - 1), std::memory_order_relaxed);  // counted(h) = 0
            h.unseen_words.store(0, std::memory_order_relaxed);
            if (t->sampler) {
                t->sampler->arm(h);
            } else {
                disarm(h);
                set_next_event(h, 0);  // every access to the simulator
                h.line_mask = g_settings.line_mask;
            }
            tls_state = t.release();
            return;
        }
    }
    std::fprintf(stderr, "sprof: thread %d: more than %u threads, its locality is not collected\n", t->tid,
                 kMaxLocalityThreads);
}

void thread_exit() {
    ThreadState* t = tls_state;
    if (!t) return;
    t->busy = true;  // the slow path of this thread is over
    disarm(hot());
    tls_state = nullptr;
    t->lock.lock();
    if (!t->closed.load(std::memory_order_relaxed)) {  // else the writer ended it already
        t->final_count = counted(hot());
        t->final_unseen = hot().unseen_words.load(std::memory_order_relaxed);
        t->closed.store(true, std::memory_order_release);
    }
    t->lock.unlock();
    t->exited.store(true, std::memory_order_release);  // the last touch: the writer finishes and frees it
}

void fork_child() {
    g_settings.on = false;
    tls_state = nullptr;
    disarm(hot());
}

}  // namespace sprof::rt::locality

using namespace sprof::rt::locality;
#include "sprof/tsan_entry_points.inc"
