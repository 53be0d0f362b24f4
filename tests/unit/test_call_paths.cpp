// Call paths (format 1.13): STACKS and STACK_CELLS through the writer and
// the reader, the interval builder's stack cells, and the analyses of
// model/call_paths against sums worked out by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "analyze_support.hpp"
#include "call_paths.hpp"
#include "profile_io_support.hpp"
#include "sprof/interval_builder.hpp"
#include "sprof/option_values.hpp"

using namespace sprof;
using namespace sprof::analyze;

namespace {

// sample_profile() with two stacks: _Z4workv alone, and _Z4workv called
// from the vdso function called from _Z4workv; interval 0's stack cells
// split its cell of _Z4workv.
Profile stacks_profile() {
    Profile p = test::sample_profile();
    p.stacks = {{{{0, 0x1010}}}, {{{0, 0x1010}, {1, 0x703}, {0, 0x1043}}}};
    Interval& a = p.intervals[0];
    a.stacks.push_back({0, 60, 60'000'000, {{60'000'000, 30'000'000, 6e5}, {8, 30'000'000, NAN}}});
    a.stacks.push_back({1, 30, 30'000'000, {{30'000'000, 15'000'000, 4e5}, {4, 15'000'000, NAN}}});
    return p;
}

}  // namespace

TEST_CASE("stacks and stack cells survive the file, in either byte order") {
    const Profile want = stacks_profile();
    for (ByteOrder order : {ByteOrder::native, ByteOrder::swapped}) {
        const Profile got = parse_profile(encode_profile(want, order), "stacks");
        test::check_equal(got, want);
        REQUIRE(got.stacks.size() == 2);
        for (size_t s = 0; s < 2; ++s) {
            REQUIRE(got.stacks[s].frames.size() == want.stacks[s].frames.size());
            for (size_t i = 0; i < want.stacks[s].frames.size(); ++i) {
                CHECK(got.stacks[s].frames[i].function == want.stacks[s].frames[i].function);
                CHECK(got.stacks[s].frames[i].address == want.stacks[s].frames[i].address);
            }
        }
        REQUIRE(got.intervals[0].stacks.size() == 2);
        for (size_t c = 0; c < 2; ++c) {
            CHECK(got.intervals[0].stacks[c].stack == want.intervals[0].stacks[c].stack);
            test::check_sums(got.intervals[0].stacks[c], want.intervals[0].stacks[c]);
        }
        CHECK(got.intervals[1].stacks.empty());
    }
}

TEST_CASE("the writer refuses stacks the reader would refuse") {
    Profile p = stacks_profile();
    p.stacks[1].frames[1].function = 3;  // no function 3
    CHECK_THROWS_WITH_AS(encode_profile(p), doctest::Contains("stack frame in unknown function id 3"), ProfileError);
    p = stacks_profile();
    p.stacks[0].frames.clear();
    CHECK_THROWS_WITH_AS(encode_profile(p), doctest::Contains("stack without frames"), ProfileError);
    p = stacks_profile();
    p.intervals[0].stacks[1].stack = 2;
    CHECK_THROWS_WITH_AS(encode_profile(p), doctest::Contains("unknown stack id 2"), ProfileError);
}

TEST_CASE("a stack cell gets the same sums as its function's cell") {
    IntervalBuilder b(7, 1);
    auto tick = [](uint64_t wall_ns, uint64_t ref_ns, uint64_t count) {
        RawSample s;
        s.wall_ns = wall_ns;
        s.ref_ns = ref_ns;
        s.live_mask = 1;
        s.delta[0] = count;
        return s;
    };
    b.add(0, tick(10, 10, 5), IntervalBuilder::kNoLocation, 0);
    b.add(0, tick(20, 10, 7), IntervalBuilder::kNoLocation, 1);
    b.add(1, tick(30, 10, 11), IntervalBuilder::kNoLocation, 1);
    b.add(1, tick(40, 10, 13));  // a tick without a chain: its function only
    const Interval iv = b.take_part();
    REQUIRE(iv.stacks.size() == 2);
    CHECK(iv.stacks[0].stack == 0);
    CHECK(iv.stacks[0].samples == 1);
    CHECK(iv.stacks[0].events[0].count == 5);
    CHECK(iv.stacks[1].samples == 2);
    CHECK(iv.stacks[1].time_ns == 20);
    CHECK(iv.stacks[1].events[0].count == 18);
    REQUIRE(iv.cells.size() == 2);
    CHECK(iv.cells[1].samples == 2);
    CHECK(iv.cells[1].events[0].count == 24);
}

