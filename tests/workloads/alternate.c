/* Two functions that alternate: heavy() takes `ratio` times the CPU time of
 * light() per call and touches fresh pages; light() touches none. Writes its
 * own exact accounting (CPU time and minor faults per function) to the truth
 * file, the ground truth profiles are checked against.
 *
 * heavy() faults evenly over its call (-b even, the default), all at its
 * start (-b entry) or all at its end (-b exit): a tick's delta says how many
 * faults happened since the last tick, not where, so bursts at a call's
 * boundary are what an estimate that charges deltas to ticks gets wrong.
 *
 * usage: alternate [-t SECONDS] [-m CALL_MS] [-r RATIO] [-p PAGES_PER_HEAVY_CALL] [-b even|entry|exit] [-o TRUTH_FILE] */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <getopt.h>

static volatile double sink;
static double heavy_cpu, light_cpu;
static long heavy_faults, light_faults;
static long calls;

enum burst { even, at_entry, at_exit };

/* Touches `pages` fresh pages of `fresh`, which the caller maps and unmaps:
 * the system calls stay out of heavy(), whose own code then causes every
 * fault the truth counts (a sample in munmap would charge them to libc). */
__attribute__((noinline)) void heavy(double seconds, char *fresh, long pages, enum burst burst) {
    const double t0 = thread_cpu_s();
    const long f0 = minor_faults();
    if (burst == at_entry) touch_pages(fresh, 0, pages);
    /* Evenly: in ~1 ms slices, like steady work, rather than in bursts a
     * sampler could alias with. */
    const long slices = seconds > 0.002 ? (long)(seconds / 0.001) : 1;
    for (long slice = 0; slice < slices; ++slice) {
        if (burst == even) touch_pages(fresh, pages * slice / slices, pages * (slice + 1) / slices);
        spin_cpu(seconds / slices, &sink);
    }
    if (burst == at_exit) touch_pages(fresh, 0, pages);
    heavy_faults += minor_faults() - f0;
    heavy_cpu += thread_cpu_s() - t0;
}

__attribute__((noinline)) void light(double seconds) {
    const double t0 = thread_cpu_s();
    const long f0 = minor_faults();
    spin_cpu(seconds, &sink);
    light_faults += minor_faults() - f0;
    light_cpu += thread_cpu_s() - t0;
}

int main(int argc, char **argv) {
    double total_s = 2.0, call_ms = 20.0, ratio = 3.0;
    long pages = 512;
    const char *truth = NULL;
    enum burst burst = even;
    int c;
    while ((c = getopt(argc, argv, "t:m:r:p:b:o:")) != -1) {
        switch (c) {
        case 't': total_s = atof(optarg); break;
        case 'm': call_ms = atof(optarg); break;
        case 'r': ratio = atof(optarg); break;
        case 'p': pages = atol(optarg); break;
        case 'b':
            burst = !strcmp(optarg, "entry") ? at_entry : !strcmp(optarg, "exit") ? at_exit : even;
            if (burst == even && strcmp(optarg, "even")) {
                fprintf(stderr, "%s: -b takes even, entry or exit, not '%s'\n", argv[0], optarg);
                return 2;
            }
            break;
        case 'o': truth = optarg; break;
        default:
            fprintf(stderr, "usage: %s [-t seconds] [-m call_ms] [-r ratio] [-p pages] [-b even|entry|exit] [-o truth]\n",
                    argv[0]);
            return 2;
        }
    }
    const double light_s = call_ms / 1e3, heavy_s = ratio * light_s;
    const double start = thread_cpu_s();
    while (thread_cpu_s() - start < total_s) {
        char *fresh = map_fresh_pages(pages > 0 ? pages : 1);
        heavy(heavy_s, fresh, pages, burst);
        unmap_pages(fresh, pages > 0 ? pages : 1);
        light(light_s);
        ++calls;
    }
    FILE *out = truth ? fopen(truth, "w") : stdout;
    if (!out) {
        perror(truth);
        return 3;
    }
    fprintf(out, "heavy_cpu_s %.6f\nlight_cpu_s %.6f\nheavy_faults %ld\nlight_faults %ld\ncalls %ld\n",
            heavy_cpu, light_cpu, heavy_faults, light_faults, calls);
    if (out != stdout) fclose(out);
    return 0;
}
