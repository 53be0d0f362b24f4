// Every report adds up to the flat report: a function's source lines, the
// time line's rows, the phases and a job's ranks share each function's flat
// estimate, for both estimators. On a profile whose numbers are known by
// hand (a loop whose entries carry another function's faults), and on
// random profiles made by the collectors' own IntervalBuilder with random
// source lines.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "analyze_support.hpp"
#include "imbalance.hpp"
#include "phases.hpp"
#include "reports.hpp"
#include "source_line_profile.hpp"
#include "synthetic.hpp"

using namespace sprof;
using namespace sprof::analyze;
using sprof::test::function_named;

namespace {

constexpr uint64_t ms = 1'000'000;

// task-clock and page-faults, both always live: `loop` computes and faults
// never, but its 2 entry samples (at line 10) carry the 500 faults that
// `touch` made at its end (its carry-forward sum says 700); `touch` faults
// 1,000 times at line 20.
// One thread of /usr/bin/app ticked every 10 ms of CPU time, with these
// events and functions (each 0x100 bytes long, one after the other).
Profile app_profile(std::vector<ProfileEvent> events, const std::vector<std::string>& functions) {
    Profile p;
    p.header.collector = "sprof_lib";
    p.header.program = "/usr/bin/app";
    p.header.clock = "cpu";
    p.header.sample_interval_ns = 10 * ms;
    p.header.events = std::move(events);
    p.objects = {{0, "/usr/bin/app", ""}};
    for (uint32_t f = 0; f < functions.size(); ++f) p.functions.push_back({f, 0, 0x1000 + 0x100 * f, 0x1100 + 0x100 * f, functions[f]});
    p.threads = {{1, "app"}};
    return p;
}

Profile entry_profile() {
    Profile p = app_profile({{"task-clock", true}, {"page-faults", false}}, {"loop", "touch"});
    p.lines.strings = {"/src/app.c"};
    p.lines.locations = {{0, 0, 10, {}}, {0, 0, 11, {}}, {1, 0, 20, {}}};
    Interval iv{.tid = 1, .seq = 0, .start_ns = 0, .end_ns = 200 * ms, .cells = {}, .lines = {}};
    FunctionCell loop{0, 10, 100 * ms, {{100 * ms, 100 * ms, 1e8}, {500, 100 * ms, 700}}, 2};
    loop.events[1].entry_count = 500;
    loop.events[1].entry_coverage_ns = 20 * ms;
    loop.events[0].entry_count = 20 * ms;
    loop.events[0].entry_coverage_ns = 20 * ms;
    FunctionCell touch{1, 10, 100 * ms, {{100 * ms, 100 * ms, 1e8}, {1000, 100 * ms, 1000}}, 2};
    iv.cells = {loop, touch};
    iv.lines = {{0, 2, 20 * ms, {{20 * ms, 20 * ms, 2e7}, {500, 20 * ms, 500}}},
                {1, 8, 80 * ms, {{80 * ms, 80 * ms, 8e7}, {0, 80 * ms, 0}}},
                {2, 10, 100 * ms, {{100 * ms, 100 * ms, 1e8}, {1000, 100 * ms, 1000}}}};
    p.intervals = {iv};
    return p;
}

Dataset dataset_of(std::vector<Profile> profiles) {
    std::vector<Source> sources;
    for (size_t i = 0; i < profiles.size(); ++i) sources.push_back({"p" + std::to_string(i), std::move(profiles[i])});
    return merge_profiles(std::move(sources));
}

std::string lines_csv(const Dataset& d, Estimator e) {
    Options o;
    o.format = Format::csv;
    o.default_rates = false;
    o.estimator = e;
    RateSet rates(d.event_names(), o.rates, o.default_rates);
    std::ostringstream out;
    report_lines({d, o, rates, out});
    return out.str();
}

// Each function cell of `p` split at random into three source lines of its
// own: samples, time and every event's sums shared at random (what a
// collector charges one function's lines adds up to its cell).
Profile with_random_lines(Profile p, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    p.lines.strings = {"/src/random.c"};
    for (const ProfileFunction& f : p.functions)
        for (uint32_t l = 0; l < 3; ++l) p.lines.locations.push_back({f.id, 0, 100 * f.id + l, {}});
    auto part = [&](uint64_t& rest, double share) {
        const auto taken = static_cast<uint64_t>(std::floor(share * static_cast<double>(rest)));
        rest -= taken;
        return taken;
    };
    for (Interval& iv : p.intervals) {
        for (const FunctionCell& c : iv.cells) {
            FunctionCell rest = c;
            for (uint32_t l = 0; l < 3; ++l) {
                const double share = l == 2 ? 1.0 : unit(rng);
                LineCell line{3 * c.function + l, part(rest.samples, share), part(rest.time_ns, share), {}};
                for (EventCell& e : rest.events) {
                    EventCell mine;
                    mine.count = part(e.count, share);
                    mine.coverage_ns = part(e.coverage_ns, share);
                    if (!std::isnan(e.carry)) {
                        mine.carry = l == 2 ? e.carry : e.carry * share;
                        e.carry -= mine.carry;
                    }
                    line.events.push_back(mine);
                }
                iv.lines.push_back(line);
            }
        }
    }
    return p;
}

// Per function and event, the sum of its parts' known estimates.
using Sums = std::vector<std::vector<double>>;

void check_sums_to_flat(const Dataset& d, const Sums& got, Estimator e, const std::string& what) {
    const auto flat = function_estimates(by_function(d, all_intervals(d)), e);
    for (uint32_t f = 0; f < d.functions.size(); ++f)
        for (size_t k = 0; k < d.events.size(); ++k) {
            INFO(what << ": " << d.functions[f].name << " " << d.events[k].name);
            CHECK(got[f][k] == doctest::Approx(flat[f][k] ? flat[f][k]->value : 0.0).epsilon(1e-9));
        }
}

Sums zero_sums(const Dataset& d) { return Sums(d.functions.size(), std::vector<double>(d.events.size())); }

void add_known(std::vector<double>& into, const Estimates& e) {
    for (size_t k = 0; k < e.size(); ++k) into[k] += e[k] ? e[k]->value : 0.0;
}

Profile rank_profile(int rank, uint32_t seed) {
    synthetic::Spec s = synthetic::phases_spec();
    s.seed = seed;
    Profile p = synthetic::build(s);
    p.header.rank = rank;
    p.header.ranks = 2;
    p.header.launcher = "mpirun";
    return p;
}

}  // namespace

