// The flat report and the aggregation under it, against numbers computed by
// hand from synthetic::small_profile() (see synthetic.cpp):
//   compute(int): 100 samples, 1.0 s; task-clock 600e6 over 600 ms covered →
//                 1e9; page-faults 50 over 400 ms → 125; context-switches never live
//   main:          20 samples, 0.2 s; page-faults 10 over 100 ms → 20; cs 1 over 100 ms → 2
//   memcpy:        20 samples, 0.2 s; page-faults 50 over 100 ms → 100; cs 3 over 100 ms → 6
// The flat report shares out the run's totals in those proportions: page-faults
// 110 over 600 of 1400 ms → 256.67 = 245 × 22/21 (compute 130.95, main 20.95,
// memcpy 104.76); task-clock and context-switches add up to the run's already.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analyze_support.hpp"
#include "reports.hpp"
#include "synthetic.hpp"

using namespace sprof;
using namespace sprof::analyze;
using sprof::test::function_named;

namespace {

Dataset small_dataset(size_t copies = 1) {
    std::vector<Source> sources;
    for (size_t i = 0; i < copies; ++i) sources.push_back({"small" + std::to_string(i), synthetic::small_profile()});
    return merge_profiles(std::move(sources));
}

// The same run seen by another process: functions and events listed in
// another order (other ids), and no context-switches event at all.
Profile reordered_profile() {
    Profile p = synthetic::small_profile();
    p.header.events = {{"page-faults", false}, {"task-clock", true}};
    std::reverse(p.functions.begin(), p.functions.end());  // memcpy=0, compute=1, main=2
    for (uint32_t i = 0; i < p.functions.size(); ++i) p.functions[i].id = i;
    const uint32_t new_id[] = {2, 1, 0};
    for (auto& iv : p.intervals)
        for (auto& c : iv.cells) {
            c.function = new_id[c.function];
            c.events = {c.events[1], c.events[0]};
        }
    return p;
}

std::string flat_csv(const Dataset& d, Options o = {}) {
    o.format = Format::csv;
    RateSet rates(d.event_names(), o.rates, o.default_rates);
    std::ostringstream out;
    report_flat({d, o, rates, out});
    return out.str();
}

}  // namespace

