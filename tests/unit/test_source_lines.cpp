// Source lines: this very file's lines and inlined helper as the analyzer
// reads them, a collector's profile given its lines, and the interval
// builder's line cells against its function cells.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <set>

#include "sprof/demangle.hpp"
#include "sprof/estimator.hpp"
#include "sprof/interval_builder.hpp"
#include "sprof/profile_lines.hpp"
#include "sprof/source_lines.hpp"
#include "sprof/symbols.hpp"

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

// This test binary's function sprof_lines_target: its link-time range and its object.
struct Target {
    std::string object, build_id;
    uint64_t start = 0, end = 0;
};
Target target() {
    CHECK(sprof_lines_target(3) != 0);
    AddressSpace space(0);
    const Resolved r = space.resolve(reinterpret_cast<uint64_t>(&sprof_lines_target));
    REQUIRE(r.function);
    REQUIRE(r.table);
    return {r.table->path(), r.table->build_id(), r.function->start, r.function->end};
}

TEST_CASE("source lines: this file's lines and inlined helper, as the analyzer reads them") {
    const Target t = target();
    ObjectLines lines(t.object);
    CHECK(lines.build_id() == t.build_id);
    CHECK(t.build_id.size() == 40);  // GNU ld's default: a SHA-1, as the collector records it
    const std::string self = std::filesystem::path(__FILE__).lexically_normal().string();
    bool inlined_seen = false;
    for (uint64_t at = t.start; at < t.end; ++at) {
        CAPTURE(at - t.start);
        const SourcePosition pos = lines.locate(at);
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

namespace {

// A profile as a collector writes it since 1.7: one unknown location per
// sampled address, every address of sprof_lines_target, a line cell each
// (one sample, 1 ms) in one interval. The objects: `object` for the target,
// a second function in "/nonexistent/lib.so".
Profile collected(const Target& t, const ProfileObject& object) {
    Profile p;
    p.lines.resolved = false;
    p.objects = {object, {1, "/nonexistent/lib.so", "00ff"}};
    p.functions = {{0, 0, t.start, t.end, "sprof_lines_target"}, {1, 1, 0x1000, 0x2000, "gone"}};
    Interval iv;
    auto add = [&](uint32_t function, uint64_t address) {
        const auto id = static_cast<uint32_t>(p.lines.locations.size());
        p.lines.locations.push_back({function, kNoString, 0, {}});
        p.lines.addresses.push_back({{function, address}, id, 0});
        iv.lines.push_back({id, 1, 1'000'000, {}});
    };
    for (uint64_t at = t.start; at < t.end; ++at) add(0, at);
    add(1, 0x1234);
    p.intervals.push_back(std::move(iv));
    return p;
}

}  // namespace

TEST_CASE("source lines: the analyzer gives a 1.7 profile's addresses their lines and merges their cells") {
    const Target t = target();
    Profile p = collected(t, {0, t.object, t.build_id});
    const size_t addresses = p.lines.addresses.size();
    ProfileLineReader reader;
    reader.resolve(p);
    CHECK(p.lines.resolved);
    REQUIRE(p.lines.addresses.size() == addresses);
    // Every address of the target is at one of its lines or the helper's,
    // and the cells of an interval are one per line now: as many as the
    // distinct locations, together the samples of every address.
    std::set<uint32_t> lines_seen;
    for (const CodeAddress& a : p.lines.addresses) {
        const CodeLocation& l = p.lines.locations.at(a.location);
        if (a.code.function == 1) {
            CHECK(l.file == kNoString);
            continue;
        }
        REQUIRE(l.file != kNoString);
        CHECK(p.lines.strings.at(l.file) == std::filesystem::path(__FILE__).lexically_normal().string());
        CHECK((l.line == kHelperLine || (l.line >= kTargetFirst && l.line <= kTargetLast)));
        lines_seen.insert(a.location);
    }
    CHECK(lines_seen.size() >= 2);
    CHECK(p.lines.locations.size() == lines_seen.size() + 1);
    const std::vector<LineCell>& cells = p.intervals[0].lines;
    CHECK(cells.size() == p.lines.locations.size());
    uint64_t samples = 0, time_ns = 0;
    for (const LineCell& c : cells) {
        samples += c.samples;
        time_ns += c.time_ns;
    }
    CHECK(samples == addresses);
    CHECK(time_ns == addresses * 1'000'000);
    // The object that is gone is told once.
    REQUIRE(p.warnings.size() == 1);
    CHECK(p.warnings[0] == "/nonexistent/lib.so is gone since the run: its source lines are unknown");
    // Resolved is resolved: a second call changes nothing.
    const auto locations = p.lines.locations.size();
    reader.resolve(p);
    CHECK(p.lines.locations.size() == locations);
}

TEST_CASE("source lines: a file that is not the one that ran gives no lines, and says why") {
    const Target t = target();
    Profile p = collected(t, {0, t.object, std::string(40, 'a')});
    ProfileLineReader().resolve(p);
    for (const CodeLocation& l : p.lines.locations) CHECK((l.file == kNoString && l.line == 0));
    REQUIRE(p.warnings.size() == 2);
    CHECK(p.warnings[0] == t.object + " is not the file that ran (build-id " + t.build_id + ", profiled " +
                               std::string(40, 'a') + "): its source lines are unknown");
    // With nothing known, a function's addresses are at one unknown line, as
    // when a collector found no debug info: one location, one cell, each.
    CHECK(p.lines.locations.size() == 2);
    CHECK(p.intervals[0].lines.size() == 2);
    // No build-id recorded (a table from a control file): the file at the path serves.
    Profile by_path = collected(t, {0, t.object, ""});
    ProfileLineReader().resolve(by_path);
    CHECK(by_path.lines.locations.at(by_path.lines.addresses.at(0).location).file != kNoString);
    // A path that is no regular file is never opened.
    Profile fifo = collected(t, {0, "/dev/null", ""});
    ProfileLineReader().resolve(fifo);
    CHECK(fifo.warnings.at(0) == "/dev/null is not a regular file: its source lines are unknown");
}
