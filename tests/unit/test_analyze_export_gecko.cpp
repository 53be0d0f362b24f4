// The Gecko export's CPU time per function against the cells it comes from:
// also when a function's last cell holds time without samples (ticks the
// kernel dropped in a user-space-only profile, which the collector gave back
// to the function that lost them).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "dataset.hpp"
#include "exports.hpp"
#include "options.hpp"
#include "rates.hpp"
#include "reports.hpp"

using namespace sprof;
using namespace sprof::analyze;

TEST_CASE("gecko export: each function's CPU time is its cells' time, also time held after its last sample") {
    Profile p;
    p.header.pid = 7;
    p.header.program = "/bin/app";
    p.header.sample_interval_ns = 10'000'000;
    p.header.events = {{"task-clock", true}};
    p.objects = {{0, "/bin/app", ""}};
    p.functions = {{0, 0, 0x1000, 0x1100, "a"}, {1, 0, 0x1100, 0x1200, "b"}};
    p.threads = {{7, "app"}};
    auto cell = [](uint32_t function, uint64_t samples, uint64_t time_ns) {
        return FunctionCell{function, samples, time_ns, {{time_ns, time_ns, NAN}}};
    };
    p.intervals = {{.tid = 7, .seq = 0, .start_ns = 0, .end_ns = 30'000'000,
                    .cells = {cell(0, 2, 20'000'000), cell(1, 1, 10'000'000)}, .lines = {}},
                   // a's last 5 ms: lost ticks given back, no sample of its own
                   {.tid = 7, .seq = 1, .start_ns = 30'000'000, .end_ns = 55'000'000,
                    .cells = {cell(0, 0, 5'000'000), cell(1, 2, 20'000'000)}, .lines = {}}};
    std::vector<Source> sources;
    sources.push_back({"app.sprof", std::move(p)});
    const Dataset d = merge_profiles(std::move(sources));

    const auto file = std::filesystem::temp_directory_path() / ("sprof-gecko-test-" + std::to_string(getpid()) + ".json");
    Options o;
    o.export_files["gecko"] = file.string();
    const RateSet rates(d.event_names(), {}, false);
    std::ostringstream out;
    export_gecko(Context{d, o, rates, out});
    const nlohmann::json g = nlohmann::json::parse(std::ifstream(file));
    std::filesystem::remove(file);

    REQUIRE(g["threads"].size() == 1);
    const auto& t = g["threads"][0];
    std::map<std::string, double> cpu_ns;
    std::map<std::string, int> samples;
    for (const auto& s : t["samples"]["data"]) {  // stack, time, eventDelay, threadCPUDelta
        const auto frame = t["stackTable"]["data"][s[0].get<size_t>()][1].get<size_t>();
        const auto name = t["stringTable"][t["frameTable"]["data"][frame][0].get<size_t>()].get<std::string>();
        cpu_ns[name] += s[3].get<double>();
        ++samples[name];
    }
    CHECK(samples["a (in app)"] == 2);
    CHECK(samples["b (in app)"] == 3);
    CHECK(cpu_ns["a (in app)"] == doctest::Approx(25'000'000));
    CHECK(cpu_ns["b (in app)"] == doctest::Approx(30'000'000));
}
