// Thin wrappers over perf_event_open(2) shared by the backends and the timers.
#pragma once
#include <linux/perf_event.h>
#include <sys/types.h>

#include <string>

namespace sprof {

// perf_event_open for task `tid` (0 = caller) on any CPU. Returns fd or -errno.
int perf_event_open_task(const perf_event_attr& attr, pid_t tid, int group_fd = -1);

// Why opening `event_name` failed, in words a user can act on.
std::string perf_open_error(const std::string& event_name, const perf_event_attr& attr, int err);

}  // namespace sprof
