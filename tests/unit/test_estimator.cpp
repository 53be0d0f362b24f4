#include <doctest/doctest.h>

#include <cmath>
#include <span>
#include <vector>

#include "sprof/estimator.hpp"
#include "sprof/interval_builder.hpp"

using namespace sprof;

namespace {

// Several functions' sums (a total): every sample counts, the time is exact.
EstimateBasis total_of(uint64_t time_ns, uint64_t samples = 4) { return {samples, time_ns, 0, false}; }

}  // namespace

TEST_CASE("coverage estimator scales the count by time over coverage") {
    EventCell c{.count = 300, .coverage_ns = 10'000'000, .carry = NAN};
    CHECK(*estimate(c, total_of(40'000'000), Estimator::coverage) == doctest::Approx(1200.0));
}

TEST_CASE("an event that was never live is unknown, not zero") {
    EventCell never{};
    CHECK_FALSE(estimate(never, total_of(40'000'000), Estimator::coverage).has_value());
    CHECK_FALSE(estimate(never, total_of(40'000'000), Estimator::carry).has_value());
    CHECK_FALSE(confidence_interval(never, total_of(40'000'000), Estimator::coverage).has_value());
    EventCell zero_but_live{.count = 0, .coverage_ns = 5, .carry = 0.0};
    CHECK(*estimate(zero_but_live, total_of(10), Estimator::coverage) == 0.0);
}

// One function's 10 samples of 10 ns each (x̄ = 10), entered once; an
// event live in 4 of them with deltas 2, 4, 6, 8: Y = 20, X = 40,
// Q = Σ d²/x = (4 + 16 + 36 + 64) / 10 = 12.
const EstimateBasis kFunction{.samples = 10, .time_ns = 100, .entries = 1, .one_function = true};
const EventCell kCell{.count = 20, .coverage_ns = 40, .carry = 60, .sq = 12};

TEST_CASE("confidence: a ratio estimator's interval, computed by hand") {
    // 20 / 40 × 100 = 50. S = Q − Y²/X = 12 − 10 = 2; variance
    // (T/X)² (1 − X/T) x̄ S m/(m−1) = 6.25 × 0.6 × 10 × 2 × 4/3 = 100: the
    // textbook N²(1 − f) s²/m = 100 × 0.6 × (20/3) / 4 of deltas 2 4 6 8.
    const auto s = estimate_spread(kCell, kFunction, Estimator::coverage);
    REQUIRE(s);
    CHECK(s->value == doctest::Approx(50));
    CHECK(*s->sd_own == doctest::Approx(10));
    // The time: one entry, k/n = 0.1 < 1/6, so 1/6 of an interval²: variance
    // 100/6 of a time of 100.
    CHECK(*time_relative_sd(kFunction) == doctest::Approx(std::sqrt(100.0 / 6) / 100));
    // sd² = 10² + 50² × (100/6) / 100² = 100 + 25/6.
    const auto b = confidence_interval(kCell, kFunction, Estimator::coverage);
    REQUIRE(b);
    CHECK(b->low == doctest::Approx(50 - kZ95 * std::sqrt(100 + 25.0 / 6)));
    CHECK(b->high == doctest::Approx(50 + kZ95 * std::sqrt(100 + 25.0 / 6)));
    // Several functions' sums: the time is exact.
    const EstimateBasis total{.samples = 10, .time_ns = 100, .entries = 3, .one_function = false};
    CHECK(*time_relative_sd(total) == 0.0);
    CHECK(confidence_interval(kCell, total, Estimator::coverage)->high == doctest::Approx(50 + kZ95 * 10));
}

