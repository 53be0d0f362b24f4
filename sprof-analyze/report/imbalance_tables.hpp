// Views of an Imbalance: the ranks' totals and the per-function spread, as
// tables (text, CSV, JSON through Table).
#pragma once
#include <string>
#include <vector>

#include "imbalance.hpp"
#include "table.hpp"

namespace sprof::analyze {

// One row per rank: rank, host, profiles, complete, samples, time and every
// event (with `ci`, each followed by EVENT_low and EVENT_high).
Table rank_table(const Dataset& d, const Imbalance& im, bool ci);

// One row per function, [total] first: function, object, mean_s, max_s,
// max_over_mean, slowest_rank, then per event EVENT_max_over_mean and
// EVENT_slowest_rank, then each rank's time (rank<R>_s).
Table spread_table(const Dataset& d, const Imbalance& im, size_t top);

// What a reader of the job must know first: ranks with no profile, ranks
// whose profile did not end (killed). One line each; empty when complete.
std::vector<std::string> incomplete_ranks(const Dataset& d, const Imbalance& im);

}  // namespace sprof::analyze
