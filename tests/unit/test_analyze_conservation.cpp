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
Profile entry_profile() {
    Profile p;
    p.header.collector = "sprof_lib";
    p.header.program = "/usr/bin/app";
    p.header.clock = "cpu";
    p.header.sample_interval_ns = 10 * ms;
    p.header.events = {{"task-clock", true}, {"page-faults", false}};
    p.objects = {{0, "/usr/bin/app", ""}};
    p.functions = {{0, 0, 0x1000, 0x1100, "loop"}, {1, 0, 0x1100, 0x1200, "touch"}};
    p.threads = {{1, "app"}};
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
