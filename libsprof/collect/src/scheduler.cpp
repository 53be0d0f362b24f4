#include "sprof/scheduler.hpp"

#include <numeric>

namespace sprof {

LiveSetScheduler::LiveSetScheduler(unsigned n_events, unsigned slots)
    : n_(n_events), k_(slots == 0 || slots > n_events ? n_events : slots) {
    // After N/gcd(N,K) steps the window is back where it started: every event
    // has then been live exactly K/gcd(N,K) times.
    period_ = n_ == 0 ? 1 : n_ / std::gcd(n_, k_);
    live_ = set_at(0);
}

uint32_t LiveSetScheduler::set_at(unsigned step) const {
    uint32_t mask = 0;
    for (unsigned j = 0; j < k_; ++j) mask |= 1u << ((step * k_ + j) % n_);
    return mask;
}

uint32_t LiveSetScheduler::next() const { return set_at((step_ + 1) % period_); }

}  // namespace sprof
