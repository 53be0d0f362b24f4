#include "user_code.hpp"

#include <array>
#include <string_view>

namespace sprof::analyze {

bool library_source(const std::string& path) {
    static constexpr std::array<std::string_view, 4> kLibraryDirs = {"/usr/include/", "/usr/lib/",
                                                                     "/usr/local/include/", "/usr/src/"};
    for (std::string_view dir : kLibraryDirs)
        if (path.starts_with(dir)) return true;
    return false;
}

const SourceFrame* first_user_frame(const Dataset& d, const SourceLocation& l) {
    for (const SourceFrame& f : l.frames)
        if (f.file != kNoString && f.line != 0 && !library_source(d.file_path(f))) return &f;
    return nullptr;
}

}  // namespace sprof::analyze
