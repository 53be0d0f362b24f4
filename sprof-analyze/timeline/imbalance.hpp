// Load imbalance of a parallel job: the profiles of its ranks side by side.
// Per function, time and every event per rank, and how far the heaviest
// rank is above the mean (max/mean: 1 = balanced; the job waits for the
// slowest rank). Value in, value out; printing is report_imbalance.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aggregate.hpp"
#include "conserved_estimates.hpp"

namespace sprof::analyze {

struct ImbalanceParams {
    Estimator estimator = Estimator::coverage;
};

// One rank: the sources (profiles) that belong to it — its process, and the
// images and children it started — and whether it is complete.
struct RankSummary {
    int rank = 0;
    std::string host;
    std::vector<uint32_t> sources;  // indices into Dataset::sources
    bool complete = true;           // every profile of the rank ended without a signal
    Counts total;
    Estimates estimates;  // its functions' shares of their flat estimates, added up
};

// One value per rank (indexed like Imbalance::ranks); unknown = nullopt.
struct Spread {
    std::vector<std::optional<double>> per_rank;
    double mean = 0, max = 0;
    double max_over_mean = 0;  // 0 when the mean is 0 or nothing is known
    int slowest_rank = -1;     // the rank holding the max; -1 when unknown
};

struct ImbalanceRow {
    std::optional<uint32_t> function;  // index into Dataset::functions; none = the [total] row
    Spread time_s;
    std::vector<Spread> events;        // indexed like Dataset::events
};

struct Imbalance {
    std::vector<RankSummary> ranks;    // ascending rank
    int ranks_expected = 0;            // the job's size as its launcher said (0 = unknown)
    std::vector<int> missing_ranks;    // ranks of the job with no profile at all
    std::vector<ImbalanceRow> rows;    // [total] first, then functions by their max time
};

// Groups the dataset's sources by rank (a profile outside a job counts as a
// rank of its own, numbered by its position) and compares the ranks.
Imbalance imbalance(const Dataset& d, const ImbalanceParams& params);

}  // namespace sprof::analyze