TEST_CASE("confidence: ticks lost in the kernel widen a function's time") {
    // Nominal 8 ns, mean interval 10: q = 0.2 of the ticks lost, each end of
    // the one entry moves 2·0.2·1.2 = 0.48 interval² more than 1/6.
    EstimateBasis lossy = kFunction;
    lossy.lost_tick_ns = 8;
    CHECK(*time_relative_sd(lossy) == doctest::Approx(std::sqrt((1.0 / 6 + 0.48) * 100) / 100));
    // No loss when the mean interval is the nominal one (or below it).
    lossy.lost_tick_ns = 10;
    CHECK(*time_relative_sd(lossy) == doctest::Approx(*time_relative_sd(kFunction)));
    lossy.lost_tick_ns = 12;
    CHECK(*time_relative_sd(lossy) == doctest::Approx(*time_relative_sd(kFunction)));
    // Only a user-space-only profile of CPU-time ticks loses them.
    ProfileHeader h;
    h.sample_interval_ns = 10'000'000;
    h.events = {{"task-clock", true, false}, {"page-faults", false, false}};
    CHECK(lost_tick_ns(h) == 0);
    h.events[1].user_only = true;
    CHECK(lost_tick_ns(h) == 10'000'000);
    h.clock = "wall";
    CHECK(lost_tick_ns(h) == 0);
}

TEST_CASE("confidence: carry-forward's own error adds its distance from the coverage estimate") {
    // carry 60, coverage 50 with variance 100: sd² = 100 + 10².
    const auto s = estimate_spread(kCell, kFunction, Estimator::carry);
    REQUIRE(s);
    CHECK(s->value == doctest::Approx(60));
    CHECK(*s->sd_own == doctest::Approx(std::sqrt(200.0)));
}

TEST_CASE("confidence: an entry's events count where they were charged, and widen the interval") {
    // The entry sample was live with delta 8 (entry_sq 6.4 = 8²/10): the
    // estimate keeps it, so the functions' estimates add up to the run's.
    EventCell c = kCell;
    c.entry_count = 8;
    c.entry_coverage_ns = 10;
    c.entry_sq = 6.4;
    CHECK(*estimate(c, kFunction, Estimator::coverage) == doctest::Approx(50));
    // Its own variance 100 (as without the entry) plus where the entry's
    // events lay, for it and as many exits: (T/X)² x̄ entry_sq 2/3 =
    // 6.25 × 10 × 6.4 × 2/3.
    const auto s = estimate_spread(c, kFunction, Estimator::coverage);
    REQUIRE(s);
    CHECK(*s->sd_own == doctest::Approx(std::sqrt(100 + 6.25 * 10 * 6.4 * 2 / 3)));
    // Of several functions the boundaries are inside the sum: no such part.
    const EstimateBasis total{10, 100, 1, false};
    CHECK(*estimate_spread(c, total, Estimator::coverage)->sd_own == doctest::Approx(10));
}

