// The file an export (--export KIND FILE) writes: whole, or not at all.
#pragma once
#include <functional>
#include <ostream>
#include <string>

namespace sprof::analyze {

// Writes `path` through `write`. When anything fails (opening, `write`
// throwing, a short write) the error names the file and what failed, and a
// regular file begun at `path` is removed: no half-written export is left
// for a viewer to choke on. (Only a regular file: /dev/null stays.)
void write_export_file(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace sprof::analyze
