#include "monitor.hpp"

#include <elf.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "attach_refusal.hpp"
#include "launch_traced.hpp"
#include "sprof/clock.hpp"
#include "sprof/launch.hpp"
#include "sprof/perf_event.hpp"
#include "sprof/proc.hpp"
#include "sprof/program_counter.hpp"
#include "sprof/run_profile.hpp"
#include "sprof/session.hpp"
#include "tick_source.hpp"

namespace sprof::pt {
namespace {

constexpr const char* kTool = "sprof_pt";

// How often the samples of open intervals go to disk: what a kill -9 of
// sprof_pt can cost (the runtime's drain period, for the same bound).
constexpr uint64_t kFlushPeriodNs = 100'000'000;

// Signals meant for sprof_pt that the program should get instead.
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

uint64_t program_counter(pid_t tid, bool& ok) {
    user_regs_struct regs{};
    iovec io{&regs, sizeof regs};
    ok = ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRSTATUS), &io) == 0;
    return pc_of(regs);
}

bool is_stopping_signal(int sig) { return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU; }

}  // namespace

Monitor::Monitor(RunOptions run) : run_(std::move(run)) {
    backend_ = make_backend(run_.backend, run_.events, run_.slots, run_.rotation, call_depth(run_));
    rotating_ = run_.slots < run_.events.size();
}

Monitor::~Monitor() {
    if (signal_fd_ >= 0) close(signal_fd_);
}

void Monitor::warn(const std::string& msg) { std::fprintf(stderr, "%s: %s\n", kTool, msg.c_str()); }

void Monitor::arm(pid_t tid, bool enable_on_exec, TracedThread& t) {
    const bool cpu = run_.clock == "cpu";
    TickPlan ticks = tick_plan(run_);
    if (!cpu) ticks.period_ns = 0;  // the wall ticker's
    t.counters = backend_->attach(tid, enable_on_exec, ticks);
    if (!cpu) return;
    if (const int fd = t.counters->tick_fd(); fd >= 0) {
        // The counters record each tick themselves: no stop of the thread is needed.
        if (int err = route_overflow_signal(fd, tick_signo_, F_OWNER_PID, getpid()))
            throw std::runtime_error(std::string("cannot route timer ticks to the monitor: ") + std::strerror(err));
        tasks_.watch_ticks(t, fd);
        if (!enable_on_exec) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
        return;
    }
    tasks_.set_ticker(t, std::make_unique<CpuTicker>(tid, ticks, tick_signo_, enable_on_exec));
}

int Monitor::run() {
    char** argv = run_.program;
    tick_signo_ = SIGRTMIN;
    sigset_t mask, old;
    sigemptyset(&mask);
    for (int s : kForwarded) sigaddset(&mask, s);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGIO);  // a full real-time queue falls back to SIGIO: a lost tick, not our death
    sigaddset(&mask, tick_signo_);
    sigprocmask(SIG_BLOCK, &mask, &old);
    signal_fd_ = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (signal_fd_ < 0) throw std::runtime_error(std::string("signalfd: ") + std::strerror(errno));

    unsigned long options = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC;
    if (run_.follow) options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
    t0_ns_ = monotonic_ns();
    std::string refusal;  // why an attach failed: said once every task seized is let go again
    if (run_.attaching()) {
        try {
            attach_running(options);
        } catch (const std::exception& e) {
            refusal = e.what();
            begin_detach();
        }
    } else {
        check_program(argv, kTool);
        main_pid_ = launch_traced(argv, kTool, options, old, [&](pid_t pid) {
            check_output(expand_output_path(run_.output, argv[0], pid));  // before the program's first instruction
            arm(pid, true, tasks_.add_thread(pid, pid));
        });
        tasks_.add_process(main_pid_, argv[0]);
    }
    if (run_.clock == "wall") wall_ = std::make_unique<WallTicker>(tick_plan(run_));
    const int wall_fd = wall_ ? wall_->fd() : -1;
    const uint64_t detach_at = run_.duration_ns ? monotonic_ns() + run_.duration_ns : UINT64_MAX;

    uint64_t next_flush = monotonic_ns() + kFlushPeriodNs;
    while (!tasks_.processes().empty() || (detaching_ && !expected_.empty())) {
        pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {wall_fd, POLLIN, 0}};
        const uint64_t now = monotonic_ns();
        if (now >= detach_at) begin_detach();
        if (now >= next_flush) {
            flush_parts();
            next_flush = now + kFlushPeriodNs;
        }
        // Detaching, the stops come as SIGCHLD.
        const uint64_t wake = detaching_ ? next_flush : std::min(next_flush, detach_at);
        const int wait_ms = static_cast<int>((wake - std::min(now, wake) + 999'999) / 1'000'000);
        if (poll(fds, wall_ ? 2 : 1, wait_ms) < 0 && errno != EINTR)
            throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
        signalfd_siginfo si;
        while (read(signal_fd_, &si, sizeof si) == sizeof si)
            on_signal(static_cast<int>(si.ssi_signo), si.ssi_code, si.ssi_fd);
        if (wall_ && (fds[1].revents & POLLIN)) on_wall_tick();
        reap_all();
        if (detaching_) end_detached();
    }
    if (!refusal.empty()) throw std::runtime_error(refusal);
    // Attached, sprof_pt succeeds as perf record -p does: the processes' own
    // statuses are their parents' (and in their profiles' END).
    return run_.attaching() ? 0 : main_status_;
}

