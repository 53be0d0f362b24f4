// The profile a run writes for each process it profiles: the HEADER that
// says how it was measured, and the file it goes to.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "sprof/job.hpp"
#include "sprof/profile.hpp"
#include "sprof/run_options.hpp"

namespace sprof {

// The HEADER of a run of `program` (process `pid`, command line `argv`) by
// `collector`; host name, start time and the place in a job (the
// launcher's environment) are taken now.
ProfileHeader make_profile_header(const std::string& collector, const RunOptions& run, const std::string& program,
                                  std::vector<std::string> argv, pid_t pid);

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