TEST_CASE("self-sampled events: each interval's counts over the share of it the event was live") {
    // Thread interval: f 60 ns, g 40 ns; event 0 live 50 of 100 ns (φ = ½),
    // event 1 live throughout; f's records put 30 and 7, g's 10 and 3.
    Interval iv;
    FunctionCell f{.function = 1, .samples = 6, .time_ns = 60, .events = {}, .entries = 1};
    FunctionCell g{.function = 2, .samples = 4, .time_ns = 40, .events = {}, .entries = 1};
    f.events = {EventCell{.count = 30, .coverage_ns = 20, .sq = 500, .entry_count = 4, .entry_sq = 16},
                EventCell{.count = 7, .coverage_ns = 60, .sq = 49}};
    g.events = {EventCell{.count = 10, .coverage_ns = 30, .sq = 100}, EventCell{.count = 3, .coverage_ns = 40, .sq = 9}};
    iv.cells = {f, g};
    iv.lines = {LineCell{.location = 0, .samples = 6, .time_ns = 60, .events = {EventCell{.count = 30}, EventCell{}}}};
    extrapolate_self_sampled(iv, 0b11);
    const EventCell& f0 = iv.cells[0].events[0];
    CHECK(f0.self_sampled);
    CHECK(f0.count == 60);
    CHECK(f0.entry_count == 8);
    CHECK(f0.sq == doctest::Approx(0.5 / 0.25 * 500));  // (1 − φ)/φ² Σ d²
    CHECK(f0.entry_sq == doctest::Approx(16 / (3 * 0.25)));
    CHECK(iv.cells[1].events[0].count == 20);
    CHECK(iv.lines[0].events[0].count == 60);
    // Live throughout: the counts as recorded, no extrapolation error.
    CHECK(iv.cells[0].events[1].count == 7);
    CHECK(iv.cells[0].events[1].sq == 0);
    // Once only: a second call leaves marked cells alone.
    extrapolate_self_sampled(iv, 0b11);
    CHECK(iv.cells[0].events[0].count == 60);
    // Either estimator gives the count; its interval has no time error,
    // however few ticks the function had.
    const EstimateBasis one{.samples = 6, .time_ns = 60, .entries = 1, .one_function = true};
    CHECK(*estimate(f0, one, Estimator::coverage) == 60);
    CHECK(*estimate(f0, one, Estimator::carry) == 60);
    const auto s = estimate_spread(f0, one, Estimator::coverage);
    REQUIRE(s);
    CHECK_FALSE(s->scales_with_time);
    // The stretches that entered f, 8 after extrapolation, all its or none alike: 8²/3.
    const double sd = std::sqrt(1000 + 16 / 0.75 + 64.0 / 3);
    CHECK(*s->sd_own == doctest::Approx(sd));
    const auto b = confidence_bounds(*s, 0.5);  // a time error that must not apply
    REQUIRE(b);
    CHECK(b->high == doctest::Approx(60 + kZ95 * sd));
    // A function its records found but no tick did: its events, not unknown.
    EventCell unticked{.count = 12, .self_sampled = true};
    CHECK(*estimate(unticked, EstimateBasis{0, 0, 0, true}, Estimator::coverage) == 12);
}

TEST_CASE("self-sampled events: the errors of stretches charged elsewhere add up across cells") {
    // Two intervals' cells of one function, their stretches charged
    // elsewhere 3 and 4 events (entry_sq 9 and 16): all of them its own or
    // none in both, so together 7 (49), not 5 (25) as independent errors.
    EventCell a{.count = 10, .entry_sq = 9, .self_sampled = true};
    const EventCell b{.count = 20, .entry_sq = 16, .self_sampled = true};
    accumulate(a, b);
    CHECK(a.entry_sq == doctest::Approx(49));
    withdraw(a, b);
    CHECK(a.entry_sq == doctest::Approx(9));
    // A counted event's entry_sq is a sum of squares: it adds.
    EventCell c{.count = 10, .entry_sq = 9};
    accumulate(c, EventCell{.count = 20, .entry_sq = 16});
    CHECK(c.entry_sq == doctest::Approx(25));
}

TEST_CASE("confidence: unknown stays unknown, exact stays exact") {
    // The spread was not recorded (a profile before format 1.4): the
    // estimate is known, its interval is not.
    EventCell old = kCell;
    old.sq = NAN;
    CHECK(estimate(old, kFunction, Estimator::coverage).has_value());
    CHECK_FALSE(confidence_interval(old, kFunction, Estimator::coverage).has_value());
    CHECK_FALSE(time_relative_sd(EstimateBasis{10, 100, kUnknownEntries, true}).has_value());
    // One live sample shows no spread: unknown, never a zero-width interval.
    EventCell once{.count = 5, .coverage_ns = 10, .carry = 5, .sq = 2.5};
    CHECK(estimate(once, kFunction, Estimator::coverage).has_value());
    CHECK_FALSE(confidence_interval(once, kFunction, Estimator::coverage).has_value());
    // Live all the time, in several functions' sums: exact.
    EventCell always{.count = 30, .coverage_ns = 100, .carry = 30, .sq = 9.0};
    const auto b = confidence_interval(always, EstimateBasis{10, 100, 0, false}, Estimator::coverage);
    REQUIRE(b);
    CHECK(b->low == doctest::Approx(30));
    CHECK(b->high == doctest::Approx(30));
}