void Monitor::attach_running(unsigned long options) {
    for (pid_t id : run_.attach_pids) {
        const pid_t pid = thread_group_of(id);  // a thread's id names its process, as for perf -p
        if (pid == 0 || pid == getpid()) throw std::runtime_error(attach_refusal(id, false, ESRCH));
        // Threads the seized ones start are seized with them (PTRACE_O_TRACECLONE);
        // ones that unseized threads start meanwhile are found by looking again.
        for (bool found = true; found;) {
            found = false;
            for (pid_t tid : threads_of_process(pid)) {
                if (tasks_.thread(tid)) continue;
                if (const int err = seize(tid, pid, options)) {
                    if (err == ESRCH && tid != pid) continue;  // a thread that ended meanwhile
                    throw std::runtime_error(attach_refusal(id, false, err));
                }
                found = true;
            }
        }
    }
    for (pid_t tid : run_.attach_tids) {
        const pid_t pid = thread_group_of(tid);
        if (pid == 0 || pid == getpid()) throw std::runtime_error(attach_refusal(tid, true, ESRCH));
        if (tasks_.thread(tid)) continue;
        if (const int err = seize(tid, pid, options)) throw std::runtime_error(attach_refusal(tid, true, err));
    }
    // Every task is seized (none stopped): its profile can be named, then its counters started.
    for (auto& [pid, p] : tasks_.processes()) {
        p.program = exe_path(pid);
        check_output(profile_path(p));
    }
    for (auto& [tid, t] : tasks_.threads()) arm(tid, false, *t);
    t0_ns_ = monotonic_ns();
    for (auto& [pid, p] : tasks_.processes()) start_session(p, p.program, true);
}

int Monitor::seize(pid_t tid, pid_t pid, unsigned long options) {
    // A thread a seized one started since is ours already; its first stop comes later.
    if (tracer_of(tid) != getpid() && ptrace(PTRACE_SEIZE, tid, nullptr, reinterpret_cast<void*>(options)) != 0)
        return errno;
    if (!tasks_.process(pid)) {
        tasks_.add_process(pid, "");
        if (!main_pid_) main_pid_ = pid;  // the first named: its profile named as -o says
    }
    tasks_.add_thread(tid, pid);
    return 0;
}

void Monitor::begin_detach() {
    if (detaching_) return;
    detaching_ = true;
    // A tracee is let go in a ptrace-stop only: each is stopped, then released (release).
    for (auto& [tid, t] : tasks_.threads()) ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
}

void Monitor::release(pid_t tid, int status) {
    const int event = status >> 16;
    expect_new_task(tid, event);
    expected_.erase(tid);
    if (TracedThread* t = tasks_.thread(tid)) finish_thread(*t, monotonic_ns());
    // A signal the thread was about to get is delivered by the detach; a group-stop
    // the kernel keeps (a process stopped before stays stopped); an interrupt's stop was ours.
    const long deliver = event == 0 ? WSTOPSIG(status) : 0;
    ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(deliver));
}

