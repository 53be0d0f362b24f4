#include <doctest/doctest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>

#include "profile_io_support.hpp"
#include "sprof/cache_sizes.hpp"
#include "sprof/profile_io.hpp"

using namespace sprof;
using namespace sprof::test;

TEST_CASE("profile round trip through a file keeps every field") {
    Profile want = sample_profile();
    TempFile tmp;
    {
        ProfileWriter w;
        w.open(tmp.path, want.header);
        CHECK(w.is_open());
        for (const auto& o : want.objects) w.add_object(o);
        for (const auto& f : want.functions) w.add_function(f);
        for (const auto& t : want.threads) w.add_thread(t);
        for (const auto& iv : want.intervals) w.add_interval(iv);
        w.finish(want.end);
        CHECK_FALSE(w.is_open());
    }
    Profile got = read_profile(tmp.path);
    check_equal(got, want);
    CHECK_FALSE(got.foreign_byte_order);
    CHECK(got.warnings.empty());
    CHECK(got.object_name(got.function(1).object) == "[vdso]");
}

TEST_CASE("the file header is magic, byte-order tag, major, minor") {
    std::string b = encode_profile(sample_profile());
    CHECK(b.compare(0, 8, "SPROFILE") == 0);
    CHECK(get_u32(b, 8) == 0x01020304u);
    uint16_t major, minor;
    std::memcpy(&major, b.data() + 12, 2);
    std::memcpy(&minor, b.data() + 14, 2);
    CHECK(major == 1);
    CHECK(minor == kFormatMinor);
    CHECK(get_u32(b, 16) == 1);  // first record: HEADER
    // 2 objects, 3 functions, 2 threads, 3 intervals, END after the HEADER.
    auto at = record_offsets(b);
    REQUIRE(at.size() == 1 + 2 + 3 + 2 + 3 + 1);
    CHECK(get_u32(b, at.back()) == 6);
    CHECK(at.back() + 8 + 4 + 8 + 8 + 4 + 4 + 4 == b.size());  // exit status, samples, lost, how, signal, checksum
    // INTERVAL 0: 32 fixed bytes + 2 cells × (20 + 2 events × 24), then the
    // spread: 2 cells × (8 + 2 events × 32), then the checksum.
    CHECK(get_u32(b, at[8] + 4) == 32 + 2 * (20 + 2 * 24) + 2 * (8 + 2 * 32) + 4);
}

TEST_CASE("a profile of the other byte order reads back equal and is marked foreign") {
    Profile want = sample_profile();
    std::string native = encode_profile(want);
    std::string swapped = encode_profile(want, ByteOrder::swapped);
    REQUIRE(swapped.size() == native.size());
    CHECK(swapped != native);
    CHECK(get_u32(swapped, 8) == 0x04030201u);
    Profile got = parse_profile(swapped, "swapped.sprof");
    CHECK(got.foreign_byte_order);
    check_equal(got, want);
    CHECK(got.warnings.empty());
}

TEST_CASE("a big-endian file typed by hand is read on any machine") {
    BigEndian e = typed_file_start(3);  // a newer minor version than the header's is fine
    BigEndian f;
    f.u32(0), f.u32(0xffffffff), f.u64(0), f.u64(0), f.str("[unknown]");
    e.record(3, f);
    BigEndian iv;
    iv.u32(77), iv.u32(0), iv.u64(10), iv.u64(20), iv.u32(1), iv.u32(1);
    iv.u32(0), iv.u64(5), iv.u64(500);
    iv.u64(1234), iv.u64(400), iv.u64(0x3ff8000000000000ull);  // carry 1.5
    e.record(5, iv);

    Profile p = parse_profile(e.b, "be.sprof");
    CHECK(p.foreign_byte_order == (std::endian::native == std::endian::little));
    CHECK(p.version_minor == 3);
    CHECK(p.header.collector == "sprof_pt");
    CHECK(p.header.argv == std::vector<std::string>{"x"});
    CHECK(p.header.pid == 77);
    CHECK(p.header.start_unix_ns == 0x0102030405060708ull);
    CHECK(p.header.hist_interval_ns == 50'000'000);
    CHECK(p.header.slots == 2);
    CHECK(p.header.rank == -1);  // a 1.1 header: not in a job
    CHECK(p.header.job_id.empty());
    REQUIRE(p.header.events.size() == 1);
    CHECK(p.header.events[0].name == "cycles");
    REQUIRE(p.functions.size() == 1);
    CHECK(p.functions[0].object == kNoObject);
    REQUIRE(p.intervals.size() == 1);
    REQUIRE(p.intervals[0].cells.size() == 1);
    const auto& cell = p.intervals[0].cells[0];
    CHECK(cell.samples == 5);
    CHECK(cell.time_ns == 500);
    CHECK(cell.events[0].count == 1234);
    CHECK(cell.events[0].coverage_ns == 400);
    CHECK(cell.events[0].carry == 1.5);
    // Before 1.4: a round-robin rotation; the spread and the entries unknown.
    CHECK(p.header.rotation == "round-robin");
    CHECK_FALSE(p.header.attached);  // before 1.11: started by its collector
    CHECK(cell.entries == kUnknownEntries);
    CHECK(std::isnan(cell.events[0].sq));
    REQUIRE(p.warnings.size() == 1);  // no END: the run was cut short
    CHECK(p.warnings[0] == "be.sprof: no END record after 1 intervals (the profiled program did not finish)");
}

