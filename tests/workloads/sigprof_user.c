/* A program that uses ITIMER_PROF/SIGPROF itself: it counts its own SIGPROF
 * ticks over a fixed amount of CPU time and prints "ticks N". Under a
 * profiler that passes signals through, N is what it is without one.
 *
 * usage: sigprof_user [-t CPU_SECONDS] [-i INTERVAL_MS] */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <signal.h>
#include <sys/time.h>

static volatile double sink;
static volatile sig_atomic_t ticks;

static void on_sigprof(int sig) {
    (void)sig;
    ++ticks;
}

__attribute__((noinline)) void timed_work(double s) { spin_cpu(s, &sink); }

int main(int argc, char **argv) {
    double seconds = 1.0, interval_ms = 10;
    int c;
    while ((c = getopt(argc, argv, "t:i:")) != -1) {
        switch (c) {
        case 't': seconds = atof(optarg); break;
        case 'i': interval_ms = atof(optarg); break;
        default: fprintf(stderr, "usage: %s [-t cpu_seconds] [-i interval_ms]\n", argv[0]); return 2;
        }
    }
    struct sigaction sa = {0};
    sa.sa_handler = on_sigprof;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    const long us = (long)(interval_ms * 1000);
    struct itimerval it = {{us / 1000000, us % 1000000}, {us / 1000000, us % 1000000}};
    if (setitimer(ITIMER_PROF, &it, NULL) != 0) return perror("setitimer"), 3;
    timed_work(seconds);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    printf("ticks %d\n", (int)ticks);
    return 0;
}
