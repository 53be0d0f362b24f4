/* Data layouts whose spatial use is known: the share of each cache line's
 * bytes a program touches while the line is in the cache (SIP).
 *
 *   aos          an array of 64-byte particles (8 doubles, one per line),
 *                aos_sum() reads one field of each, aos_set() then writes
 *                another: 8 of 64 bytes, 12.5 %, loads and stores alike
 *   aos-update   the same particles, aos_update() adds each one's y to its x:
 *                the load that brings a line in is followed by a load and a
 *                store, 16 of 64 bytes used (25 %), 24 bytes read or written:
 *                each used byte touched 0.5 times more (temporal use 0.5)
 *   aos-static   aos_sum() over a static array of 65,536 particles (4 MiB,
 *                `fixed_particles`): 12.5 %, the data a symbol
 *   soa          the same data as a structure of arrays: soa_sum() reads the
 *                one array it needs, soa_set() writes another, every byte of
 *                each line: 100 %
 *   tree-gap     a binary tree whose leaves hold 3 doubles (24 bytes), each
 *                leaf allocated with malloc and followed by another
 *                allocation, as SIP's equake allocates its elements:
 *                leaf_sum() reads each leaf, the lines hold gaps
 *   tree-packed  the same tree, its leaves packed in one array
 * Each kernel is swept ROUNDS times over data far larger than 32 KiB, so
 * every line leaves a 32 KiB cache between sweeps. The tree modes print the
 * spatial use their layout gives, computed from the leaves' addresses: the
 * share of each line's bytes the leaves cover, over the lines they touch
 * (mean and standard deviation), every line one stay in the cache per sweep
 * (leaves are visited in address order, so a line shared by two leaves is
 * touched by both at once).
 *
 * usage: layout aos|aos-update|aos-static|soa|tree-gap|tree-packed N ROUNDS   (N particles or leaves) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* noipa: each call runs (gcc would otherwise see the kernels are pure and
 * call them once for all rounds). */

struct particle {
    double x, y, z, vx, vy, vz, mass, charge;
};

/* A static structure, named by its symbol (at most 65,536 particles). */
#define FIXED_PARTICLES 65536
static struct particle fixed_particles[FIXED_PARTICLES];

struct particles {
    double *x, *y, *z, *vx, *vy, *vz, *mass, *charge;
};

__attribute__((noipa)) double aos_sum(const struct particle *p, long n) {
    double s = 0;
    for (long i = 0; i < n; ++i) s += p[i].x;
    return s;
}

__attribute__((noipa)) void aos_update(struct particle *p, long n) {
    for (long i = 0; i < n; ++i) p[i].x += p[i].y;
}

__attribute__((noipa)) double soa_sum(const double *x, long n) {
    double s = 0;
    for (long i = 0; i < n; ++i) s += x[i];
    return s;
}

/* Stores of a value gcc cannot turn into a memset. */
__attribute__((noipa)) void aos_set(struct particle *p, long n, double v) {
    for (long i = 0; i < n; ++i) p[i].vx = v;
}

__attribute__((noipa)) void soa_set(double *vx, long n, double v) {
    for (long i = 0; i < n; ++i) vx[i] = v;
}

struct leaf {
    double v[3];
};

struct node {
    const struct node *left, *right;
    const struct leaf *leaf;
};

__attribute__((noipa)) double leaf_sum(const struct leaf *l) { return l->v[0] + l->v[1] + l->v[2]; }

__attribute__((noipa)) double walk(const struct node *n) {
    if (n->leaf) return leaf_sum(n->leaf);
    return walk(n->left) + walk(n->right);
}

/* Nodes [next, …) of a tree over leaves [lo, hi): in order, leaf lo first. */
static struct node *build(struct node *pool, long *next, struct leaf **leaves, long lo, long hi) {
    struct node *n = &pool[(*next)++];
    if (hi - lo == 1) {
        n->leaf = leaves[lo];
        return n;
    }
    const long mid = lo + (hi - lo) / 2;
    n->left = build(pool, next, leaves, lo, mid);
    n->right = build(pool, next, leaves, mid, hi);
    return n;
}

static void *must(void *p) {
    if (!p) {
        perror("allocation");
        exit(3);
    }
    return p;
}

/* The spatial use of 64-byte lines when each leaf's 24 bytes are touched,
 * in the order given: the mean over the lines touched of the share of each
 * line's bytes the leaves cover, and its standard deviation over lines. */
struct use {
    double mean, sd;
};

struct lines {
    double count, sum, squares; /* lines, Σ share, Σ share² */
};