TEST_CASE("truncation at every byte keeps the complete intervals or errors in the header") {
    const Profile full = sample_profile();
    const std::string b = encode_profile(full);
    const auto at = record_offsets(b);
    const size_t header_end = at[1];  // first byte after the HEADER record
    for (size_t len = 0; len < b.size(); ++len) {
        CAPTURE(len);
        const std::string cut = b.substr(0, len);
        if (len < header_end) {
            CHECK_THROWS_AS(parse_profile(cut, "cut.sprof"), ProfileError);
            continue;
        }
        Profile p = parse_profile(cut, "cut.sprof");
        // The complete records are exactly those ending at or before len.
        size_t complete_intervals = 0;
        bool cut_inside_record = false;
        for (size_t i = 0; i < at.size(); ++i) {
            size_t end = i + 1 < at.size() ? at[i + 1] : b.size();
            if (end <= len && get_u32(b, at[i]) == 5) ++complete_intervals;
            if (at[i] < len && len < end) cut_inside_record = true;
        }
        REQUIRE(p.intervals.size() == complete_intervals);
        for (size_t i = 0; i < complete_intervals; ++i)
            CHECK(p.intervals[i].cells.size() == full.intervals[i].cells.size());
        CHECK_FALSE(p.end.present);
        REQUIRE_FALSE(p.warnings.empty());
        if (cut_inside_record) {
            size_t last_start = 0;
            for (size_t s : at)
                if (s < len) last_start = s;
            CHECK(p.warnings[0] == "cut.sprof: truncated after " + std::to_string(complete_intervals) +
                                       " complete intervals (" + std::to_string(len - last_start) +
                                       " bytes ignored)");
        }
    }
}

TEST_CASE("random bytes are never taken for a profile") {
    std::mt19937 rng(12345);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int round = 0; round < 200; ++round) {
        std::string junk(1 + round * 7, '\0');
        for (auto& c : junk) c = static_cast<char>(byte(rng));
        CHECK_THROWS_AS(parse_profile(junk, "junk"), ProfileError);
        // Behind a valid file header, random records must still be rejected.
        std::string b = encode_profile(sample_profile()).substr(0, 16) + junk;
        CHECK_THROWS_AS(parse_profile(b, "junk"), ProfileError);
    }
}

TEST_CASE("a record of an unknown type in the middle is skipped") {
    Profile want = sample_profile();
    std::string b = encode_profile(want);
    const auto at = record_offsets(b);
    std::string unknown(8 + 13 + 4, 'x');  // 13 bytes of a later kind, the checksum
    set_u32(unknown, 0, 99);
    set_u32(unknown, 4, 13 + 4);
    reseal(unknown, 0);
    b.insert(at[9], unknown);  // between the first and the second interval
    Profile got = parse_profile(b, "t.sprof");
    check_equal(got, want);
    CHECK(got.warnings.empty());
}

