/* A known stream of accesses for the inline fast path's tests: each round
 * of kernel() reads every element of `data` (8-byte loads, in order),
 * writes every element once (8-byte stores, in a stride-7 order, eight in
 * a row with no branch between them: one group of accesses for the plugin),
 * then in each of the `recs` (96 bytes, so they straddle 64-byte lines in
 * every way) loads fields 0, 5 and 11 and stores field 3 (a run of accesses
 * at constant offsets from one pointer, which the plugin probes at once),
 * then reads 4 bytes at each of 256 offsets 13 apart in `bytes` (unaligned:
 * memcpy, which gcc instruments as a range access; the ones at 61 to 63 in
 * a 64-byte line straddle two lines), and reads the volatile `flag` (a
 * 4-byte volatile load). Nothing else in kernel() touches memory: the sum
 * and the indices stay in registers.
 *
 * usage: accesses [-r ROUNDS] [-o TRUTH]
 * The truth file gives the rounds, the elements, and the addresses of
 * `data` and of kernel() in this run (kernel's size comes from the symbol
 * table: nm -S). */
#include "../workload_common.h" /* first: it defines _GNU_SOURCE */

#include <string.h>

enum { kElements = 4096, kRecs = 256 };

long data[kElements] __attribute__((aligned(64)));
struct rec {
    long field[12];
} recs[kRecs] __attribute__((aligned(64)));
unsigned char bytes[256 * 13 + 4] __attribute__((aligned(64)));
volatile int flag = 1;

__attribute__((noinline)) long kernel(long rounds) {
    long sum = 0;
    for (long r = 0; r < rounds; ++r) {
        for (long i = 0; i < kElements; ++i) sum += data[i];
        for (long i = 0; i < kElements; i += 8) {
#define STORE(k) data[((i + k) * 7) & (kElements - 1)] = sum + i + k
            STORE(0); STORE(1); STORE(2); STORE(3); STORE(4); STORE(5); STORE(6); STORE(7);
#undef STORE
        }
        for (long k = 0; k < kRecs; ++k) {
            struct rec *r = &recs[(k * 5) & (kRecs - 1)];
            sum += r->field[0] + r->field[5] + r->field[11];
            r->field[3] = sum;
        }
        for (long k = 0; k < 256; ++k) {
            unsigned x;
            memcpy(&x, bytes + k * 13 + 1, sizeof x);
            sum += x;
        }
        sum += flag;
    }
    return sum;
}

int main(int argc, char **argv) {
    long rounds = 3;
    const char *truth = NULL;
    int c;
    while ((c = getopt(argc, argv, "r:o:")) != -1) {
        switch (c) {
        case 'r': rounds = atol(optarg); break;
        case 'o': truth = optarg; break;
        default: fprintf(stderr, "usage: %s [-r ROUNDS] [-o TRUTH]\n", argv[0]); return 2;
        }
    }
    const long sum = kernel(rounds);
    if (truth) {
        FILE *f = fopen(truth, "w");
        if (!f) { perror(truth); return 1; }
        fprintf(f, "rounds %ld\nelements %d\ndata %p\nrecs %p\nrec_count %d\nbytes %p\nflag %p\nkernel %p\n", rounds,
                kElements, (void *)data, (void *)recs, kRecs, (void *)bytes, (void *)&flag, (void *)kernel);
        fclose(f);
    }
    printf("%ld\n", sum);
    return 0;
}
