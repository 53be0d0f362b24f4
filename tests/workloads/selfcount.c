/* Functions that cause every software event a Linux machine counts, each at
 * its own rate, called in a fixed cycle for a fixed length of CPU time, and
 * counted by the program itself: it opens its own perf_event_open counter of
 * every event it is given (the same events, with the same kernel/user scope,
 * as the profiler) and reads them before and after each call. The counts per
 * function are the truth a profile's estimates are judged against.
 *
 *   compute   5 × CALL ms of arithmetic only
 *   minor    10 × CALL ms, 4 fresh anonymous pages a ms (minor faults)
 *   major     5 × CALL ms, 1 page a ms of a file dropped from the page cache
 *             (major faults)
 *   switcher 20 × CALL ms, 1 page a ms, a 20 µs sleep a ms (a context
 *             switch) and a move to another CPU every 5 ms (a migration,
 *             when the program may run on two CPUs)
 *
 * Every system call that makes an event is issued from the function's own
 * code (an inline `syscall` instruction), and each function paces itself on
 * its thread's CPU clock read the same way, so a profiler's sample in a
 * function is in its own code, never in a libc wrapper or the vDSO. The
 * mapping and unmapping of the pages happens between the calls.
 *
 * With -r RHYTHM_MS every function makes its events only in the first half
 * of each RHYTHM_MS of its CPU time (the second half is arithmetic only): a
 * rhythm that can match a profiler's rotation of live events.
 *
 * usage: selfcount [-t SECONDS] [-m CALL_MS] [-r RHYTHM_MS] [-d DIR]
 *                  [-e EVENT,…] [-o TRUTH_FILE]
 * Truth file: "FUNCTION calls N", "FUNCTION cpu_s S" and one
 * "FUNCTION EVENT COUNT" line per event (names as given with -e). */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>

#define MAX_EVENTS 16

static volatile double sink;

/* What a function does in each ms of its CPU time. */
struct plan {
    const char *name;
    int call_factor; /* call length in units of -m */
    int minor_pages; /* fresh anonymous pages touched */
    int major_pages; /* pages read from the dropped file */
    int sleep;       /* a 20 µs sleep: a context switch */
    int migrate_every; /* ms between moves to another CPU; 0 = never */
};

static const struct plan plans[] = {
    {"compute", 5, 0, 0, 0, 0},
    {"minor", 10, 4, 0, 0, 0},
    {"major", 5, 0, 1, 0, 0},
    {"switcher", 20, 1, 0, 1, 5},
};
#define N_FUNCTIONS (sizeof plans / sizeof plans[0])

/* What one call gets: its pages, and the CPUs it may move between. */
struct call {
    long ms;
    char *anon;   /* minor_pages × ms fresh pages */
    char *file;   /* major_pages × ms dropped pages of the file */
    long page;
    long rhythm_ns; /* 0: events in every ms */
    int cpus[2];  /* -1: no second CPU */
};

/* The body every function shares, inlined into each so that its samples
 * are the function's own: `ms` slices of one ms of CPU time, events at the
 * start of each slice (in the first half of every rhythm period only). */
static inline __attribute__((always_inline)) void work(const struct plan *p, const struct call *c) {
    const long start = own_cpu_ns();
    long anon = 0, file = 0, slice_ms = 0;
    int on = 0;
    for (long ms = 0; ms < c->ms; ++ms) {
        const long slice_end = start + (ms + 1) * 1000000L;
        /* The rhythm runs on the thread's CPU clock, the clock a profiler
         * samples on, across calls. */
        const int eventful = c->rhythm_ns == 0 || own_cpu_ns() % c->rhythm_ns < c->rhythm_ns / 2;
        /* In a rhythm, the events of the calm half are made in the busy
         * half, so every function makes the same number of events a call. */
        const long due = eventful ? (c->rhythm_ns ? 2 : 1) : 0;
        for (long k = 0; k < due && slice_ms < c->ms; ++k, ++slice_ms) {
            for (int i = 0; i < p->minor_pages; ++i) c->anon[(anon++) * c->page] = 1;
            for (int i = 0; i < p->major_pages; ++i) sink += c->file[(file++) * c->page];
            if (p->sleep) {
                struct timespec nap = {0, 20000};
                own_syscall(SYS_nanosleep, (long)&nap, 0, 0);
            }
            if (p->migrate_every && c->cpus[1] >= 0 && slice_ms % p->migrate_every == 0) {
                cpu_set_t set;
                CPU_ZERO(&set);
                CPU_SET(c->cpus[on ^= 1], &set);
                own_syscall(SYS_sched_setaffinity, 0, sizeof set, (long)&set);
            }
        }
        while (own_cpu_ns() < slice_end) spin_steps(2000, &sink);
    }
}

