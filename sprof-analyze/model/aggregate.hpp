// The one aggregation layer shared by every report: sums of cells over
// functions, intervals and threads, and the estimates derived from them.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "dataset.hpp"
#include "sprof/estimator.hpp"

namespace sprof::analyze {

// Nanoseconds as seconds (divided, so 600 ms prints as 0.6, not 0.6000000000000001).
inline double seconds(uint64_t ns) { return static_cast<double>(ns) / 1e9; }

// The nominal tick of the profile interval `interval` comes from when the
// kernel dropped its ticks in kernel mode (sprof::lost_tick_ns), else 0.
uint64_t lost_tick_ns(const Dataset& d, uint32_t interval);

// Sums of samples, reference time, entries and per-event cells, of one
// function or of several (see EstimateBasis).
struct Counts {
    uint64_t samples = 0;
    uint64_t time_ns = 0;
    uint64_t entries = 0;
    std::vector<EventCell> events;
    uint64_t lost_tick_ns = 0;  // EstimateBasis::lost_tick_ns: the largest of the profiles added
    double tick_dither = 0;     // EstimateBasis::tick_dither: the largest of the profiles added
    // The function whose cells these are; kSeveral once several functions'
    // were added (a total), kNone while empty.
    static constexpr uint32_t kNone = UINT32_MAX, kSeveral = UINT32_MAX - 1;
    uint32_t function = kNone;

    explicit Counts(size_t n_events = 0) : events(n_events) {}
    void add(const FunctionCell& c);
    // Interval i's cell, with what its profile knows of its ticks.
    void add(const Dataset& d, uint32_t i, const FunctionCell& c);
    void add(const LineCell& c, uint32_t of_function);
    void add(const Counts& c);
    double seconds() const { return analyze::seconds(time_ns); }
    EstimateBasis basis() const;
};

// The estimated count of every event over the counts' reference time;
// nullopt = unknown.
std::vector<std::optional<double>> estimate_events(const Counts& c, Estimator e);
// The same with what each estimate's confidence interval is made of.
std::vector<std::optional<EstimateSpread>> estimate_spreads(const Counts& c, Estimator e);

// One row of a time line: the intervals of all threads and sources that have
// the same sequence number (row k merges every thread's k-th interval).
struct TimeRow {
    uint32_t seq = 0;
    uint64_t start_ns = 0, end_ns = 0;  // the span of its intervals
    std::vector<uint32_t> intervals;    // indices into Dataset::intervals
};
std::vector<TimeRow> time_rows(const Dataset& d);

// Per-function sums (indexed like Dataset::functions) over the given intervals.
std::vector<Counts> by_function(const Dataset& d, std::span<const uint32_t> intervals);
// Per-function sums over the given time-line rows.
std::vector<Counts> by_function(const Dataset& d, std::span<const TimeRow> rows);
// Everything in the given intervals.
Counts total(const Dataset& d, std::span<const uint32_t> intervals);
Counts total(const Dataset& d, std::span<const TimeRow> rows);
Counts total(const std::vector<Counts>& per_function, size_t n_events);

// Whether a function's counts belong in a report: it was ticked in, it holds
// time (a tick split at a call boundary gives the function it left a part of
// the tick, not a sample), or its own events' records found it there (a
// function that faults and is never ticked in still has its faults). Every
// report and export asks this, so they all list the same functions.
bool occurs(const Counts& c);

// Function indices that occur, most reference time first (ties: by name).
std::vector<uint32_t> ranked_functions(const Dataset& d, const std::vector<Counts>& per_function);

// The functions that occur in a few intervals (a time-line row) with their
// sums, most reference time first (ties: by name). Cheaper than by_function
// when most functions do not occur.
struct FunctionCounts {
    uint32_t function;
    Counts counts;
};
std::vector<FunctionCounts> occurring_functions(const Dataset& d, std::span<const uint32_t> intervals);

std::vector<uint32_t> all_intervals(const Dataset& d);

}  // namespace sprof::analyze
