// Accesses per second of the exact simulator on one thread: a uniform
// random stream over LINES lines (the worst case for its tables: no
// locality) through StackDistances + ExactLruCurve at the 64-byte grid,
// keys from a handful of "PCs" as an instrumented loop would pass.
// The rate is per second of the thread's CPU time, which a busy machine
// inflates less than wall time.
// Usage: exact_cache_speed [ACCESSES [LINES]]   (default 100000000 1000000)
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "sprof/cache_sizes.hpp"
#include "sprof/exact_cache.hpp"
#include "sprof/option_values.hpp"
#include "sprof/splitmix.hpp"

namespace {

double thread_cpu_seconds() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 3) {
        std::fprintf(stderr, "usage: exact_cache_speed [ACCESSES [LINES]]\n");
        return 2;
    }
    uint64_t accesses = 100'000'000, lines = 1'000'000;
    try {
        if (argc > 1) accesses = sprof::parse_whole("ACCESSES", argv[1], 1, UINT64_MAX);
        if (argc > 2) lines = sprof::parse_whole("LINES", argv[2], 1, UINT64_MAX);
    } catch (const sprof::UsageError& e) {
        std::fprintf(stderr, "exact_cache_speed: %s\n", e.what());
        return 2;
    }

    sprof::ExactLruCurve curve(sprof::cache_sizes_in_lines(64));
    uint64_t state = 1;
    const double start = thread_cpu_seconds();
    for (uint64_t i = 0; i < accesses; ++i) curve.access(sprof::splitmix64(state) % lines, 0x401000 + 4 * (i & 7));
    const double seconds = thread_cpu_seconds() - start;

    const auto misses = curve.misses();
    std::printf("accesses %llu lines %llu cpu_seconds %.2f accesses_per_second %.3g misses_smallest %llu misses_largest %llu\n",
                static_cast<unsigned long long>(accesses), static_cast<unsigned long long>(lines), seconds,
                static_cast<double>(accesses) / seconds, static_cast<unsigned long long>(misses.front()),
                static_cast<unsigned long long>(misses.back()));
    return 0;
}
