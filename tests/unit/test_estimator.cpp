#include <doctest/doctest.h>

#include "sprof/estimator.hpp"
#include "sprof/interval_builder.hpp"

using namespace sprof;

TEST_CASE("coverage estimator scales the count by time over coverage") {
    EventCell c{.count = 300, .coverage_ns = 10'000'000, .carry = NAN};
    CHECK(*estimate(c, 40'000'000, Estimator::coverage) == doctest::Approx(1200.0));
}

TEST_CASE("an event that was never live is unknown, not zero") {
    EventCell never{};
    CHECK_FALSE(estimate(never, 40'000'000, Estimator::coverage).has_value());
    CHECK_FALSE(estimate(never, 40'000'000, Estimator::carry).has_value());
    EventCell zero_but_live{.count = 0, .coverage_ns = 5, .carry = 0.0};
    CHECK(*estimate(zero_but_live, 10, Estimator::coverage) == 0.0);
}

TEST_CASE("interval builder: hand-computed coverage and carry-forward sums") {
    // Two events on one slot: event 0 live in samples 1 and 3, event 1 in 2 and 4.
    IntervalBuilder b(7, 2);
    auto sample = [](uint64_t wall, uint64_t ref, uint32_t live, uint64_t d0, uint64_t d1) {
        RawSample s;
        s.wall_ns = wall;
        s.ref_ns = ref;
        s.live_mask = live;
        s.delta[0] = d0;
        s.delta[1] = d1;
        return s;
    };
    b.add(1, sample(10, 10, 0b01, 100, 0));  // f1: e0=100; e1 never counted → carry unknown
    b.add(1, sample(20, 10, 0b10, 0, 7));    // f1: e1=7; e0 carried 100
    b.add(2, sample(30, 10, 0b01, 40, 0));   // f2: e0=40; e1 carried 7
    b.add(1, sample(40, 10, 0b10, 0, 9));    // f1: e1=9; e0 carried 40
    Interval iv = b.close(40);
    CHECK(iv.tid == 7);
    CHECK(iv.seq == 0);
    CHECK(iv.start_ns == 0);
    CHECK(iv.end_ns == 40);
    REQUIRE(iv.cells.size() == 2);
    const FunctionCell& f1 = iv.cells[0];
    const FunctionCell& f2 = iv.cells[1];
    CHECK(f1.function == 1);
    CHECK(f1.samples == 3);
    CHECK(f1.time_ns == 30);
    CHECK(f1.events[0].count == 100);
    CHECK(f1.events[0].coverage_ns == 10);
    CHECK(f1.events[0].carry == doctest::Approx(240.0));  // 100 + 100 + 40
    CHECK(f1.events[1].count == 16);
    CHECK(f1.events[1].coverage_ns == 20);
    CHECK(f1.events[1].carry == doctest::Approx(16.0));  // unknown + 7 + 9
    CHECK(*estimate(f1.events[0], f1.time_ns, Estimator::coverage) == doctest::Approx(300.0));
    CHECK(*estimate(f1.events[1], f1.time_ns, Estimator::coverage) == doctest::Approx(24.0));
    CHECK(f2.events[1].count == 0);
    CHECK(f2.events[1].coverage_ns == 0);
    CHECK_FALSE(estimate(f2.events[1], f2.time_ns, Estimator::coverage).has_value());
    CHECK(*estimate(f2.events[1], f2.time_ns, Estimator::carry) == doctest::Approx(7.0));

    b.add(2, sample(50, 10, 0b01, 5, 0));
    Interval next = b.close(50);
    CHECK(next.seq == 1);
    CHECK(next.start_ns == 40);
    CHECK(next.cells[0].events[1].carry == doctest::Approx(9.0));  // carry state survives the close
}
