// What a profiling run is asked to do: the options shared by sprof_lib and
// sprof_pt, their parsing, and their hand-over to the in-process runtime
// (environment variables SPROF_*).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sprof/job.hpp"

namespace sprof {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct RunOptions {
    std::string events;                      // comma list; empty = default set
    unsigned slots = 0;                      // K; 0 = as many as events (software) / N
    uint64_t sample_interval_ns = 10'000'000;
    uint32_t hist_samples = 50;              // samples per histogram interval…
    uint64_t hist_interval_ns = 0;           // …or a fixed length (wins when set)
    std::string output;                      // pattern; empty = <program>.%p.sprof
    std::string backend = "perf";
    std::string clock = "cpu";               // sprof_pt: cpu | wall
    std::string control;                     // -c FILE
    bool follow = true;                      // sprof_pt: follow fork/exec
    bool list_events = false;
};

// "10ms", "250us", "1.5s", "20000ns"; a bare number is milliseconds.
uint64_t parse_duration(const std::string& s);
std::string format_duration(uint64_t ns);

// Parses the options before the program; returns the index of the program's
// argv[0] in argv (== argc when there is none). Throws UsageError.
// `tool` names the tool in messages; `ptrace_options` admits --clock/--no-follow.
int parse_run_options(int argc, char** argv, RunOptions& opts, bool ptrace_options);

// The usage text of sprof_lib / sprof_pt.
std::string run_usage(const std::string& tool, bool ptrace_options);

// Environment hand-over to the runtime inside the profiled process.
std::vector<std::pair<std::string, std::string>> to_environment(const RunOptions& opts);
RunOptions from_environment();  // defaults where a variable is missing; throws UsageError

// Expands %p (pid), %h (host name), %r (rank in a parallel job, 0 outside
// one) and %j (the job's id; the pid when the launcher gives none) in the
// output pattern; the default pattern is <basename of program>.%p.sprof, and
// <basename>.%j.rank%r.sprof in a job. Ranks of a job never share a file: a
// pattern without %r gets ".rank<r>" before its ".sprof" ending in a job.
// A `descendant` (a process the profiled program started) never shares the
// file either: a pattern without %p gets ".<pid>" before the ending. Nor does
// a later image of the same process (`image` N > 0: the process exec'd N
// times): it gets ".execN" before the ending, so an exec never truncates the
// profile of the image before it.
std::string expand_output_path(const std::string& pattern, const std::string& program, int pid,
                               bool descendant = false, unsigned image = 0,
                               const JobPlace& job = job_place());

// Set by the collectors to the pid of the process they profile, so the
// runtime in a descendant (inherited LD_PRELOAD) can tell it is one.
constexpr const char* kRootPidVariable = "SPROF_ROOT_PID";

// Passed by the in-process runtime to the image a process execs into:
// "<pid>:<N>", the pid and that image's number. Inherited by the process's
// children, whose pid differs: for them it means nothing.
constexpr const char* kImageVariable = "SPROF_IMAGE";
// The image number `value` (of kImageVariable, may be null) gives process `pid`: 0 unless it names this pid.
unsigned image_number(const char* value, int pid);

}  // namespace sprof
