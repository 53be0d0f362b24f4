// What the locality views share (locality_views.hpp).
#include "locality_views.hpp"

#include "cache_levels.hpp"

namespace sprof::analyze {

ViewParams view_params(const Options& o) {
    return {o.caches, o.line_size, o.by, o.top, o.format, o.names, o.user_frames};
}

ViewInput view_input(const Dataset& d, const ViewParams& p) {
    ViewInput in{locality_data(d), {}};
    check_line_size(in.locality, p.line_size);
    in.lines = cache_lines(in.locality, p.caches.empty() ? kDefaultCaches : p.caches);
    return in;
}

std::string cache_column(const std::string& name, size_t k, uint64_t lines, uint32_t line_size) {
    return k == 0 ? name : name + "_" + cache_label(lines * line_size);
}

}  // namespace sprof::analyze
