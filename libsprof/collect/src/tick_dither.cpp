#include "sprof/tick_dither.hpp"

#include <sys/ioctl.h>

#include <cmath>

#include "sprof/perf_event.hpp"
#include "sprof/scheduler.hpp"
#include "sprof/splitmix.hpp"

namespace sprof {

// The rotation's stream of the complemented seed: unrelated to the thread's
// live sets, and repeatable from the recorded seed like them.
TickDither::TickDither(const TickPlan& plan, uint32_t tid)
    : period_ns_(plan.period_ns),
      spread_ns_(static_cast<uint64_t>(std::llround(static_cast<double>(plan.period_ns) * plan.dither))),
      state_(rotation_stream(~plan.seed, tid)) {}

uint64_t TickDither::next() noexcept {
    if (!varies()) return period_ns_;
    // Uniform over the 2·spread + 1 periods by the high half of a 128-bit
    // product: no modulo bias.
    const uint64_t choices = 2 * spread_ns_ + 1;
    const auto pick = static_cast<uint64_t>((static_cast<unsigned __int128>(splitmix64(state_)) * choices) >> 64);
    return period_ns_ - spread_ns_ + pick;
}

void TickDither::retime(int fd, uint64_t since_tick_ns) noexcept {
    if (!varies() || fd < 0) return;
    const uint64_t drawn = next();
    constexpr uint64_t kShortest = 10'000;  // the kernel's shortest timer period
    if (since_tick_ns + kShortest > drawn) return;
    uint64_t left = drawn - since_tick_ns;
    ioctl(fd, PERF_EVENT_IOC_PERIOD, &left);
}

}  // namespace sprof
