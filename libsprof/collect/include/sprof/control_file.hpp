// Control files (`<program>.prf`, written by preprof): a run's options and the
// precomputed function tables of a program and its shared libraries, so a
// collector starts without parsing ELF. Text; specified in docs/FORMAT.md.
#pragma once
#include <stdexcept>
#include <string>

#include "sprof/run_options.hpp"

namespace sprof {

constexpr int kControlFormatVersion = 1;

struct ControlFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A control file: the run options it holds (each marked given) and the
// function tables (in run.tables), for one program.
struct ControlFile {
    std::string program;  // absolute path of the executable
    RunOptions run;       // events (resolved and probed when written), slots, intervals, backend, tables
};

// Writes `c` to `path`, recording size and mtime of every table's file.
// Throws ControlFileError.
void write_control_file(const std::string& path, const ControlFile& c);

// Reads and checks a control file: a malformed line, an unknown version, an
// event that resolves differently now, or a stale table (file changed since,
// or newer than the control file) is a one-line ControlFileError.
ControlFile read_control_file(const std::string& path);

// The control file's options where the command line gave none (its slot
// count only with its own events: it was set for them), and its tables.
void apply_control_file(RunOptions& run, RunOptions file);

}  // namespace sprof
