/* The clock sprof's ticks run on, read by the workload itself.
 *
 * The collectors tick on perf's task-clock: the time a thread is current on
 * a CPU, read from the scheduler's clock. The thread CPU clock
 * (CLOCK_THREAD_CPUTIME_ID, getrusage, `time`) is the scheduler's runtime
 * instead, which on a virtual machine with steal-time accounting leaves out
 * the time the hypervisor ran something else while the thread was current
 * (and, with IRQ time accounting, interrupts). On a busy host the two part
 * by several percent (a CI run: 1.030 s of task-clock ticks against 0.963 s
 * of CPU clock), so a bound "the profile holds no more than the program's
 * time" must be taken on the task-clock.
 *
 * on_cpu_start() opens the calling thread's task-clock counter and notes its
 * CPU clock then; on_cpu_s() is that CPU clock plus the task-clock since:
 * the thread's time as the ticks count it, but for the few milliseconds
 * before the start (the loader, the collector's set-up), taken on the CPU
 * clock. Without a counter (perf forbidden: then no collector runs either)
 * it is the CPU clock. */
#ifndef SPROF_ON_CPU_CLOCK_H
#define SPROF_ON_CPU_CLOCK_H
#include "workload_common.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>

static __thread int on_cpu_fd = -1;
static __thread double on_cpu_base_s;

static inline int on_cpu_open(int exclude_kernel) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.exclude_kernel = exclude_kernel; /* as the collectors do when the kernel is not theirs to count */
    a.exclude_hv = exclude_kernel;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static inline void on_cpu_start(void) {
    on_cpu_fd = on_cpu_open(0);
    if (on_cpu_fd < 0) on_cpu_fd = on_cpu_open(1);
    on_cpu_base_s = thread_cpu_s();
}

static inline double on_cpu_s(void) {
    uint64_t ns;
    if (on_cpu_fd < 0 || read(on_cpu_fd, &ns, sizeof ns) != (ssize_t)sizeof ns) return thread_cpu_s();
    return on_cpu_base_s + ns / 1e9;
}

#endif
