#include <doctest/doctest.h>

#include <bit>

#include "sprof/scheduler.hpp"

using sprof::LiveSetScheduler;

TEST_CASE("scheduler: 4 events on 2 slots alternate two disjoint sets") {
    LiveSetScheduler s(4, 2);
    CHECK(s.live() == 0b0011u);
    CHECK(s.next() == 0b1100u);
    s.advance();
    CHECK(s.live() == 0b1100u);
    s.advance();
    CHECK(s.live() == 0b0011u);
}

TEST_CASE("scheduler: every event gets an equal share when K does not divide N") {
    LiveSetScheduler s(5, 2);
    unsigned live_count[5] = {};
    for (int step = 0; step < 5 * 7; ++step) {
        CHECK(std::popcount(s.live()) == 2);
        for (unsigned e = 0; e < 5; ++e) live_count[e] += (s.live() >> e) & 1u;
        s.advance();
    }
    for (unsigned e = 0; e < 5; ++e) CHECK(live_count[e] == 14);  // 35 steps × 2 slots / 5
}

TEST_CASE("scheduler: slots 0 or above N means all events live") {
    CHECK(LiveSetScheduler(3, 0).live() == 0b111u);
    CHECK(LiveSetScheduler(3, 9).live() == 0b111u);
    LiveSetScheduler s(3, 3);
    s.advance();
    CHECK(s.live() == 0b111u);
}
