// sprof --misses: the view of location_misses() (code_misses.hpp).
#include <fmt/format.h>

#include "sprof/option_values.hpp"
#include "code_misses.hpp"
#include "locality_report.hpp"
#include "locality_views.hpp"
#include "reports.hpp"

namespace sprof::analyze {

namespace {

// What --user-frames could not move: misses in library code no user line
// inlined (a library function called, out of line), in the first cache.
std::string library_note(const LocationMisses& m, double all_misses) {
    double library = 0;
    size_t locations = 0;
    for (const CodeMisses& r : m.table.rows)
        if (m.locations[r.key].library && !r.misses.empty()) {
            library += r.misses[0];
            ++locations;
        }
    return fmt::format("user frames: {:.0f} misses ({:.1f} %) at {} location(s) in library code not inlined into "
                       "the user's: their user's line needs call paths",
                       library, percent(library, all_misses), locations);
}

}  // namespace

void write_misses_view(const Dataset& d, const ViewParams& p, std::ostream& out) {
    const ViewInput in = view_input(d, p);
    const LocalityData& l = in.locality;
    const LocationMisses m = location_misses(d, l, {in.lines, p.by, p.user_frames});
    const CodeMissTable& mt = m.table;
    const size_t n = mt.lines.size();
    // At --by function a location is its function: no column repeats it.
    const bool function_column = p.by != Granularity::function;
    Table t;
    t.add_column({Column::text, "location", 0, names_location(p.by)});
    t.add_column({Column::fixed, "accesses_pct", 2});
    for (size_t k = 0; k < n; ++k) {
        t.add_column({Column::fixed, cache_column("miss_ratio", k, mt.lines[k], l.line_size), 4});
        t.add_column({Column::integer, cache_column("misses", k, mt.lines[k], l.line_size)});
    }
    if (function_column) t.add_column({Column::text, "function", 0, true});
    t.add_column({Column::integer, "accesses"});
    for (size_t k = 0; k < n; ++k)
        t.add_column({Column::fixed, cache_column("misses_pct", k, mt.lines[k], l.line_size), 2});
    size_t shown = 0;
    for (const CodeMisses& r : mt.rows) {
        if (p.top && shown++ == p.top) break;
        const Location& loc = m.locations[r.key];
        t.new_row();
        t.put(loc.name);
        t.put(percent(r.accesses, mt.accesses));
        for (size_t k = 0; k < n; ++k) {
            t.put(r.accesses > 0 ? std::optional<double>(r.misses[k] / r.accesses) : std::nullopt);
            t.put(r.misses[k]);
        }
        if (function_column) t.put(function_name(d, loc));
        t.put(r.accesses);
        for (size_t k = 0; k < n; ++k) t.put(percent(r.misses[k], mt.misses[k]));
    }
    std::vector<std::string> notes = {granularity_note(p.by)};
    Json caches = Json::array();
    for (size_t k = 0; k < n; ++k) {
        const double ratio = mt.accesses > 0 ? mt.misses[k] / mt.accesses : 0;
        notes.push_back(fmt::format("cache {} ({} lines): miss ratio {:.4f}, {:.0f} misses of {:.0f} accesses{}",
                                    format_bytes(mt.lines[k] * l.line_size), mt.lines[k], ratio, mt.misses[k],
                                    mt.accesses, l.exact ? "" : " (estimated)"));
        caches.push_back({{"cache_bytes", mt.lines[k] * l.line_size}, {"lines", mt.lines[k]}, {"miss_ratio", ratio},
                          {"misses", mt.misses[k]}});
    }
    if (p.user_frames) notes.push_back(library_note(m, n > 0 ? mt.misses[0] : 0));
    if (!l.exact)
        notes.push_back("a reuse's miss is its trigger's; a line never reused is the cold miss of its sampled access");
    write_locality_table(out, p.format, p.names, d, l, Policy::lru, "misses per location", notes, t, "locations",
                         {{"by", to_string(p.by)}, {"accesses", mt.accesses}, {"caches", caches}});
}

void report_misses(const Context& c) { write_misses_view(c.data, view_params(c.options), c.out); }

}  // namespace sprof::analyze
