// How the Gecko export lays an interval's samples out on a time line:
// against sequences worked out by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "sample_layout.hpp"

using namespace sprof::analyze;

TEST_CASE("interleave: each item spread evenly, in proportion") {
    // 3:1 — item 0 at 1/6, 1/2, 5/6; item 1 at 1/2 (after item 0's tie).
    CHECK(interleave(std::vector<uint64_t>{3, 1}) == std::vector<uint32_t>{0, 0, 1, 0});
    // 2:2 — both at 1/4 and 3/4.
    CHECK(interleave(std::vector<uint64_t>{2, 2}) == std::vector<uint32_t>{0, 1, 0, 1});
    // 1:0:2 — item 2 at 1/4 and 3/4, item 0 at 1/2; item 1 has none.
    CHECK(interleave(std::vector<uint64_t>{1, 0, 2}) == std::vector<uint32_t>{2, 0, 2});
    CHECK(interleave(std::vector<uint64_t>{}).empty());

    // Any stretch of the sequence holds the shares within one sample of each
    // item: the first half of 75:25 has 37 or 38 of item 0.
    const auto order = interleave(std::vector<uint64_t>{75, 25});
    REQUIRE(order.size() == 100);
    const auto first_half = std::count(order.begin(), order.begin() + 50, 0u);
    CHECK(first_half >= 37);
    CHECK(first_half <= 38);
}

TEST_CASE("thin: at most the limit, shares kept by largest remainder") {
    CHECK(thin(std::vector<uint64_t>{3, 1}, 10) == std::vector<uint64_t>{3, 1});  // under the limit: as is
    CHECK(thin(std::vector<uint64_t>{600, 300, 100}, 10) == std::vector<uint64_t>{6, 3, 1});
    // 5/3 = 1.67, 1.67, 1.67 → 1 each, then the 2 left to the first two (ties: lower index).
    CHECK(thin(std::vector<uint64_t>{5, 5, 5}, 5) == std::vector<uint64_t>{2, 2, 1});
    // A hostile count near 2^64 does not overflow the sum.
    const auto huge = thin(std::vector<uint64_t>{UINT64_MAX, UINT64_MAX / 3}, 4);
    CHECK(std::accumulate(huge.begin(), huge.end(), uint64_t{0}) == 4);
    CHECK(huge == std::vector<uint64_t>{3, 1});
}
