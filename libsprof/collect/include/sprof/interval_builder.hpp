// Builds histogram intervals from raw samples: the per-(function, event)
// count, coverage and carry-forward sums, the spread of the deltas and the
// entries of docs/FORMAT.md. Shared by the
// in-process runtime and the ptrace monitor.
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sprof/profile.hpp"
#include "sprof/sample.hpp"

namespace sprof {

class IntervalBuilder {
public:
    IntervalBuilder(uint32_t tid, unsigned n_events);

    // Charges the whole sample to `function` and, unless kNoLocation, to
    // the source location `location` (a line cell with the same sums).
    void add(uint32_t function, const RawSample& s, uint32_t location = kNoLocation);
    static constexpr uint32_t kNoLocation = UINT32_MAX;
    // Samples in the open interval (all its parts), for the closing rule.
    uint64_t samples() const { return samples_; }
    bool empty() const { return samples_ == 0; }
    uint64_t start_ns() const { return start_ns_; }
    // Whether samples arrived since the last part was handed out.
    bool has_new_part() const { return !functions_.empty(); }

    // A part of the open interval: the cells accumulated since the last part,
    // with the interval's tid, seq and start, ending at the last sample taken.
    // The interval stays open (same seq, carry-forward state kept): a reader
    // adds up the parts of one (tid, seq), so a profile cut short at any
    // moment still holds every sample up to the last part written.
    Interval take_part();
    // Closes the current interval (ending at end_ns) and starts the next one;
    // the result holds the cells not yet handed out as parts.
    Interval close(uint64_t end_ns);

private:
    uint32_t tid_;
    unsigned n_;
    uint32_t seq_ = 0;
    uint64_t samples_ = 0;
    uint64_t start_ns_ = 0;
    uint64_t last_ns_ = 0;  // wall time of the last sample added
    bool started_ = false;
    // Since the last part: by function, and by source location.
    std::unordered_map<uint32_t, FunctionCell> functions_;
    std::unordered_map<uint32_t, LineCell> lines_;
    std::vector<double> last_delta_;  // carry-forward state per event; NaN = never counted
    std::optional<uint32_t> last_function_;  // of the thread's previous sample, across intervals
};

}  // namespace sprof
