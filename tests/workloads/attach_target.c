/* A long-running program to attach to (sprof_pt -p): its main thread
 * alternates heavy() and light() (3:1 CPU time per call); a thread it starts
 * late runs late_work(); a child it forks runs child_work(). Every function
 * measures its own CPU time, and the main thread writes the cumulative
 * times, stamped with CLOCK_REALTIME, after every call: the truth of any
 * window of the run (an attach's) is the difference of the stamps around it.
 *
 * It counts the SIGUSR1s it gets (its own handler: an attach must leave it in
 * place), waits for its child and exits with -x CODE once -t seconds of wall
 * time have passed.
 *
 * usage: attach_target [-t SECONDS] [-m CALL_MS] [-l LATE_AT_S] [-L LATE_CPU_S]
 *                      [-f FORK_AT_S] [-F FORK_CPU_S] [-x EXIT_CODE] [-o TRUTH_FILE]
 * Output: "snap REALTIME_NS HEAVY_S LIGHT_S LATE_S" lines, then "usr1 N",
 * "child_status S" (-1: no child), "late_tid T" (0: no late thread). */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

static volatile double sink_main, sink_late, sink_child;
static double heavy_cpu, light_cpu;
static double late_cpu_total; /* written by the late thread, read by main: __atomic */
static volatile sig_atomic_t usr1_count;
static pid_t late_tid;

static void on_usr1(int sig) {
    (void)sig;
    ++usr1_count;
}

static double realtime_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void heavy(double seconds) {
    const double t0 = thread_cpu_s();
    spin_cpu(seconds, &sink_main);
    heavy_cpu += thread_cpu_s() - t0;
}

__attribute__((noinline)) void light(double seconds) {
    const double t0 = thread_cpu_s();
    spin_cpu(seconds, &sink_main);
    light_cpu += thread_cpu_s() - t0;
}

/* In 1 ms slices, each added to the total the main thread stamps. */
__attribute__((noinline)) void late_work(double seconds) {
    const double t0 = thread_cpu_s();
    double done = 0;
    while (done < seconds) {
        spin_cpu(0.001, &sink_late);
        done = thread_cpu_s() - t0;
        __atomic_store(&late_cpu_total, &done, __ATOMIC_RELEASE);
    }
}

static double late_cpu_s;

static void *late_main(void *arg) {
    (void)arg;
    late_tid = gettid();
    pthread_setname_np(pthread_self(), "late");
    late_work(late_cpu_s);
    return NULL;
}

__attribute__((noinline)) void child_work(double seconds) { spin_cpu(seconds, &sink_child); }

static struct snap {
    double realtime_s, heavy_s, light_s, late_s;
} *snaps;
static long n_snaps, max_snaps = 1 << 20;

static void stamp(void) {
    if (n_snaps == max_snaps) return;
    double late;
    __atomic_load(&late_cpu_total, &late, __ATOMIC_ACQUIRE);
    snaps[n_snaps++] = (struct snap){realtime_s(), heavy_cpu, light_cpu, late};
}

int main(int argc, char **argv) {
    double total_s = 5.0, call_ms = 10.0, late_at = -1, fork_at = -1, fork_cpu = 0.3;
    int exit_code = 0;
    const char *truth = NULL;
    late_cpu_s = 0.4;
    int c;
    while ((c = getopt(argc, argv, "t:m:l:L:f:F:x:o:")) != -1) {
        switch (c) {
        case 't': total_s = atof(optarg); break;
        case 'm': call_ms = atof(optarg); break;
        case 'l': late_at = atof(optarg); break;
        case 'L': late_cpu_s = atof(optarg); break;
        case 'f': fork_at = atof(optarg); break;
        case 'F': fork_cpu = atof(optarg); break;
        case 'x': exit_code = atoi(optarg); break;
        case 'o': truth = optarg; break;
        default:
            fprintf(stderr, "usage: %s [-t s] [-m call_ms] [-l late_at_s] [-L late_cpu_s] [-f fork_at_s] "
                            "[-F fork_cpu_s] [-x code] [-o truth]\n", argv[0]);
            return 2;
        }
    }
    snaps = malloc(sizeof *snaps * (size_t)max_snaps);
    if (!snaps) return 3;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);

    pthread_t late;
    int late_started = 0;
    pid_t child = -1;
    const double start = monotonic_s();
    stamp();
    while (monotonic_s() - start < total_s) {
        heavy(3 * call_ms / 1e3);
        stamp();
        light(call_ms / 1e3);
        stamp();
        const double now = monotonic_s() - start;
        if (late_at >= 0 && !late_started && now >= late_at) {
            if (pthread_create(&late, NULL, late_main, NULL) != 0) {
                perror("pthread_create");
                return 3;
            }
            late_started = 1;
        }
        if (fork_at >= 0 && child < 0 && now >= fork_at) {
            child = fork();
            if (child == 0) {
                child_work(fork_cpu);
                _exit(5);
            }
        }
    }
    if (late_started) pthread_join(late, NULL);
    stamp();
    int status = -1;
    if (child > 0 && waitpid(child, &status, 0) == child) status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    FILE *out = truth ? fopen(truth, "w") : stdout;
    if (!out) {
        perror(truth);
        return 3;
    }
    for (long i = 0; i < n_snaps; ++i)
        fprintf(out, "snap %.0f %.6f %.6f %.6f\n", snaps[i].realtime_s * 1e9, snaps[i].heavy_s, snaps[i].light_s,
                snaps[i].late_s);
    fprintf(out, "usr1 %d\nchild_status %d\nlate_tid %d\n", (int)usr1_count, status, (int)late_tid);
    if (out != stdout) fclose(out);
    return exit_code;
}
