/* Source lines of known cost. plain_loop() spends its time on one line
 * (marked PLAIN below); with_inlined() calls inlined_steps(), which the
 * compiler always inlines (even at -O1 -fno-inline, as CMake builds the
 * workloads), so its time is on inlined_steps's line (INLINED) inside
 * with_inlined, at the line of the call (CALL). The two alternate in calls
 * of CALL_MS; each call's CPU time is measured around it, and the truth
 * file gets the CPU seconds of each and of the whole thread. The tests
 * find the lines by their markers in this file.
 *
 * usage: lines [-t SECONDS] [-m CALL_MS] [-r PLAIN_TO_INLINED] [-o TRUTH_FILE] */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <getopt.h>

static volatile double sink;

static inline __attribute__((always_inline)) void inlined_steps(long steps) {
    for (long i = 0; i < steps; ++i) sink = sink * 1.0000001 + 1.0; /* LINE:INLINED */
}

__attribute__((noinline)) void plain_loop(long steps) {
    for (long i = 0; i < steps; ++i) sink = sink * 1.0000001 + 1.0; /* LINE:PLAIN */
}

__attribute__((noinline)) void with_inlined(long steps) {
    inlined_steps(steps); /* LINE:CALL */
}

/* Runs `work` for `seconds` of CPU time in batches (like spin_cpu in
 * workload_common.h: the clock is read a few times a call, outside `work`)
 * and adds the CPU time of the batches to *spent. */
static void burn(void (*work)(long), double seconds, double *spent) {
    const double start = thread_cpu_s(), end = start + seconds;
    long steps = 20000, done = 0;
    for (double now = start; now < end;) {
        work(steps);
        done += steps;
        const double after = thread_cpu_s();
        *spent += after - now;
        now = after;
        const double rate = now > start ? done / (now - start) : 1e9;
        steps = (long)((end - now) * rate * 0.9);
        if (steps < 2000) steps = 2000;
    }
}

int main(int argc, char **argv) {
    double total_s = 2.0, call_ms = 20.0, ratio = 1.5;
    const char *truth = NULL;
    int c;
    while ((c = getopt(argc, argv, "t:m:r:o:")) != -1) {
        switch (c) {
        case 't': total_s = atof(optarg); break;
        case 'm': call_ms = atof(optarg); break;
        case 'r': ratio = atof(optarg); break;
        case 'o': truth = optarg; break;
        default:
            fprintf(stderr, "usage: %s [-t seconds] [-m call_ms] [-r plain_to_inlined] [-o truth]\n", argv[0]);
            return 2;
        }
    }
    double plain_cpu = 0, inlined_cpu = 0;
    const double start = thread_cpu_s();
    while (thread_cpu_s() - start < total_s) {
        burn(plain_loop, ratio * call_ms / 1e3, &plain_cpu);
        burn(with_inlined, call_ms / 1e3, &inlined_cpu);
    }
    FILE *out = truth ? fopen(truth, "w") : stdout;
    if (!out) {
        perror(truth);
        return 3;
    }
    fprintf(out, "plain_cpu_s %.6f\ninlined_cpu_s %.6f\nthread_cpu_s %.6f\n", plain_cpu, inlined_cpu, thread_cpu_s());
    if (out != stdout) fclose(out);
    return 0;
}
