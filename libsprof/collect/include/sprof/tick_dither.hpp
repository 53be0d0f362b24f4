// The sampling tick's period, drawn anew at every tick.
//
// Ticks at a fixed period can stay in step with a program that works in a
// rhythm of the same period (a loop paced on its own CPU time): every visit
// of a function then meets the ticks at one phase, and the part of a tick
// that each visit's sampled time is off by is the same at every visit, so
// it adds up instead of averaging out (selfcount's calls of 50, 100 and
// 200 ms on 10 ms ticks: 46 ms of 500 lost over 10 visits, on a busy
// machine; bench/RESULTS.md, tick aliasing). With every
// period drawn uniformly from [x(1 − d), x(1 + d)], the phase at which a
// visit begins is independent of the phase of a visit some ticks before,
// as the analyzer's interval for the time assumes (time_relative_sd).
#pragma once
#include <cstdint>

namespace sprof {

// What the ticks of a run are: the nominal period and its dither (both
// recorded in the profile's header) and the seed the threads draw from.
struct TickPlan {
    uint64_t period_ns = 0;  // 0: the backend takes no ticks of its own
    double dither = 0;       // d in [0, 1); 0 = a fixed period
    uint64_t seed = 0;       // the run's rotation seed
};

// One thread's periods. Async-signal-safe: no allocation, no locks.
class TickDither {
public:
    TickDither() = default;  // never changes a period
    TickDither(const TickPlan& plan, uint32_t tid);

    uint64_t first() const { return period_ns_; }  // the period to open a timer with
    bool varies() const { return spread_ns_ > 0; }  // false: retime() changes nothing
    // Gives the perf sampling event `fd` (a task-clock timer) its next
    // period, `since_tick_ns` of the task's CPU time after the tick the
    // caller just took. PERF_EVENT_IOC_PERIOD restarts the timer from the
    // moment of the call, so the period set is what is left of the drawn
    // one: the next tick comes the drawn period after the last, however
    // late the caller (sprof_pt's monitor on a busy machine). A caller
    // later than the drawn period leaves the timer on its old period.
    // The period set also spaces ticks that come before the next call
    // (a blocked signal, ticks the kernel drops).
    void retime(int fd, uint64_t since_tick_ns) noexcept;
    // The next period; the nominal one when the period is fixed.
    uint64_t next() noexcept;

private:
    uint64_t period_ns_ = 0;
    uint64_t spread_ns_ = 0;  // x·d: periods in [x − spread, x + spread]
    uint64_t state_ = 0;
};

}  // namespace sprof