TEST_CASE("--lines: a function's lines share the flat estimate, by hand, and --estimator changes them") {
    const Dataset d = dataset_of({entry_profile()});
    const uint32_t loop = function_named(d, "loop");
    // The flat report: coverage keeps the entries' faults in loop's rate, so
    // that the functions add up to the run (where they lay, its interval
    // says, is not known): 500; carry-forward's sum: 700.
    const auto flat = function_estimates(by_function(d, all_intervals(d)), Estimator::coverage);
    REQUIRE(flat[loop][1]);
    CHECK(flat[loop][1]->value == 500);
    CHECK(function_estimates(by_function(d, all_intervals(d)), Estimator::carry)[loop][1]->value == 700);
    for (const Estimator e : {Estimator::coverage, Estimator::carry}) {
        const LineProfile lp = line_profile(d, {InlineMode::caller, "loop", e});
        REQUIRE(lp.rows.size() == 2);
        REQUIRE(lp.rows[0].estimates[1]);
        REQUIRE(lp.rows[1].estimates[1]);
        // Line 10 held the entries, so all of the function's estimate.
        CHECK(lp.rows[0].estimates[1]->value == (e == Estimator::coverage ? 500 : 700));
        CHECK(lp.rows[1].estimates[1]->value == 0);
        CHECK(lp.rows[0].estimates[0]->value == doctest::Approx(20e6));
    }
    const std::string coverage = lines_csv(d, Estimator::coverage), carry = lines_csv(d, Estimator::carry);
    CHECK(coverage.find("app.c:10,loop,app,2,0.02,10,20000000,500,") != std::string::npos);
    CHECK(carry.find("app.c:10,loop,app,2,0.02,10,20000000,700,") != std::string::npos);
}

