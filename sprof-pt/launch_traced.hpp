// Starting the program under ptrace, with its counters armed before its
// first instruction.
#pragma once
#include <signal.h>
#include <sys/types.h>

#include <functional>
#include <string>

namespace sprof::pt {

// Forks; the child restores `child_mask` and waits until the parent has seized
// it (ptrace `options`) and run `arm(pid)` (counters with enable-on-exec),
// then execs argv. An exec failure is reported by the child itself (exit 127/126).
// Throws std::runtime_error when the child cannot be created or seized.
pid_t launch_traced(char** argv, const std::string& tool, unsigned long options, const sigset_t& child_mask,
                    const std::function<void(pid_t)>& arm);

}  // namespace sprof::pt
