/* What every program of the event corpus (tests/corpus/generate.py) shares:
 * each function's own (self, exclusive) CPU time, minor and major faults
 * and context switches, measured by the function itself at its entry and
 * its exit, its callees' figures taken back out; the events a function
 * makes (fresh pages, pages of a dropped file, short sleeps); the threads,
 * and the truth file written when the image ends.
 *
 * (Its CPU time is the thread's task-clock: see own_task_clock_ns.)
 *
 * Every system call a measured function makes is issued from its own code
 * (own_syscall), so a profiler's sample in it names the function, as the
 * truth does. The generated program defines N_FUNCTIONS, the table
 * `function_names` and `run_role(role)`, then includes this file's
 * second half by defining CORPUS_MAIN. */
#ifndef CORPUS_RUNTIME_H
#define CORPUS_RUNTIME_H
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>

#define MAX_DEPTH 64

/* One reading of the calling thread's counters. */
struct reading {
    long cpu_ns, minor, major, vcsw, ivcsw;
};

/* The thread's CPU time as a profile's time axis counts it: its task-clock
 * (workload_common.h), read from the caller's code. Not the thread's CPU
 * clock: on a virtual machine task-clock also holds the time stolen from
 * the thread while it is current (7 % more in a run of 4 threads on a busy
 * host), which the clock leaves out. Opened by thread_start. */
static __thread int task_clock_fd = -1;

static inline __attribute__((always_inline)) long own_task_clock_ns(void) {
    uint64_t ns = 0;
    own_syscall(SYS_read, task_clock_fd, (long)&ns, sizeof ns);
    return (long)ns;
}

static inline __attribute__((always_inline)) void read_now(struct reading *r) {
    struct rusage ru;
    own_syscall(SYS_getrusage, RUSAGE_THREAD, (long)&ru, 0);
    r->cpu_ns = own_task_clock_ns();
    r->minor = ru.ru_minflt;
    r->major = ru.ru_majflt;
    r->vcsw = ru.ru_nvcsw;
    r->ivcsw = ru.ru_nivcsw;
}

static inline void add_reading(struct reading *to, const struct reading *a, long sign) {
    to->cpu_ns += sign * a->cpu_ns;
    to->minor += sign * a->minor;
    to->major += sign * a->major;
    to->vcsw += sign * a->vcsw;
    to->ivcsw += sign * a->ivcsw;
}

/* A call in progress: its start, and what its callees took so far. */
struct frame {
    struct reading start, callees;
};

/* Per thread: the calls in progress and each function's self figures.
 * N_FUNCTIONS is at most MAX_FUNCTIONS (the generator's bound). */
#define MAX_FUNCTIONS 32
struct thread_truth {
    struct frame stack[MAX_DEPTH];
    int depth;
    struct reading self[MAX_FUNCTIONS];
    long calls[MAX_FUNCTIONS];
};
static __thread struct thread_truth mine;

static inline __attribute__((always_inline)) void enter(void) {
    struct frame *f = &mine.stack[mine.depth++];
    memset(&f->callees, 0, sizeof f->callees);
    read_now(&f->start);
}

/* The call of function `fn` ends: its inclusive figures less its callees'
 * are its own, and its inclusive figures are its caller's callees'. */
static inline __attribute__((always_inline)) void leave(int fn) {
    struct reading now;
    read_now(&now);
    struct frame *f = &mine.stack[--mine.depth];
    add_reading(&now, &f->start, -1);
    mine.calls[fn] += 1;
    add_reading(&mine.self[fn], &now, 1);
    add_reading(&mine.self[fn], &f->callees, -1);
    if (mine.depth > 0) add_reading(&mine.stack[mine.depth - 1].callees, &now, 1);
}

/* ---- the events, made from the function's own code ---- */

static long page_size;
static int dropped_fd = -1; /* the file major faults read (make_file), in CORPUS_TRUTH_DIR */
static long dropped_pages;

/* A system call of up to six arguments from the caller's own code (mmap,
 * fadvise64 need more than own_syscall's three). */
static inline __attribute__((always_inline)) long own_syscall6(long n, long a, long b, long c, long d, long e,
                                                               long f) {
#if defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
#else
    return syscall(n, a, b, c, d, e, f);
#endif
}

/* A run of `n` events of one kind, from the caller's code: fresh pages
 * (minor faults), pages of the dropped file (major faults), or 50 µs
 * sleeps (voluntary context switches). */
enum kind { MINOR, MAJOR, SWITCH };

struct events {
    enum kind kind;
    char *pages;
    long n, done;
};

