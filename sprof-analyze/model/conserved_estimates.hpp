// Every report adds up to the run's measured total: the run's total of each
// event is estimated once, over the whole dataset, and the functions share
// it out (the flat report); every finer view — a function's source lines,
// time-line rows, phases, ranks, an export's places — gets a share of its
// function's, never an estimate of its own. Estimates of parts on their own
// would not add up: coverage's rate of a sum is not the sum of the parts'
// rates (a function whose event was live in a smaller share of its time is
// extrapolated further), and a function's rules (its time's error, its
// entries' boundary, estimator.hpp) apply to a function, not to a line.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "aggregate.hpp"

namespace sprof::analyze {

// One estimate per event (estimate_spreads' form); nullopt = unknown.
using Estimates = std::vector<std::optional<EstimateSpread>>;
// Their values alone.
std::vector<std::optional<double>> values_of(const Estimates& e);

// The flat report's estimates of each function (indexed like `per_function`):
// the whole every other report shares out. Per event, the run's total over
// the functions whose own estimate is known (the total's own estimate, all
// cells at once: the run's measured total when all are known) shared in
// proportion to their own estimates; each spread is the function's own,
// scaled to its share. Carry-forward's and self-sampled events' own
// estimates add up to the total already and are kept; a function whose own
// is unknown stays unknown.
std::vector<Estimates> function_estimates(const std::vector<Counts>& per_function, Estimator e);

// A part of a function (a line, a row, a rank …): whose, and its sums.
struct FunctionPart {
    uint32_t function = 0;
    const Counts* counts = nullptr;
};

// Each part's share of its function's estimate `whole[function]`, in the
// order of `parts`: the part's own estimate's share of the own estimates of
// the function's parts in `parts` (a part whose own is unknown, its event
// never live there: its time at the rate of its function's parts that are
// known). A function's parts thus add up to its whole. The spread is the
// part's own, scaled to its share; unknown where the part's own is.
std::vector<Estimates> split_estimates(std::span<const FunctionPart> parts, const std::vector<Estimates>& whole,
                                       Estimator e);

// Sums of parts' estimates per event: an unknown part is left out, as the
// flat report's functions with unknown estimates are of its total; unknown
// while no part is known.
using EventSums = std::vector<std::optional<double>>;
void add_estimates(EventSums& sums, const Estimates& part);
// The sums as estimates with the spread of `own` (the estimate of the
// parts' cells added up) scaled to them.
Estimates as_estimates(const EventSums& sums, const Estimates& own);

// Each group of sources' (a process, a rank) share of every function's flat
// estimate over the whole dataset, per group, indexed like
// Dataset::functions: unknown where the function did not run in the group.
// The groups' shares add up to the flat report; a view of one group (its
// subset) splits its share further.
std::vector<std::vector<Estimates>> group_estimates(const Dataset& d, std::span<const std::vector<uint32_t>> groups,
                                                    Estimator e);

// The time line's estimates: per row, its functions' shares and their sum.
struct RowEstimates {
    std::vector<FunctionCounts> functions;  // occurring_functions' order
    std::vector<Estimates> of_function;     // indexed like `functions`
    Counts total;                           // the row's cells added up
    Estimates estimates;                    // the functions' shares added up
};
// `whole`: what the rows share, per function (a group's share, of a subset);
// none: the dataset's own flat estimates.
std::vector<RowEstimates> row_estimates(const Dataset& d, std::span<const TimeRow> rows, Estimator e,
                                        const std::vector<Estimates>* whole = nullptr);

}  // namespace sprof::analyze
