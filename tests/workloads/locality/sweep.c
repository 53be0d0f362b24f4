/* Cyclic sweeps over N distinct cache lines, one load per line per sweep:
 * in each thread's own access stream, every reuse distance inside the
 * sweeps is exactly N, and a fully associative LRU cache of C lines misses
 * every access of the sweeps when C < N and only the N first ones when
 * C >= N. Built with sprof-cc; the ground truth of the locality tests.
 *
 * usage: sweep [-n LINES] [-s SWEEPS] [-t THREADS] [-S] [-c COPY_BYTES] [-e END] [-o TRUTH]
 *   -t  threads that sweep (the main thread waits); each its own array,
 *       or with -S all the same one (their streams are still their own)
 *   -c  one memcpy of that many bytes, which the compiler does not instrument
 *   -e  how the program ends after the sweeps: return (default), _exit,
 *       abort (SIGABRT), or exec (of /bin/true)
 * The truth file lists the parameters, the array of each thread and the
 * loads each made in sweep(). */
#include "../workload_common.h" /* first: it defines _GNU_SOURCE */

#include <pthread.h>
#include <signal.h>
#include <string.h>

enum { kLine = 64, kMaxThreads = 16 };

struct job {
    const char *lines; /* N lines of kLine bytes */
    long n, sweeps;
    long loads;        /* made by sweep() */
    long sum;
};

/* The measured loop: one load per line, nothing else in memory. */
__attribute__((noinline)) long sweep(const char *lines, long n, long sweeps) {
    long sum = 0;
    for (long s = 0; s < sweeps; ++s)
        for (long i = 0; i < n; ++i) sum += lines[i * kLine];
    return sum;
}

static void *run(void *arg) {
    struct job *j = arg;
    j->sum = sweep(j->lines, j->n, j->sweeps);
    j->loads = j->n * j->sweeps;
    return NULL;
}

__attribute__((noinline)) void copy(char *to, const char *from, size_t bytes) { memcpy(to, from, bytes); }

int main(int argc, char **argv) {
    long n = 1000, sweeps = 1000, threads = 1, copy_bytes = 0;
    int shared = 0;
    const char *truth = NULL, *end = "return";
    int c;
    while ((c = getopt(argc, argv, "n:s:t:Sc:e:o:")) != -1) {
        switch (c) {
        case 'n': n = atol(optarg); break;
        case 's': sweeps = atol(optarg); break;
        case 't': threads = atol(optarg); break;
        case 'S': shared = 1; break;
        case 'c': copy_bytes = atol(optarg); break;
        case 'e': end = optarg; break;
        case 'o': truth = optarg; break;
        default:
            fprintf(stderr, "usage: sweep [-n LINES] [-s SWEEPS] [-t THREADS] [-S] [-c COPY_BYTES] [-e END] [-o TRUTH]\n");
            return 2;
        }
    }
    if (n < 1 || sweeps < 1 || threads < 1 || threads > kMaxThreads || copy_bytes < 0) {
        fprintf(stderr, "sweep: bad arguments\n");
        return 2;
    }
    /* Static, not on main's stack: where a frame puts them is the compiler's
     * choice, and which of their bytes share a line would follow it. */
    static struct job jobs[kMaxThreads];
    static pthread_t ids[kMaxThreads];
    char *first = NULL;
    for (long t = 0; t < threads; ++t) {
        char *lines = shared && first ? first : aligned_alloc(kLine, (size_t)(n * kLine));
        if (!lines) return 3;
        if (!first) {
            first = lines;
            for (long i = 0; i < n * kLine; ++i) lines[i] = (char)i;
        } else if (!shared) {
            memcpy(lines, first, (size_t)(n * kLine));
        }
        jobs[t] = (struct job){lines, n, sweeps, 0, 0};
    }
    if (copy_bytes > 0) {
        char *from = calloc(1, (size_t)copy_bytes), *to = malloc((size_t)copy_bytes);
        if (!from || !to) return 3;
        copy(to, from, (size_t)copy_bytes);
        free(from);
        free(to);
    }
    for (long t = 0; t < threads; ++t)
        if (pthread_create(&ids[t], NULL, run, &jobs[t]) != 0) return 3;
    long sum = 0;
    for (long t = 0; t < threads; ++t) {
        pthread_join(ids[t], NULL);
        sum += jobs[t].sum;
    }
    if (truth) {
        FILE *f = fopen(truth, "w");
        if (!f) return 3;
        fprintf(f, "lines %ld\nsweeps %ld\nthreads %ld\nline_bytes %d\ncopy_bytes %ld\n", n, sweeps, threads, kLine,
                copy_bytes);
        for (long t = 0; t < threads; ++t)
            fprintf(f, "thread %ld array %lu %lu loads %ld\n", t, (unsigned long)jobs[t].lines,
                    (unsigned long)(jobs[t].lines + n * kLine), jobs[t].loads);
        fclose(f);
    }
    /* By the first letter: strcmp would add to the memory traffic the -c test counts. */
    switch (end[0]) {
    case '_': _exit(3);
    case 'a': abort();
    case 'e': execl("/bin/true", "true", (char *)NULL); return 4;
    }
    return sum == 12345 ? 1 : 0; /* uses the sum, so the sweeps are not optimised away */
}