static inline __attribute__((always_inline)) void events_open(struct events *e, enum kind kind, long n) {
    e->kind = kind, e->n = n, e->done = 0, e->pages = NULL;
    if (n <= 0 || kind == SWITCH) return;
    if (kind == MINOR) {
        e->pages = (char *)own_syscall6(SYS_mmap, 0, n * page_size, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        own_syscall(SYS_madvise, (long)e->pages, n * page_size, MADV_NOHUGEPAGE);
    } else {
        if (n > dropped_pages) e->n = n = dropped_pages;
        own_syscall6(SYS_fadvise64, dropped_fd, 0, n * page_size, POSIX_FADV_DONTNEED, 0, 0);
        e->pages = (char *)own_syscall6(SYS_mmap, 0, n * page_size, PROT_READ, MAP_SHARED, dropped_fd, 0);
        own_syscall(SYS_madvise, (long)e->pages, n * page_size, MADV_RANDOM);
    }
    if (e->pages == MAP_FAILED) {
        perror("corpus: mmap");
        exit(3);
    }
}

static volatile double sink;

/* The next `k` events of the run. */
static inline __attribute__((always_inline)) void events_make(struct events *e, long k) {
    for (; k > 0 && e->done < e->n; --k, ++e->done) {
        if (e->kind == SWITCH) {
            struct timespec nap = {0, 50000};
            own_syscall(SYS_nanosleep, (long)&nap, 0, 0);
        } else if (e->kind == MINOR) {
            e->pages[e->done * page_size] = 1;
        } else {
            sink += e->pages[e->done * page_size];
        }
    }
}

static inline __attribute__((always_inline)) void events_close(struct events *e) {
    if (e->pages) own_syscall(SYS_munmap, (long)e->pages, e->n * page_size, 0);
}

/* `ns` of the thread's CPU time in the caller's code: the clock read from
 * the caller's code every ~20 µs of work. */
static inline __attribute__((always_inline)) void spin_ns(long ns) {
    const long end = own_cpu_ns() + ns;
    while (own_cpu_ns() < end) spin_steps(2000, &sink);
}

#endif

#ifdef CORPUS_MAIN
/* ---- threads, processes, the truth file ---- */

static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;
static struct reading totals_self[MAX_FUNCTIONS], threads_total;
static long totals_calls[MAX_FUNCTIONS];

/* A thread's figures into the image's, when the thread is done: its
 * functions' and its whole counters (start-up included for the main thread). */
static void thread_done(void) {
    struct reading all;
    read_now(&all);
    pthread_mutex_lock(&totals_lock);
    for (int f = 0; f < N_FUNCTIONS; ++f) {
        add_reading(&totals_self[f], &mine.self[f], 1);
        totals_calls[f] += mine.calls[f];
    }
    add_reading(&threads_total, &all, 1);
    pthread_mutex_unlock(&totals_lock);
}

static void json_reading(FILE *out, const struct reading *r) {
    fprintf(out, "{\"cpu_ns\": %ld, \"minor\": %ld, \"major\": %ld, \"vcsw\": %ld, \"ivcsw\": %ld}", r->cpu_ns,
            r->minor, r->major, r->vcsw, r->ivcsw);
}

/* DIR/truth.PID.ROLE.json. `final`: this image's thread totals are the
 * process's (a forked child about to exec writes 0: the exec'd image's
 * threads go on counting from the same figures). */
static void write_truth(const char *role, int final) {
    const char *dir = getenv("CORPUS_TRUTH_DIR");
    if (!dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/truth.%d.%s.json", dir, (int)getpid(), role);
    FILE *out = fopen(path, "w");
    if (!out) {
        perror(path);
        exit(3);
    }
    fprintf(out, "{\"pid\": %d, \"role\": \"%s\", \"final\": %s, \"threads_total\": ", (int)getpid(), role,
            final ? "true" : "false");
    json_reading(out, &threads_total);
    fprintf(out, ",\n \"functions\": {");
    int first = 1;
    for (int f = 0; f < N_FUNCTIONS; ++f) {
        if (!totals_calls[f]) continue;
        fprintf(out, "%s\n  \"%s\": {\"calls\": %ld, \"self\": ", first ? "" : ",", function_names[f], totals_calls[f]);
        json_reading(out, &totals_self[f]);
        fputc('}', out);
        first = 0;
    }
    fprintf(out, "}}\n");
    if (fclose(out) != 0) {
        perror(path);
        exit(3);
    }
}

/* Before a thread's first call: its truth's pages touched and its task-clock
 * opened, so that neither a fault nor a system call of the measuring itself
 * falls inside a function's call before its first reading. */
static void thread_start(void) {
    memset(&mine, 0, sizeof mine);
    task_clock_fd = open_task_clock();
}

static void *thread_main(void *arg) {
    thread_start();
    ((void (*)(void))arg)();
    thread_done();
    return NULL;
}

/* Runs the schedules of one image: schedule 0 on the main thread, the
 * others on threads of their own. */
static void run_threads(void (*const *schedules)(void), int n) {
    pthread_t t[8];
    for (int i = 1; i < n; ++i)
        if (pthread_create(&t[i], NULL, thread_main, (void *)schedules[i]) != 0) {
            perror("corpus: pthread_create");
            exit(3);
        }
    thread_start();
    schedules[0]();
    for (int i = 1; i < n; ++i) pthread_join(t[i], NULL);
    thread_done();
}

static void corpus_setup(long dropped) {
    page_size = sysconf(_SC_PAGESIZE);
    if (dropped > 0) {
        const char *dir = getenv("CORPUS_TRUTH_DIR");
        dropped_fd = make_file(dir ? dir : ".", dropped, page_size);
        dropped_pages = dropped;
    }
}
#endif
