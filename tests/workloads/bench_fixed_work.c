/* A fixed amount of work, for overhead measurements: unlike alternate, which
 * runs for a fixed CPU time, this program does the same work on every run, so
 * any time a profiler adds shows up as a longer run.
 *
 * compute() does `-c` million floating-point steps; fault() maps, touches and
 * unmaps `-f` thousand fresh pages (one minor fault each) in batches of 256.
 * `-f 0` is CPU-bound; a large -f with a small -c is fault-heavy.
 *
 * With -o it writes, at exit, its process CPU time (user+sys, all threads:
 * an in-process profiler's threads included), so a benchmark can tell the
 * program's cost from its profiler's; and the task-clock of its main thread
 * from the start of main (the thread that does the work, without any
 * profiler thread beside it, on the clock a profile's time is made of).
 *
 * usage: bench_fixed_work [-c MILLION_STEPS] [-f THOUSAND_PAGES] [-o CPU_FILE] */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <getopt.h>

static volatile double sink;

__attribute__((noinline)) void compute(long steps) {
    double x = sink;
    for (long i = 0; i < steps; ++i) x = x * 1.0000001 + 1.0;
    sink = x;
}

__attribute__((noinline)) void fault(long pages) {
    enum { kBatch = 256 };
    for (long done = 0; done < pages; done += kBatch) touch_fresh_pages(pages - done < kBatch ? pages - done : kBatch);
}

static double process_cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv) {
    double million_steps = 1000, thousand_pages = 0;
    const char *cpu_file = NULL;
    int c;
    while ((c = getopt(argc, argv, "c:f:o:")) != -1) {
        switch (c) {
        case 'c': million_steps = atof(optarg); break;
        case 'f': thousand_pages = atof(optarg); break;
        case 'o': cpu_file = optarg; break;
        default:
            fprintf(stderr, "usage: %s [-c million_steps] [-f thousand_pages] [-o cpu_file]\n", argv[0]);
            return 2;
        }
    }
    if (cpu_file) task_clock_s(); /* opens the main thread's counter: its time counts from here */
    /* Interleave the two kinds of work in 100 rounds, so a profile sees both
     * throughout the run rather than in two phases. */
    enum { kRounds = 100 };
    for (int round = 0; round < kRounds; ++round) {
        compute((long)(million_steps * 1e6 / kRounds));
        fault((long)(thousand_pages * 1e3 / kRounds));
    }
    if (cpu_file) {
        FILE *out = fopen(cpu_file, "w");
        if (!out) {
            perror(cpu_file);
            return 3;
        }
        fprintf(out, "cpu_s %.6f\ntask_clock_s %.6f\n", process_cpu_s(), task_clock_s());
        fclose(out);
    }
    return 0;
}