TEST_CASE("confidence: no event seen is not proof of none") {
    // Nothing in 4 of 10 samples: the interval allows one unseen event's
    // worth, (T − X) T / X² = 60 × 100 / 1600 = 3.75.
    EventCell none{.count = 0, .coverage_ns = 40, .carry = 0, .sq = 0};
    const auto b = confidence_interval(none, EstimateBasis{10, 100, 0, false}, Estimator::coverage);
    REQUIRE(b);
    CHECK(b->low == 0);
    CHECK(b->high == doctest::Approx(kZ95 * std::sqrt(3.75)));
}

TEST_CASE("confidence: a rate's interval by the delta method") {
    // events/time: 50 ± 10 over 100 ns of time whose own error (5 %) scales
    // both, so the rate keeps none of it: sd (60 − 40) / 100 / 2 = 0.1.
    const std::vector<DerivedInput> inputs = {{50.0, 10.0, true}, {100.0, 0.0, true}};
    const std::vector<size_t> used = {0, 1};
    auto ratio = [](std::span<const std::optional<double>> v) -> std::optional<double> {
        if (!v[0] || !v[1] || *v[1] == 0) return std::nullopt;
        return *v[0] / *v[1];
    };
    auto b = derived_interval(ratio, inputs, used, 0.05);
    REQUIRE(b);
    CHECK(b->low == doctest::Approx(0.5 - kZ95 * 0.1));
    CHECK(b->high == doctest::Approx(0.5 + kZ95 * 0.1));
    // A count (the event alone) keeps the time's error: 0.05 × 50 = 2.5.
    auto alone = [](std::span<const std::optional<double>> v) { return v[0]; };
    const std::vector<size_t> first = {0};
    b = derived_interval(alone, inputs, first, 0.05);
    REQUIRE(b);
    CHECK(b->high == doctest::Approx(50 + kZ95 * std::sqrt(100 + 6.25)));
    // An input it reads with an unknown spread: unknown.
    const std::vector<DerivedInput> unknown = {{50.0, std::nullopt, true}, {100.0, 0.0, true}};
    CHECK_FALSE(derived_interval(ratio, unknown, used, 0.05).has_value());
    // One it does not read does not matter.
    const std::vector<DerivedInput> unread = {{50.0, 10.0, true}, {100.0, 0.0, true}, {1.0, std::nullopt, true}};
    CHECK(derived_interval(ratio, unread, used, 0.05).has_value());
}

