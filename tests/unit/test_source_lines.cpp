// The collector's source lines: this very file's lines and inlined helper
// as the resolver finds them, and the interval builder's line cells against
// its function cells.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>

#include "sprof/demangle.hpp"
#include "sprof/estimator.hpp"
#include "sprof/interval_builder.hpp"
#include "sprof/source_lines.hpp"

using namespace sprof;

// The code whose lines the resolver must find: a loop calling a helper that
// is always inlined. The line constants count from the line they are on.
constexpr uint32_t kHelperLine = __LINE__ + 2;
static inline __attribute__((always_inline)) unsigned lines_helper(unsigned x) {
    return (x * 2654435761u) ^ (x >> 7);
}

constexpr uint32_t kTargetFirst = __LINE__ + 1;
extern "C" __attribute__((noinline)) unsigned sprof_lines_target(unsigned n) {
    unsigned acc = 0;
    for (unsigned i = 0; i < n; ++i)
        acc += lines_helper(i + acc);
    return acc;
}
constexpr uint32_t kCallLine = kTargetFirst + 3;
constexpr uint32_t kTargetLast = kTargetFirst + 5;

TEST_CASE("source lines: the interval builder's line cells add up to its function cells") {
    // Three functions, two locations each; events rotate on one slot of three.
    IntervalBuilder b(1, 3);
    std::mt19937 rng(7);
    std::uniform_int_distribution<uint32_t> location(0, 5);
    std::uniform_int_distribution<uint64_t> delta(0, 1000), ref(1'000'000, 2'000'000);
    uint64_t wall = 0;
    for (unsigned i = 0; i < 500; ++i) {
        RawSample s;
        s.ref_ns = ref(rng);
        s.wall_ns = wall += s.ref_ns;
        s.live_mask = 1u << (i % 3);
        s.delta[i % 3] = delta(rng);
        if (i % 7 == 0) {  // the live set changed inside this interval
            s.partial_mask = s.live_mask;
            s.cover_ns[i % 3] = s.ref_ns / 3;
        }
        const uint32_t l = location(rng);
        b.add(l / 2, s, l);
    }
    const Interval iv = b.take_part();
    REQUIRE(iv.cells.size() == 3);
    REQUIRE(iv.lines.size() == 6);
    for (const FunctionCell& f : iv.cells) {
        LineCell sum{0, 0, 0, std::vector<EventCell>(3)};
        for (const LineCell& l : iv.lines)
            if (l.location / 2 == f.function) accumulate(sum, l);
        CHECK(sum.samples == f.samples);
        CHECK(sum.time_ns == f.time_ns);
        for (unsigned e = 0; e < 3; ++e) {
            CHECK(sum.events[e].count == f.events[e].count);
            CHECK(sum.events[e].coverage_ns == f.events[e].coverage_ns);
            CHECK(sum.events[e].carry == doctest::Approx(f.events[e].carry).epsilon(1e-12));
        }
    }
}

TEST_CASE("source lines: this file's lines and inlined helper, as the collector resolves them") {
    CHECK(sprof_lines_target(3) != 0);
    AddressSpace space(0);
    const Resolved r = space.resolve(reinterpret_cast<uint64_t>(&sprof_lines_target));
    REQUIRE(r.function);
    REQUIRE(r.table);
    SourceLineResolver lines;
    const std::string self = std::filesystem::path(__FILE__).lexically_normal().string();
    bool inlined_seen = false;
    for (uint64_t at = r.function->start; at < r.function->end; ++at) {
        CAPTURE(at - r.function->start);
        const SourcePosition pos = lines.locate(*r.table, at);
        REQUIRE(pos.file == self);  // built with -g, as the project builds
        if (pos.inlined.empty()) {
            CHECK(pos.line >= kTargetFirst);
            CHECK(pos.line <= kTargetLast);
            continue;
        }
        inlined_seen = true;
        REQUIRE(pos.inlined.size() == 1);
        CHECK(demangle(pos.inlined[0].function).find("lines_helper") != std::string::npos);
        CHECK(pos.line == kHelperLine);
        CHECK(pos.inlined[0].call_file == self);
        CHECK(pos.inlined[0].call_line == kCallLine);
    }
    CHECK(inlined_seen);
    // No debug info: nothing is known, nothing fails.
    const SourcePosition none = ObjectLines("/nonexistent/lib.so").locate(0x1000);
    CHECK((none.file.empty() && none.line == 0 && none.inlined.empty()));
}
