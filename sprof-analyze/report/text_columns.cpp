#include "text_columns.hpp"

#include <algorithm>

namespace sprof::analyze {
namespace {
bool starts_character(char ch) { return (ch & 0xc0) != 0x80; }
}  // namespace

size_t columns(const std::string& s) {
    return static_cast<size_t>(std::count_if(s.begin(), s.end(), starts_character));
}

std::string fit(const std::string& s, size_t width) {
    size_t used = 0, i = 0;
    for (; i < s.size(); ++i) {
        if (starts_character(s[i]) && used++ == width) break;
    }
    return s.substr(0, i);
}

std::string abbreviate(const std::string& s, size_t width) {
    if (width == 0 || columns(s) <= width) return s;
    return fit(s, width - 1) + "…";
}

std::string elide_middle(const std::string& s, size_t width) {
    const size_t n = columns(s);
    if (width == 0 || n <= width) return s;
    const size_t head = (width - 1) / 3, tail = width - 1 - head;
    const std::string end = fit(s, n - tail);  // everything but the tail's characters
    return fit(s, head) + "…" + s.substr(end.size());
}

}  // namespace sprof::analyze
