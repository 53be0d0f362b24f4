#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "calibrate.hpp"
#include "nnls.hpp"
#include "sprof/profile_io.hpp"
#include "synthetic.hpp"

using namespace sprof;
using namespace sprof::analyze;

TEST_CASE("nnls: an exact non-negative solution is found") {
    // b = A [2, 0.5]ᵀ exactly.
    std::vector<double> a = {1, 0, 0, 1, 1, 1, 2, 1};
    std::vector<double> b = {2, 0.5, 2.5, 4.5};
    auto x = nnls(a, 4, 2, b);
    CHECK(x[0] == doctest::Approx(2));
    CHECK(x[1] == doctest::Approx(0.5));
}

TEST_CASE("nnls: a coefficient that least squares makes negative is held at zero") {
    // Unconstrained: b = 1·c0 − 1·c1 exactly; with x ≥ 0 the best is x1 = 0
    // and x0 = (Σ a0·b)/(Σ a0²) = (1·1 + 2·1 + 3·2)/(1 + 4 + 9) = 9/14.
    std::vector<double> a = {1, 0, 2, 1, 3, 1};
    std::vector<double> b = {1, 1, 2};
    auto x = nnls(a, 3, 2, b);
    CHECK(x[0] == doctest::Approx(9.0 / 14));
    CHECK(x[1] == 0.0);
}

TEST_CASE("calibrate, then predict: a program whose time is a known cost per event") {
    // Three programs that spend exactly 5 ms per page fault: 2, 4 and 8
    // faults (Poisson means) in samples of 10, 20 and 40 ms. Calibrate on
    // the first two, predict the third.
    std::vector<std::string> paths;
    const double faults_per_sample[] = {2, 4, 8};
    for (int i = 0; i < 3; ++i) {
        synthetic::Spec s;
        s.function_names = {"work"};
        s.events = {"task-clock", "page-faults"};
        s.slots = 2;
        s.sample_ns = static_cast<uint64_t>(10'000'000 * faults_per_sample[i] / 2);  // 5 ms per fault
        s.regimes = {{{1.0}, {faults_per_sample[i]}}};
        s.runs = {{0, 20}};
        s.seed = 10 + i;
        Profile p = synthetic::build(s);
        std::string path = fmt::format("/tmp/sprof-test-calibrate-{}-{}.sprof", getpid(), i);
        std::ofstream(path, std::ios::binary) << encode_profile(p);
        paths.push_back(path);
    }
    Options o;
    o.profiles = {paths[0], paths[1]};
    o.output = fmt::format("/tmp/sprof-test-machine-{}.json", getpid());
    std::ostringstream fit;
    calibrate_machine(o, fit);
    Json model = Json::parse(std::ifstream(o.output));
    // 5 ms per fault, within the Poisson noise of 2,000+ faults.
    CHECK(model["seconds_per_event"]["page-faults"].get<double>() == doctest::Approx(0.005).epsilon(0.05));

    Options p;
    p.machine_file = o.output;
    p.profiles = {paths[2]};
    p.format = Format::json;
    std::ostringstream out;
    predict_runtime(p, out);
    Json j = Json::parse(out.str());
    const Json& total = j["prediction"].back();
    CHECK(total["phase"] == "total");
    CHECK(total["measured_s"].get<double>() == doctest::Approx(20 * 50 * 0.04));
    CHECK(total["predicted_s"].get<double>() == doctest::Approx(40.0).epsilon(0.05));
    for (const auto& path : paths) std::remove(path.c_str());
    std::remove(o.output.c_str());
}