TEST_CASE("reader errors say which file and what is wrong") {
    const std::string good = encode_profile(sample_profile());
    const auto at = record_offsets(good);

    CHECK(error_of("") == "t.sprof: empty file (not a profile)");
    CHECK(error_of("#!/bin/sh\necho hi\n") == "t.sprof: not an sprof profile (bad magic)");
    CHECK(error_of("SPROF") == "t.sprof: truncated file header (5 of 16 bytes)");

    std::string v2 = good;
    uint16_t two = 2;
    std::memcpy(v2.data() + 12, &two, 2);
    CHECK(error_of(v2) ==
          "t.sprof: profile format version 2." + std::to_string(kFormatMinor) + ", this sprof reads 1.x");

    std::string no_header = good.substr(0, 16) + good.substr(at[1]);
    CHECK(error_of(no_header) == "t.sprof: OBJECT record (type 2) before HEADER at byte 16");
    CHECK(error_of(good.substr(0, 16)) ==
          "t.sprof: HEADER record missing (no records after the file header)");

    std::string bad_fn = good;
    set_u32_sealed(bad_fn, at[4] + 8, 7);  // second FUNCTION claims id 7
    CHECK(error_of(bad_fn) == "t.sprof: corrupt FUNCTION record at byte " + std::to_string(at[4]) +
                                  " (function id 7 out of order (expected 1))");

    std::string bad_cell = good;
    set_u32_sealed(bad_cell, at[8] + 8 + 32, 3);  // first cell of INTERVAL 0 → function 3 (there are 3)
    CHECK(error_of(bad_cell) == "t.sprof: corrupt INTERVAL record at byte " + std::to_string(at[8]) +
                                    " (unknown function id 3)");

    std::string bad_events = good;
    set_u32_sealed(bad_events, at[8] + 8 + 28, 4);  // cells claim 4 events, the header has 2
    CHECK(error_of(bad_events) == "t.sprof: corrupt INTERVAL record at byte " + std::to_string(at[8]) +
                                      " (cells carry 4 events, the header has 2)");

    std::string many_cells = good;
    set_u32_sealed(many_cells, at[8] + 8 + 24, 0x7fffffff);
    CHECK(error_of(many_cells) == "t.sprof: corrupt INTERVAL record at byte " + std::to_string(at[8]) +
                                      " (2147483647 cells do not fit in the record)");

    std::string long_string = good;
    set_u32_sealed(long_string, at[1] + 8 + 4, 0xfffffff0u);  // OBJECT path length
    CHECK(error_of(long_string) == "t.sprof: corrupt OBJECT record at byte " + std::to_string(at[1]) +
                                       " (string length 4294967280 beyond the record)");

    std::string after_end = good + good.substr(at[1], at[2] - at[1]);
    CHECK(error_of(after_end) ==
          "t.sprof: OBJECT record after END at byte " + std::to_string(good.size()));

    CHECK_THROWS_WITH_AS(read_profile("/nonexistent/x.sprof"),
                         "/nonexistent/x.sprof: cannot open (No such file or directory)", ProfileError);
}

TEST_CASE("writer rejects what the reader would reject, and a killed writer leaves a readable file") {
    CHECK_THROWS_WITH_AS(ProfileWriter().open("/nonexistent/dir/p.sprof", {}),
                         "cannot create /nonexistent/dir/p.sprof: No such file or directory", ProfileError);

    Profile p = sample_profile();
    TempFile tmp;
    {
        ProfileWriter w;
        w.open(tmp.path, p.header);
        w.add_object(p.objects[0]);
        CHECK_THROWS_WITH_AS(w.add_function(p.functions[1]),
                             (tmp.path + ": function id 1 out of order (expected 0)").c_str(), ProfileError);
        w.add_function(p.functions[0]);
        Interval wrong = p.intervals[0];
        wrong.cells[0].events.pop_back();
        CHECK_THROWS_AS(w.add_interval(wrong), ProfileError);
        Interval fine{.tid = 1, .seq = 0, .start_ns = 0, .end_ns = 9, .cells = {}, .lines = {}};
        fine.cells.push_back({0, 1, 9, {{1, 9, NAN}, {2, 9, NAN}}});
        w.add_interval(fine);
        // No finish(): the destructor closes the file as if the program died here.
    }
    Profile got = read_profile(tmp.path);
    REQUIRE(got.intervals.size() == 1);  // the rejected interval left no bytes behind
    CHECK(got.intervals[0].end_ns == 9);
    CHECK(got.functions.size() == 1);
    CHECK_FALSE(got.end.present);
    REQUIRE(got.warnings.size() == 1);
    CHECK(got.warnings[0] == tmp.path + ": no END record after 1 intervals (the profiled program did not finish)");
}

