// Thin wrappers over perf_event_open(2) shared by the backends and the timers.
#pragma once
#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace sprof {

// perf_event_open for task `tid` (0 = caller) on any CPU. Returns fd or -errno.
int perf_event_open_task(const perf_event_attr& attr, pid_t tid, int group_fd = -1);

// Makes every overflow of event `fd` send `signo` (with si_fd = fd) to the
// thread or process `owner` (F_OWNER_TID / F_OWNER_PID). Returns 0 or errno.
int route_overflow_signal(int fd, int signo, int owner_type, pid_t owner);

// Whether this process may count kernel space: perf's rule (CAP_PERFMON,
// CAP_SYS_ADMIN or kernel.perf_event_paranoid <= 1), decided once by opening a
// task-clock counter that includes the kernel, so the kernel's own verdict
// (LSMs included) is what counts.
bool kernel_counting_allowed();

// Sets exclude_kernel/exclude_hv on attrs that must stay in user space for
// this process (perf's ":u"); leaves them alone where the kernel is allowed.
void apply_counting_scope(perf_event_attr& attr);

// The kernel's perf_event_paranoid level (2 when it cannot be read).
int paranoid_level();

// Why opening `event_name` failed, in words a user can act on.
std::string perf_open_error(const std::string& event_name, const perf_event_attr& attr, int err);

// Whether the event takes one of the PMU's physical counters (a hardware,
// cache, raw or dynamic-PMU event), as opposed to a kernel software event.
bool takes_a_counter(const perf_event_attr& attr);

// Asks the kernel for the user call chain in every sample record (frame
// pointers, as perf record -g): PERF_SAMPLE_CALLCHAIN without the kernel's
// part, at most `depth` frames and no more than kernel.perf_event_max_stack
// allows (a deeper request is refused with EOVERFLOW). depth 0: none.
void apply_call_chain(perf_event_attr& attr, unsigned depth);

// The user frames of a record's PERF_SAMPLE_CALLCHAIN block (`words`: its
// `nr` and the entries after it, `n` words in all) into `frames` (at most
// `max`), without the kernel's context markers. Returns the frames taken,
// or SIZE_MAX when the block does not fit in `n` words. Async-signal-safe.
size_t read_call_chain(const uint64_t* words, size_t n, uint64_t* frames, size_t max) noexcept;

// Why `event_name`, which opens alone, was refused live as a member of a
// group that already holds `live_before` live events that take a counter:
// the kernel refuses a group whose live events do not fit the physical
// counters at once (EINVAL); sprof rotates any number over fewer slots.
std::string perf_group_error(const std::string& event_name, unsigned live_before);

}  // namespace sprof
