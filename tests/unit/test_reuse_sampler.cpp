// The reuse sampler against streams whose reuse distances are known: every
// access carries its own number as its "PC", so each sample names the two
// accesses it joins and the test checks them against the stream itself.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "sprof/reuse_sampler.hpp"

using namespace sprof;

namespace {

// Feeds a stream of lines to a sampler as the runtime does: the fast path
// first, the slow path when it asks.
struct Stream {
    HotPath hot;  // zero-initialised, as thread-local storage is
    ReuseSampler sampler;
    std::vector<uint64_t> lines;  // lines[k - 1]: the line of access k
    std::vector<RawReuse> samples;
    std::vector<LocalityWindow> windows;

    explicit Stream(SamplerSettings s, uint64_t seed = 1) : sampler(s, 77, seed) {}

    void access(uint64_t line, bool write = false) {
        lines.push_back(line);
        if (uint64_t n; count_access(hot, line, n))
            sampler.access(hot, n, line, Access{line * 64 + 8, n, 8, write});
    }
    void finish() { sampler.finish(lines.size(), hot.unseen_words, samples, windows); }
};

// The access after `k` (1-based) to the same line, or 0.
uint64_t next_use(const std::vector<uint64_t>& lines, uint64_t k) {
    for (uint64_t j = k + 1; j <= lines.size(); ++j)
        if (lines[j - 1] == lines[k - 1]) return j;
    return 0;
}

// Every sample joins an access to the next access of its line, or says there is none.
void check_against_stream(const Stream& s) {
    for (const RawReuse& r : s.samples) {
        CAPTURE(r.sample_pc);
        REQUIRE(r.sample_pc >= 1);
        REQUIRE(r.sample_pc <= s.lines.size());
        CHECK(r.address == s.lines[r.sample_pc - 1] * 64 + 8);
        const uint64_t next = next_use(s.lines, r.sample_pc);
        if (next == 0) {
            CHECK(r.distance == kNoReuse);
        } else {
            CHECK(r.distance == next - r.sample_pc);
            CHECK(r.trigger_pc == next);
        }
    }
}

}  // namespace

