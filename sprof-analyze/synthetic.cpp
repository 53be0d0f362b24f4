#include "synthetic.hpp"

#include <cmath>
#include <random>

#include "sprof/histogram.hpp"

namespace sprof::synthetic {

namespace {

ProfileHeader header(std::vector<std::string> events, uint32_t slots, uint32_t hist_samples) {
    ProfileHeader h;
    h.collector = "sprof_lib";
    h.backend = "perf";
    h.program = "/usr/bin/synthetic";
    h.argv = {"synthetic"};
    h.hostname = "synthetic-host";
    h.pid = 4242;
    h.start_unix_ns = 1'700'000'000'000'000'000ull;
    h.sample_interval_ns = 10'000'000;
    h.hist_samples = hist_samples;
    h.slots = slots;
    for (auto& e : events) h.events.push_back({e, e == "task-clock"});
    return h;
}

EventCell cell(uint64_t count, uint64_t coverage_ns, double carry) { return {count, coverage_ns, carry}; }

}  // namespace

Profile small_profile() {
    Profile p;
    p.header = header({"task-clock", "page-faults", "context-switches"}, 2, 80);
    p.header.program = "/usr/bin/app";
    p.header.argv = {"app", "--size", "3"};
    p.objects = {{0, "/usr/bin/app"}, {1, "/lib/x86_64-linux-gnu/libc.so.6"}};
    p.functions = {{0, 0, 0x1000, 0x1100, "main"},
                   {1, 0, 0x1100, 0x1200, "_Z7computei"},
                   {2, 1, 0x5000, 0x5100, "memcpy"}};
    p.threads = {{100, "app"}};
    const uint64_t ms = 1'000'000;
    Interval a{100, 0, 0, 1000 * ms, {}};
    a.cells.push_back({1, 60, 600 * ms,
                       {cell(400'000'000, 400 * ms, 600e6), cell(30, 200 * ms, 80), cell(0, 0, NAN)}});
    a.cells.push_back({0, 20, 200 * ms,
                       {cell(200'000'000, 200 * ms, 200e6), cell(10, 100 * ms, 20), cell(1, 100 * ms, 2)}});
    Interval b{100, 1, 1000 * ms, 2000 * ms, {}};
    b.cells.push_back({1, 40, 400 * ms,
                       {cell(200'000'000, 200 * ms, 400e6), cell(20, 200 * ms, 40), cell(0, 0, NAN)}});
    b.cells.push_back({2, 20, 200 * ms,
                       {cell(100'000'000, 100 * ms, 200e6), cell(50, 100 * ms, 100), cell(3, 100 * ms, 6)}});
    p.intervals = {a, b};
    p.end = {true, 0, 140, 0};
    return p;
}

Profile build(const Spec& spec) {
    Profile p;
    p.header = header(spec.events, spec.slots, spec.samples_per_interval);
    p.header.sample_interval_ns = spec.sample_ns;
    p.objects = {{0, "/usr/bin/synthetic"}};
    for (uint32_t f = 0; f < spec.function_names.size(); ++f)
        p.functions.push_back({f, 0, 0x1000 + 0x100ull * f, 0x1100 + 0x100ull * f, spec.function_names[f]});
    p.threads = {{1, "synthetic"}};

    std::mt19937_64 rng(spec.seed);
    std::vector<std::discrete_distribution<uint32_t>> pick;
    for (const auto& r : spec.regimes) pick.emplace_back(r.function_weights.begin(), r.function_weights.end());
    const unsigned n_events = static_cast<unsigned>(spec.events.size());
    IntervalBuilder builder(1, n_events);
    RawSample s;
    s.ref_ns = spec.sample_ns;
    uint64_t tick = 0;
    for (const Run& run : spec.runs) {
        const Regime& regime = spec.regimes.at(run.regime);
        for (size_t i = 0; i < run.intervals; ++i) {
            for (uint32_t k = 0; k < spec.samples_per_interval; ++k, ++tick) {
                s.wall_ns = (tick + 1) * spec.sample_ns;
                s.live_mask = 0;
                for (uint32_t slot = 0; slot < spec.slots && slot < n_events; ++slot)
                    s.live_mask |= 1u << ((tick * spec.slots + slot) % n_events);
                s.delta[0] = spec.sample_ns;  // task-clock: the sample's CPU time
                for (unsigned e = 1; e < n_events; ++e)
                    s.delta[e] = std::poisson_distribution<uint64_t>(regime.event_means.at(e - 1))(rng);
                builder.add(pick[run.regime](rng), s);
            }
            p.intervals.push_back(builder.close(tick * spec.sample_ns));
        }
    }
    p.end = {true, 0, tick, 0};
    return p;
}

Spec phases_spec() {
    Spec s;
    s.function_names = {"setup", "_Z8compressPKcm", "_Z10decompressPKcm", "checksum"};
    s.events = {"task-clock", "page-faults", "context-switches"};
    s.regimes = {
        {{0.9, 0, 0, 0.1}, {5.0, 0.01}},   // setup: touches fresh memory
        {{0, 0.7, 0, 0.3}, {0.2, 0.01}},   // compress
        {{0, 0, 0.7, 0.3}, {1.0, 0.01}},   // decompress
    };
    s.runs = {{0, 5}};
    for (int i = 0; i < 3; ++i) {
        s.runs.push_back({1, 8});
        s.runs.push_back({2, 8});
    }
    return s;
}

std::vector<size_t> phase_boundaries() { return {5, 13, 21, 29, 37, 45}; }

Spec hour_spec() {
    Spec s;
    for (int f = 0; f < 1000; ++f) s.function_names.push_back("_Z5f" + std::to_string(1000 + f) + "v");  // f1000()…
    s.events = {"task-clock", "page-faults", "context-switches", "cpu-migrations"};
    // Six 10-minute regimes, each with its own Zipf-distributed hot functions.
    for (int r = 0; r < 6; ++r) {
        Regime g;
        for (int f = 0; f < 1000; ++f) g.function_weights.push_back(1.0 / (1 + (f + 1000 - 150 * r) % 1000));
        g.event_means = {0.5 + r, 0.05, 0.001};
        s.regimes.push_back(g);
        s.runs.push_back({static_cast<size_t>(r), 1200});
    }
    return s;
}

}  // namespace sprof::synthetic