void Monitor::end_detached() {
    // Its threads let go or ended, a process's profile ends: it runs on.
    for (auto it = tasks_.processes().begin(); it != tasks_.processes().end();) {
        TracedProcess& p = it->second;
        if (!tasks_.threads_of(p.pid).empty()) {
            ++it;
            continue;
        }
        if (p.session) p.session->finish(EndHow::detached, 0, p.lost);
        it = tasks_.processes().erase(it);
    }
}

void Monitor::expect_new_task(pid_t tid, int event) {
    if (event != PTRACE_EVENT_CLONE && event != PTRACE_EVENT_FORK && event != PTRACE_EVENT_VFORK) return;
    unsigned long child = 0;
    if (ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &child) != 0) return;
    // Its first stop may have been seen already (then it is known, or let go, or gone).
    const auto c = static_cast<pid_t>(child);
    if (!tasks_.thread(c) && tracer_of(c) == getpid()) expected_.insert(c);
}

void Monitor::on_signal(int signo, int code, int fd) {
    if (signo == tick_signo_) {
        if (TracedThread* t = tasks_.thread_by_ticker(fd)) on_tick(*t);
    } else if (signo == SIGIO) {
        // A tick the full signal queue could not hold: its thread is unknown.
        for (auto& [tid, t] : tasks_.threads()) on_tick(*t);
    } else if (signo != SIGCHLD) {
        // Attached: the processes run on their own, and the signal ends the
        // attach (perf record -p, strace -p). Started: a terminal's Ctrl-C /
        // Ctrl-\ / hangup reached the program already (same process group);
        // anything sent to sprof_pt alone is passed on.
        if (run_.attaching()) begin_detach();
        else if (code != SI_KERNEL) forward(signo);
    }
}

void Monitor::flush_parts() {
    for (auto& [pid, p] : tasks_.processes())
        if (p.session) p.session->flush_parts();
}

void Monitor::forward(int signo) {
    if (tasks_.process(main_pid_)) {
        kill(main_pid_, signo);
        return;
    }
    for (auto& [pid, p] : tasks_.processes()) kill(pid, signo);
}

void Monitor::on_wall_tick() {
    if (!wall_->take()) return;
    for (auto& [tid, t] : tasks_.threads()) interrupt(*t);
}

bool Monitor::records_ticks(const TracedThread& t) const { return t.counters && t.counters->tick_fd() >= 0; }

void Monitor::on_tick(TracedThread& t) {
    // Counters that record their ticks need no stop, unless the live set is
    // to change: that is done while the thread stands still, so no stretch
    // of its run goes uncounted while the monitor switches the events.
    if (records_ticks(t) && !rotating_) take_recorded(t);
    else if (records_ticks(t) || t.ticker) interrupt(t);
}

void Monitor::collect_recorded(TracedThread& t) {
    struct Collect final : SampleSink {
        std::vector<RawSample>& out;
        uint64_t& n_lost;
        Collect(std::vector<RawSample>& o, uint64_t& l) : out(o), n_lost(l) {}
        void put(const RawSample& s) noexcept override { out.push_back(s); }
        void lost(uint64_t n) noexcept override { n_lost += n; }
    } sink(recorded_, recorded_lost_);
    t.counters->drain(sink);
}

void Monitor::deliver_recorded(TracedThread& t) {
    TracedProcess* p = tasks_.process(t.pid);
    if (p && p->session) {
        p->lost += recorded_lost_;
        for (const RawSample& s : recorded_) p->session->add_sample(static_cast<uint32_t>(t.tid), s);
    }
    recorded_.clear();
    recorded_lost_ = 0;
}

void Monitor::take_recorded(TracedThread& t) {
    collect_recorded(t);
    deliver_recorded(t);
}

void Monitor::interrupt(TracedThread& t) {
    // Sent again even while a tick is pending: an interrupt that meets an exec
    // (or another event stop) can be consumed without an interrupt stop, and
    // waiting for that stop would end the sampling of this thread for good.
    // Interrupts before one stop coalesce into that stop.
    if (t.listening || !t.counters) return;
    if (ptrace(PTRACE_INTERRUPT, t.tid, nullptr, nullptr) == 0) t.tick_pending = true;
}

