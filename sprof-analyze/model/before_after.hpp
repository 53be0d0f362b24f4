// Two runs side by side (sprof --compare BEFORE AFTER): their rows matched
// by what names them, never by address (code moves between builds), and
// each value's change with what the two estimates' 95 % intervals allow.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sprof/estimator.hpp"

namespace sprof::analyze {

// One value of both runs. A side without the row (a function that did not
// run) has the value 0, exactly; an unknown estimate stays unknown.
struct Change {
    std::optional<double> before{}, after{};
    // 95 % intervals; unknown where an estimate's spread is (or no interval
    // applies: then no change is judged).
    std::optional<Bounds> before_bounds{}, after_bounds{};
};

// after − before; unknown when either is.
std::optional<double> delta(const Change& c);
// after / before; unknown when either is, or before is 0.
std::optional<double> ratio(const Change& c);
// The interval of the delta the two intervals allow: the lowest after less
// the highest before, up to the highest after less the lowest before. It
// holds the true delta whenever both intervals hold their values, so a
// delta is judged real only when 0 lies outside it (the intervals do not
// overlap: for equal widths about a 99.5 % test), which keeps a run's many
// unchanged functions from being marked by chance.
std::optional<Bounds> delta_bounds(const Change& c);
// Whether the change is beyond what the intervals allow; unknown without them.
std::optional<bool> significant(const Change& c);

// Rows of the two runs matched by key: each pair of indices into the
// `before` and `after` keys (nullopt: that side has no such row), every
// before row first in its order, then the after rows it lacks.
struct RowMatch {
    std::optional<size_t> before, after;
};
std::vector<RowMatch> match_rows(const std::vector<std::string>& before, const std::vector<std::string>& after);

// Which side a matched row is on: "both", "before" (only) or "after" (only).
const char* presence(const RowMatch& m);

}  // namespace sprof::analyze
