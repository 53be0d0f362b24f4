// Set-up at load time, the writer thread that turns raw samples into profile
// records, and the endings of the profile (exit, _exit, exec, fatal signal).
//
// Only the writer thread touches the session. Every 100 ms it drains the
// threads' sample rings and writes the new part of each open interval, so a
// program killed at any moment (kill -9) loses at most that period. Endings
// are requests to the writer (an atomic word and an eventfd: async-signal-
// safe, as _exit, exec and a fatal signal's handler need), and the caller
// waits for them a bounded time only: a writer that is stuck costs the last
// period, never a hung program.
#include "runtime.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "fatal_signals.hpp"
#include "locality/locality_runtime.hpp"
#include "sampler.hpp"
#include "sprof/backend.hpp"
#include "sprof/clock.hpp"
#include "sprof/control_file.hpp"
#include "sprof/launch.hpp"
#include "sprof/proc.hpp"
#include "sprof/run_options.hpp"
#include "sprof/run_profile.hpp"
#include "sprof/session.hpp"

namespace sprof::rt {
namespace {

constexpr int kDrainPeriodMs = 100;
// How long an ending waits for the writer's final flush (symbol tables of
// objects first sampled in the last period may still have to be read).
constexpr int kEndWaitMs = 5000;

// Requests to the writer: the latest one wins; `seq` tells them apart.
enum Command : uint64_t { kNone = 0, kFinal = 1, kExec = 2, kResume = 3 };
// Who owns the profile's ending: nobody yet, an exec in progress, the end
// (claimed; then posted, once how it ended is stored). The writer ends the
// profile whenever it sees kEndPosted, whatever request it was woken for, so
// a final request overtaken by another one is never lost.
enum Phase : int { kRunning = 0, kExecPending = 1, kEnding = 2, kEndPosted = 3 };
constexpr uint64_t kAllDone = ~uint64_t(0);

struct Runtime {
    RunOptions opts;
    std::unique_ptr<Backend> backend;
    // Opened at load; in a forked child at its first tick (open_session): a
    // child that execs or exits before it was ticked leaves no file (what it
    // counted in less than a sample period is not recorded), and its exec'd
    // image is image 0 of its pid, as if sprof never saw the fork.
    std::unique_ptr<ProfileSession> session;
    std::string path;  // the profile's, until the session opens
    ProfileHeader header;
    std::vector<ObjectSymbols> tables;
    uint64_t t0_ns = 0;
    unsigned image = 0;  // of this pid (SPROF_IMAGE)
    int signo = 0;
    pid_t owner = 0;  // the process this runtime profiles (its forked children have their own)
    pthread_t writer{};
    int wake_fd = -1;  // posts to the writer
    int done_fd = -1;  // the writer's answers
    std::atomic<bool> active{false};
    std::atomic<bool> writer_alive{false};
    std::atomic<int> phase{kRunning};
    std::atomic<uint64_t> request{0};  // seq << 8 | Command
    std::atomic<uint64_t> next_seq{0};
    std::atomic<uint64_t> done_seq{0};
    std::atomic<uint32_t> end_how{0};
    std::atomic<int> end_value{0};
    uint64_t lost = 0;  // samples lost by threads already reclaimed (writer only)
};

Runtime* g_rt = nullptr;
char g_next_image[64];  // "SPROF_IMAGE=<pid>:<N+1>"
// Whether the calling thread is sampled: a thread whose sampling an exec
// stopped gets it back if the exec fails.
thread_local bool tls_sampled __attribute__((tls_model("initial-exec"))) = false;

void warn(const std::string& msg) {
    std::string line = "sprof: " + msg + "\n";
    if (write(STDERR_FILENO, line.data(), line.size()) < 0) {}
}

// The profile's file, written from here on; the image an exec of this pid
// goes on in is the next one.
void open_session(Runtime& rt) {
    rt.session = std::make_unique<ProfileSession>(rt.path, std::move(rt.header), 0, rt.t0_ns, std::move(rt.tables));
    std::snprintf(g_next_image, sizeof g_next_image, "%s=%d:%u", kImageVariable, int(rt.owner), rt.image + 1);
}

// Whether a thread was ticked since the last drain (not only its tail at a
// stop, nor its events' records): a forked child that execs at once (a
// shell's) leaves no profile of the instant before.
bool any_tick() {
    for (auto& entry : g_slots) {
        const ThreadSlot* t = entry.load(std::memory_order_acquire);
        if (!t) continue;
        const uint64_t head = t->head.load(std::memory_order_acquire);
        for (uint64_t i = t->tail.load(std::memory_order_relaxed); i != head; ++i)
            if (const RawSample& s = t->ring[i % kRing]; s.tick && s.pc != kTailPc) return true;
    }
    return false;
}

// Moves every buffered sample into the session; reclaims slots of exited
// threads. Opens a forked child's session at its first tick.
void drain(Runtime& rt, bool final) {
    if (!rt.session) {
        if (!any_tick()) return;
        open_session(rt);
    }
    for (auto& entry : g_slots) {
        ThreadSlot* t = entry.load(std::memory_order_acquire);
        if (!t) continue;
        const bool exited = t->exited.load(std::memory_order_acquire);
        const uint64_t head = t->head.load(std::memory_order_acquire);
        uint64_t tail = t->tail.load(std::memory_order_relaxed);
        if (tail == 0 && head > 0) rt.session->add_thread(t->tid, thread_name(t->tid));
        for (; tail != head; ++tail) rt.session->add_sample(t->tid, t->ring[tail % kRing]);
        t->tail.store(tail, std::memory_order_release);
        if (exited || final) {
            rt.session->end_thread(t->tid, exited ? t->exit_wall_ns : monotonic_ns());
            if (exited) {
                rt.lost += t->lost.load();
                entry.store(nullptr, std::memory_order_release);
                delete t;
            }
        }
    }
    locality::drain(*rt.session, final);
}

// Lost samples so far, of reclaimed and of live threads.
uint64_t lost_samples(const Runtime& rt) {
    uint64_t lost = rt.lost;
    for (auto& entry : g_slots)
        if (ThreadSlot* t = entry.load(std::memory_order_acquire)) lost += t->lost.load();
    return lost;
}

// --- requests (async-signal-safe: atomics, write, poll, clock_gettime) -----

uint64_t post(Runtime& rt, Command c) {
    const uint64_t seq = rt.next_seq.fetch_add(1) + 1;
    rt.request.store(seq << 8 | c, std::memory_order_release);
    wake_writer();
    return seq;
}

// Waits until the writer has answered request `seq`, at most kEndWaitMs.
void wait_done(Runtime& rt, uint64_t seq) {
    const uint64_t deadline = monotonic_ns() + uint64_t(kEndWaitMs) * 1'000'000;
    while (rt.done_seq.load(std::memory_order_acquire) < seq && rt.writer_alive.load()) {
        const uint64_t now = monotonic_ns();
        if (now >= deadline) return;
        // Short polls: another waiter may consume the eventfd's wake-up.
        pollfd p{rt.done_fd, POLLIN, 0};
        if (poll(&p, 1, 10) > 0) {
            uint64_t n;
            if (read(rt.done_fd, &n, sizeof n) < 0) {}
        }
    }
}

void answer(Runtime& rt, uint64_t seq) {
    if (seq > rt.done_seq.load()) rt.done_seq.store(seq, std::memory_order_release);  // the writer alone stores
    uint64_t one = 1;
    if (write(rt.done_fd, &one, sizeof one) < 0) {}
}

// --- the writer thread ----------------------------------------------------

// Carries out command `c`. Returns false when the profile is closed.
bool carry_out(Runtime& rt, uint64_t c, bool& suspended) {
    // After an exec's END any request means the exec failed: take the END back first.
    if (suspended) {
        if (rt.session) rt.session->resume();
        suspended = false;
    }
    switch (c) {
    case kFinal:
        drain(rt, true);
        if (rt.session) rt.session->finish(static_cast<EndHow>(rt.end_how.load()), rt.end_value.load(), lost_samples(rt));
        return false;
    case kExec:
        drain(rt, true);
        if (rt.session) rt.session->end_for_exec(lost_samples(rt));
        suspended = true;  // nothing more is written unless the exec fails
        return true;
    default:  // kResume: the END is already taken back
        return true;
    }
}

void* writer_main(void*) {
    Runtime& rt = *g_rt;
    pollfd pfd{rt.wake_fd, POLLIN, 0};
    uint64_t handled = 0;  // the last request word carried out
    bool suspended = false;
    try {
        for (;;) {
            if (poll(&pfd, 1, kDrainPeriodMs) > 0) {
                uint64_t n;
                if (read(rt.wake_fd, &n, sizeof n) < 0) {}
            }
            const uint64_t req = rt.request.load(std::memory_order_acquire);
            const bool ending = rt.phase.load(std::memory_order_acquire) == kEndPosted;
            if (ending || req != handled) {
                handled = req;
                const bool open = carry_out(rt, ending ? kFinal : req & 0xff, suspended);
                answer(rt, open ? req >> 8 : kAllDone);
                if (!open) break;
                continue;
            }
            if (!suspended) {
                drain(rt, false);
                if (rt.session) rt.session->flush_parts();
            }
        }
    } catch (const std::exception& e) {
        warn(std::string("writing the profile failed: ") + e.what());
        rt.active = false;
    }
    rt.writer_alive = false;
    answer(rt, kAllDone);
    return nullptr;
}

// Runs at exit(): after the program's own atexit handlers (registered later).
void at_exit(int status, void*) { end_profile(EndHow::exit, status); }

// How a runtime begins: with the program, or in a child the program forked
// (which inherited the sampling signal's handler, the fatal signals' and the
// exit handler from it).
enum class Start { load, fork };

void set_up(Start how, int inherited_signo) {
    auto rt = std::make_unique<Runtime>();
    // What sprof_lib handed over, or the defaults in a program linked with -lsprof_rt.
    rt->opts = from_environment();
    resolve_run(rt->opts, "sprof", Tool::sprof_lib);
    rt->owner = getpid();
    rt->backend = make_backend(rt->opts.backend, rt->opts.events, rt->opts.slots, rt->opts.rotation, call_depth(rt->opts));

    std::string program = exe_path(0);
    if (program.empty()) program = "unknown";
    rt->header = make_profile_header("sprof_lib", rt->opts, program, command_line(0), rt->owner);
    // Precomputed by preprof: no ELF reading at start.
    if (!rt->opts.control.empty()) rt->tables = std::move(read_control_file(rt->opts.control).run.tables);

    const char* root = std::getenv(kRootPidVariable);
    const bool descendant = how == Start::fork || (root && std::atoi(root) != rt->owner);
    // The image this process exec'd into (0: the first one we see).
    rt->image = image_number(std::getenv(kImageVariable), rt->owner);
    rt->path = expand_output_path(rt->opts.output, program, rt->owner, descendant, rt->image);
    rt->t0_ns = monotonic_ns();
    if (how == Start::load) open_session(*rt);
    if (rt->opts.locality.present) {  // before the writer thread, which alone writes once it runs
        if (how == Start::fork) {
            warn("forked child " + std::to_string(rt->owner) + ": time and events are profiled, locality is not");
        } else {
            rt->session->writer().add_locality_run(rt->opts.locality);
            locality::start(rt->opts.locality);
        }
    }
    rt->signo = how == Start::fork ? inherited_signo : install_handler();
    rt->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    rt->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (rt->wake_fd < 0 || rt->done_fd < 0) throw std::runtime_error("eventfd failed");

    g_rt = rt.release();
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);  // the writer thread takes none of the program's signals
    g_rt->writer_alive = true;
    int rc = real_pthread_create(&g_rt->writer, nullptr, writer_main, nullptr);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (rc != 0) {
        g_rt->writer_alive = false;
        throw std::runtime_error("cannot start the writer thread");
    }
    if (how == Start::load) {
        on_exit(at_exit, nullptr);
        install_fatal_handlers(g_rt->signo);
    }
    g_rt->active = true;
    start_thread(*g_rt->backend, tick_plan(g_rt->opts), g_rt->signo);
    tls_sampled = true;
    if (how == Start::load) locality::thread_start();
}

__attribute__((constructor)) void load() {
    try {
        set_up(Start::load, 0);
    } catch (const std::exception& e) {
        warn(std::string("profiling disabled: ") + e.what());
        if (g_rt) g_rt->active = false;
    }
}

}  // namespace

