// Virtual counters: which ≤ K of the N events are live in each sampling interval.
#pragma once
#include <cstdint>
#include <string>

#include "sprof/sample.hpp"

namespace sprof {

// The order of the live sets. The sets are those of a round-robin window,
// set s = events {(s·K + j) mod N : j < K}, s < P = N/gcd(N,K): with K
// dividing N a partition, otherwise every event still gets the same share
// of the P sets. round_robin visits them in turn (the original rotation).
// shuffled visits every set once per round of P samples too, but each round
// in its own random order (Fisher–Yates from a splitmix64 stream): a program
// whose rhythm matches the rotation's period cannot keep an event live in
// the same part of its rhythm, so the live samples are a random sample of
// the program's (stratified by round), which is what the estimators and
// their confidence intervals assume.
struct Rotation {
    enum Kind { round_robin, shuffled } kind = shuffled;
    uint64_t seed = 0;  // the run's; each thread draws from its own stream of it
};
const char* to_string(Rotation::Kind k);
Rotation::Kind parse_rotation(const std::string& s);  // throws std::invalid_argument

// The stream of one thread of a run: unrelated streams for every tid.
uint64_t rotation_stream(uint64_t seed, uint32_t tid);

// Async-signal-safe: no allocation, no locks.
class LiveSetScheduler {
public:
    LiveSetScheduler() = default;
    // `stream`: the thread's (rotation_stream); unused by round_robin.
    LiveSetScheduler(unsigned n_events, unsigned slots, Rotation::Kind kind = Rotation::round_robin,
                     uint64_t stream = 0);

    uint32_t live() const { return set_at(order_[pos_]); }
    uint32_t next() const;  // the set after live()
    void advance();
    unsigned events() const { return n_; }
    unsigned slots() const { return k_; }
    unsigned period() const { return period_; }

private:
    uint32_t set_at(unsigned step) const;
    void draw(uint8_t* order);  // the order of one round
    unsigned n_ = 0, k_ = 0, period_ = 1, pos_ = 0;
    Rotation::Kind kind_ = Rotation::round_robin;
    uint64_t state_ = 0;
    uint8_t order_[kMaxEvents] = {};       // this round's sets, in order
    uint8_t next_order_[kMaxEvents] = {};  // the next round's, drawn ahead for next()
};

}  // namespace sprof
