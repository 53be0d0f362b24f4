#include <doctest/doctest.h>

#include <bit>
#include <cstdlib>
#include <set>
#include <vector>

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

TEST_CASE("scheduler: shuffled, every round visits each set once, in its own order") {
    // 10 events on 2 slots: 5 disjoint sets, each live once per round of 5.
    LiveSetScheduler s(10, 2, sprof::Rotation::shuffled, sprof::rotation_stream(7, 1234));
    REQUIRE(s.period() == 5);
    std::set<std::vector<uint32_t>> orders;
    for (int round = 0; round < 200; ++round) {
        std::vector<uint32_t> order;
        uint32_t seen = 0;
        for (unsigned step = 0; step < 5; ++step) {
            const uint32_t live = s.live();
            CHECK(std::popcount(live) == 2);
            CHECK((seen & live) == 0);  // no event twice in a round
            seen |= live;
            order.push_back(live);
            const uint32_t predicted = s.next();
            s.advance();
            CHECK(s.live() == predicted);  // next() knows the next round's first set too
        }
        CHECK(seen == 0x3ffu);
        orders.insert(order);
    }
    // 200 rounds drawn from 120 orders: far more than one order (round-robin's).
    CHECK(orders.size() > 60);
}

TEST_CASE("scheduler: shuffled, a rhythm of the rotation's period sees each event in every phase") {
    // A program whose rhythm is one round long: round-robin keeps event 0 live
    // at one phase of it for ever; shuffled spreads it evenly over the phases.
    auto phases_of_event0 = [](LiveSetScheduler s) {
        std::vector<unsigned> count(5);
        for (unsigned step = 0; step < 5000; ++step, s.advance())
            if (s.live() & 1u) ++count[step % 5];
        return count;
    };
    const auto fixed = phases_of_event0(LiveSetScheduler(10, 2));
    CHECK(fixed == std::vector<unsigned>{1000, 0, 0, 0, 0});
    const auto shuffled = phases_of_event0(LiveSetScheduler(10, 2, sprof::Rotation::shuffled, 99));
    // 1,000 visits, 200 expected per phase (sd ≈ 12.6): within 5 sd.
    for (unsigned c : shuffled) CHECK(std::abs(static_cast<int>(c) - 200) < 64);
}

TEST_CASE("scheduler: shuffled is a function of the stream (recorded seed, per-thread streams)") {
    auto first = [](uint64_t stream) {
        LiveSetScheduler s(4, 2, sprof::Rotation::shuffled, stream);
        std::vector<uint32_t> masks;
        for (int i = 0; i < 16; ++i, s.advance()) masks.push_back(s.live());
        return masks;
    };
    CHECK(first(sprof::rotation_stream(42, 100)) == first(sprof::rotation_stream(42, 100)));
    CHECK(first(sprof::rotation_stream(42, 100)) != first(sprof::rotation_stream(42, 101)));
    CHECK(first(sprof::rotation_stream(42, 100)) != first(sprof::rotation_stream(43, 100)));
    // The sequence kmod/tests/cmdev_tests.c expects of the module for the
    // same stream (6 events on 2 slots): the kernel's rotation is this one.
    LiveSetScheduler six(6, 2, sprof::Rotation::shuffled, 0x5eed);
    std::vector<uint32_t> masks;
    for (int i = 0; i < 12; ++i, six.advance()) masks.push_back(six.live());
    CHECK(masks == std::vector<uint32_t>{12, 48, 3, 12, 48, 3, 3, 12, 48, 12, 3, 48});
}
