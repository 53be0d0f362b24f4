// The one estimator of a virtual counter's value, shared by every tool.
#pragma once
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
// Adds one function's cell into another of the same function: samples,
// time and each event (parts of one interval, intervals folded into one).
void accumulate(FunctionCell& a, const FunctionCell& b);

}  // namespace sprof
