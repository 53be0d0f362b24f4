// Which source is the user's own code and which a library's: what
// --user-frames walks an inline chain past (a miss in an inlined std::map
// lookup lands on stl_tree.h; its user's line is a frame further out).
#pragma once
#include <string>

#include "dataset.hpp"

namespace sprof::analyze {

// A file the system's compiler and libraries installed: under /usr/include,
// /usr/lib (gcc's own headers), /usr/local/include or /usr/src.
bool library_source(const std::string& path);

// The innermost frame of `l`'s inline chain whose file is known and not a
// library's; null when every frame is a library's (a library function that
// was called, not inlined: only its call path knows its user).
const SourceFrame* first_user_frame(const Dataset& d, const SourceLocation& l);

}  // namespace sprof::analyze
