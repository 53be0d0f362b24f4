// Loading profiles: folding each profile's intervals into one (for reports
// that need no time line) changes no per-function sum.
#include <doctest/doctest.h>

#include <cmath>

#include "aggregate.hpp"
#include "synthetic.hpp"

using namespace sprof;
using namespace sprof::analyze;

TEST_CASE("folded intervals give the same per-function sums as the time line") {
    synthetic::Spec spec = synthetic::phases_spec();
    std::vector<Source> plain, folded;
    for (uint32_t seed : {1u, 2u}) {
        spec.seed = seed;
        plain.push_back({"p" + std::to_string(seed), synthetic::build(spec)});
        folded.push_back(plain.back());
        fold_intervals(folded.back());
    }
    REQUIRE(folded[0].profile.intervals.size() == 1);
    Dataset a = merge_profiles(std::move(plain)), b = merge_profiles(std::move(folded));
    REQUIRE(a.functions.size() == b.functions.size());
    CHECK(b.sources[0].n_intervals == a.sources[0].n_intervals);
    CHECK(b.sources[1].samples == a.sources[1].samples);
    auto fa = by_function(a, all_intervals(a)), fb = by_function(b, all_intervals(b));
    for (size_t f = 0; f < fa.size(); ++f) {
        CAPTURE(a.functions[f].name);
        CHECK(fb[f].samples == fa[f].samples);
        CHECK(fb[f].time_ns == fa[f].time_ns);
        for (Estimator e : {Estimator::coverage, Estimator::carry}) {
            auto ea = estimate_events(fa[f], e), eb = estimate_events(fb[f], e);
            for (size_t k = 0; k < ea.size(); ++k) {
                REQUIRE(ea[k].has_value() == eb[k].has_value());
                if (ea[k]) CHECK(*eb[k] == doctest::Approx(*ea[k]));
            }
        }
    }
}
