// The queue between a program thread and the writer: it grows instead of
// dropping, and hands every item over once, in order, also while both
// sides run at once.
#include <doctest/doctest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "sprof/spsc_ring.hpp"

using namespace sprof;

TEST_CASE("a queue of 8 takes 1000 items before anyone reads, and gives them back in order") {
    SpscRing<uint64_t> q(8);
    for (uint64_t i = 0; i < 1000; ++i) REQUIRE(q.push(i));
    std::vector<uint64_t> got;
    q.pop_all(got);
    REQUIRE(got.size() == 1000);
    for (uint64_t i = 0; i < 1000; ++i) CHECK(got[i] == i);
    q.pop_all(got);
    CHECK(got.size() == 1000);  // nothing twice
    CHECK(q.push(1000));        // the last segment goes on being used
    got.clear();
    q.pop_all(got);
    CHECK(got == std::vector<uint64_t>{1000});
}

TEST_CASE("half full tells of the segment being filled") {
    SpscRing<uint64_t> q(8);
    for (uint64_t i = 0; i < 3; ++i) q.push(i);
    CHECK_FALSE(q.half_full());
    q.push(3);
    CHECK(q.half_full());
    for (uint64_t i = 4; i < 9; ++i) q.push(i);  // the 9th opens a segment of 16, one item in it
    CHECK_FALSE(q.half_full());
}

TEST_CASE("a producer and a consumer at once: every item once, in order") {
    constexpr uint64_t kItems = 2'000'000;
    SpscRing<uint64_t> q(64);
    std::thread producer([&] {
        for (uint64_t i = 0; i < kItems; ++i) q.push(i);
    });
    std::vector<uint64_t> got;
    got.reserve(kItems);
    while (got.size() < kItems) q.pop_all(got);
    producer.join();
    q.pop_all(got);
    REQUIRE(got.size() == kItems);
    uint64_t out_of_order = 0;
    for (uint64_t i = 0; i < kItems; ++i) out_of_order += got[i] != i;
    CHECK(out_of_order == 0);
}
