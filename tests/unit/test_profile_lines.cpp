// The source-line records (format 1.6) against the layout of
// docs/FORMAT.md, typed by hand, and the reader's and writer's checks.
#include <doctest/doctest.h>

#include "profile_io_support.hpp"

using namespace sprof;
using namespace sprof::test;

namespace {

Profile parse(const std::string& b) { return parse_profile(b, "t.sprof"); }

std::string corrupt(const std::string& b, size_t at, uint32_t value) {
    std::string out = b;
    set_u32_sealed(out, at, value);
    return out;
}

}  // namespace

TEST_CASE("source lines: a profile with source lines reads back equal, in either byte order") {
    const Profile want = lines_profile();
    check_equal(parse(encode_profile(want)), want);
    Profile foreign = parse(encode_profile(want, ByteOrder::swapped));
    CHECK(foreign.foreign_byte_order);
    check_equal(foreign, want);
}

namespace {

// A big-endian file of minor version `minor` with one function, an interval,
// CODE_LOCATIONS and LINE_CELLS, typed by hand as docs/FORMAT.md lays them out.
std::string typed_lines_file(uint16_t minor) {
    BigEndian e = typed_file_start(minor);
    BigEndian f;
    f.u32(0), f.u32(0xffffffff), f.u64(0x400), f.u64(0x480), f.str("main");
    e.record(3, f);
    BigEndian iv;
    iv.u32(7), iv.u32(0), iv.u64(0), iv.u64(30), iv.u32(1), iv.u32(1);
    iv.u32(0), iv.u64(3), iv.u64(30), iv.u64(30), iv.u64(30), iv.u64(0x4008000000000000ull);  // carry 3
    e.record(5, iv);
    BigEndian loc;
    loc.u32(2), loc.str("/src/m.c"), loc.str("sq");              // strings 0, 1
    loc.u32(2);                                                   // locations:
    loc.u32(0), loc.u32(0), loc.u32(40), loc.u32(0);              //   0: main at m.c:40
    loc.u32(0), loc.u32(0), loc.u32(7), loc.u32(1);               //   1: sq inlined in main at m.c:7 …
    loc.u32(1), loc.u32(0), loc.u32(41);                          //      … called at m.c:41
    loc.u32(1);                                                   // addresses:
    loc.u32(0), loc.u64(0x410), loc.u32(1), loc.u32(12);          //   0x410 → location 1, column 12
    e.record(18, loc);
    BigEndian lc;
    lc.u32(7), lc.u32(0), lc.u32(2), lc.u32(1);
    lc.u32(1), lc.u64(2), lc.u64(20), lc.u64(20), lc.u64(20), lc.u64(0x4000000000000000ull);  // carry 2
    lc.u32(0), lc.u64(1), lc.u64(10), lc.u64(10), lc.u64(10), lc.u64(0x3ff0000000000000ull);  // carry 1
    e.record(19, lc);
    return e.b;
}

}  // namespace

TEST_CASE("source lines: CODE_LOCATIONS and LINE_CELLS typed by hand, big-endian, as docs/FORMAT.md lays them out") {
    const Profile p = parse(typed_lines_file(6));
    CHECK(p.lines.strings == std::vector<std::string>{"/src/m.c", "sq"});
    REQUIRE(p.lines.locations.size() == 2);
    CHECK(p.lines.locations[0].line == 40);
    CHECK(p.lines.locations[0].inlined.empty());
    const CodeLocation& in = p.lines.locations[1];
    CHECK((in.function == 0 && in.file == 0 && in.line == 7));
    REQUIRE(in.inlined.size() == 1);
    CHECK((in.inlined[0].function == 1 && in.inlined[0].call_file == 0 && in.inlined[0].call_line == 41));
    REQUIRE(p.lines.addresses.size() == 1);
    CHECK((p.lines.addresses[0].code.address == 0x410 && p.lines.addresses[0].location == 1 &&
           p.lines.addresses[0].column == 12));
    REQUIRE(p.intervals.size() == 1);
    const auto& lines = p.intervals[0].lines;
    REQUIRE(lines.size() == 2);
    CHECK((lines[0].location == 1 && lines[0].samples == 2 && lines[0].time_ns == 20));
    CHECK((lines[0].events[0].count == 20 && lines[0].events[0].coverage_ns == 20 && lines[0].events[0].carry == 2));
    CHECK((lines[1].location == 0 && lines[1].samples == 1 && lines[1].events[0].carry == 1));
}

TEST_CASE("source lines: types 18 and 19 in a file before minor 6 are kinds the reader skips") {
    const Profile p = parse(typed_lines_file(5));
    CHECK(p.lines.empty());
    REQUIRE(p.intervals.size() == 1);
    CHECK(p.intervals[0].lines.empty());
    CHECK(p.intervals[0].cells.size() == 1);
}

TEST_CASE("source lines: LINE_CELLS of one (tid, seq) merge like INTERVAL parts") {
    Profile p = lines_profile();
    Interval part2{.tid = 4242, .seq = 0, .start_ns = 100'000'000, .end_ns = 120'000'000, .cells = {}, .lines = {}};
    part2.cells.push_back({0, 5, 5'000'000, {{5'000'000, 5'000'000, 5e4}, {1, 5'000'000, 0.5}}});
    part2.lines.push_back({0, 3, 3'000'000, {{3'000'000, 3'000'000, 3e4}, {1, 3'000'000, 0.5}}});
    part2.lines.push_back({1, 2, 2'000'000, {{2'000'000, 2'000'000, 2e4}, {0, 2'000'000, NAN}}});
    p.intervals.push_back(part2);
    const Profile got = parse(encode_profile(p));
    REQUIRE(got.intervals.size() == 3);  // part 2 merged into interval 0
    const auto& lines = got.intervals[0].lines;
    REQUIRE(lines.size() == 3);
    CHECK((lines[0].location == 0 && lines[0].samples == 63 && lines[0].time_ns == 63'000'000));
    CHECK(lines[0].events[0].carry == 6e5 + 3e4);
    CHECK(lines[0].events[1].carry == 0.5);  // NaN + 0.5: the known part
    CHECK((lines[1].location == 1 && lines[1].samples == 32 && lines[1].events[1].count == 4));
    CHECK(std::isnan(lines[1].events[1].carry));
    CHECK(got.intervals[0].cells[0].samples == 95);
}

