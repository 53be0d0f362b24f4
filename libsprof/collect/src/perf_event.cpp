#include "sprof/perf_event.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace sprof {

int perf_event_open_task(const perf_event_attr& attr, pid_t tid, int group_fd) {
    long fd = syscall(SYS_perf_event_open, &attr, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : static_cast<int>(fd);
}

int route_overflow_signal(int fd, int signo, int owner_type, pid_t owner) {
    f_owner_ex to{static_cast<__pid_type>(owner_type), owner};
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || fcntl(fd, F_SETSIG, signo) != 0 ||
        fcntl(fd, F_SETOWN_EX, &to) != 0)
        return errno;
    return 0;
}

int paranoid_level() {
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    int level = 2;
    in >> level;
    return level;
}

void apply_call_chain(perf_event_attr& attr, unsigned depth) {
    if (!depth) return;
    static const unsigned kernel_max = [] {
        std::ifstream in("/proc/sys/kernel/perf_event_max_stack");
        unsigned v = 127;  // the kernel's default
        in >> v;
        return v;
    }();
    attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
    attr.exclude_callchain_kernel = 1;  // the program's frames only: what a user may see at paranoid 2
    attr.sample_max_stack = static_cast<uint16_t>(std::min(depth, kernel_max));
}

size_t read_call_chain(const uint64_t* words, size_t n, uint64_t* frames, size_t max) noexcept {
    if (n == 0 || words[0] > n - 1) return SIZE_MAX;
    size_t taken = 0;
    for (size_t i = 1; i <= words[0] && taken < max; ++i)
        if (words[i] < PERF_CONTEXT_MAX) frames[taken++] = words[i];  // PERF_CONTEXT_USER & co. mark, not frames
    return taken;
}

bool kernel_counting_allowed() {
    static const bool allowed = [] {
        perf_event_attr a{};
        a.size = sizeof a;
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_TASK_CLOCK;
        a.disabled = 1;
        int fd = perf_event_open_task(a, 0);
        if (fd >= 0) close(fd);
        return fd >= 0;
    }();
    return allowed;
}

void apply_counting_scope(perf_event_attr& attr) {
    if (kernel_counting_allowed()) return;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
}

bool takes_a_counter(const perf_event_attr& attr) {
    return attr.type == PERF_TYPE_HARDWARE || attr.type == PERF_TYPE_HW_CACHE || attr.type == PERF_TYPE_RAW ||
           attr.type >= PERF_TYPE_MAX;
}

std::string perf_group_error(const std::string& name, unsigned live_before) {
    return "cannot count '" + name + "' at once with the " + std::to_string(live_before) +
           " hardware events before it: the PMU has no counter left (the events live at once form one group, "
           "which must fit its counters) — use --slots " + std::to_string(live_before) +
           " or fewer, and sprof rotates every event through them";
}

std::string perf_open_error(const std::string& name, const perf_event_attr& attr, int err) {
    const bool hardware = takes_a_counter(attr);
    std::string why;
    if (hardware && (err == ENOENT || err == ENODEV || err == EOPNOTSUPP))
        why = "no hardware PMU can count it on this machine (virtualised?) — use software events, "
              "e.g. -e task-clock,page-faults,context-switches";
    else if (err == ENOENT || err == EOPNOTSUPP)
        why = "the kernel does not support this event";
    else if ((err == EACCES || err == EPERM) && paranoid_level() > 2)
        why = "kernel.perf_event_paranoid = " + std::to_string(paranoid_level()) +
              " forbids all performance counting to unprivileged users — an administrator can allow "
              "counting one's own programs with 'sysctl kernel.perf_event_paranoid=2', or grant CAP_PERFMON";
    else if (err == EACCES || err == EPERM)
        why = "permission denied (kernel.perf_event_paranoid = " + std::to_string(paranoid_level()) +
              "; counting another user's task or kernel space needs CAP_PERFMON or a paranoid level of 1)";
    else if (err == EINVAL && attr.type >= PERF_TYPE_MAX && attr.exclude_kernel)
        why = "its PMU counts user and kernel space together, and this user may count user space only "
              "(kernel.perf_event_paranoid = " + std::to_string(paranoid_level()) +
              "; needs CAP_PERFMON or a paranoid level of 1) — leave it out";
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
