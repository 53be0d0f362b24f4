// Control files (`<program>.prf`, written by preprof): a run's options and the
// precomputed function tables of a program and its shared libraries, so a
// collector starts without parsing ELF. Text; specified in docs/FORMAT.md.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "sprof/events.hpp"
#include "sprof/run_options.hpp"
#include "sprof/symbols.hpp"

namespace sprof {

constexpr int kControlFormatVersion = 1;

struct ControlFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ControlFile {
    std::string program;               // absolute path of the executable
    std::vector<EventSpec> events;     // resolved and probed when written
    unsigned slots = 0;
    uint64_t sample_interval_ns = 0;
    uint32_t hist_samples = 0;         // one of these two is set
    uint64_t hist_interval_ns = 0;
    std::string backend;
    std::vector<ObjectSymbols> tables; // the program first, then its libraries
};

// Writes `c` to `path`, recording size and mtime of every table's file.
// Throws ControlFileError.
void write_control_file(const std::string& path, const ControlFile& c);

// Reads and checks a control file: a malformed line, an unknown version, an
// event that resolves differently now, or a stale table (file changed since,
// or newer than the control file) is a one-line ControlFileError.
ControlFile read_control_file(const std::string& path);

// The options of the control file; command-line options are applied on top.
RunOptions control_run_options(const ControlFile& c);

// The path execvp would run for `name` (PATH search when it has no '/');
// empty when not found.
std::string find_program(const std::string& name);

// The shared front of sprof_lib and sprof_pt: parses the options; when a
// control file applies (-c FILE, or <program>.prf beside the program) reads
// it, takes its options and applies the command line on top; stores the
// control file's absolute path in opts.control (empty when none) and, when
// `tables` is given, its function tables. Returns the program's index in argv.
// Throws UsageError or ControlFileError.
int parse_run_with_control(int argc, char** argv, RunOptions& opts, bool ptrace_options,
                           std::vector<ObjectSymbols>* tables);

}  // namespace sprof
