/* A program with known phases: setup, then compress-like and decompress-like
 * phases that alternate. setup() faults in fresh memory, compress() is pure
 * computation, decompress() computes and touches fresh pages at a steady rate.
 * Writes the true phase boundaries to the truth file, in seconds of the main
 * thread's task-clock since main() began: the clock of a profile's time
 * axis, from about where sampling starts. (Not the process's CPU time,
 * which also counts a profiler's own threads, such as sprof_lib's writer;
 * and not from the thread's start: loading and relocating a preloaded
 * profiler takes tens of milliseconds before sampling begins.) -w writes the
 * same boundaries in seconds of CLOCK_MONOTONIC, for whoever watches the run
 * live.
 *
 * usage: phases [-r ROUNDS] [-l PHASE_SECONDS] [-o TRUTH_FILE] [-w WALL_TRUTH_FILE] */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <getopt.h>

static volatile double sink;

/* Touches `per_slice` fresh pages of `fresh` (mapped by the caller) in each
 * slice of `slice_s` CPU seconds, computing for the rest of the slice, for
 * `seconds` of CPU time in all: a steady rate of faults per CPU second
 * however long a fault takes on a busy machine (on a rate that followed the
 * kernel's fault cost, the phases found a change inside a phase). The mapping
 * and unmapping stay outside: a system call inside would put a load-dependent
 * share of the phase's samples in libc. */
static inline __attribute__((always_inline)) void fault_steadily(double seconds, double slice_s, char *fresh,
                                                                 long per_slice) {
    const long slices = (long)(seconds / slice_s + 0.5);
    for (long i = 0; i < slices; ++i) {
        const double slice_end = thread_cpu_s() + slice_s;
        touch_pages(fresh, i * per_slice, (i + 1) * per_slice);
        const double left = slice_end - thread_cpu_s();
        if (left > 0) spin_cpu(left, &sink);
    }
}

__attribute__((noinline)) void setup(double seconds, char *fresh) { fault_steadily(seconds, 0.001, fresh, 32); }

__attribute__((noinline)) void compress(double seconds) { spin_cpu(seconds, &sink); }

__attribute__((noinline)) void decompress(double seconds, char *fresh) { fault_steadily(seconds, 0.002, fresh, 16); }

static double since_main;  /* the thread's task-clock when main() began */
static double now_s(void) { return task_clock_s() - since_main; }

static FILE *out, *wall;
static double cpu_start, wall_start;

static void phase_begins(void) {
    cpu_start = now_s();
    wall_start = monotonic_s();
}

static void phase_ended(const char *name) {
    fprintf(out, "%s %.4f %.4f\n", name, cpu_start, now_s());
    if (wall) fprintf(wall, "%s %.4f %.4f\n", name, wall_start, monotonic_s());
}

int main(int argc, char **argv) {
    since_main = task_clock_s();
    int rounds = 2;
    double phase_s = 0.8;
    const char *truth = NULL, *wall_truth = NULL;
    int c;
    while ((c = getopt(argc, argv, "r:l:o:w:")) != -1) {
        switch (c) {
        case 'r': rounds = atoi(optarg); break;
        case 'l': phase_s = atof(optarg); break;
        case 'o': truth = optarg; break;
        case 'w': wall_truth = optarg; break;
        default: fprintf(stderr, "usage: %s [-r rounds] [-l phase_seconds] [-o truth] [-w wall_truth]\n", argv[0]); return 2;
        }
    }
    out = truth ? fopen(truth, "w") : stdout;
    wall = wall_truth ? fopen(wall_truth, "w") : NULL;
    if (!out || (wall_truth && !wall)) {
        perror(!out ? truth : wall_truth);
        return 3;
    }
    fprintf(out, "# phase start_s end_s (task-clock since main())\n");
    if (wall) fprintf(wall, "# phase start_monotonic_s end_monotonic_s\n");
    /* Fresh pages for a phase: 32 per ms in setup, 8 per ms in decompress. */
    const long setup_pages = (long)(phase_s / 2 / 0.001 + 0.5) * 32;
    const long decompress_pages = (long)(phase_s / 0.002 + 0.5) * 16;
    char *fresh = map_fresh_pages(setup_pages);
    phase_begins();
    setup(phase_s / 2, fresh);
    phase_ended("setup");
    unmap_pages(fresh, setup_pages);
    for (int r = 0; r < rounds; ++r) {
        phase_begins();
        compress(phase_s);
        phase_ended("compress");
        fresh = map_fresh_pages(decompress_pages);
        phase_begins();
        decompress(phase_s, fresh);
        phase_ended("decompress");
        unmap_pages(fresh, decompress_pages);
    }
    if (out != stdout) fclose(out);
    if (wall) fclose(wall);
    return 0;
}
