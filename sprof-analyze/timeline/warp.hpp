// WARP load vectors: the estimated events of a piece of a run (the whole
// run, a function, a phase), in total and per second of reference time.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "aggregate.hpp"
#include "json.hpp"

namespace sprof::analyze {

struct LoadVector {
    double seconds = 0;
    uint64_t samples = 0;
    std::vector<std::optional<double>> events;  // estimated totals, like Dataset::events
    std::vector<std::optional<Bounds>> bounds;  // their 95 % intervals (--ci), like events
    // The same without the error of the time: a rate per second of that
    // same time keeps none of it (divided by `seconds` it is per_s's).
    std::vector<std::optional<Bounds>> rate_bounds;
};

LoadVector load_vector(const Counts& c, Estimator e);
// Each event as {total, per_s}, with `ci` also {total,per_s}_{low,high}.
Json to_json(const LoadVector& v, const std::vector<std::string>& event_names, bool ci = false);

}  // namespace sprof::analyze
