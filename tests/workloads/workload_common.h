/* Helpers shared by the workload programs: exact CPU-time spinning and
 * fresh-page touching, so each program knows its own ground truth. */
#ifndef SPROF_WORKLOAD_COMMON_H
#define SPROF_WORKLOAD_COMMON_H
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static inline double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
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

#endif