TEST_CASE("--lines: on random profiles, every function's lines add up to its flat estimate") {
    for (uint32_t seed = 1; seed <= 5; ++seed) {
        synthetic::Spec s = synthetic::phases_spec();
        s.seed = seed;
        const Dataset d = dataset_of({with_random_lines(synthetic::build(s), seed)});
        for (const Estimator e : {Estimator::coverage, Estimator::carry}) {
            Sums sums = zero_sums(d);
            for (const LineRow& r : line_profile(d, {InlineMode::caller, "", e}).rows) add_known(sums[r.function], r.estimates);
            check_sums_to_flat(d, sums, e, "lines, seed " + std::to_string(seed));
        }
    }
}

TEST_CASE("time line, phases and ranks: on random profiles, they add up to the flat estimates") {
    for (uint32_t seed = 1; seed <= 5; ++seed) {
        const Dataset d = dataset_of({rank_profile(0, seed), rank_profile(1, seed + 100)});
        for (const Estimator e : {Estimator::coverage, Estimator::carry}) {
            const std::string what = std::string(to_string(e)) + ", seed " + std::to_string(seed);
            const auto rows = time_rows(d);
            const auto values = row_estimates(d, rows, e);
            Sums by_row = zero_sums(d);
            std::vector<double> row_totals(d.events.size());
            for (const RowEstimates& r : values) {
                for (size_t j = 0; j < r.functions.size(); ++j) add_known(by_row[r.functions[j].function], r.of_function[j]);
                add_known(row_totals, r.estimates);
            }
            check_sums_to_flat(d, by_row, e, "time line, " + what);
            const Imbalance im = imbalance(d, {e});
            REQUIRE(im.ranks.size() == 2);
            std::vector<double> rank_totals(d.events.size());
            for (const RankSummary& r : im.ranks) add_known(rank_totals, r.estimates);
            // Every function's events are known here: the totals are the flat sum.
            std::vector<double> flat_total(d.events.size());
            for (const auto& f : function_estimates(by_function(d, all_intervals(d)), e)) add_known(flat_total, f);
            for (size_t k = 0; k < d.events.size(); ++k) {
                INFO(what << " " << d.events[k].name);
                CHECK(row_totals[k] == doctest::Approx(flat_total[k]).epsilon(1e-9));
                CHECK(rank_totals[k] == doctest::Approx(flat_total[k]).epsilon(1e-9));
            }
        }
    }
}

namespace {

// One event live in a part of each function's samples: `half` counted 100
// faults in the half of its 100 ms the event was live, `full` 100 in all of
// its 100 ms, and `never` ran 50 ms with the event never live.
Profile rotation_profile() {
    Profile p = app_profile({{"page-faults", false}}, {"half", "full", "never"});
    Interval iv{.tid = 1, .seq = 0, .start_ns = 0, .end_ns = 250 * ms, .cells = {}, .lines = {}};
    iv.cells = {FunctionCell{0, 10, 100 * ms, {{100, 50 * ms, 100, 2000}}, 2},
                FunctionCell{1, 10, 100 * ms, {{100, 100 * ms, 100, 1000}}, 2},
                FunctionCell{2, 5, 50 * ms, {{0, 0}}, 1}};
    p.intervals = {iv};
    return p;
}

// A random spec: 2–8 functions of random weights, 2–5 events on 1 slot to
// one fewer than the events (so every event is rotated out at some ticks),
// two regimes of random event rates.
synthetic::Spec random_spec(uint32_t seed) {
    std::mt19937 rng(seed);
    auto between = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    synthetic::Spec s;
    s.seed = seed;
    for (int f = between(2, 8); f > 0; --f) s.function_names.push_back("f" + std::to_string(f));
    s.events = {"task-clock"};
    for (int e = between(1, 4); e > 0; --e) s.events.push_back("event" + std::to_string(e));
    s.slots = static_cast<uint32_t>(between(1, static_cast<int>(s.events.size()) - 1));
    s.samples_per_interval = static_cast<uint32_t>(between(5, 40));
    for (int r = 0; r < 2; ++r) {
        synthetic::Regime g;
        for (size_t f = 0; f < s.function_names.size(); ++f) g.function_weights.push_back(unit(rng) * unit(rng));
        for (size_t e = 1; e < s.events.size(); ++e) g.event_means.push_back(10 * unit(rng));
        s.regimes.push_back(g);
        s.runs.push_back({static_cast<size_t>(r), static_cast<size_t>(between(1, 6))});
    }
    return s;
}

}  // namespace

