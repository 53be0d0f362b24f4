#include "sprof/scheduler.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "sprof/splitmix.hpp"

namespace sprof {

const char* to_string(Rotation::Kind k) { return k == Rotation::shuffled ? "shuffled" : "round-robin"; }

Rotation::Kind parse_rotation(const std::string& s) {
    if (s == "shuffled") return Rotation::shuffled;
    if (s == "round-robin") return Rotation::round_robin;
    throw std::invalid_argument("unknown rotation '" + s + "' (use shuffled or round-robin)");
}

uint64_t rotation_stream(uint64_t seed, uint32_t tid) {
    uint64_t state = seed ^ (uint64_t{tid} * 0xd1b54a32d192ed03ull);
    return splitmix64(state);
}

LiveSetScheduler::LiveSetScheduler(unsigned n_events, unsigned slots, Rotation::Kind kind, uint64_t stream)
    : n_(n_events), k_(slots == 0 || slots > n_events ? n_events : slots), kind_(kind), state_(stream) {
    // After N/gcd(N,K) steps the window is back where it started: every event
    // has then been live exactly K/gcd(N,K) times.
    period_ = n_ == 0 ? 1 : n_ / std::gcd(n_, k_);
    draw(order_);
    draw(next_order_);
}

void LiveSetScheduler::draw(uint8_t* order) {
    for (unsigned i = 0; i < period_; ++i) order[i] = static_cast<uint8_t>(i);
    if (kind_ != Rotation::shuffled) return;
    for (unsigned i = period_; i > 1; --i) {
        // The high half, as kmod/cmdev.c draws it (a 32-bit modulus in the
        // kernel); its bias for i ≤ 32 is below 10^-8.
        const unsigned j = static_cast<unsigned>(splitmix64(state_) >> 32) % i;
        std::swap(order[i - 1], order[j]);
    }
}

uint32_t LiveSetScheduler::set_at(unsigned step) const {
    uint32_t mask = 0;
    for (unsigned j = 0; j < k_; ++j) mask |= 1u << ((step * k_ + j) % n_);
    return mask;
}

uint32_t LiveSetScheduler::next() const {
    return pos_ + 1 < period_ ? set_at(order_[pos_ + 1]) : set_at(next_order_[0]);
}

void LiveSetScheduler::advance() {
    if (++pos_ < period_) return;
    pos_ = 0;
    std::copy(next_order_, next_order_ + period_, order_);
    draw(next_order_);
}

}  // namespace sprof
