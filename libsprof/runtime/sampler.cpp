#include "sampler.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sprof/perf_event.hpp"

namespace sprof::rt {

std::atomic<ThreadSlot*> g_slots[kMaxThreads];

// initial-exec: a preloaded library's TLS is static, so reading it in the
// handler never allocates.
static thread_local ThreadSlot* tls_slot __attribute__((tls_model("initial-exec"))) = nullptr;

uint64_t monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

static uint64_t pc_of(void* ucontext) {
    auto* uc = static_cast<ucontext_t*>(ucontext);
#if defined(__x86_64__)
    return static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    return uc->uc_mcontext.pc;
#else
#error "sprof: program counter extraction not implemented for this architecture"
#endif
}

// The sampling handler: async-signal-safe (no allocation, locks or stdio).
static void on_tick(int, siginfo_t*, void* ucontext) {
    const int saved_errno = errno;
    ThreadSlot* t = tls_slot;
    if (t) {
        const uint64_t head = t->head.load(std::memory_order_relaxed);
        const uint64_t tail = t->tail.load(std::memory_order_acquire);
        const bool full = head - tail >= kRing;
        RawSample overflow;  // still sample when full, so the live set keeps rotating
        RawSample& s = full ? overflow : t->ring[head % kRing];
        s.pc = pc_of(ucontext);
        s.wall_ns = monotonic_ns();
        if (t->counters->sample(s)) {
            if (full) t->lost.fetch_add(1, std::memory_order_relaxed);
            else t->head.store(head + 1, std::memory_order_release);
        }
    }
    errno = saved_errno;
}

int install_handler() {
    int signo = 0;
    if (const char* forced = std::getenv("SPROF_SIGNAL")) {
        signo = std::atoi(forced);
        if (signo < SIGRTMIN || signo > SIGRTMAX)
            throw std::runtime_error("SPROF_SIGNAL=" + std::string(forced) + " is not a real-time signal");
    } else {
        // Highest real-time signal still at its default: programs and libraries
        // that use real-time signals mostly take them from SIGRTMIN upwards.
        for (int s = SIGRTMAX; s >= SIGRTMIN; --s) {
            struct sigaction old{};
            if (sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO)) {
                signo = s;
                break;
            }
        }
        if (!signo) throw std::runtime_error("no free real-time signal for sampling (set SPROF_SIGNAL)");
    }
    struct sigaction sa{};
    sa.sa_sigaction = on_tick;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;  // the program's system calls are restarted, not failed with EINTR
    sigfillset(&sa.sa_mask);
    if (sigaction(signo, &sa, nullptr) != 0)
        throw std::runtime_error(std::string("cannot install the sampling handler: ") + std::strerror(errno));
    return signo;
}

void start_thread(Backend& backend, uint64_t period_ns, int signo) {
    auto slot = std::make_unique<ThreadSlot>();
    slot->tid = gettid();
    slot->counters = backend.attach(0, false);

    perf_event_attr timer{};
    timer.size = sizeof timer;
    timer.type = PERF_TYPE_SOFTWARE;
    timer.config = PERF_COUNT_SW_TASK_CLOCK;  // this thread's CPU time, hrtimer-precise (not tick-bound)
    timer.sample_period = period_ns;
    timer.wakeup_events = 1;
    timer.disabled = 1;
    int fd = perf_event_open_task(timer, 0);
    if (fd < 0) throw std::runtime_error(perf_open_error("task-clock (sampling timer)", timer, -fd));
    f_owner_ex owner{F_OWNER_TID, slot->tid};
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || fcntl(fd, F_SETSIG, signo) != 0 ||
        fcntl(fd, F_SETOWN_EX, &owner) != 0) {
        int err = errno;
        close(fd);
        throw std::runtime_error(std::string("cannot route timer signals to the thread: ") + std::strerror(err));
    }
    slot->timer_fd = fd;

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
    close(fd);
    throw std::runtime_error("more than " + std::to_string(kMaxThreads) + " threads: not sampling this one");
}

void stop_thread() {
    ThreadSlot* t = tls_slot;
    if (!t) return;
    ioctl(t->timer_fd, PERF_EVENT_IOC_DISABLE, 0);
    tls_slot = nullptr;  // a tick already queued now finds no slot
    close(t->timer_fd);
    t->timer_fd = -1;
    t->exit_wall_ns = monotonic_ns();
    t->exited.store(true, std::memory_order_release);
}

void forget_thread() { tls_slot = nullptr; }

}  // namespace sprof::rt
