// The one estimator of a virtual counter's value, shared by every tool.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "sprof/profile.hpp"

namespace sprof {

enum class Estimator { coverage, carry };

Estimator parse_estimator(const std::string& s);  // throws std::invalid_argument
const char* to_string(Estimator e);

// The estimated count of one event over `time_ns` of reference time, from a
// cell. coverage: count × time / coverage (perf's enabled/running scaling, per
// function and interval). carry: the carry-forward sum. nullopt = unknown
// (never live, or never counted yet) — never reported as 0.
std::optional<double> estimate(const EventCell& c, uint64_t time_ns, Estimator e);

// Adds cell b into a (merging intervals, threads, profiles).
void accumulate(EventCell& a, const EventCell& b);
// Takes cell b (a part of a) out of a again: counts and coverage never
// below 0; a NaN carry in b took nothing.
void withdraw(EventCell& a, const EventCell& b);

// Sums of samples, reference time and events: a FunctionCell, a LineCell.
template <class Cell>
concept CellSums = requires(Cell& c) {
    c.samples;
    c.time_ns;
    c.events;
};

// Adds one cell's sums into another's: parts of one interval, intervals
// folded into one, a source location's cell into its function's.
template <CellSums Into, CellSums From>
void accumulate(Into& a, const From& b) {
    a.samples += b.samples;
    a.time_ns += b.time_ns;
    for (size_t e = 0; e < a.events.size() && e < b.events.size(); ++e) accumulate(a.events[e], b.events[e]);
}

// Takes a part's sums out of a cell (what accumulate added), never below 0.
template <CellSums Into, CellSums From>
void withdraw(Into& a, const From& b) {
    a.samples -= std::min(a.samples, b.samples);
    a.time_ns -= std::min(a.time_ns, b.time_ns);
    for (size_t e = 0; e < a.events.size() && e < b.events.size(); ++e) withdraw(a.events[e], b.events[e]);
}

}  // namespace sprof