TEST_CASE("a cyclic sweep over N lines: every sampled reuse distance is N") {
    constexpr uint64_t N = 1000, sweeps = 200, period = 97;
    Stream s({.line_size = 64, .period = period, .window_accesses = 1'000'000'000});
    for (uint64_t k = 0; k < sweeps; ++k)
        for (uint64_t line = 0; line < N; ++line) s.access(line + 5000);
    s.finish();
    size_t reused = 0;
    for (const RawReuse& r : s.samples) {
        if (r.distance != kNoReuse) {
            CHECK(r.distance == N);
            ++reused;
        } else {
            CHECK(r.sample_pc > (sweeps - 1) * N);  // only the last sweep has no reuse
        }
    }
    // Sample points are Binomial(accesses, 1/period): within 5 standard deviations.
    const double accesses = N * sweeps, mean = accesses / period, sd = std::sqrt(mean * (1 - 1.0 / period));
    CHECK(std::abs(static_cast<double>(s.samples.size()) - mean) < 5 * sd);
    CHECK(reused + s.sampler.open_samples() <= s.samples.size());
    REQUIRE(s.windows.size() == 1);
    CHECK(s.windows[0].accesses == N * sweeps);
    CHECK(s.windows[0].samples == s.samples.size());
    CHECK(s.sampler.lost() == 0);
}

TEST_CASE("random streams: each sample joins an access to the next use of its line") {
    std::mt19937_64 rng(7);
    for (uint64_t lines : {3u, 50u, 5000u}) {
        CAPTURE(lines);
        Stream s({.line_size = 64, .period = 13, .window_accesses = 1'000'000}, lines);
        std::uniform_int_distribution<uint64_t> pick(0, lines - 1);
        for (int i = 0; i < 100'000; ++i) s.access(pick(rng));
        s.finish();
        CHECK(s.samples.size() > 100'000 / 13 / 2);
        check_against_stream(s);
    }
}

TEST_CASE("every access a sample point: the tables grow, nothing is lost or invented") {
    // 40,000 distinct lines, each used twice 30,000 accesses apart, then 10,000 used once.
    Stream s({.line_size = 64, .period = 1, .window_accesses = 1'000'000'000});
    std::vector<LocalityWindow> no_windows;
    for (uint64_t i = 0; i < 30'000; ++i) s.access(i);
    for (uint64_t i = 0; i < 30'000; ++i) {
        s.access(i);
        if (i % 10'000 == 0) s.sampler.drain(s.samples, no_windows);  // the writer takes what ended so far
    }
    for (uint64_t i = 0; i < 10'000; ++i) s.access(1'000'000 + i * 4096);
    s.sampler.drain(s.samples, no_windows);
    CHECK(s.samples.size() == 30'000);
    CHECK(s.sampler.open_samples() == 40'000);
    CHECK(s.sampler.lost() == 0);
    s.finish();
    REQUIRE(s.samples.size() == 70'000);
    check_against_stream(s);
    size_t none = 0;
    for (const auto& r : s.samples) none += r.distance == kNoReuse;
    CHECK(none == 40'000);
}

TEST_CASE("windows of W accesses: samples belong to the window of their sample access") {
    constexpr uint64_t W = 1000;
    Stream s({.line_size = 64, .period = 10, .window_accesses = W});
    for (uint64_t i = 0; i < 5500; ++i) s.access(i % 37);
    s.hot.unseen_words.store(12);
    s.finish();
    REQUIRE(s.windows.size() == 6);
    std::map<uint32_t, uint64_t> per_window;
    for (const RawReuse& r : s.samples) {
        CHECK(r.window == (r.sample_pc - 1) / W);
        ++per_window[r.window];
    }
    for (uint32_t w = 0; w < 6; ++w) {
        CAPTURE(w);
        CHECK(s.windows[w].tid == 77);
        CHECK(s.windows[w].window == w);
        CHECK(s.windows[w].accesses == (w < 5 ? W : 500));
        CHECK(s.windows[w].samples == per_window[w]);
        CHECK(s.windows[w].unseen_accesses == (w < 5 ? 0 : 12));
    }
}

TEST_CASE("the fast path: nothing to do for unwatched lines between sample points") {
    HotPath h;
    uint64_t n = 0;
    CHECK(count_access(h, 5, n));  // zero-initialised: the first access sets up
    CHECK(n == 1);
    disarm(h);
    for (uint64_t i = 0; i < 1000; ++i) CHECK_FALSE(count_access(h, i, n));
    CHECK(n == 1001);

    ReuseSampler sampler({.line_size = 64, .period = 1'000'000, .window_accesses = 1'000'000'000}, 1, 3);
    sampler.arm(h);
    // A line is watched only at a sample point; before the first one, none is.
    const uint64_t first = h.next_event;
    uint64_t slow = 0;
    for (uint64_t line = h.count.load() + 1; line < std::min<uint64_t>(first, 100'000); ++line)
        slow += count_access(h, line, n);
    CHECK(slow == 0);
}

TEST_CASE("the same seed gives the same sample points; another seed others") {
    auto points = [](uint64_t seed) {
        Stream s({.line_size = 64, .period = 50, .window_accesses = 1'000'000}, seed);
        for (uint64_t i = 0; i < 20'000; ++i) s.access(i % 100);
        s.finish();
        std::vector<uint64_t> at;
        for (const auto& r : s.samples) at.push_back(r.sample_pc);
        std::sort(at.begin(), at.end());
        return at;
    };
    CHECK(points(11) == points(11));
    CHECK(points(11) != points(12));
}

TEST_CASE("a reader that falls a whole ring behind loses samples, and says how many") {
    Stream s({.line_size = 64, .period = 1, .window_accesses = 1'000'000'000});
    for (uint64_t k = 0; k < 3; ++k)
        for (uint64_t i = 0; i < 10'000; ++i) s.access(i);
    // 20,000 reuses ended without a drain; the ring holds 16,384 of them.
    CHECK(s.sampler.lost() == 20'000 - 16'384);
    s.finish();
    CHECK(s.samples.size() == 16'384 + 10'000);
}
