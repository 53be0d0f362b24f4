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

static inline long minor_faults(void) {
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_minflt;
}

/* Burns `seconds` of this thread's CPU time in the caller's code. Reading
 * the thread's CPU clock is a system call (~2 µs here, several times that on a
 * busy machine) whose samples land in [vdso], not in the caller: a batch of
 * 20,000 steps (~0.1 ms) between reads keeps short calls exact to 0.1 ms but
 * puts 2-7 % of their time in the clock reads, so calls of 50 ms and more read
 * it only every ~1 ms (< 1 % of their time, ~1 ms past the end at most). */
static inline __attribute__((always_inline)) void spin_cpu(double seconds, volatile double *sink) {
    const double end = thread_cpu_s() + seconds;
    const int batch = seconds < 0.05 ? 20000 : 200000;
    do {
        for (int i = 0; i < batch; ++i) *sink = *sink * 1.0000001 + 1.0;
    } while (thread_cpu_s() < end);
}

/* Maps `pages` fresh pages, writes one byte to each (one minor fault per page:
 * transparent huge pages are turned off for the range), unmaps them. */
static inline __attribute__((always_inline)) void touch_fresh_pages(long pages) {
    const long page = sysconf(_SC_PAGESIZE);
    if (pages <= 0) return;
    char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(3);
    }
    madvise(p, pages * page, MADV_NOHUGEPAGE);
    for (long i = 0; i < pages; ++i) p[i * page] = (char)i;
    munmap(p, pages * page);
}

#endif
