// Starting the program to profile, shared by sprof_lib and sprof_pt.
#pragma once
#include <string>

#include "sprof/run_options.hpp"

namespace sprof {

// execvp(argv[0], argv). Never returns: on failure prints one line
// "TOOL: cannot run 'PROG': why" and exits 127 (not found) or 126 (not executable).
[[noreturn]] void exec_program(char** argv, const std::string& tool);

// The common front of both collectors: --help, --list-events, the event
// check and the default-event notice. Returns false when there is nothing
// to run (help or list printed). Fills `events` with the resolved list.
bool prepare_run(RunOptions& opts, int argc, char** argv, int program_index, const std::string& tool);

}  // namespace sprof