TEST_CASE("interval builder: hand-computed coverage and carry-forward sums") {
    // Two events on one slot: event 0 live in samples 1 and 3, event 1 in 2 and 4.
    IntervalBuilder b(7, 2);
    auto sample = [](uint64_t wall, uint64_t ref, uint32_t live, uint64_t d0, uint64_t d1) {
        RawSample s;
        s.wall_ns = wall;
        s.ref_ns = ref;
        s.live_mask = live;
        s.delta[0] = d0;
        s.delta[1] = d1;
        return s;
    };
    b.add(1, sample(10, 10, 0b01, 100, 0));  // f1: e0=100; e1 never counted → carry unknown
    b.add(1, sample(20, 10, 0b10, 0, 7));    // f1: e1=7; e0 carried 100
    b.add(2, sample(30, 10, 0b01, 40, 0));   // f2: e0=40; e1 carried 7
    b.add(1, sample(40, 10, 0b10, 0, 9));    // f1: e1=9; e0 carried 40
    Interval iv = b.close(40);
    CHECK(iv.tid == 7);
    CHECK(iv.seq == 0);
    CHECK(iv.start_ns == 0);
    CHECK(iv.end_ns == 40);
    REQUIRE(iv.cells.size() == 2);
    const FunctionCell& f1 = iv.cells[0];
    const FunctionCell& f2 = iv.cells[1];
    CHECK(f1.function == 1);
    CHECK(f1.samples == 3);
    CHECK(f1.time_ns == 30);
    CHECK(f1.events[0].count == 100);
    CHECK(f1.events[0].coverage_ns == 10);
    CHECK(f1.events[0].carry == doctest::Approx(240.0));  // 100 + 100 + 40
    CHECK(f1.events[1].count == 16);
    CHECK(f1.events[1].coverage_ns == 20);
    CHECK(f1.events[1].carry == doctest::Approx(16.0));  // unknown + 7 + 9
    CHECK(*estimate(f1.events[0], total_of(f1.time_ns), Estimator::coverage) == doctest::Approx(300.0));
    CHECK(*estimate(f1.events[1], total_of(f1.time_ns), Estimator::coverage) == doctest::Approx(24.0));
    CHECK(f2.events[1].count == 0);
    CHECK(f2.events[1].coverage_ns == 0);
    CHECK_FALSE(estimate(f2.events[1], total_of(f2.time_ns), Estimator::coverage).has_value());
    CHECK(*estimate(f2.events[1], total_of(f2.time_ns), Estimator::carry) == doctest::Approx(7.0));
    // Entries: samples 1 (the thread's first) and 4 (after one in f2) entered
    // f1, sample 3 entered f2. The spread is Σ delta² / live time.
    CHECK(f1.entries == 2);
    CHECK(f2.entries == 1);
    CHECK(f1.events[0].sq == doctest::Approx(1000.0));  // 100² / 10
    CHECK(f1.events[0].entry_count == 100);
    CHECK(f1.events[0].entry_coverage_ns == 10);
    CHECK(f1.events[1].sq == doctest::Approx(13.0));  // (7² + 9²) / 10
    CHECK(f1.events[1].entry_count == 9);
    CHECK(f1.events[1].entry_sq == doctest::Approx(8.1));
    // As one function's, the same rate from every sample, entries included
    // (16 in 20 ns over 30 ns), so that the functions add up to the run.
    const EstimateBasis f1_alone{f1.samples, f1.time_ns, f1.entries, true};
    CHECK(*estimate(f1.events[1], f1_alone, Estimator::coverage) == doctest::Approx(24.0));
    CHECK(*estimate(f1.events[0], f1_alone, Estimator::coverage) == doctest::Approx(300.0));

    b.add(2, sample(50, 10, 0b01, 5, 0));
    Interval next = b.close(50);
    CHECK(next.seq == 1);
    CHECK(next.start_ns == 40);
    CHECK(next.cells[0].events[1].carry == doctest::Approx(9.0));  // carry state survives the close
}

namespace {
RawSample tick(uint64_t wall, uint64_t ref, uint32_t live, uint64_t delta) {
    RawSample s;
    s.wall_ns = wall;
    s.ref_ns = ref;
    s.live_mask = live;
    s.delta[0] = delta;
    return s;
}
}  // namespace

