// Whether a program can give locality records: only a program built with
// sprof-cc / sprof-c++ calls the access hooks (this machine has no PMU to
// sample the addresses of an unmodified one, docs/ARCHITECTURE.md).
#pragma once
#include <string>

namespace sprof {

// Empty when the ELF file at `path` calls the access hooks (it needs
// libsprof_access.so, or has undefined __tsan_ symbols); otherwise why not,
// as one sentence that says what to do.
std::string why_not_instrumented(const std::string& path);

}  // namespace sprof
