/* A program with a known call tree that measures itself, for the call-path
 * tests (tests/integration/lib_call_paths.sh, pt_call_paths.sh): a leaf called from two callers
 * in proportions the callers time with their own thread CPU clock,
 * recursion of a known depth, and a comparison function called back by
 * libc's qsort. Built with -O2 -fno-omit-frame-pointer, without sibling
 * calls and without shrink-wrapping, so that the call tree in the source is
 * the one that runs and every frame can be walked. Debian's gcc 12 gives a
 * function that calls none no frame pointer, whatever the flags
 * (-mno-omit-leaf-frame-pointer included): a sample in it loses its caller
 * under -g fp (perf record -g alike). So the functions that hold the
 * samples each end with a call (publish), which gives them a frame.
 *
 * Usage: call_tree SECONDS TRUTH_FILE [ROUNDS]: runs for SECONDS of its
 * CPU time, or exactly ROUNDS rounds when given (a fixed amount of work, for
 * the per-sample cost in bench/call_graph_cost.py). Writes, per line, "key value":
 * leaf_from_a / leaf_from_b (s of the leaf's CPU time under each caller),
 * recursion_depth (calls of recurse on the path to its bottom, the first
 * included), bottom_s, qsort_s (qsort's CPU time, its callbacks included:
 * timing each callback would make the clock's system calls most of it). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RECURSION_DEPTH 12
#define NOINLINE __attribute__((noinline))

static double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile uint64_t sink;

/* Makes its callers non-leaf functions, which gcc gives a frame. */
NOINLINE void publish(uint64_t x) { sink += x; }

static NOINLINE uint64_t spin(uint64_t n) {
    uint64_t x = n;
    for (uint64_t i = 0; i < n; ++i) x = x * 6364136223846793005ull + i;
    publish(x);
    return x;
}

/* The leaf (of the call tree: it calls only publish) whose callers the tests judge. */
NOINLINE uint64_t leaf(uint64_t n) {
    uint64_t x = n;
    for (uint64_t i = 0; i < n; ++i) x = x * 2862933555777941757ull + 3037000493ull;
    publish(x);
    return x;
}

static double leaf_from_a, leaf_from_b, bottom_s, qsort_s;

/* Each caller times each of its calls to the leaf; the work between calls
 * is its own. */
NOINLINE void caller_a(uint64_t n) {
    for (int k = 0; k < 3; ++k) {
        const double t0 = thread_cpu_s();
        sink += leaf(n);
        leaf_from_a += thread_cpu_s() - t0;
    }
}

NOINLINE void caller_b(uint64_t n) {
    const double t0 = thread_cpu_s();
    sink += leaf(n);
    leaf_from_b += thread_cpu_s() - t0;
}

NOINLINE uint64_t bottom(uint64_t n) { return spin(n) ^ n; }

NOINLINE uint64_t recurse(int depth, uint64_t n) {
    uint64_t r;
    if (depth <= 1) {
        const double t0 = thread_cpu_s();
        r = bottom(n);
        bottom_s += thread_cpu_s() - t0;
    } else {
        r = recurse(depth - 1, n) * 31;
    }
    sink += r;  /* work after the call: no tail call to fold away */
    return r + (uint64_t)depth;
}

static uint64_t compare_work;

NOINLINE int compare(const void* a, const void* b) {
    sink += spin(compare_work);
    const int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}

NOINLINE void sort_numbers(void) {
    int v[64];
    for (int i = 0; i < 64; ++i) v[i] = (i * 37) % 64;
    const double t0 = thread_cpu_s();
    qsort(v, 64, sizeof v[0], compare);
    qsort_s += thread_cpu_s() - t0;
}

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s SECONDS TRUTH_FILE [ROUNDS]\n", argv[0]);
        return 2;
    }
    const double seconds = atof(argv[1]);
    const long rounds = argc == 4 ? atol(argv[3]) : -1;
    /* ~0.4 ms a leaf call here: the clock's system calls around it are a
     * sliver of it (a user's profile drops their time), and the leaf has
     * most of the run, so that its samples give its callers' shares to a
     * fraction of a point. */
    const uint64_t n = 200000;
    compare_work = 500;
    const double start = thread_cpu_s();
    for (long r = 0; rounds >= 0 ? r < rounds : thread_cpu_s() - start < seconds; ++r) {
        caller_a(n);
        caller_b(n);
        sink += recurse(RECURSION_DEPTH, n / 2);
        sort_numbers();
    }
    FILE* f = fopen(argv[2], "w");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    fprintf(f, "leaf_from_a %.6f\nleaf_from_b %.6f\nrecursion_depth %d\nbottom_s %.6f\nqsort_s %.6f\n",
            leaf_from_a, leaf_from_b, RECURSION_DEPTH, bottom_s, qsort_s);
    return fclose(f) == 0 ? 0 : 1;
}
