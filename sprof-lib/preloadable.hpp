// Whether sprof_lib's runtime can be preloaded into a program: the dynamic
// loader reads LD_PRELOAD only in a dynamically linked program, and ignores
// it in secure mode (a set-user-ID or set-group-ID program that changes the
// user's identity). sprof_lib checks before the start, so a program it could
// not profile is never run unprofiled.
#pragma once
#include <string>

namespace sprof {

// Empty when the runtime can be preloaded into the program at `path` (also
// for a script: its interpreter is checked when it runs); otherwise why not,
// as one sentence that says what to do.
std::string why_not_preloadable(const std::string& path);

}  // namespace sprof