__attribute__((noinline)) void compute(const struct call *c) { work(&plans[0], c); }
__attribute__((noinline)) void minor(const struct call *c) { work(&plans[1], c); }
__attribute__((noinline)) void major(const struct call *c) { work(&plans[2], c); }
__attribute__((noinline)) void switcher(const struct call *c) { work(&plans[3], c); }
static void (*const functions[])(const struct call *) = {compute, minor, major, switcher};

/* ---- the program's own counters ---- */

struct counter {
    char name[64];
    int fd;
};

static int sysfs_number(const char *path, const char *key, unsigned long *out) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char buf[128] = "";
    int ok = fgets(buf, sizeof buf, f) != NULL;
    fclose(f);
    if (!ok) return -1;
    const char *v = key ? strstr(buf, key) : buf;
    if (!v) return -1;
    *out = strtoul(v + (key ? strlen(key) : 0), NULL, 0);
    return 0;
}

/* perf's names of the software events, and PMU/EVENT/ of sysfs (msr/tsc/). */
static int event_attr(const char *name, struct perf_event_attr *a) {
    static const struct { const char *name; unsigned long config; } sw[] = {
        {"task-clock", PERF_COUNT_SW_TASK_CLOCK},         {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK},
        {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},       {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
        {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},  {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
        {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS}, {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS},
        {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS},
    };
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    for (size_t i = 0; i < sizeof sw / sizeof sw[0]; ++i)
        if (!strcmp(name, sw[i].name)) {
            a->type = PERF_TYPE_SOFTWARE;
            a->config = sw[i].config;
            return 0;
        }
    char pmu[32], event[32], path[160];
    if (sscanf(name, "%31[^/]/%31[^/]/", pmu, event) != 2) return -1;
    unsigned long type, config;
    snprintf(path, sizeof path, "/sys/bus/event_source/devices/%s/type", pmu);
    if (sysfs_number(path, NULL, &type)) return -1;
    snprintf(path, sizeof path, "/sys/bus/event_source/devices/%s/events/%s", pmu, event);
    if (sysfs_number(path, "event=", &config)) return -1;
    a->type = (unsigned)type;
    a->config = config;
    return 0;
}

/* Opens `name` on this thread: kernel included where the user may count it,
 * user space only (as the profiler does) where not. */
static int open_counter(const char *name) {
    struct perf_event_attr a;
    if (event_attr(name, &a)) {
        fprintf(stderr, "selfcount: unknown event '%s'\n", name);
        exit(2);
    }
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
        a.exclude_kernel = a.exclude_hv = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    }
    if (fd < 0) {
        fprintf(stderr, "selfcount: cannot count '%s': %s\n", name, strerror(errno));
        exit(3);
    }
    return fd;
}

static uint64_t read_counter(int fd) {
    uint64_t v = 0;
    if (read(fd, &v, sizeof v) != sizeof v) {
        perror("selfcount: read counter");
        exit(3);
    }
    return v;
}

int main(int argc, char **argv) {
    double total_s = 4.0, call_ms = 10.0, rhythm_ms = 0;
    const char *truth = NULL, *dir = ".";
    char events_arg[1024] = "task-clock,page-faults";
    int opt;
    while ((opt = getopt(argc, argv, "t:m:r:d:e:o:")) != -1) {
        switch (opt) {
        case 't': total_s = atof(optarg); break;
        case 'm': call_ms = atof(optarg); break;
        case 'r': rhythm_ms = atof(optarg); break;
        case 'd': dir = optarg; break;
        case 'e': snprintf(events_arg, sizeof events_arg, "%s", optarg); break;
        case 'o': truth = optarg; break;
        default:
            fprintf(stderr, "usage: %s [-t seconds] [-m call_ms] [-r rhythm_ms] [-d dir] [-e events] [-o truth]\n",
                    argv[0]);
            return 2;
        }
    }
    struct counter counters[MAX_EVENTS];
    int n = 0;
    for (char *save = NULL, *e = strtok_r(events_arg, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        if (n == MAX_EVENTS) {
            fprintf(stderr, "selfcount: at most %d events\n", MAX_EVENTS);
            return 2;
        }
        snprintf(counters[n].name, sizeof counters[n].name, "%s", e);
        counters[n].fd = open_counter(e);
        ++n;
    }

    const long page = sysconf(_SC_PAGESIZE);
    long longest = 0, file_pages = 0;
    for (size_t f = 0; f < N_FUNCTIONS; ++f) {
        const long ms = (long)(plans[f].call_factor * call_ms + 0.5);
        if (ms > longest) longest = ms;
        if (plans[f].major_pages * ms > file_pages) file_pages = plans[f].major_pages * ms;
    }
    const int file_fd = make_file(dir, file_pages, page);

    struct call c = {.page = page, .rhythm_ns = (long)(rhythm_ms * 1e6), .cpus = {-1, -1}};
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    for (int cpu = 0, k = 0; cpu < CPU_SETSIZE && k < 2; ++cpu)
        if (CPU_ISSET(cpu, &allowed)) c.cpus[k++] = cpu;

    uint64_t counts[N_FUNCTIONS][MAX_EVENTS] = {{0}};
    double cpu_s[N_FUNCTIONS] = {0};
    long calls[N_FUNCTIONS] = {0};
    uint64_t before[MAX_EVENTS];
    const double start = thread_cpu_s();
    while (thread_cpu_s() - start < total_s) {
        for (size_t f = 0; f < N_FUNCTIONS; ++f) {
            const struct plan *p = &plans[f];
            c.ms = (long)(p->call_factor * call_ms + 0.5);
            c.anon = p->minor_pages ? map_fresh_pages(p->minor_pages * c.ms) : NULL;
            c.file = NULL;
            if (p->major_pages) {
                /* Dropped from the page cache, read at random: one major
                 * fault a page, no read-ahead. */
                const size_t len = (size_t)(p->major_pages * c.ms) * page;
                posix_fadvise(file_fd, 0, len, POSIX_FADV_DONTNEED);
                c.file = mmap(NULL, len, PROT_READ, MAP_SHARED, file_fd, 0);
                if (c.file == MAP_FAILED) {
                    perror("selfcount: mmap");
                    return 3;
                }
                madvise(c.file, len, MADV_RANDOM);
            }
            const double t0 = thread_cpu_s();
            for (int e = 0; e < n; ++e) before[e] = read_counter(counters[e].fd);
            functions[f](&c);
            for (int e = 0; e < n; ++e) counts[f][e] += read_counter(counters[e].fd) - before[e];
            cpu_s[f] += thread_cpu_s() - t0;
            ++calls[f];
            if (c.anon) unmap_pages(c.anon, p->minor_pages * c.ms);
            if (c.file) munmap(c.file, (size_t)(p->major_pages * c.ms) * page);
        }
    }
    if (c.cpus[1] >= 0) sched_setaffinity(0, sizeof allowed, &allowed);

    FILE *out = truth ? fopen(truth, "w") : stdout;
    if (!out) {
        perror(truth);
        return 3;
    }
    for (size_t f = 0; f < N_FUNCTIONS; ++f) {
        fprintf(out, "%s calls %ld\n%s cpu_s %.6f\n", plans[f].name, calls[f], plans[f].name, cpu_s[f]);
        for (int e = 0; e < n; ++e) fprintf(out, "%s %s %llu\n", plans[f].name, counters[e].name,
                                            (unsigned long long)counts[f][e]);
    }
    if (out != stdout) fclose(out);
    return 0;
}