TEST_CASE("aggregation: per-function sums and coverage estimates by hand") {
    Dataset d = small_dataset();
    auto per = by_function(d, all_intervals(d));
    const Counts& compute = per[function_named(d, "compute(int)")];
    CHECK(compute.samples == 100);
    CHECK(compute.time_ns == 1'000'000'000);
    auto est = estimate_events(compute, Estimator::coverage);
    CHECK(*est[0] == doctest::Approx(1e9));
    CHECK(*est[1] == doctest::Approx(125));
    CHECK_FALSE(est[2].has_value());  // never live: unknown, not 0
    auto carry = estimate_events(compute, Estimator::carry);
    CHECK(*carry[1] == doctest::Approx(120));
    CHECK_FALSE(carry[2].has_value());
    auto memcpy_est = estimate_events(per[function_named(d, "memcpy")], Estimator::coverage);
    CHECK(*memcpy_est[1] == doctest::Approx(100));
    CHECK(*memcpy_est[2] == doctest::Approx(6));
    Counts all = total(per, d.events.size());
    CHECK(all.samples == 140);
    CHECK(all.time_ns == 1'400'000'000);
    // Ties in time are broken by name.
    auto ranked = ranked_functions(d, per);
    REQUIRE(ranked.size() == 3);
    CHECK(d.functions[ranked[0]].name == "compute(int)");
    CHECK(d.functions[ranked[1]].name == "main");
    CHECK(d.functions[ranked[2]].name == "memcpy");
}

TEST_CASE("merging: functions matched by object and name, events by name") {
    std::vector<Source> sources;
    sources.push_back({"a", synthetic::small_profile()});
    sources.push_back({"b", reordered_profile()});
    Dataset d = merge_profiles(std::move(sources));
    CHECK(d.functions.size() == 3);
    CHECK(d.event_names() == std::vector<std::string>{"task-clock", "page-faults", "context-switches"});
    CHECK(d.intervals.size() == 4);
    auto per = by_function(d, all_intervals(d));
    const Counts& compute = per[function_named(d, "compute(int)")];
    CHECK(compute.samples == 200);
    auto est = estimate_events(compute, Estimator::coverage);
    CHECK(*est[1] == doctest::Approx(250));  // 100 faults over 800 of 2000 ms
    const Counts& main_fn = per[function_named(d, "main")];
    // context-switches: only the first profile measured it (1 over 100 ms),
    // over main's 400 ms in both profiles → 4.
    CHECK(*estimate_events(main_fn, Estimator::coverage)[2] == doctest::Approx(4));
}

TEST_CASE("flat CSV: exact header, one row per function, unknown is empty") {
    Dataset d = small_dataset();
    std::string csv = flat_csv(d);
    std::istringstream in(csv);
    std::string header, row1, row2, row3, extra;
    std::getline(in, header);
    std::getline(in, row1);
    std::getline(in, row2);
    std::getline(in, row3);
    CHECK(header == "function,object,samples,time_s,time_pct,task-clock,page-faults,context-switches,"
                    "faults_per_ms,cs_per_s");
    // compute: faults/ms = 125 × 22/21 / 1e9 ns * 1e6; cs unknown → empty fields.
    CHECK(row1.starts_with("compute(int),app,100,1,71.428571428571"));
    CHECK(row1.ends_with(",1000000000,130.95238095238096,,0.13095238095238096,"));
    // main: 20 × 22/21 faults / 2e8 ns of task-clock × 1e6 per ms.
    CHECK(row2.starts_with("main,app,20,0.2,14.285714285714286,200000000,20.952380952380953,2,0.1047619047619"));
    CHECK(row2.ends_with(",10"));
    CHECK(row3 == "memcpy,libc.so.6,20,0.2,14.285714285714286,200000000,104.76190476190477,6,0.5238095238095238,30");
    CHECK_FALSE(std::getline(in, extra));
}

TEST_CASE("flat CSV --ci: NAME_low and NAME_high beside every estimate, by hand") {
    // compute's page faults: 50 in 400 of its 1000 ms (n = 100 samples of
    // 10 ms, m = 40 live), spread Q = 7.25e-6 count²/ns, so S = Q − Y²/X =
    // 1e-6 and the variance (T/X)² (1 − X/T) x̄ S m/(m−1) = 6.25 × 0.6 × 1e7 ×
    // 1e-6 × 40/39; 5 entries: the time's variance (1/6) × 5 × (1e7 ns)². Its
    // share of the run's total is 22/21 of that estimate: value and interval
    // scaled with it.
    Dataset d = small_dataset();
    const uint32_t compute = function_named(d, "compute(int)");
    const double sq[2] = {4e-6, 3.25e-6};
    const uint64_t entries[2] = {3, 2};
    int k = 0;
    for (auto& iv : d.intervals)
        for (auto& c : iv.cells)
            if (c.function == compute) {
                c.events[1].sq = sq[k];
                c.entries = entries[k++];
            }
    Options o;
    o.ci = true;
    std::istringstream in(flat_csv(d, o));
    std::string header, row;
    std::getline(in, header);
    std::getline(in, row);
    CHECK(header == "function,object,samples,time_s,time_pct,task-clock,task-clock_low,task-clock_high,"
                    "page-faults,page-faults_low,page-faults_high,context-switches,context-switches_low,"
                    "context-switches_high,faults_per_ms,faults_per_ms_low,faults_per_ms_high,cs_per_s,cs_per_s_low,"
                    "cs_per_s_high");
    std::vector<std::string> cells;
    std::stringstream split(row);
    for (std::string cell; std::getline(split, cell, ',');) cells.push_back(cell);
    cells.resize(20);
    REQUIRE(cells[0] == "compute(int)");
    const double own = 6.25 * 0.6 * 1e7 * 1e-6 * 40 / 39;
    const double time_rel = std::sqrt(5.0 / 6) * 1e7 / 1e9;
    const double share = 22.0 / 21;
    const double half = share * kZ95 * std::sqrt(own + 125 * 125 * time_rel * time_rel);
    CHECK(std::stod(cells[8]) == doctest::Approx(125 * share));
    CHECK(std::stod(cells[9]) == doctest::Approx(125 * share - half));
    CHECK(std::stod(cells[10]) == doctest::Approx(125 * share + half));
    // Never live: the estimate and both bounds unknown (empty).
    CHECK(cells[11].empty());
    CHECK(cells[12].empty());
    CHECK(cells[13].empty());
    // Faults per ms of task-clock: the time's error cancels; task-clock,
    // live 600 of 1000 ms, is known to about a nanosecond.
    const double rate_half = share * kZ95 * std::sqrt(own) / 1e9 * 1e6;
    CHECK(std::stod(cells[14]) == doctest::Approx(0.125 * share));
    CHECK(std::stod(cells[15]) == doctest::Approx(0.125 * share - rate_half));
    CHECK(std::stod(cells[16]) == doctest::Approx(0.125 * share + rate_half));
}

TEST_CASE("flat report: --top, user rates and the merged profiles add up") {
    Options o;
    o.top = 1;
    o.default_rates = false;
    o.rates = {"faults_per_sample=page-faults/samples"};
    std::string csv = flat_csv(small_dataset(2), o);
    CHECK(csv == "function,object,samples,time_s,time_pct,task-clock,page-faults,context-switches,faults_per_sample\n"
                 "compute(int),app,200,2,71.42857142857143,2000000000,261.9047619047619,,1.3095238095238095\n");
}

TEST_CASE("flat text: unknown prints as '-', JSON as null") {
    Dataset d = small_dataset();
    Options o;
    RateSet rates(d.event_names(), {}, true);
    std::ostringstream text;
    report_flat({d, o, rates, text});
    // Text shows the name short (--names), CSV and JSON in full.
    CHECK(text.str().find("compute(…)  app") != std::string::npos);
    std::string line = text.str().substr(text.str().find("compute(…)"));
    line = line.substr(0, line.find('\n'));
    CHECK(line.find(" - ") != std::string::npos);

    o.format = Format::json;
    std::ostringstream js;
    report_flat({d, o, rates, js});
    Json j = Json::parse(js.str());
    CHECK(j["functions"][0]["function"] == "compute(int)");
    CHECK(j["functions"][0]["context-switches"].is_null());
    CHECK(j["functions"][0]["page-faults"].get<double>() == doctest::Approx(125 * 22.0 / 21));
    CHECK(j["total"]["samples"] == 140);
    CHECK(j["profiles"][0]["program"] == "/usr/bin/app");
}

TEST_CASE("time line: row k merges the k-th interval of every thread") {
    Profile p = synthetic::small_profile();
    p.threads.push_back({101, "worker"});
    // The worker's two intervals, a little later than the main thread's.
    for (Interval iv : std::vector<Interval>(p.intervals)) {
        iv.tid = 101;
        iv.start_ns += 100'000'000;
        iv.end_ns += 100'000'000;
        p.intervals.push_back(iv);
    }
    std::vector<Source> sources;
    sources.push_back({"threads", p});
    Dataset d = merge_profiles(std::move(sources));
    auto rows = time_rows(d);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].intervals == std::vector<uint32_t>{0, 2});
    CHECK(rows[0].start_ns == 0);
    CHECK(rows[0].end_ns == 1'100'000'000);
    CHECK(rows[1].start_ns == 1'000'000'000);
    Counts row1 = total(d, std::span<const TimeRow>(rows.begin() + 1, rows.end()));
    CHECK(row1.samples == 120);  // 60 samples of interval 1, twice
}
