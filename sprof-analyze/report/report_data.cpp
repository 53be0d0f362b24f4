// sprof --data: the view of data_structures() (data_structures.hpp).
#include <fmt/format.h>

#include "sprof/option_values.hpp"
#include "data_structures.hpp"
#include "locality_report.hpp"
#include "locality_views.hpp"
#include "reports.hpp"

namespace sprof::analyze {

void write_data_view(const Dataset& d, const ViewParams& p, std::ostream& out) {
    const ViewInput in = view_input(d, p);
    const LocalityData& l = in.locality;
    const DataTable dt = data_structures(d, l, {in.lines, p.by, p.user_frames});
    const size_t n = dt.lines.size();
    Table t;
    t.add_column({Column::text, "data", 0, names_location(p.by)});
    t.add_column({Column::text, "kind"});
    t.add_column({Column::fixed, "accesses_pct", 2});
    for (size_t k = 0; k < n; ++k) {
        t.add_column({Column::fixed, cache_column("miss_ratio", k, dt.lines[k], l.line_size), 4});
        t.add_column({Column::integer, cache_column("misses", k, dt.lines[k], l.line_size)});
        t.add_column({Column::fixed, cache_column("spatial_use", k, dt.lines[k], l.line_size), 1});
        t.add_column({Column::fixed, cache_column("temporal_use", k, dt.lines[k], l.line_size), 2});
    }
    t.add_column({Column::integer, "accesses"});
    t.add_column({Column::integer, "size"});
    t.add_column({Column::text, "object"});
    size_t shown = 0;
    for (const DataStructure& r : dt.rows) {
        if (p.top && shown++ == p.top) break;
        t.new_row();
        t.put(r.name);
        t.put(std::string(to_string(r.kind)));
        t.put(percent(r.accesses, dt.accesses));
        for (size_t k = 0; k < n; ++k) {
            t.put(r.accesses > 0 ? std::optional<double>(r.misses[k] / r.accesses) : std::nullopt);
            t.put(r.misses[k]);
            t.put(known(100 * r.use[k].spatial(l.line_size)));
            t.put(known(r.use[k].temporal()));
        }
        t.put(r.accesses);
        t.put_value(r.kind == DataKind::static_data ? Value(r.size) : Value());
        t.put(object_basename(r.object));
    }
    std::vector<std::string> notes;
    Json caches = Json::array();
    for (size_t k = 0; k < n; ++k) {
        const double ratio = dt.accesses > 0 ? dt.misses[k] / dt.accesses : 0;
        notes.push_back(fmt::format("cache {} ({} lines): miss ratio {:.4f}, {:.0f} misses of {:.0f} accesses "
                                    "(estimated)", format_bytes(dt.lines[k] * l.line_size), dt.lines[k], ratio,
                                    dt.misses[k], dt.accesses));
        caches.push_back({{"cache_bytes", dt.lines[k] * l.line_size}, {"lines", dt.lines[k]}, {"miss_ratio", ratio},
                          {"misses", dt.misses[k]}});
    }
    notes.push_back("heap blocks by allocation site (heap@SITE), static data by symbol, stacks, other mappings");
    write_locality_table(out, p.format, p.names, d, l, Policy::lru, "misses and use per data structure", notes, t,
                         "data", {{"accesses", dt.accesses}, {"caches", caches}});
}

void report_data(const Context& c) { write_data_view(c.data, view_params(c.options), c.out); }

}  // namespace sprof::analyze
