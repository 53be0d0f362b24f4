// The front of both collectors (sprof_lib, sprof_pt): options, control file,
// --help and --list-events, the event check, and starting the program.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "sprof/events.hpp"
#include "sprof/run_options.hpp"
#include "sprof/symbols.hpp"

namespace sprof {

// What a collector needs to start: the options (command line over control
// file), the resolved and probed events, and the program's argv.
struct PreparedRun {
    RunOptions opts;
    std::vector<EventSpec> events;
    unsigned slots = 0;                 // K, never more than the events
    std::vector<ObjectSymbols> tables;  // from a control file
    char** program = nullptr;           // argv of the program, null-terminated
};

// Fills run.events and run.slots from run.opts: the default set (with a
// notice on stderr) when no events were asked for; the run's counters are
// attached once to the caller through the chosen backend, so a run never
// starts with an event, timer or device it cannot have. Throws.
void resolve_run_events(PreparedRun& run, const std::string& tool);

// Parses and checks everything, then calls `run`. Returns run's result, 0
// after --help or --list-events, and 2 after a one-line error on stderr
// ("TOOL: what (why)") for bad usage, a bad control file or an event this
// machine cannot count.
int collector_main(int argc, char** argv, const std::string& tool, bool ptrace_options,
                   const std::function<int(PreparedRun&)>& run);

// execvp(argv[0], argv). Never returns: on failure prints one line
// "TOOL: cannot run 'PROG': why" and exits 127 (not found) or 126 (not executable).
[[noreturn]] void exec_program(char** argv, const std::string& tool);

}  // namespace sprof