namespace {

// main calls a (30 samples in leaf), b (10) and rec, which recurses twice
// before it calls leaf (20); main itself has 5 samples. A sample is 1 ms.
Dataset call_tree() {
    Profile p;
    p.header.collector = "sprof_lib";
    p.header.events = {{"task-clock", true}};
    p.objects = {{0, "/bin/app", ""}};
    const char* names[] = {"main", "a", "b", "leaf", "rec"};
    for (uint32_t f = 0; f < 5; ++f) p.functions.push_back({f, 0, 0x1000u * (f + 1), 0x1000u * (f + 1) + 0x100, names[f]});
    auto at = [](uint32_t f) { return CodeRef{f, 0x1000u * (f + 1) + 0x10}; };
    p.stacks = {{{at(3), at(1), at(0)}}, {{at(3), at(2), at(0)}}, {{at(3), at(4), at(4), at(4), at(0)}}, {{at(0)}}};
    p.threads = {{1, "app"}};
    Interval iv{.tid = 1, .seq = 0, .start_ns = 0, .end_ns = 65'000'000, .cells = {}, .lines = {}, .stacks = {}};
    auto cell = [](uint64_t n) { return StackCell{0, n, n * 1'000'000, {{n * 1'000'000, n * 1'000'000, NAN}}}; };
    uint32_t s = 0;
    for (uint64_t n : {30, 10, 20, 5}) {
        iv.stacks.push_back(cell(n));
        iv.stacks.back().stack = s++;
    }
    iv.cells = {{3, 60, 60'000'000, {{60'000'000, 60'000'000, NAN}}, 0}, {0, 5, 5'000'000, {{5'000'000, 5'000'000, NAN}}, 0}};
    p.intervals = {iv};
    std::vector<Source> sources;
    sources.push_back({"app.sprof", p});
    return merge_profiles(std::move(sources));
}

double pct_of(const Neighbours& n, const Dataset& d, const std::string& name) {
    for (const NeighbourRow& r : n.rows)
        if ((r.function == kNoFunction ? std::string("-") : d.functions[r.function].name) == name)
            return 100.0 * static_cast<double>(r.counts.time_ns) / static_cast<double>(n.inclusive.time_ns);
    return -1;
}

}  // namespace

TEST_CASE("callers, callees, inclusive sums and folded paths of a known call tree") {
    const Dataset d = call_tree();
    const auto stacks = stack_totals(d);
    const Neighbours callers = neighbours(d, stacks, "leaf", Neighbour::callers);
    CHECK(callers.inclusive.samples == 60);
    CHECK(pct_of(callers, d, "a") == doctest::Approx(50));
    CHECK(pct_of(callers, d, "b") == doctest::Approx(100.0 / 6));
    CHECK(pct_of(callers, d, "rec") == doctest::Approx(100.0 / 3));
    // rec's outermost call is main's: recursion counts a path once.
    const Neighbours rec = neighbours(d, stacks, "rec", Neighbour::callers);
    REQUIRE(rec.rows.size() == 1);
    CHECK(d.functions[rec.rows[0].function].name == "main");
    CHECK(rec.inclusive.samples == 20);
    const Neighbours callees = neighbours(d, stacks, "main", Neighbour::callees);
    CHECK(callees.inclusive.samples == 65);
    CHECK(pct_of(callees, d, "-") == doctest::Approx(100.0 * 5 / 65));  // [self]
    CHECK(pct_of(callees, d, "rec") == doctest::Approx(100.0 * 20 / 65));

    const auto inclusive = inclusive_totals(d, stacks);
    CHECK(inclusive[test::function_named(d, "rec")].samples == 20);
    CHECK(inclusive[test::function_named(d, "main")].time_ns == 65'000'000);
    CHECK(inclusive[test::function_named(d, "leaf")].samples == 60);

    uint64_t total = 0;
    bool deep = false;
    for (const FoldedPath& p : folded_paths(d, stacks)) {
        total += p.samples;
        CHECK(d.functions[p.functions.front()].name == "main");  // outermost first
        deep |= p.functions.size() == 5 && p.samples == 20;
    }
    CHECK(total == 65);
    CHECK(deep);

    CHECK_THROWS_WITH_AS(neighbours(d, stacks, "nothing", Neighbour::callers),
                         doctest::Contains("no function 'nothing'"), UsageError);
    Dataset flat = d;
    flat.stacks.clear();
    CHECK_THROWS_WITH_AS(require_call_paths(flat), doctest::Contains("-g fp"), UsageError);
}
