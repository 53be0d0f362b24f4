// The checksum of every record (format 1.12): CRC32C against its
// definition, where the writer puts it, old files without it, and a damaged
// file told from a cut-short one (docs/FORMAT.md).
#include <doctest/doctest.h>

#include <random>
#include <regex>

#include "profile_io_support.hpp"
#include "sprof/crc32c.hpp"

using namespace sprof;
using namespace sprof::test;

namespace {

uint16_t get_u16(const std::string& b, size_t at) {
    uint16_t v;
    std::memcpy(&v, b.data() + at, 2);
    return v;
}

// The record of `at` (record_offsets) that holds byte i.
size_t record_holding(const std::vector<size_t>& at, size_t i) {
    size_t r = at.front();
    for (size_t s : at)
        if (s <= i) r = s;
    return r;
}

// sample_profile() with `n` intervals more, of one thread: a run long
// enough that its middle is far from both ends.
Profile long_profile(uint32_t n) {
    Profile p = sample_profile();
    for (uint32_t k = 0; k < n; ++k) {
        Interval iv = p.intervals[0];
        iv.seq = 2 + k;
        iv.start_ns = iv.end_ns = 200'000'000 + k * 100'000'000ull;
        iv.end_ns += 100'000'000;
        iv.cells[0].samples += k;
        p.intervals.push_back(iv);
    }
    return p;
}

}  // namespace

TEST_CASE("crc32c: the check value, and bit by bit on random bytes at any alignment") {
    CHECK(crc32c("123456789", 9) == 0xE3069283u);  // CRC-32C's published check value
    CHECK(crc32c_portable("123456789", 9) == 0xE3069283u);
    CHECK(crc32c("", 0) == 0);
    std::mt19937 rng(2711);
    for (int round = 0; round < 300; ++round) {
        std::string b(rng() % 700, '\0');
        for (auto& c : b) c = static_cast<char>(rng());
        const size_t skip = rng() % (b.size() + 1);
        const char* p = b.data() + skip;
        const size_t n = b.size() - skip;
        CAPTURE(n);
        CHECK(crc32c(p, n) == crc32c_bitwise(p, n));
        CHECK(crc32c_portable(p, n) == crc32c_bitwise(p, n));
    }
}

TEST_CASE("every record ends with the CRC32C of its bytes, in the writer's byte order; HEADER repeats the minor") {
    for (const Profile& p : {sample_profile(), lines_profile()}) {
        const std::string b = encode_profile(p);
        const auto at = record_offsets(b);
        CHECK(at.back() + 8 + get_u32(b, at.back() + 4) == b.size());
        for (size_t r : at) {
            const size_t covered = 8 + get_u32(b, r + 4) - 4;
            CHECK(get_u32(b, r + covered) == crc32c_bitwise(b.data() + r, covered));
        }
        const size_t header_end = at[0] + 8 + get_u32(b, at[0] + 4);
        CHECK(get_u16(b, header_end - 4 - 2) == kFormatMinor);

        const std::string swapped = encode_profile(p, ByteOrder::swapped);
        REQUIRE(swapped.size() == b.size());
        for (size_t r : at) {  // the same offsets: only the order of each field's bytes differs
            const size_t covered = 8 + get_u32(b, r + 4) - 4;
            CHECK(__builtin_bswap32(get_u32(swapped, r + covered)) == crc32c_bitwise(swapped.data() + r, covered));
        }
    }
}

TEST_CASE("a 1.11 file, without checksums, still reads") {
    const Profile want = lines_profile();
    const std::string b = encode_profile(want);
    std::string old = b.substr(0, 16);
    const uint16_t eleven = 11;
    std::memcpy(old.data() + 14, &eleven, 2);
    for (size_t r : record_offsets(b)) {  // each record without its checksum, the HEADER without the minor
        const uint32_t type = get_u32(b, r);
        const uint32_t length = get_u32(b, r + 4) - 4 - (type == 1 ? 2 : 0);
        std::string head(8, '\0');
        set_u32(head, 0, type);
        set_u32(head, 4, length);
        old += head + b.substr(r + 8, length);
    }
    Profile got = parse_profile(old, "old.sprof");
    CHECK(got.version_minor == 11);
    CHECK(got.warnings.empty());
    got.version_minor = kFormatMinor;
    check_equal(got, want);
}

