/* Kernels of known, distinct locality for the locality benchmark and tests:
 * each is one function, so a per-function view names it.
 *
 *   stream   sums an array of N doubles front to back, R times: one miss per
 *            line (1 in 8 loads) in any cache smaller than the array, cold
 *            misses only in a larger one
 *   random   loads N-line array elements at uniformly random lines: LRU miss
 *            ratio about 1 − C/N for a cache of C lines
 *   chase    follows a pointer through N 64-byte nodes linked in a random
 *            cyclic order: every step a new line until the list fits
 *   hash     inserts N random keys into an open-addressing table of 2N
 *            slots, then looks each up: random probes over the table
 *   matmul   C = A·B, N×N doubles, naive i-j-k order: B is walked by column
 *   blocked  the same product in B×B tiles (-b, default 32): the reuse of B
 *            falls inside a tile
 * Deterministic: the same accesses in every run (the exact simulator is
 * checked against cachegrind on matmul and blocked).
 *
 * usage: kernels -k KERNEL -n N [-r REPEATS] [-b TILE]   (prints a checksum) */
#include "../workload_common.h" /* first: it defines _GNU_SOURCE */

#include <stdint.h>
#include <string.h>

static uint64_t xorshift(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

__attribute__((noinline)) double stream(const double *a, long n, long repeats) {
    double sum = 0;
    for (long r = 0; r < repeats; ++r)
        for (long i = 0; i < n; ++i) sum += a[i];
    return sum;
}

__attribute__((noinline)) long random_lines(const char *lines, long n, long loads) {
    uint64_t x = 88172645463325252ull;
    long sum = 0;
    for (long i = 0; i < loads; ++i) sum += lines[(xorshift(&x) % (uint64_t)n) * 64];
    return sum;
}

struct node {
    struct node *next;
    char pad[56]; /* one node per 64-byte line */
};

__attribute__((noinline)) long chase(const struct node *start, long steps) {
    const struct node *p = start;
    for (long i = 0; i < steps; ++i) p = p->next; /* chase's load */
    return (long)(p - start);
}

__attribute__((noinline)) long hash_table(uint64_t *slots, long n) {
    const uint64_t mask = (uint64_t)(2 * n) - 1; /* 2n is a power of two */
    uint64_t x = 2463534242ull;
    for (long i = 0; i < n; ++i) {
        const uint64_t key = xorshift(&x) | 1; /* 0 marks an empty slot */
        uint64_t h = key * 0x9e3779b97f4a7c15ull;
        while (slots[h & mask] != 0 && slots[h & mask] != key) ++h;
        slots[h & mask] = key;
    }
    long found = 0;
    x = 2463534242ull;
    for (long i = 0; i < n; ++i) {
        const uint64_t key = xorshift(&x) | 1;
        uint64_t h = key * 0x9e3779b97f4a7c15ull;
        while (slots[h & mask] != key) ++h;
        found += (h & mask) != 0;
    }
    return found;
}

__attribute__((noinline)) void matmul(const double *a, const double *b, double *c, long n) {
    for (long i = 0; i < n; ++i)
        for (long j = 0; j < n; ++j) {
            double sum = 0;
            for (long k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];
            c[i * n + j] = sum;
        }
}

__attribute__((noinline)) void blocked(const double *a, const double *b, double *c, long n, long T) {
    memset(c, 0, (size_t)(n * n) * sizeof *c);
    for (long ii = 0; ii < n; ii += T)
        for (long kk = 0; kk < n; kk += T)
            for (long jj = 0; jj < n; jj += T)
                for (long i = ii; i < ii + T && i < n; ++i)
                    for (long k = kk; k < kk + T && k < n; ++k) {
                        const double aik = a[i * n + k];
                        for (long j = jj; j < jj + T && j < n; ++j) c[i * n + j] += aik * b[k * n + j];
                    }
}

static void *must_alloc(size_t bytes) {
    void *p = calloc(1, bytes); /* heap: every block */
    if (!p) {
        perror("calloc");
        exit(3);
    }
    return p;
}

int main(int argc, char **argv) {
    const char *kernel = NULL;
    long n = 0, repeats = 1, tile = 32;
    int c;
    while ((c = getopt(argc, argv, "k:n:r:b:")) != -1) {
        if (c == 'k') kernel = optarg;
        else if (c == 'b') tile = atol(optarg);
        else if (c == 'n') n = atol(optarg);
        else if (c == 'r') repeats = atol(optarg);
        else return 2;
    }
    if (!kernel || n <= 0 || repeats <= 0 || tile <= 0) {
        fprintf(stderr, "usage: %s -k stream|random|chase|hash|matmul|blocked -n N [-r REPEATS] [-b TILE]\n",
                argv[0]);
        return 2;
    }
    if (strcmp(kernel, "stream") == 0) {
        double *a = must_alloc((size_t)n * sizeof *a);
        for (long i = 0; i < n; ++i) a[i] = (double)i;
        printf("%g\n", stream(a, n, repeats));
    } else if (strcmp(kernel, "random") == 0) {
        char *lines = must_alloc((size_t)n * 64);
        printf("%ld\n", random_lines(lines, n, n * repeats));
    } else if (strcmp(kernel, "chase") == 0) {
        struct node *nodes = must_alloc((size_t)n * sizeof *nodes);
        long *order = must_alloc((size_t)n * sizeof *order);
        uint64_t x = 1;
        for (long i = 0; i < n; ++i) order[i] = i;
        for (long i = n - 1; i > 0; --i) { /* Fisher-Yates: one random cycle through every node */
            const long j = (long)(xorshift(&x) % (uint64_t)(i + 1)), t = order[i];
            order[i] = order[j], order[j] = t;
        }
        for (long i = 0; i < n; ++i) nodes[order[i]].next = &nodes[order[(i + 1) % n]];
        free(order);
        printf("%ld\n", chase(&nodes[0], n * repeats));
    } else if (strcmp(kernel, "hash") == 0) {
        long pow2 = 1;
        while (pow2 < n) pow2 *= 2;
        long found = 0;
        for (long r = 0; r < repeats; ++r) {
            uint64_t *slots = must_alloc((size_t)(2 * pow2) * sizeof *slots);
            found += hash_table(slots, pow2);
            free(slots);
        }
        printf("%ld\n", found);
    } else if (strcmp(kernel, "matmul") == 0 || strcmp(kernel, "blocked") == 0) {
        double *a = must_alloc((size_t)(n * n) * sizeof *a), *b = must_alloc((size_t)(n * n) * sizeof *b);
        double *m = must_alloc((size_t)(n * n) * sizeof *m);
        for (long i = 0; i < n * n; ++i) a[i] = (double)(i % 7), b[i] = (double)(i % 5);
        for (long r = 0; r < repeats; ++r) {
            if (kernel[0] == 'm') matmul(a, b, m, n);
            else blocked(a, b, m, n, tile);
        }
        printf("%g\n", m[n * n / 2]);
    } else {
        fprintf(stderr, "%s: no kernel '%s'\n", argv[0], kernel);
        return 2;
    }
    return 0;
}
