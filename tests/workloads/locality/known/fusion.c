/* Two loops over the same data that loop fusion fixes.
 *
 *   split  for each block of B doubles of a large array: loop 1 scales the
 *          block in place, then loop 2 sums it. Each line loop 1 leaves is
 *          next touched by loop 2, B·2 accesses or so later: in a cache
 *          smaller than the block (8 KiB lines… 64 KiB for B = 8192) every
 *          such reuse misses, and nothing else does but the first touch.
 *   fused  one loop does both to each element: the reuse comes at once.
 * The array is walked once, so no reuse leads from loop 2 back to loop 1.
 *
 * usage: fusion split|fused N B   (N doubles in blocks of B; prints a checksum) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noipa)) double two_loops(double *a, long n) {
    double s = 0;
    for (long i = 0; i < n; ++i) a[i] = a[i] * 1.5 + 1; /* loop 1 */
    for (long i = 0; i < n; ++i) s += a[i];              /* loop 2 */
    return s;
}

__attribute__((noipa)) double one_loop(double *a, long n) {
    double s = 0;
    for (long i = 0; i < n; ++i) {
        a[i] = a[i] * 1.5 + 1;
        s += a[i];
    }
    return s;
}

int main(int argc, char **argv) {
    if (argc != 4 || atol(argv[2]) <= 0 || atol(argv[3]) <= 0) {
        fprintf(stderr, "usage: %s split|fused N B\n", argv[0]);
        return 2;
    }
    const int split = strcmp(argv[1], "split") == 0;
    if (!split && strcmp(argv[1], "fused") != 0) {
        fprintf(stderr, "%s: no mode '%s'\n", argv[0], argv[1]);
        return 2;
    }
    const long n = atol(argv[2]), b = atol(argv[3]);
    double *a = calloc((size_t)n, sizeof *a);
    if (!a) {
        perror("calloc");
        return 3;
    }
    double s = 0;
    for (long at = 0; at < n; at += b) {
        const long len = n - at < b ? n - at : b;
        s += split ? two_loops(a + at, len) : one_loop(a + at, len);
    }
    printf("checksum %g\n", s);
    return 0;
}
