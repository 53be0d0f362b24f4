// The ptrace monitor's event loop: starts the program, follows its threads
// and processes, samples them on ticks, passes their signals through and
// finishes one profile per process.
#pragma once
#include <sys/types.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sprof/backend.hpp"
#include "sprof/run_options.hpp"
#include "task_table.hpp"

namespace sprof::pt {

class Monitor {
public:
    // A prepared run (resolve_run) with its program, or the tasks to attach to.
    explicit Monitor(RunOptions run);
    ~Monitor();
    // Runs the program to its end; returns its exit status (128+signal when
    // killed). Attached: profiles until the tasks end, a SIGINT/SIGTERM/SIGHUP/
    // SIGQUIT or the run's duration, then lets them go; returns 0. Throws
    // "cannot attach to …" with nothing left attached.
    int run();

private:
    // Seizes every task of -p and --tid (they run on), names and starts their
    // profiles. Throws; what it seized is then still to be let go.
    void attach_running(unsigned long options);
    // Seizes thread tid of process pid (with ptrace `options`) into the table; 0 or the errno.
    int seize(pid_t tid, pid_t pid, unsigned long options);
    // Stops every thread, to let each go at its stop (release).
    void begin_detach();
    // Lets go of a task at its stop (waitpid's `status`).
    void release(pid_t tid, int status);
    // Ends the profiles of the processes whose threads are all let go (or ended) as detached.
    void end_detached();
    // At a clone/fork/vfork event of tid: its new task's first stop is awaited.
    void expect_new_task(pid_t tid, int event);
    // The thread's last samples taken and its interval closed; it is forgotten.
    void finish_thread(TracedThread& t, uint64_t now);
    // The file the profile of p goes to.
    std::string profile_path(const TracedProcess& p) const;
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
    // `attached`: p ran before it was seized (its profile says so).
    void start_session(TracedProcess& p, const std::string& program, bool attached = false);
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
    bool detaching_ = false;           // letting every task go (begin_detach)
    std::set<pid_t> expected_;         // new tasks whose first stop has not come yet
    std::vector<RawSample> recorded_;  // collected, not yet delivered
    uint64_t recorded_lost_ = 0;
};

}  // namespace sprof::pt
