// The shared libraries a dynamically linked program loads at start, as its
// own dynamic loader resolves them (search paths, ld.so.cache, RUNPATH).
#pragma once
#include <string>
#include <vector>

namespace sprof::preprof {

// Absolute, symlink-free paths of the libraries and the loader; empty for a
// static program. Throws std::runtime_error (unreadable ELF, missing library).
std::vector<std::string> shared_libraries(const std::string& program);

}  // namespace sprof::preprof
