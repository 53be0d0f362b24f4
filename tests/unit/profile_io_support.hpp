// Helpers of the profile file tests: a profile with every field set, a
// field-by-field comparison, byte offsets of records, and a big-endian
// encoder typed by hand (independent of the library's).
#pragma once
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "sprof/profile_io.hpp"

namespace sprof::test {


// Every field set to a distinct value, two threads, a NaN carry, a function
// of no known object.
inline Profile sample_profile() {
    Profile p;
    p.header.collector = "sprof_lib";
    p.header.backend = "perf";
    p.header.program = "/usr/bin/app";
    p.header.argv = {"app", "--size", "12"};
    p.header.hostname = "node7";
    p.header.rank = 5;
    p.header.ranks = 8;
    p.header.job_id = "4242.0";
    p.header.launcher = "slurm";
    p.header.pid = 4242;
    p.header.start_unix_ns = 1'700'000'000'123'456'789ull;
    p.header.clock = "wall";
    p.header.sample_interval_ns = 1'000'000;
    p.header.hist_samples = 100;
    p.header.hist_interval_ns = 0;
    p.header.slots = 1;
    p.header.rotation = "shuffled";
    p.header.rotation_seed = 0xfedcba9876543210ull;
    p.header.tick_dither = 0.25;
    p.header.attached = true;
    p.header.events = {{"task-clock", true}, {"page-faults", false}};
    p.objects = {{0, "/usr/bin/app", "0123456789abcdef0123456789abcdef01234567"}, {1, "[vdso]", ""}};
    p.functions = {{0, 0, 0x1000, 0x1080, "_Z4workv"},
                   {1, 1, 0x700, 0x740, "__vdso_clock_gettime"},
                   {2, kNoObject, 0, 0, "[unknown]"}};
    p.threads = {{4242, "app"}, {4243, "worker"}};
    Interval a{.tid = 4242, .seq = 0, .start_ns = 0, .end_ns = 100'000'000, .cells = {}, .lines = {}};
    a.cells.push_back({0, 90, 90'000'000, {{90'000'000, 45'000'000, 1e6}, {12, 45'000'000, NAN}}});
    a.cells.push_back({2, 10, 10'000'000, {{0, 0, NAN}, {3, 10'000'000, 0.25}}});
    Interval b{.tid = 4243, .seq = 0, .start_ns = 5, .end_ns = 80'000'005, .cells = {}, .lines = {}};
    b.cells.push_back({1, 80, 80'000'000, {{80'000'000, 80'000'000, 2.5}, {0, 0, NAN}}});
    Interval c{.tid = 4242, .seq = 1, .start_ns = 100'000'000, .end_ns = 200'000'000, .cells = {}, .lines = {}};
    // The spread and the entries (format 1.4).
    a.cells[0].entries = 7;
    a.cells[0].events[0].sq = 4.5e7;
    a.cells[0].events[1].sq = 0.125;
    a.cells[0].events[1].entry_count = 2;
    a.cells[0].events[1].entry_coverage_ns = 1'000'000;
    a.cells[0].events[1].entry_sq = 0.0625;
    b.cells[0].entries = 1;
    p.intervals = {a, b, c};
    p.end = {.present = true, .exit_status = 128 + 9, .samples = 180, .lost_samples = 3};
    return p;
}

// sample_profile() with source lines: function 0 (_Z4workv) at two
// locations, one in code of _Z6squarei inlined at app.cc:14; the [unknown]
// bucket at ??:0. Interval 0's line cells split its function cells; the
// other intervals have none.
inline Profile lines_profile() {
    Profile p = sample_profile();
    p.lines.strings = {"/src/app.cc", "_Z6squarei", "/src/util.h"};
    p.lines.locations = {{0, 0, 12, {}}, {0, 2, 3, {{1, 0, 14}}}, {2, kNoString, 0, {}}};
    p.lines.addresses = {{{0, 0x1010}, 0, 5}, {{0, 0x1020}, 1, 0}, {{0, 0x1024}, 1, 9}, {{2, 0x7f0000001234}, 2, 0}};
    Interval& a = p.intervals[0];
    a.lines.push_back({0, 60, 60'000'000, {{60'000'000, 30'000'000, 6e5}, {8, 30'000'000, NAN}}});
    a.lines.push_back({1, 30, 30'000'000, {{30'000'000, 15'000'000, 4e5}, {4, 15'000'000, NAN}}});
    a.lines.push_back({2, 10, 10'000'000, {{0, 0, NAN}, {3, 10'000'000, 0.25}}});
    return p;
}

// NaN == NaN here: "unknown" must survive the trip as unknown.
inline bool same_carry(double x, double y) { return std::isnan(x) ? std::isnan(y) : x == y; }

// The sums of two cells (FunctionCell, LineCell).
template <class Cell>
void check_sums(const Cell& got, const Cell& want) {
    CHECK(got.samples == want.samples);
    CHECK(got.time_ns == want.time_ns);
    REQUIRE(got.events.size() == want.events.size());
    for (size_t k = 0; k < want.events.size(); ++k) {
        CHECK(got.events[k].count == want.events[k].count);
        CHECK(got.events[k].coverage_ns == want.events[k].coverage_ns);
        CHECK(same_carry(got.events[k].carry, want.events[k].carry));
        if constexpr (requires { want.entries; }) {  // the spread (format 1.4): a function's cell holds it
            CHECK(got.events[k].sq == want.events[k].sq);
            CHECK(got.events[k].entry_count == want.events[k].entry_count);
            CHECK(got.events[k].entry_coverage_ns == want.events[k].entry_coverage_ns);
            CHECK(got.events[k].entry_sq == want.events[k].entry_sq);
        } else {  // a location's does not: read as unknown
            CHECK(std::isnan(got.events[k].sq));
            CHECK(std::isnan(got.events[k].entry_sq));
        }
    }
    if constexpr (requires { want.entries; }) CHECK(got.entries == want.entries);
}

inline void check_equal(const Profile& got, const Profile& want) {
    const auto& g = got.header;
    const auto& w = want.header;
    CHECK(got.version_major == 1);
    CHECK(got.version_minor == kFormatMinor);
    CHECK(g.collector == w.collector);
    CHECK(g.backend == w.backend);
    CHECK(g.program == w.program);
    CHECK(g.argv == w.argv);
    CHECK(g.hostname == w.hostname);
    CHECK(g.rank == w.rank);
    CHECK(g.ranks == w.ranks);
    CHECK(g.job_id == w.job_id);
    CHECK(g.launcher == w.launcher);
    CHECK(g.pid == w.pid);
    CHECK(g.start_unix_ns == w.start_unix_ns);
    CHECK(g.clock == w.clock);
    CHECK(g.sample_interval_ns == w.sample_interval_ns);
    CHECK(g.hist_samples == w.hist_samples);
    CHECK(g.hist_interval_ns == w.hist_interval_ns);
    CHECK(g.slots == w.slots);
    CHECK(g.rotation == w.rotation);
    CHECK(g.rotation_seed == w.rotation_seed);
    CHECK(g.tick_dither == w.tick_dither);
    CHECK(g.attached == w.attached);
    REQUIRE(g.events.size() == w.events.size());
    for (size_t i = 0; i < w.events.size(); ++i) {
        CHECK(g.events[i].name == w.events[i].name);
        CHECK(g.events[i].time_like == w.events[i].time_like);
    }
    REQUIRE(got.objects.size() == want.objects.size());
    for (size_t i = 0; i < want.objects.size(); ++i) {
        CHECK(got.objects[i].id == want.objects[i].id);
        CHECK(got.objects[i].path == want.objects[i].path);
        CHECK(got.objects[i].build_id == want.objects[i].build_id);  // since 1.7
    }
    REQUIRE(got.functions.size() == want.functions.size());
    for (size_t i = 0; i < want.functions.size(); ++i) {
        const auto& gf = got.functions[i];
        const auto& wf = want.functions[i];
        CHECK(gf.id == wf.id);
        CHECK(gf.object == wf.object);
        CHECK(gf.start == wf.start);
        CHECK(gf.end == wf.end);
        CHECK(gf.name == wf.name);
    }
    REQUIRE(got.threads.size() == want.threads.size());
    for (size_t i = 0; i < want.threads.size(); ++i) {
        CHECK(got.threads[i].tid == want.threads[i].tid);
        CHECK(got.threads[i].name == want.threads[i].name);
    }
    REQUIRE(got.intervals.size() == want.intervals.size());
    for (size_t i = 0; i < want.intervals.size(); ++i) {
        const auto& gi = got.intervals[i];
        const auto& wi = want.intervals[i];
        CHECK(gi.tid == wi.tid);
        CHECK(gi.seq == wi.seq);
        CHECK(gi.start_ns == wi.start_ns);
        CHECK(gi.end_ns == wi.end_ns);
        REQUIRE(gi.cells.size() == wi.cells.size());
        for (size_t j = 0; j < wi.cells.size(); ++j) {
            CHECK(gi.cells[j].function == wi.cells[j].function);
            check_sums(gi.cells[j], wi.cells[j]);
        }
        REQUIRE(gi.lines.size() == wi.lines.size());
        for (size_t j = 0; j < wi.lines.size(); ++j) {
            CHECK(gi.lines[j].location == wi.lines[j].location);
            check_sums(gi.lines[j], wi.lines[j]);
        }
    }
    // Source lines (format 1.6).
    CHECK(got.lines.strings == want.lines.strings);
    REQUIRE(got.lines.locations.size() == want.lines.locations.size());
    for (size_t i = 0; i < want.lines.locations.size(); ++i) {
        const CodeLocation& gl = got.lines.locations[i];
        const CodeLocation& wl = want.lines.locations[i];
        CHECK(gl.function == wl.function);
        CHECK(gl.file == wl.file);
        CHECK(gl.line == wl.line);
        REQUIRE(gl.inlined.size() == wl.inlined.size());
        for (size_t j = 0; j < wl.inlined.size(); ++j) {
            CHECK(gl.inlined[j].function == wl.inlined[j].function);
            CHECK(gl.inlined[j].call_file == wl.inlined[j].call_file);
            CHECK(gl.inlined[j].call_line == wl.inlined[j].call_line);
        }
    }
    REQUIRE(got.lines.addresses.size() == want.lines.addresses.size());
    for (size_t i = 0; i < want.lines.addresses.size(); ++i) {
        CHECK(got.lines.addresses[i].code.function == want.lines.addresses[i].code.function);
        CHECK(got.lines.addresses[i].code.address == want.lines.addresses[i].code.address);
        CHECK(got.lines.addresses[i].location == want.lines.addresses[i].location);
        CHECK(got.lines.addresses[i].column == want.lines.addresses[i].column);
    }
    CHECK(got.end.present == want.end.present);
    CHECK(got.end.exit_status == want.end.exit_status);
    CHECK(got.end.samples == want.end.samples);
    CHECK(got.end.lost_samples == want.end.lost_samples);
}

struct TempFile {
    std::string path = (std::filesystem::temp_directory_path() /
                         ("sprof-test-" + std::to_string(::getpid()) + ".sprof"))
                           .string();
    ~TempFile() { std::remove(path.c_str()); }
};

inline uint32_t get_u32(const std::string& b, size_t at) {
    uint32_t v;
    std::memcpy(&v, b.data() + at, 4);
    return v;
}

inline void set_u32(std::string& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

// Byte offsets of the records of a native-order file: [type at +0, length at +4, payload at +8].
inline std::vector<size_t> record_offsets(const std::string& b) {
    std::vector<size_t> at;
    for (size_t pos = 16; pos + 8 <= b.size(); pos += 8 + get_u32(b, pos + 4)) at.push_back(pos);
    return at;
}

// CRC32C bit by bit, as its definition reads (the reflected Castagnoli
// polynomial 0x82F63B78): independent of the library's.
inline uint32_t crc32c_bitwise(const char* p, size_t n) {
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; ++i) {
        crc ^= static_cast<uint8_t>(p[i]);
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
    }
    return ~crc;
}

// The checksum of the record at `at` of a native-order file (format 1.12
// on) made right again after a test changed the record.
inline void reseal(std::string& b, size_t at) {
    const size_t covered = 8 + get_u32(b, at + 4) - 4;
    set_u32(b, at + covered, crc32c_bitwise(b.data() + at, covered));
}

// set_u32 on a field of a record's payload, the record resealed: the
// reader's checks behind the checksum are reached.
inline void set_u32_sealed(std::string& b, size_t at, uint32_t v) {
    set_u32(b, at, v);
    size_t record = 0;
    for (size_t r : record_offsets(b))
        if (r <= at) record = r;
    reseal(b, record);
}

inline std::string error_of(const std::string& bytes) {
    try {
        parse_profile(bytes, "t.sprof");
    } catch (const ProfileError& e) {
        return e.what();
    }
    return "no error";
}

// Big-endian fields typed by hand: independent of the library's encoder.
struct BigEndian {
    std::string b;
    void u8(uint8_t v) { b.push_back(static_cast<char>(v)); }
    void u16(uint16_t v) { u8(v >> 8), u8(v & 0xff); }
    void u32(uint32_t v) { u16(v >> 16), u16(v & 0xffff); }
    void u64(uint64_t v) { u32(v >> 32), u32(v & 0xffffffff); }
    void str(const std::string& s) { u32(static_cast<uint32_t>(s.size())), b += s; }
    // A record: its type, its payload's length, its payload.
    void record(uint32_t type, const BigEndian& payload) {
        u32(type), u32(static_cast<uint32_t>(payload.b.size())), b += payload.b;
    }
};

// A big-endian file header of format 1.`minor` and a HEADER record as a 1.1
// writer wrote it (no job fields): collector sprof_pt, backend cmdev,
// program /bin/x, argv {"x"}, host, pid 77, start 0x0102030405060708, clock
// cpu, 2 ms samples, 50 ms intervals, 2 slots, one event `cycles`.
inline BigEndian typed_file_start(uint16_t minor) {
    BigEndian e;
    e.b = "SPROFILE";
    e.u32(0x01020304);
    e.u16(1);
    e.u16(minor);
    BigEndian h;
    for (const char* s : {"sprof_pt", "cmdev", "/bin/x"}) h.str(s);
    h.u32(1);
    h.str("x");
    h.str("host");
    h.u32(77);                    // pid
    h.u64(0x0102030405060708ull); // start_unix_ns
    h.str("cpu");
    h.u64(2'000'000);  // sample interval
    h.u32(0);          // hist_samples
    h.u64(50'000'000); // hist interval
    h.u32(2);          // slots
    h.u32(1);          // events
    h.str("cycles");
    h.u8(0);
    e.record(1, h);
    return e;
}


}  // namespace sprof::test
