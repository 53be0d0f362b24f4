// Builds histogram intervals from raw samples: the per-(function, event)
// count, coverage and carry-forward sums of docs/FORMAT.md. Shared by the
// in-process runtime and the ptrace monitor.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sprof/profile.hpp"
#include "sprof/sample.hpp"

namespace sprof {

class IntervalBuilder {
public:
    IntervalBuilder(uint32_t tid, unsigned n_events);

    // Charges the whole sample to `function`.
    void add(uint32_t function, const RawSample& s);
    uint64_t samples() const { return samples_; }
    bool empty() const { return samples_ == 0; }
    uint64_t start_ns() const { return start_ns_; }

    // Closes the current interval (ending at end_ns) and starts the next one.
    Interval close(uint64_t end_ns);

private:
    uint32_t tid_;
    unsigned n_;
    uint32_t seq_ = 0;
    uint64_t samples_ = 0;
    uint64_t start_ns_ = 0;
    bool started_ = false;
    std::unordered_map<uint32_t, FunctionCell> cells_;
    std::vector<double> last_delta_;  // carry-forward state per event; NaN = never counted
};

}  // namespace sprof
