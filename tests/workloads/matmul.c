/* C = A·B for n×n matrices of doubles, naive (i, j, k loops: B walked down
 * its columns) or blocked in BLOCK×BLOCK tiles: two deterministic access
 * streams of very different locality, for the cache simulators (the exact
 * simulator is checked against cachegrind on them). Prints a checksum, so
 * the work is not optimised away and both variants can be seen to agree.
 *
 * usage: matmul [-n N] [-b BLOCK]   (BLOCK 0, the default: naive) */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void multiply_naive(int n, const double *a, const double *b, double *c) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double sum = 0;
            for (int k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];
            c[i * n + j] = sum;
        }
}

__attribute__((noinline)) static void multiply_blocked(int n, int block, const double *a, const double *b, double *c) {
    for (int i = 0; i < n * n; ++i) c[i] = 0;
    for (int ii = 0; ii < n; ii += block)
        for (int kk = 0; kk < n; kk += block)
            for (int jj = 0; jj < n; jj += block)
                for (int i = ii; i < ii + block && i < n; ++i)
                    for (int k = kk; k < kk + block && k < n; ++k) {
                        const double aik = a[i * n + k];
                        for (int j = jj; j < jj + block && j < n; ++j) c[i * n + j] += aik * b[k * n + j];
                    }
}

int main(int argc, char **argv) {
    int n = 64, block = 0, opt;
    while ((opt = getopt(argc, argv, "n:b:")) != -1) {
        switch (opt) {
        case 'n': n = atoi(optarg); break;
        case 'b': block = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: %s [-n N] [-b BLOCK]\n", argv[0]);
            return 2;
        }
    }
    if (n <= 0 || block < 0) {
        fprintf(stderr, "matmul: N must be positive and BLOCK not negative (got -n %d -b %d)\n", n, block);
        return 2;
    }
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n), *c = malloc(sizeof(double) * n * n);
    if (!a || !b || !c) {
        fprintf(stderr, "matmul: cannot allocate three %d×%d matrices\n", n, n);
        return 1;
    }
    for (int i = 0; i < n * n; ++i) {
        a[i] = i % 7;
        b[i] = i % 5;
    }
    if (block) multiply_blocked(n, block, a, b, c);
    else multiply_naive(n, a, b, c);
    double checksum = 0;
    for (int i = 0; i < n * n; ++i) checksum += c[i];
    printf("checksum %.0f\n", checksum);
    free(a);
    free(b);
    free(c);
    return 0;
}