namespace {

// sample_profile() with its first interval (tid 4242, seq 0) written as two
// parts, the other thread's interval between them. Part 2 lists the cells in
// the other order and brings the only known carry of function 2's second event.
Profile two_part_profile() {
    Profile p = sample_profile();
    Interval part1{.tid = 4242, .seq = 0, .start_ns = 0, .end_ns = 60'000'000, .cells = {}, .lines = {}};
    part1.cells.push_back({0, 40, 40'000'000, {{40'000'000, 20'000'000, 4e5}, {5, 20'000'000, NAN}}});
    part1.cells.push_back({2, 4, 4'000'000, {{0, 0, NAN}, {1, 4'000'000, NAN}}});
    Interval part2{.tid = 4242, .seq = 0, .start_ns = 50'000'000, .end_ns = 100'000'000, .cells = {}, .lines = {}};
    part2.cells.push_back({2, 6, 6'000'000, {{0, 0, NAN}, {2, 6'000'000, 0.25}}});
    part2.cells.push_back({0, 50, 50'000'000, {{50'000'000, 25'000'000, 6e5}, {7, 25'000'000, NAN}}});
    // The spread and entries of sample_profile's function 0, in two halves.
    for (FunctionCell* c : {&part1.cells[0], &part2.cells[1]}) {
        c->entries = c == &part1.cells[0] ? 3 : 4;
        c->events[0].sq = c == &part1.cells[0] ? 2e7 : 2.5e7;
        c->events[1].sq = 0.0625;
        c->events[1].entry_count = 1;
        c->events[1].entry_coverage_ns = 500'000;
        c->events[1].entry_sq = 0.03125;
    }
    p.intervals = {part1, p.intervals[1], part2, p.intervals[2]};
    return p;
}

}  // namespace

TEST_CASE("INTERVAL records of one (tid, seq) are parts of one interval") {
    SUBCASE("written as two parts through the writer, read back as the one-interval profile") {
        Profile parts = two_part_profile();
        TempFile tmp;
        {
            ProfileWriter w;
            w.open(tmp.path, parts.header);
            for (const auto& o : parts.objects) w.add_object(o);
            for (const auto& f : parts.functions) w.add_function(f);
            for (const auto& t : parts.threads) w.add_thread(t);
            for (const auto& iv : parts.intervals) w.add_interval(iv);
            w.finish(parts.end);
        }
        check_equal(read_profile(tmp.path), sample_profile());
    }
    SUBCASE("in the other byte order too") {
        check_equal(parse_profile(encode_profile(two_part_profile(), ByteOrder::swapped), "t.sprof"),
                    sample_profile());
    }
    SUBCASE("many parts add up, each in its interval") {
        Profile p = sample_profile();
        p.intervals.clear();
        // Thread 1: 1,000 parts of seq 0, part k adding (k+1) samples to function k % 3.
        // Thread 2: seq 0 in one piece, its function 1 untouched by thread 1's parts.
        uint64_t want[3] = {0, 0, 0};
        for (uint32_t k = 0; k < 1000; ++k) {
            Interval part{.tid = 1, .seq = 0, .start_ns = 1000 + k, .end_ns = 5000 - k, .cells = {}, .lines = {}};
            part.cells.push_back({k % 3, k + 1, 10, {{k, 10, NAN}, {1, 10, NAN}}});
            want[k % 3] += k + 1;
            p.intervals.push_back(part);
            if (k == 500) p.intervals.push_back({.tid = 2, .seq = 0, .start_ns = 0, .end_ns = 1,
                                                 .cells = {{1, 7, 7, {{7, 7, NAN}, {0, 0, NAN}}}}, .lines = {}});
        }
        Profile got = parse_profile(encode_profile(p), "t.sprof");
        REQUIRE(got.intervals.size() == 2);
        const Interval& iv = got.intervals[0];
        CHECK(iv.tid == 1);
        CHECK(iv.start_ns == 1000);
        CHECK(iv.end_ns == 5000);
        REQUIRE(iv.cells.size() == 3);
        for (uint32_t f = 0; f < 3; ++f) {
            CHECK(iv.cells[f].function == f);
            CHECK(iv.cells[f].samples == want[f]);
            CHECK(iv.cells[f].time_ns == 10 * (f == 0 ? 334 : 333));
            CHECK(std::isnan(iv.cells[f].events[0].carry));
        }
        REQUIRE(got.intervals[1].cells.size() == 1);
        CHECK(got.intervals[1].cells[0].samples == 7);
    }
}

