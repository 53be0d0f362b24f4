// sprof --use: the view of statement_use() (statement_use.hpp).
#include <fmt/format.h>

#include "sprof/option_values.hpp"
#include "locality_report.hpp"
#include "locality_views.hpp"
#include "reports.hpp"
#include "statement_use.hpp"

namespace sprof::analyze {

void write_use_view(const Dataset& d, const ViewParams& p, std::ostream& out) {
    const ViewInput in = view_input(d, p);
    const LocalityData& l = in.locality;
    const UseTable u = statement_use(d, l, {in.lines, p.by, p.user_frames});
    const size_t n = u.lines.size();
    const bool function_column = p.by != Granularity::function;  // as in --misses
    Table t;
    t.add_column({Column::text, "location", 0, names_location(p.by)});
    for (size_t k = 0; k < n; ++k) {
        t.add_column({Column::fixed, cache_column("spatial_use", k, u.lines[k], l.line_size), 1});
        t.add_column({Column::fixed, cache_column("temporal_use", k, u.lines[k], l.line_size), 2});
        if (k == 0) t.add_column({Column::text, "access"});
        t.add_column({Column::integer, cache_column("misses", k, u.lines[k], l.line_size)});
        t.add_column({Column::integer, cache_column("tenures", k, u.lines[k], l.line_size)});
    }
    if (function_column) t.add_column({Column::text, "function", 0, true});
    size_t shown = 0;
    for (const StatementUse& r : u.rows) {
        if (p.top && shown++ == p.top) break;
        const Location& loc = u.locations[r.location];
        t.new_row();
        t.put(loc.name);
        for (size_t k = 0; k < n; ++k) {
            t.put(known(100 * r.use[k].spatial(l.line_size)));
            t.put(known(r.use[k].temporal()));
            if (k == 0) t.put(std::string(r.store ? "store" : "load"));
            t.put(r.misses[k]);
            t.put(r.use[k].samples);
        }
        if (function_column) t.put(function_name(d, loc));
    }
    std::vector<std::string> notes = {granularity_note(p.by)};
    Json caches = Json::array();
    for (size_t k = 0; k < n; ++k) {
        const UseSum& all = u.total[k];
        notes.push_back(fmt::format("cache {} ({} lines): spatial use {:.1f} %, temporal use {:.2f}, over {} tenures",
                                    format_bytes(u.lines[k] * l.line_size), u.lines[k],
                                    100 * all.spatial(l.line_size), all.temporal(), all.samples));
        caches.push_back({{"cache_bytes", u.lines[k] * l.line_size},
                          {"lines", u.lines[k]},
                          {"spatial_use", known_json(100 * all.spatial(l.line_size))},
                          {"temporal_use", known_json(all.temporal())},
                          {"tenures", all.samples}});
    }
    notes.push_back(l.exact ? "exact: every tenure the simulator followed (its first 32 accesses)"
                            : "sampled: the tenures of the lines that sampled reuses bring in when they miss, the "
                              "cache's eviction point chosen by the model (cold misses not included)");
    notes.push_back("spatial use: % of a line's bytes touched before eviction; temporal use: further touches of "
                    "each used byte");
    write_locality_table(out, p.format, p.names, d, l, Policy::lru, "spatial and temporal use per statement", notes, t,
                         "statements", {{"by", to_string(p.by)}, {"caches", caches}});
}

void report_use(const Context& c) { write_use_view(c.data, view_params(c.options), c.out); }

}  // namespace sprof::analyze
