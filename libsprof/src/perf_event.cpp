#include "sprof/perf_event.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace sprof {

int perf_event_open_task(const perf_event_attr& attr, pid_t tid, int group_fd) {
    long fd = syscall(SYS_perf_event_open, &attr, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : static_cast<int>(fd);
}

static int paranoid_level() {
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    int level = 2;
    in >> level;
    return level;
}

std::string perf_open_error(const std::string& name, const perf_event_attr& attr, int err) {
    const bool hardware = attr.type == PERF_TYPE_HARDWARE || attr.type == PERF_TYPE_HW_CACHE ||
                          attr.type == PERF_TYPE_RAW || attr.type >= PERF_TYPE_MAX;
    std::string why;
    if (hardware && (err == ENOENT || err == ENODEV || err == EOPNOTSUPP))
        why = "no hardware PMU can count it on this machine (virtualised?) — use software events, "
              "e.g. -e task-clock,page-faults,context-switches";
    else if (err == ENOENT || err == EOPNOTSUPP)
        why = "the kernel does not support this event";
    else if (err == EACCES || err == EPERM)
        why = "permission denied (kernel.perf_event_paranoid = " + std::to_string(paranoid_level()) +
              "; counting another user's task or kernel space needs CAP_PERFMON)";
    else if (err == EMFILE)
        why = "too many open files (raise ulimit -n)";
    else if (err == ENOSPC || err == EBUSY)
        why = "all counters of this kind are in use";
    else if (err == ENOSYS)
        why = "this kernel has no perf_event_open";
    else
        why = std::strerror(err);
    return "cannot count '" + name + "': " + why;
}

}  // namespace sprof
