// The one estimator of a virtual counter's value, and the one confidence
// interval of it, shared by every tool.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "sprof/profile.hpp"

namespace sprof {

enum class Estimator { coverage, carry };

Estimator parse_estimator(const std::string& s);  // throws std::invalid_argument
const char* to_string(Estimator e);

// What an estimate is made of besides the event's own cell: the samples,
// reference time and entries of the cells it adds up, and whether they are
// one function's (then the function's own rate and the error of its sampled
// time apply) or several functions' (an interval's or a run's total: what
// one function's samples lose at a boundary another's gain, so the time is
// exact and every sample counts).
struct EstimateBasis {
    uint64_t samples = 0;
    uint64_t time_ns = 0;
    uint64_t entries = kUnknownEntries;
    bool one_function = false;
    // The nominal sampling interval when ticks that land in the kernel are
    // lost (a user-space-only profile: see lost_tick_ns()); 0 otherwise.
    uint64_t lost_tick_ns = 0;
    double tick_dither = 0;  // ProfileHeader::tick_dither: the spread of the tick period
};

// The nominal sampling interval of a profile whose ticks that land in the
// kernel are lost, else 0. A CPU-time tick may not sample the kernel when the
// user may count user space only: the kernel drops it, and its time goes to
// the next tick that lands in user space.
uint64_t lost_tick_ns(const ProfileHeader& h);

// Bit e set for event e that sampled itself (ProfileEvent::self_sampled).
uint32_t self_sampled_events(const ProfileHeader& h);

// Turns the cells of one thread's interval (or of a profile folded into one)
// for the events that sampled themselves (bit e of `self_sampled`) into
// estimates: each count divided by φ, the share of the interval's time the
// event was live (its cells' coverage over their time; 1 when it was never
// rotated out), since which ticks' stretches were live has nothing to do with
// where the program was; sq becomes the variance of that extrapolation,
// (1 − φ)/φ² · Σ (events between two ticks)², and entry_sq that of where
// the ambiguous stretches it ended lay, entry_sq/(3φ²) (those it took,
// entry_count/φ, add (entry_count/φ)²/3 in estimate_spread; accumulate adds
// the entry_sq of such cells by their roots: a function's stretches are all
// its own or all not, alike in every call). Marks the cells self_sampled. Call
// once per interval, before its cells are added to any other.
void extrapolate_self_sampled(Interval& iv, uint32_t self_sampled);

// The estimated count of one event over the basis' reference time.
// coverage: rate × time, the rate being count / coverage (perf's
// enabled/running scaling, per function and interval), so that the
// functions' estimates add up to the run's. An entry's delta is partly the
// function before's: its interval says so (estimate_spread). carry: the
// carry-forward sum. A self-sampled cell (extrapolate_self_sampled): its
// count, with either estimator.
// nullopt = unknown (never live, or never counted yet) — never reported as 0.
std::optional<double> estimate(const EventCell& c, const EstimateBasis& b, Estimator e);

// ---- Confidence (95 %) ----
//
// An estimate = rate × time has two independent errors:
// * its own: which samples had the event live. The live sets are a random
//   design (a shuffled rotation, docs/FORMAT.md), so the coverage estimate is
//   a ratio estimator over a random sample of the function's samples, its
//   variance (T/X)² (1 − X/T) x̄ S m/(m−1) from the spread of the deltas
//   (S = Σ d²/x − Y²/X over the m = X/x̄ live samples used, x̄ = T/n the mean
//   sampling interval), and never below what one unseen event allows,
//   (T − X) T / X². Carry-forward has no design-based variance: its own
//   error is the coverage estimate's plus the distance between the two
//   estimates (an estimate of carry-forward's bias).
// * the time's: which samples landed in the function. A sampling interval
//   is charged to the function it ended in, so a visit of length L gets
//   s·(U₁ − U₂) more or less than L, U₁ and U₂ where its two ends fall in
//   their intervals: variance x̄²/6 per visit when those are uniform and
//   independent. With ticks at a dithered period (ProfileHeader::
//   tick_dither d) they are, and the variance is that of the difference of
//   two independent ages of the tick renewal process, 2·Var(A) =
//   x̄²(2(1 + d²)/3 − (1 + d²/3)²/2): 1/6 at d = 0, 0.187 at d = 0.25.
//   With a fixed period a program paced in multiples of it meets the
//   ticks at one phase at every visit, and the errors add up instead
//   (TickDither). A visit shorter than an interval is sampled or not:
//   variance up to x̄² each. So c·x̄² per entry, c = max(2·Var(A), k/n)
//   (k/n nears 1 as visits shorten). Shared by every event of the same
//   function; zero for several functions.
//   Where ticks in the kernel are lost, the time since the last kept tick
//   goes to the next: at each end of a visit a whole number of lost ticks
//   crosses the boundary, geometric with the share q of ticks lost around
//   the function, q = 1 − x/x̄ from the nominal interval x. Its second
//   moment x²·q(1+q)/(1−q)² per end adds 2·q(1+q)·x̄² per entry — the
//   collector gives the previous function its expected share of them
//   (IntervalBuilder), so this bounds the spread around that (selfcount
//   as nobody: 10 ms ticks moved across 10–20 % of the boundaries, 2–4 % of
//   a 0.5 s function over 10 visits). Not covered: a program whose rhythm
//   holds the ticks at a kernel entry near a function's end loses a tick
//   there at every visit (seen once in 16 runs: −65 ms of 1 s in 10 visits).
// * the boundaries': an entry's delta lies partly before the function's
//   boundary; where, the counts cannot tell. The estimate keeps it all (the run's events add
//   up); its own error adds each entry's delta as uniform between all and
//   nothing, twice (the function's own events at its exits went to the next
//   function's entry in the same way): (T/X)² · x̄ · entry_sq · 2/3.
// * A self-sampled event's: only its extrapolation and the ambiguous
//   stretches (extrapolate_self_sampled); its records say where its events
//   happened, so the function's sampled time plays no part.
struct EstimateSpread {
    double value = 0;
    std::optional<double> sd_own;  // standard deviation of its own error, in counts
    bool scales_with_time = true;  // false: the time's error does not apply (self-sampled)
};
std::optional<EstimateSpread> estimate_spread(const EventCell& c, const EstimateBasis& b, Estimator e);
// 2·Var(A)/x̄² above: the variance of one visit's sampled time in
// intervals², for ticks dithered by d.
double visit_time_variance(double tick_dither);
// The relative standard deviation of the basis' time; nullopt = unknown.
std::optional<double> time_relative_sd(const EstimateBasis& b);

constexpr double kZ95 = 1.959963984540054;  // two-sided 95 % normal quantile

struct Bounds {
    double low = 0, high = 0;
};
// value ± z·sd, sd² = sd_own² + (value × time_rel_sd)² (the time's part only
// where s.scales_with_time); counts never below 0.
std::optional<Bounds> confidence_bounds(const EstimateSpread& s, std::optional<double> time_rel_sd);
// The 95 % interval of estimate(c, b, e); nullopt = unknown.
std::optional<Bounds> confidence_interval(const EventCell& c, const EstimateBasis& b, Estimator e);

// The 95 % interval of a value derived from estimates of one basis (a
// rate), by the delta method over the estimates' independent errors: each
// input's own (sd; 0 when exact) and the shared error of the time, which
// scales every input marked scales_with_time by (1 ± time_rel_sd) at once —
// so a rate per unit of time keeps none of it. Central differences of one
// standard deviation. `used`: the inputs g reads; nullopt when one of them
// or its sd is unknown, or g is undefined at a difference.
struct DerivedInput {
    std::optional<double> value;
    std::optional<double> sd;
    bool scales_with_time = true;
};
using DerivedValue = std::function<std::optional<double>(std::span<const std::optional<double>>)>;
std::optional<Bounds> derived_interval(const DerivedValue& g, std::span<const DerivedInput> inputs,
                                       std::span<const size_t> used, std::optional<double> time_rel_sd);

// Adds cell b into a (merging intervals, threads, profiles).
void accumulate(EventCell& a, const EventCell& b);
// Takes cell b (a part of a) out of a again: counts and coverage never
// below 0; a NaN carry in b took nothing; an unknown spread in b leaves a's
// unknown.
void withdraw(EventCell& a, const EventCell& b);
// Adds entry counts, unknown staying unknown.
uint64_t add_entries(uint64_t a, uint64_t b);

// Sums of samples, reference time and events: a FunctionCell, a LineCell.
template <class Cell>
concept CellSums = requires(Cell& c) {
    c.samples;
    c.time_ns;
    c.events;
};

// A cell's entries; unknown for a cell that does not count them (a LineCell).
template <CellSums Cell>
uint64_t entries_of(const Cell& c) {
    if constexpr (requires { c.entries; }) return c.entries;
    else return kUnknownEntries;
}

// Adds one cell's sums into another's: parts of one interval, intervals
// folded into one, a source location's cell into its function's. Entries
// add up where the receiving cell counts them (one without them makes the
// sum unknown).
template <CellSums Into, CellSums From>
void accumulate(Into& a, const From& b) {
    a.samples += b.samples;
    a.time_ns += b.time_ns;
    if constexpr (requires { a.entries; }) a.entries = add_entries(a.entries, entries_of(b));
    for (size_t e = 0; e < a.events.size() && e < b.events.size(); ++e) accumulate(a.events[e], b.events[e]);
}

// Takes a part's sums out of a cell (what accumulate added), never below 0.
// Entries are known after only when the part's are and within the rest.
template <CellSums Into, CellSums From>
void withdraw(Into& a, const From& b) {
    a.samples -= std::min(a.samples, b.samples);
    a.time_ns -= std::min(a.time_ns, b.time_ns);
    if constexpr (requires { a.entries; }) {
        const uint64_t taken = entries_of(b);
        a.entries = a.entries == kUnknownEntries || taken == kUnknownEntries ? kUnknownEntries
                    : std::min(a.entries - std::min(a.entries, taken), a.samples);
    }
    for (size_t e = 0; e < a.events.size() && e < b.events.size(); ++e) withdraw(a.events[e], b.events[e]);
}

}  // namespace sprof
