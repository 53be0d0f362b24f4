// Set-up at load time, the writer thread that turns raw samples into profile
// records, and the final flush at exit.
#include "runtime.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "sampler.hpp"
#include "sprof/backend.hpp"
#include "sprof/control_file.hpp"
#include "sprof/events.hpp"
#include "sprof/launch.hpp"
#include "sprof/run_options.hpp"
#include "sprof/session.hpp"

namespace sprof::rt {
namespace {

constexpr int kDrainPeriodMs = 100;

struct Runtime {
    RunOptions opts;
    std::unique_ptr<Backend> backend;
    std::unique_ptr<ProfileSession> session;
    int signo = 0;
    pid_t owner = 0;  // the process this runtime profiles (not a forked child)
    pthread_t writer{};
    int wake_fd = -1;
    std::atomic<bool> active{false};
    std::atomic<bool> stopping{false};
    uint64_t lost = 0;
};

Runtime* g_rt = nullptr;

void warn(const std::string& msg) {
    std::string line = "sprof: " + msg + "\n";
    if (write(STDERR_FILENO, line.data(), line.size()) < 0) {}
}

std::string thread_name(pid_t tid) {
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

// Moves every buffered sample into the session; reclaims slots of exited threads.
void drain(Runtime& rt, bool final) {
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
}

void* writer_main(void*) {
    Runtime& rt = *g_rt;
    pollfd pfd{rt.wake_fd, POLLIN, 0};
    while (!rt.stopping.load(std::memory_order_acquire)) {
        poll(&pfd, 1, kDrainPeriodMs);
        try {
            drain(rt, false);
        } catch (const std::exception& e) {
            warn(std::string("writing the profile failed: ") + e.what());
            rt.active = false;
            return nullptr;
        }
    }
    return nullptr;
}

// Runs at exit(): after the program's own atexit handlers (registered later).
void finish(int status, void*) {
    Runtime* rt = g_rt;
    if (!rt || !rt->session || getpid() != rt->owner) return;
    rt->active = false;
    stop_thread();
    rt->stopping = true;
    uint64_t one = 1;
    if (write(rt->wake_fd, &one, sizeof one) < 0) {}
    pthread_join(rt->writer, nullptr);
    try {
        drain(*rt, true);
        for (auto& entry : g_slots)
            if (ThreadSlot* t = entry.load()) rt->lost += t->lost.load();
        rt->session->finish(status, rt->lost);
    } catch (const std::exception& e) {
        warn(std::string("writing the profile failed: ") + e.what());
    }
}

void set_up() {
    auto rt = std::make_unique<Runtime>();
    PreparedRun run;  // what sprof_lib handed over, or the defaults in a program linked with -lsprof_rt
    run.opts = from_environment();
    resolve_run_events(run, "sprof");
    rt->opts = run.opts;
    rt->owner = getpid();
    rt->backend = make_backend(rt->opts.backend, run.events, run.slots);

    char exe[4096] = {};
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    std::string program = n > 0 ? std::string(exe, n) : "unknown";

    std::vector<std::string> argv;
    {
        std::ifstream cmdline("/proc/self/cmdline");
        for (std::string arg; std::getline(cmdline, arg, '\0');) argv.push_back(arg);
    }
    ProfileHeader h =
        make_profile_header("sprof_lib", rt->opts, run.events, run.slots, program, std::move(argv), rt->owner);
    std::vector<ObjectSymbols> tables;  // precomputed by preprof: no ELF reading at start
    if (!rt->opts.control.empty()) tables = read_control_file(rt->opts.control).tables;

    const char* root = std::getenv(kRootPidVariable);
    const bool descendant = root && std::atoi(root) != rt->owner;
    std::string path = expand_output_path(rt->opts.output, program, rt->owner, descendant);
    rt->session = std::make_unique<ProfileSession>(path, std::move(h), 0, monotonic_ns(), std::move(tables));
    rt->signo = install_handler();
    rt->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (rt->wake_fd < 0) throw std::runtime_error("eventfd failed");

    g_rt = rt.release();
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);  // the writer thread takes none of the program's signals
    int rc = real_pthread_create(&g_rt->writer, nullptr, writer_main, nullptr);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (rc != 0) throw std::runtime_error("cannot start the writer thread");
    on_exit(finish, nullptr);
    g_rt->active = true;
    start_thread(*g_rt->backend, g_rt->opts.sample_interval_ns, g_rt->signo);
}

__attribute__((constructor)) void load() {
    try {
        set_up();
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
        start_thread(*g_rt->backend, g_rt->opts.sample_interval_ns, g_rt->signo);
    } catch (const std::exception& e) {
        warn(std::string("thread ") + std::to_string(gettid()) + " not sampled: " + e.what());
    }
}

void on_thread_exit() { stop_thread(); }

void on_fork_child() {
    if (!g_rt) return;
    // The child inherited the parent's slots and writer state but not its
    // threads: stop sampling here and leave the parent's profile alone.
    g_rt->active = false;
    forget_thread();
}

}  // namespace sprof::rt
