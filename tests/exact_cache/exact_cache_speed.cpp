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
#include "sprof/splitmix.hpp"

namespace {

uint64_t parse_count(const char* text, const char* what) {
    char* end = nullptr;
    unsigned long long value = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0' || value == 0) {
        std::fprintf(stderr, "exact_cache_speed: %s must be a positive integer, not '%s'\n", what, text);
        std::exit(2);
    }
    return value;
}

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
    const uint64_t accesses = argc > 1 ? parse_count(argv[1], "ACCESSES") : 100'000'000;
    const uint64_t lines = argc > 2 ? parse_count(argv[2], "LINES") : 1'000'000;

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
