// What a profiling run is asked to do, in one type whatever it comes from:
// the command line of sprof_lib, sprof_pt or preprof, a control file (under
// the command line), or the environment sprof_lib hands to the runtime in the
// profiled process. Every option is one row of the table in run_options.cpp:
// its flag, its usage line, its value read from text and written back as
// text — the environment speaks the command line's language, so a new option
// is a field here and a row there.
#pragma once
#include <sys/types.h>

#include <bitset>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sprof/events.hpp"
#include "sprof/option_values.hpp"
#include "sprof/profile.hpp"
#include "sprof/scheduler.hpp"
#include "sprof/symbols.hpp"
#include "sprof/tick_dither.hpp"

namespace sprof {


// The tools that take run options; each accepts its own subset of them.
enum class Tool { sprof_lib, sprof_pt, preprof };
const char* tool_name(Tool tool);

// What a source can give; -H and --hist-interval both give the histogram.
enum class Option {
    events, slots, sample_interval, tick_dither, histogram, output, control, backend, clock, follow,
    attach_pids, attach_tids, duration, rotation, rotation_seed, locality, line_size, locality_seed, call_graph,
    call_graph_depth, quiet,
    list_events, version, help
};
constexpr size_t kOptionCount = static_cast<size_t>(Option::help) + 1;

struct RunOptions {
    std::vector<EventSpec> events;      // resolved (not yet probed); empty = the default set
    unsigned slots = 0;                 // K; 0 = as many as events (resolve_run makes it K)
    uint64_t sample_interval_ns = 10'000'000;
    double tick_dither = 0.25;          // --tick-dither (recorded; TickPlan)
    uint32_t hist_samples = 50;         // samples per histogram interval…
    uint64_t hist_interval_ns = 0;      // …or a fixed length (wins when set)
    std::string backend = "perf";
    std::string output;                 // pattern; empty = <program>.%p.sprof (preprof: the control file)
    std::string clock = "cpu";          // sprof_pt: cpu | wall
    bool follow = true;                 // sprof_pt: follow fork/vfork/exec
    std::vector<pid_t> attach_pids;     // sprof_pt -p: running processes to attach to (all their threads)
    std::vector<pid_t> attach_tids;     // sprof_pt --tid: running threads to attach to (those alone)
    uint64_t duration_ns = 0;           // sprof_pt --duration: detach after this long; 0 = at SIGINT/SIGTERM
    Rotation rotation;                  // --rotation, --rotation-seed (random unless given; recorded)
    LocalityRun locality;               // sprof_lib --locality, --line-size, --locality-seed
    std::string call_graph = "none";    // -g/--call-graph: none | fp (frame pointers)
    unsigned call_graph_depth = kMaxCallDepth;  // --call-graph-depth: frames per chain at most
    std::string control;                // the control file in use (absolute path once applied)
    std::vector<ObjectSymbols> tables;  // its function tables: the program first, then its libraries
    bool quiet = false;                 // -q: no notes (the default events' reason…); errors stay
    bool list_events = false;
    bool show_version = false;
    char** program = nullptr;           // argv of the program (null-terminated); null when none

    // sprof_pt attaches to running tasks instead of starting a program.
    bool attaching() const { return !attach_pids.empty() || !attach_tids.empty(); }

    // What the source gave explicitly: a control file fills only the rest.
    bool given(Option o) const { return given_set.test(static_cast<size_t>(o)); }
    void give(Option o) { given_set.set(static_cast<size_t>(o)); }
    std::bitset<kOptionCount> given_set;
};

// A seed from the system's entropy, for a run given none (it is recorded).
uint64_t random_seed();

// --tick-dither: a fraction from 0 to kMaxTickDither. Half the interval at
// most: the ticks stay near their nominal rate.
constexpr double kMaxTickDither = 0.5;
// The run's ticks: its sampling interval, dither and seed. Where the kernel
// drops the CPU-time ticks that land in it (a user who may count user space
// only), the interval builder counts the lost ones on a fixed grid
// (IntervalBuilder::ticks_in), so the period stays fixed there: dithering
// such runs needs each sample's own period in the profile first.
TickPlan tick_plan(const RunOptions& run);
// The frames the backend is to record per tick: 0 without --call-graph.
unsigned call_depth(const RunOptions& run);
bool ticks_dropped_in_kernel(const RunOptions& run);

// Parses the options of `tool` before the program into `run`, marking each
// given; run.program points at the program's argv[0] (null when there is
// none). Throws UsageError (an empty message after --help) or EventError.
void parse_run_options(int argc, char** argv, Tool tool, RunOptions& run);

// The usage text of `tool`.
std::string run_usage(Tool tool);

// The hand-over to the runtime: every option the runtime takes, as
// SPROF_<NAME>=<value as on the command line>; empty when unset, so no
// variable of an outer run survives.
std::vector<std::pair<std::string, std::string>> to_environment(const RunOptions& run);
// Reads them back (defaults where a variable is missing or empty). Throws
// UsageError naming the variable, or EventError.
RunOptions from_environment();

}  // namespace sprof
