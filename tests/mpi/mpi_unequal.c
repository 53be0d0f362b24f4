/* An MPI job with a deliberately unequal split: rank r computes for (r+1)
 * units of CPU time in compute() and touches (r+1)·PAGES fresh pages in
 * fill(), then all ranks meet in a barrier. Each rank measures its own work
 * and writes it to TRUTH.<rank>: the ground truth of the imbalance report
 * (compute's max/mean over N ranks is N/((N+1)/2), the slowest rank N−1).
 *
 * With -k RANK, that rank kills itself (SIGKILL) after its work: a job that
 * loses a rank.
 *
 * usage: mpi_unequal [-u UNIT_SECONDS] [-p PAGES] [-o TRUTH_PREFIX] [-k RANK] */
#include "../workloads/workload_common.h" /* first: it defines _GNU_SOURCE */

#include <mpi.h>
#include <signal.h>

static volatile double sink;

__attribute__((noinline)) double compute(double seconds) {
    const double t0 = thread_cpu_s();
    spin_cpu(seconds, &sink);
    return thread_cpu_s() - t0;
}

/* Fresh pages in chunks, so a rank's memory stays small however many, each
 * chunk followed by 10 ms of CPU in user space: a user may count only user
 * space, where a fault's kernel time has no ticks, so its faults are charged
 * to the next user-space sample — which this keeps inside fill(). */
__attribute__((noinline)) long fill(long pages) {
    const long f0 = minor_faults();
    for (long left = pages; left > 0; left -= 4096) {
        touch_fresh_pages(left < 4096 ? left : 4096);
        spin_cpu(0.010, &sink);
    }
    return minor_faults() - f0;
}

int main(int argc, char **argv) {
    double unit_s = 0.3;
    long pages = 2000;
    const char *truth = NULL;
    int kill_rank = -1;
    MPI_Init(&argc, &argv);
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
    const double cpu = compute((rank + 1) * unit_s);
    const long faults = fill((rank + 1) * pages);
    if (rank == kill_rank) raise(SIGKILL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (truth) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", truth, rank);
        FILE *f = fopen(path, "w");
        if (!f) {
            perror(path);
            return 3;
        }
        fprintf(f, "rank %d\nsize %d\ncompute_cpu_s %.6f\nfill_faults %ld\n", rank, size, cpu, faults);
        fclose(f);
    }
    MPI_Finalize();
    return 0;
}
