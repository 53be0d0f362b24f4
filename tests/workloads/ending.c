/* Burns a known CPU time in burn() and then ends in a chosen way, so a test
 * can check that the profile holds every sample however the program ends.
 * It appends its own CPU time (thread CPU clocks) to the truth file just
 * before it ends, with write(2): _exit and crashes flush no stdio.
 *
 * usage: ending -e HOW [-t SECONDS] [-T SECONDS] [-p THREADS] -o TRUTH
 *   HOW: exit | _exit | segv | wait | execfail | exec
 *   exit, _exit   burn, then exit(3) / _exit(3)
 *   segv          burn, then a write through a null pointer (SIGSEGV)
 *   wait          burn (in THREADS workers when -p is given, each -t SECONDS),
 *                 report, then wait to be killed, all threads alive
 *   execfail      burn, exec a program that does not exist (it fails), burn
 *                 -T SECONDS more in burn_again(), exit(3)
 *   exec          burn, then exec itself; the second image burns -T SECONDS
 *                 in burn_again() and exits 0
 *   vfork         burn, vfork a child that calls _exit, vfork one that execs
 *                 true(1), burn -T SECONDS more in burn_again(), exit(3): the
 *                 children share the program's memory, not its profile
 * truth lines: "cpu0 S" = CPU time of the first image (all threads),
 * "cpu1 S" = CPU time of the second image (exec: since the exec call), both
 * on the clock sprof's ticks run on: the thread's CPU clock when it started
 * here (the loader's and the collector's few milliseconds before) plus its
 * task-clock since (workload_common.h says how the two clocks part). */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>

static volatile double sink;
static __thread double on_cpu_base_s;

static void on_cpu_start(void) {
    on_cpu_base_s = thread_cpu_s() - task_clock_s();
}

static double on_cpu_s(void) { return on_cpu_base_s + task_clock_s(); }
int *volatile nowhere = NULL;
static int truth_fd = -1;

__attribute__((noinline)) void burn(double s) { spin_cpu(s, &sink); }
__attribute__((noinline)) void burn_again(double s) { spin_cpu(s, &sink); }

static void report(const char *key, double value) {
    char line[64];
    int n = snprintf(line, sizeof line, "%s %.6f\n", key, value);
    if (write(truth_fd, line, n) != n) _exit(4);
}

static double seconds = 1.0, more = 0.5;
static double worker_cpu[64];
static pthread_barrier_t reported;

static void *worker(void *arg) {
    double *cpu = arg;
    on_cpu_start();
    burn(seconds);
    *cpu = on_cpu_s();
    pthread_barrier_wait(&reported);
    for (;;) pause();
    return NULL;
}

int main(int argc, char **argv) {
    const char *how = NULL, *truth = NULL;
    double exec_cpu = -1;
    int threads = 0, c;
    while ((c = getopt(argc, argv, "e:t:T:p:o:x:")) != -1) {
        switch (c) {
        case 'e': how = optarg; break;
        case 't': seconds = atof(optarg); break;
        case 'T': more = atof(optarg); break;
        case 'p': threads = atoi(optarg); break;
        case 'o': truth = optarg; break;
        case 'x': exec_cpu = atof(optarg); break; /* internal: the second image */
        default: return 2;
        }
    }
    if (!how || !truth || threads < 0 || threads > 64) return 2;
    on_cpu_start();
    truth_fd = open(truth, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (truth_fd < 0) {
        perror(truth);
        return 2;
    }
    if (exec_cpu >= 0) { /* the second image: the thread's CPU clock went on across the exec */
        burn_again(more);
        report("cpu1", on_cpu_s() - exec_cpu);
        return 0;
    }
    if (strcmp(how, "wait") == 0 && threads > 0) {
        pthread_t t[64];
        pthread_barrier_init(&reported, NULL, threads + 1);
        for (int i = 0; i < threads; ++i) pthread_create(&t[i], NULL, worker, &worker_cpu[i]);
        pthread_barrier_wait(&reported);
        double total = on_cpu_s();
        for (int i = 0; i < threads; ++i) total += worker_cpu[i];
        report("cpu0", total);
        for (;;) pause();
    }
    burn(seconds);
    if (strcmp(how, "vfork") == 0) {
        int status;
        pid_t child = vfork();
        if (child == 0) _exit(0);
        if (child < 0 || waitpid(child, &status, 0) != child) return 6;
        child = vfork();
        if (child == 0) {
            execlp("true", "true", (char *)NULL);
            _exit(7);
        }
        if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return 6;
        burn_again(more);
        report("cpu0", on_cpu_s());
        exit(3);
    }
    if (strcmp(how, "execfail") == 0) {
        execl("/nonexistent/sprof-test-program", "x", (char *)NULL);
        burn_again(more);
        report("cpu0", on_cpu_s());
        exit(3);
    }
    double cpu = on_cpu_s();
    if (strcmp(how, "exec") == 0) {
        char arg[32];
        /* the second image's base: the CPU clock goes on across the exec */
        snprintf(arg, sizeof arg, "%.9f", thread_cpu_s());
        report("cpu0", cpu);
        char more_s[32];
        snprintf(more_s, sizeof more_s, "%.6f", more);
        execl("/proc/self/exe", argv[0], "-e", "exit", "-T", more_s, "-o", truth, "-x", arg, (char *)NULL);
        perror("exec");
        return 5;
    }
    report("cpu0", cpu);
    if (strcmp(how, "exit") == 0) exit(3);
    if (strcmp(how, "_exit") == 0) _exit(3);
    if (strcmp(how, "segv") == 0) *nowhere = 1;
    if (strcmp(how, "wait") == 0)
        for (;;) pause();
    return 2;
}
