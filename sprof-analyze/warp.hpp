// WARP load vectors: the estimated events of a piece of a run (the whole
// run, a function, a phase), in total and per second of reference time.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "aggregate.hpp"
#include "table.hpp"

namespace sprof::analyze {

struct LoadVector {
    double seconds = 0;
    uint64_t samples = 0;
    std::vector<std::optional<double>> events;  // estimated totals, like Dataset::events
};

LoadVector load_vector(const Counts& c, Estimator e);
Json to_json(const LoadVector& v, const std::vector<std::string>& event_names);

}  // namespace sprof::analyze
