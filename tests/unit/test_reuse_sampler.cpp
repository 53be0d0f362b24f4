// The reuse sampler against streams whose reuse distances are known: every
// access carries its own number as its "PC", so each sample names the two
// accesses it joins and the test checks them against the stream itself.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "sprof/reuse_sampler.hpp"

using namespace sprof;

namespace {

// Feeds a stream of lines to a sampler as the runtime does: the fast path
// first, the slow path when it asks.
struct Stream {
    HotPath hot;  // zero-initialised, as thread-local storage is
    ReuseSampler sampler;
    std::vector<uint64_t> lines;  // lines[k - 1]: the line of access k
    std::vector<Access> accesses; // accesses[k - 1]: access k (its pc is k)
    SamplerOutput out;
    std::vector<RawReuse>& samples = out.samples;
    std::vector<LocalityWindow>& windows = out.windows;

    uint64_t drain_every = 0;  // accesses between two drains, as the writer's period; 0: none

    explicit Stream(SamplerSettings s, uint64_t seed = 1) : sampler(s, 77, seed) {}

    // An access of `size` bytes at `offset` in the 64-byte `line`.
    void access(uint64_t line, bool write = false, uint32_t offset = 8, uint32_t size = 8) {
        lines.push_back(line);
        const uint64_t k = lines.size();
        accesses.push_back(Access{line * 64 + offset, k, size, write, 1000 + k});
        if (uint64_t n; count_access(hot, line * 64 + offset, n)) sampler.access(hot, n, line, accesses.back());
        if (drain_every && k % drain_every == 0) drain();
    }
    void drain() { sampler.drain(out); }
    void finish() { sampler.finish(lines.size(), hot.unseen_words, out); }
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
        CHECK(r.address == s.accesses[r.sample_pc - 1].address);
        CHECK(r.position == r.sample_pc);   // the access's number in the stream
        CHECK(r.epoch == 1000 + r.sample_pc);  // the epoch of the sampled access, not of the trigger
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
    for (uint64_t i = 0; i < 30'000; ++i) s.access(i);
    for (uint64_t i = 0; i < 30'000; ++i) {
        s.access(i);
        if (i % 10'000 == 0) s.drain();  // the writer takes what ended so far
    }
    for (uint64_t i = 0; i < 10'000; ++i) s.access(1'000'000 + i * 4096);
    s.drain();
    CHECK(s.samples.size() == 30'000);
    CHECK(s.sampler.open_samples() == 40'000);
    CHECK(s.sampler.followed_lines() == 30'000);  // every reuse at 30,000 may miss: its line is followed
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
    for (uint64_t line = counted(h) + 1; line < std::min<uint64_t>(first, 100'000); ++line)
        slow += count_access(h, line * 64, n);
    CHECK(slow == 0);
}

TEST_CASE("the count runs down to the next event and survives moving it") {
    HotPath h = disarmed_hot_path();
    uint64_t n = 0;
    for (uint64_t i = 0; i < 100; ++i) CHECK_FALSE(count_access(h, 64 * i, n));
    CHECK(n == 100);
    CHECK(counted(h) == 100);
    set_next_event(h, 103);  // accesses 101 and 102 pass, 103 is the event
    CHECK_FALSE(count_access(h, 0, n));
    CHECK_FALSE(count_access(h, 0, n));
    CHECK(count_access(h, 0, n));
    CHECK(n == 103);
    disarm(h);
    CHECK(counted(h) == 103);
    CHECK_FALSE(count_access(h, 0, n));
    CHECK(n == 104);
}

TEST_CASE("the filter marks every 64-byte granule of a watched line, and its pad repeats the first granules") {
    for (const uint32_t line_size : {32u, 64u, 256u}) {
        CAPTURE(line_size);
        // Every access a sample point: the line of each access is watched until its next access.
        ReuseSampler sampler({.line_size = line_size, .period = 1, .window_accesses = 1'000'000}, 1, 3);
        HotPath h;
        const uint64_t line = 1;  // granules from line_size / 64 on: the first ones, repeated in the pad
        const uint64_t address = line * line_size + 8;
        uint64_t n = 0;
        REQUIRE(count_access(h, address, n));  // zero-initialised: the first access sets up
        sampler.access(h, n, address / line_size, Access{address, 1, 8, false, 0});
        const size_t size = h.filter_mask + 1;
        std::vector<uint64_t> marked;
        for (size_t g = 0; g < size; ++g)
            if (h.filter[g]) marked.push_back(g);
        std::vector<uint64_t> want;
        for (uint64_t g = line * line_size / 64; g <= (line * line_size + line_size - 1) / 64; ++g) want.push_back(g);
        CHECK(marked == want);  // 32-byte lines share a granule; 256-byte lines cover four
        for (size_t b = 0; b < kFilterPad; ++b) CHECK(h.filter[size + b] == h.filter[b]);
    }
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

TEST_CASE("a reader that falls several rings behind loses nothing: the queues grow") {
    Stream s({.line_size = 64, .period = 1, .window_accesses = 1'000'000'000});
    constexpr uint64_t ring = ReuseSampler::kSampleRing, lines = ring * 5 / 8;
    for (uint64_t k = 0; k < 6; ++k)
        for (uint64_t i = 0; i < lines; ++i) s.access(i);
    // 5 × lines reuses ended without a drain, 3 times the first ring (it
    // held `ring` of them, and dropped the rest before the queues grew).
    CHECK(s.sampler.lost() == 0);
    s.finish();
    CHECK(s.samples.size() == 6 * lines);
}

namespace {

// What following the line of the sample at `position` must give, from the
// stream itself, when it survives `survived` roulettes (and loses the next):
// the trigger is the next access to the line, then every later access to
// it ends a gap; a gap longer than all before closes a step; at 32, 64, 128
// … accesses followed a roulette, each one won doubling the weight of the
// accesses after it.
RawTenure expected_tenure(const Stream& s, uint64_t position, uint32_t survived) {
    RawTenure t;
    t.position = position;
    const uint64_t line = s.lines[position - 1];
    uint64_t last = next_use(s.lines, position), longest = 0, bytes = 0, used = 0, followed = 0, next_roulette = 32;
    uint32_t accesses = 0, weight = 1;
    auto add = [&](uint64_t k) {
        accesses += weight;
        ++followed;
        bytes += uint64_t{weight} * s.accesses[k - 1].size;
        used |= chunks_touched(s.accesses[k - 1].address, s.accesses[k - 1].size, 64);
    };
    add(last);
    for (uint64_t k = last + 1; k <= s.lines.size(); ++k) {
        if (s.lines[k - 1] != line) continue;
        if (k - last > longest) {
            if (t.n_steps + 1 == kTenureSteps) {
                t.end = TenureEnd::capped;
                t.steps[t.n_steps++] = TenureStep{kNoReuse, accesses, bytes, used};
                return t;
            }
            t.steps[t.n_steps++] = TenureStep{k - last, accesses, bytes, used};
            longest = k - last;
        }
        add(k);
        last = k;
        if (followed == next_roulette) {
            if (survived-- == 0) {
                t.end = TenureEnd::capped;
                t.steps[t.n_steps++] = TenureStep{kNoReuse, accesses, bytes, used};
                return t;
            }
            weight *= 2;
            next_roulette *= 2;
        }
    }
    t.end = TenureEnd::no_reuse;
    t.steps[t.n_steps++] = TenureStep{kNoReuse, accesses, bytes, used};
    return t;
}

void check_tenures(const Stream& s, uint64_t follow_from) {
    std::map<uint64_t, const RawTenure*> by_position;
    for (const RawTenure& t : s.out.tenures) by_position[t.position] = &t;
    CHECK(by_position.size() == s.out.tenures.size());  // one tenure per sample
    size_t followed = 0;
    for (const RawReuse& r : s.samples) {
        CAPTURE(r.position);
        const bool follows = r.distance != kNoReuse && r.distance >= follow_from;
        REQUIRE(by_position.count(r.position) == (follows ? 1u : 0u));
        if (!follows) continue;
        ++followed;
        const RawTenure& got = *by_position[r.position];
        // The roulettes it won: the outcome that ends as it did, with its
        // last step's weighted accesses (one won at the stream's last
        // access ends as one lost there would, but without reuse).
        RawTenure want = expected_tenure(s, r.position, 0);
        for (uint32_t won = 1; won < 20; ++won) {
            if (want.end == got.end && want.steps[want.n_steps - 1].accesses == got.steps[got.n_steps - 1].accesses)
                break;
            want = expected_tenure(s, r.position, won);
        }
        CHECK(got.end == want.end);
        REQUIRE(got.n_steps == want.n_steps);
        for (uint8_t k = 0; k < want.n_steps; ++k) {
            CAPTURE(k);
            CHECK(got.steps[k].gap == want.steps[k].gap);
            CHECK(got.steps[k].accesses == want.steps[k].accesses);
            CHECK(got.steps[k].bytes == want.steps[k].bytes);
            CHECK(got.steps[k].used == want.steps[k].used);
        }
    }
    CHECK(followed == s.out.tenures.size());
}

}  // namespace

TEST_CASE("tenures: a line brought in by a long reuse is followed, step by step, as the stream says") {
    SUBCASE("bursts of 4 accesses per line, sweeps over 300 lines: a gap of 1, then one of a sweep, until 32 accesses") {
        Stream s({.line_size = 64, .period = 7, .window_accesses = 1'000'000'000});
        s.drain_every = 1000;
        for (int sweep = 0; sweep < 12; ++sweep)
            for (uint64_t line = 0; line < 300; ++line)
                for (uint32_t k = 0; k < 4; ++k) s.access(line, k == 3, k * 8, 8);
        s.finish();
        check_tenures(s, 17);
        // Every followed line: steps (1, its first access), (1197, 4 accesses, 32 bytes), then capped at 32.
        bool seen_capped = false;
        for (const RawTenure& t : s.out.tenures) {
            if (t.end != TenureEnd::capped) continue;
            seen_capped = true;
            REQUIRE(t.n_steps == 3);
            CHECK(t.steps[0].gap == 1);
            CHECK(t.steps[0].used == 0xff);
            CHECK(t.steps[1].gap == 300 * 4 - 3);
            CHECK(t.steps[1].used == 0xffffffff);
            CHECK(t.steps[2].accesses == 32);
            CHECK(t.steps[2].bytes == 256);
        }
        CHECK(seen_capped);
    }
    SUBCASE("random streams, 1- to 8-byte accesses anywhere in the line") {
        std::mt19937_64 rng(3);
        for (uint64_t lines : {40u, 4000u}) {
            CAPTURE(lines);
            Stream s({.line_size = 64, .period = 11, .window_accesses = 1'000'000'000}, lines);
            s.drain_every = 1000;
            std::uniform_int_distribution<uint64_t> pick(0, lines - 1);
            std::uniform_int_distribution<uint32_t> size_log(0, 3);
            for (int i = 0; i < 60'000; ++i) {
                const uint32_t size = 1u << size_log(rng);
                const uint32_t offset = static_cast<uint32_t>(rng() % (64 / size)) * size;
                s.access(pick(rng), false, offset, size);
            }
            s.finish();
            check_tenures(s, 17);
            CHECK(s.sampler.lost() == 0);
        }
    }
}

TEST_CASE("tenures of 49 and 1000 accesses: each followed to its end or to a lost roulette, right on average") {
    // 16 lines, each used in a burst of B accesses (8 bytes, word after
    // word), the lines in turn. A sample at a burst's last access reuses
    // the line 15·B + 1 accesses later: its trigger starts a tenure that, in
    // a cache of fewer than 16 lines, holds the B accesses of one burst (SIP's
    // temporal use B·8 / 64 − 1). Following goes on past 32 accesses by the
    // roulette; each tenure is one of its outcomes exactly (the counts
    // weighted), and averaged over tenures the state at the long gap counts
    // B: for B = 49 the estimate is 32 or 32 + 2·17 with probability ½ each
    // (standard deviation 17), held to five standard errors.
    for (const uint32_t burst : {49u, 1000u}) {
        CAPTURE(burst);
        const uint64_t sweeps = burst == 49 ? 200 : 12;
        Stream s({.line_size = 64, .period = 2, .window_accesses = 1'000'000'000}, 5);
        for (uint64_t sweep = 0; sweep < sweeps; ++sweep)
            for (uint64_t line = 0; line < 16; ++line)
                for (uint32_t k = 0; k < burst; ++k) s.access(line, false, 8 * (k % 8), 8);
        s.finish();
        if (burst == 1000) check_tenures(s, 17);  // every outcome exact (quadratic in the stream: the short one)
        double sum = 0, bytes = 0, used = 0;
        size_t n = 0, won = 0;
        for (const RawTenure& t : s.out.tenures) {
            const TenureStep* state = &t.steps[t.n_steps - 1];
            for (uint8_t k = 0; k < t.n_steps; ++k)
                if (t.steps[k].gap != kNoReuse && t.steps[k].gap > burst) {
                    state = &t.steps[k];
                    break;
                }
            sum += state->accesses;
            bytes += static_cast<double>(state->bytes);
            used += std::popcount(state->used);
            won += state->accesses > 32;
            ++n;
        }
        REQUIRE(n > 0);
        MESSAGE(burst << " accesses a stay: " << n << " tenures, mean " << sum / n << ", temporal use "
                      << bytes / used - 1 << " (truth " << burst * 8.0 / 64 - 1 << ")");
        CHECK(s.sampler.lost() == 0);
        // The first roulette is won by half of them (five binomial standard errors).
        CHECK(std::abs(static_cast<double>(won) / n - 0.5) <= 5 * std::sqrt(0.25 / n));
        if (burst == 49) {
            CHECK(n >= 1000);
            CHECK(std::abs(sum / n - 49) <= 5 * 17 / std::sqrt(static_cast<double>(n)));
            CHECK(std::abs((bytes / used - 1) - 5.125) <= 5 * 17.0 * 8 / 64 / std::sqrt(static_cast<double>(n)));
        }
    }
}

TEST_CASE("tenures: a line not touched for a whole window ends aged, its last gap a lower bound") {
    constexpr uint64_t W = 5000;
    Stream s({.line_size = 64, .period = 1, .window_accesses = W});
    s.drain_every = 1000;
    s.access(1);
    for (uint64_t i = 0; i < 100; ++i) s.access(1000 + i);
    s.access(1);  // the trigger: distance 101
    for (uint64_t i = 0; i < 3 * W; ++i) s.access(100'000 + i % 50);  // line 1 idle for three windows
    s.drain();
    const RawTenure* aged = nullptr;
    for (const RawTenure& t : s.out.tenures)
        if (t.position == 1) aged = &t;
    REQUIRE(aged != nullptr);
    CHECK(aged->end == TenureEnd::aged);
    REQUIRE(aged->n_steps == 1);
    CHECK(aged->steps[0].gap >= W);
    CHECK(aged->steps[0].gap <= 2 * W + 102);  // aged at the first window end a whole window after
    CHECK(aged->steps[0].accesses == 1);
}

TEST_CASE("tenures: chunks of a line an access touches") {
    CHECK(chunks_touched(0x1000, 8, 64) == 0xff);
    CHECK(chunks_touched(0x1038, 8, 64) == 0xffull << 56);
    CHECK(chunks_touched(0x1003, 1, 64) == 0x8);
    CHECK(chunks_touched(0x1000, 64, 64) == ~uint64_t{0});
    CHECK(chunks_touched(0x1000 + 6, 4, 128) == 0x18);  // 2-byte chunks: bytes 6..9 are chunks 3 and 4
    CHECK(chunks_touched(0x1000 + 6, 4, 16) == 0x3c0);  // 16-byte lines, 1-byte chunks: bits 6..9
}
