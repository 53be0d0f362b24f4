#include "sampler.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sprof/clock.hpp"
#include "sprof/perf_event.hpp"
#include "sprof/program_counter.hpp"

namespace sprof::rt {

std::atomic<ThreadSlot*> g_slots[kMaxThreads];

static int g_tick_signo = 0;  // set once by install_handler

// initial-exec: a preloaded library's TLS is static, so reading it in the
// handler never allocates.
static thread_local ThreadSlot* tls_slot __attribute__((tls_model("initial-exec"))) = nullptr;

// Appends a sample to the thread's ring; counts it lost when the writer has
// fallen a whole ring behind.
static void push(ThreadSlot& t, const RawSample& s) noexcept {
    const uint64_t head = t.head.load(std::memory_order_relaxed);
    const uint64_t tail = t.tail.load(std::memory_order_acquire);
    if (head - tail >= kRing) {
        t.lost.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    t.ring[head % kRing] = s;
    t.head.store(head + 1, std::memory_order_release);
}

namespace {
struct SlotSink final : SampleSink {
    explicit SlotSink(ThreadSlot& t) : t(t) {}
    void put(const RawSample& s) noexcept override { push(t, s); }
    void lost(uint64_t ticks) noexcept override { t.lost.fetch_add(ticks, std::memory_order_relaxed); }
    size_t room() const noexcept override {
        return kRing - (t.head.load(std::memory_order_relaxed) - t.tail.load(std::memory_order_acquire));
    }
    ThreadSlot& t;
};
}  // namespace

// Takes the thread's pending ticks. With counters that record their own
// ticks, the PC and counter values come from the kernel's records of the
// ticks themselves, so a signal the program kept blocked is not charged to
// the place where it unblocked it. Otherwise (cmdev) the tick is now.
static void take_ticks(ThreadSlot& t, void* ucontext) noexcept {
    if (t.counters->tick_fd() >= 0) {
        SlotSink sink(t);
        t.counters->drain(sink);
        return;
    }
    t.own_timer_dither.retime(t.own_timer_fd, 0);  // the handler runs at the tick
    RawSample s;
    s.pc = pc_of(*static_cast<const ucontext_t*>(ucontext));
    s.wall_ns = monotonic_ns();
    if (t.counters->sample(s)) push(t, s);
}

// The sampling handler: async-signal-safe (no allocation, locks or stdio).
static void on_tick(int, siginfo_t*, void* ucontext) {
    const int saved_errno = errno;
    if (ThreadSlot* t = tls_slot) take_ticks(*t, ucontext);
    errno = saved_errno;
}

static bool at_default(int s) {
    struct sigaction old{};
    return sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO);
}

int install_handler() {
    int signo = 0;
    if (const char* forced = std::getenv("SPROF_SIGNAL")) {
        signo = std::atoi(forced);
        if (signo <= 0 || signo > SIGRTMAX || signo == SIGKILL || signo == SIGSTOP)
            throw std::runtime_error("SPROF_SIGNAL=" + std::string(forced) + " is not a signal that can be caught");
    } else {
        // A classic signal first: the kernel keeps at most one of them pending
        // per thread, so ticks the program blocks never pile up, never exceed
        // its RLIMIT_SIGPENDING and never fall back to a deadly SIGIO (their
        // PCs and counts are in the counters' records anyway). SIGSTKFLT and
        // SIGPWR are unused by Linux programs on x86; a real-time signal only
        // when the program claimed both.
        for (int s : {SIGSTKFLT, SIGPWR})
            if (!signo && at_default(s)) signo = s;
        for (int s = SIGRTMAX; !signo && s >= SIGRTMIN; --s)
            if (at_default(s)) signo = s;
        if (!signo) throw std::runtime_error("no free signal for sampling (set SPROF_SIGNAL)");
    }
    struct sigaction sa{};
    sa.sa_sigaction = on_tick;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;  // the program's system calls are restarted, not failed with EINTR
    sigfillset(&sa.sa_mask);
    if (sigaction(signo, &sa, nullptr) != 0)
        throw std::runtime_error(std::string("cannot install the sampling handler: ") + std::strerror(errno));
    g_tick_signo = signo;
    return signo;
}

// A task-clock timer of our own, for counters that take no ticks.
static int open_own_timer(uint64_t period_ns) {
    perf_event_attr timer{};
    timer.size = sizeof timer;
    timer.type = PERF_TYPE_SOFTWARE;
    timer.config = PERF_COUNT_SW_TASK_CLOCK;  // this thread's CPU time, hrtimer-precise (not tick-bound)
    timer.sample_period = period_ns;
    timer.wakeup_events = 1;
    timer.disabled = 1;
    apply_counting_scope(timer);
    int fd = perf_event_open_task(timer, 0);
    if (fd < 0) throw std::runtime_error(perf_open_error("task-clock (sampling timer)", timer, -fd));
    return fd;
}

void start_thread(Backend& backend, const TickPlan& ticks, int signo) {
    auto slot = std::make_unique<ThreadSlot>();
    slot->tid = gettid();
    slot->counters = backend.attach(0, false, ticks);
    slot->tick_fd = slot->counters->tick_fd();
    if (slot->tick_fd < 0) {
        slot->own_timer_dither = TickDither(ticks, static_cast<uint32_t>(slot->tid));
        slot->tick_fd = slot->own_timer_fd = open_own_timer(slot->own_timer_dither.first());
    }
    const int fd = slot->tick_fd;
    if (int err = route_overflow_signal(fd, signo, F_OWNER_TID, slot->tid)) {
        if (slot->own_timer_fd >= 0) close(slot->own_timer_fd);
        throw std::runtime_error(std::string("cannot route timer signals to the thread: ") + std::strerror(err));
    }

    ThreadSlot* raw = slot.get();
    for (auto& entry : g_slots) {
        ThreadSlot* expected = nullptr;
        if (entry.compare_exchange_strong(expected, raw)) {
            slot.release();
            tls_slot = raw;
            ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
            return;
        }
    }
    if (slot->own_timer_fd >= 0) close(slot->own_timer_fd);
    throw std::runtime_error("more than " + std::to_string(kMaxThreads) + " threads: not sampling this one");
}

void stop_thread() {
    ThreadSlot* t = tls_slot;
    if (!t) return;
    // Keep our own tick out while the last ticks are taken, then stop them.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    if (t->own_timer_fd < 0) {  // the counters' records up to now (cmdev's end with the last tick)
        SlotSink sink(*t);
        t->counters->drain(sink);
    }
    ioctl(t->tick_fd, PERF_EVENT_IOC_DISABLE, 0);
    // What was counted after the last tick: the last sample's function's.
    if (RawSample tail; t->counters->tail(tail)) {
        tail.pc = kTailPc;
        tail.wall_ns = monotonic_ns();
        push(*t, tail);
    }
    // A tick still pending must not outlive the sampling: an exec would carry
    // it into the next image, where it is at its default action (terminate).
    sigset_t tick;
    sigemptyset(&tick);
    sigaddset(&tick, g_tick_signo);
    const timespec now{};
    while (sigtimedwait(&tick, nullptr, &now) > 0) {}
    tls_slot = nullptr;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (t->own_timer_fd >= 0) close(t->own_timer_fd);
    t->own_timer_fd = t->tick_fd = -1;
    t->exit_wall_ns = monotonic_ns();
    t->exited.store(true, std::memory_order_release);
}

void forget_thread() { tls_slot = nullptr; }

}  // namespace sprof::rt
