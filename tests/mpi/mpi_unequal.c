/* An MPI job with a deliberately unequal split: rank r computes for (r+1)
 * units of CPU time in compute(), then touches (r+1)·PAGES fresh pages in
 * fill(), spread over another (r+1) units, then all ranks meet in a
 * barrier. Each rank measures its own work and writes it to TRUTH.<rank>:
 * the ground truth of the imbalance report (compute's max/mean over N ranks
 * is N/((N+1)/2), the slowest rank N−1), compute's time in task-clock
 * seconds, the clock of a profile's time: on a virtual machine it also
 * counts what the hypervisor steals while the thread runs (a busy host:
 * rank 2's compute 1.046 s of task-clock in 0.900 s of CPU clock, rank 0's
 * none), and so does a profile. And its own time line to
 * TRUTH.<rank>.timeline, the truth of its phases: the span of each of its
 * parts (init, compute, fill, barrier, finalize) in its main thread's
 * task-clock seconds since main(), the clock of a profile's time axis. (The
 * barrier is a part of its own: Open MPI waits in it polling, on the CPU,
 * with sched_yield while the slower ranks work.)
 *
 * With -k RANK, that rank kills itself (SIGKILL) after its work: a job that
 * loses a rank.
 *
 * usage: mpi_unequal [-u UNIT_SECONDS] [-p PAGES] [-o TRUTH_PREFIX] [-k RANK] */
#include "../workloads/workload_common.h" /* first: it defines _GNU_SOURCE */

#include <mpi.h>
#include <signal.h>

static volatile double sink;

/* fill() works in cycles of CYCLE_S CPU seconds: it maps the cycle's pages,
 * touches them at a steady rate (a few every SLICE_S), computes for CLAIM_S
 * and unmaps them. So a rank's memory stays small however many pages, the
 * fault rate is the same in every histogram interval however much a fault
 * costs on a busy machine (a rate that changed inside fill split its phase)
 * — as long as a slice's faults fit in its SLICE_S (-p 20000 left 11 µs a
 * fault, and beside two busy loops fill's rate fell by half for a while),
 * and fill() lasts the CPU time it is given. CLAIM_S is more than one
 * sampling interval of sprof (10 ms by default): a tick in fill() itself
 * takes the cycle's faults before the munmap — a sample's whole delta goes
 * to the function its tick lands in, and a tick in the kernel's unmapping
 * work (counted as root) took the faults of the pages touched before it,
 * a load-dependent share of fill's faults. A user may count only user
 * space, where a fault's kernel time has no ticks: its faults go to the next
 * user-space sample, in fill() too. */
#define CYCLE_S 0.050
#define CLAIM_S 0.012
#define SLICE_S 0.001

__attribute__((noinline)) void compute(double seconds) { spin_cpu(seconds, &sink); }

/* Touches `pages` fresh pages over `seconds` of CPU time (see CYCLE_S). */
__attribute__((noinline)) long fill(long pages, double seconds) {
    const long f0 = minor_faults();
    long cycles = (long)(seconds / CYCLE_S + 0.5);
    if (cycles < 1) cycles = 1;
    long slices = (long)((seconds / cycles - CLAIM_S) / SLICE_S + 0.5);
    if (slices < 1) slices = 1;
    for (long c = 0; c < cycles; ++c) {
        const long n = pages * (c + 1) / cycles - pages * c / cycles;
        char *p = map_fresh_pages(n);
        for (long i = 0; i < slices; ++i) {
            const double slice_end = thread_cpu_s() + SLICE_S;
            touch_pages(p, n * i / slices, n * (i + 1) / slices);
            const double left = slice_end - thread_cpu_s();
            if (left > 0) spin_cpu(left, &sink);
        }
        spin_cpu(CLAIM_S, &sink);
        unmap_pages(p, n);
    }
    return minor_faults() - f0;
}

/* A rank's parts, in its main thread's task-clock seconds since main(). */
enum { INIT, COMPUTE, FILL, BARRIER, FINALIZE, PARTS };
static const char *const part_names[PARTS] = {"init", "compute", "fill", "barrier", "finalize"};
static double since_main;
static double now_s(void) { return task_clock_s() - since_main; }

static FILE *open_truth(const char *prefix, int rank, const char *suffix) {
    char path[4096];
    snprintf(path, sizeof path, "%s.%d%s", prefix, rank, suffix);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(3);
    }
    return f;
}

int main(int argc, char **argv) {
    since_main = task_clock_s();
    double span[PARTS][2];
    double unit_s = 0.3;
    long pages = 2000;
    const char *truth = NULL;
    int kill_rank = -1;
    span[INIT][0] = now_s();
    MPI_Init(&argc, &argv);
    span[INIT][1] = now_s();
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int c;
    while ((c = getopt(argc, argv, "u:p:o:k:")) != -1) {
        if (c == 'u') unit_s = atof(optarg);
        else if (c == 'p') pages = atol(optarg);
        else if (c == 'o') truth = optarg;
        else if (c == 'k') kill_rank = atoi(optarg);
        else return 2;
    }
    span[COMPUTE][0] = now_s();
    compute((rank + 1) * unit_s);
    span[COMPUTE][1] = span[FILL][0] = now_s();
    const long faults = fill((rank + 1) * pages, (rank + 1) * unit_s);
    span[FILL][1] = now_s();
    if (rank == kill_rank) raise(SIGKILL);
    span[BARRIER][0] = now_s();
    MPI_Barrier(MPI_COMM_WORLD);
    span[BARRIER][1] = span[FINALIZE][0] = now_s();
    MPI_Finalize();
    span[FINALIZE][1] = now_s();
    if (truth) {
        FILE *f = open_truth(truth, rank, "");
        fprintf(f, "rank %d\nsize %d\ncompute_s %.6f\nfill_faults %ld\n", rank, size,
                span[COMPUTE][1] - span[COMPUTE][0], faults);
        fclose(f);
        f = open_truth(truth, rank, ".timeline");
        fprintf(f, "# part start_s end_s (task-clock since main())\n");
        for (int p = 0; p < PARTS; ++p) fprintf(f, "%s %.4f %.4f\n", part_names[p], span[p][0], span[p][1]);
        fclose(f);
    }
    return 0;
}