bool active() { return g_rt && g_rt->active.load(std::memory_order_acquire); }

void on_thread_start() {
    if (!active()) return;
    try {
        start_thread(*g_rt->backend, tick_plan(g_rt->opts), g_rt->signo);
        tls_sampled = true;
        locality::thread_start();
    } catch (const std::exception& e) {
        warn(std::string("thread ") + std::to_string(gettid()) + " not sampled: " + e.what());
    }
}

void on_thread_exit() {
    stop_thread();
    tls_sampled = false;
    locality::thread_exit();
}

void on_fork_child() {
    Runtime* parent = g_rt;
    if (!parent) return;
    // The child inherited a copy of the parent's runtime, but not its writer
    // thread nor its other threads: the copy is the parent's (its file, its
    // counters, the samples its rings held) and is left alone, never freed
    // (its destructors would write to the parent's profile). The child, one
    // thread, gets a runtime and a profile of its own, as an exec'd child does.
    const bool was_active = parent->active.load();
    parent->active = false;
    g_rt = nullptr;
    for (auto& entry : g_slots) entry.store(nullptr, std::memory_order_relaxed);
    forget_thread();
    tls_sampled = false;
    locality::fork_child();
    if (!was_active) return;
    try {
        set_up(Start::fork, parent->signo);
    } catch (const std::exception& e) {
        warn("forked child " + std::to_string(getpid()) + " not profiled: " + e.what());
        if (g_rt) g_rt->active = false;
    }
}

