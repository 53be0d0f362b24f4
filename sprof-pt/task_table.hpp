// The traced tasks: every thread with its counters and ticker, every process
// with its profile.
#pragma once
#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sprof/backend.hpp"
#include "sprof/session.hpp"
#include "tick_source.hpp"

namespace sprof::pt {

struct TracedThread {
    pid_t tid = 0;
    pid_t pid = 0;  // its process (thread group)
    std::unique_ptr<TaskCounters> counters;
    std::unique_ptr<CpuTicker> ticker;  // cpu clock without self-ticking counters (cmdev); null otherwise
    int tick_fd = -1;                   // the fd whose overflow signals name this thread's ticks
    bool tick_pending = false;  // interrupted for a sample, stop not yet seen
    bool listening = false;     // in a group-stop (PTRACE_LISTEN): not running, not to be interrupted
};

struct TracedProcess {
    pid_t pid = 0;
    std::string program;                      // path it runs (argv[0] until the first exec)
    std::unique_ptr<ProfileSession> session;  // null until the program's image is known
    bool traced = true;                       // false after --no-follow detached it at an exec
    uint64_t lost = 0;                        // ticks that gave no sample (thread gone meanwhile)
};

class TaskTable {
public:
    TracedThread& add_thread(pid_t tid, pid_t pid);
    TracedThread* thread(pid_t tid);
    void set_ticker(TracedThread& t, std::unique_ptr<CpuTicker> ticker);
    // Ticks signalled on `fd` belong to t.
    void watch_ticks(TracedThread& t, int fd);
    TracedThread* thread_by_ticker(int fd);
    // Re-keys a thread (exec: the execing thread takes the leader's tid).
    void rename_thread(pid_t from, pid_t to);
    void remove_thread(pid_t tid);
    std::vector<pid_t> threads_of(pid_t pid) const;

    TracedProcess& add_process(pid_t pid, std::string program);
    TracedProcess* process(pid_t pid);
    void remove_process(pid_t pid);

    std::map<pid_t, std::unique_ptr<TracedThread>>& threads() { return threads_; }
    std::map<pid_t, TracedProcess>& processes() { return processes_; }

private:
    std::map<pid_t, std::unique_ptr<TracedThread>> threads_;
    std::map<int, pid_t> by_ticker_;
    std::map<pid_t, TracedProcess> processes_;
};

}  // namespace sprof::pt
