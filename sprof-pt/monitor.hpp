// The ptrace monitor's event loop: starts the program, follows its threads
// and processes, samples them on ticks, passes their signals through and
// finishes one profile per process.
#pragma once
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "sprof/backend.hpp"
#include "sprof/run_options.hpp"
#include "task_table.hpp"

namespace sprof::pt {

class Monitor {
public:
    // A prepared run (resolve_run) with its program.
    explicit Monitor(RunOptions run);
    ~Monitor();
    // Runs the program to its end; returns its exit status (128+signal when killed).
    int run();

private:
    void arm(pid_t pid, bool enable_on_exec, TracedThread& t);
    void on_signal(int signo, int code, int fd);
    void on_wall_tick();
    // A tick of t: take the samples its counters recorded, or stop it to sample.
    void on_tick(TracedThread& t);
    // Whether t's counters record its ticks (PC and counters of one instant).
    bool records_ticks(const TracedThread& t) const;
    // Drains t's recorded ticks into recorded_ (rotating the live set), then
    // hands them to its profile.
    void collect_recorded(TracedThread& t);
    void deliver_recorded(TracedThread& t);
    void take_recorded(TracedThread& t);
    void interrupt(TracedThread& t);
    void reap_all();
    void on_status(pid_t tid, int status);
    void on_new_task(pid_t tid);
    void on_stop(TracedThread& t, int status);
    void on_exec(TracedThread& t);
    void on_exit(pid_t tid, int wait_status);  // the task ended (waitpid's status)
    // Flushes and forgets every thread of the process (exit, or no longer followed).
    void end_threads(TracedProcess& p, uint64_t now);
    void sample(TracedThread& t, bool group_stop);
    void start_session(TracedProcess& p, const std::string& program);
    void forward(int signo);
    // Writes the samples of every open interval, so a monitor killed at any
    // moment loses at most one flush period.
    void flush_parts();
    void warn(const std::string& msg);

    RunOptions run_;
    std::unique_ptr<Backend> backend_;
    TaskTable tasks_;
    pid_t main_pid_ = 0;
    int main_status_ = 0;
    int tick_signo_ = 0;
    int signal_fd_ = -1;
    std::unique_ptr<WallTicker> wall_;  // --clock wall's ticks
    uint64_t t0_ns_ = 0;
    bool rotating_ = false;            // fewer slots than events: the live set changes
    std::vector<RawSample> recorded_;  // collected, not yet delivered
    uint64_t recorded_lost_ = 0;
};

}  // namespace sprof::pt
