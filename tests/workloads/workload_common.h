/* Helpers shared by the workload programs: exact CPU-time spinning and
 * fresh-page touching, so each program knows its own ground truth. */
#ifndef SPROF_WORKLOAD_COMMON_H
#define SPROF_WORKLOAD_COMMON_H
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The calling thread's task-clock in seconds: the perf counter of its CPU
 * time that a profile's time axis is made of, and so the clock of a
 * workload's own time line. It is not quite the thread's CPU clock: the
 * scheduler's work around a context switch is in the one and not the other,
 * a third of the CPU time of a thread that polls with sched_yield beside
 * another runnable thread, as an MPI rank waiting in a barrier does
 * (measured: 0.20 s of task-clock in 0.30 s of CPU time), 0.4 % of a thread
 * that computes beside one; more than it, by the time the hypervisor steals
 * while the thread is current, on a virtual machine that accounts steal time
 * (a busy host: 1.030 s of ticks in 0.963 s of CPU clock). A thread's first
 * call opens its own counter (user space only where a user may count no
 * more, as a user's profile does; task-clock counts the same either way):
 * the time since then. */
static inline int open_task_clock(void) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0) {
        a.exclude_kernel = a.exclude_hv = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    }
    if (fd < 0) {
        perror("perf_event_open(task-clock)");
        exit(3);
    }
    return fd;
}

static inline double task_clock_s(void) {
    static __thread int fd = -1;
    if (fd < 0) fd = open_task_clock();
    uint64_t ns = 0;
    if (read(fd, &ns, sizeof ns) != (ssize_t)sizeof ns) {
        perror("read(task-clock)");
        exit(3);
    }
    return ns / 1e9;
}

/* Wall-clock seconds on CLOCK_MONOTONIC: the clock an observer of the run
 * (python's time.monotonic()) reads too. */
static inline double monotonic_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline long minor_faults(void) {
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_minflt;
}

static inline __attribute__((always_inline)) void spin_steps(long steps, volatile double *sink) {
    for (long i = 0; i < steps; ++i) *sink = *sink * 1.0000001 + 1.0;
}

/* Burns `seconds` of this thread's CPU time in the caller's code. Reading
 * the thread's CPU clock is a system call (~2 µs here, several times that on a
 * busy machine) whose samples land in [vdso], not in the caller, so the clock
 * is read only a few times a call: each batch of steps covers 90 % of what is
 * left at the rate measured so far, and the call ends within ~10 µs of
 * `seconds`. */
static inline __attribute__((always_inline)) void spin_cpu(double seconds, volatile double *sink) {
    const double start = thread_cpu_s(), end = start + seconds;
    long done = 20000;  /* a first batch of ~0.1 ms measures the rate */
    spin_steps(done, sink);
    for (double now = thread_cpu_s(); now < end; now = thread_cpu_s()) {
        const double rate = now > start ? done / (now - start) : 1e9;
        long steps = (long)((end - now) * rate * 0.9);
        if (steps < 2000) steps = 2000;
        spin_steps(steps, sink);
        done += steps;
    }
}

/* Fresh pages: mapped with transparent huge pages off, so that the first
 * write to each page is one minor fault. */
static inline char *map_fresh_pages(long pages) {
    const long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(3);
    }
    madvise(p, pages * page, MADV_NOHUGEPAGE);
    return p;
}

/* Writes one byte to each of pages [from, to) of a map_fresh_pages region. */
static inline __attribute__((always_inline)) void touch_pages(char *p, long from, long to) {
    const long page = sysconf(_SC_PAGESIZE);
    for (long i = from; i < to; ++i) p[i * page] = (char)i;
}

static inline void unmap_pages(char *p, long pages) { munmap(p, pages * sysconf(_SC_PAGESIZE)); }

/* Maps `pages` fresh pages, writes one byte to each, unmaps them. */
static inline __attribute__((always_inline)) void touch_fresh_pages(long pages) {
    if (pages <= 0) return;
    char *p = map_fresh_pages(pages);
    touch_pages(p, 0, pages);
    unmap_pages(p, pages);
}

/* A system call from the caller's own code (always inlined), so that a
 * sample taken in it names the caller, not a libc wrapper or the vDSO. */
static inline __attribute__((always_inline)) long own_syscall(long n, long a, long b, long c) {
#if defined(__x86_64__)
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
#else
    return syscall(n, a, b, c); /* elsewhere the wrapper's samples go to libc */
#endif
}

/* The calling thread's CPU clock in ns, read from the caller's own code. */
static inline __attribute__((always_inline)) long own_cpu_ns(void) {
    struct timespec ts;
    own_syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, (long)&ts, 0);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* An unlinked file of `pages` pages on disk in `dir`, written and synced so
 * the kernel may drop its pages (tmpfs cannot: `dir` must be on a disk):
 * read through a mapping after POSIX_FADV_DONTNEED and MADV_RANDOM, each
 * page is one major fault. */
static inline int make_file(const char *dir, long pages, long page) {
    char path[4096];
    snprintf(path, sizeof path, "%s/workload.XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0) {
        perror(path);
        exit(3);
    }
    unlink(path);
    char *buf = calloc(1, page);
    for (long i = 0; i < pages; ++i) {
        buf[0] = (char)i;
        if (write(fd, buf, page) != page) {
            perror("write");
            exit(3);
        }
    }
    free(buf);
    fsync(fd);
    return fd;
}

#endif
