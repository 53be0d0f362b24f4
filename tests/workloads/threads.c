/* Three threads whose work is in the ratio 1:2:3, each in its own function,
 * while the main thread waits. Each thread measures its own CPU time; the
 * truth file lists them, the ground truth for per-thread sampling.
 *
 * usage: threads [-u UNIT_SECONDS] [-o TRUTH_FILE] */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <pthread.h>

static volatile double sink1, sink2, sink3;
static double unit_s = 0.4;
static double cpu_s[3];

__attribute__((noinline)) void *work1(void *arg) {
    (void)arg;
    const double t0 = thread_cpu_s();
    spin_cpu(1 * unit_s, &sink1);
    cpu_s[0] = thread_cpu_s() - t0;
    return NULL;
}

__attribute__((noinline)) void *work2(void *arg) {
    (void)arg;
    const double t0 = thread_cpu_s();
    spin_cpu(2 * unit_s, &sink2);
    cpu_s[1] = thread_cpu_s() - t0;
    return NULL;
}

__attribute__((noinline)) void *work3(void *arg) {
    (void)arg;
    const double t0 = thread_cpu_s();
    spin_cpu(3 * unit_s, &sink3);
    cpu_s[2] = thread_cpu_s() - t0;
    return NULL;
}

int main(int argc, char **argv) {
    const char *truth = NULL;
    int c;
    while ((c = getopt(argc, argv, "u:o:")) != -1) {
        switch (c) {
        case 'u': unit_s = atof(optarg); break;
        case 'o': truth = optarg; break;
        default: fprintf(stderr, "usage: %s [-u unit_seconds] [-o truth]\n", argv[0]); return 2;
        }
    }
    void *(*const work[3])(void *) = {work1, work2, work3};
    pthread_t t[3];
    for (int i = 0; i < 3; ++i)
        if (pthread_create(&t[i], NULL, work[i], NULL) != 0) {
            perror("pthread_create");
            return 3;
        }
    for (int i = 0; i < 3; ++i) pthread_join(t[i], NULL);
    FILE *out = truth ? fopen(truth, "w") : stdout;
    if (!out) {
        perror(truth);
        return 3;
    }
    for (int i = 0; i < 3; ++i) fprintf(out, "work%d_cpu_s %f\n", i + 1, cpu_s[i]);
    return fclose(out) == 0 ? 0 : 3;
}
