// The front of the tools that start a run (sprof_lib, sprof_pt, preprof):
// the run built once from the command line and the control file, the event
// check, --help and --list-events, and starting the program.
#pragma once
#include <functional>
#include <string>

#include "sprof/run_options.hpp"

namespace sprof {

// Builds the run of `tool`: parses its command line once; for a collector,
// the options it left open come from the control file that applies (-c FILE,
// or <program>.prf beside the program), whose absolute path goes to
// run.control; then resolve_run. Nothing past the parsing after
// --list-events or without a program (or, for sprof_pt, tasks to attach
// to). Throws UsageError, EventError, ControlFileError or BackendError.
RunOptions prepare_run(int argc, char** argv, Tool tool);

// Completes a run for counting: the default events (with a notice on stderr,
// prefixed `tool`) when none were given, K slots (all events unless fewer
// were asked for), and the run's counters attached once to the caller through
// its backend, so a run never starts with an event, timer or device it
// cannot have; which events sample themselves, for `collector`. Throws.
void resolve_run(RunOptions& run, const std::string& tool, Tool collector);

// prepare_run, then `body`. Returns body's result, 0 after --help or
// --list-events, and 2 after a one-line error on stderr ("TOOL: what (why)")
// for bad usage, a bad control file or an event this machine cannot count.
int collector_main(int argc, char** argv, Tool tool, const std::function<int(RunOptions&)>& body);

// --version or --list-events, when given: printed on stdout, true (the
// tool has nothing more to do).
bool answered_alone(const RunOptions& run, Tool tool);

// What a collector checks before it starts the program, so that it never
// starts one it then cannot profile. check_program: the program is found
// and executable, else, as exec_program, one line and exit 127 or 126.
// check_output: the profile at `path` can be created, else
// std::runtime_error "cannot create PATH: why"; it leaves no file behind.
void check_program(char** argv, const std::string& tool);
void check_output(const std::string& path);

// The path execvp would run for `name` (PATH search when it has no '/');
// empty when not found.
std::string find_program(const std::string& name);

// execvp(argv[0], argv). Never returns: on failure prints one line
// "TOOL: cannot run 'PROG': why" and exits 127 (not found) or 126 (not executable).
[[noreturn]] void exec_program(char** argv, const std::string& tool);

}  // namespace sprof