TEST_CASE("event lists the analyzer cannot handle are errors") {
    Profile p = sample_profile();
    p.intervals.clear();
    p.end = {};
    SUBCASE("an event named twice") {
        p.header.events = {{"page-faults", false}, {"task-clock", true}, {"page-faults", false}};
        CHECK(error_of(encode_profile(p)) == "t.sprof: corrupt HEADER record at byte 16 (event page-faults listed twice)");
    }
    SUBCASE("100,000 events: refused at once, not analysed for seconds") {
        p.header.events.clear();
        for (int i = 0; i < 100'000; ++i) p.header.events.push_back({"ev" + std::to_string(i), false});
        CHECK(error_of(encode_profile(p)) == "t.sprof: corrupt HEADER record at byte 16 (100000 events, more than the " +
                                                 std::to_string(kMaxProfileEvents) + " a profile may have)");
    }
    SUBCASE("as many as the limit are read") {
        p.header.events.clear();
        for (uint32_t i = 0; i < kMaxProfileEvents; ++i) p.header.events.push_back({"ev" + std::to_string(i), false});
        CHECK(parse_profile(encode_profile(p), "t.sprof").header.events.size() == kMaxProfileEvents);
    }
}

TEST_CASE("files that are not profiles are read with a bound") {
    // /dev/zero never ends: the first bytes are not the magic, so reading stops there.
    CHECK_THROWS_WITH_AS(read_profile("/dev/zero"), "/dev/zero: not an sprof profile (bad magic)", ProfileError);
    const auto dir = std::filesystem::temp_directory_path().string();
    CHECK_THROWS_WITH_AS(read_profile(dir), (dir + ": not a profile (Is a directory)").c_str(), ProfileError);

    TempFile tmp;
    SUBCASE("a regular file larger than a profile may be is refused by its size, unread") {
        const std::string head = encode_profile(sample_profile()).substr(0, 64);
        {
            std::FILE* f = std::fopen(tmp.path.c_str(), "wb");
            REQUIRE(f);
            std::fwrite(head.data(), 1, head.size(), f);
            std::fclose(f);
        }
        std::filesystem::resize_file(tmp.path, kMaxProfileBytes + 1);  // sparse: costs no disk
        CHECK_THROWS_WITH_AS(read_profile(tmp.path),
                             (tmp.path + ": " + std::to_string(kMaxProfileBytes + 1) + " bytes, more than the " +
                              std::to_string(kMaxProfileBytes) + " a profile may have (not a profile?)")
                                 .c_str(),
                             ProfileError);
    }
    SUBCASE("a FIFO that carries a profile is read to its end") {
        REQUIRE(::mkfifo(tmp.path.c_str(), 0600) == 0);
        const std::string bytes = encode_profile(sample_profile());
        std::thread writer([&] {
            int fd = ::open(tmp.path.c_str(), O_WRONLY);
            if (fd < 0) return;
            for (size_t done = 0; done < bytes.size();) {
                ssize_t n = ::write(fd, bytes.data() + done, std::min<size_t>(bytes.size() - done, 100));
                if (n <= 0) break;
                done += static_cast<size_t>(n);
            }
            ::close(fd);
        });
        Profile got = read_profile(tmp.path);
        writer.join();
        check_equal(got, sample_profile());
    }
}

TEST_CASE("cache sizes: 1 KiB to 1 GiB, four per doubling, in whole lines") {
    auto lines = sprof::cache_sizes_in_lines(64);
    REQUIRE(lines.size() == 81);                 // 20 doublings × 4 + the last size
    CHECK(lines.front() == 16);                  // 1 KiB / 64 B
    CHECK(lines[4] == 32);                       // 2 KiB
    CHECK(lines[2] == 23);                       // 1 KiB · √2 = 1448 B = 22.6 lines
    CHECK(lines.back() == (uint64_t{1} << 24));  // 1 GiB
    auto big = sprof::cache_sizes_in_lines(4096);  // sizes below one line are left out, none repeats
    CHECK(big.front() == 1);
    for (size_t i = 1; i < big.size(); ++i) CHECK(big[i] > big[i - 1]);
}