TEST_CASE("the flat report shares out the run's total, by hand") {
    const Dataset d = dataset_of({rotation_profile()});
    const uint32_t half = function_named(d, "half"), full = function_named(d, "full"), never = function_named(d, "never");
    // Their own estimates: half 100 × 100/50 = 200, full 100; the run's
    // total over them, at once: 200 faults in 150 ms live of their 200 ms,
    // 266.67 (never's 50 ms at that rate is not theirs to share). Shared as
    // 200 : 100.
    const auto flat = function_estimates(by_function(d, all_intervals(d)), Estimator::coverage);
    REQUIRE(flat[half][0]);
    REQUIRE(flat[full][0]);
    CHECK_FALSE(flat[never][0]);
    CHECK(flat[half][0]->value == doctest::Approx(800.0 / 3 * 2 / 3));
    CHECK(flat[full][0]->value == doctest::Approx(800.0 / 3 / 3));
    // Each spread is the function's own, scaled with its value.
    const auto own = estimate_spreads(by_function(d, all_intervals(d))[half], Estimator::coverage);
    REQUIRE(own[0]->sd_own);
    REQUIRE(flat[half][0]->sd_own);
    CHECK(*flat[half][0]->sd_own / flat[half][0]->value == doctest::Approx(*own[0]->sd_own / own[0]->value));
    // Carry-forward's sums are kept: they are the run's.
    const auto carry = function_estimates(by_function(d, all_intervals(d)), Estimator::carry);
    CHECK(carry[half][0]->value == 100);
    CHECK(carry[full][0]->value == 100);
}

TEST_CASE("the flat report adds up to the run's total on random rotated profiles, in proportion to the functions' own") {
    int differed = 0;  // profiles whose own estimates did not add up already (the test can fail on them)
    for (uint32_t seed = 1; seed <= 30; ++seed) {
        const Dataset d = dataset_of({synthetic::build(random_spec(seed))});
        const auto per_function = by_function(d, all_intervals(d));
        for (const Estimator e : {Estimator::coverage, Estimator::carry}) {
            const auto flat = function_estimates(per_function, e);
            for (size_t k = 0; k < d.events.size(); ++k) {
                INFO("seed " << seed << " " << to_string(e) << " " << d.events[k].name);
                // The run's total, from the cells: coverage's rate of all the
                // counts over the time of the functions where the event was
                // ever live; carry-forward's sum.
                double count = 0, live_ns = 0, time_ns = 0, carry = 0, flat_sum = 0, own_sum = 0;
                for (const Interval& iv : d.intervals)
                    for (const FunctionCell& c : iv.cells) {
                        count += static_cast<double>(c.events[k].count);
                        live_ns += static_cast<double>(c.events[k].coverage_ns);
                        if (!std::isnan(c.events[k].carry)) carry += c.events[k].carry;
                        if (per_function[c.function].events[k].coverage_ns > 0) time_ns += static_cast<double>(c.time_ns);
                    }
                const double run_total = e == Estimator::carry ? carry : count * time_ns / live_ns;
                std::optional<double> ratio;  // each function's share over its own estimate
                for (uint32_t f = 0; f < d.functions.size(); ++f) {
                    const auto own = estimate_spreads(per_function[f], e)[k];
                    REQUIRE(own.has_value() == flat[f][k].has_value());
                    if (!own) continue;
                    flat_sum += flat[f][k]->value;
                    own_sum += own->value;
                    if (own->value <= 0) continue;
                    if (!ratio) ratio = flat[f][k]->value / own->value;
                    CHECK(flat[f][k]->value / own->value == doctest::Approx(*ratio).epsilon(1e-9));
                }
                CHECK(flat_sum == doctest::Approx(run_total).epsilon(1e-9));
                if (std::abs(own_sum - run_total) > 1e-6 * run_total) ++differed;
            }
        }
    }
    CHECK(differed > 20);
}
