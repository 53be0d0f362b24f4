#include <doctest/doctest.h>

#include <random>

#include "phases.hpp"
#include "reports.hpp"
#include "synthetic.hpp"

using namespace sprof;
using namespace sprof::analyze;

namespace {

std::vector<size_t> starts(const std::vector<Phase>& phases) {
    std::vector<size_t> s;
    for (size_t i = 1; i < phases.size(); ++i) s.push_back(phases[i].first);
    return s;
}

std::string labels(const std::vector<Phase>& phases) {
    std::string s;
    for (const auto& p : phases) s += p.label;
    return s;
}

Features features_of(const std::vector<std::vector<double>>& rows) {
    Features x;
    x.rows = rows.size();
    x.dims = rows.front().size();
    for (const auto& r : rows) x.values.insert(x.values.end(), r.begin(), r.end());
    return x;
}

}  // namespace

TEST_CASE("segmentation finds exact boundaries of noise-free steps") {
    std::vector<std::vector<double>> rows;
    for (int i = 0; i < 6; ++i) rows.push_back({1, 0});
    for (int i = 0; i < 4; ++i) rows.push_back({0, 1});
    for (int i = 0; i < 5; ++i) rows.push_back({1, 0});
    Features x = features_of(rows);
    CHECK(segment(x, 3, 0.1) == std::vector<size_t>{6, 10});
    // No segment shorter than the minimum length, even to follow a real step.
    size_t previous = 0;
    for (size_t b : segment(x, 5, 0.1)) {
        CHECK(b - previous >= 5);
        previous = b;
    }
    CHECK(15 - previous >= 5);
    auto phases = auto_phases(x, 3);
    CHECK(starts(phases) == std::vector<size_t>{6, 10});
    CHECK(labels(phases) == "ABA");
    CHECK(phases.back().last == 15);
}

TEST_CASE("phase labels: A … Z, AA, AB") {
    CHECK(phase_label(0) == "A");
    CHECK(phase_label(25) == "Z");
    CHECK(phase_label(26) == "AA");
    CHECK(phase_label(27) == "AB");
}

TEST_CASE("a constant noisy signal is one phase") {
    std::mt19937 rng(7);
    std::normal_distribution<double> noise(0, 0.05);
    std::vector<std::vector<double>> rows;
    for (int i = 0; i < 2000; ++i) rows.push_back({0.5 + noise(rng), 0.5 + noise(rng), noise(rng)});
    auto phases = auto_phases(features_of(rows), 3);
    CHECK(phases.size() == 1);
}

TEST_CASE("automatic phases of sampled profiles: every boundary within one interval, none spurious") {
    // Setup, then compress/decompress alternating; samples drawn at random,
    // so the time shares carry real sampling noise. Several seeds.
    for (uint32_t seed = 1; seed <= 10; ++seed) {
        CAPTURE(seed);
        synthetic::Spec spec = synthetic::phases_spec();
        spec.seed = seed;
        std::vector<Source> sources;
        sources.push_back({"phases", synthetic::build(spec)});
        Dataset d = merge_profiles(std::move(sources));
        RateSet rates(d.event_names(), {}, true);
        auto rows = time_rows(d);
        REQUIRE(rows.size() == 53);
        auto phases = find_phases(d, rows, rates, PhaseParams{});
        auto found = starts(phases);
        auto truth = synthetic::phase_boundaries();
        REQUIRE(found.size() == truth.size());
        for (size_t i = 0; i < truth.size(); ++i) {
            CAPTURE(i);
            CHECK(std::abs(static_cast<long>(found[i]) - static_cast<long>(truth[i])) <= 1);
        }
        CHECK(labels(phases) == "ABCBCBC");
    }
}

TEST_CASE("func:NAME phases follow the function's running state") {
    std::vector<Source> sources;
    sources.push_back({"phases", synthetic::build(synthetic::phases_spec())});
    Dataset d = merge_profiles(std::move(sources));
    RateSet rates(d.event_names(), {}, true);
    PhaseParams p;
    p.function = "decompress";  // matches decompress(char const*, unsigned long)
    auto phases = find_phases(d, time_rows(d), rates, p);
    // decompress holds ~70 % of its phases' time and none elsewhere.
    CHECK(starts(phases) == std::vector<size_t>{13, 21, 29, 37, 45});
    CHECK(labels(phases) == std::string("idle") + "running" + "idle" + "running" + "idle" + "running");
    p.function = "nosuch";
    CHECK_THROWS_AS(find_phases(d, time_rows(d), rates, p), std::invalid_argument);
}

TEST_CASE("phase CSV header is exact") {
    std::vector<Source> sources;
    sources.push_back({"phases", synthetic::build(synthetic::phases_spec())});
    Dataset d = merge_profiles(std::move(sources));
    RateSet rates(d.event_names(), {}, true);
    Options o;
    o.format = Format::csv;
    std::ostringstream out;
    report_phases({d, o, rates, out});
    std::string header = out.str().substr(0, out.str().find('\n'));
    CHECK(header == "phase,label,start_s,end_s,intervals,dominant_function,faults_per_ms,cs_per_s");
    CHECK(out.str().find("\n2,B,2.5") != std::string::npos);  // compress starts at interval 5 = 2.5 s
}
