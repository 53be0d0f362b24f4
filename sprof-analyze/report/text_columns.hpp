// Text measured as a terminal or a plot key shows it: in characters, not
// bytes, of UTF-8 (symbol names are ASCII or narrow characters).
#pragma once

#include <cstddef>
#include <string>

namespace sprof::analyze {

size_t columns(const std::string& s);
// The first `width` characters of `s` (never a character cut in half).
std::string fit(const std::string& s, size_t width);
// `s` if it has at most `width` characters, else its first width - 1 and "…":
// a name too long for a plot's key (a hostile profile's may have megabytes).
std::string abbreviate(const std::string& s, size_t width);
// `s` if it has at most `width` characters, else its head and its tail
// around "…", the tail twice as long: a function's own name and a file's
// line number are at the end of what a table shows.
std::string elide_middle(const std::string& s, size_t width);

}  // namespace sprof::analyze
