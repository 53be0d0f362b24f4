/* A program with known phases: setup, then compress-like and decompress-like
 * phases that alternate. setup() faults in fresh memory, compress() is pure
 * computation, decompress() computes and touches fresh pages at a steady rate.
 * Writes the true phase boundaries to the truth file, in seconds of the main
 * thread's CPU time: the clock sprof samples it on. (Not the process's CPU
 * time, which also counts a profiler's own threads, such as sprof_lib's
 * writer, and so runs ahead of the profile's time axis.)
 *
 * usage: phases [-r ROUNDS] [-l PHASE_SECONDS] [-o TRUTH_FILE] */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <getopt.h>

static volatile double sink;

__attribute__((noinline)) void setup(double seconds) {
    const double end = thread_cpu_s() + seconds;
    while (thread_cpu_s() < end) {
        touch_fresh_pages(32);
        spin_cpu(0.001, &sink);
    }
}

__attribute__((noinline)) void compress(double seconds) { spin_cpu(seconds, &sink); }

__attribute__((noinline)) void decompress(double seconds) {
    const double end = thread_cpu_s() + seconds;
    while (thread_cpu_s() < end) {
        touch_fresh_pages(16);
        spin_cpu(0.002, &sink);
    }
}

int main(int argc, char **argv) {
    int rounds = 2;
    double phase_s = 0.8;
    const char *truth = NULL;
    int c;
    while ((c = getopt(argc, argv, "r:l:o:")) != -1) {
        switch (c) {
        case 'r': rounds = atoi(optarg); break;
        case 'l': phase_s = atof(optarg); break;
        case 'o': truth = optarg; break;
        default: fprintf(stderr, "usage: %s [-r rounds] [-l phase_seconds] [-o truth]\n", argv[0]); return 2;
        }
    }
    FILE *out = truth ? fopen(truth, "w") : stdout;
    if (!out) {
        perror(truth);
        return 3;
    }
    fprintf(out, "# phase start_cpu_s end_cpu_s\n");
    double t = thread_cpu_s();
    setup(phase_s / 2);
    fprintf(out, "setup %.4f %.4f\n", t, thread_cpu_s());
    for (int r = 0; r < rounds; ++r) {
        t = thread_cpu_s();
        compress(phase_s);
        fprintf(out, "compress %.4f %.4f\n", t, thread_cpu_s());
        t = thread_cpu_s();
        decompress(phase_s);
        fprintf(out, "decompress %.4f %.4f\n", t, thread_cpu_s());
    }
    if (out != stdout) fclose(out);
    return 0;
}
