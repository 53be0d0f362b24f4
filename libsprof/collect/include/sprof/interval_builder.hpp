// Builds histogram intervals from raw samples: the per-(function, event)
// count, coverage and carry-forward sums, the spread of the deltas and the
// entries of docs/FORMAT.md. Shared by the
// in-process runtime and the ptrace monitor.
#pragma once
#include <cstdint>
#include <optional>
#include <random>
#include <unordered_map>
#include <vector>

#include "sprof/profile.hpp"
#include "sprof/sample.hpp"

namespace sprof {

class IntervalBuilder {
public:
    // lost_tick_ns: the nominal tick when the kernel drops the ticks that
    // land in kernel mode (a user-space-only profile: lost_tick_ns() of
    // estimator.hpp), 0 when every tick arrives.
    // self_sampled: bit e set for an event that samples itself
    // (ProfileEvent::self_sampled; its cells are described in profile.hpp).
    IntervalBuilder(uint32_t tid, unsigned n_events, uint64_t lost_tick_ns = 0, uint32_t self_sampled = 0);

    // Charges the sample to `function` and, unless kNoLocation, to the
    // source location `location` (a line cell with the same sums), and
    // unless kNoStack, to the call path `stack` (a stack cell, the same
    // sums again). A sample
    // that enters `function` after lost ticks gives the previous function
    // the share of them that was likely its own (lost_share()). An event's
    // own record (RawSample::tick false) adds only its events.
    void add(uint32_t function, const RawSample& s, uint32_t location = kNoLocation, uint32_t stack = kNoStack);
    static constexpr uint32_t kNoLocation = UINT32_MAX;
    static constexpr uint32_t kNoStack = UINT32_MAX;
    // A thread's tail (kTailPc): its reference time and deltas go to the
    // function (and location) of its last sample, as time without a sample.
    // Nothing when the thread had no sample.
    void add_tail(const RawSample& s);
    // Samples in the open interval (all its parts).
    uint64_t samples() const { return samples_; }
    // Ticks in the open interval, for the closing rule: its samples and the
    // ticks lost in the kernel between them, so that an interval of N ticks
    // is N ticks of the clock also where the kernel drops most of them (a
    // wait spent in system calls).
    uint64_t ticks() const { return ticks_; }
    // Nothing to write: no sample, and no tail (add_tail) since the last close.
    bool empty() const { return samples_ == 0 && functions_.empty(); }
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
    // What is charged: a sample inside its function; one that entered it
    // (its interval began in another: its deltas are partly that one's); or
    // the part of an entering sample that lost_share() gives back to the
    // function before, mixed like an entry's but no visit of its own.
    enum class Charge { inner, entry, given_back };
    // Where a sample is charged: its function, source location and call path.
    struct Place {
        uint32_t function, location, stack;
    };
    // Charges one sample, or a part, to a function's cell, its location's and its stack's.
    // Mixed deltas (an entry, a part given back) go to the cell's entry part,
    // which the estimator keeps out of the function's own rate.
    void charge(const Place& at, const RawSample& s, bool counted, Charge what);
    // The share of an entering sample's reference time that belongs to the
    // previous function: the expected number of its ticks among the lost
    // ones, given how often each of the two loses a tick.
    double lost_share(uint32_t previous, uint32_t function, uint64_t ref_ns) const;
    // The ticks a sample of this reference time stands for: 1, or with lost
    // ticks the nearest whole number of nominal ticks.
    uint64_t ticks_in(uint64_t ref_ns) const;
    // The rate at which `function` loses ticks, from its samples that did
    // not enter it (their mean length is the tick over 1 − rate).
    double drop_rate(uint32_t function) const;
    // Splits `share` of s off into the result (rounding counts at random,
    // so no side gains on average); s keeps the rest. Self-sampled events'
    // counts stay (their records, not time, say where they belong); their
    // live time is split like the rest.
    RawSample split_off(RawSample& s, double share);
    // An event's own record: its self-sampled events to the function.
    void add_record(const Place& at, const RawSample& s);
    // Self-sampled events charged to `function` since the last tick, for
    // the cell's sq; ambiguous ones (the stretch since the previous record
    // began in another function) to its entry_count, and to the entry_sq of
    // the function the stretch began in.
    void charge_sampled(FunctionCell& cell, uint32_t function, const RawSample& s, bool ambiguous_whole);
    // At a tick: Σ (events charged since the tick before)² into each cell.
    void close_window();

    struct TickGaps {
        uint64_t samples = 0;
        uint64_t ref_ns = 0;
    };

    uint32_t tid_;
    unsigned n_;
    uint64_t lost_tick_ns_;
    uint32_t seq_ = 0;
    uint64_t samples_ = 0;
    uint64_t ticks_ = 0;
    uint64_t start_ns_ = 0;
    uint64_t last_ns_ = 0;  // wall time of the last sample added
    bool started_ = false;
    // Since the last part: by function, and by source location.
    std::unordered_map<uint32_t, FunctionCell> functions_;
    std::unordered_map<uint32_t, LineCell> lines_;
    std::unordered_map<uint32_t, StackCell> stacks_;
    // Carry-forward state per event: its rate (count per ns of reference
    // time) when last counted; NaN = never counted.
    std::vector<double> last_rate_;
    std::optional<uint32_t> last_function_;  // of the thread's previous sample, across intervals
    uint32_t last_location_ = kNoLocation;
    uint32_t last_stack_ = kNoStack;
    std::unordered_map<uint32_t, TickGaps> gaps_;  // by function: its samples that did not enter it
    TickGaps all_gaps_;                            // the same over all functions
    std::mt19937_64 rounding_;
    uint32_t self_sampled_;
    // The function of the thread's previous record, tick or event.
    std::optional<uint32_t> last_record_function_;
    // By function: the self-sampled events charged to it since the last tick.
    std::unordered_map<uint32_t, std::vector<uint64_t>> window_;
    // By function: the self-sampled events of the open interval's ambiguous
    // stretches that began in it and were charged to another (entry_sq).
    std::unordered_map<uint32_t, std::vector<uint64_t>> charged_elsewhere_;
    // Records that came before the thread's first tick (add_record).
    struct Record {
        Place at;
        RawSample sample;
    };
    std::vector<Record> before_first_tick_;
};

}  // namespace sprof
