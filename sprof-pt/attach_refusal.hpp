// Why sprof_pt may not attach to a running task, in words a user can act on.
#pragma once
#include <sys/types.h>

#include <string>

namespace sprof::pt {

// "cannot attach to process|thread ID: why", for PTRACE_SEIZE's errno `err`
// (ESRCH: the task is gone; EPERM: the owner, Yama's ptrace_scope, another
// tracer, or a process that is not dumpable).
std::string attach_refusal(pid_t id, bool thread, int err);

}  // namespace sprof::pt
