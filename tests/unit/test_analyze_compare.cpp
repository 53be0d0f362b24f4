// sprof --compare: the run before and after as the command line gives them,
// rows matched by key, and the delta's interval and significance, on
// hand-computed cases.
#include <doctest/doctest.h>

#include "before_after.hpp"
#include "cli.hpp"

using namespace sprof;
using namespace sprof::analyze;

TEST_CASE("compare: --compare names the run before, the profiles are the run after") {
    const Options o = parse_command_line({"--compare", "b1.sprof", "--lines", "--compare", "b2.sprof", "a1.sprof",
                                          "a2.sprof"})
                          .options;
    CHECK(o.compare_before == std::vector<std::string>{"b1.sprof", "b2.sprof"});
    CHECK(o.profiles == std::vector<std::string>{"a1.sprof", "a2.sprof"});
    CHECK(o.report == "lines");
    CHECK_THROWS_WITH_AS(parse_command_line({"--compare", "b.sprof"}),
                         "--compare BEFORE needs the profiles of the run after too: sprof --compare BEFORE AFTER",
                         UsageError);
    CHECK_THROWS_WITH_AS(parse_command_line({"--phases", "--compare", "b.sprof", "a.sprof"}),
                         "--compare needs the flat profile, --lines, --mrc or --misses", UsageError);
}

TEST_CASE("compare: rows matched by key, each side's own first, then the after's new ones") {
    const auto m = match_rows({"main", "gone", "loop"}, {"loop", "new", "main"});
    REQUIRE(m.size() == 4);
    CHECK((m[0].before == 0u && m[0].after == 2u));
    CHECK((m[1].before == 1u && !m[1].after));
    CHECK((m[2].before == 2u && m[2].after == 0u));
    CHECK((!m[3].before && m[3].after == 1u));
    CHECK(std::string(presence(m[0])) == "both");
    CHECK(std::string(presence(m[1])) == "before");
    CHECK(std::string(presence(m[3])) == "after");
}

TEST_CASE("compare: a change is real only where the two intervals do not overlap") {
    // 100 [90, 110] → 130 [118, 142]: the delta 30 lies in [118 − 110, 142 − 90] = [8, 52].
    const Change up{100.0, 130.0, Bounds{90, 110}, Bounds{118, 142}};
    CHECK(*delta(up) == 30);
    CHECK(*ratio(up) == doctest::Approx(1.3));
    CHECK(delta_bounds(up)->low == 8);
    CHECK(delta_bounds(up)->high == 52);
    CHECK(*significant(up));
    // 100 [90, 110] → 115 [105, 125]: overlapping, [−5, 35] holds 0 — noise,
    // although a test of the difference alone (±√(10² + 10²) = ±14.1 < 15) would mark it.
    const Change noise{100.0, 115.0, Bounds{90, 110}, Bounds{105, 125}};
    CHECK_FALSE(*significant(noise));
    // A fall is as real as a rise.
    CHECK(*significant(Change{100.0, 50.0, Bounds{90, 110}, Bounds{40, 60}}));
    // A function that did not run before: 0 exactly.
    CHECK(*significant(Change{0.0, 20.0, Bounds{0, 0}, Bounds{10, 30}}));
    // Unknown where a side or its interval is; no ratio from 0.
    CHECK_FALSE(delta(Change{std::nullopt, 5.0}).has_value());
    CHECK_FALSE(ratio(Change{0.0, 5.0}).has_value());
    CHECK_FALSE(significant(Change{1.0, 5.0, Bounds{0, 2}, std::nullopt}).has_value());
}
