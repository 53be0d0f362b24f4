/* A program that keeps every signal blocked for part of its run: masked()
 * burns CPU time with all signals blocked, unmasked() the same with none. A
 * profiler whose ticks are signals must neither charge masked()'s time to the
 * place where the mask is lifted nor let the blocked ticks pile up (with a
 * small RLIMIT_SIGPENDING a full queue turns into a deadly SIGIO). Writes its
 * own time per function to the truth file, on the task-clock the ticks run on
 * (the CPU clock leaves out time a busy host steals: workload_common.h).
 *
 * usage: sigmask [-t SECONDS_PER_CALL] [-n CALLS] [-o TRUTH_FILE] */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <getopt.h>
#include <pthread.h>
#include <signal.h>

static volatile double sink;
static double masked_cpu, unmasked_cpu;

__attribute__((noinline)) void masked(double seconds) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    const double t0 = task_clock_s();
    spin_cpu(seconds, &sink);
    masked_cpu += task_clock_s() - t0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

__attribute__((noinline)) void unmasked(double seconds) {
    const double t0 = task_clock_s();
    spin_cpu(seconds, &sink);
    unmasked_cpu += task_clock_s() - t0;
}

int main(int argc, char **argv) {
    double per_call = 0.5;
    int calls = 2;
    const char *truth = NULL;
    int c;
    while ((c = getopt(argc, argv, "t:n:o:")) != -1) {
        switch (c) {
        case 't': per_call = atof(optarg); break;
        case 'n': calls = atoi(optarg); break;
        case 'o': truth = optarg; break;
        default:
            fprintf(stderr, "usage: %s [-t seconds_per_call] [-n calls] [-o truth]\n", argv[0]);
            return 2;
        }
    }
    for (int i = 0; i < calls; ++i) {
        masked(per_call);
        unmasked(per_call);
    }
    FILE *out = truth ? fopen(truth, "w") : stdout;
    if (!out) {
        perror(truth);
        return 3;
    }
    fprintf(out, "masked_cpu_s %.6f\nunmasked_cpu_s %.6f\n", masked_cpu, unmasked_cpu);
    if (out != stdout) fclose(out);
    return 0;
}