TEST_CASE("interval builder: an event's own records charge its events to their PCs") {
    // Event 0 samples itself, event 1 is counted. Ticks in f1; between them
    // two records of event 0 in f2 (whose function no tick ever lands in).
    IntervalBuilder b(7, 2, 0, 0b01);
    auto tick = [](uint64_t wall, uint64_t d0, uint64_t d1) {
        RawSample s;
        s.wall_ns = wall;
        s.ref_ns = 10;
        s.live_mask = 0b11;
        s.delta[0] = d0;
        s.delta[1] = d1;
        return s;
    };
    auto record = [](uint64_t wall, uint64_t d0) {
        RawSample s;
        s.tick = false;
        s.wall_ns = wall;
        s.live_mask = 0b01;
        s.delta[0] = d0;
        s.cover_ns[0] = d0 - 1;  // all but the event that overflowed here are unplaced
        return s;
    };
    b.add(1, tick(10, 2, 5));   // the thread's first record: its 2 events unplaced
    b.add(2, record(12, 6));    // entered f2 from f1: 5 unplaced
    b.add(2, record(14, 4));    // from f2 itself: placed
    b.add(1, tick(20, 1, 3));   // from f2: its 1 event unplaced
    CHECK(b.samples() == 2);    // records are no ticks
    Interval iv = b.take_part();
    REQUIRE(iv.cells.size() == 2);
    const FunctionCell& f1 = iv.cells[0];
    const FunctionCell& f2 = iv.cells[1];
    // Every event counted lands somewhere: 3 + 10 = 2 + 6 + 4 + 1.
    CHECK(f1.events[0].count == 3);
    CHECK(f2.events[0].count == 10);
    CHECK(f2.samples == 0);
    CHECK(f2.time_ns == 0);
    CHECK(f1.events[0].coverage_ns == 20);  // the interval's live time is in its ticks
    CHECK(f2.events[0].coverage_ns == 0);
    CHECK(f1.events[0].entry_count == 3);
    CHECK(f2.events[0].entry_count == 5);
    // A function's stretches charged elsewhere, as the square of their sum:
    // f1 gave 5 away, f2 gave 1 (what it took is its entry_count).
    CHECK(f1.events[0].entry_sq == doctest::Approx(25));
    CHECK(f2.events[0].entry_sq == doctest::Approx(1));
    // Σ over ticks of (events charged since the tick before)²: f1 2² + 1², f2 10².
    CHECK(f1.events[0].sq == doctest::Approx(5));
    CHECK(f2.events[0].sq == doctest::Approx(100));
    CHECK(std::isnan(f1.events[0].carry));
    // The counted event as before: its deltas go to the ticks' function.
    CHECK(f1.events[1].count == 8);
    CHECK(f2.events[1].count == 0);
    // f1 gives 3 more away in the interval's next part: the parts' entry_sq
    // add up to the square of the sum (5 + 3)², not to 5² + 3², since a
    // function's events lie at the same place in each call.
    b.add(2, record(22, 4));
    b.add(1, tick(30, 0, 1));
    const Interval rest = b.close(30);
    REQUIRE(rest.cells.size() == 2);
    CHECK(rest.cells[0].events[0].entry_sq == doctest::Approx(64 - 25));
    CHECK(rest.cells[1].events[0].entry_count == 3);
    // The next interval starts its own sum.
    b.add(2, record(32, 3));
    b.add(1, tick(40, 0, 1));
    CHECK(b.close(40).cells[0].events[0].entry_sq == doctest::Approx(4));
}

TEST_CASE("interval builder: carry-forward carries the rate over the sample's own length") {
    // 100 in 10 ns counted; a sample twice as long without the event
    // carries 200 (the same rate), not the last delta.
    IntervalBuilder b(7, 1);
    b.add(1, tick(10, 10, 1, 100));
    b.add(1, tick(30, 20, 0, 0));
    const Interval iv = b.close(30);
    CHECK(iv.cells[0].events[0].carry == doctest::Approx(300.0));
}

TEST_CASE("interval builder: a thread's tail goes to its last sample's function, as time without a sample") {
    // Nominal tick 10 ns. After its last tick in f2 the thread counted 35 ns
    // (3 ticks the kernel dropped, and a part) and 35 events before it ended.
    IntervalBuilder b(7, 1, 10);
    b.add(1, tick(10, 10, 1, 10));
    b.add(2, tick(20, 10, 1, 10));
    RawSample tail = tick(55, 35, 1, 35);
    tail.pc = kTailPc;
    b.add_tail(tail);
    CHECK(b.samples() == 2);
    CHECK(b.ticks() == 2 + 4);  // 35 ns: 4 ticks to the closing rule
    const Interval iv = b.close(55);
    REQUIRE(iv.cells.size() == 2);
    CHECK(iv.cells[0].time_ns == 10);
    CHECK(iv.cells[1].time_ns == 10 + 35);
    CHECK(iv.cells[1].events[0].count == 10 + 35);
    CHECK(iv.cells[1].samples == 1);
    CHECK(iv.cells[1].entries == 1);
    // A tail right after an interval closed is an interval of its own: time, no sample.
    b.add_tail(tail);
    CHECK(!b.empty());
    const Interval rest = b.close(90);
    REQUIRE(rest.cells.size() == 1);
    CHECK(rest.cells[0].function == 2);
    CHECK(rest.cells[0].time_ns == 35);
    CHECK(rest.cells[0].samples == 0);
    CHECK(b.empty());
    // A thread that ended before its first tick has no function to take it.
    IntervalBuilder none(8, 1, 10);
    none.add_tail(tail);
    CHECK(none.empty());
    CHECK(none.close(55).cells.empty());
}

