// Profiles of known structure, for tests and the analyzer benchmark. Built
// through the profilers' own IntervalBuilder (except small_profile, whose
// cells are written out by hand so every report value can be computed on
// paper).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sprof/profile.hpp"

namespace sprof::synthetic {

// 1 thread, 2 intervals, functions main and compute(int) in /usr/bin/app and
// memcpy in libc; events task-clock, page-faults, context-switches on 2 slots.
// The numbers are in synthetic.cpp; tests restate them.
Profile small_profile();

// A behaviour: the share of samples of each function, and the mean delta
// per sample of each event other than task-clock (which is the sample's time).
struct Regime {
    std::vector<double> function_weights;
    std::vector<double> event_means;
};

struct Run {
    size_t regime;
    size_t intervals;
};

struct Spec {
    std::vector<std::string> function_names;  // all in object "/usr/bin/synthetic"
    std::vector<std::string> events;          // events[0] is task-clock
    uint32_t slots = 2;
    uint32_t samples_per_interval = 50;
    uint64_t sample_ns = 10'000'000;
    std::vector<Regime> regimes;
    std::vector<Run> runs;
    uint32_t seed = 1;
};

// Samples drawn at random (fixed seed) from the regimes, round-robin live sets.
Profile build(const Spec& spec);

// Setup (5 intervals) then compress-like and decompress-like regimes
// alternating every 8 intervals, 3 times each. The true phase boundaries, in
// intervals, are phase_boundaries().
Spec phases_spec();
std::vector<size_t> phase_boundaries();

// One hour at 100 Hz: 360,000 samples in 7,200 intervals, 1,000 functions,
// 4 events, with the dominant functions changing every 10 minutes.
Spec hour_spec();

}  // namespace sprof::synthetic