TEST_CASE("a byte changed anywhere is an error naming its record; --salvage reads around the record") {
    const Profile want = sample_profile();
    const std::string good = encode_profile(want);
    const auto at = record_offsets(good);
    auto next_record = [&](size_t r) {
        auto it = std::upper_bound(at.begin(), at.end(), r);
        return it == at.end() ? good.size() : *it;
    };
    const std::regex salvaged("t\\.sprof: salvaged: passed over 1 corrupt record at byte (\\d+) \\((\\d+) bytes\\)");
    std::mt19937 rng(97);
    for (size_t i = 0; i < good.size(); ++i) {
        std::string bad = good;
        bad[i] = static_cast<char>(bad[i] ^ (1 + rng() % 255));
        CAPTURE(i);
        const std::string error = error_of(bad);
        CAPTURE(error);
        if (i < 16) {  // the file header: each part is checked on its own
            const std::string what = i < 8    ? "t.sprof: not an sprof profile (bad magic)"
                                     : i < 12 ? "t.sprof: not an sprof profile (unknown byte-order tag"
                                     : i < 14 ? "t.sprof: profile format version "
                                              : "t.sprof: corrupt HEADER record at byte 16 (written as format 1." +
                                                    std::to_string(kFormatMinor) + ", the file header at byte 14 says 1.";
            CHECK(error.starts_with(what));
            continue;
        }
        const size_t r = record_holding(at, i);
        CHECK(std::regex_match(error, std::regex("t\\.sprof: corrupt [A-Za-z_]+ record at byte " + std::to_string(r) +
                                                 " \\(.*\\)")));
        if (r == at[0]) {  // nothing is read without the HEADER
            CHECK_THROWS_AS(parse_profile(bad, "t.sprof", {.salvage = true}), ProfileError);
            continue;
        }
        const Profile got = parse_profile(bad, "t.sprof", {.salvage = true});
        REQUIRE_FALSE(got.warnings.empty());
        std::smatch m;
        REQUIRE(std::regex_match(got.warnings[0], m, salvaged));
        const size_t from = std::stoul(m[1]), to = from + std::stoul(m[2]);
        CHECK(from == r);
        // The record, or (its length damaged so that it ends where a later one does) the records up to there.
        CHECK(to >= next_record(r));
        CHECK((to == good.size() || std::binary_search(at.begin(), at.end(), to)));
        size_t intervals_lost = 0;
        for (size_t s : at)
            if (s >= from && s < to && get_u32(good, s) == 5) ++intervals_lost;
        CHECK(got.intervals.size() == want.intervals.size() - intervals_lost);
        CHECK(got.end.present == (to <= at.back()));
        // Functions passed over have stand-ins: the intervals still name every function.
        REQUIRE(got.functions.size() == want.functions.size());
        if (get_u32(good, r) == 3) {
            const auto id = std::count_if(at.begin(), at.end(), [&](size_t s) { return s < r && get_u32(good, s) == 3; });
            CHECK(got.functions[id].name == "[corrupt record]");
        }
    }
}

TEST_CASE("100 bytes XOR-ed in the middle are an error at their record, not a cut-short run") {
    const std::string good = encode_profile(long_profile(60));
    const auto at = record_offsets(good);
    std::string bad = good;
    const size_t middle = good.size() / 2;
    for (size_t i = middle; i < middle + 100; ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    const size_t r = record_holding(at, middle);
    const std::string error = error_of(bad);
    CHECK(error.starts_with("t.sprof: corrupt INTERVAL record at byte " + std::to_string(r) + " ("));

    // With --salvage: every interval but those the 100 bytes touched.
    const Profile got = parse_profile(bad, "t.sprof", {.salvage = true});
    const size_t last = record_holding(at, middle + 99);
    size_t touched = 0;
    for (size_t s : at) touched += s >= r && s <= last;
    CHECK(got.intervals.size() == long_profile(60).intervals.size() - touched);
    CHECK(got.end.present);
    REQUIRE(got.warnings.size() == 1);
    CHECK(got.warnings[0].starts_with("t.sprof: salvaged: passed over "));
    CHECK(got.warnings[0].find(" at byte " + std::to_string(r) + " (") != std::string::npos);
}

TEST_CASE("a length damaged past the end of the file is told from a write cut short") {
    const std::string good = encode_profile(long_profile(10));
    const auto at = record_offsets(good);
    SUBCASE("a record in the middle: intact records follow it") {
        std::string bad = good;
        set_u32(bad, at[10] + 4, 0x00ffffff);
        CHECK(error_of(bad) == "t.sprof: corrupt INTERVAL record at byte " + std::to_string(at[10]) +
                                   " (its length runs past the end of the file, and an intact record follows at "
                                   "byte " + std::to_string(at[11]) + ")");
    }
    SUBCASE("the last record: its checksum says it ends at the end of the file") {
        std::string bad = good;
        set_u32(bad, at.back() + 4, get_u32(good, at.back() + 4) + 1);
        CHECK(error_of(bad) == "t.sprof: corrupt END record at byte " + std::to_string(at.back()) +
                                   " (its length runs past the end of the file, where its checksum says it ends)");
    }
    SUBCASE("a write cut short is a warning, as before") {
        const Profile got = parse_profile(good.substr(0, at.back() + 5), "t.sprof");
        REQUIRE(got.warnings.size() == 1);
        CHECK(got.warnings[0] == "t.sprof: truncated after 13 complete intervals (5 bytes ignored)");
    }
}

TEST_CASE("a write cut inside an interval's line cells drops that interval: every report sees the same intervals") {
    Profile p = lines_profile();
    p.intervals.back().lines = p.intervals.front().lines;
    const std::string good = encode_profile(p);
    size_t last_cells = 0;  // the LINE_CELLS record of the last interval
    for (size_t r : record_offsets(good))
        if (get_u32(good, r) == 19) last_cells = r;
    REQUIRE(last_cells > 0);
    for (size_t cut : {last_cells + 4, last_cells + 9, last_cells + 20}) {
        CAPTURE(cut);
        const Profile got = parse_profile(good.substr(0, cut), "t.sprof");
        CHECK(got.intervals.size() == p.intervals.size() - 1);
        REQUIRE(got.warnings.size() == 1);
        CHECK(got.warnings[0].starts_with("t.sprof: truncated after 2 complete intervals"));
    }
    // Cut before its cells begin, the interval is whole as far as the file can tell.
    const Profile before = parse_profile(good.substr(0, last_cells + 3), "t.sprof");
    CHECK(before.intervals.size() == p.intervals.size());
}
