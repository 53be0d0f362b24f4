// Reading a profile as it is written: the stream fed in pieces of any size
// reads exactly what the whole file reads, and the follower reads only the
// bytes appended since its last look.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <tuple>

#include "profile_io_support.hpp"
#include "sprof/profile_follower.hpp"
#include "sprof/profile_names.hpp"
#include "sprof/profile_stream.hpp"

using namespace sprof;
using namespace sprof::test;

namespace {

// A profile whose interval (4242, 0) comes in two parts with records between.
Profile parted_profile() {
    Profile p = sample_profile();
    Interval first = p.intervals[0], second = p.intervals[0];
    first.cells.resize(1);
    first.end_ns = 60'000'000;
    second.cells.erase(second.cells.begin());
    second.start_ns = 60'000'000;
    p.intervals = {first, p.intervals[1], second, p.intervals[2]};
    return p;
}

// Feeds `bytes` in pieces of the given sizes (cycled) as the follower does:
// what a feed leaves is fed again with the next piece.
Profile fed_in_pieces(const std::string& bytes, const std::vector<size_t>& sizes, std::vector<size_t>* changed) {
    ProfileStream s("t.sprof", true);
    std::string pending;
    for (size_t at = 0, k = 0; at < bytes.size(); ++k) {
        const size_t n = std::min(sizes[k % sizes.size()], bytes.size() - at);
        pending.append(bytes, at, n);
        at += n;
        pending.erase(0, s.feed(pending));
        for (size_t i : s.take_changed()) changed->push_back(i);
    }
    return std::move(s).finish(pending);
}

void append(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

}  // namespace

TEST_CASE("a profile fed in pieces of any size reads as the whole file") {
    const std::string bytes = encode_profile(parted_profile());
    const Profile whole = parse_profile(bytes, "t.sprof");
    std::mt19937 rng(7);
    std::vector<std::vector<size_t>> splits = {{1}, {2}, {3}, {7}, {15, 1}, {64}, {bytes.size()}};
    for (int k = 0; k < 20; ++k) {
        std::vector<size_t> sizes;
        for (int j = 0; j < 10; ++j) sizes.push_back(1 + rng() % 80);
        splits.push_back(sizes);
    }
    for (const auto& sizes : splits) {
        CAPTURE(sizes[0]);
        std::vector<size_t> changed;
        check_equal(fed_in_pieces(bytes, sizes, &changed), whole);
        // Every interval was told as changed, the parted one when each part came.
        std::sort(changed.begin(), changed.end());
        changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
        CHECK(changed == std::vector<size_t>{0, 1, 2});
    }
    SUBCASE("and the other byte order too") {
        const std::string swapped = encode_profile(parted_profile(), ByteOrder::swapped);
        std::vector<size_t> changed;
        check_equal(fed_in_pieces(swapped, {5}, &changed), whole);
    }
}

TEST_CASE("a profile with source lines fed in pieces reads as the whole file") {
    const Profile want = lines_profile();
    const std::string bytes = encode_profile(want);
    for (size_t piece : {size_t{1}, size_t{9}, size_t{33}}) {
        CAPTURE(piece);
        std::vector<size_t> changed;
        const Profile fed = fed_in_pieces(bytes, {piece}, &changed);
        check_equal(fed, want);
        // Its LINE_CELLS come after their INTERVAL: each interval was told.
        std::sort(changed.begin(), changed.end());
        changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
        CHECK(changed.size() == want.intervals.size());
    }
}

TEST_CASE("a stream fed a cut-short file tells what the whole-file reader tells") {
    const std::string bytes = encode_profile(parted_profile());
    for (size_t len : {size_t{0}, size_t{5}, size_t{12}, size_t{40}, bytes.size() - 3}) {
        CAPTURE(len);
        const std::string cut = bytes.substr(0, len);
        std::vector<size_t> changed;
        std::string whole_error, fed_error;
        Profile whole, fed;
        try {
            whole = parse_profile(cut, "t.sprof");
        } catch (const ProfileError& e) {
            whole_error = e.what();
        }
        try {
            fed = fed_in_pieces(cut.empty() ? std::string() : cut, {3}, &changed);
        } catch (const ProfileError& e) {
            fed_error = e.what();
        }
        if (cut.empty()) {  // nothing fed at all: finish() of no bytes alone
            try {
                ProfileStream("t.sprof").finish({});
            } catch (const ProfileError& e) {
                fed_error = e.what();
            }
        }
        CHECK(fed_error == whole_error);
        CHECK(fed.warnings == whole.warnings);
        CHECK(fed.intervals.size() == whole.intervals.size());
    }
    // A bad magic is told from its first byte on, without waiting for more.
    ProfileStream s("t.sprof");
    CHECK_THROWS_WITH_AS(s.feed("SPX"), "t.sprof: not an sprof profile (bad magic)", ProfileError);
}

TEST_CASE("the follower reads only what was appended, record by record") {
    TempFile tmp;
    ProfileFollower f(tmp.path);
    CHECK_FALSE(f.open());  // not there yet
    std::ofstream(tmp.path, std::ios::binary).close();
    REQUIRE(f.open());
    CHECK_FALSE(f.poll());  // empty: a collector has created it, nothing written yet

    const Profile want = parted_profile();
    const std::string bytes = encode_profile(want);
    const auto at = record_offsets(bytes);
    // Each record in two writes, cut in its middle: the first half waits in
    // the tail, the second completes it.
    append(tmp.path, bytes.substr(0, 16 + 3));
    f.poll();
    CHECK(f.stream().consumed() == 16);
    CHECK(f.pending() == 3);
    size_t written = 16 + 3;
    for (size_t i = 0; i < at.size(); ++i) {
        const size_t end = i + 1 < at.size() ? at[i + 1] : bytes.size();
        const size_t middle = (at[i] + end) / 2;
        if (middle > written) {
            append(tmp.path, bytes.substr(written, middle - written));
            written = middle;
            f.poll();
            CHECK(f.stream().consumed() == at[i]);
        }
        append(tmp.path, bytes.substr(written, end - written));
        written = end;
        CHECK(f.poll());
        CHECK(f.stream().consumed() == end);
        CHECK(f.pending() == 0);
        CHECK(f.bytes_read() == end);
    }
    CHECK_FALSE(f.poll());  // nothing new
    check_equal(f.stream().profile(), parse_profile(bytes, "t.sprof"));
}

TEST_CASE("an END taken back is forgotten; any other shrinking is an error") {
    TempFile tmp;
    const Profile want = parted_profile();
    const std::string bytes = encode_profile(want);
    const size_t end_at = record_offsets(bytes).back();  // the END record
    append(tmp.path, bytes);
    ProfileFollower f(tmp.path);
    REQUIRE(f.open());
    f.poll();
    REQUIRE(f.stream().profile().end.present);

    SUBCASE("an exec that failed: END cut off, then more intervals and a new END") {
        REQUIRE(::truncate(tmp.path.c_str(), static_cast<off_t>(end_at)) == 0);
        f.poll();
        CHECK_FALSE(f.stream().profile().end.present);
        Profile more = want;
        more.intervals = {{.tid = 4242, .seq = 2, .start_ns = 200'000'000, .end_ns = 300'000'000,
                           .cells = {{0, 3, 30, {{30, 30, NAN}, {1, 30, NAN}}}}, .lines = {}}};
        const std::string tail = encode_profile(more);
        const size_t first_interval = record_offsets(tail)[record_offsets(tail).size() - 2];
        append(tmp.path, tail.substr(first_interval));  // the new interval and END
        CHECK(f.poll());
        CHECK(f.stream().profile().end.present);
        REQUIRE(f.stream().profile().intervals.size() == 4);
        CHECK(f.stream().profile().intervals[3].seq == 2);
    }
    SUBCASE("taken back and written again before the follower looked") {
        REQUIRE(::truncate(tmp.path.c_str(), static_cast<off_t>(end_at)) == 0);
        Profile more = want;
        more.intervals = {{.tid = 4243, .seq = 1, .start_ns = 1, .end_ns = 2, .cells = {}, .lines = {}}};
        const std::string tail = encode_profile(more);
        append(tmp.path, tail.substr(record_offsets(tail)[record_offsets(tail).size() - 2]));
        CHECK(f.poll());
        CHECK(f.stream().profile().intervals.size() == 4);
        CHECK(f.stream().profile().end.present);
    }
    SUBCASE("a file cut shorter than its END was rewritten: an error") {
        REQUIRE(::truncate(tmp.path.c_str(), 100) == 0);
        CHECK_THROWS_WITH_AS(f.poll(),
                             (tmp.path + ": shrank from " + std::to_string(bytes.size()) +
                              " to 100 bytes while followed (rewritten by another run?)")
                                 .c_str(),
                             ProfileError);
    }
}

TEST_CASE("the follower refuses what cannot be followed, and corrupt records") {
    CHECK_THROWS_WITH_AS(ProfileFollower("/").open(),
                         "/: not a regular file (only a file being written can be followed)", ProfileError);
    TempFile tmp;
    std::string bytes = encode_profile(sample_profile());
    set_u32(bytes, record_offsets(bytes)[0], 5);  // the HEADER typed as an INTERVAL
    reseal(bytes, record_offsets(bytes)[0]);
    append(tmp.path, bytes);
    ProfileFollower f(tmp.path);
    REQUIRE(f.open());
    CHECK_THROWS_WITH_AS(f.poll(), (tmp.path + ": INTERVAL record (type 5) before HEADER at byte 16").c_str(),
                         ProfileError);
}

TEST_CASE("profile names of exec'd images") {
    CHECK(image_path("app.12.sprof", 0) == "app.12.sprof");
    CHECK(image_path("app.12.sprof", 1) == "app.12.exec1.sprof");
    CHECK(image_path("out", 3) == "out.exec3");
    CHECK(insert_before_ending("job.sprof", ".rank3") == "job.rank3.sprof");
    for (const auto& [path, first, image] : std::vector<std::tuple<std::string, std::string, unsigned>>{
             {"app.12.exec2.sprof", "app.12.sprof", 2},
             {"dir/x.exec10.sprof", "dir/x.sprof", 10},
             {"out.exec3", "out", 3},
             {"app.12.sprof", "app.12.sprof", 0},
             {"app.exec0.sprof", "app.exec0.sprof", 0},    // never written: image 0 has no tag
             {"app.exec01.sprof", "app.exec01.sprof", 0},  // nor leading zeros
             {"app.exec.sprof", "app.exec.sprof", 0},
             {"exec2.sprof", "exec2.sprof", 0}}) {
        CAPTURE(path);
        const ImageOfPath of = image_of_path(path);
        CHECK(of.first == first);
        CHECK(of.image == image);
        if (image) CHECK(image_path(of.first, of.image) == path);
    }
}
