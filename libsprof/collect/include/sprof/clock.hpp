// The clock every collector stamps its ticks, threads and intervals with.
#pragma once
#include <time.h>

#include <cstdint>

namespace sprof {

// CLOCK_MONOTONIC in nanoseconds. Async-signal-safe: the sampling handler
// stamps its ticks with it.
inline uint64_t monotonic_ns() noexcept {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

}  // namespace sprof