void wake_writer() {
    if (!g_rt || g_rt->wake_fd < 0) return;
    uint64_t one = 1;
    if (write(g_rt->wake_fd, &one, sizeof one) < 0) {}
}

bool is_owner() { return g_rt && getpid() == g_rt->owner; }

void end_profile(EndHow how, int value) {
    Runtime* rt = g_rt;
    if (!is_owner() || pthread_equal(pthread_self(), rt->writer)) return;  // the writer cannot wait for itself
    int phase = rt->phase.load();
    do {
        if (phase >= kEnding) return;  // someone else ends it
    } while (!rt->phase.compare_exchange_weak(phase, kEnding));
    rt->active = false;
    // The ending thread's tail (what it counted since its last tick) goes in
    // with its last samples. Other threads still running end at their last tick.
    if (tls_sampled) {
        stop_thread();
        tls_sampled = false;
    }
    rt->end_how = static_cast<uint32_t>(how);
    rt->end_value = value;
    rt->phase.store(kEndPosted, std::memory_order_release);
    if (rt->writer_alive.load()) wait_done(*rt, post(*rt, kFinal));
}

bool suspend_for_exec() {
    Runtime* rt = g_rt;
    if (!is_owner()) return false;
    int phase = kRunning;
    if (!rt->phase.compare_exchange_strong(phase, kExecPending)) return false;
    if (tls_sampled) stop_thread();
    if (rt->writer_alive.load()) wait_done(*rt, post(*rt, kExec));
    return true;
}

void exec_failed() {
    Runtime* rt = g_rt;
    int phase = kExecPending;
    if (!rt->phase.compare_exchange_strong(phase, kRunning)) return;  // ended meanwhile
    post(*rt, kResume);
    if (tls_sampled) {
        tls_sampled = false;
        on_thread_start();
    }
}

const char* next_image_entry() { return g_next_image[0] ? g_next_image : nullptr; }

}  // namespace sprof::rt