TEST_CASE("interval builder: ticks lost in the kernel at a boundary go back to the function that loses them") {
    // Nominal tick 10 ns; every delta equals its reference time, so counts
    // and times must agree wherever the time goes.
    IntervalBuilder b(7, 1, 10);
    b.add(2, tick(10, 10, 1, 10));  // the thread's first sample
    b.add(2, tick(20, 10, 1, 10));  // f2 past its entry: never loses a tick
    b.add(1, tick(30, 10, 1, 10));  // f1 entered, no tick lost
    b.add(1, tick(50, 20, 1, 20));  // f1 past its entry: 1 of 2 ticks lost
    // Two ticks lost before this one, and only f1 loses ticks: both were
    // f1's (20 of the 30 ns; 20 of the 30 counts).
    b.add(2, tick(80, 30, 1, 30));
    b.add(3, tick(90, 10, 1, 10));  // f3 entered
    b.add(3, tick(110, 20, 1, 20));  // f3 loses ticks as often as f1
    // One tick lost between f3 and f1, which lose ticks alike: half a tick
    // each way (5 of the 20 ns go back to f3).
    b.add(1, tick(130, 20, 1, 20));
    // The closing rule counts ticks, the lost ones too: 8 samples, 13 ticks.
    CHECK(b.samples() == 8);
    CHECK(b.ticks() == 13);
    const Interval iv = b.close(130);
    REQUIRE(iv.cells.size() == 3);
    const FunctionCell& f1 = iv.cells[0];
    const FunctionCell& f2 = iv.cells[1];
    const FunctionCell& f3 = iv.cells[2];
    CHECK(f1.time_ns == 10 + 20 + 20 + 15);
    CHECK(f2.time_ns == 10 + 10 + 10);
    CHECK(f3.time_ns == 10 + 20 + 5);
    CHECK(f1.events[0].count == f1.time_ns);
    CHECK(f2.events[0].count == f2.time_ns);
    CHECK(f3.events[0].count == f3.time_ns);
    // A part given back is time, not a sample: the samples stay where they fell.
    CHECK(f1.samples == 3);
    CHECK(f2.samples == 3);
    CHECK(f3.samples == 2);
    CHECK(f1.entries == 2);
    // A part given back holds the next function's deltas too: like an
    // entry's, they stay out of the function's own rate (the entry part),
    // but it is no visit. f1: its entries (10, then 15 of 20 after 5 went
    // back to f3) and the 20 given back by f2; only the 20 at 50 inside it.
    CHECK(f1.events[0].entry_count == 10 + 15 + 20);
    CHECK(f1.events[0].entry_coverage_ns == 10 + 15 + 20);
    CHECK(f3.events[0].entry_count == 10 + 5);
    CHECK(f2.events[0].entry_count == 10 + 10);
    // Where every tick arrives (lost_tick_ns 0) nothing moves.
    IntervalBuilder all(7, 1);
    all.add(1, tick(20, 20, 1, 20));
    all.add(1, tick(40, 20, 1, 20));
    all.add(2, tick(70, 30, 1, 30));
    CHECK(all.ticks() == 3);
    const Interval whole = all.close(70);
    CHECK(whole.cells[1].time_ns == 30);
}
