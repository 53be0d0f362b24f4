#include "attach_refusal.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "sprof/proc.hpp"

namespace sprof::pt {
namespace {

// kernel.yama.ptrace_scope, or -1 without Yama.
int ptrace_scope() {
    std::ifstream in("/proc/sys/kernel/yama/ptrace_scope");
    int scope = -1;
    return in >> scope ? scope : -1;
}

std::string why_not_permitted(pid_t id) {
    if (const pid_t tracer = tracer_of(id))
        return "it is traced already, by process " + std::to_string(tracer) + " (a debugger or another profiler)";
    struct stat st;
    const bool root = geteuid() == 0;
    if (stat(proc_file(id, "").c_str(), &st) == 0 && st.st_uid != geteuid() && !root)
        return "it belongs to another user (uid " + std::to_string(st.st_uid) + "); only root may trace it";
    switch (ptrace_scope()) {
    case 1:
        return "kernel.yama.ptrace_scope is 1: a process may be traced only by its ancestors (start it under "
               "sprof_pt, or as root: sysctl kernel.yama.ptrace_scope=0)";
    case 2: return "kernel.yama.ptrace_scope is 2: only root (CAP_SYS_PTRACE) may attach";
    case 3: return "kernel.yama.ptrace_scope is 3: no process may be attached to";
    default: break;
    }
    return std::string(std::strerror(EPERM)) + " (a set-user-ID or otherwise undumpable program?)";
}

}  // namespace

std::string attach_refusal(pid_t id, bool thread, int err) {
    std::string what = std::string("cannot attach to ") + (thread ? "thread " : "process ") + std::to_string(id) + ": ";
    if (id == getpid()) return what + "that is sprof_pt itself";
    if (err == ESRCH) return what + (thread ? "no such thread" : "no such process");
    if (err == EPERM) return what + why_not_permitted(id);
    return what + std::strerror(err);
}

}  // namespace sprof::pt
