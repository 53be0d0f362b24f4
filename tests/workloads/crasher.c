/* Works in doomed() for a while, then dies of SIGSEGV (a write through a
 * null pointer): the profile up to the crash must still be readable.
 *
 * usage: crasher [-t SECONDS] */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

static volatile double sink;
int *volatile nowhere = NULL;

__attribute__((noinline)) void doomed(double s) {
    spin_cpu(s, &sink);
    *nowhere = 1;
}

int main(int argc, char **argv) {
    double seconds = 0.5;
    int c;
    while ((c = getopt(argc, argv, "t:")) != -1) {
        if (c != 't') return 2;
        seconds = atof(optarg);
    }
    doomed(seconds);
    return 0;
}