void Monitor::reap_all() {
    int status;
    pid_t tid;
    while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) on_status(tid, status);
}

void Monitor::on_status(pid_t tid, int status) {
    if (WIFEXITED(status) || WIFSIGNALED(status)) return on_exit(tid, status);
    if (!WIFSTOPPED(status)) return;
    if (detaching_) return release(tid, status);
    expected_.erase(tid);
    if (!tasks_.thread(tid)) on_new_task(tid);
    if (TracedThread* t = tasks_.thread(tid)) on_stop(*t, status);
    else ptrace(PTRACE_CONT, tid, nullptr, nullptr);
}

// A thread or process we have not seen: its first stop after clone/fork/vfork.
void Monitor::on_new_task(pid_t tid) {
    const pid_t pid = thread_group_of(tid);
    if (pid == 0) return;
    TracedProcess* p = tasks_.process(pid);
    const bool new_process = !p;  // fork, vfork
    if (new_process) p = &tasks_.add_process(pid, exe_path(pid));
    TracedThread& t = tasks_.add_thread(tid, pid);
    try {
        arm(tid, false, t);
    } catch (const std::exception& e) {
        warn("thread " + std::to_string(tid) + " not sampled: " + e.what());
    }
    if (new_process) start_session(*p, p->program);
    else if (p->session) p->session->add_thread(static_cast<uint32_t>(tid), thread_name(tid));
}

std::string Monitor::profile_path(const TracedProcess& p) const {
    // Followed processes never share the program's file name (they would overwrite it).
    return expand_output_path(run_.output, run_.program ? run_.program[0] : p.program, p.pid, p.pid != main_pid_);
}

void Monitor::start_session(TracedProcess& p, const std::string& program, bool attached) {
    ProfileHeader h = make_profile_header(kTool, run_, program, command_line(p.pid), p.pid);
    h.attached = attached;
    const std::string path = profile_path(p);
    const uint64_t t0 = p.pid == main_pid_ ? t0_ns_ : monotonic_ns();
    try {
        p.session = std::make_unique<ProfileSession>(path, std::move(h), p.pid, t0, run_.tables);
    } catch (...) {
        // Checked before the start (launch_traced's arm), yet gone since: the
        // program sprof_pt started is not left to run on without a profile.
        if (p.pid == main_pid_ && !run_.attaching()) kill(main_pid_, SIGKILL);
        throw;
    }
    for (pid_t tid : tasks_.threads_of(p.pid)) p.session->add_thread(static_cast<uint32_t>(tid), thread_name(tid));
}

void Monitor::on_stop(TracedThread& t, int status) {
    const int sig = WSTOPSIG(status);
    const int event = status >> 16;
    if (event == PTRACE_EVENT_STOP) {
        // Our interrupt, a new task's first stop, or a group-stop (stopping signal).
        const bool group_stop = is_stopping_signal(sig);
        if (t.tick_pending) return sample(t, group_stop);
        t.listening = group_stop;
        ptrace(group_stop ? PTRACE_LISTEN : PTRACE_CONT, t.tid, nullptr, nullptr);
        return;
    }
    if (event == PTRACE_EVENT_EXEC) return on_exec(t);
    if (event != 0) {  // fork/vfork/clone/vfork-done: the new task reports itself
        expect_new_task(t.tid, event);
        ptrace(PTRACE_CONT, t.tid, nullptr, nullptr);
        return;
    }
    // Signal-delivery-stop: the program's own signal, delivered unchanged.
    ptrace(PTRACE_CONT, t.tid, nullptr, reinterpret_cast<void*>(static_cast<long>(sig)));
}

