// Program phases over the time-line rows.
//  * automatic: change points of the per-row vectors (function time shares,
//    as asin √share where they are shares of samples, plus normalised
//    rates), found by penalised optimal segmentation (PELT);
//    a segment shorter than the minimum phase length joins a neighbour;
//    phases whose mean vectors are close get the same label (A B A B), and
//    neighbours with one label are one phase.
//    A row weighs as much of a full interval's samples (and time) as it holds: the last
//    interval of a run, cut short by the exit, is a few samples and as noisy
//    as few; so is a wait whose ticks the kernel dropped (user space only).
//    One row unlike its neighbours is no phase of its own.
//  * func:NAME: maximal runs of rows in which NAME keeps its running state
//    (running = its share of the row's time is above a threshold).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "aggregate.hpp"
#include "rates.hpp"

namespace sprof::analyze {

struct Phase {
    size_t first = 0, last = 0;  // rows [first, last)
    std::string label;
};

// Row-by-dimension feature matrix, stored row-major, and each row's weight.
struct Features {
    size_t rows = 0, dims = 0;
    std::vector<double> values;
    // Per row, how many full intervals' samples it holds (a row of the
    // time line: at most 1; a block of rows: their sum): a row's sampled
    // shares and rates have a noise variance of about (a full row's) / weight.
    // Empty: every row weighs 1.
    std::vector<double> weights;
    // Whether the function shares are shares of samples (asin √p, no ticks
    // dropped by the kernel: see row_features), so that a segment is
    // compared with a kind of phase by its own mean (auto_phases).
    bool sampled_shares = false;
    // The first `share_dims` dimensions' function shares as fractions of the
    // row's time, before any transform (rows × share_dims): how much time
    // two kinds of phase move between functions is told on these (see
    // auto_phases). None: every dimension is compared as it is.
    size_t share_dims = 0;
    std::vector<double> shares;
    double at(size_t r, size_t d) const { return values[r * dims + d]; }
    double share(size_t r, size_t k) const { return shares[r * share_dims + k]; }
    double weight(size_t r) const { return weights.empty() ? 1.0 : weights[r]; }
};

// Segment boundaries (row indices where a new segment starts, excluding 0)
// minimising the within-segment weighted sum of squares + `penalty` per
// segment.
std::vector<size_t> segment(const Features& x, double penalty);

// Automatic phases of a feature matrix (the parameters derived from its noise).
std::vector<Phase> auto_phases(const Features& x, size_t min_length);

// The feature vectors of the time-line rows.
Features row_features(const Dataset& d, const std::vector<TimeRow>& rows, const RateSet& rates,
                      Estimator e);

// Phases by running state of a function: `running[r]` per row.
std::vector<Phase> state_phases(const std::vector<bool>& running);

// Label of the k-th distinct phase: A … Z, AA, AB …
std::string phase_label(size_t k);

// What find_phases needs to know.
struct PhaseParams {
    std::string function;                       // func:NAME phases of this function; empty = automatic
    double threshold = 0.1;                     // func:NAME: share of a row's time that counts as running
    size_t min_length = 3;                      // automatic: the shortest phase, in rows
    Estimator estimator = Estimator::coverage;  // automatic: for the rates in the row vectors
};

// Automatic phases, or func:NAME phases when p.function is given.
std::vector<Phase> find_phases(const Dataset& d, const std::vector<TimeRow>& rows, const RateSet& rates,
                               const PhaseParams& p);

}  // namespace sprof::analyze