static void add_line(struct lines *l, uint64_t bytes) {
    const double share = __builtin_popcountll(bytes) / 64.0;
    l->count += 1, l->sum += share, l->squares += share * share;
}

static struct use layout_spatial_use(struct leaf **leaves, long n) {
    struct lines l = {0, 0, 0};
    uintptr_t line = UINTPTR_MAX;
    uint64_t bytes = 0; /* bit i: byte i of `line` covered */
    for (long i = 0; i < n; ++i) {
        const uintptr_t a = (uintptr_t)leaves[i];
        for (uintptr_t b = a; b < a + sizeof(struct leaf); ++b) {
            if (b / 64 != line) {
                if (line != UINTPTR_MAX) add_line(&l, bytes);
                line = b / 64, bytes = 0;
            }
            bytes |= (uint64_t)1 << (b % 64);
        }
    }
    add_line(&l, bytes);
    const double mean = l.sum / l.count;
    return (struct use){100 * mean, 100 * sqrt(l.squares / l.count - mean * mean)};
}

int main(int argc, char **argv) {
    if (argc != 4 || atol(argv[2]) <= 1 || atol(argv[3]) <= 0) {
        fprintf(stderr, "usage: %s aos|aos-update|aos-static|soa|tree-gap|tree-packed N ROUNDS\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    const long n = atol(argv[2]), rounds = atol(argv[3]);
    double s = 0;
    if (strcmp(mode, "aos") == 0 || strcmp(mode, "aos-update") == 0) {
        struct particle *p = must(aligned_alloc(64, (size_t)n * sizeof *p)); /* heap: the particles */
        for (long i = 0; i < n; ++i) p[i] = (struct particle){(double)i, 1, 2, 3, 4, 5, 6, 7};
        if (mode[3] == '-') {
            for (long r = 0; r < rounds; ++r) aos_update(p, n);
            s += p[n - 1].x;
        } else {
            for (long r = 0; r < rounds; ++r) s += aos_sum(p, n);
            for (long r = 0; r < rounds; ++r) aos_set(p, n, (double)r);
            s += p[n - 1].vx;
        }
    } else if (strcmp(mode, "aos-static") == 0) {
        if (n > FIXED_PARTICLES) {
            fprintf(stderr, "%s: aos-static holds %d particles at most\n", argv[0], FIXED_PARTICLES);
            return 2;
        }
        for (long i = 0; i < n; ++i) fixed_particles[i].x = (double)i;
        for (long r = 0; r < rounds; ++r) s += aos_sum(fixed_particles, n);
    } else if (strcmp(mode, "soa") == 0) {
        struct particles p;
        double **arrays[] = {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.mass, &p.charge};
        for (int a = 0; a < 8; ++a) {
            *arrays[a] = must(aligned_alloc(64, (size_t)n * sizeof(double))); /* heap: the arrays */
            for (long i = 0; i < n; ++i) (*arrays[a])[i] = (double)(i + a);
        }
        for (long r = 0; r < rounds; ++r) s += soa_sum(p.x, n);
        for (long r = 0; r < rounds; ++r) soa_set(p.vx, n, (double)r);
        s += p.vx[n - 1];
    } else if (strcmp(mode, "tree-gap") == 0 || strcmp(mode, "tree-packed") == 0) {
        struct leaf **leaves = must(malloc((size_t)n * sizeof *leaves));
        if (mode[5] == 'g') {
            for (long i = 0; i < n; ++i) {
                leaves[i] = must(malloc(sizeof(struct leaf)));
                must(malloc(40)); /* what the program allocates between two leaves: never touched here */
            }
        } else {
            struct leaf *packed = must(aligned_alloc(64, ((size_t)n * sizeof *packed + 63) / 64 * 64));
            for (long i = 0; i < n; ++i) leaves[i] = &packed[i];
        }
        for (long i = 0; i < n; ++i) *leaves[i] = (struct leaf){{(double)i, 1, 2}};
        struct node *pool = must(calloc(2 * (size_t)n - 1, sizeof *pool));
        long next = 0;
        const struct node *root = build(pool, &next, leaves, 0, n);
        const struct use u = layout_spatial_use(leaves, n);
        printf("spatial_use %.4f\nspatial_use_sd %.4f\n", u.mean, u.sd);
        for (long r = 0; r < rounds; ++r) s += walk(root);
    } else {
        fprintf(stderr, "%s: no mode '%s'\n", argv[0], mode);
        return 2;
    }
    printf("checksum %g\n", s);
    return 0;
}
