// Virtual counters: which ≤ K of the N events are live in each sampling interval.
#pragma once
#include <cstdint>

namespace sprof {

// Round-robin window: live set s = events {(s·K + j) mod N : j < K}. With K
// dividing N this is a partition visited in turn; otherwise every event still
// gets the same share of intervals over N consecutive steps. Async-signal-safe.
class LiveSetScheduler {
public:
    LiveSetScheduler() = default;
    LiveSetScheduler(unsigned n_events, unsigned slots);

    uint32_t live() const { return live_; }
    uint32_t next() const;  // the set after live()
    void advance() { step_ = (step_ + 1) % period_; live_ = set_at(step_); }
    unsigned events() const { return n_; }
    unsigned slots() const { return k_; }

private:
    uint32_t set_at(unsigned step) const;
    unsigned n_ = 0, k_ = 0, step_ = 0, period_ = 1;
    uint32_t live_ = 0;
};

}  // namespace sprof
