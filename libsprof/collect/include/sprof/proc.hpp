// Readers of /proc for a process or thread (pid 0: the caller's process).
// Each answers empty (or 0) when the task is gone or the file unreadable.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace sprof {

// "/proc/self/NAME" for pid 0, else "/proc/PID/NAME".
std::string proc_file(pid_t pid, const std::string& name);
// The thread's name (comm).
std::string thread_name(pid_t tid);
// The thread group (process) of `tid` (Tgid in its status).
pid_t thread_group_of(pid_t tid);
// The process tracing `tid` (TracerPid in its status); 0 when none.
pid_t tracer_of(pid_t tid);
// The threads of process `pid` now (its task directory).
std::vector<pid_t> threads_of_process(pid_t pid);
// The path of the executable the process runs.
std::string exe_path(pid_t pid);
// The process's argv.
std::vector<std::string> command_line(pid_t pid);

}  // namespace sprof
