/* Random loads with a known, graded locality: each load picks, with a fixed
 * seed, a line of a hot set of 256 lines (half of the loads) or of the whole
 * array of N lines (the other half), so a fully associative LRU cache's miss
 * ratio falls from about 1 at a few lines, through a knee near 16 KiB, to
 * the cold misses alone beyond N lines. Built with sprof-cc; the sampled
 * miss-ratio curve is checked against the exact one of the same run.
 *
 * usage: mix [-n LINES] [-l LOADS] */
#include "../workload_common.h" /* first: it defines _GNU_SOURCE */

enum { kLine = 64, kHot = 256 };

__attribute__((noinline)) long loads(const char *lines, long n, long count) {
    unsigned long x = 88172645463325252ul; /* xorshift64: in a register, not memory */
    long sum = 0;
    for (long i = 0; i < count; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const unsigned long line = (x & 1) ? (x >> 1) % kHot : (x >> 1) % (unsigned long)n;
        sum += lines[line * kLine];
    }
    return sum;
}

int main(int argc, char **argv) {
    long n = 16384, count = 20000000;
    int c;
    while ((c = getopt(argc, argv, "n:l:")) != -1) {
        if (c == 'n') n = atol(optarg);
        else if (c == 'l') count = atol(optarg);
        else return 2;
    }
    char *lines = calloc((size_t)n, kLine);
    if (!lines) return 3;
    printf("%ld\n", loads(lines, n, count));
    free(lines);
    return 0;
}
