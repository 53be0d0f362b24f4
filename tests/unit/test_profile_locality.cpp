// The locality records of the profile file (format 1.3 and the detail of
// 1.5): round trips, the byte layout, parts that add up, and what the reader
// and the writer refuse.
#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cstring>
#include <map>

#include "profile_io_support.hpp"
#include "sprof/profile_io.hpp"

using namespace sprof;
using namespace sprof::test;

namespace {

// sample_profile() with locality data in every field: two threads' windows,
// a sample without reuse, one in no known function, an exact curve with its
// functions.
Profile locality_profile() {
    Profile p = sample_profile();
    Locality& loc = p.locality;
    loc.run = {.present = true, .mode = "sampled", .line_size = 128, .sample_period = 100'000,
               .window_accesses = uint64_t{1} << 27, .seed = 0xc0ffee'0000'1234};
    loc.windows = {{.tid = 4242, .window = 0, .accesses = uint64_t{1} << 27, .samples = 1342, .unseen_accesses = 1000,
                    .lost_records = 3, .lost_allocations = 29'903},
                   {.tid = 4243, .window = 0, .accesses = 5000, .samples = 0, .unseen_accesses = 0},
                   {.tid = 4242, .window = 1, .accesses = 77, .samples = 1, .unseen_accesses = 2}};
    loc.data = {{.id = 0, .kind = DataKind::heap, .object = kNoObject, .site = {0, 0x1008}, .name = "", .size = 0},
                {.id = 1, .kind = DataKind::static_data, .object = 0, .site = {}, .name = "table", .size = 4096},
                {.id = 2, .kind = DataKind::stack, .object = kNoObject, .site = {}, .name = "[stack]", .size = 0},
                {.id = 3, .kind = DataKind::other, .object = kNoObject, .site = {}, .name = "[anon]", .size = 0}};
    loc.samples = {
        {.tid = 4242, .window = 0, .distance = 1024, .sample = {0, 0x1010}, .trigger = {0, 0x1020},
         .address = 0x7ffd'0000'1238, .size = 8, .sample_write = true, .trigger_write = false,
         .position = 77, .data = 2},
        {.tid = 4243, .window = 0, .distance = kNoReuse, .sample = {1, 0x710}, .trigger = {},
         .address = 0x5555'0000'0040, .size = 4, .sample_write = false, .trigger_write = false,
         .position = 1, .data = 1},
        {.tid = 4242, .window = 1, .distance = 3, .sample = {kNoFunction, 0x7f00'dead'beef}, .trigger = {2, 0},
         .address = 0x10, .size = 16, .sample_write = false, .trigger_write = true,
         .position = (uint64_t{1} << 27) + 5, .data = kNoData},
    };
    loc.tenures = {{.tid = 4242, .position = 77, .end = TenureEnd::no_reuse,
                    .steps = {{.gap = 1, .accesses = 1, .bytes = 8, .used = 0x30},
                              {.gap = 40, .accesses = 7, .bytes = 56, .used = 0xfff0},
                              {.gap = kNoReuse, .accesses = 9, .bytes = 72, .used = 0xffff}}},
                   {.tid = 4242, .position = 9, .end = TenureEnd::aged,
                    .steps = {{.gap = uint64_t{1} << 28, .accesses = 32, .bytes = 32, .used = 1}}}};
    loc.exact = {{.tid = 4242, .accesses = 1000, .lines = {16, 32, 64}, .lru_misses = {500, 300, 300},
                  .random_lines = {32}, .random_misses = {320}, .detail_lines = {32, 64}},
                 {.tid = 4243, .accesses = 10, .lines = {16, 32, 64}, .lru_misses = {10, 10, 10},
                  .random_lines = {}, .random_misses = {}, .detail_lines = {}}};
    loc.exact_instructions = {
        {.tid = 4242, .pc = {0, 0x1010}, .write = true, .accesses = 600,
         .at = {{.misses = 100, .used_bytes = 6400, .bytes = 800}, {.misses = 0, .used_bytes = 0, .bytes = 0}}},
        {.tid = 4242, .pc = {kNoFunction, 0x7f00'0000'0001}, .write = false, .accesses = 400,
         .at = {{.misses = 200, .used_bytes = 200, .bytes = 200}, {.misses = 200, .used_bytes = 200, .bytes = 200}}},
        {.tid = 4243, .pc = {1, 0x710}, .write = false, .accesses = 10, .at = {}}};
    loc.exact_functions = {{.tid = 4242, .function = 0, .accesses = 900, .lru_misses = {450, 280, 280}},
                           {.tid = 4242, .function = 2, .accesses = 100, .lru_misses = {50, 20, 20}},
                           {.tid = 4243, .function = 1, .accesses = 10, .lru_misses = {10, 10, 10}}};
    return p;
}

void check_locality_equal(const Locality& got, const Locality& want) {
    CHECK(got.run.present == want.run.present);
    CHECK(got.run.mode == want.run.mode);
    CHECK(got.run.line_size == want.run.line_size);
    CHECK(got.run.sample_period == want.run.sample_period);
    CHECK(got.run.window_accesses == want.run.window_accesses);
    CHECK(got.run.seed == want.run.seed);
    REQUIRE(got.windows.size() == want.windows.size());
    for (size_t i = 0; i < want.windows.size(); ++i) {
        CAPTURE(i);
        CHECK(got.windows[i].tid == want.windows[i].tid);
        CHECK(got.windows[i].window == want.windows[i].window);
        CHECK(got.windows[i].accesses == want.windows[i].accesses);
        CHECK(got.windows[i].samples == want.windows[i].samples);
        CHECK(got.windows[i].unseen_accesses == want.windows[i].unseen_accesses);
        CHECK(got.windows[i].lost_records == want.windows[i].lost_records);
        CHECK(got.windows[i].lost_allocations == want.windows[i].lost_allocations);
    }
    REQUIRE(got.samples.size() == want.samples.size());
    for (size_t i = 0; i < want.samples.size(); ++i) {
        CAPTURE(i);
        const ReuseSample& g = got.samples[i];
        const ReuseSample& w = want.samples[i];
        CHECK(g.tid == w.tid);
        CHECK(g.window == w.window);
        CHECK(g.distance == w.distance);
        CHECK(g.sample.function == w.sample.function);
        CHECK(g.sample.address == w.sample.address);
        CHECK(g.trigger.function == w.trigger.function);
        CHECK(g.trigger.address == w.trigger.address);
        CHECK(g.address == w.address);
        CHECK(g.size == w.size);
        CHECK(g.sample_write == w.sample_write);
        CHECK(g.trigger_write == w.trigger_write);
        CHECK(g.position == w.position);
        CHECK(g.data == w.data);
    }
    REQUIRE(got.data.size() == want.data.size());
    for (size_t i = 0; i < want.data.size(); ++i) {
        CAPTURE(i);
        CHECK(got.data[i].id == want.data[i].id);
        CHECK(got.data[i].kind == want.data[i].kind);
        CHECK(got.data[i].object == want.data[i].object);
        CHECK(got.data[i].site.function == want.data[i].site.function);
        CHECK(got.data[i].site.address == want.data[i].site.address);
        CHECK(got.data[i].name == want.data[i].name);
        CHECK(got.data[i].size == want.data[i].size);
    }
    REQUIRE(got.tenures.size() == want.tenures.size());
    for (size_t i = 0; i < want.tenures.size(); ++i) {
        CAPTURE(i);
        const Tenure& g = got.tenures[i];
        const Tenure& w = want.tenures[i];
        CHECK(g.tid == w.tid);
        CHECK(g.position == w.position);
        CHECK(g.end == w.end);
        REQUIRE(g.steps.size() == w.steps.size());
        for (size_t k = 0; k < w.steps.size(); ++k) {
            CHECK(g.steps[k].gap == w.steps[k].gap);
            CHECK(g.steps[k].accesses == w.steps[k].accesses);
            CHECK(g.steps[k].bytes == w.steps[k].bytes);
            CHECK(g.steps[k].used == w.steps[k].used);
        }
    }
    REQUIRE(got.exact.size() == want.exact.size());
    for (size_t i = 0; i < want.exact.size(); ++i) {
        CAPTURE(i);
        CHECK(got.exact[i].tid == want.exact[i].tid);
        CHECK(got.exact[i].accesses == want.exact[i].accesses);
        CHECK(got.exact[i].lines == want.exact[i].lines);
        CHECK(got.exact[i].lru_misses == want.exact[i].lru_misses);
        CHECK(got.exact[i].random_lines == want.exact[i].random_lines);
        CHECK(got.exact[i].random_misses == want.exact[i].random_misses);
        CHECK(got.exact[i].detail_lines == want.exact[i].detail_lines);
    }
    REQUIRE(got.exact_instructions.size() == want.exact_instructions.size());
    for (size_t i = 0; i < want.exact_instructions.size(); ++i) {
        CAPTURE(i);
        const ExactInstruction& g = got.exact_instructions[i];
        const ExactInstruction& w = want.exact_instructions[i];
        CHECK(g.tid == w.tid);
        CHECK(g.pc.function == w.pc.function);
        CHECK(g.pc.address == w.pc.address);
        CHECK(g.write == w.write);
        CHECK(g.accesses == w.accesses);
        REQUIRE(g.at.size() == w.at.size());
        for (size_t k = 0; k < w.at.size(); ++k) {
            CHECK(g.at[k].misses == w.at[k].misses);
            CHECK(g.at[k].used_bytes == w.at[k].used_bytes);
            CHECK(g.at[k].bytes == w.at[k].bytes);
        }
    }
    REQUIRE(got.exact_functions.size() == want.exact_functions.size());
    for (size_t i = 0; i < want.exact_functions.size(); ++i) {
        CAPTURE(i);
        CHECK(got.exact_functions[i].tid == want.exact_functions[i].tid);
        CHECK(got.exact_functions[i].function == want.exact_functions[i].function);
        CHECK(got.exact_functions[i].accesses == want.exact_functions[i].accesses);
        CHECK(got.exact_functions[i].lru_misses == want.exact_functions[i].lru_misses);
    }
}

// Writes p through ProfileWriter, record by record as a collector does.
void write_through(const Profile& p, const std::string& path) {
    ProfileWriter w;
    w.open(path, p.header);
    for (const auto& o : p.objects) w.add_object(o);
    for (const auto& f : p.functions) w.add_function(f);
    for (const auto& t : p.threads) w.add_thread(t);
    w.add_locality_run(p.locality.run);
    for (const auto& iv : p.intervals) w.add_interval(iv);
    for (const auto& win : p.locality.windows) w.add_locality_window(win);
    for (const auto& o : p.locality.data) w.add_data_object(o);
    w.add_reuse_samples(p.locality.samples);
    w.add_tenures(p.locality.tenures);
    for (const auto& c : p.locality.exact) w.add_exact_curve(c);
    w.add_exact_functions(p.locality.exact_functions);
    w.add_exact_instructions(p.locality.exact_instructions);
    w.finish(p.end);
}

// A big-endian profile typed by hand: a HEADER without events, functions
// f0 and f1, then `records` (type, payload). Independent of the library's encoder.
struct HandFile {
    BigEndian file;
    std::vector<size_t> at;  // byte offset of each of `records`

    explicit HandFile(const std::vector<std::pair<uint32_t, std::string>>& records) {
        file.b = "SPROFILE";
        file.u32(0x01020304);
        file.u16(1);
        file.u16(3);
        BigEndian h;
        for (const char* s : {"sprof_lib", "perf", "/bin/x"}) h.str(s);
        h.u32(0), h.str("host"), h.u32(1), h.u64(0), h.str("cpu"), h.u64(1), h.u32(1), h.u64(0), h.u32(1), h.u32(0);
        add(1, h.b);
        for (uint32_t id : {0u, 1u}) {
            BigEndian f;
            f.u32(id), f.u32(0xffffffff), f.u64(0x100 * id), f.u64(0x100 * id + 0x80), f.str("f" + std::to_string(id));
            add(3, f.b);
        }
        for (const auto& [type, payload] : records) {
            at.push_back(file.b.size());
            add(type, payload);
        }
    }
    void add(uint32_t type, const std::string& payload) {
        file.u32(type), file.u32(static_cast<uint32_t>(payload.size())), file.b += payload;
    }
    Profile read() const { return parse_profile(file.b, "t.sprof"); }
    std::string error() const { return error_of(file.b); }
};

std::string run_payload(const std::string& mode = "sampled", uint32_t line_size = 64) {
    BigEndian r;
    r.str(mode), r.u32(line_size), r.u64(100'000), r.u64(1'000'000), r.u64(42);
    return r.b;
}

struct HandSample {
    uint32_t tid = 7, window = 0;
    uint64_t distance = 5;
    uint32_t sample_fn = 0;
    uint64_t sample_pc = 0x10;
    uint32_t trigger_fn = 1;
    uint64_t trigger_pc = 0x120, address = 0x4000;
    uint8_t size = 8, flags = 1;
};

std::string samples_payload(const std::vector<HandSample>& samples) {
    BigEndian r;
    r.u32(static_cast<uint32_t>(samples.size()));
    for (const auto& s : samples) {
        r.u32(s.tid), r.u32(s.window), r.u64(s.distance), r.u32(s.sample_fn), r.u64(s.sample_pc);
        r.u32(s.trigger_fn), r.u64(s.trigger_pc), r.u64(s.address), r.u8(s.size), r.u8(s.flags);
    }
    return r.b;
}

// (size, misses) pairs for LRU and for random replacement.
using Sizes = std::vector<std::pair<uint64_t, uint64_t>>;

std::string curve_payload(uint32_t tid, uint64_t accesses, const Sizes& lru, const Sizes& random = {}) {
    BigEndian r;
    r.u32(tid), r.u64(accesses);
    for (const Sizes* sizes : {&lru, &random}) {
        r.u32(static_cast<uint32_t>(sizes->size()));
        for (auto [lines, misses] : *sizes) r.u64(lines), r.u64(misses);
    }
    return r.b;
}

std::string functions_payload(uint32_t tid, uint32_t function, uint64_t accesses, const std::vector<uint64_t>& misses) {
    BigEndian r;
    r.u32(1), r.u32(tid), r.u32(function), r.u64(accesses), r.u32(static_cast<uint32_t>(misses.size()));
    for (uint64_t m : misses) r.u64(m);
    return r.b;
}

// REUSE_SAMPLES_WIDE entries of `entry` bytes: the 50 of REUSE_SAMPLES,
// position, data object, then zero bytes (fields of a newer minor).
std::string wide_payload(const std::vector<HandSample>& samples, uint64_t position, uint32_t data,
                         uint32_t entry = 62) {
    BigEndian r;
    r.u32(static_cast<uint32_t>(samples.size())), r.u32(entry);
    for (const auto& s : samples) {
        r.u32(s.tid), r.u32(s.window), r.u64(s.distance), r.u32(s.sample_fn), r.u64(s.sample_pc);
        r.u32(s.trigger_fn), r.u64(s.trigger_pc), r.u64(s.address), r.u8(s.size), r.u8(s.flags);
        r.u64(position), r.u32(data);
        if (entry > 62) r.b.append(entry - 62, '\0');  // a narrower entry (a hostile one) has no padding: the fields overrun it
    }
    return r.b;
}

struct HandStep {
    uint64_t gap;
    uint32_t accesses;
    uint64_t bytes, used;
};

std::string tenures_payload(uint64_t position, uint8_t end, const std::vector<HandStep>& steps) {
    BigEndian r;
    r.u32(1), r.u32(7), r.u64(position), r.u8(end), r.u8(static_cast<uint8_t>(steps.size()));
    for (const auto& s : steps) r.u64(s.gap), r.u32(s.accesses), r.u64(s.bytes), r.u64(s.used);
    return r.b;
}

std::string data_payload(uint32_t id, uint8_t kind, uint32_t object, uint32_t site_fn, const std::string& name) {
    BigEndian r;
    r.u32(id), r.u8(kind), r.u32(object), r.u32(site_fn), r.u64(0x40), r.str(name), r.u64(0);
    return r.b;
}

std::string detail_curve_payload(uint32_t tid, uint64_t accesses, const std::vector<uint64_t>& detail) {
    BigEndian r;
    r.u32(tid), r.u64(accesses), r.u32(0), r.u32(0), r.u32(static_cast<uint32_t>(detail.size()));
    for (uint64_t lines : detail) r.u64(lines);
    return r.b;
}

std::string instructions_payload(uint32_t tid, uint64_t accesses, const std::vector<std::array<uint64_t, 3>>& at,
                                 uint8_t write = 0) {
    BigEndian r;
    r.u32(1), r.u32(tid), r.u32(0), r.u64(0x20), r.u8(write), r.u64(accesses), r.u32(static_cast<uint32_t>(at.size()));
    for (const auto& u : at) r.u64(u[0]), r.u64(u[1]), r.u64(u[2]);
    return r.b;
}

std::string window_payload(uint32_t tid, uint32_t window, uint64_t accesses, uint64_t samples, uint64_t unseen) {
    BigEndian r;
    r.u32(tid), r.u32(window), r.u64(accesses), r.u64(samples), r.u64(unseen);
    return r.b;
}

// A 1.10 window part that says only what a thread's collection dropped.
std::string lost_part(uint32_t tid, uint64_t records, uint64_t allocations) {
    BigEndian r;
    r.u64(records), r.u64(allocations);
    return window_payload(tid, 0, 0, 0, 0) + r.b;
}

// The reader's error for a hand-typed file of `records`, and where its last record starts.
std::pair<std::string, size_t> error(const std::vector<std::pair<uint32_t, std::string>>& records) {
    HandFile f(records);
    return {f.error(), f.at.back()};
}

// The one-line error for a corrupt record of `type` at byte `at`.
std::string want(const char* type, size_t at, const std::string& why) {
    return "t.sprof: corrupt " + std::string(type) + " record at byte " + std::to_string(at) + " (" + why + ")";
}

}  // namespace

TEST_CASE("locality records round trip through a file, and in the other byte order") {
    const Profile want = locality_profile();
    SUBCASE("written record by record") {
        TempFile tmp;
        write_through(want, tmp.path);
        Profile got = read_profile(tmp.path);
        check_equal(got, want);
        check_locality_equal(got.locality, want.locality);
        CHECK(got.version_minor == kFormatMinor);
        CHECK(got.warnings.empty());
    }
    SUBCASE("encoded in the other byte order") {
        Profile got = parse_profile(encode_profile(want, ByteOrder::swapped), "swapped.sprof");
        CHECK(got.foreign_byte_order);
        check_locality_equal(got.locality, want.locality);
    }
    SUBCASE("a profile without locality has none") {
        Profile got = parse_profile(encode_profile(sample_profile()), "t.sprof");
        CHECK_FALSE(got.locality.run.present);
        CHECK(got.locality.samples.empty());
    }
}

TEST_CASE("tenures past 32 accesses go into TENURES_WEIGHTED, which a 1.8 reader skips, and read back") {
    Profile p = locality_profile();
    p.locality.tenures.push_back({.tid = 4242, .position = 500, .end = TenureEnd::capped,
                                  .steps = {{.gap = 3, .accesses = 20, .bytes = 160, .used = 0xff},
                                            {.gap = kNoReuse, .accesses = 66, .bytes = 528, .used = 0xff}}});
    const std::string b = encode_profile(p);
    std::map<uint32_t, int> types;
    for (size_t at : record_offsets(b)) ++types[get_u32(b, at)];
    CHECK(types[15] == 1);  // the two of at most 32 accesses
    CHECK(types[20] == 1);  // the one that won a roulette
    const Profile got = parse_profile(b, "t.sprof");
    REQUIRE(got.locality.tenures.size() == 3);
    CHECK(got.locality.tenures[2].position == 500);
    CHECK(got.locality.tenures[2].steps.back().accesses == 66);
    CHECK(got.locality.tenures[2].steps.back().bytes == 528);
}

TEST_CASE("locality record layout: LOCALITY, windows, data objects, then 62-byte reuse samples") {
    const std::string b = encode_profile(locality_profile());
    const auto at = record_offsets(b);
    // HEADER, 2 objects, 3 functions, 2 threads, 3 intervals, then LOCALITY.
    // Every payload ends with its 4-byte checksum (1.12).
    const size_t run = at[11];
    CHECK(get_u32(b, run) == 7);
    CHECK(get_u32(b, run + 4) == 4 + 7 + 4 + 8 + 8 + 8 + 4);  // "sampled", line size, period, window, seed, checksum
    CHECK(b.compare(run + 12, 7, "sampled") == 0);
    CHECK(get_u32(b, run + 8 + 11) == 128);
    for (size_t i = 12; i < 15; ++i) CHECK(get_u32(b, at[i]) == 8);  // three windows of 48 bytes and a checksum
    CHECK(get_u32(b, at[12] + 4) == 48 + 4);
    // Four DATA_OBJECTs: id, kind, object, site (function, address), name, size.
    for (size_t i = 15; i < 19; ++i) CHECK(get_u32(b, at[i]) == 16);
    CHECK(get_u32(b, at[16] + 4) == 4 + 1 + 4 + 12 + 4 + 5 + 8 + 4);  // the static "table", the checksum
    CHECK(static_cast<uint8_t>(b[at[16] + 8 + 4]) == 1);
    // REUSE_SAMPLES_WIDE: count, entry size, the entries.
    const size_t samples = at[19];
    CHECK(get_u32(b, samples) == 14);
    CHECK(get_u32(b, samples + 4) == 4 + 4 + 3 * 62 + 4);
    CHECK(get_u32(b, samples + 8) == 3);
    CHECK(get_u32(b, samples + 12) == 62);
    // The second sample: distance kNoReuse at +8 of the sample, trigger function 0xffffffff at +28,
    // its position at +50, its data object at +58.
    const size_t second = samples + 16 + 62;
    uint64_t distance, position;
    std::memcpy(&distance, b.data() + second + 8, 8);
    std::memcpy(&position, b.data() + second + 50, 8);
    CHECK(distance == kNoReuse);
    CHECK(get_u32(b, second + 28) == kNoFunction);
    CHECK(position == 1);
    CHECK(get_u32(b, second + 58) == 1);
    CHECK(static_cast<uint8_t>(b[samples + 16 + 49]) == 1);  // first sample: a write, its trigger a read
    // TENURES: count, then per tenure tid, position, end, steps, 28 bytes a step.
    CHECK(get_u32(b, at[20]) == 15);
    CHECK(get_u32(b, at[20] + 4) == 4 + (14 + 3 * 28) + (14 + 1 * 28) + 4);
    CHECK(get_u32(b, at[21]) == 10);
    CHECK(get_u32(b, at[21] + 4) == 4 + 8 + 4 + 3 * 16 + 4 + 1 * 16 + 4 + 2 * 8 + 4);
    CHECK(get_u32(b, at[23]) == 11);
    CHECK(get_u32(b, at[23] + 4) == 4 + 3 * (4 + 4 + 8 + 4 + 3 * 8) + 4);
    // EXACT_INSTRUCTIONS: count, then tid, pc, flags, accesses, detail counts × 24 bytes.
    CHECK(get_u32(b, at[24]) == 17);
    CHECK(get_u32(b, at[24] + 4) == 4 + 2 * (29 + 2 * 24) + 29 + 4);
}

TEST_CASE("a big-endian locality file typed by hand reads the fields it holds") {
    HandSample s;
    s.distance = 77;
    s.flags = 3;
    HandFile f({{7, run_payload("exact", 32)},
                {8, window_payload(7, 2, 1000, 4, 9)},
                {9, samples_payload({s})},
                {10, curve_payload(7, 50, {{8, 30}, {16, 20}}, {{16, 25}})},
                {11, functions_payload(7, 1, 40, {24, 16})}});
    Profile p = f.read();
    const Locality& loc = p.locality;
    CHECK(loc.run.mode == "exact");
    CHECK(loc.run.line_size == 32);
    CHECK(loc.run.sample_period == 100'000);
    CHECK(loc.run.window_accesses == 1'000'000);
    CHECK(loc.run.seed == 42);
    REQUIRE(loc.windows.size() == 1);
    CHECK(loc.windows[0].window == 2);
    CHECK(loc.windows[0].unseen_accesses == 9);
    REQUIRE(loc.samples.size() == 1);
    CHECK(loc.samples[0].distance == 77);
    CHECK(loc.samples[0].trigger.function == 1);
    CHECK(loc.samples[0].trigger.address == 0x120);
    CHECK(loc.samples[0].address == 0x4000);
    CHECK(loc.samples[0].sample_write);
    CHECK(loc.samples[0].trigger_write);
    REQUIRE(loc.exact.size() == 1);
    CHECK(loc.exact[0].lines == std::vector<uint64_t>{8, 16});
    CHECK(loc.exact[0].lru_misses == std::vector<uint64_t>{30, 20});
    CHECK(loc.exact[0].random_misses == std::vector<uint64_t>{25});
    REQUIRE(loc.exact_functions.size() == 1);
    CHECK(loc.exact_functions[0].lru_misses == std::vector<uint64_t>{24, 16});
}

TEST_CASE("parts of a window, of a thread's curve and of a function's counts add up") {
    HandFile f({{7, run_payload()},
                {8, window_payload(7, 0, 1000, 3, 10)},
                {10, curve_payload(7, 50, {{8, 30}, {16, 20}}, {{16, 25}})},
                {11, functions_payload(7, 1, 40, {24, 16})},
                {8, window_payload(8, 0, 500, 1, 0)},  // another thread's window between the parts
                {8, window_payload(7, 0, 24, 1, 6)},
                {8, lost_part(7, 5, 2)},  // 1.10: what the runtime dropped, as a part of window 0
                {8, lost_part(7, 1, 0)},
                {10, curve_payload(7, 5, {{8, 5}, {16, 1}}, {{16, 2}})},
                {11, functions_payload(7, 1, 5, {5, 1})},
                {11, functions_payload(7, 0, 1, {0, 0})}});
    const Locality loc = f.read().locality;
    REQUIRE(loc.windows.size() == 2);
    CHECK(loc.windows[0].tid == 7);
    CHECK(loc.windows[0].accesses == 1024);
    CHECK(loc.windows[0].samples == 4);
    CHECK(loc.windows[0].unseen_accesses == 16);
    CHECK(loc.windows[0].lost_records == 6);
    CHECK(loc.windows[0].lost_allocations == 2);
    CHECK(loc.windows[1].accesses == 500);
    CHECK(loc.windows[1].lost_records == 0);  // a 1.8 part: nothing said, nothing lost
    REQUIRE(loc.exact.size() == 1);
    CHECK(loc.exact[0].accesses == 55);
    CHECK(loc.exact[0].lru_misses == std::vector<uint64_t>{35, 21});
    CHECK(loc.exact[0].random_misses == std::vector<uint64_t>{27});
    REQUIRE(loc.exact_functions.size() == 2);
    CHECK(loc.exact_functions[0].function == 1);
    CHECK(loc.exact_functions[0].accesses == 45);
    CHECK(loc.exact_functions[0].lru_misses == std::vector<uint64_t>{29, 17});
    CHECK(loc.exact_functions[1].function == 0);
}

TEST_CASE("inconsistent locality records are one-line errors") {
    HandSample ok;
    SUBCASE("the run") {
        auto [e1, at1] = error({{7, run_payload("guess")}});
        CHECK(e1 == want("LOCALITY", at1, "unknown locality mode 'guess' (sampled or exact)"));
        auto [e2, at2] = error({{7, run_payload("sampled", 96)}});
        CHECK(e2 == want("LOCALITY", at2, "line size 96 is not a power of two"));
        auto [e3, at3] = error({{7, run_payload()}, {7, run_payload()}});
        CHECK(e3 == want("LOCALITY", at3, "second LOCALITY record"));
        auto [e4, at4] = error({{9, samples_payload({ok})}});
        CHECK(e4 == want("REUSE_SAMPLES", at4, "before the LOCALITY record"));
    }
    SUBCASE("samples") {
        HandSample s = ok;
        s.distance = 0;
        auto [e1, at1] = error({{7, run_payload()}, {9, samples_payload({ok, s})}});
        CHECK(e1 == want("REUSE_SAMPLES", at1, "reuse distance 0 (a trigger comes after its sample)"));
        s = ok;
        s.trigger_fn = 2;
        auto [e2, at2] = error({{7, run_payload()}, {9, samples_payload({s})}});
        CHECK(e2 == want("REUSE_SAMPLES", at2, "trigger PC refers to unknown function id 2"));
        s = ok;
        s.distance = kNoReuse;
        auto [e3, at3] = error({{7, run_payload()}, {9, samples_payload({s})}});
        CHECK(e3 == want("REUSE_SAMPLES", at3, "a sample without reuse has a trigger"));
        s.size = 0;
        auto [e4, at4] = error({{7, run_payload()}, {9, samples_payload({s})}});
        CHECK(e4 == want("REUSE_SAMPLES", at4, "sample of 0 bytes"));
        std::string many = samples_payload({ok});
        many[0] = 0x10;  // 0x10000001 samples of 50 bytes in a 54-byte record
        auto [e5, at5] = error({{7, run_payload()}, {9, many}});
        CHECK(e5 == want("REUSE_SAMPLES", at5, "268435457 samples do not fit in the record"));
    }
    SUBCASE("exact curves and functions") {
        auto [e1, at1] = error({{7, run_payload()}, {10, curve_payload(1, 50, {{16, 30}, {8, 20}})}});
        CHECK(e1 == want("EXACT_CURVE", at1, "LRU cache sizes not ascending from 1 line (8 lines at 1)"));
        auto [e2, at2] = error({{7, run_payload()}, {10, curve_payload(1, 50, {{8, 20}, {16, 30}})}});
        CHECK(e2 == want("EXACT_CURVE", at2, "LRU misses grow with the cache size (20 at size 0, 30 at size 1)"));
        auto [e3, at3] = error({{7, run_payload()}, {10, curve_payload(1, 50, {{8, 20}}, {{8, 51}})}});
        CHECK(e3 == want("EXACT_CURVE", at3, "51 misses at size 0, more than the 50 accesses"));
        auto [e4, at4] = error({{7, run_payload()}, {11, functions_payload(1, 0, 5, {1})}});
        CHECK(e4 == want("EXACT_FUNCTIONS", at4, "thread 1 has no EXACT_CURVE before it"));
        auto [e5, at5] = error(
            {{7, run_payload()}, {10, curve_payload(1, 50, {{8, 20}})}, {11, functions_payload(1, 0, 5, {1, 1})}});
        CHECK(e5 == want("EXACT_FUNCTIONS", at5, "function 0 has 2 miss counts, its thread's curve 1 sizes"));
        auto [e6, at6] = error(
            {{7, run_payload()}, {10, curve_payload(1, 50, {{8, 20}})}, {11, functions_payload(1, 9, 5, {1})}});
        CHECK(e6 == want("EXACT_FUNCTIONS", at6, "unknown function id 9"));
        auto [e7, at7] = error(
            {{7, run_payload()}, {10, curve_payload(1, 50, {{8, 20}})}, {10, curve_payload(1, 50, {{16, 20}})}});
        CHECK(e7 == want("EXACT_CURVE", at7, "a part of thread 1's curve with other cache sizes than its first"));
        auto [e8, at8] = error({{7, run_payload()},
                                {10, curve_payload(1, UINT64_MAX, {{8, 20}})},
                                {10, curve_payload(1, 2, {{8, 0}})}});
        CHECK(e8 == want("EXACT_CURVE", at8, "exact accesses overflow when adding parts"));
    }
}

TEST_CASE("the writer refuses what the reader would reject") {
    const Profile p = locality_profile();
    TempFile tmp;
    ProfileWriter w;
    w.open(tmp.path, p.header);
    for (const auto& f : p.functions) {
        if (f.object == kNoObject) w.add_function(f);
        else {
            w.add_object(p.objects[f.object]);
            w.add_function(f);
        }
    }
    CHECK_THROWS_WITH_AS(w.add_reuse_samples(p.locality.samples),
                         "profile writer: add_reuse_samples before add_locality_run()", ProfileError);
    LocalityRun odd = p.locality.run;
    odd.line_size = 100;
    CHECK_THROWS_WITH_AS(w.add_locality_run(odd),
                         (tmp.path + ": LOCALITY record not written: line size 100 is not a power of two").c_str(),
                         ProfileError);
    w.add_locality_run(p.locality.run);
    CHECK_THROWS_WITH_AS(w.add_locality_run(p.locality.run), (tmp.path + ": second LOCALITY record").c_str(),
                         ProfileError);
    for (const auto& o : p.locality.data) w.add_data_object(o);
    DataObject late = p.locality.data[0];
    CHECK_THROWS_WITH_AS(w.add_data_object(late),
                         (tmp.path + ": data object id 0 out of order (expected 4)").c_str(), ProfileError);
    ReuseSample bad = p.locality.samples[0];
    bad.sample.function = 3;
    CHECK_THROWS_WITH_AS(
        w.add_reuse_samples(std::vector{p.locality.samples[0], bad}),
        (tmp.path + ": REUSE_SAMPLES_WIDE record not written: sample PC refers to unknown function id 3").c_str(),
        ProfileError);
    CHECK_THROWS_WITH_AS(
        w.add_exact_functions(p.locality.exact_functions),
        (tmp.path + ": EXACT_FUNCTIONS record not written: thread 4242 has no EXACT_CURVE before it").c_str(),
        ProfileError);
    w.add_exact_curve(p.locality.exact[0]);
    ExactCurve other = p.locality.exact[0];
    other.lines = {16, 32, 128};
    CHECK_THROWS_WITH_AS(
        w.add_exact_curve(other),
        (tmp.path + ": EXACT_CURVE record not written: thread 4242: a part with other cache sizes than its first").c_str(),
        ProfileError);
    w.add_reuse_samples(p.locality.samples);
    w.finish(p.end);
    // What was refused left no bytes behind.
    Profile got = read_profile(tmp.path);
    CHECK(got.locality.samples.size() == 3);
    CHECK(got.locality.exact.size() == 1);
    CHECK(got.locality.exact_functions.empty());
}

TEST_CASE("locality detail typed by hand: wide samples skip fields they do not know, parts of instructions add up") {
    HandSample ok;
    HandFile good({{7, run_payload()},
                   {16, data_payload(0, 0, 0xffffffff, 1, "")},
                   {16, data_payload(1, 2, 0xffffffff, 0xffffffff, "[stack]")},
                   {14, wide_payload({ok, ok}, 12345, 1, 80)},
                   {15, tenures_payload(12345, 0, {{1, 1, 8, 1}, {kNoReuse, 4, 32, 0xf}})},
                   {10, detail_curve_payload(7, 100, {512, 4096})},
                   {17, instructions_payload(7, 60, {{10, 640, 80}, {2, 128, 16}}, 1)},
                   {17, instructions_payload(7, 40, {{5, 320, 40}, {1, 64, 8}}, 1)}});
    const Locality loc = good.read().locality;
    REQUIRE(loc.data.size() == 2);
    CHECK(loc.data[0].kind == DataKind::heap);
    CHECK(loc.data[0].site.function == 1);
    CHECK(loc.data[0].site.address == 0x40);
    CHECK(loc.data[1].kind == DataKind::stack);
    CHECK(loc.data[1].name == "[stack]");
    REQUIRE(loc.samples.size() == 2);
    CHECK(loc.samples[1].position == 12345);
    CHECK(loc.samples[1].data == 1);
    CHECK(loc.samples[1].trigger.address == 0x120);
    REQUIRE(loc.tenures.size() == 1);
    CHECK(loc.tenures[0].steps.size() == 2);
    CHECK(loc.tenures[0].steps[1].used == 0xf);
    REQUIRE(loc.exact.size() == 1);
    CHECK(loc.exact[0].detail_lines == std::vector<uint64_t>{512, 4096});
    REQUIRE(loc.exact_instructions.size() == 1);
    const ExactInstruction& i = loc.exact_instructions[0];
    CHECK(i.write);
    CHECK(i.accesses == 100);
    CHECK(i.at[0].misses == 15);
    CHECK(i.at[0].used_bytes == 960);
    CHECK(i.at[1].bytes == 24);
}

TEST_CASE("inconsistent locality detail is a one-line error") {
    HandSample ok;
    SUBCASE("wide samples") {
        auto [e1, at1] = error({{7, run_payload()}, {14, wide_payload({ok}, 1, 0)}});
        CHECK(e1 == want("REUSE_SAMPLES_WIDE", at1, "sample refers to unknown data object 0"));
        auto [e2, at2] = error({{7, run_payload()}, {14, wide_payload({ok}, 1, kNoData, 61)}});
        CHECK(e2 == want("REUSE_SAMPLES_WIDE", at2, "samples of 61 bytes, fewer than the 62 of their fields"));
        std::string many = wide_payload({ok}, 1, kNoData);
        many[0] = 0x10;
        auto [e3, at3] = error({{7, run_payload()}, {14, many}});
        CHECK(e3 == want("REUSE_SAMPLES_WIDE", at3, "268435457 samples do not fit in the record"));
    }
    SUBCASE("tenures") {
        auto tenure = [&](uint8_t end, std::vector<HandStep> steps) {
            return error({{7, run_payload()}, {15, tenures_payload(5, end, steps)}});
        };
        auto [e1, at1] = tenure(0, {{2, 1, 8, 1}, {2, 2, 16, 1}});
        CHECK(e1 == want("TENURES", at1, "tenure gaps not ascending"));
        auto [e2, at2] = tenure(0, {{2, 1, 8, 3}, {kNoReuse, 2, 16, 1}});
        CHECK(e2 == want("TENURES", at2, "a tenure step holds less than the one before it"));
        auto [e3, at3] = tenure(1, {{2, 1, 8, 1}, {kNoReuse, 2, 16, 1}});
        CHECK(e3 == want("TENURES", at3, "an aged tenure without its last gap"));
        auto [e4, at4] = tenure(0, {{2, 1, 8, 1}});
        CHECK(e4 == want("TENURES", at4, "a tenure ends with a gap it did not see"));
        auto [e5, at5] = tenure(0, {{kNoReuse, 0, 64, 1}});
        CHECK(e5 == want("TENURES", at5, "tenure step of 0 accesses"));
        CHECK(tenure(2, {{kNoReuse, 66, 528, 1}}).first == "no error");  // a roulette won: over 32, weighted (1.10)
        auto [e6, at6] = tenure(7, {{kNoReuse, 1, 1, 1}});
        CHECK(e6 == want("TENURES", at6, "tenure ended in an unknown way (7)"));
        auto [e7, at7] = tenure(0, {});
        CHECK(e7 == want("TENURES", at7, "tenure with 0 steps (1 to 16)"));
        std::string cut = tenures_payload(5, 0, {{kNoReuse, 1, 1, 1}});
        cut[cut.size() - 29] = 9;  // nine steps announced, one present
        auto [e8, at8] = error({{7, run_payload()}, {15, cut}});
        CHECK(e8 == want("TENURES", at8, "9 tenure steps do not fit in the record"));
    }
    SUBCASE("data objects and instructions") {
        auto [e1, at1] = error({{7, run_payload()}, {16, data_payload(1, 0, 0xffffffff, 0, "")}});
        CHECK(e1 == want("DATA_OBJECT", at1, "data object id 1 out of order (expected 0)"));
        auto [e2, at2] = error({{7, run_payload()}, {16, data_payload(0, 1, 3, 0xffffffff, "x")}});
        CHECK(e2 == want("DATA_OBJECT", at2, "static data in unknown object id 3"));
        auto [e3, at3] = error({{7, run_payload()}, {16, data_payload(0, 9, 0xffffffff, 0xffffffff, "")}});
        CHECK(e3 == want("DATA_OBJECT", at3, "unknown data kind 9"));
        auto [e4, at4] = error({{7, run_payload()}, {17, instructions_payload(7, 5, {})}});
        CHECK(e4 == want("EXACT_INSTRUCTIONS", at4, "thread 7 has no EXACT_CURVE before it"));
        auto [e5, at5] = error({{7, run_payload()},
                                {10, detail_curve_payload(7, 10, {512})},
                                {17, instructions_payload(7, 5, {{6, 64, 6}})}});
        CHECK(e5 == want("EXACT_INSTRUCTIONS", at5, "6 misses of an instruction of 5 accesses"));
        auto [e6, at6] = error({{7, run_payload()},
                                {10, detail_curve_payload(7, 10, {512})},
                                {17, instructions_payload(7, 5, {{1, 64, 1}, {1, 64, 1}})}});
        CHECK(e6 == want("EXACT_INSTRUCTIONS", at6, "instruction with 2 detail counts, its thread's curve 1 detail sizes"));
        auto [e7, at7] = error({{7, run_payload()},
                                {10, detail_curve_payload(7, 10, {512})},
                                {17, instructions_payload(7, 5, {{1, 64, 1}}, 1)},
                                {17, instructions_payload(7, 5, {{1, 64, 1}}, 0)}});
        CHECK(e7 == want("EXACT_INSTRUCTIONS", at7, "parts of an instruction disagree on whether it writes"));
    }
}