void Monitor::sample(TracedThread& t, bool group_stop) {
    t.tick_pending = false;
    if (records_ticks(t)) {
        collect_recorded(t);  // and rotate, while the thread stands still
        t.listening = group_stop;
        ptrace(group_stop ? PTRACE_LISTEN : PTRACE_CONT, t.tid, nullptr, nullptr);
        deliver_recorded(t);
        return;
    }
    RawSample s;
    s.wall_ns = monotonic_ns();
    // The PC at the tick itself when the CPU-time ticker recorded one; else
    // (wall clock) where the stop caught the thread — one register read, not two.
    bool have_pc = t.ticker && t.ticker->take_pc(s.pc);
    if (!have_pc) s.pc = program_counter(t.tid, have_pc);
    const bool counted = have_pc && t.counters->sample(s);
    t.listening = group_stop;
    // Resume first: symbol lookup and writing happen while the program runs.
    ptrace(group_stop ? PTRACE_LISTEN : PTRACE_CONT, t.tid, nullptr, nullptr);
    TracedProcess* p = tasks_.process(t.pid);
    if (!p || !p->session) return;
    if (counted) p->session->add_sample(static_cast<uint32_t>(t.tid), s);
    else ++p->lost;
}

void Monitor::on_exec(TracedThread& t) {
    unsigned long former = 0;
    ptrace(PTRACE_GETEVENTMSG, t.tid, nullptr, &former);
    const pid_t pid = t.tid;
    TracedProcess* p = tasks_.process(pid);
    if (!p) {
        ptrace(PTRACE_CONT, pid, nullptr, nullptr);
        return;
    }
    if (static_cast<pid_t>(former) != pid) {
        // A non-leader thread exec'd: it takes the leader's tid, the old leader is gone.
        if (p->session) p->session->end_thread(static_cast<uint32_t>(pid), monotonic_ns());
        tasks_.rename_thread(static_cast<pid_t>(former), pid);
    }
    p->program = exe_path(pid);
    if (!p->session) {
        start_session(*p, p->program);
    } else if (!run_.follow) {
        // Not following exec: the profile of the first image ends here, by
        // the exec; the process is still waited for, for sprof_pt's own status.
        end_threads(*p, monotonic_ns());
        p->session->finish(EndHow::exec, 0, p->lost);
        p->traced = false;
        ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
        // Only a parent learns how a process it did not start ends.
        if (run_.attaching()) tasks_.remove_process(pid);
        return;
    } else {
        p->session->exec_switch();
    }
    ptrace(PTRACE_CONT, pid, nullptr, nullptr);
}

void Monitor::end_threads(TracedProcess& p, uint64_t now) {
    for (pid_t tid : tasks_.threads_of(p.pid)) {
        if (TracedThread* t = tasks_.thread(tid); t && records_ticks(*t)) take_recorded(*t);  // its last ticks
        if (p.session) p.session->end_thread(static_cast<uint32_t>(tid), now);
        tasks_.remove_thread(tid);
    }
}

void Monitor::finish_thread(TracedThread& t, uint64_t now) {
    if (records_ticks(t)) take_recorded(t);  // its last ticks
    if (TracedProcess* p = tasks_.process(t.pid); p && p->session) {
        // What was counted after the last tick: the last sample's function's.
        if (RawSample tail; t.counters && t.counters->tail(tail)) {
            tail.pc = kTailPc;
            tail.wall_ns = now;
            p->session->add_sample(static_cast<uint32_t>(t.tid), tail);
        }
        p->session->end_thread(static_cast<uint32_t>(t.tid), now);
    }
    tasks_.remove_thread(t.tid);
}

void Monitor::on_exit(pid_t tid, int wait_status) {
    const uint64_t now = monotonic_ns();
    expected_.erase(tid);
    pid_t pid = tid;
    if (TracedThread* t = tasks_.thread(tid)) {
        pid = t->pid;
        finish_thread(*t, now);
    }
    if (pid != tid) return;
    TracedProcess* p = tasks_.process(pid);
    if (!p) return;
    end_threads(*p, now);
    // From outside, exit() and _exit() look the same: both are "exit".
    const bool killed = WIFSIGNALED(wait_status);
    const int value = killed ? WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
    if (p->session) p->session->finish(killed ? EndHow::signal : EndHow::exit, value, p->lost);
    if (pid == main_pid_) main_status_ = killed ? 128 + value : value;
    tasks_.remove_process(pid);
}

}  // namespace sprof::pt