TEST_CASE("source lines: a corrupt record is one error naming the record, its offset and why") {
    const std::string good = encode_profile(lines_profile());
    const auto at = record_offsets(good);
    // HEADER, 2 OBJECT, 3 FUNCTION, 2 THREAD, CODE_LOCATIONS, INTERVAL, LINE_CELLS, …
    const size_t loc = at[8], cells = at[10];
    REQUIRE(get_u32(good, loc) == 18);
    REQUIRE(get_u32(good, cells) == 19);
    // Payload offsets of CODE_LOCATIONS: strings end at 48, locations at 52, 68, 96, addresses at 116, 136 …
    const size_t p = loc + 8, c = cells + 8;
    auto where = [](const char* type, size_t at) {
        return std::string("t.sprof: corrupt ") + type + " record at byte " + std::to_string(at) + " (";
    };
    CHECK(error_of(corrupt(good, p + 52, 3)) == where("CODE_LOCATIONS", loc) + "location in unknown function id 3)");
    CHECK(error_of(corrupt(good, p + 72, 3)) == where("CODE_LOCATIONS", loc) + "location names unknown string 3)");
    CHECK(error_of(corrupt(good, p + 84, 9)) == where("CODE_LOCATIONS", loc) + "inlined call names unknown string 9)");
    CHECK(error_of(corrupt(good, p + 80, 0x7fffffff)) ==
          where("CODE_LOCATIONS", loc) + "2147483647 inlined calls do not fit in the record)");
    CHECK(error_of(corrupt(good, p + 48, 0x7fffffff)) ==
          where("CODE_LOCATIONS", loc) + "2147483647 locations do not fit in the record)");
    CHECK(error_of(corrupt(good, p + 148, 3)) == where("CODE_LOCATIONS", loc) + "address of unknown location 3)");
    CHECK(error_of(corrupt(good, p + 136, 2)) ==
          where("CODE_LOCATIONS", loc) + "address in function 2 names location 1 of function 0)");
    CHECK(error_of(corrupt(good, c + 16, 3)) == where("LINE_CELLS", cells) + "unknown location id 3)");
    CHECK(error_of(corrupt(good, c + 12, 4)) == where("LINE_CELLS", cells) + "cells carry 4 events, the header has 2)");
    CHECK(error_of(corrupt(good, c + 8, 0x7fffffff)) ==
          where("LINE_CELLS", cells) + "2147483647 cells do not fit in the record)");
    CHECK(error_of(corrupt(good, c, 999)) ==
          where("LINE_CELLS", cells) + "line cells of thread 999 interval 0 before its INTERVAL)");

    // Order: line cells before their INTERVAL, locations before their FUNCTION.
    const std::string interval = good.substr(at[9], at[10] - at[9]), line_cells = good.substr(at[10], at[11] - at[10]);
    const std::string swapped = good.substr(0, at[9]) + line_cells + interval + good.substr(at[11]);
    CHECK(error_of(swapped) == where("LINE_CELLS", at[9]) + "line cells of thread 4242 interval 0 before its INTERVAL)");
    const std::string locations = good.substr(at[8], at[9] - at[8]);
    const std::string early = good.substr(0, at[3]) + locations + good.substr(at[3], at[8] - at[3]) + good.substr(at[9]);
    CHECK(error_of(early) == where("CODE_LOCATIONS", at[3]) + "location in unknown function id 0)");
}

TEST_CASE("source lines: the writer refuses what the reader would, and a refused batch names nothing") {
    const Profile p = lines_profile();
    TempFile tmp;
    {
        ProfileWriter w;
        w.open(tmp.path, p.header);
        w.add_object(p.objects[0]);
        w.add_function(p.functions[0]);
        SourceLines bad;
        bad.strings = {"/src/a.c"};
        bad.locations = {{0, 0, 3, {}}};
        bad.addresses = {{{1, 0x10}, 0, 0}};  // function 1 is not the location's
        CHECK_THROWS_WITH_AS(w.add_source_lines(bad),
                             (tmp.path + ": CODE_LOCATIONS record not written: address in function 1 names location 0 "
                                         "of function 0")
                                 .c_str(),
                             ProfileError);
        Interval iv{.tid = 1, .seq = 0, .start_ns = 0, .end_ns = 9, .cells = {}, .lines = {}};
        iv.cells.push_back({0, 1, 9, {{1, 9, NAN}, {2, 9, NAN}}});
        iv.lines.push_back({0, 1, 9, {{1, 9, NAN}, {2, 9, NAN}}});
        CHECK_THROWS_AS(w.add_interval(iv), ProfileError);  // location 0 was never written
        bad.addresses[0].code.function = 0;
        w.add_source_lines(bad);  // the same ids again: the refused batch took none
        w.add_interval(iv);
    }
    const Profile got = read_profile(tmp.path);
    CHECK(got.lines.strings == std::vector<std::string>{"/src/a.c"});
    REQUIRE(got.lines.locations.size() == 1);
    REQUIRE(got.intervals.size() == 1);
    REQUIRE(got.intervals[0].lines.size() == 1);
    CHECK(got.intervals[0].lines[0].samples == 1);
}
